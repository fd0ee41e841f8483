// The user in control of a past slice: edit its marks, download it as Markdown, forget it or one
// exchange of it. The dialogs load when one first opens (slice-dialogs.js), outside the first load.
import { useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { lazy } from "./lazy.js";
import { api } from "./api.js";

const dialogs = () => import("./slice-dialogs.js");
export const ForgetDialog = lazy(dialogs, "ForgetDialog");
const EditDialog = lazy(dialogs, "EditDialog");

/** The slice's action row: edit, download, forget (disabled, with the reason, on read-only memory). */
export function SliceActions({ data, readOnly, t, onChanged, onForgotten }) {
  const [dialog, setDialog] = useState(null); // "edit" | "forget" | null
  const why = readOnly ? t("actions.readOnly") : undefined;
  return html`<div class="slice-actions" data-testid="slice-actions">
    <button type="button" class="ghost-btn" data-testid="slice-edit" disabled=${readOnly} title=${why} onClick=${() => setDialog("edit")}>
      <${Icon} name="pencil" size=${14} />${t("actions.edit")}
    </button>
    <a class="ghost-btn" data-testid="slice-download" href=${`/api/slices/${data.slice_id}/markdown`} download=${`slice-${data.slice_id}.md`}>
      <${Icon} name="file-text" size=${14} />${t("actions.download")}
    </a>
    <button type="button" class="ghost-btn danger" data-testid="slice-forget" disabled=${readOnly} title=${why} onClick=${() => setDialog("forget")}>
      <${Icon} name="trash-2" size=${14} />${t("actions.forget")}
    </button>
    ${readOnly && html`<p class="hint read-only-hint">${why}</p>`}
    ${dialog === "edit" &&
    html`<${EditDialog} data=${data} open=${true} onClose=${() => setDialog(null)} t=${t}
      onSaved=${(saved) => (setDialog(null), onChanged(saved))} />`}
    ${dialog === "forget" &&
    html`<${ForgetDialog} data=${data} turnId=${null} open=${true} onClose=${() => setDialog(null)} t=${t}
      onForgotten=${(result) => (setDialog(null), onForgotten(result))} />`}
  </div>`;
}

/** Mark one open loop done (it leaves the briefing; the slice keeps its words under done_loops). */
export async function markLoopDone(sliceId, loop) {
  return api.patch(`/api/slices/${sliceId}`, { done_loops: [loop] });
}
