// A tool card shows the label its `tool.call` event carries (the server builds it in the user's
// language, core/turn/labels.py); the page keeps no table of tools of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { deniedReason, toolIcon, toolLabel } from "../app/lib/tool-labels.js";
import { makeT } from "../app/lib/i18n.js";

const en = makeT("en");
const item = (tool, extra = {}) => ({ tool, input: {}, state: "completed", label: "", output: null, progress: [], recall: null, ...extra });

test("the card shows the event's label", () => {
  assert.equal(toolLabel(item("readSlice", { label: "Viewed Jul 25 14:30" })), "Viewed Jul 25 14:30");
  assert.equal(toolLabel(item("recall", { label: "已回忆“机票”" })), "已回忆“机票”");
});

test("without a label the tool's name stands in", () => {
  assert.equal(toolLabel(item("listThings")), "listThings");
});

test("icons and denied reasons", () => {
  assert.equal(toolIcon("recall"), "history");
  assert.equal(toolIcon("readSlice"), "file-text");
  assert.equal(toolIcon("mystery"), "wrench");
  assert.equal(deniedReason({ output: "not in demo" }, en), "not in demo");
  assert.equal(deniedReason({ output: null }, en), "not allowed");
});
