// The Import screen (The Only Way In): choose an export, see what it would create, accept it.
// Nothing is written until Accept; the accept call streams its progress as NDJSON lines.
import { useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { signInUrl } from "./lib/urls.js";
import { FORMATS, codeParts, guessFormat, ndjsonLines, outcomeOf, progressOf } from "./lib/import-flow.js";

/** POST the file; `onProgress(sent share, response text so far)`. Resolves to {status, text}. */
function upload(path, file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total, "");
    xhr.onprogress = () => onProgress(1, xhr.responseText);
    xhr.onload = () => {
      if (xhr.status === 401) globalThis.location.assign(signInUrl(globalThis.location));
      resolve({ status: xhr.status, text: xhr.responseText });
    };
    xhr.onerror = () => reject(new Error("network"));
    xhr.send(file);
  });
}

function errorText(res, t) {
  try {
    const body = JSON.parse(res.text);
    return body.message || t("import.failed");
  } catch {
    return t("import.failed");
  }
}

/** A server message with its `code` spans shown as code, not as backticks. */
function WithCode({ text }) {
  return codeParts(text).map((p) => (p.code ? html`<code>${p.text}</code>` : p.text));
}

function Counts({ plan, t }) {
  const rows = [
    ["import.conversations", plan.conversations],
    ["import.messages", plan.messages],
    ["import.newSlices", plan.slices.new],
    ["import.extended", plan.slices.extend],
    ["import.unchanged", plan.slices.unchanged],
    ["import.kept", plan.slices.kept],
    ["import.asides", plan.kept_aside],
    ["import.attachments", plan.attachments],
    ["import.images", plan.images],
  ];
  return html`<dl class="import-counts" data-testid="import-counts">
    ${rows.map(([key, n]) => html`<div><dt>${t(key)}</dt><dd>${n}</dd></div>`)}
  </dl>`;
}

function Preview({ plan, t }) {
  const day = (iso) => (iso ? iso.slice(0, 10) : "");
  return html`<section class="panel" data-testid="import-preview">
    <h2 class="panel-heading">${t("import.preview")}</h2>
    <p>${plan.first ? t("import.range", { first: day(plan.first), last: day(plan.last) }) : t("import.nothing")}</p>
    <${Counts} plan=${plan} t=${t} />
    ${plan.planned.length > 0 &&
    html`<ul class="import-list" data-testid="import-planned">
      ${plan.planned.slice(0, 20).map((s) => html`<li><span class="mono small">${s.slice_id}</span>
        <span class=${`chip ${s.action}`}>${t(`import.action.${s.action}`)}</span>
        <span class="import-conversation" title=${s.conversation}>${s.title || s.conversation}</span></li>`)}
      ${plan.planned_total > 20 && html`<li class="muted">${t("import.more", { n: plan.planned_total - 20 })}</li>`}
    </ul>`}
    ${plan.projects && plan.projects.length > 0 &&
    html`<div data-testid="import-projects"><h3 class="small">${t("import.projects")}</h3>
      <ul class="import-list">${plan.projects.map((p) => html`<li>${p.project}
        <span class="muted">${t("import.documents", { n: p.documents })}</span></li>`)}</ul></div>`}
    ${plan.memory_lines > 0 &&
    html`<p data-testid="import-memories">${t("import.memoryLines", { n: plan.memory_lines })}</p>`}
    ${plan.card_lines && plan.card_lines.length > 0 &&
    html`<div data-testid="import-card-lines"><h3 class="small">${t("import.cardLines")}</h3>
      <ul class="import-list">${plan.card_lines.map((line) => html`<li>${line}</li>`)}</ul></div>`}
    ${plan.skipped_total > 0 &&
    html`<div data-testid="import-skipped"><h3 class="small">${t("import.skipped")}</h3>
      <ul class="import-list">${Object.entries(plan.skipped_reasons).map(([why, n]) => html`<li>${n} × <${WithCode} text=${why} /></li>`)}</ul></div>`}
  </section>`;
}

