// Tool cards read like sentences built from the tool's input — never the raw tool name. Moments are
// in London's local time (london.mjs).
import "./london.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { deniedReason, toolIcon, toolLabel } from "../app/lib/tool-labels.js";
import { loadLocale, makeT } from "../app/lib/i18n.js";

await loadLocale("zh");
const en = makeT("en");
const zh = makeT("zh");
const item = (tool, input, state = "completed", extra = {}) => ({ tool, input, state, label: "", output: null, progress: [], recall: null, ...extra });

test("slice reads name the slice's local moment", () => {
  assert.equal(toolLabel(item("readSlice", { sliceId: "2026-07-25-1330", range: { type: "last" } }), en, "en"), "Viewed Jul 25 14:30");
  assert.equal(toolLabel(item("readSlice", { sliceId: "2026-07-25-1330" }, "running"), en, "en"), "Viewing Jul 25 14:30…");
  assert.equal(toolLabel(item("readSliceSummary", { sliceId: "2026-07-25-1330" }), en, "en"), "Checked the summary of Jul 25 14:30");
  assert.equal(toolLabel(item("readSlice", { sliceId: "2026-07-25-1330" }), zh, "zh"), "查看了 7月25日 14:30");
});

test("timeline windows name their period", () => {
  assert.equal(toolLabel(item("readTimelineWindow", { from: "2026-07-01", to: "2026-07-31" }), en, "en"), "Viewed Jul 1, 2026 – Jul 31, 2026");
  assert.equal(toolLabel(item("readTimelineWindow", { from: "2026-07-01" }), en, "en"), "Viewed since Jul 1, 2026");
  assert.equal(toolLabel(item("readTimelineWindow", {}), en, "en"), "Viewed the recent timeline");
});

test("recall counts its hits once they arrive", () => {
  assert.equal(toolLabel(item("recall", { query: "flights" }, "running"), en, "en"), 'Looking back for "flights"…');
  const done = item("recall", { query: "flights" }, "completed", { recall: { query: "flights", hits: [{}, {}] } });
  assert.equal(toolLabel(done, en, "en"), 'Found 2 conversations about "flights"');
  done.recall.hits = [{}];
  assert.equal(toolLabel(done, en, "en"), 'Found 1 conversation about "flights"');
});

test("other known tools, the card, and unknown tools", () => {
  assert.equal(toolLabel(item("currentTime", {}), en, "en"), "Checked the time");
  assert.equal(toolLabel(item("readPreviously", {}), en, "en"), "Read your card");
  assert.equal(toolLabel(item("webFetch", { url: "https://example.com/a/b" }), en, "en"), "Fetched example.com/a/b");
  assert.equal(toolLabel(item("listThings", { a: 1 }), en, "en"), 'ListThings {"a":1}');
  assert.equal(toolLabel(item("listThings", {}, "completed", { label: "Listed things" }), en, "en"), "Listed things");
});

test("icons and denied reasons", () => {
  assert.equal(toolIcon("recall"), "history");
  assert.equal(toolIcon("readSlice"), "file-text");
  assert.equal(toolIcon("mystery"), "wrench");
  assert.equal(deniedReason({ output: "not in demo" }, en), "not in demo");
  assert.equal(deniedReason({ output: null }, en), "not allowed");
});
