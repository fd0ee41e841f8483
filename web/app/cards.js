// The cards of a live turn: steps, reasoning (with its timer), recall, tools in five states,
// card evolution with its diff, and errors. Each card folds open with a click, Enter or Space.
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Markdown } from "./markdown.js";
import { deniedReason, toolIcon, toolLabel } from "./lib/tool-labels.js";
import { webAnswer } from "./lib/web-answer.js";

/** The shared card: a header that toggles (role=button, aria-expanded) and a panel that is inert when shut. */
export function Expandable({ header, children, canOpen = true, tone = "", testid, attrs = {}, subtitle = null }) {
  const [open, setOpen] = useState(false);
  const toggle = () => canOpen && setOpen(!open);
  const onKeyDown = (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      toggle();
    }
  };
  return html`<div class=${`card ${tone} ${open ? "open" : ""}`} data-testid=${testid} ...${attrs}>
    <div
      class="card-head"
      role="button"
      tabindex=${canOpen ? 0 : -1}
      aria-expanded=${canOpen ? String(open) : undefined}
      aria-disabled=${canOpen ? undefined : "true"}
      onClick=${toggle}
      onKeyDown=${onKeyDown}
    >
      ${header}
      ${canOpen && html`<${Icon} name="chevron-down" size=${14} class="chev" />`}
    </div>
    ${subtitle}
    <div class="card-panel" inert=${!open}>
      <div class="card-panel-inner" tabindex=${open ? 0 : -1}>${children}</div>
    </div>
  </div>`;
}

function Spinner() {
  return html`<${Icon} name="loader-circle" class="spin" />`;
}

function stepsLabel(steps, current, phase, t) {
  if (phase === "busy") return `${current.label}…`;
  if (phase === "complete") return t("steps.ready");
  if (phase === "replying") return t("steps.replying");
  const stopped = current || steps.find((s) => s.status !== "done");
  return t("steps.stopped", { label: stopped ? stopped.label : "" });
}

/** The preparation steps. `replying`: the reply has started, so the step writing it is shown by
 * the reply itself, not by a second spinner; a turn that ended early says where it stopped. */
export function StepsCard({ item, t, running, replying = false }) {
  const steps = item.steps;
  const done = steps.filter((s) => s.status === "done").length;
  const current = steps.find((s) => s.status === "running");
  const phase =
    done === steps.length ? "complete" : running && replying ? "replying" : running && current ? "busy" : running ? "complete" : "stopped";
  const icon = { busy: null, complete: "list-checks", replying: "list-checks", stopped: "octagon-pause" }[phase];
  return html`<${Expandable}
    testid="housekeeping"
    tone="tinted"
    attrs=${{ "data-phase": phase }}
    header=${html`${phase === "busy" ? html`<${Spinner} />` : html`<${Icon} name=${icon} />`}
      <span class="card-label">${stepsLabel(steps, current, phase, t)}</span>
      ${phase !== "replying" && html`<span class="card-meta mono">${done}/${steps.length}</span>`}`}
  >
    <ul class="step-list">
      ${steps.map(
        (s) => html`<li class=${s.status}>
          ${s.status === "done"
            ? html`<${Icon} name="check" size=${12} />`
            : phase === "busy"
              ? html`<${Spinner} />`
              : html`<${Icon} name=${phase === "replying" ? "pencil" : "octagon-pause"} size=${12} />`}
          <span>${s.label}</span>
        </li>`,
      )}
    </ul>
  </${Expandable}>`;
}

/** Seconds since `start`, ticking while `running`. */
function useElapsed(start, running) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return Math.max(0, Math.round((now - start) / 1000));
}

