// The user card — what the agent believes about you — with edit and delete per entry, undo and
// redo over every change, its history (card-history.js, loaded when opened) and "evolve now".
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Markdown } from "./markdown.js";
import { Dialog } from "./dialog.js";
import { api } from "./api.js";
import { localQuery } from "./app-data.js";
import { useEditable } from "./editable.js";
import { cardBody } from "./lib/card-text.js";
import { EvolveNow } from "./evolve-now.js";
import { lazy } from "./lazy.js";

const CardHistory = lazy(() => import("./card-history.js"), "CardHistory");

const SECTIONS = ["identity", "past", "anchor", "now", "horizon", "self_model", "unsorted"];

/** Card refs ("2026/08/11/1426") → slice ids ("2026-08-11-1426"). */
export function refToSliceId(ref) {
  const m = /^(\d{4})[/-](\d{2})[/-](\d{2})[/-](\d{4})$/.exec(String(ref || "").trim());
  return m ? `${m[1]}-${m[2]}-${m[3]}-${m[4]}` : null;
}

function Entry({ entry, t, busy, onSave, onDelete, onOpenSlice }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(entry.text);
  useEffect(() => setText(entry.text), [entry.text]);
  const id = `card-${entry.section}-${entry.n}`;
  if (editing) {
    return html`<li class="card-entry editing" data-testid="card-entry">
      <label class="sr-only" for=${id}>${t("card.editLabel")}</label>
      <textarea id=${id} rows="3" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
      <div class="row-actions">
        <button type="button" class="primary-btn" disabled=${busy || !text.trim()} onClick=${async () => (await onSave(entry, text)) && setEditing(false)}>
          ${t("card.save")}
        </button>
        <button type="button" class="ghost-btn" onClick=${() => (setText(entry.text), setEditing(false))}>${t("card.cancel")}</button>
      </div>
    </li>`;
  }
  return html`<li class="card-entry" data-testid="card-entry" data-section=${entry.section} data-n=${entry.n}>
    <div class="entry-text">
      <span>${entry.text}</span>
      <span class="entry-meta">
        ${entry.flag && html`<span class=${`badge ${entry.flag}`}>${t(`card.flag.${entry.flag}`)}</span>`}
        ${entry.since && html`<span class="muted small">${t("card.since", { date: entry.since })}</span>`}
        ${entry.by && html`<span class="muted small">${t("card.by", { date: entry.by })}</span>`}
        ${(entry.refs || []).map((r) => {
          const sid = refToSliceId(r);
          return sid
            ? html`<button type="button" class="slice-link mono small" onClick=${() => onOpenSlice(sid)}>${sid}</button>`
            : html`<span class="muted small mono">${r}</span>`;
        })}
      </span>
    </div>
    <div class="row-actions">
      <button type="button" class="icon-btn" aria-label=${t("card.edit")} title=${t("card.edit")} disabled=${busy} onClick=${() => setEditing(true)}>
        <${Icon} name="pencil" size=${14} />
      </button>
      <button type="button" class="icon-btn" aria-label=${t("card.delete")} title=${t("card.delete")} disabled=${busy} onClick=${() => onDelete(entry)}>
        <${Icon} name="trash-2" size=${14} />
      </button>
    </div>
  </li>`;
}

