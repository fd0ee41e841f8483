// Theme cycle, effort levels, storage that fails quietly, sign-in redirects.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as prefs from "../app/lib/prefs.js";
import { safeNext, signInUrl } from "../app/lib/urls.js";

function memoryStorage() {
  const m = new Map();
  return { getItem: (k) => (m.has(k) ? m.get(k) : null), setItem: (k, v) => m.set(k, String(v)), removeItem: (k) => m.delete(k) };
}
const broken = { getItem() { throw new Error("denied"); }, setItem() { throw new Error("denied"); }, removeItem() { throw new Error("denied"); } };

test("theme toggles light → dark → system and persists (system = nothing stored)", () => {
  assert.deepEqual(["light", "dark", "system"].map(prefs.nextTheme), ["dark", "system", "light"]);
  const s = memoryStorage();
  assert.equal(prefs.loadTheme(s), "system");
  prefs.saveTheme(s, "dark");
  assert.equal(prefs.loadTheme(s), "dark");
  prefs.saveTheme(s, "system");
  assert.equal(s.getItem(prefs.THEME_KEY), null);
  assert.equal(prefs.isDark("system", true), true);
  assert.equal(prefs.isDark("light", true), false);
});

test("effort cycles low/medium/high, and low/high for DeepSeek models", () => {
  assert.equal(prefs.nextEffort("claude-sonnet-5", "low"), "medium");
  assert.equal(prefs.nextEffort("claude-sonnet-5", "high"), "low");
  assert.equal(prefs.nextEffort("deepseek-v4-pro", "low"), "high");
  assert.equal(prefs.nextEffort("deepseek-v4-pro", "high"), "low");
  assert.equal(prefs.nextEffort("deepseek-v4-pro", "medium"), "low");
});

test("input-bar choices round-trip; unavailable storage is not an error", () => {
  const s = memoryStorage();
  prefs.savePrefs(s, { model: "m", thinking: false, effort: "high" });
  assert.deepEqual(prefs.loadPrefs(s), { model: "m", thinking: false, effort: "high" });
  assert.deepEqual(prefs.loadPrefs(broken), {});
  assert.equal(prefs.loadTheme(broken), "system");
  prefs.saveTheme(broken, "dark");
  prefs.savePrefs(broken, {});
});

test("sign-in comes back only to a path on this site", () => {
  assert.equal(signInUrl({ pathname: "/", search: "?lang=zh", hash: "#/slice/2026-07-25-1430" }), "sign-in.html?next=%2F%3Flang%3Dzh%23%2Fslice%2F2026-07-25-1430");
  assert.equal(safeNext("/#/card"), "/#/card");
  assert.equal(safeNext("//evil.example/"), "./");
  assert.equal(safeNext("https://evil.example/"), "./");
  assert.equal(safeNext("/\\evil.example"), "./");
  assert.equal(safeNext(null), "./");
});

test("shortcuts fire outside fields and dialogs only; Ctrl+K works everywhere", async () => {
  const { shortcutFor } = await import("../app/lib/keys.js");
  const body = { tagName: "BODY", closest: () => null };
  const field = { tagName: "TEXTAREA", closest: () => null };
  const inDialog = { tagName: "BUTTON", closest: (sel) => (sel === "dialog" ? {} : null) };
  assert.equal(shortcutFor({ key: "/", target: body }), "search");
  assert.equal(shortcutFor({ key: "[", target: body }), "prev");
  assert.equal(shortcutFor({ key: "n", target: field }), null);
  assert.equal(shortcutFor({ key: "k", ctrlKey: true, target: field }), "search");
  assert.equal(shortcutFor({ key: "n", target: inDialog }), null);
  assert.equal(shortcutFor({ key: "x", target: body }), null);
});
