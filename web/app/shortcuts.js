// The keyboard shortcuts sheet.
import { html } from "./html.js";
import { Dialog } from "./dialog.js";
import { SHORTCUTS } from "./lib/keys.js";

export function ShortcutsDialog({ open, onClose, t }) {
  return html`<${Dialog} open=${open} onClose=${onClose} title=${t("keys.title")} icon="keyboard" testid="shortcuts-dialog" closeLabel=${t("common.close")}>
    <dl class="shortcuts">
      ${SHORTCUTS.map(([keys, label]) => html`<div><dt><kbd>${keys}</kbd></dt><dd>${t(label)}</dd></div>`)}
    </dl>
  </${Dialog}>`;
}
