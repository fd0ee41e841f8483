// Search across slices and jump to a date: catalog matches appear as you type; the server's
// full-text search adds slices whose conversation mentions the words.
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Dialog } from "./dialog.js";
import { api } from "./api.js";
import { highlight, searchCatalog } from "./lib/search.js";
import { indexAtOrBefore } from "./lib/geometry.js";
import { entryMs, hhmm, wheelDate } from "./lib/time.js";

const DEBOUNCE_MS = 250;

function Marked({ text, query }) {
  return highlight(text, query).map((piece, i) => (i % 2 ? html`<mark>${piece}</mark>` : piece));
}

function Result({ entry, query, reason, onPick, t }) {
  const ms = entryMs(entry);
  return html`<li>
    <button type="button" class="result" data-testid="search-result" data-slice-id=${entry.id} onClick=${() => onPick(entry.id)}>
      <span class="result-when mono">${wheelDate(ms)} ${hhmm(ms)}</span>
      <span class="result-focus"><${Marked} text=${entry.focus || t("wheel.untitled")} query=${query} /></span>
      ${reason
        ? html`<span class="result-sub muted">${reason}</span>`
        : entry.summary && html`<span class="result-sub muted"><${Marked} text=${entry.summary} query=${query} /></span>`}
    </button>
  </li>`;
}

function useFullText(query, open) {
  const [hits, setHits] = useState([]);
  useEffect(() => {
    if (!open || query.trim().length < 2) {
      setHits([]);
      return undefined;
    }
    let live = true;
    const timer = setTimeout(() => {
      api
        .get(`/api/search?q=${encodeURIComponent(query.trim())}`)
        .then((res) => live && setHits((res && res.hits) || []))
        .catch(() => live && setHits([]));
    }, DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [query, open]);
  return hits;
}

/** The search dialog. `catalog` is every slice (oldest → newest). */
export function SearchDialog({ open, onClose, catalog, onOpenSlice, t }) {
  const [query, setQuery] = useState("");
  const [date, setDate] = useState("");
  const input = useRef(null);
  const fullText = useFullText(query, open);

  useEffect(() => {
    if (open) setTimeout(() => input.current && input.current.focus(), 0);
    else setQuery("");
  }, [open]);

  const local = searchCatalog(catalog, query);
  const seen = new Set(local.map((e) => e.id));
  const byId = new Map(catalog.map((e) => [e.id, e]));
  const extra = fullText.filter((h) => !seen.has(h.slice_id) && byId.has(h.slice_id));
  const pick = (id) => {
    onClose();
    onOpenSlice(id);
  };
  const jump = (e) => {
    e.preventDefault();
    if (!date || !catalog.length) return;
    const end = new Date(`${date}T23:59:59`).getTime();
    const i = indexAtOrBefore(catalog.map(entryMs), end);
    if (i >= 0) pick(catalog[i].id);
  };
  const onKeyDown = (e) => {
    // A search field's own Esc only clears it; here Esc closes the dialog at once.
    if (e.key === "Escape") {
      e.preventDefault();
      onClose();
      return;
    }
    if (e.key === "Enter" && (local[0] || extra[0])) {
      e.preventDefault();
      pick(local[0] ? local[0].id : extra[0].slice_id);
    }
  };

  return html`<${Dialog} open=${open} onClose=${onClose} title=${t("search.title")} icon="search" testid="search-dialog" closeLabel=${t("common.close")} wide=${true}>
    <div class="search-box">
      <label class="sr-only" for="search-q">${t("search.label")}</label>
      <input
        id="search-q"
        ref=${input}
        type="search"
        placeholder=${t("search.placeholder")}
        value=${query}
        onInput=${(e) => setQuery(e.currentTarget.value)}
        onKeyDown=${onKeyDown}
        autocomplete="off"
      />
    </div>
    <form class="date-jump" onSubmit=${jump}>
      <label for="jump-date"><${Icon} name="calendar-days" size=${14} />${t("search.jumpLabel")}</label>
      <input id="jump-date" type="date" value=${date} onInput=${(e) => setDate(e.currentTarget.value)} data-testid="jump-date" />
      <button type="submit" class="ghost-btn" disabled=${!date}>${t("search.jump")}</button>
    </form>
    ${query.trim() &&
    html`<div class="results" aria-live="polite">
      ${local.length === 0 && extra.length === 0 && html`<p class="muted">${t("search.none")}</p>`}
      ${local.length > 0 &&
      html`<h3 class="panel-title">${t("search.inTimeline", { count: local.length, n: local.length })}</h3>
        <ul class="result-list">${local.map((e) => html`<${Result} key=${e.id} entry=${e} query=${query} onPick=${pick} t=${t} />`)}</ul>`}
      ${extra.length > 0 &&
      html`<h3 class="panel-title">${t("search.inConversations")}</h3>
        <ul class="result-list">
          ${extra.map((h) => html`<${Result} key=${h.slice_id} entry=${byId.get(h.slice_id)} query=${query} reason=${h.reason} onPick=${pick} t=${t} />`)}
        </ul>`}
    </div>`}
  </${Dialog}>`;
}
