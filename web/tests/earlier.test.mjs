// The exchanges from before a reload: which are shown, and how they count as seen.
import { test } from "node:test";
import assert from "node:assert/strict";
import { earlierMessages, earlierToShow } from "../app/lib/earlier.js";
import { applyEvents, initialTurn, replyText } from "../app/lib/stream.js";

const S = "2026-12-03-1000";
const TURNS = [
  { turn_id: "aaaaaA", role: "user", content: "First" },
  { turn_id: "aaaaaA", role: "agent", content: "Reply one" },
  { turn_id: "bbbbbQ", role: "user", content: "Second" },
  { turn_id: "bbbbbQ", role: "agent", content: "Reply two" },
  { turn_id: "cccccg", role: "user", content: "Third, resumed after the reload" },
];
const started = (opened) => [{ seq: 1, type: "turn.started", turn_id: "cccccg", slice_id: S, slice_opened: opened, user_turn_id: "cccccg" }];
const page = (opened) => [
  { id: "m1", role: "user", text: "Third, resumed after the reload" },
  { id: "m2", role: "assistant", turn: applyEvents(initialTurn("cccccg"), started(opened)) },
];
const state = { active: { slice_id: S }, active_turns: TURNS };

test("a first exchange that joined the open slice asks for the turns before it", () => {
  assert.deepEqual(earlierToShow(page(false), state), { sliceId: S, userTurnId: "cccccg" });
});

test("nothing to show for a slice the page opened, another slice, no state, or once shown", () => {
  assert.equal(earlierToShow(page(true), state), null);
  assert.equal(earlierToShow(page(false), { active: { slice_id: "2026-12-03-0900" }, active_turns: TURNS }), null);
  assert.equal(earlierToShow(page(false), null), null);
  assert.equal(earlierToShow([{ ...page(false)[0], earlier: true }, page(false)[1]], state), null);
  assert.equal(earlierToShow([], state), null);
});

test("the turns before the page's own message become finished exchanges of the slice", () => {
  const out = earlierMessages(TURNS, S, "cccccg");
  assert.deepEqual(out.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  assert.ok(out.every((m) => m.earlier));
  assert.equal(out[0].content, "First");
  assert.equal(out[1].turn.status, "done");
  assert.equal(out[1].turn.sliceId, S);
  assert.equal(replyText(out[3].turn), "Reply two");
});

test("a state read before the message was saved gives every turn", () => {
  assert.equal(earlierMessages(TURNS.slice(0, 4), S, "cccccg").length, 4);
  assert.deepEqual(earlierMessages(undefined, S, "x"), []);
});
