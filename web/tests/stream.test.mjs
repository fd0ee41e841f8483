// The turn reducer over the event vocabulary of API.md §3.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyEvent, applyEvents, initialTurn, isFinished, replyText, stage, stopTurn } from "../app/lib/stream.js";

let seq = 0;
const ev = (type, fields = {}, step = "agent", attempt = 1) => ({ turn_id: "t1", seq: ++seq, type, step, attempt, ...fields });

function fullScript() {
  seq = 0;
  return [
    ev("turn.started", { slice_id: "2026-11-30-1200", slice_opened: true, slice_closed: null, user_turn_id: "u1" }, "prepare"),
    ev("step.started", { label: "Opening the slice" }, "prepare"),
    ev("step.done", { label: "Slice ready" }, "prepare"),
    ev("card.evolved", { summary: "One Now item added.", diff: "+- Flights booked" }, "evolve"),
    ev("reasoning.delta", { text: "She asks " }),
    ev("reasoning.delta", { text: "about flights." }),
    ev("recall.progress", { call_id: "c1", label: "Reading the timeline" }),
    ev("tool.call", { call_id: "c1", tool: "recall", label: "Recalling", state: "running", input: { query: "flights" } }),
    ev("recall.hits", { call_id: "c1", query: "flights", hits: [{ slice_id: "2026-11-21-1040", relevance: 0.9, reason: "budget" }], recommended: [], confidence: 0.8 }),
    ev("tool.call", { call_id: "c1", tool: "recall", label: "Recalled", state: "completed", input: { query: "flights" }, output: "1 hit" }),
    ev("tool.call", { call_id: "c2", tool: "readSlice", label: "Viewing", state: "running", input: { sliceId: "2026-11-21-1040" } }),
    ev("text.delta", { text: "Book " }),
    ev("text.delta", { text: "on Saturday." }),
    ev("turn.done", { status: "done", agent_turn_id: "a1", usage: {} }, "finish"),
  ];
}

test("folds a whole turn into cards in arrival order", () => {
  const s = applyEvents(initialTurn(), fullScript());
  assert.deepEqual(
    s.items.map((i) => i.kind),
    ["steps", "evolution", "reasoning", "tool", "tool", "text"],
  );
  assert.equal(s.status, "done");
  assert.equal(s.sliceId, "2026-11-30-1200");
  assert.equal(s.sliceOpened, true);
  assert.equal(s.agentTurnId, "a1");
  assert.equal(s.lastSeq, 14);
  assert.equal(replyText(s), "Book on Saturday.");
  const [steps, evo, reasoning, recall, read] = s.items;
  assert.deepEqual(steps.steps, [{ step: "prepare", label: "Slice ready", status: "done", attempt: 1 }]);
  assert.equal(evo.summary, "One Now item added.");
  assert.equal(reasoning.text, "She asks about flights.");
  assert.equal(reasoning.done, true);
  assert.equal(recall.state, "completed");
  assert.deepEqual(recall.progress, ["Reading the timeline"]);
  assert.equal(recall.recall.hits.length, 1);
  assert.equal(recall.recall.confidence, 0.8);
  // A tool still running when the turn ends can no longer finish.
  assert.equal(read.state, "interrupted");
  assert.ok(isFinished(s));
});

test("ignores events it has already seen (a reconnect that overlaps)", () => {
  const events = fullScript();
  const once = applyEvents(initialTurn(), events);
  const twice = applyEvents(once, events);
  assert.deepEqual(twice, once);
});

test("replaying the same events gives the same state", () => {
  const events = fullScript();
  assert.deepEqual(applyEvents(initialTurn(), events), applyEvents(initialTurn(), events));
});

test("a retried step drops the older attempt's partial text and ignores its late events", () => {
  seq = 0;
  let s = applyEvents(initialTurn(), [
    ev("text.delta", { text: "Half a rep" }, "agent", 1),
    ev("tool.call", { call_id: "x", tool: "currentTime", state: "running", input: {} }, "agent", 1),
    ev("text.delta", { text: "A whole " }, "agent", 2),
  ]);
  assert.deepEqual(s.items.map((i) => i.kind), ["text"]);
  assert.equal(replyText(s), "A whole ");
  s = applyEvent(s, ev("text.delta", { text: "stale" }, "agent", 1));
  s = applyEvent(s, ev("text.delta", { text: "reply." }, "agent", 2));
  assert.equal(replyText(s), "A whole reply.");
});

