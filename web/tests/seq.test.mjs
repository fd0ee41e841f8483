// Which events are new by seq: in order, late (a skipped seq arriving after a higher one), duplicates.
import { test } from "node:test";
import assert from "node:assert/strict";
import { admitSeq } from "../app/lib/seq.js";
import { applyEvents, initialTurn } from "../app/lib/stream.js";

test("a skipped seq is taken once when it arrives late; a repeat is a duplicate", () => {
  let t = { last: 0, missing: [] };
  t = admitSeq(t, 1);
  assert.deepEqual(t, { last: 1, missing: [] });
  t = admitSeq(t, 3);
  assert.deepEqual(t, { last: 3, missing: [2] });
  t = admitSeq(t, 2);
  assert.deepEqual(t, { last: 3, missing: [] });
  assert.equal(admitSeq(t, 2), null);
  assert.equal(admitSeq(t, 3), null);
  assert.equal(admitSeq(t, 1), null);
  assert.deepEqual(admitSeq(t, 0), t, "an event without seq is always taken");
});

test("tool events of parallel calls pushed out of order all reach the message", () => {
  const ev = (seq, type, fields) => ({ turn_id: "t1", seq, type, step: "tools", attempt: 1, ...fields });
  const events = [
    ev(1, "tool.call", { item: 0, call_id: "a", tool: "currentTime", state: "running" }),
    ev(3, "tool.call", { item: 0, call_id: "a", tool: "currentTime", state: "completed" }),
    ev(2, "tool.call", { item: 1, call_id: "b", tool: "currentTime", state: "running" }),
    ev(4, "tool.call", { item: 1, call_id: "b", tool: "currentTime", state: "completed" }),
    ev(2, "tool.call", { item: 1, call_id: "b", tool: "currentTime", state: "running" }),
  ];
  const inOrder = applyEvents(initialTurn("t1"), [...events.slice(0, 4)].sort((x, y) => x.seq - y.seq));
  const late = applyEvents(initialTurn("t1"), events);
  assert.deepEqual(late.items, inOrder.items);
  assert.equal(late.lastSeq, 4);
  assert.deepEqual(late.missingSeqs, []);
});
