// The page: header, the wheel beside the content pane (briefing, live chat, a past slice,
// settings or the card), the input bar, and the travel between them.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { Header } from "./header.js";
import { Wheel } from "./wheel.js";
import { WheelToolbar } from "./wheel-toolbar.js";
import { TimeTravel } from "./travel.js";
import { Briefing } from "./briefing.js";
import { SliceView } from "./slice-view.js";
import { ChatView } from "./chat.js";
import { InputBar } from "./input-bar.js";
import { Settings } from "./settings.js";
import { CardPage } from "./card-page.js";
import { SearchDialog } from "./search.js";
import { ShortcutsDialog } from "./shortcuts.js";
import { shortcutFor } from "./lib/keys.js";
import { Icon } from "./icons.js";
import { markdownToText } from "./markdown.js";
import { api } from "./api.js";
import { lastReply, useChat } from "./chat-state.js";
import { dropSliceCache, fetchSlice, useAppData, useMedia, useNow, useRoute, useSlice, useStickToBottom } from "./app-data.js";
import { makeT } from "./lib/i18n.js";
import { entryMs } from "./lib/time.js";
import { usePreferences } from "./preferences.js";

function buildEntries(catalog, strands, strand, nowMs) {
  const members = strand ? new Set(strands[strand] || []) : null;
  const rows = (catalog || [])
    .filter((e) => !members || members.has(e.id) || (e.strands || []).includes(strand))
    .map((e) => ({ id: e.id, ms: entryMs(e), focus: e.focus || "", status: e.status, isNow: false }));
  rows.push({ id: "now", ms: nowMs, focus: "", isNow: true });
  return rows;
}

function useTravel(route, catalog, reduced, nowMs) {
  const [shown, setShown] = useState(route);
  const [travel, setTravel] = useState(null);
  const skipNext = useRef(false);
  const msOf = (id) => {
    const e = (catalog || []).find((x) => x.id === id);
    return e ? entryMs(e) : entryMs({ id });
  };
  useEffect(() => {
    const same = route.view === shown.view && route.id === shown.id;
    if (same) return setTravel(null);
    const fromSlice = shown.view === "slice";
    const toSlice = route.view === "slice";
    if (toSlice) fetchSlice(route.id).catch(() => {});
    const animate = !reduced && !skipNext.current && (toSlice || (fromSlice && route.view === "live"));
    skipNext.current = false;
    if (!animate) {
      setTravel(null);
      return setShown(route);
    }
    setTravel({
      key: `${route.view}:${route.id}:${Date.now()}`,
      target: route,
      fromMs: fromSlice ? msOf(shown.id) : Date.now(),
      toMs: toSlice ? msOf(route.id) : Date.now(),
      isNow: !toSlice,
    });
  }, [route.view, route.id]);
  const current = useRef(null);
  current.current = travel;
  const land = () => {
    const tr = current.current;
    if (!tr) return;
    setShown(tr.target);
    setTravel(null);
  };
  return { shown, travel, land, skipNextTravel: () => (skipNext.current = true), nowMs };
}