/** The card page. */
export function CardPage({ t, onOpenSlice, readOnly = false }) {
  const { data: card, error, busy, notice, run, reload } = useEditable(`/api/card?${localQuery(t.locale)}`, t);
  const [raw, setRaw] = useState(false);
  const [doomed, setDoomed] = useState(null); // the entry a delete is waiting to be confirmed for
  const [history, setHistory] = useState(false);

  const path = (e) => `/api/card/entries/${e.section}/${e.n}`;
  const onSave = (entry, text) => run(() => api.patch(path(entry), { text: text.trim() }), t("card.saved"));
  const onDelete = (entry) => run(() => api.del(path(entry)), t("card.deleted"));
  const confirmDelete = () => {
    const entry = doomed;
    setDoomed(null);
    return onDelete(entry);
  };
  const onUndo = () => run(() => api.post("/api/card/undo"), t("card.undone"));
  const onRedo = () => run(() => api.post("/api/card/redo"), t("card.redone"));
  const onRestore = (id) => run(() => api.post(`/api/card/history/${id}/restore`), t("card.restored"));

  if (error) return html`<div class="column card-page"><p class="empty-state" role="alert">${t("card.loadFailed")}</p></div>`;
  if (!card) return html`<div class="column card-page"><div class="skeleton" aria-busy="true"><span></span><span></span></div></div>`;
  const bySection = SECTIONS.map((s) => [s, card.entries.filter((e) => e.section === s)]).filter(([, es]) => es.length);

  return html`<div class="column card-page" data-testid="card-page">
    <div class="page-head">
      <h1 class="page-title"><${Icon} name="id-card" size=${22} />${t("card.title")}</h1>
      <div class="row-actions">
        <button type="button" class="ghost-btn" data-testid="card-undo" disabled=${!card.can_undo || busy} onClick=${onUndo}>
          <${Icon} name="undo-2" size=${14} />${t("card.undo")}
        </button>
        <button type="button" class="ghost-btn" data-testid="card-redo" disabled=${!card.can_redo || busy} onClick=${onRedo}>
          <${Icon} name="undo-2" class="flip" size=${14} />${t("card.redo")}
        </button>
        <button type="button" class="ghost-btn" data-testid="card-history-toggle" aria-expanded=${String(history)} onClick=${() => setHistory(!history)}>
          <${Icon} name="history" size=${14} />${t("card.history")}
        </button>
        <button type="button" class="ghost-btn" aria-pressed=${String(raw)} onClick=${() => setRaw(!raw)}>
          <${Icon} name="file-text" size=${14} />${t("card.markdown")}
        </button>
      </div>
    </div>
    <p class="muted">${t("card.subtitle")}</p>
    <p class="save-status" role="status">${notice}</p>
    ${history && html`<${CardHistory} t=${t} busy=${busy} version=${card.markdown} onRestore=${onRestore} />`}
    <${EvolveNow} t=${t} busy=${busy} readOnly=${readOnly} onChanged=${reload} />
    ${raw
      ? html`<div class="panel"><${Markdown} text=${cardBody(card.markdown)} t=${t} /></div>`
      : bySection.length === 0
        ? html`<p class="empty-state">${t("card.empty")}</p>`
        : bySection.map(
            ([section, entries]) => html`<section class="panel card-section" data-section=${section}>
              <h2 class="panel-heading">
                ${t(`card.section.${section}`)}
                <code class="section-key" title=${t("card.sectionKey")}>${section}</code>
              </h2>
              <ul class="card-entries">
                ${entries.map((e) => html`<${Entry} key=${`${e.section}-${e.n}-${e.text}`} entry=${e} t=${t} busy=${busy} onSave=${onSave} onDelete=${setDoomed} onOpenSlice=${onOpenSlice} />`)}
              </ul>
            </section>`,
          )}
    <${Dialog} open=${Boolean(doomed)} onClose=${() => setDoomed(null)} title=${t("card.deleteTitle")} icon="trash-2"
      testid="card-delete-dialog" closeLabel=${t("common.close")}>
      <p>${doomed && doomed.text}</p>
      <p class="muted small">${t("card.deleteNote")}</p>
      <div class="form-actions">
        <button type="button" class="primary-btn danger-btn" data-testid="card-delete-confirm" disabled=${busy} onClick=${confirmDelete}>
          ${t("card.delete")}
        </button>
        <button type="button" class="ghost-btn" onClick=${() => setDoomed(null)}>${t("card.keep")}</button>
      </div>
    </${Dialog}>
  </div>`;
}
