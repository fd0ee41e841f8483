// Installable app: the service worker (sw.js caches the shell and the last timeline for offline
// reading), whether the browser is online, and the opt-in notification for a long answer that
// finishes while the tab is hidden.
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { REACH_EVENT, api } from "./api.js";

const PROBE_MS = 3000;

const NOTIFY_KEY = "previously:notify";
export const LONG_ANSWER_MS = 15_000;

/** Register sw.js (next to index.html, so its scope is the whole app). Failures are harmless. */
export function registerServiceWorker() {
  if (!("serviceWorker" in navigator) || !globalThis.isSecureContext) return;
  navigator.serviceWorker.register("sw.js").catch(() => {});
}

/** Forget the offline copy of the memory (on sign-out); the name matches sw.js's DATA_CACHE. */
export function forgetOfflineCopy() {
  return globalThis.caches ? caches.delete("previously-data-v2").catch(() => false) : Promise.resolve(false);
}

/** Whether the server can be reached: the browser's online/offline events, and whether the last
 * API call reached it (a copy sw.js served offline does not); offline, the page reads only. */
export function useOnline() {
  const [online, setOnline] = useState(navigator.onLine !== false);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    const reach = (e) => setOnline(Boolean(e.detail));
    addEventListener("online", on);
    addEventListener("offline", off);
    addEventListener(REACH_EVENT, reach);
    return () => (removeEventListener("online", on), removeEventListener("offline", off), removeEventListener(REACH_EVENT, reach));
  }, []);
  // Cut off, ask the server now and then (its health answer never comes from the offline copy).
  useEffect(() => {
    if (online) return;
    const probe = setInterval(() => api.get("/api/health").catch(() => {}), PROBE_MS);
    return () => clearInterval(probe);
  }, [online]);
  return online;
}

function notifyWanted() {
  try {
    return localStorage.getItem(NOTIFY_KEY) === "on";
  } catch {
    return false;
  }
}

/** Notify once when a turn that ran at least LONG_ANSWER_MS ends while the page is hidden (opt-in). */
export function useReplyNotification(running, reply, t) {
  const started = useRef(null);
  useEffect(() => {
    if (running) {
      started.current = Date.now();
      return;
    }
    const began = started.current;
    started.current = null;
    if (began === null || Date.now() - began < LONG_ANSWER_MS || !document.hidden) return;
    if (!notifyWanted() || !("Notification" in globalThis) || Notification.permission !== "granted") return;
    const body = (reply || "").replace(/\s+/g, " ").trim().slice(0, 140);
    new Notification(t("notify.title"), { body: body || t("notify.body"), tag: "previously-reply", icon: "icons/icon-192.png" });
  }, [running]);
}

/** The Settings switch: asks the browser's permission when turned on. */
export function NotifySetting({ t }) {
  const supported = "Notification" in globalThis;
  const [on, setOn] = useState(() => supported && notifyWanted() && Notification.permission === "granted");
  const [denied, setDenied] = useState(supported && Notification.permission === "denied");
  const change = async (e) => {
    const want = e.currentTarget.checked;
    const granted = want && (Notification.permission === "granted" || (await Notification.requestPermission()) === "granted");
    try {
      localStorage.setItem(NOTIFY_KEY, granted ? "on" : "off");
    } catch {
      // Storage unavailable: the switch lasts for this page only.
    }
    setOn(granted);
    setDenied(want && !granted);
  };
  if (!supported) return html`<p class="muted small">${t("notify.unsupported")}</p>`;
  return html`<label class="switch-row"><span>${t("notify.setting")}</span>
      <input type="checkbox" role="switch" data-testid="notify-toggle" checked=${on} onChange=${change} /></label>
    ${denied && html`<p class="muted small" role="status">${t("notify.denied")}</p>`}`;
}
