// A past slice as it was recorded: the card snapshot, every turn with its time and the agent's
// thoughts, then its open loops and decisions.
import { useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Dialog } from "./dialog.js";
import { Markdown } from "./markdown.js";
import { isoToMs, turnStamp, wheelDate, hhmm } from "./lib/time.js";
import { cardBody } from "./lib/card-text.js";
import { ForgetDialog, SliceActions, markLoopDone } from "./slice-actions.js";
import { storedImages, Thumbs, withoutPictureLinks } from "./attachments.js";

function PreviouslyBar({ data, t }) {
  const [open, setOpen] = useState(false);
  const has = Boolean(data.previously && data.previously.trim());
  const inner = html`<${Icon} name="brain" class="brand" />
    <strong>${t("slice.previouslyOn")}</strong>
    <span class="muted">${has ? t("slice.previouslyOpen") : t("slice.previouslyNone")}</span>`;
  return html`<div class="prev-bar-wrap">
    ${has
      ? html`<button type="button" class="prev-bar" data-testid="previously-bar" onClick=${() => setOpen(true)}>${inner}</button>`
      : html`<div class="prev-bar inert" data-testid="previously-bar" aria-disabled="true">${inner}</div>`}
    <${Dialog}
      open=${open}
      onClose=${() => setOpen(false)}
      title=${t("slice.previouslyTitle")}
      icon="brain"
      testid="previously-dialog"
      closeLabel=${t("common.close")}
    >
      <${Markdown} text=${cardBody(data.previously)} t=${t} />
    </${Dialog}>
  </div>`;
}

function Turn({ turn, nowMs, dayMs, t, onThoughts, onForget, sliceId }) {
  const agent = turn.role !== "user";
  return html`<article class=${`turn ${agent ? "agent" : "user"}`} data-testid="turn" data-role=${turn.role}>
    <div class="turn-meta">
      <time datetime=${turn.timestamp}>${turnStamp(turn.timestamp, nowMs, dayMs)}</time>
      ${!agent &&
      turn.turn_id &&
      onForget &&
      html`<span aria-hidden="true">·</span>
        <button type="button" class="link-btn forget-turn" data-testid="forget-turn" onClick=${() => onForget(turn.turn_id)}>
          <${Icon} name="trash-2" size=${12} />${t("actions.forgetTurn")}
        </button>`}
      ${agent &&
      turn.turn_id &&
      turn.cognition &&
      turn.cognition.trim() &&
      html`<span aria-hidden="true">·</span>
        <button type="button" class="link-btn thoughts" onClick=${() => onThoughts(turn)}>
          <${Icon} name="brain" size=${12} />${t("slice.thoughts")}
        </button>`}
    </div>
    ${agent
      ? html`<${Markdown} text=${turn.content} t=${t} class="turn-body" />`
      : html`<${Thumbs} images=${storedImages(turn.content, sliceId)} t=${t} testid="turn-image" /><div class="bubble">${withoutPictureLinks(turn.content)}</div>`}
  </article>`;
}

function Pills({ title, items, mark, testid, onDone = null, doneLabel = "" }) {
  if (!items || !items.length) return null;
  return html`<div class="pill-group" data-testid=${testid}>
    <h3 class="pill-title">${title}</h3>
    <ul class="pills">
      ${items.map(
        (it) => html`<li class="pill"><span aria-hidden="true">${mark}</span> ${it}${onDone &&
          html`<button type="button" class="pill-done" data-testid="loop-done" aria-label=${`${doneLabel}: ${it}`} title=${doneLabel}
            onClick=${() => onDone(it)}><${Icon} name="check" size=${12} /></button>`}</li>`,
      )}
    </ul>
  </div>`;
}