test("after a retried first round, the next round's answer is kept", () => {
  seq = 0;
  const s = applyEvents(initialTurn(), [
    ev("step.started", { label: "Thinking" }, "respond", 1),
    ev("text.delta", { text: "Let me" }, "respond", 1),
    ev("step.started", { label: "Thinking" }, "respond", 2),
    ev("text.delta", { text: "Let me look. " }, "respond", 2),
    ev("step.started", { label: "Using tools" }, "tools", 1),
    ev("step.started", { label: "Thinking" }, "respond", 1),
    ev("text.delta", { text: "Here is the answer." }, "respond", 1),
    ev("step.started", { label: "Thinking" }, "respond", 2),
    ev("text.delta", { text: "Here is the answer, again." }, "respond", 2),
  ]);
  assert.equal(replyText(s), "Let me look. Here is the answer, again.");
});

// One tools round of three calls (a fan-out: `item` is the call's position); call 1 is retried.
function mapRoundWithRetry() {
  seq = 0;
  const call = (item, callId, state, attempt = 1, extra = {}) =>
    ev("tool.call", { item, call_id: callId, tool: "readSlice", label: `Viewing ${callId}`, state, input: {}, ...extra }, "tools", attempt);
  const started = (item, attempt = 1) => ev("step.started", { item, label: "Using tools" }, "tools", attempt);
  const done = (item, attempt = 1) => ev("step.done", { item, label: "Using tools" }, "tools", attempt);
  return [
    ev("step.started", { label: "Thinking" }, "respond", 1),
    ev("text.delta", { text: "Let me look. " }, "respond", 1),
    started(0),
    started(1),
    started(2),
    call(0, "c0", "running"),
    call(1, "c1", "running"),
    call(2, "c2", "running"),
    call(1, "c1", "error", 1, { output: "half" }),
    started(1, 2), // call 1 is retried while calls 0 and 2 are still at attempt 1
    call(0, "c0", "completed", 1, { output: "zero" }), // late events of the other calls count
    done(0),
    call(1, "c1", "running", 2),
    ev("recall.progress", { item: 1, call_id: "c1", label: "stale" }, "tools", 1), // call 1's old attempt: ignored
    call(1, "c1", "completed", 2, { output: "one" }),
    done(1, 2),
    call(2, "c2", "completed", 1, { output: "two" }),
    done(2),
    ev("step.started", { label: "Thinking" }, "respond", 1),
    ev("text.delta", { text: "Here it is." }, "respond", 1),
    ev("turn.done", { status: "done", agent_turn_id: "a1", usage: {} }, "finish"),
  ];
}

test("a retried call of a tools round drops only its own older card; the others keep theirs", () => {
  const s = applyEvents(initialTurn(), mapRoundWithRetry());
  const tools = s.items.filter((i) => i.kind === "tool");
  assert.deepEqual(
    tools.map((t) => [t.callId, t.item, t.attempt, t.state, t.output]),
    [
      ["c0", 0, 1, "completed", "zero"],
      ["c2", 2, 1, "completed", "two"],
      ["c1", 1, 2, "completed", "one"],
    ],
  );
  assert.deepEqual(tools[2].progress, []);
  assert.equal(replyText(s), "Let me look. \n\nHere it is.");
  const tool = s.items.find((i) => i.kind === "steps").steps.find((x) => x.step === "tools");
  assert.equal(tool.status, "done");
});

test("a live tools round shows every call's card while one call is retried", () => {
  const events = mapRoundWithRetry();
  // Up to call 0 completing: call 1 has restarted, call 2 still runs at attempt 1.
  const s = applyEvents(initialTurn(), events.slice(0, 11));
  const tools = s.items.filter((i) => i.kind === "tool");
  assert.deepEqual(tools.map((t) => [t.callId, t.state]), [["c0", "completed"], ["c2", "running"]]);
  // Call 0's step.done: one call finished is not the step finished while the others still run.
  const after = applyEvents(s, events.slice(11, 12));
  assert.equal(after.items[0].steps.find((x) => x.step === "tools").status, "running");
});

test("replaying a stored tools round with a retried call (a reload) gives the live page's cards", () => {
  const events = mapRoundWithRetry();
  const live = events.reduce(applyEvent, initialTurn("t1"));
  assert.deepEqual(applyEvents(initialTurn("t1"), events), live);
  // A resume mid-round, then the rest live, ends the same.
  const resumed = applyEvents(applyEvents(initialTurn("t1"), events.slice(0, 9)), events);
  assert.deepEqual(resumed, live);
});

