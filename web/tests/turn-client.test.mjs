// Following a turn: WebSocket first, HTTP polling as the fallback, resume records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { clearResume, followLate, followTurn, loadResume, saveResume, wsUrlFor } from "../app/lib/turn-client.js";

/** A scripted WebSocket: `sockets` collects instances; tests drive open/message/close. */
function fakeSocketClass(behaviour = {}) {
  const sockets = [];
  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.sent = [];
      this.closed = false;
      sockets.push(this);
      if (behaviour.throwOnCreate) throw new Error("no sockets here");
      queueMicrotask(() => (behaviour.failToOpen ? this.onclose && this.onclose({}) : this.onopen && this.onopen()));
    }
    send(text) {
      this.sent.push(JSON.parse(text));
    }
    close() {
      this.closed = true;
    }
    emit(data) {
      this.onmessage({ data: JSON.stringify(data) });
    }
  }
  return { FakeSocket, sockets };
}

/** Timers run by hand so polling is deterministic. */
function manualTimers() {
  const queue = [];
  return {
    setTimeout: (fn) => (queue.push(fn), queue.length),
    clearTimeout: () => {},
    async flush() {
      while (queue.length) {
        await queue.shift()();
        await new Promise((r) => setImmediate(r));
      }
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));
const ev = (seq, type, extra = {}) => ({ turn_id: "t9", seq, type, step: "agent", attempt: 1, ...extra });

function recorder() {
  const r = { events: [], ids: [], ends: [], errors: [] };
  r.opts = {
    onEvent: (e) => r.events.push(e),
    onTurnId: (id) => r.ids.push(id),
    onEnd: (s) => r.ends.push(s),
    onError: (e) => r.errors.push(e),
  };
  return r;
}

test("starts over the WebSocket, learns the id, drops duplicates, ends on turn.done", async () => {
  const { FakeSocket, sockets } = fakeSocketClass();
  const r = recorder();
  followTurn({ ...r.opts, start: { message: "hi" }, WebSocketImpl: FakeSocket, wsUrl: "ws://x/api/ws", fetchJson: () => assert.fail("no HTTP") });
  await tick();
  const ws = sockets[0];
  assert.deepEqual(ws.sent, [{ action: "turn.start", message: "hi" }]);
  ws.emit({ type: "turn.accepted", turn_id: "t9" });
  ws.emit(ev(1, "turn.started"));
  ws.emit(ev(1, "turn.started"));
  ws.emit(ev(2, "text.delta", { text: "yo" }));
  ws.emit(ev(3, "turn.done", { status: "done" }));
  ws.emit(ev(4, "text.delta", { text: "late" }));
  assert.deepEqual(r.ids, ["t9"]);
  assert.deepEqual(r.events.map((e) => e.seq), [1, 2, 3]);
  assert.deepEqual(r.ends, ["done"]);
  assert.equal(ws.closed, true);
});

test("follows an existing turn from a seq; a dropped socket falls back to polling from the last seq", async () => {
  const { FakeSocket, sockets } = fakeSocketClass();
  const timers = manualTimers();
  const r = recorder();
  const calls = [];
  const fetchJson = async (method, path) => {
    calls.push(`${method} ${path}`);
    return { status: "done", events: [ev(6, "text.delta", { text: "!" }), ev(7, "turn.done", { status: "done" })] };
  };
  followTurn({ ...r.opts, turnId: "t9", after: 4, WebSocketImpl: FakeSocket, wsUrl: "ws://x", fetchJson, timers });
  await tick();
  assert.deepEqual(sockets[0].sent, [{ action: "turn.follow", turn_id: "t9", after: 4 }]);
  sockets[0].emit(ev(5, "text.delta", { text: "a" }));
  sockets[0].onclose({});
  await timers.flush();
  assert.deepEqual(calls, ["GET /api/turns/t9?after=5&wait=20"]);
  assert.deepEqual(r.events.map((e) => e.seq), [5, 6, 7]);
  assert.deepEqual(r.ends, ["done"]);
});

test("no WebSocket at all: POST then poll until the turn is over", async () => {
  const { FakeSocket } = fakeSocketClass({ failToOpen: true });
  const timers = manualTimers();
  const r = recorder();
  const calls = [];
  const pages = [
    { status: "running", events: [ev(1, "turn.started")] },
    { status: "running", events: [] },
    { status: "error", events: [ev(2, "turn.error", { code: "no_model", message: "Set a key." })] },
  ];
  const fetchJson = async (method, path, body) => {
    calls.push([method, path, body]);
    return method === "POST" ? { turn_id: "t9" } : pages.shift();
  };
  followTurn({ ...r.opts, start: { message: "hi" }, WebSocketImpl: FakeSocket, wsUrl: "ws://x", fetchJson, timers, pollMs: 1 });
  await tick();
  await tick();
  await timers.flush();
  assert.deepEqual(calls[0], ["POST", "/api/turns", { message: "hi" }]);
  assert.deepEqual(calls.slice(1).map((c) => c[1]), ["/api/turns/t9?after=0&wait=20", "/api/turns/t9?after=1&wait=20", "/api/turns/t9?after=1&wait=20"]);
  assert.deepEqual(r.ends, ["error"]);
});

test("errors: a refused message, a failed POST, a lost start, an unknown turn", async () => {
  let { FakeSocket, sockets } = fakeSocketClass();
  let r = recorder();
  followTurn({ ...r.opts, start: { message: "" }, WebSocketImpl: FakeSocket, wsUrl: "ws://x", fetchJson: async () => ({}) });
  await tick();
  sockets[0].emit({ type: "error", error: "invalid_request", message: "Invalid message: message too short." });
  assert.equal(r.errors[0].code, "invalid_request");

  r = recorder();
  const refused = Object.assign(new Error("boom"), { status: 500 });
  followTurn({ ...r.opts, start: { message: "x" }, WebSocketImpl: null, fetchJson: async () => Promise.reject(refused) });
  await tick();
  assert.deepEqual(r.errors, [refused]);

  ({ FakeSocket, sockets } = fakeSocketClass());
  r = recorder();
  followTurn({ ...r.opts, start: { message: "x" }, WebSocketImpl: FakeSocket, wsUrl: "ws://x", fetchJson: () => assert.fail("must not resend") });
  await tick();
  sockets[0].onclose({});
  assert.match(r.errors[0].message, /before the turn started/);

  r = recorder();
  const gone = Object.assign(new Error("gone"), { status: 404 });
  followTurn({ ...r.opts, turnId: "old", WebSocketImpl: null, fetchJson: async () => Promise.reject(gone), timers: manualTimers() });
  await tick();
  assert.deepEqual(r.errors, [gone]);
});

test("stop() ends following without calling back", async () => {
  const { FakeSocket, sockets } = fakeSocketClass();
  const r = recorder();
  const ctl = followTurn({ ...r.opts, turnId: "t9", WebSocketImpl: FakeSocket, wsUrl: "ws://x", fetchJson: async () => ({}) });
  await tick();
  ctl.stop();
  assert.equal(sockets[0].closed, true);
  assert.deepEqual([r.ends, r.errors], [[], []]);
  assert.equal(ctl.turnId, "t9");
});

test("resume records and the socket URL", () => {
  const m = new Map();
  const store = { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => m.set(k, v), removeItem: (k) => m.delete(k) };
  assert.equal(loadResume(store), null);
  saveResume(store, { turn_id: "t9", after: 3, message: "hi" });
  assert.deepEqual(loadResume(store), { turn_id: "t9", after: 3, message: "hi" });
  clearResume(store);
  assert.equal(loadResume(store), null);
  m.set("previously:turn", "{not json");
  assert.equal(loadResume(store), null);
  assert.equal(wsUrlFor({ protocol: "https:", host: "me.example" }), "wss://me.example/api/ws");
  assert.equal(wsUrlFor({ protocol: "http:", host: "127.0.0.1:8000" }), "ws://127.0.0.1:8000/api/ws");
});

test("followLate reads a closed turn's log on until its card change, and passes only that", async () => {
  const timers = manualTimers();
  const asked = [];
  const pages = [
    { status: "done", events: [] },
    { status: "done", events: [{ seq: 5, type: "step.started", step: "close" }, { seq: 6, type: "step.done", step: "close" }] },
    { status: "done", events: [{ seq: 7, type: "card.evolved", step: "evolve", summary: "s", diff: "" }, { seq: 8, type: "step.done", step: "evolve" }] },
  ];
  const got = [];
  followLate({ turnId: "t1", after: 4, timers, fetchJson: async (method, path) => (asked.push(path), pages.shift()), onEvent: (e) => got.push(e) });
  await timers.flush();
  assert.deepEqual(asked, ["/api/turns/t1?after=4", "/api/turns/t1?after=4", "/api/turns/t1?after=6"]);
  assert.deepEqual(got.map((e) => e.type), ["card.evolved"]);
});

test("followLate stops at the run's after step when there is no card change, and after maxMs", async () => {
  const timers = manualTimers();
  let calls = 0;
  const got = [];
  followLate({ turnId: "t1", timers, onEvent: (e) => got.push(e),
    fetchJson: async () => (calls++, { events: [{ seq: 3, type: "step.done", step: "after" }] }) });
  await timers.flush();
  assert.equal(calls, 1);
  let clock = 0;
  let polls = 0;
  followLate({ turnId: "t2", timers, maxMs: 1000, now: () => clock, fetchJson: async () => (polls++, (clock += 600), { events: [] }) });
  await timers.flush();
  assert.equal(polls, 2);
  assert.deepEqual(got, []);
});