function Header({ data, t, onFilterStrand }) {
  const start = isoToMs(data.start);
  const end = isoToMs(data.end);
  const range = Number.isFinite(start)
    ? `${wheelDate(start)} ${hhmm(start)}${Number.isFinite(end) ? `–${hhmm(end)}` : ""}`
    : data.slice_id;
  return html`<header class="slice-head">
    <p class="slice-when"><${Icon} name="calendar-days" size=${14} /><span>${range}</span>
      ${data.status === "active" && html`<span class="badge">${t("slice.active")}</span>`}</p>
    ${data.focus && html`<h1 class="slice-focus">${data.focus}</h1>`}
    ${data.summary && html`<p class="slice-summary" data-testid="slice-summary">${data.summary}</p>`}
    ${(data.tags || []).length > 0 &&
    html`<div class="tag-row">
      ${data.tags.map(
        (tag) => html`<button type="button" class="tag" title=${t("slice.filterBy", { strand: tag })} onClick=${() => onFilterStrand(tag)}>
          #${tag}
        </button>`,
      )}
    </div>`}
  </header>`;
}

/** The historical view of one slice (`data` from GET /api/slices/{id}; `error` when it failed). */
export function SliceView({ id, data, error, loading, t, nowMs, onFilterStrand, onPrev, onNext, onNow,
  readOnly = true, onChanged = () => {}, onForgotten = () => {} }) {
  const [thoughts, setThoughts] = useState(null);
  const [forgetTurn, setForgetTurn] = useState(null);
  const doneLoop = (loop) => markLoopDone(data.slice_id, loop).then(onChanged, () => {});
  let body;
  if (error) {
    body = html`<p class="empty-state" role="alert">${error.status === 404 ? t("slice.notFound") : t("slice.loadFailed")}</p>`;
  } else if (loading || !data) {
    body = html`<div class="skeleton" aria-busy="true"><span></span><span></span><span></span></div>`;
  } else {
    body = html`${data.problem && html`<div class="banner" role="note"><${Icon} name="circle-alert" /><p>${data.problem}</p></div>`}
      <${PreviouslyBar} data=${data} t=${t} />
      <${Header} data=${data} t=${t} onFilterStrand=${onFilterStrand} />
      <${SliceActions} data=${data} readOnly=${readOnly} t=${t} onChanged=${onChanged} onForgotten=${onForgotten} />
      ${data.turns.length === 0
        ? html`<p class="empty-state">${t("slice.noTurns")}</p>`
        : html`<div class="turns">
            ${data.turns.map((turn, i) => html`<${Turn} key=${`${turn.turn_id || i}-${turn.role}`} turn=${turn} nowMs=${nowMs} dayMs=${isoToMs(data.start)} t=${t} sliceId=${data.slice_id}
              onThoughts=${setThoughts} onForget=${readOnly ? null : setForgetTurn} />`)}
          </div>`}
      ${forgetTurn &&
      html`<${ForgetDialog} data=${data} turnId=${forgetTurn} open=${true} onClose=${() => setForgetTurn(null)} t=${t}
        onForgotten=${(result) => (setForgetTurn(null), onForgotten(result))} />`}
      <footer class="slice-foot">
        <${Pills} title=${t("slice.loops")} items=${data.open_loops} mark="↗" testid="slice-loops"
          onDone=${readOnly ? null : doneLoop} doneLabel=${t("actions.loopDone")} />
        <${Pills} title=${t("slice.decisions")} items=${data.decisions} mark="✓" testid="slice-decisions" />
      </footer>`;
  }
  return html`<div class="slice-view column" data-testid="slice-view" data-slice-id=${id}>
    <nav class="slice-nav" aria-label=${t("slice.navLabel")}>
      <button type="button" class="ghost-btn" onClick=${onPrev} disabled=${!onPrev} title="[">
        <${Icon} name="chevron-right" class="flip" size=${14} />${t("slice.prev")}
      </button>
      <button type="button" class="ghost-btn" onClick=${onNow}><${Icon} name="arrow-down" size=${14} />${t("slice.backToNow")}</button>
      <button type="button" class="ghost-btn" onClick=${onNext} disabled=${!onNext} title="]">
        ${t("slice.next")}<${Icon} name="chevron-right" size=${14} />
      </button>
    </nav>
    ${body}
    <${Dialog}
      open=${Boolean(thoughts)}
      onClose=${() => setThoughts(null)}
      title=${t("slice.thoughtsTitle")}
      icon="brain"
      testid="cognition-dialog"
      closeLabel=${t("common.close")}
    >
      ${thoughts && html`<${Markdown} text=${thoughts.cognition} t=${t} />`}
    </${Dialog}>
  </div>`;
}