export function ReasoningCard({ item, t, live }) {
  const started = useRef(Date.now());
  const ended = useRef(null);
  const running = live && !item.done;
  if (!running && ended.current === null) ended.current = Date.now();
  const seconds = useElapsed(started.current, running);
  const took = ended.current !== null ? Math.round((ended.current - started.current) / 1000) : seconds;
  const lines = item.text.trim().split("\n");
  const lastLine = lines[lines.length - 1] || "";
  const label = running ? t("reasoning.running") : took >= 1 ? t("reasoning.doneFor", { count: took, n: took }) : t("reasoning.done");
  return html`<${Expandable}
    testid="reasoning"
    attrs=${{ "data-state": running ? "running" : "done" }}
    header=${html`${running ? html`<${Spinner} />` : html`<${Icon} name="brain" />`}
      <span class="card-label">${label}</span>
      ${running && html`<span class="card-meta mono">${seconds}s</span>`}`}
    subtitle=${running && lastLine ? html`<p class="card-sub mono typewriter">${lastLine}</p>` : null}
  >
    <${Markdown} text=${item.text} t=${t} />
  </${Expandable}>`;
}

function percent(x) {
  const v = Number(x);
  if (!Number.isFinite(v)) return "";
  return `${Math.round(v <= 1 ? v * 100 : v)}%`;
}

function SliceLink({ id, onOpenSlice }) {
  return html`<button type="button" class="slice-link mono" onClick=${() => onOpenSlice(id)}>${id}</button>`;
}

function RecallBody({ recall, t, onOpenSlice }) {
  if (!recall) return html`<p class="muted">${t("recall.waiting")}</p>`;
  return html`${recall.reasoning && html`<p class="muted italic">${recall.reasoning}</p>`}
    ${recall.recommended.length > 0 &&
    html`<h4 class="panel-title">${t("recall.recommended")}</h4>
      <ul class="recall-list">
        ${recall.recommended.map(
          (r) => html`<li>
            <span class=${`prio ${r.priority || ""}`}>${t(`recall.priority.${r.priority || "medium"}`)}</span>
            <${SliceLink} id=${r.slice_id} onOpenSlice=${onOpenSlice} />
            <span>${r.why || r.reason || ""}</span>
            ${r.look_for && html`<span class="muted italic">${r.look_for}</span>`}
          </li>`,
        )}
      </ul>`}
    <h4 class="panel-title">${t("recall.hits")}</h4>
    ${recall.hits.length === 0
      ? html`<p class="muted">${t("recall.none")}</p>`
      : html`<ul class="recall-list">
          ${recall.hits.map(
            (h) => html`<li data-testid="recall-hit" data-slice-id=${h.slice_id}>
              <${SliceLink} id=${h.slice_id} onOpenSlice=${onOpenSlice} />
              <span class="relevance mono">${percent(h.relevance)}</span>
              <span class="reason">${h.reason}</span>
              ${Array.isArray(h.key_turns) && h.key_turns.length > 0 && html`<span class="muted">${t("recall.keyTurns", { turns: h.key_turns.join(", ") })}</span>`}
            </li>`,
          )}
        </ul>`}
    ${recall.confidence !== null && html`<p class="muted">${t("recall.confidence", { value: percent(recall.confidence) })}</p>`}`;
}

// webSearch numbers its results `[n] title` with the URL on the next line (core/web/search.py).
const SOURCE_RE = /^\[(\d+)\] (.*)\n(https?:\/\/\S+)$/gm;

// Only what follows the results' head counts: the search helper's answer above it is a model's text.
export function webSources(output) {
  const text = typeof output === "string" ? output : "";
  const start = text.startsWith("Web results for ") ? 0 : text.lastIndexOf("\n\nWeb results for ");
  return [...(start < 0 ? text : text.slice(start)).matchAll(SOURCE_RE)].map((m) => ({ title: m[2], url: m[3] }));
}

function SourcesBody({ item, t }) {
  const sources = webSources(item.output);
  if (sources.length === 0) return html`<pre class="tool-output">${outputText(item.output) || t("tool.noOutput")}</pre>`;
  const answer = webAnswer(item.output);
  return html`${answer && html`<p class="web-answer" data-testid="web-answer">${answer}</p>`}
    <h4 class="panel-title">${t("tool.sources")}</h4>
    <ol class="recall-list" data-testid="web-sources">
      ${sources.map(
        (s) => html`<li data-testid="web-source"><a href=${s.url} target="_blank" rel="noopener noreferrer">${s.title}</a>
          <span class="muted mono">${s.url}</span></li>`,
      )}
    </ol>`;
}