/** The import page. */
export function ImportPage({ flags, t, onImported }) {
  const [file, setFile] = useState(null);
  const [format, setFormat] = useState("chatgpt");
  const [phase, setPhase] = useState("idle"); // idle | previewing | preview | importing | done | failed
  const [plan, setPlan] = useState(null);
  const [share, setShare] = useState(0);
  const [message, setMessage] = useState("");
  const [newest, setNewest] = useState(null); // the newest slice written, to open after the import
  const readOnly = Boolean(flags && flags.read_only);
  const query = () => `format=${encodeURIComponent(format)}&name=${encodeURIComponent(file.name)}`;

  const choose = (e) => {
    const f = e.currentTarget.files && e.currentTarget.files[0];
    setFile(f || null);
    if (f) setFormat(guessFormat(f.name));
    setPlan(null);
    setPhase("idle");
  };
  const fail = (text) => (setMessage(text), setPhase("failed"));

  const previewIt = async () => {
    setPhase("previewing");
    setShare(0);
    try {
      const res = await upload(`/api/import/preview?${query()}`, file, (sent) => setShare(sent));
      if (res.status !== 200) return fail(errorText(res, t));
      setPlan(JSON.parse(res.text));
      setPhase("preview");
    } catch {
      fail(t("import.failed"));
    }
  };

  const acceptIt = async () => {
    setPhase("importing");
    setShare(0);
    try {
      const path = `/api/import/accept?${query()}&digest=${encodeURIComponent(plan.digest)}`;
      const res = await upload(path, file, (sent, text) => setShare(text ? progressOf(ndjsonLines(text)) : sent * 0.1));
      if (res.status !== 200) return fail(errorText(res, t));
      const end = outcomeOf(ndjsonLines(res.text.endsWith("\n") ? res.text : `${res.text}\n`));
      if (!end || end.type === "error") return fail((end && end.message) || t("import.failed"));
      setMessage(t("import.doneText", { n: end.imported.length + end.extended.length }));
      setNewest([...end.imported, ...end.extended].sort().pop() || null);
      setPlan(null); // what would be created now is created: the preview has said its piece
      setPhase("done");
      onImported && onImported(end);
    } catch {
      fail(t("import.failed"));
    }
  };

  const busy = phase === "previewing" || phase === "importing";
  return html`<div class="import-page column" data-testid="import-page">
    <h1 class="page-title">${t("import.title")}</h1>
    <p class="muted">${t("import.subtitle")}</p>
    ${readOnly && html`<div class="banner" role="note"><${Icon} name="circle-alert" /><p>${t("import.readOnly")}</p></div>`}
    <section class="panel">
      <div class="field">
        <label for="import-file">${t("import.file")}</label>
        <input id="import-file" type="file" data-testid="import-file" accept=".zip,.json,.jsonl,.md" onChange=${choose} disabled=${busy} />
        <p class="hint">${t("import.fileHint")}</p>
      </div>
      <div class="field">
        <label for="import-format">${t("import.format")}</label>
        <select id="import-format" data-testid="import-format" value=${format} disabled=${busy}
          onChange=${(e) => (setFormat(e.currentTarget.value), setPlan(null), setPhase("idle"))}>
          ${FORMATS.map((f) => html`<option value=${f} selected=${f === format}>${t(`import.fmt.${f}`)}</option>`)}
        </select>
      </div>
      <div class="form-actions">
        <button type="button" class="ghost-btn" data-testid="import-preview-btn" disabled=${!file || busy} onClick=${previewIt}>
          <${Icon} name="search" size=${14} />${t("import.previewBtn")}
        </button>
        <button type="button" class="primary-btn" data-testid="import-accept" disabled=${!plan || !plan.writes || busy || readOnly || phase === "done"}
          onClick=${acceptIt}>${t("import.accept")}</button>
      </div>
      ${busy && html`<progress class="import-progress" data-testid="import-progress" max="1" value=${share}
        aria-label=${phase === "previewing" ? t("import.reading") : t("import.writing")}></progress>`}
      <p role="status" class=${`save-status ${phase}`} data-testid="import-status">
        ${phase === "failed" || phase === "done" ? html`<${WithCode} text=${message} />` : busy ? (phase === "previewing" ? t("import.reading") : t("import.writing")) : ""}
      </p>
    </section>
    ${phase === "done" && newest &&
    html`<p><a class="ghost-btn" href=${`#/slice/${newest}`} data-testid="import-open">${t("import.open")}</a></p>`}
    ${plan && html`<${Preview} plan=${plan} t=${t} />`}
  </div>`;
}
