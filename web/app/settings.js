// Settings: slicing thresholds, models, memory language (memory/user/config.json via the API) and
// this browser's theme. Values are checked before they are sent; read-only memory cannot be saved.
import { useEffect, useRef, useState } from "preact/hooks";
import { rebaseForm } from "./lib/form.js";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { NotifySetting } from "./pwa.js";
import { api } from "./api.js";
import { unwrapConfig } from "./app-data.js";

export const LIMITS = {
  maxSliceMinutes: { min: 5, max: 120, fallback: 30 },
  maxTurnsPerSlice: { min: 5, max: 100, fallback: 50 },
};

/** An error key for a slicing value, or null when it is a whole number within its limits. */
export function checkLimit(name, raw) {
  const { min, max } = LIMITS[name];
  const text = String(raw).trim();
  if (!/^\d+$/.test(text)) return "settings.errWhole";
  const v = Number(text);
  return v < min || v > max ? "settings.errRange" : null;
}

function problemText(problem) {
  if (typeof problem === "string") return problem;
  return [problem.field, problem.message].filter(Boolean).join(": ");
}

function fromConfig(config) {
  const slicing = (config && config.slicing) || {};
  const model = (config && config.model) || {};
  const worker = (config && config.worker) || {};
  return {
    maxSliceMinutes: String(slicing.maxSliceMinutes ?? LIMITS.maxSliceMinutes.fallback),
    maxTurnsPerSlice: String(slicing.maxTurnsPerSlice ?? LIMITS.maxTurnsPerSlice.fallback),
    main: model.main && model.main !== "auto" ? model.main : "",
    worker: model.worker || (worker.mode === "manual" ? worker.provider : "") || "auto",
    thinking: model.thinking !== false,
    effort: model.effort || model.reasoningEffort || "medium",
    locale: (config && config.locale) || "en",
  };
}

function NumberField({ name, value, onInput, t }) {
  const { min, max } = LIMITS[name];
  const err = checkLimit(name, value);
  const id = `set-${name}`;
  return html`<div class="field">
    <label for=${id}>${t(`settings.${name}`)}</label>
    <input id=${id} name=${name} type="number" inputmode="numeric" min=${min} max=${max} step="1" value=${value}
      aria-invalid=${err ? "true" : "false"} aria-describedby=${`${id}-hint`} onInput=${(e) => onInput(name, e.currentTarget.value)} />
    <p id=${`${id}-hint`} class=${`hint ${err ? "error" : ""}`}>${err ? t(err, { min, max }) : t("settings.range", { min, max })}</p>
  </div>`;
}

function Select({ id, label, value, options, onChange }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <select id=${id} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      ${options.map(([v, text]) => html`<option value=${v} selected=${v === value}>${text}</option>`)}
    </select>
  </div>`;
}

function useSaver(t) {
  const [status, setStatus] = useState("idle");
  const [message, setMessage] = useState("");
  useEffect(() => {
    if (status !== "saved") return undefined;
    const timer = setTimeout(() => setStatus("idle"), 2500);
    return () => clearTimeout(timer);
  }, [status]);
  const label = { idle: t("settings.save"), saving: t("settings.saving"), saved: t("settings.saved"), failed: t("settings.save") }[status];
  return { status, setStatus, message, setMessage, label };
}

function TextModel({ id, label, value, placeholder, list, hint, onInput }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input id=${id} type="text" list=${list} value=${value} placeholder=${placeholder} maxlength="128" autocomplete="off" spellcheck="false"
      aria-describedby=${`${id}-hint`} onInput=${(e) => onInput(e.currentTarget.value.trim())} />
    <p id=${`${id}-hint`} class="hint">${hint}</p>
  </div>`;
}

/** "Now: gpt-5.5 (from PREVIOUSLY_MODEL)" — the model a turn would get, and why. */
function resolvedLine(chosen, t) {
  if (!chosen) return t("settings.noModel");
  return t("settings.resolved", { id: chosen.id, source: t(`settings.source.${chosen.source || "default"}`) });
}

/** Each provider Previously knows: set up (and what its server said) or the variable that turns it on. */
function ProviderStates({ models, t }) {
  const details = Object.fromEntries(((models && models.provider_details) || []).map((p) => [p.id, p]));
  const presets = (models && models.presets) || [];
  const server = details.openai && details.openai.state && details.openai.state !== "key_set" ? details.openai : null;
  return html`<div class="field" data-testid="provider-states">
    <p class="field-label">${t("settings.providers")}</p>
    <ul class="provider-states small">
      ${server && html`<li data-provider="compatible" data-state=${server.state}><strong>${server.name}</strong> — ${server.detail}</li>`}
      ${presets.filter((p) => !(server && p.id === "openai")).map((p) => html`<li data-provider=${p.id} data-state=${p.configured ? "key_set" : "not_set"}>
        <strong>${p.name}</strong> — ${p.configured ? t("settings.providerReady", { env: (details[p.id] || {}).env || p.env[0] }) : t("settings.providerOff", { env: p.env[0] })}
      </li>`)}
    </ul>
  </div>`;
}

