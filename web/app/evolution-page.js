// The evolution layer — what the agent has learned about working with you — with reject, edit, undo
// and "evolve now" (evolve-now.js).
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { api } from "./api.js";
import { useEditable } from "./editable.js";
import { refToSliceId } from "./card-page.js";
import { EvolveNow } from "./evolve-now.js";

function Refs({ refs, onOpenSlice }) {
  return (refs || []).map((r) => {
    const sid = refToSliceId(r);
    return sid
      ? html`<button type="button" class="slice-link mono small" onClick=${() => onOpenSlice(sid)}>${sid}</button>`
      : html`<span class="muted small mono">${r}</span>`;
  });
}

function Hypothesis({ h, t, busy, onReject, onOpenSlice }) {
  return html`<li class="card-entry" data-testid="evo-hypothesis" data-id=${h.id}>
    <div class="entry-text">
      <span>${h.claim}</span>
      <span class="muted small">${t("evo.test", { test: h.test })}</span>
      <span class="entry-meta">
        ${h.expired
          ? html`<span class="badge overdue">${t("evo.expired")}</span>`
          : html`<span class="muted small">${t("evo.expires", { date: h.expires })}</span>`}
        <${Refs} refs=${h.refs} onOpenSlice=${onOpenSlice} />
      </span>
    </div>
    <div class="row-actions">
      <button type="button" class="ghost-btn" disabled=${busy} onClick=${() => onReject(h)}>${t("evo.reject")}</button>
    </div>
  </li>`;
}

function Playbook({ book, t, busy, onSave, onUndo }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(book.text || "");
  useEffect(() => setText(book.text || ""), [book.text]);
  const id = `playbook-${book.agent}`;
  return html`<section class="panel card-section" data-testid="evo-playbook" data-agent=${book.agent}>
    <div class="page-head">
      <h3 class="panel-heading">${t(`evo.agent.${book.agent}`)}</h3>
      <div class="row-actions">
        ${!editing && html`<button type="button" class="icon-btn" aria-label=${t("card.edit")} title=${t("card.edit")} disabled=${busy} onClick=${() => setEditing(true)}>
          <${Icon} name="pencil" size=${14} />
        </button>`}
        <button type="button" class="icon-btn" aria-label=${t("card.undo")} title=${t("card.undo")} disabled=${busy || !book.can_undo} onClick=${() => onUndo(book.agent)}>
          <${Icon} name="undo-2" size=${14} />
        </button>
      </div>
    </div>
    ${editing
      ? html`<label class="sr-only" for=${id}>${t("evo.editPlaybook")}</label>
          <textarea id=${id} rows="4" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
          <div class="row-actions">
            <button type="button" class="primary-btn" disabled=${busy || !text.trim()} onClick=${async () => (await onSave(book.agent, text)) && setEditing(false)}>${t("card.save")}</button>
            <button type="button" class="ghost-btn" onClick=${() => (setText(book.text || ""), setEditing(false))}>${t("card.cancel")}</button>
          </div>`
      : html`<p class=${book.text ? "playbook-text" : "muted"}>${book.text || t("evo.noPlaybook")}</p>`}
  </section>`;
}

function Ledger({ view, t }) {
  if (view.fitness_error) return html`<p class="muted" role="alert">${t("evo.ledgerDamaged", { error: view.fitness_error })}</p>`;
  if (!view.scores.length && !view.signals.length) return html`<p class="muted">${t("evo.noScores")}</p>`;
  return html`<ul class="card-entries" data-testid="evo-scores">
    ${view.scores.slice(0, 20).map(
      (s) => html`<li class="card-entry"><div class="entry-text">
        <span><span class="mono">${s.score > 0 ? `+${s.score}` : s.score}</span> ${t(`evo.bucket.${s.bucket}`)} · <span class="mono small">${s.slice}</span></span>
        ${s.evidence && html`<span class="muted small">“${s.evidence}”</span>`}
      </div></li>`,
    )}
    ${view.signals.slice(0, 10).map(
      (s) => html`<li class="card-entry"><div class="entry-text"><span class="muted small">${t(`evo.signal.${s.kind}`)} · ${s.at.slice(0, 10)}</span></div></li>`,
    )}
  </ul>`;
}

/** The evolution page. */
export function EvolutionPage({ t, onOpenSlice, readOnly = false }) {
  const { data: view, error, busy, notice, run, reload } = useEditable("/api/evolution", t);
  const onReject = (h) => run(() => api.post(`/api/evolution/hypotheses/${h.id}/reject`), t("evo.rejected"));
  const onSave = (agent, text) => run(() => api.put(`/api/evolution/playbooks/${agent}`, { text: text.trim() }), t("card.saved"));
  const onUndo = (target) => run(() => api.post(`/api/evolution/undo/${target}`), t("card.undone"));

  if (error) return html`<div class="column card-page"><p class="empty-state" role="alert">${t("evo.loadFailed")}</p></div>`;
  if (!view) return html`<div class="column card-page"><div class="skeleton" aria-busy="true"><span></span><span></span></div></div>`;
  return html`<div class="column card-page" data-testid="evolution-page">
    <div class="page-head">
      <h1 class="page-title"><${Icon} name="sparkles" size=${22} />${t("evo.title")}</h1>
      <div class="row-actions">
        <button type="button" class="ghost-btn" data-testid="evo-undo" disabled=${!view.can_undo_direction || busy} onClick=${() => onUndo("direction")}>
          <${Icon} name="undo-2" size=${14} />${t("card.undo")}
        </button>
      </div>
    </div>
    <p class="muted">${t("evo.subtitle")}</p>
    <p class="save-status" role="status">${notice}</p>
    <${EvolveNow} t=${t} busy=${busy} readOnly=${readOnly} onChanged=${reload} />
    <section class="panel card-section" data-testid="evo-portrait">
      <h2 class="panel-heading">${t("evo.portrait")}</h2>
      ${view.portrait.length
        ? html`<ul class="card-entries">${view.portrait.map(
            (p) => html`<li class="card-entry" data-testid="evo-trait"><div class="entry-text"><span>${p.text}</span>
              <span class="entry-meta"><${Refs} refs=${p.refs} onOpenSlice=${onOpenSlice} /></span></div></li>`,
          )}</ul>`
        : html`<p class="muted">${t("evo.noPortrait")}</p>`}
    </section>
    <section class="panel card-section">
      <h2 class="panel-heading">${t("evo.hypotheses")}</h2>
      ${view.hypotheses.length
        ? html`<ul class="card-entries">${view.hypotheses.map(
            (h) => html`<${Hypothesis} key=${h.id} h=${h} t=${t} busy=${busy} onReject=${onReject} onOpenSlice=${onOpenSlice} />`,
          )}</ul>`
        : html`<p class="muted">${t("evo.noHypotheses")}</p>`}
    </section>
    <h2 class="panel-heading">${t("evo.playbooks")}</h2>
    ${view.playbooks.map((b) => html`<${Playbook} key=${b.agent} book=${b} t=${t} busy=${busy} onSave=${onSave} onUndo=${onUndo} />`)}
    <section class="panel card-section">
      <h2 class="panel-heading">${t("evo.fitness")}</h2>
      <${Ledger} view=${view} t=${t} />
    </section>
  </div>`;
}