function outputText(output) {
  if (output === null || output === undefined) return "";
  return typeof output === "string" ? output : JSON.stringify(output, null, 2);
}

export function ToolCard({ item, t, locale, onOpenSlice }) {
  const label = toolLabel(item);
  const state = item.state;
  const isRecall = item.tool === "recall";
  const icon =
    state === "running"
      ? html`<${Spinner} />`
      : state === "error" || state === "denied"
        ? html`<${Icon} name="circle-x" />`
        : state === "interrupted"
          ? html`<${Icon} name="octagon-pause" />`
          : html`<${Icon} name=${toolIcon(item.tool)} />`;
  const progress = item.progress.length ? item.progress[item.progress.length - 1] : "";
  const sub =
    state === "denied"
      ? html`<p class="card-sub">${t("tool.denied", { reason: deniedReason(item, t) })}</p>`
      : state === "running" && progress
        ? html`<p class="card-sub mono">${progress}…</p>`
        : null;
  let body;
  if (isRecall) body = html`<${RecallBody} recall=${item.recall} t=${t} onOpenSlice=${onOpenSlice} />`;
  else if (state === "interrupted") body = html`<p class="muted">${t("tool.interrupted")}</p>`;
  else if (item.tool === "webSearch" && state === "completed") body = html`<${SourcesBody} item=${item} t=${t} />`;
  else body = html`<pre class="tool-output">${outputText(item.output) || t("tool.noOutput")}</pre>`;
  return html`<${Expandable}
    testid="tool-card"
    tone=${`tool state-${state}${isRecall && state === "running" ? " tinted" : ""}`}
    attrs=${{ "data-tool": item.tool, "data-state": state }}
    canOpen=${state !== "running" || isRecall}
    header=${html`${icon}<span class="card-label">${label}</span>
      ${state === "interrupted" && html`<span class="card-meta">${t("tool.state.interrupted")}</span>`}
      ${state === "error" && html`<span class="card-meta">${t("tool.state.error")}</span>`}`}
    subtitle=${sub}
  >
    ${body}
  </${Expandable}>`;
}

function diffLines(diff) {
  return String(diff || "")
    .split("\n")
    .filter((l) => l && !l.startsWith("+++") && !l.startsWith("---") && !l.startsWith("@@"));
}

export function EvolutionCard({ item, t }) {
  if (item.skipped) {
    return html`<${Expandable}
      testid="evolution"
      canOpen=${Boolean(item.reason)}
      header=${html`<${Icon} name="sparkles" /><span class="card-label">${t("evolution.skipped")}</span>`}
    >
      <p class="muted">${item.reason}</p>
    </${Expandable}>`;
  }
  const lines = diffLines(item.diff);
  return html`<${Expandable}
    testid="evolution"
    header=${html`<${Icon} name="sparkles" class="brand" />
      <span class="card-label">${t("evolution.done", { summary: item.summary || t("evolution.changed") })}</span>`}
  >
    <pre class="diff">${lines.map((l) => html`<span class=${l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : "ctx"}>${l}</span>`)}</pre>
  </${Expandable}>`;
}

export function ErrorCard({ item, t }) {
  const first = String(item.message || "").split("\n")[0];
  const title = item.code === "no_model" ? t("error.noModel") : t("error.title");
  return html`<div class="card error-card" role="alert" data-testid="turn-error" data-code=${item.code}>
    <div class="card-head static"><${Icon} name="triangle-alert" /><span class="card-label">${title}</span></div>
    <p class="card-sub">${first}</p>
    ${item.message && item.message.includes("\n") &&
    html`<details><summary>${t("error.details")}</summary><pre>${item.message}</pre></details>`}
  </div>`;
}
