// What fills the two columns: the wheel (or its loading / error state) and the content pane's view.
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Wheel } from "./wheel.js";
import { WheelToolbar } from "./wheel-toolbar.js";
import { Briefing } from "./briefing.js";
import { forgetOfflineCopy } from "./pwa.js";
import { SliceView } from "./slice-view.js";
import { ChatView } from "./chat.js";
import { Settings } from "./settings.js";
import { CardPage } from "./card-page.js";
import { lazy } from "./lazy.js";
import { api } from "./api.js";
import { dropSliceCache, fetchSlice } from "./app-data.js";
import { entryMs } from "./lib/time.js";

// Pages few visits open, loaded when first shown.
const EvolutionPage = lazy(() => import("./evolution-page.js"), "EvolutionPage");
const ImportPage = lazy(() => import("./import-page.js"), "ImportPage");

function Retry({ message, onRetry, t }) {
  return html`<p class="empty-state" role="alert">${message}</p>
    <button type="button" class="ghost-btn" onClick=${onRetry}>${t("common.retry")}</button>`;
}

function Loading() {
  return html`<div class="column"><div class="skeleton" aria-busy="true"><span></span><span></span><span></span></div></div>`;
}

/** The wheel column. */
export function WheelColumn({ data, entries, litId, go, phone, reduced, strand, setStrand, openSearch, wheelRef, t }) {
  if (data.catalogError) {
    return html`<div class="wheel-error"><${Retry} message=${t("wheel.failed")} onRetry=${data.refreshCatalog} t=${t} /></div>`;
  }
  if (data.catalog === null) {
    return html`<div class="wheel-loading" aria-busy="true">
      <${Icon} name="loader-circle" class="spin" size=${20} label=${t("common.loading")} />
    </div>`;
  }
  const toolbar = html`<${WheelToolbar} counts=${data.strandCounts} strand=${strand} onStrand=${setStrand} onSearch=${openSearch} t=${t} phone=${phone} />`;
  return html`<${Wheel}
    entries=${entries}
    litId=${litId}
    onSelect=${(e) => go(e.id)}
    phone=${phone}
    t=${t}
    reducedMotion=${reduced}
    label=${t("wheel.label")}
    listRef=${wheelRef}
    onNearStart=${data.loadOlder}
    toolbar=${toolbar}
  />`;
}

/** The content pane's view for what is shown: settings, the card, a slice, the chat or the briefing. */
export function PaneContent({ shown, data, chat, slice, nav, prefs, t, nowMs }) {
  const { go, step, send, setStrand, sliceIndex } = nav;
  const flags = (data.state && data.state.flags) || null;
  if (shown.view === "settings") {
    // The form starts from the stored settings: drawn before they are read, what the user typed
    // would be replaced when they arrive.
    if (!data.config) return html`<${Loading} />`;
    return html`<${Settings} config=${data.config} models=${data.models} flags=${flags} t=${t} theme=${prefs.theme}
      onTheme=${prefs.setTheme} onConfigSaved=${(c) => (data.setConfig(c), prefs.adoptConfig(c, true), data.refreshModels(), data.refreshState())}
      onSignOut=${() => api.post("/api/auth/sign-out").finally(() => forgetOfflineCopy().finally(() => location.assign("sign-in.html")))} />`;
  }
  if (shown.view === "card") return html`<${CardPage} t=${t} onOpenSlice=${go} readOnly=${!flags || Boolean(flags.demo || flags.read_only)} />`;
  if (shown.view === "evolution") return html`<${EvolutionPage} t=${t} onOpenSlice=${go} readOnly=${!flags || Boolean(flags.demo || flags.read_only)} />`;
  if (shown.view === "import") return html`<${ImportPage} flags=${flags} t=${t} onImported=${() => (dropSliceCache(), data.refreshCatalog(), data.refreshState(), data.refreshStrands())} />`;
  if (shown.view === "slice") {
    const refresh = () => (data.refreshCatalog(), data.refreshStrands(), data.refreshState());
    const forgotten = (result) => {
      dropSliceCache(shown.id);
      refresh();
      // Replaced, not pushed: Back must not lead to the slice that is gone (a 404).
      if (result.whole_slice) location.replace("#/");
      else fetchSlice(shown.id).then(slice.replace, () => go("now"));
    };
    return html`<${SliceView} id=${shown.id} data=${slice.data} error=${slice.error} loading=${slice.loading} t=${t}
      nowMs=${nowMs} onFilterStrand=${setStrand} onNow=${() => go("now")}
      onPrev=${sliceIndex > 0 ? () => step(-1) : null} onNext=${() => step(1)}
      readOnly=${!flags || Boolean(flags.demo || flags.read_only)}
      onChanged=${(saved) => (slice.replace(saved), refresh())} onForgotten=${forgotten} />`;
  }
  if (chat.messages.length) {
    return html`<${ChatView} messages=${chat.messages} t=${t} locale=${prefs.locale} onOpenSlice=${go}
      running=${chat.running} onResend=${flags && !flags.read_only ? chat.resend : null} />`;
  }
  if (data.state && !chat.resuming) {
    const last = (data.catalog || []).find((e) => e.id === data.state.last_slice_id);
    return html`<${Briefing} state=${data.state} presets=${(data.models && data.models.presets) || []} lastStartMs=${last ? entryMs(last) : NaN} t=${t} nowMs=${nowMs}
      onSend=${send} onOpenSlice=${go} onOpenCard=${() => (location.hash = "#/card")} canSend=${!chat.running && nav.online !== false} />`;
  }
  if (data.stateError) {
    return html`<div class="column"><${Retry} message=${t("app.loadFailed")} onRetry=${data.refreshState} t=${t} /></div>`;
  }
  return html`<${Loading} />`;
}
