// A form over stored values: untouched fields follow the store, edited ones keep the user's text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rebaseForm } from "../app/lib/form.js";

test("fields the user did not touch take the stored values; edited ones stay", () => {
  const before = { minutes: "60", turns: "30", locale: "en" };
  const form = { minutes: "90", turns: "30", locale: "en" }; // typed 90 while a save was in flight
  const after = { minutes: "60", turns: "40", locale: "zh" };
  assert.deepEqual(rebaseForm(form, before, after), { minutes: "90", turns: "40", locale: "zh" });
});

test("a save that stored what the form holds leaves it as it is", () => {
  const before = { minutes: "60" };
  const form = { minutes: "90" };
  assert.deepEqual(rebaseForm(form, before, { minutes: "90" }), { minutes: "90" });
});

test("a field new in the store is added; booleans compare by value", () => {
  assert.deepEqual(rebaseForm({ thinking: true }, { thinking: true }, { thinking: false, effort: "high" }), {
    thinking: false,
    effort: "high",
  });
});
