// The search helper's answer is read off the head of a webSearch result; plain results have none.
import { test } from "node:test";
import assert from "node:assert/strict";
import { webAnswer } from "../app/lib/web-answer.js";

const RESULTS = 'Web results for "tomatoes" (cite the URLs you rely on; webFetch reads a page in full):\n\n[1] A\nhttps://a.example/';

test("the answer, recommendation and reads above the results", () => {
  const text = `Web search for "tomatoes" — the search helper's answer:\nSun [1].\n\nRecommendation: Open [1].\n\n${RESULTS}`;
  assert.equal(webAnswer(text), "Sun [1].\n\nRecommendation: Open [1].");
});

test("plain results, a cut text and non-strings have no answer", () => {
  assert.equal(webAnswer(RESULTS), "");
  assert.equal(webAnswer('Web search for "x" — the search helper\'s answer:\nHalf an ans'), "Half an ans");
  assert.equal(webAnswer(null), "");
  assert.equal(webAnswer({ answer: "x" }), "");
});
