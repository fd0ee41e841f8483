// Dictionaries: the same keys in both languages, every key the code uses exists, formatting works.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { DICTS, loadLocale, makeT, normalizeLocale, parseTemplate } from "../app/lib/i18n.js";
import { SHORTCUTS } from "../app/lib/keys.js";

const APP = join(dirname(fileURLToPath(import.meta.url)), "..", "app");
await loadLocale("zh"); // the other dictionaries load on demand in the page
const base = (key) => key.replace(/\.(one|other)$/, "");

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? (d.name === "i18n" ? [] : sourceFiles(join(dir, d.name))) : d.name.endsWith(".js") ? [join(dir, d.name)] : [],
  );
}

test("English and Chinese have the same keys (plural forms count as one)", () => {
  const en = new Set(Object.keys(DICTS.en).map(base));
  const zh = new Set(Object.keys(DICTS.zh).map(base));
  assert.deepEqual([...en].filter((k) => !zh.has(k)), []);
  assert.deepEqual([...zh].filter((k) => !en.has(k)), []);
});

test("every literal key the code asks for exists", () => {
  const known = new Set(Object.keys(DICTS.en).map(base));
  const used = new Set();
  for (const file of sourceFiles(APP)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\bt\(\s*"([a-zA-Z0-9_.]+)"/g)) used.add(m[1]);
  }
  for (const [, key] of SHORTCUTS) used.add(key);
  assert.ok(used.size > 100);
  assert.deepEqual([...used].filter((k) => !known.has(k)).sort(), []);
});

test("keys built at run time exist for every value they take", () => {
  const known = new Set(Object.keys(DICTS.en).map(base));
  const families = {
    "stage.": ["preparing", "recalling", "reasoning", "working", "composing"],
    "theme.": ["light", "dark", "system"],
    "input.effort.": ["low", "medium", "high"],
    "recall.priority.": ["high", "medium", "low"],
    "card.flag.": ["stale", "overdue"],
    "card.section.": ["identity", "past", "anchor", "now", "horizon", "self_model", "unsorted"],
    "settings.": ["maxSliceMinutes", "maxTurnsPerSlice", "errWhole", "errRange"],
  };
  const units = ["minutes", "hours", "days", "weeks", "months", "years"];
  const want = [
    ...Object.entries(families).flatMap(([prefix, names]) => names.map((n) => prefix + n)),
    ...units.flatMap((u) => [`rel.${u}Ago`, `rel.${u}In`]),
    "rel.moments",
    "rel.soon",
  ];
  assert.deepEqual(want.filter((k) => !known.has(k)), []);
});

test("placeholders and plurals", () => {
  const en = makeT("en");
  assert.equal(en("rel.daysAgo", { count: 1, n: 1 }), "1 day ago");
  assert.equal(en("rel.daysAgo", { count: 3, n: 3 }), "3 days ago");
  assert.equal(makeT("zh")("rel.daysAgo", { count: 3, n: 3 }), "3天前");
  assert.equal(en("no.such.key"), "no.such.key");
  assert.deepEqual(en.parts("travel.eyebrow", { name: "NODE" }), ["Previously on ", "NODE"]);
  assert.deepEqual(parseTemplate("a {x} b"), ["a ", { name: "x" }, " b"]);
});

test("the pseudo-locale marks every string", () => {
  const q = makeT("qps");
  assert.equal(q("wheel.now"), "⟦Now⟧");
  assert.deepEqual(q.parts("wheel.now"), ["⟦", "Now", "⟧"]);
  assert.equal(normalizeLocale("zh-CN"), "zh");
  assert.equal(normalizeLocale("fr"), "en");
  assert.equal(normalizeLocale("QPS"), "qps");
});