/** The whole app. */
export function App() {
  const p = usePreferences();
  const t = useMemo(() => makeT(p.locale), [p.locale]);
  const phone = useMedia("(max-width: 767.98px)");
  const reduced = useMedia("(prefers-reduced-motion: reduce)");
  const route = useRoute();
  const data = useAppData(p.locale);
  const nowMs = useNow();
  const [strand, setStrand] = useState(null);
  const [searchOpen, setSearchOpen] = useState(false);
  const [keysOpen, setKeysOpen] = useState(false);
  const [announce, setAnnounce] = useState("");
  const pane = useRef(null);
  const wheelRef = useRef(null);
  const inputRef = useRef(null);
  const flags = (data.state && data.state.flags) || null;
  const nav = useTravel(route, data.catalog, reduced, nowMs);
  const { shown, travel } = nav;

  useEffect(() => p.adoptConfig(data.config), [data.config]);

  const chat = useChat({
    options: () => p.requestOptions(data.models),
    onSliceOpened: () => data.refreshCatalog(),
    onFinished: () => {
      dropSliceCache();
      data.refreshCatalog();
      data.refreshState();
      data.refreshStrands();
    },
  });
  const stick = useStickToBottom(pane, [chat.messages, shown.view], shown.view === "live");
  const reply = lastReply(chat.messages);
  // The finished reply is announced once (never token by token).
  useEffect(() => reply && setAnnounce(markdownToText(reply).slice(0, 600)), [reply]);

  const entries = useMemo(() => buildEntries(data.catalog, data.strands, strand, nowMs), [data.catalog, data.strands, strand, nowMs]);
  const litId = travel ? travel.target.id || "now" : shown.view === "slice" ? shown.id : "now";
  const slice = useSlice(shown.view === "slice" ? shown.id : null);
  const sliceIndex = entries.findIndex((e) => e.id === (shown.view === "slice" ? shown.id : "now"));

  const go = (id) => {
    location.hash = id && id !== "now" ? `#/slice/${id}` : "#/";
  };
  const step = (delta) => {
    const i = sliceIndex < 0 ? entries.length - 1 : sliceIndex;
    const next = entries[Math.min(entries.length - 1, Math.max(0, i + delta))];
    if (next && next.id !== entries[i].id) go(next.id);
  };
  const send = (text) => {
    if (route.view !== "live") {
      nav.skipNextTravel();
      location.hash = "#/";
    }
    stick.toBottom();
    return chat.send(text);
  };

  useEffect(() => {
    const onKey = (e) => {
      const action = shortcutFor(e);
      if (!action || document.querySelector("dialog[open]")) return;
      e.preventDefault();
      if (action === "search") setSearchOpen(true);
      else if (action === "help") setKeysOpen(true);
      else if (action === "prev") step(-1);
      else if (action === "next") step(1);
      else if (action === "now") go("now");
      else if (action === "wheel") wheelRef.current && wheelRef.current.focus();
      else if (action === "input") inputRef.current && inputRef.current.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  });

  const name = data.state && data.state.name;
  const lastEntry = data.state && (data.catalog || []).find((e) => e.id === data.state.last_slice_id);
  const canSend = !chat.running;
  const showInput = shown.view === "live" || shown.view === "slice";

  let content;
  if (shown.view === "settings") {
    content = html`<${Settings} config=${data.config} models=${data.models} flags=${flags} t=${t} theme=${p.theme}
      onTheme=${p.setTheme} onConfigSaved=${(c) => (data.setConfig(c), p.adoptConfig(c, true))}
      onSignOut=${() => api.post("/api/auth/sign-out").finally(() => location.assign("sign-in.html"))} />`;
  } else if (shown.view === "card") {
    content = html`<${CardPage} t=${t} onOpenSlice=${go} />`;
  } else if (shown.view === "slice") {
    content = html`<${SliceView} id=${shown.id} data=${slice.data} error=${slice.error} loading=${slice.loading} t=${t} nowMs=${nowMs}
      onFilterStrand=${setStrand} onNow=${() => go("now")}
      onPrev=${sliceIndex > 0 ? () => step(-1) : null} onNext=${() => step(1)} />`;
  } else if (chat.messages.length) {
    content = html`<${ChatView} messages=${chat.messages} t=${t} locale=${p.locale} onOpenSlice=${go} />`;
  } else if (data.state && !chat.resuming) {
    content = html`<${Briefing} state=${data.state} lastStartMs=${lastEntry ? entryMs(lastEntry) : NaN} t=${t} nowMs=${nowMs}
      onSend=${send} onOpenSlice=${go} onOpenCard=${() => (location.hash = "#/card")} canSend=${canSend} />`;
  } else if (data.stateError) {
    content = html`<div class="column"><p class="empty-state" role="alert">${t("app.loadFailed")}</p>
      <button type="button" class="ghost-btn" onClick=${data.refreshState}>${t("common.retry")}</button></div>`;
  } else {
    content = html`<div class="column"><div class="skeleton" aria-busy="true"><span></span><span></span><span></span></div></div>`;
  }

  const wheel = data.catalogError
    ? html`<div class="wheel-error" role="alert"><p>${t("wheel.failed")}</p>
        <button type="button" class="ghost-btn" onClick=${data.refreshCatalog}>${t("common.retry")}</button></div>`
    : data.catalog === null
      ? html`<div class="wheel-loading" aria-busy="true"><${Icon} name="loader-circle" class="spin" size=${20} label=${t("common.loading")} /></div>`
      : html`<${Wheel} entries=${entries} litId=${litId} onSelect=${(e) => go(e.id)} phone=${phone} t=${t}
          reducedMotion=${reduced} label=${t("wheel.label")} listRef=${wheelRef}
          toolbar=${html`<${WheelToolbar} strands=${data.strands} strand=${strand} onStrand=${setStrand} onSearch=${() => setSearchOpen(true)} t=${t} phone=${phone} />`} />`;

  return html`<div class="app">
    <a class="skip-link" href="#content" onClick=${(e) => (e.preventDefault(), pane.current && pane.current.focus())}>${t("nav.skip")}</a>
    <${Header} t=${t} locale=${p.locale} onLocale=${p.setLocale} theme=${p.theme} onTheme=${p.cycleTheme}
      demo=${Boolean(flags && flags.demo)} onSearch=${() => setSearchOpen(true)} onShortcuts=${() => setKeysOpen(true)} route=${shown} />
    <div class="split">
      <aside class="wheel-col" aria-label=${t("wheel.region")}>${wheel}</aside>
      <main class="pane" id="content">
        <div class="pane-scroll" ref=${pane} tabindex="-1">${content}</div>
        ${travel &&
        html`<${TimeTravel} key=${travel.key} fromMs=${travel.fromMs} toMs=${travel.toMs} nowMs=${Date.now()} isNow=${travel.isNow}
          name=${name} t=${t} onDone=${nav.land} />`}
        ${stick.away && chat.running &&
        html`<button type="button" class="jump-latest" onClick=${stick.toBottom}><${Icon} name="arrow-down" size=${14} />${t("chat.jumpLatest")}</button>`}
        ${showInput &&
        html`<div class="pane-input">
          <${InputBar} t=${t} running=${chat.running} onSend=${send} onStop=${chat.stop} models=${data.models}
            prefs=${p.prefs} onPrefs=${(patch) => p.updatePrefs(patch, flags)} inputRef=${inputRef} />
        </div>`}
      </main>
    </div>
    <${SearchDialog} open=${searchOpen} onClose=${() => setSearchOpen(false)} catalog=${data.catalog || []} onOpenSlice=${go} t=${t} />
    <${ShortcutsDialog} open=${keysOpen} onClose=${() => setKeysOpen(false)} t=${t} />
    <div class="sr-only" aria-live="polite" data-testid="announcer">${announce}</div>
  </div>`;
}