test("the next round's calls start over at attempt 1 and keep the retried round's cards", () => {
  seq = 0;
  const s = applyEvents(initialTurn(), [
    ev("step.started", { item: 0, label: "Using tools" }, "tools", 1),
    ev("tool.call", { item: 0, call_id: "a", tool: "readSlice", state: "running", input: {} }, "tools", 1),
    ev("step.started", { item: 0, label: "Using tools" }, "tools", 2),
    ev("tool.call", { item: 0, call_id: "a", tool: "readSlice", state: "completed", input: {}, output: "a" }, "tools", 2),
    ev("step.started", { label: "Thinking" }, "respond", 1),
    ev("step.started", { item: 0, label: "Using tools" }, "tools", 1),
    ev("tool.call", { item: 0, call_id: "b", tool: "readSlice", state: "completed", input: {}, output: "b" }, "tools", 1),
    ev("step.started", { item: 0, label: "Using tools" }, "tools", 2),
    ev("tool.call", { item: 0, call_id: "b", tool: "readSlice", state: "completed", input: {}, output: "b2" }, "tools", 2),
  ]);
  const tools = s.items.filter((i) => i.kind === "tool");
  assert.deepEqual(tools.map((t) => [t.callId, t.output]), [["a", "a"], ["b", "b2"]]);
});

test("a retry of one step leaves the other steps' items alone", () => {
  seq = 0;
  const s = applyEvents(initialTurn(), [
    ev("step.started", { label: "Reading the timeline" }, "context"),
    ev("card.evolved", { summary: "x", diff: "" }, "evolve", 1),
    ev("text.delta", { text: "kept" }, "agent", 1),
    ev("card.skipped", { reason: "nothing new" }, "evolve", 2),
  ]);
  assert.deepEqual(s.items.map((i) => i.kind), ["steps", "text", "evolution"]);
  assert.equal(s.items[2].skipped, true);
});

test("turn.error ends the turn with an error card and interrupts running tools", () => {
  seq = 0;
  const s = applyEvents(initialTurn(), [
    ev("tool.call", { call_id: "a", tool: "readSlice", state: "running", input: {} }),
    ev("turn.error", { code: "no_model", message: "Set OPENAI_API_KEY.\nThen restart." }, "agent"),
  ]);
  assert.equal(s.status, "error");
  assert.equal(s.items[0].state, "interrupted");
  assert.deepEqual([s.items[1].kind, s.items[1].code], ["error", "no_model"]);
});

test("turn.done interrupted keeps the status; stopTurn does the same on the client", () => {
  seq = 0;
  const running = applyEvents(initialTurn(), [ev("tool.call", { call_id: "a", tool: "webFetch", state: "running", input: {} })]);
  assert.equal(stage(running), "working");
  const stopped = stopTurn(running);
  assert.equal(stopped.status, "interrupted");
  assert.equal(stopped.items[0].state, "interrupted");
  assert.equal(stopTurn(stopped), stopped);
  const server = applyEvent(running, ev("turn.done", { status: "interrupted", agent_turn_id: null, usage: {} }));
  assert.equal(server.status, "interrupted");
  assert.equal(stage(server), null);
});

test("the five tool states pass through, and output arrives with the final state", () => {
  seq = 0;
  const states = ["running", "completed", "error", "interrupted", "denied"];
  const s = applyEvents(
    initialTurn(),
    states.map((state, i) => ev("tool.call", { call_id: `c${i}`, tool: "webSearch", state, input: { query: "q" }, output: state === "running" ? undefined : `out ${i}` })),
  );
  assert.deepEqual(s.items.map((i) => i.state), states);
  assert.equal(s.items[0].output, null);
  assert.equal(s.items[2].output, "out 2");
});

test("stage follows the newest item", () => {
  seq = 0;
  let s = initialTurn();
  assert.equal(stage(s), "preparing");
  s = applyEvent(s, ev("reasoning.delta", { text: "hm" }));
  assert.equal(stage(s), "reasoning");
  s = applyEvent(s, ev("tool.call", { call_id: "r", tool: "recall", state: "running", input: {} }));
  assert.equal(stage(s), "recalling");
  s = applyEvent(s, ev("text.delta", { text: "ok" }));
  assert.equal(stage(s), "composing");
});

test("reasoning split by a tool call becomes two cards; unknown events change nothing", () => {
  seq = 0;
  const s = applyEvents(initialTurn(), [
    ev("reasoning.delta", { text: "one" }),
    ev("tool.call", { call_id: "c", tool: "currentTime", state: "completed", input: {}, output: "now" }),
    ev("reasoning.delta", { text: "two" }),
    ev("something.new", { x: 1 }),
  ]);
  assert.deepEqual(s.items.map((i) => [i.kind, i.text ?? null]), [["reasoning", "one"], ["tool", null], ["reasoning", "two"]]);
  assert.equal(s.lastSeq, 4);
  assert.equal(applyEvent(s, null), s);
});
