// Global keyboard shortcuts: the list (for the help sheet) and the key → action mapping.

export const SHORTCUTS = [
  ["/", "keys.search"],
  ["Ctrl K", "keys.search"],
  ["[", "keys.prev"],
  ["]", "keys.next"],
  ["n", "keys.now"],
  ["w", "keys.wheel"],
  ["i", "keys.input"],
  ["↑ ↓ PgUp PgDn Home End", "keys.wheelMove"],
  ["Enter Space", "keys.wheelOpen"],
  ["Enter", "keys.send"],
  ["Shift Enter", "keys.newline"],
  ["Esc", "keys.close"],
  ["?", "keys.help"],
];

const ACTIONS = { "/": "search", "[": "prev", "]": "next", n: "now", w: "wheel", i: "input", "?": "help" };

function typing(target) {
  const tag = (target && target.tagName) || "";
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || Boolean(target && target.isContentEditable);
}

/** Map a keydown to an action name (or null); keys typed into fields or inside dialogs are left alone. */
export function shortcutFor(e) {
  if ((e.ctrlKey || e.metaKey) && String(e.key).toLowerCase() === "k") return "search";
  if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return null;
  if (e.target && e.target.closest && e.target.closest("dialog")) return null;
  return ACTIONS[e.key] || null;
}
