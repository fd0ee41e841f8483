// The Import screen's pure helpers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { codeParts, guessFormat, ndjsonLines, outcomeOf, progressOf } from "../app/lib/import-flow.js";

test("the format is guessed from the file name", () => {
  assert.equal(guessFormat("chatgpt-export.zip"), "chatgpt");
  assert.equal(guessFormat("data-2024-claude.zip"), "claude");
  assert.equal(guessFormat("notes.MD"), "markdown");
  assert.equal(guessFormat("talks.jsonl"), "jsonl");
  assert.equal(guessFormat("conversations.json"), "chatgpt");
});

test("only complete NDJSON lines are read", () => {
  const text = '{"type":"progress","phase":"read","done":1,"total":null}\n{"type":"pro';
  assert.deepEqual(ndjsonLines(text), [{ type: "progress", phase: "read", done: 1, total: null }]);
  assert.deepEqual(ndjsonLines(""), []);
});

test("progress runs from reading to writing to done", () => {
  assert.equal(progressOf([]), 0);
  const read = { type: "progress", phase: "read", done: 3, total: null };
  assert.equal(progressOf([read]), 0.25);
  const half = { type: "progress", phase: "write", done: 5, total: 10 };
  assert.equal(progressOf([read, half]), 0.75);
  assert.equal(progressOf([read, half, { type: "done" }]), 1);
  assert.equal(outcomeOf([read, { type: "error", message: "x" }]).message, "x");
  assert.equal(outcomeOf([read]), null);
});

test("a message's code spans are parts of their own, without the backticks", () => {
  assert.deepEqual(codeParts("message a has no `create_time` (at 3)"), [
    { code: false, text: "message a has no " },
    { code: true, text: "create_time" },
    { code: false, text: " (at 3)" },
  ]);
  assert.deepEqual(codeParts("`docs` and `id`"), [
    { code: true, text: "docs" },
    { code: false, text: " and " },
    { code: true, text: "id" },
  ]);
  assert.deepEqual(codeParts("a lone ` stays"), [{ code: false, text: "a lone ` stays" }]);
  assert.deepEqual(codeParts(""), []);
});
