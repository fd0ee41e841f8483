// The page: header, the wheel beside the content pane (briefing, live chat, a past slice,
// settings or the card), the input bar, and the travel between them.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { Header } from "./header.js";
import { TimeTravel } from "./travel.js";
import { InputBar } from "./input-bar.js";
import { SearchDialog } from "./search.js";
import { ShortcutsDialog } from "./shortcuts.js";
import { Icon } from "./icons.js";
import { markdownToText } from "./markdown.js";
import { PaneContent, WheelColumn } from "./panes.js";
import { buildEntries, useShortcuts, useTravel } from "./navigation.js";
import { lastReply, useChat } from "./chat-state.js";
import { dropSliceCache, useAppData, useMedia, useNow, useRoute, useSlice, useStickToBottom } from "./app-data.js";
import { hasLocale, loadLocale, makeT } from "./lib/i18n.js";
import { usePreferences } from "./preferences.js";
import { useOnline, useReplyNotification } from "./pwa.js";
import { PersonaUrlNotice } from "./persona-picker.js";

/** The live chat, refreshing the timeline when a turn opens a slice or ends. */
function useLiveChat(data, prefs) {
  return useChat({
    state: data.state,
    options: () => prefs.requestOptions(data.models),
    onSliceOpened: () => data.refreshCatalog(),
    onFinished: () => {
      dropSliceCache();
      data.refreshCatalog();
      data.refreshState();
      data.refreshStrands();
    },
  });
}

/** The finished reply, as plain text, for the polite live region (announced once, not per token). */
function useAnnouncement(messages) {
  const [announce, setAnnounce] = useState("");
  const reply = lastReply(messages);
  useEffect(() => reply && setAnnounce(markdownToText(reply).slice(0, 600)), [reply]);
  return announce;
}

/** The whole app. */
export function App() {
  const prefs = usePreferences();
  const [dicts, setDicts] = useState(0); // bumped when a dictionary has loaded
  useEffect(() => {
    if (!hasLocale(prefs.locale)) loadLocale(prefs.locale).then(() => setDicts((n) => n + 1), () => {});
  }, [prefs.locale]);
  const t = useMemo(() => makeT(prefs.locale), [prefs.locale, dicts]);
  const phone = useMedia("(max-width: 767.98px)");
  const reduced = useMedia("(prefers-reduced-motion: reduce)");
  const route = useRoute();
  const data = useAppData(prefs.locale);
  const nowMs = useNow();
  const [strand, setStrand] = useState(null);
  useEffect(() => {
    data.loadStrand(strand);
  }, [strand]);
  const [dialog, setDialog] = useState(null); // "search" | "keys" | null
  const refs = { pane: useRef(null), wheel: useRef(null), input: useRef(null) };
  const flags = (data.state && data.state.flags) || null;
  const { shown, travel, land, skipNextTravel } = useTravel(route, data.catalog, reduced);
  useEffect(() => prefs.adoptConfig(data.config), [data.config]);
  const chat = useLiveChat(data, prefs);
  const stick = useStickToBottom(refs.pane, [chat.messages, shown.view], shown.view === "live");
  const announce = useAnnouncement(chat.messages);
  const online = useOnline();
  useReplyNotification(chat.running, lastReply(chat.messages), t);

  const entries = useMemo(() => buildEntries(data.catalog, data.strands, strand, nowMs), [data.catalog, data.strands, strand, nowMs]);
  const shownId = shown.view === "slice" ? shown.id : "now";
  const litId = travel ? travel.target.id || "now" : shownId;
  const slice = useSlice(shown.view === "slice" ? shown.id : null);
  const sliceIndex = entries.findIndex((e) => e.id === shownId);
  const go = (id) => {
    location.hash = id && id !== "now" ? `#/slice/${id}` : "#/";
  };
  const step = (delta) => {
    const i = sliceIndex < 0 ? entries.length - 1 : sliceIndex;
    const next = entries[Math.min(entries.length - 1, Math.max(0, i + delta))];
    if (next && next.id !== entries[i].id) go(next.id);
  };
  // Sending always returns to the live conversation, without the travel.
  const send = (text, images = []) => {
    if (!online) return false;
    if (route.view !== "live") {
      skipNextTravel();
      location.hash = "#/";
    }
    stick.toBottom();
    return chat.send(text, images);
  };
  const focus = (ref) => () => ref.current && ref.current.focus();
  useShortcuts({ search: () => setDialog("search"), help: () => setDialog("keys"), prev: () => step(-1), next: () => step(1),
    now: () => go("now"), wheel: focus(refs.wheel), input: focus(refs.input) });

  return html`<div class="app">
    <a class="skip-link" href="#content" onClick=${(e) => (e.preventDefault(), focus(refs.pane)())}>${t("nav.skip")}</a>
    <${Header} t=${t} locale=${prefs.locale} onLocale=${prefs.setLocale} theme=${prefs.theme} onTheme=${prefs.cycleTheme}
      demo=${Boolean(flags && flags.demo)} onSearch=${() => setDialog("search")} onShortcuts=${() => setDialog("keys")} route=${shown} />
    ${!online && html`<p class="offline-bar" role="status" data-testid="offline">${t("offline.banner")}</p>`}
    <${PersonaUrlNotice} t=${t} />
    <div class="split">
      <aside class="wheel-col" aria-label=${t("wheel.region")}>
        <${WheelColumn} data=${data} entries=${entries} litId=${litId} go=${go} phone=${phone} reduced=${reduced}
          strand=${strand} setStrand=${setStrand} openSearch=${() => setDialog("search")} wheelRef=${refs.wheel} t=${t} />
      </aside>
      <main class="pane" id="content">
        <div class="pane-scroll" ref=${refs.pane} tabindex="-1">
          <${PaneContent} shown=${shown} data=${data} chat=${chat} slice=${slice} prefs=${prefs} t=${t} nowMs=${nowMs}
            nav=${{ go, step, send, setStrand, sliceIndex, online }} />
        </div>
        ${travel &&
        html`<${TimeTravel} key=${travel.key} fromMs=${travel.fromMs} toMs=${travel.toMs} nowMs=${Date.now()}
          isNow=${travel.isNow} name=${data.state && data.state.name} t=${t} onDone=${land} />`}
        ${stick.away && chat.running &&
        html`<button type="button" class="jump-latest" onClick=${stick.toBottom}>
          <${Icon} name="arrow-down" size=${14} />${t("chat.jumpLatest")}
        </button>`}
        ${(shown.view === "live" || shown.view === "slice") &&
        html`<div class="pane-input">
          <${InputBar} t=${t} running=${chat.running} onSend=${send} onStop=${chat.stop} models=${data.models}
            prefs=${prefs.prefs} onPrefs=${(patch) => prefs.updatePrefs(patch, flags)} inputRef=${refs.input}
            disabledReason=${online ? null : t("offline.input")} />
        </div>`}
      </main>
    </div>
    <${SearchDialog} open=${dialog === "search"} onClose=${() => setDialog(null)} catalog=${data.catalog || []} onOpenSlice=${go} t=${t} />
    <${ShortcutsDialog} open=${dialog === "keys"} onClose=${() => setDialog(null)} t=${t} />
    <div class="sr-only" aria-live="polite" data-testid="announcer">${announce}</div>
  </div>`;
}
