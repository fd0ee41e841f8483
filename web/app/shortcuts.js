// The keyboard shortcuts sheet, and the global key handler behind it.
import { html } from "./html.js";
import { Dialog } from "./dialog.js";

export const SHORTCUTS = [
  ["/", "keys.search"],
  ["Ctrl K", "keys.search"],
  ["[", "keys.prev"],
  ["]", "keys.next"],
  ["n", "keys.now"],
  ["w", "keys.wheel"],
  ["i", "keys.input"],
  ["↑ ↓ PgUp PgDn Home End", "keys.wheelMove"],
  ["Enter", "keys.wheelOpen"],
  ["?", "keys.help"],
];

function typing(target) {
  const tag = (target && target.tagName) || "";
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
}

/** Map a keydown to an action name (or null); ignores keys typed into fields and inside dialogs. */
export function shortcutFor(e) {
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k") return "search";
  if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return null;
  if (e.target && e.target.closest && e.target.closest("dialog")) return null;
  return { "/": "search", "[": "prev", "]": "next", n: "now", w: "wheel", i: "input", "?": "help" }[e.key] || null;
}

export function ShortcutsDialog({ open, onClose, t }) {
  return html`<${Dialog} open=${open} onClose=${onClose} title=${t("keys.title")} icon="keyboard" testid="shortcuts-dialog" closeLabel=${t("common.close")}>
    <dl class="shortcuts">
      ${SHORTCUTS.map(([keys, label]) => html`<div><dt><kbd>${keys}</kbd></dt><dd>${t(label)}</dd></div>`)}
    </dl>
  </${Dialog}>`;
}
