// The arrival briefing: "PREVIOUSLY ON {name}", the last topic, open loops, suggestion chips and
// the full card — real data only; a section without data is not rendered at all.
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Dialog } from "./dialog.js";
import { Markdown } from "./markdown.js";
import { buildChips } from "./lib/chips.js";
import { relativeBetween } from "./lib/time.js";
import { cardBody } from "./lib/card-text.js";
import { api } from "./api.js";
import { PersonaName } from "./persona-picker.js";

function Section({ title, testid, children }) {
  return html`<section class="brief-card" data-testid=${testid}>
    <h2 class="brief-heading"><span class="dot" aria-hidden="true"></span>${title}</h2>
    ${children}
  </section>`;
}

function CardDialog({ open, onClose, sliceId, excerpt, t, onOpenCard }) {
  const [text, setText] = useState(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!open || text !== null) return;
    // The current card is the freshest snapshot; the last slice's copy is the fallback.
    api
      .get("/api/card")
      .then((card) => setText(card.markdown || excerpt || ""))
      .catch(() =>
        sliceId
          ? api.get(`/api/slices/${sliceId}`).then((s) => setText(s.previously || excerpt || "")).catch(() => setFailed(true))
          : setFailed(true),
      );
  }, [open]);
  return html`<${Dialog}
    open=${open}
    onClose=${onClose}
    title=${t("briefing.cardTitle")}
    icon="brain"
    testid="previously-dialog"
    closeLabel=${t("common.close")}
  >
    ${failed
      ? html`<p class="muted">${t("briefing.cardFailed")}</p>`
      : text === null
        ? html`<p class="muted">${t("common.loading")}</p>`
        : html`<${Markdown} text=${cardBody(text)} t=${t} />
            <p><button type="button" class="link-btn" onClick=${onOpenCard}>${t("briefing.editCard")}</button></p>`}
  </${Dialog}>`;
}

/** The short how-to in the page's language, and on request the full guide (docs/MODELS.md, as
 * `GET /api/help/models` serves it) rendered, never shown as a raw text file. */
function SetupGuide({ open, onClose, t, presets }) {
  const [full, setFull] = useState(null); // null | "loading" | "failed" | the guide's text
  const keys = keyVariables(presets);
  const vars = { key: keys[0], others: keys.slice(1).map((k) => `\`${k}\``).join(", ") };
  const steps = ["setup.step1", "setup.step2", "setup.step3"].map((k, i) => `${i + 1}. ${t(k, vars)}`).join("\n");
  const load = () => {
    setFull("loading");
    fetch("/api/help/models", { credentials: "same-origin" })
      .then((res) => (res.ok ? res.text() : Promise.reject(new Error(String(res.status)))))
      .then(setFull, () => setFull("failed"));
  };
  return html`<${Dialog} open=${open} onClose=${onClose} title=${t("setup.title")} icon="wrench" testid="setup-dialog"
    closeLabel=${t("common.close")} wide=${true}>
    <${Markdown} text=${steps} t=${t} />
    ${full === null && html`<p><button type="button" class="ghost-btn" data-testid="setup-full" onClick=${load}>${t("setup.full")}</button></p>`}
    ${full === "loading" && html`<p class="muted">${t("common.loading")}</p>`}
    ${full === "failed" && html`<p class="muted" role="alert">${t("setup.fullFailed")}</p>`}
    ${full && full !== "loading" && full !== "failed" && html`<${Markdown} text=${full} t=${t} class="setup-full" />`}
  </${Dialog}>`;
}

/** The variable that turns each known provider on, as the server names them (`GET /api/models`
 * presets), so the guide never goes stale when a provider is added; the usual three until it answers. */
export function keyVariables(presets) {
  const names = (presets || []).map((p) => (p.env || [])[0]).filter(Boolean);
  return names.length ? [...new Set(names)] : ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY"];
}

/** What the server says is missing (no model): after the briefing's content, and folded to one
 * line on a phone so it does not push the content off the first screen. */
