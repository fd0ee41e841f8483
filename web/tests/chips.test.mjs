// Briefing chips: labels at most 30 characters, server suggestions first, real data only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildChips, clipLabel, CHIP_LABEL_MAX } from "../app/lib/chips.js";
import { makeT } from "../app/lib/i18n.js";

const t = makeT("en");

test("labels are clipped to 30 characters with an ellipsis", () => {
  assert.equal(clipLabel("short"), "short");
  const long = clipLabel("Resume: Juggling the HSK exam, unbooked flights and launch work.");
  assert.equal(Array.from(long).length, CHIP_LABEL_MAX);
  assert.ok(long.endsWith("…"));
  assert.equal(Array.from(clipLabel("奶奶".repeat(40))).length, 30);
});

test("server suggestions win; the prompt is sent whole", () => {
  const prompt = "Let's pick up the flights, the visa and the HSK ticket, in that order please";
  const chips = buildChips({ suggestions: [{ label: prompt, prompt }], last_topic: "x" }, t);
  assert.equal(chips.length, 1);
  assert.equal(chips[0].prompt, prompt);
  assert.ok(Array.from(chips[0].label).length <= 30);
});

test("without suggestions, chips come from the last topic, the loops and another recent slice", () => {
  const state = {
    last_topic: "Flights to Chengdu",
    last_slice_id: "b",
    open_loops: ["Book flights"],
    recent: [{ slice_id: "b", focus: "Flights to Chengdu" }, { slice_id: "a", focus: "HSK mock test" }],
  };
  const chips = buildChips(state, t);
  assert.deepEqual(chips.map((c) => c.label), ["Resume: Flights to Chengdu", "What's still open?", "Back to: HSK mock test"]);
  assert.equal(chips[0].prompt, "Let's carry on from last time: Flights to Chengdu");
});

test("no memory, no chips", () => {
  assert.deepEqual(buildChips({ suggestions: [], open_loops: [], recent: [] }, t), []);
  assert.deepEqual(buildChips(null, t), []);
  assert.deepEqual(buildChips({ suggestions: [{ label: "x", prompt: "  " }] }, t), []);
});
