// The turn reducer: folds the events of docs/API.md "A turn's events" into the items one assistant message renders.
// Pure and immutable (every call returns a new state), so replaying the same events after a reload
// rebuilds exactly the same message.

import { admitSeq } from "./seq.js";

/** The state of a turn before any event arrives. */
export function initialTurn(turnId = null) {
  return {
    turnId,
    status: "running", // running | done | interrupted | error
    lastSeq: 0,
    missingSeqs: [], // seqs skipped so far, still taken once if they arrive late (lib/seq.js)
    sliceId: null,
    sliceOpened: false,
    sliceClosed: null,
    userTurnId: null,
    agentTurnId: null,
    attempts: {}, // step → the newest attempt seen
    items: [],
    nextId: 1,
  };
}

const TERMINAL = new Set(["turn.done", "turn.error"]);

/** True once the turn has ended (done, interrupted by the server or the user, or failed). */
export function isFinished(state) {
  return state.status !== "running";
}

/** Whether an event is the last one of its turn. */
export function isTerminal(event) {
  return TERMINAL.has(event && event.type);
}

function withItems(state, items) {
  return { ...state, items };
}

function addItem(state, item) {
  const id = `i${state.nextId}`;
  return { ...state, nextId: state.nextId + 1, items: [...state.items, { id, ...item }] };
}

function replaceItem(state, index, patch) {
  const items = state.items.slice();
  items[index] = { ...items[index], ...patch };
  return withItems(state, items);
}

/** Which run an event belongs to: its step, and for one run of a fan-out step (a tool call of a
 * round, `item` in the event) that item too. Attempts are counted per run. */
function runOf(event) {
  const step = event.step || "";
  return event.item === undefined || event.item === null ? step : `${step}#${event.item}`;
}

/** The fields every card keeps of the event that made it: its step, attempt and (fan-out) item. */
function origin(event) {
  const base = { step: event.step, attempt: Number(event.attempt) || 1 };
  return event.item === undefined || event.item === null ? base : { ...base, item: event.item };
}

/** A retried run starts over: forget what its older attempts produced, ignore their late events.
 * A run is a step, or one item of a fan-out step: a retried tool call drops only its own older
 * cards, while the round's other calls (still at attempt 1) keep theirs and their events.
 * A step that runs again (respond in the next tool round) starts at attempt 1: what its earlier
 * runs produced is sealed, so a retry of this run never drops it. */
function applyAttempt(state, event) {
  const run = runOf(event);
  const attempt = Number(event.attempt) || 1;
  const current = state.attempts[run] || 0;
  const mine = (it) => it.kind !== "steps" && runOf(it) === run;
  if (event.type === "step.started" && attempt === 1 && current >= 1) {
    const seal = (it) => (mine(it) ? { ...it, sealed: true } : it);
    return { ...state, items: state.items.map(seal), attempts: { ...state.attempts, [run]: 1 } };
  }
  if (attempt < current) return null;
  if (attempt === current) return state;
  const stale = (it) => !it.sealed && mine(it) && it.attempt < attempt;
  const items = state.items.filter((it) => !stale(it));
  return { ...state, items, attempts: { ...state.attempts, [run]: attempt } };
}

function appendDelta(state, kind, event) {
  const last = state.items[state.items.length - 1];
  const attempt = Number(event.attempt) || 1;
  if (last && last.kind === kind && runOf(last) === runOf(event) && last.attempt === attempt) {
    return replaceItem(state, state.items.length - 1, { text: last.text + (event.text || "") });
  }
  return addItem(state, { kind, ...origin(event), text: event.text || "", done: false });
}

function closeOpenDeltas(state, keepKind) {
  // A reasoning block is finished as soon as anything else follows it.
  let changed = false;
  const items = state.items.map((it) => {
    if (it.kind === "reasoning" && !it.done && keepKind !== "reasoning") {
      changed = true;
      return { ...it, done: true };
    }
    return it;
  });
  return changed ? withItems(state, items) : state;
}

function stepsCard(state, event, status) {
  let index = state.items.findIndex((it) => it.kind === "steps");
  let next = state;
  if (index < 0) {
    next = addItem(state, { kind: "steps", step: null, attempt: 0, steps: [] });
    index = next.items.length - 1;
  }
  const card = next.items[index];
  const steps = card.steps.slice();
  const at = steps.findIndex((s) => s.step === event.step);
  const old = at < 0 ? null : steps[at];
  const entry = { step: event.step, label: event.label || event.step, status, attempt: event.attempt || 1 };
  if (event.item !== undefined && event.item !== null) {
    // A fan-out step is running while any of its items is: one call done is not the step done.
    const runs = { ...(old && old.runs), [event.item]: status };
    entry.runs = runs;
    entry.status = Object.values(runs).includes("running") ? "running" : "done";
  }
  if (at < 0) steps.push(entry);
  else steps[at] = { ...old, ...entry, label: event.label || old.label };
  return replaceItem(next, index, { steps });
}

function toolIndex(state, callId) {
  return state.items.findIndex((it) => it.kind === "tool" && it.callId === callId);
}

function ensureTool(state, event) {
  const index = toolIndex(state, event.call_id);
  if (index >= 0) return [state, index];
  const next = addItem(state, {
    kind: "tool",
    ...origin(event),
    callId: event.call_id,
    tool: event.tool || "recall",
    label: event.label || "",
    state: "running",
    input: event.input ?? {},
    output: null,
    progress: [],
    recall: null,
  });
  return [next, next.items.length - 1];
}

