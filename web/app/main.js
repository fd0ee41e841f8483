// Entry point: ask once whether this browser may read the memory, then mount the app — so a
// visitor without a session goes straight to sign-in instead of firing calls that all answer 401.
import { render } from "preact";
import { html } from "./html.js";
import { App } from "./app.js";
import { loadLocale } from "./lib/i18n.js";
import { signInUrl } from "./lib/urls.js";
import { registerServiceWorker } from "./pwa.js";

async function mustSignIn() {
  try {
    const res = await fetch("/api/auth/session", { credentials: "same-origin", headers: { Accept: "application/json" } });
    const session = res.ok ? await res.json() : null;
    return Boolean(session && session.auth_required && !session.signed_in);
  } catch {
    return false; // offline or unreachable: the app shows what it last saw
  }
}

registerServiceWorker();

if (await mustSignIn()) globalThis.location.replace(signInUrl(globalThis.location));
else {
  // A demo link's `?persona=ID`, adopted before anything reads the memory.
  if (/[?&]persona=/.test(globalThis.location.href)) await (await import("./persona-link.js")).adoptPersonaFromUrl();
  // The language preboot.js chose, ready before the first paint (no flash of English).
  await loadLocale(document.documentElement.lang).catch(() => {});
  render(html`<${App} />`, document.getElementById("app"));
}
