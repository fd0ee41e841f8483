// The dialogs of a past slice, loaded the first time one opens (slice-actions.js): edit its marks,
// forget it or one exchange of it. Forgetting asks first, says what will go, and that git history
// keeps it, with the guide to purging it (docs/FORGET.md, as `GET /api/help/forget` serves it).
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Dialog } from "./dialog.js";
import { Markdown } from "./markdown.js";
import { api } from "./api.js";

const lines = (text) =>
  String(text || "")
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);
const tagList = (text) =>
  String(text || "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** What one exchange is, for the confirmation: its opening words. */
function exchangeLine(data, turnId) {
  const turn = (data.turns || []).find((x) => x.turn_id === turnId && x.role === "user") || (data.turns || []).find((x) => x.turn_id === turnId);
  const first = turn ? turn.content.trim().split("\n")[0] : "";
  return first.length > 120 ? `${first.slice(0, 119)}…` : first;
}

/** How to purge what git history keeps: a link that shows docs/FORGET.md in the dialog. */
function PurgeGuide({ t }) {
  const [text, setText] = useState(null); // null | "loading" | "failed" | the guide
  const load = () => {
    setText("loading");
    fetch("/api/help/forget", { credentials: "same-origin" })
      .then((res) => (res.ok ? res.text() : Promise.reject(new Error(String(res.status)))))
      .then(setText, () => setText("failed"));
  };
  if (text === null) {
    return html`<button type="button" class="link-btn" data-testid="forget-purge" onClick=${load}>${t("forget.purgeLink")}</button>`;
  }
  if (text === "loading") return html`<span class="muted">${t("common.loading")}</span>`;
  if (text === "failed") return html`<span role="alert">${t("forget.purgeFailed")}</span>`;
  return html`<${Markdown} text=${text} t=${t} />`;
}

/** The confirmation for forgetting the slice (`turnId` null) or one exchange. */
export function ForgetDialog({ data, turnId, open, onClose, onForgotten, t }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const whole = !turnId;
  const path = whole ? `/api/slices/${data.slice_id}` : `/api/slices/${data.slice_id}/turns/${encodeURIComponent(turnId)}`;
  // The server's own preview names the pictures that go too (the page cannot see them all).
  const [pictures, setPictures] = useState(0);
  useEffect(() => {
    setPictures(0);
    if (!open) return;
    let live = true;
    api.get(`${path}/forget-preview`).then((p) => live && setPictures((p.pictures || []).length), () => {});
    return () => (live = false);
  }, [open, path]);
  const confirm = async () => {
    setBusy(true);
    setError("");
    try {
      const result = await api.del(path);
      setBusy(false);
      onForgotten(result);
    } catch (err) {
      setBusy(false);
      setError(err.message || t("forget.failed"));
    }
  };
  const close = () => {
    setError("");
    onClose();
  };
  return html`<${Dialog} open=${open} onClose=${close} title=${whole ? t("forget.titleSlice") : t("forget.titleTurn")}
    icon="trash-2" testid=${whole ? "forget-dialog" : "forget-turn-dialog"} closeLabel=${t("common.close")}>
    ${whole
      ? html`<p data-testid="forget-what"><strong>${data.focus || data.slice_id}</strong></p>
          <p>${t("forget.sliceGoes", { n: (data.turns || []).length })}</p>`
      : html`<p data-testid="forget-what"><strong>“${exchangeLine(data, turnId)}”</strong></p>
          <p>${t("forget.turnGoes")}</p>`}
    ${pictures > 0 && html`<p data-testid="forget-pictures">${t("forget.pictures", { count: pictures, n: pictures })}</p>`}
    <div class="hint" data-testid="forget-history"><p>${t("forget.history")}</p><${PurgeGuide} t=${t} /></div>
    ${error && html`<p class="hint error" role="alert">${error}</p>`}
    <div class="form-actions">
      <button type="button" class="ghost-btn" onClick=${close}>${t("forget.cancel")}</button>
      <button type="button" class="primary-btn danger-btn" data-testid="forget-confirm" disabled=${busy} onClick=${confirm}>
        <${Icon} name="trash-2" size=${14} />${busy ? t("forget.working") : t("forget.confirm")}
      </button>
    </div>
  </${Dialog}>`;
}

function Field({ id, label, hint, children }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${children}
    ${hint && html`<p class="hint">${hint}</p>`}
  </div>`;
}

/** Edit focus, summary, tags, open loops and decisions; the turns stay as they are. */
export function EditDialog({ data, open, onClose, onSaved, t }) {
  const initial = () => ({
    focus: data.focus || "",
    summary: data.summary || "",
    tags: (data.tags || []).join(", "),
    open_loops: (data.open_loops || []).join("\n"),
    decisions: (data.decisions || []).join("\n"),
  });
  const [form, setForm] = useState(initial);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const set = (key) => (e) => setForm({ ...form, [key]: e.currentTarget.value });
  const save = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    const patch = { focus: form.focus, summary: form.summary, tags: tagList(form.tags), open_loops: lines(form.open_loops), decisions: lines(form.decisions) };
    try {
      const saved = await api.patch(`/api/slices/${data.slice_id}`, patch);
      setBusy(false);
      onSaved(saved);
    } catch (err) {
      setBusy(false);
      setError(err.message || t("edit.failed"));
    }
  };
  return html`<${Dialog} open=${open} onClose=${onClose} title=${t("edit.title")} icon="pencil" testid="edit-dialog" closeLabel=${t("common.close")}>
    <form class="slice-edit" onSubmit=${save} novalidate>
      <${Field} id="edit-focus" label=${t("edit.focus")}>
        <input id="edit-focus" value=${form.focus} maxlength="300" onInput=${set("focus")} />
      </${Field}>
      <${Field} id="edit-summary" label=${t("edit.summary")}>
        <textarea id="edit-summary" rows="3" maxlength="4000" value=${form.summary} onInput=${set("summary")}></textarea>
      </${Field}>
      <${Field} id="edit-tags" label=${t("edit.tags")} hint=${t("edit.tagsHint")}>
        <input id="edit-tags" value=${form.tags} onInput=${set("tags")} />
      </${Field}>
      <${Field} id="edit-loops" label=${t("slice.loops")} hint=${t("edit.linesHint")}>
        <textarea id="edit-loops" rows="3" value=${form.open_loops} onInput=${set("open_loops")}></textarea>
      </${Field}>
      <${Field} id="edit-decisions" label=${t("slice.decisions")} hint=${t("edit.linesHint")}>
        <textarea id="edit-decisions" rows="3" value=${form.decisions} onInput=${set("decisions")}></textarea>
      </${Field}>
      <p class="hint">${t("edit.note")}</p>
      ${error && html`<p class="hint error" role="alert">${error}</p>`}
      <div class="form-actions">
        <button type="button" class="ghost-btn" onClick=${onClose}>${t("forget.cancel")}</button>
        <button type="submit" class="primary-btn" data-testid="edit-save" disabled=${busy}>${busy ? t("settings.saving") : t("settings.save")}</button>
      </div>
    </form>
  </${Dialog}>`;
}