function SetupNotice({ lines, t, presets }) {
  const [open] = useState(() => !window.matchMedia("(max-width: 767.98px)").matches);
  const [guide, setGuide] = useState(false);
  return html`<details class="notice setup-notice" data-testid="setup-notice" open=${open}>
    <summary><${Icon} name="circle-alert" /><span>${t("briefing.setupTitle")}</span><${Icon} name="chevron-down" class="fold-sign" /></summary>
    <div>${lines.map((line) => html`<p>${line}</p>`)}
      <p><button type="button" class="link-btn" data-testid="setup-guide" onClick=${() => setGuide(true)}>${t("briefing.setupLink")}</button></p></div>
  </details>
  <${SetupGuide} open=${guide} onClose=${() => setGuide(false)} t=${t} presets=${presets} />`;
}

/** Memory files the server could not read and left as they are (a damaged card, config.json):
 * everything else works, and the user should know which file to repair. */
function DamageNotice({ lines, t }) {
  return html`<div class="notice setup-notice" role="status" data-testid="damage-notice">
    <p class="damage-title"><${Icon} name="circle-alert" /><span>${t("briefing.damagedTitle")}</span></p>
    ${lines.map((line) => html`<p>${line}</p>`)}
  </div>`;
}

/** The briefing shown in the live view while the conversation is empty. */
export function Briefing({ state, presets, lastStartMs, t, nowMs, onSend, onOpenSlice, onOpenCard, canSend }) {
  const [cardOpen, setCardOpen] = useState(false);
  const name = (state && state.name) || t("briefing.fallbackName");
  const loops = ((state && state.open_loops) || []).slice(0, 4);
  const chips = buildChips(state, t);
  const topic = state && state.last_topic;
  const lastId = state && state.last_slice_id;
  const when = Number.isFinite(lastStartMs) ? relativeBetween(lastStartMs, nowMs) : null;
  const hasMemory = Boolean(topic || loops.length || lastId);
  const setup = (state && state.setup) || [];
  const damaged = (state && state.damaged) || [];

  return html`<div class="briefing" data-testid="briefing">
    <div class="stage-glow" aria-hidden="true"></div>
    <header class="brief-title">
      <p class="eyebrow">${t("briefing.eyebrow")}</p>
      <${PersonaName} name=${name} demo=${Boolean(state && state.flags && state.flags.demo)} t=${t} />
      ${!hasMemory && html`<p class="brief-hint">${t("briefing.empty")}</p>`}
    </header>
    ${topic &&
    html`<${Section} title=${t("briefing.lastTopic")} testid="briefing-last-topic">
      <p class="brief-topic">${topic}</p>
      ${lastId &&
      html`<button type="button" class="link-btn" onClick=${() => onOpenSlice(lastId)}>
        ${when ? `${t(when.key, { count: when.n, n: when.n })} · ` : ""}${t("briefing.openSlice")}
        <${Icon} name="chevron-right" size=${14} />
      </button>`}
    </${Section}>`}
    ${loops.length > 0 &&
    html`<${Section} title=${t("briefing.loops")} testid="briefing-loops">
      <ul class="brief-loops">${loops.map((l) => html`<li>${l}</li>`)}</ul>
    </${Section}>`}
    ${chips.length > 0 &&
    html`<${Section} title=${t("briefing.chips")} testid="briefing-chips">
      <div class="chips">
        ${chips.map(
          (c) => html`<button
            type="button"
            class="chip"
            data-testid="briefing-chip"
            title=${c.prompt}
            disabled=${!canSend}
            onClick=${() => onSend(c.prompt)}
          >
            ${c.label}
          </button>`,
        )}
      </div>
    </${Section}>`}
    ${hasMemory &&
    html`<button type="button" class="link-btn brief-more" onClick=${() => setCardOpen(true)}>
      <${Icon} name="brain" size=${14} />${t("briefing.viewCard")}
    </button>`}
    ${setup.length > 0 && html`<${SetupNotice} lines=${setup} t=${t} presets=${presets} />`}
    ${damaged.length > 0 && html`<${DamageNotice} lines=${damaged} t=${t} />`}
    <${CardDialog}
      open=${cardOpen}
      onClose=${() => setCardOpen(false)}
      sliceId=${lastId}
      excerpt=${state && state.card_excerpt}
      t=${t}
      onOpenCard=${() => {
        setCardOpen(false);
        onOpenCard();
      }}
    />
  </div>`;
}
