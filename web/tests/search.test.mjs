// Instant catalog search and match highlighting.
import { test } from "node:test";
import assert from "node:assert/strict";
import { highlight, searchCatalog, terms } from "../app/lib/search.js";

const catalog = [
  { id: "2024-08-04-1932", date: "2024-08-04", focus: "A house hunt with Leo", summary: "Mortgage talk", tags: ["house-buying"], strands: [], open_loops: [], decisions: [] },
  { id: "2025-02-08-1617", date: "2025-02-08", focus: "Keys day", summary: "They got the house", tags: ["house-buying"], strands: [], open_loops: ["Fix the damp"], decisions: [] },
  { id: "2026-11-26-2010", date: "2026-11-26", focus: "HSK exam and flights", summary: "", tags: ["mandarin"], strands: ["chengdu-trip"], open_loops: [], decisions: [] },
];

test("terms split words and keep quoted phrases", () => {
  assert.deepEqual(terms('Leo "house hunt"'), ["leo", "house hunt"]);
  assert.deepEqual(terms("   "), []);
});

test("focus matches rank first; newer wins ties; every term must match", () => {
  assert.deepEqual(searchCatalog(catalog, "house").map((e) => e.id), ["2024-08-04-1932", "2025-02-08-1617"]);
  assert.deepEqual(searchCatalog(catalog, "house damp").map((e) => e.id), ["2025-02-08-1617"]);
  assert.deepEqual(searchCatalog(catalog, "chengdu").map((e) => e.id), ["2026-11-26-2010"]);
  assert.deepEqual(searchCatalog(catalog, "2025-02").map((e) => e.id), ["2025-02-08-1617"]);
  assert.deepEqual(searchCatalog(catalog, ""), []);
  assert.equal(searchCatalog(catalog, "e", 1).length, 1);
});

test("highlight alternates plain text and matches", () => {
  assert.deepEqual(highlight("A house hunt", "HOUSE"), ["A ", "house", " hunt"]);
  assert.deepEqual(highlight("a.b", "."), ["a", ".", "b"]);
  assert.deepEqual(highlight("plain", ""), ["plain"]);
});