function onToolCall(state, event) {
  const [next, index] = ensureTool(state, event);
  const old = next.items[index];
  return replaceItem(next, index, {
    tool: event.tool || old.tool,
    label: event.label || old.label,
    state: event.state || old.state,
    input: event.input ?? old.input,
    output: event.output ?? old.output,
  });
}

function onRecallProgress(state, event) {
  const [next, index] = ensureTool(state, { ...event, tool: "recall" });
  const progress = [...next.items[index].progress, event.label || ""];
  return replaceItem(next, index, { progress });
}

function onRecallHits(state, event) {
  const [next, index] = ensureTool(state, { ...event, tool: "recall" });
  const recall = {
    query: event.query || "",
    hits: Array.isArray(event.hits) ? event.hits : [],
    recommended: Array.isArray(event.recommended) ? event.recommended : [],
    confidence: typeof event.confidence === "number" ? event.confidence : null,
    reasoning: event.reasoning || "",
  };
  const input = next.items[index].input && next.items[index].input.query ? next.items[index].input : { query: recall.query };
  return replaceItem(next, index, { recall, input });
}

/** Tools still running when the turn ends can no longer finish. */
function interruptRunning(state) {
  const items = state.items.map((it) => {
    if (it.kind === "tool" && it.state === "running") return { ...it, state: "interrupted" };
    if (it.kind === "reasoning" && !it.done) return { ...it, done: true };
    return it;
  });
  return withItems(state, items);
}

function finishSteps(state) {
  const items = state.items.map((it) =>
    it.kind === "steps" ? { ...it, steps: it.steps.map((s) => ({ ...s, status: "done" })) } : it,
  );
  return withItems(state, items);
}

const HANDLERS = {
  "turn.started": (s, e) => ({
    ...s,
    turnId: e.turn_id || s.turnId,
    sliceId: e.slice_id || null,
    sliceOpened: Boolean(e.slice_opened),
    sliceClosed: e.slice_closed || null,
    userTurnId: e.user_turn_id || null,
  }),
  "step.started": (s, e) => stepsCard(s, e, "running"),
  "step.done": (s, e) => stepsCard(s, e, "done"),
  "reasoning.delta": (s, e) => appendDelta(s, "reasoning", e),
  "text.delta": (s, e) => appendDelta(s, "text", e),
  "tool.call": onToolCall,
  "recall.progress": onRecallProgress,
  "recall.hits": onRecallHits,
  "card.evolved": (s, e) =>
    addItem(s, { kind: "evolution", ...origin(e), summary: e.summary || "", diff: e.diff || "" }),
  "card.skipped": (s, e) =>
    addItem(s, { kind: "evolution", ...origin(e), skipped: true, reason: e.reason || "" }),
  "attachment.unseen": (s, e) => addItem(s, { kind: "notice", ...origin(e), code: "attachment.unseen", count: e.count || 1 }),
  "turn.done": (s, e) => {
    const status = e.status === "interrupted" ? "interrupted" : "done";
    const base = status === "done" ? finishSteps(s) : s;
    // `reason`: recovery ended a turn its dead process left running (the message is kept).
    return { ...interruptRunning(base), status, agentTurnId: e.agent_turn_id || null, reason: e.reason || null };
  },
  "turn.error": (s, e) => {
    const next = addItem(interruptRunning(s), {
      kind: "error",
      ...origin(e),
      code: e.code || "internal",
      message: e.message || "",
    });
    return { ...next, status: "error" };
  },
};

/** Fold one event into the state. Duplicates (seq already taken, lib/seq.js) and unknown types change nothing. */
export function applyEvent(state, event) {
  if (!event || typeof event !== "object") return state;
  const seq = Number(event.seq) || 0;
  const track = admitSeq({ last: state.lastSeq, missing: state.missingSeqs || [] }, seq);
  if (!track) return state;
  const withSeq = seq ? { ...state, lastSeq: track.last, missingSeqs: track.missing } : state;
  const handler = HANDLERS[event.type];
  if (!handler) return withSeq;
  const attempted = applyAttempt(withSeq, event);
  if (!attempted) return withSeq;
  const kind = event.type === "reasoning.delta" ? "reasoning" : null;
  return handler(closeOpenDeltas(attempted, kind), event);
}

/** Fold a list of events. */
export function applyEvents(state, events) {
  return (events || []).reduce(applyEvent, state);
}

/** The user pressed Stop: stop showing progress; running tools end as interrupted. */
export function stopTurn(state) {
  if (isFinished(state)) return state;
  return { ...interruptRunning(state), status: "interrupted" };
}

/** The reply text so far (every text block, in order). */
export function replyText(state) {
  return state.items
    .filter((it) => it.kind === "text")
    .map((it) => it.text)
    .join("\n\n");
}

/** The stage a running turn is in, for the pill: recalling, reasoning, working or composing. */
export function stage(state) {
  if (isFinished(state)) return null;
  for (let i = state.items.length - 1; i >= 0; i--) {
    const it = state.items[i];
    if (it.kind === "text") return "composing";
    if (it.kind === "reasoning") return "reasoning";
    if (it.kind === "tool") return it.tool === "recall" || /^(read|list)/.test(it.tool) ? "recalling" : "working";
    if (it.kind === "steps") return "preparing";
  }
  return "preparing";
}