function ModelFields({ form, set, models, t }) {
  const ids = ((models && models.models) || []).map((m) => m.id);
  return html`<fieldset class="panel">
    <legend>${t("settings.models")}</legend>
    <datalist id="model-ids">${ids.map((id) => html`<option value=${id} />`)}</datalist>
    <${TextModel} id="set-main" label=${t("settings.mainModel")} value=${form.main} list="model-ids"
      placeholder=${t("settings.auto")} hint=${resolvedLine(models && models.main_model, t)} onInput=${(v) => set("main", v)} />
    <${TextModel} id="set-worker" label=${t("settings.workerModel")} value=${form.worker === "auto" ? "" : form.worker} list="model-ids"
      placeholder=${t("settings.auto")} hint=${resolvedLine(models && models.worker_model, t)} onInput=${(v) => set("worker", v || "auto")} />
    <p class="muted small">${t("settings.modelHint")}</p>
    <label class="switch-row"><span>${t("settings.thinking")}</span>
      <input type="checkbox" role="switch" checked=${form.thinking} onChange=${(e) => set("thinking", e.currentTarget.checked)} /></label>
    <${Select} id="set-effort" label=${t("settings.effort")} value=${form.effort}
      options=${["low", "medium", "high"].map((v) => [v, t(`input.effort.${v}`)])} onChange=${(v) => set("effort", v)} />
    <${ProviderStates} models=${models} t=${t} />
  </fieldset>`;
}

/** Why saving is off (read-only) or temporary (demo), and stored values the server could not use. */
function Notices({ readOnly, demo, problems, t }) {
  return html`${(readOnly || demo) &&
    html`<div class="banner" role="note" data-testid="read-only-banner">
      <${Icon} name="circle-alert" /><p>${readOnly ? t("settings.readOnly") : t("settings.demo")}</p>
    </div>`}
    ${problems.length > 0 &&
    html`<div class="banner" role="note" data-testid="config-problems">
      <${Icon} name="triangle-alert" />
      <div><p>${t("settings.problems")}</p>${problems.map((p) => html`<p class="mono small">${problemText(p)}</p>`)}</div>
    </div>`}`;
}

/** The settings page. */
export function Settings({ config, models, flags, t, theme, onTheme, onConfigSaved, onSignOut }) {
  const [form, setForm] = useState(() => fromConfig(config));
  const stored = useRef(form);
  const saver = useSaver(t);
  // New stored settings (a save answered): what the user typed meanwhile stays.
  useEffect(() => {
    const next = fromConfig(config);
    setForm((f) => rebaseForm(f, stored.current, next));
    stored.current = next;
  }, [config]);
  const readOnly = Boolean(flags && flags.read_only);
  const invalid = Boolean(checkLimit("maxSliceMinutes", form.maxSliceMinutes) || checkLimit("maxTurnsPerSlice", form.maxTurnsPerSlice));
  const set = (name, value) => setForm({ ...form, [name]: value });

  const save = async (e) => {
    e.preventDefault();
    if (invalid || readOnly) return;
    saver.setStatus("saving");
    const patch = {
      slicing: { maxSliceMinutes: Number(form.maxSliceMinutes), maxTurnsPerSlice: Number(form.maxTurnsPerSlice) },
      model: { main: form.main || "auto", worker: form.worker, thinking: form.thinking, effort: form.effort },
      locale: form.locale,
    };
    try {
      const saved = unwrapConfig(await api.patch("/api/config", patch));
      saver.setStatus("saved");
      onConfigSaved(saved.slicing ? saved : patch);
    } catch (err) {
      saver.setMessage(err.message || "");
      saver.setStatus("failed");
    }
  };

  return html`<div class="settings column" data-testid="settings">
    <h1 class="page-title">${t("settings.title")}</h1>
    <p class="muted">${t("settings.subtitle")}</p>
    <${Notices} readOnly=${readOnly} demo=${Boolean(flags && flags.demo)} problems=${(config && config.problems) || []} t=${t} />
    <fieldset class="panel">
      <legend>${t("settings.appearance")}</legend>
      <p class="muted small">${t("settings.appearanceHint")}</p>
      <${Select} id="set-theme" label=${t("settings.theme")} value=${theme}
        options=${["light", "dark", "system"].map((v) => [v, t(`theme.${v}`)])} onChange=${onTheme} />
      <${NotifySetting} t=${t} />
    </fieldset>
    <form class="settings-form" data-testid="settings-form" onSubmit=${save} novalidate>
      <fieldset class="panel">
        <legend>${t("settings.slicing")}</legend>
        <p class="muted small">${t("settings.slicingHint")}</p>
        <${NumberField} name="maxSliceMinutes" value=${form.maxSliceMinutes} onInput=${set} t=${t} />
        <${NumberField} name="maxTurnsPerSlice" value=${form.maxTurnsPerSlice} onInput=${set} t=${t} />
      </fieldset>
      <${ModelFields} form=${form} set=${set} models=${models} t=${t} />
      <fieldset class="panel">
        <legend>${t("settings.language")}</legend>
        <${Select} id="set-locale" label=${t("settings.memoryLanguage")} value=${form.locale}
          options=${[["en", "English"], ["zh", "中文"]]} onChange=${(v) => set("locale", v)} />
        <p class="muted small">${t("settings.languageHint")}</p>
      </fieldset>
      <div class="form-actions">
        <button type="submit" class="primary-btn" data-testid="settings-save" disabled=${invalid || readOnly || saver.status === "saving"}>${saver.label}</button>
        <span class=${`save-status ${saver.status}`} role="status">${saver.status === "failed" ? `${t("settings.failed")} ${saver.message}` : ""}</span>
      </div>
    </form>
    <fieldset class="panel" data-testid="export-panel">
      <legend>${t("settings.export")}</legend>
      <p class="muted small">${t("settings.exportHint")}</p>
      <a class="ghost-btn" data-testid="export-download" href="/api/export" download>
        <${Icon} name="folder" size=${14} />${t("settings.exportButton")}
      </a>
    </fieldset>
    ${flags && flags.auth_required &&
    html`<fieldset class="panel">
      <legend>${t("settings.session")}</legend>
      <button type="button" class="ghost-btn" onClick=${onSignOut}><${Icon} name="log-out" size=${14} />${t("settings.signOut")}</button>
    </fieldset>`}
  </div>`;
}
