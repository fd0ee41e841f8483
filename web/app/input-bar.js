// The input bar: the message box (Enter sends, Shift+Enter adds a line), the model picker with
// the thinking switch, the effort control, and Send / Stop.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { nextEffort } from "./lib/prefs.js";
import { usePopover } from "./popover.js";
import { addImages, Thumbs } from "./attachments.js";

const DRAFT_KEY = "previously:draft";
const MAX_HEIGHT = 160;

function loadDraft() {
  try {
    return localStorage.getItem(DRAFT_KEY) || "";
  } catch {
    return "";
  }
}

function saveDraft(text) {
  try {
    if (text) localStorage.setItem(DRAFT_KEY, text);
    else localStorage.removeItem(DRAFT_KEY);
  } catch {
    // The draft is a convenience; without storage it lives as long as the page.
  }
}

function groupByProvider(models) {
  const groups = new Map();
  for (const m of models) {
    if (!groups.has(m.provider)) groups.set(m.provider, []);
    groups.get(m.provider).push(m);
  }
  return [...groups.entries()];
}

export function ModelSelector({ models, current, thinking, onPick, onThinking, t }) {
  const [open, setOpen] = useState(false);
  const wrap = useRef(null);
  const button = useRef(null);
  usePopover(open, setOpen, wrap, button);
  const list = (models && models.models) || [];
  const active = list.find((m) => m.id === current) || list[0];
  if (!active) return html`<span class="muted small" data-testid="model-selector">${t("input.noModel")}</span>`;
  return html`<div class="popover-wrap" ref=${wrap}>
    <button
      ref=${button}
      type="button"
      class="tool-btn"
      data-testid="model-selector"
      aria-haspopup="dialog"
      aria-expanded=${String(open)}
      aria-label=${t("input.modelLabel", { name: active.name })}
      onClick=${() => setOpen(!open)}
    >
      <span class="model-name">${active.name}</span><${Icon} name="chevron-down" size=${12} />
    </button>
    ${open &&
    html`<div class="popover up" role="dialog" aria-label=${t("input.modelTitle")}>
      ${groupByProvider(list).map(
        ([provider, ms]) => html`<fieldset class="model-group">
          <legend>${provider}</legend>
          ${ms.map(
            (m) => html`<label class="model-option">
              <input type="radio" name="model" value=${m.id} checked=${m.id === active.id} onChange=${() => onPick(m)} />
              <span>${m.name}</span>
              ${m.id === active.id && html`<${Icon} name="check" size=${14} />`}
            </label>`,
          )}
        </fieldset>`,
      )}
      ${active.supports_thinking !== false &&
      html`<label class="switch-row">
        <span>${t("input.thinking")}</span>
        <input type="checkbox" role="switch" checked=${thinking} onChange=${(e) => onThinking(e.currentTarget.checked)} />
      </label>`}
    </div>`}
  </div>`;
}

function useAutoGrow(ref, value) {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(MAX_HEIGHT, el.scrollHeight)}px`;
  }, [value]);
}

/** The bar. `prefs` = {model, thinking, effort}; `onPrefs(patch)` saves a change. */
export function InputBar({ t, running, onSend, onStop, models, prefs, onPrefs, disabledReason, inputRef }) {
  const [text, setText] = useState(loadDraft);
  // Enter while a turn runs queues the message (it stays in the box, editable) until the turn ends.
  const [queued, setQueued] = useState(false);
  const [images, setImages] = useState([]);
  const [problem, setProblem] = useState("");
  const picker = useRef(null);
  const area = useRef(null);
  useAutoGrow(area, text);
  const empty = !text.trim() && images.length === 0; // a picture may be sent on its own
  const modelId = prefs.model || (models && models.main) || null;
  // A model the server knows cannot see images gets no pictures: attach says why instead. A model
  // it does not know (not curated) is trusted to see them, as the server does (core/llm/registry.py).
  const active = ((models && models.models) || []).find((m) => m.id === modelId);
  const blind = Boolean(active && active.supports_vision === false && active.curated !== false);
  const blindReason = blind ? t("attach.blind", { name: active.name }) : "";

  const submit = () => {
    if (empty || disabledReason) return;
    if (running) {
      setQueued(true);
      return;
    }
    if (onSend(text, images)) {
      setText("");
      saveDraft("");
      setImages([]);
      setProblem("");
    }
  };
  // Pictures are read one pick (or paste, or drop) after another, each added to the list as it is
  // then: two picks close together both stay attached, and one removed meanwhile stays removed.
  const pending = useRef(Promise.resolve());
  const imagesNow = useRef(images);
  imagesNow.current = images;
  const attach = (files) => {
    if (blind) return (setProblem(blindReason), pending.current);
    const list = [...files];
    pending.current = pending.current
      .then(async () => {
        const before = imagesNow.current;
        const added = await addImages(before, list, t);
        const fresh = added.images.slice(before.length);
        setImages((current) => (imagesNow.current = [...current, ...fresh]));
        setProblem(added.problem);
      })
      .catch(() => setProblem(t("attach.unreadable")));
    return pending.current;
  };
  const onPaste = (e) => {
    const files = [...(e.clipboardData?.files || [])];
    if (files.length) {
      e.preventDefault();
      attach(files);
    }
  };
  const onDrop = (e) => {
    const files = [...(e.dataTransfer?.files || [])];
    if (files.length) {
      e.preventDefault();
      attach(files);
    }
  };
  useEffect(() => {
    if (running || !queued) return;
    setQueued(false);
    submit();
  }, [running]);
  const onKeyDown = (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    } else if (e.key === "Escape") {
      e.currentTarget.blur();
    }
  };
  const onInput = (e) => {
    setText(e.currentTarget.value);
    saveDraft(e.currentTarget.value);
  };

  return html`<form class="input-bar" data-testid="chat-input" onSubmit=${(e) => (e.preventDefault(), submit())}
    onDragOver=${(e) => e.preventDefault()} onDrop=${onDrop}>
    <${Thumbs} images=${images} t=${t} onRemove=${(i) => setImages(images.filter((_, j) => j !== i))} />
    ${problem && html`<p class="hint error" role="alert" data-testid="attach-error">${problem}</p>`}
    <label class="sr-only" for="message-box">${t("input.label")}</label>
    <textarea
      id="message-box"
      ref=${(el) => {
        area.current = el;
        if (inputRef) inputRef.current = el;
      }}
      rows="1"
      placeholder=${disabledReason || t("input.placeholder")}
      value=${text}
      onInput=${onInput}
      onKeyDown=${onKeyDown}
      onPaste=${onPaste}
      enterkeyhint="send"
    ></textarea>
    ${queued &&
    html`<p class="input-queued" role="status" data-testid="queued">
      <${Icon} name="clock" size=${12} />${t("input.queued")}
      <button type="button" class="link-btn" onClick=${() => setQueued(false)}>${t("input.unqueue")}</button>
    </p>`}
    <div class="input-tools">
      <${ModelSelector}
        models=${models}
        current=${modelId}
        thinking=${prefs.thinking !== false}
        onPick=${(m) => onPrefs({ model: m.id, effort: m.default_effort || prefs.effort })}
        onThinking=${(on) => onPrefs({ thinking: on })}
        t=${t}
      />
      <button
        type="button"
        class="tool-btn"
        data-testid="effort"
        data-effort=${prefs.effort}
        aria-label=${t("input.effortLabel", { level: t(`input.effort.${prefs.effort}`) })}
        title=${t("input.effortHint")}
        onClick=${() => onPrefs({ effort: nextEffort(modelId, prefs.effort) })}
      >
        <${Icon} name="zap" size=${14} /><span>${t(`input.effort.${prefs.effort}`)}</span>
      </button>
      <input ref=${picker} type="file" accept="image/png,image/jpeg,image/webp,image/gif" multiple hidden
        data-testid="attach-input" onChange=${(e) => (attach(e.currentTarget.files), (e.currentTarget.value = ""))} />
      <button type="button" class="tool-btn" data-testid="attach" title=${blind ? blindReason : t("attach.hint")}
        aria-disabled=${blind ? "true" : undefined} onClick=${() => (blind ? setProblem(blindReason) : picker.current?.click())}>
        <span>${t("attach.button")}</span>
      </button>
      <a class="tool-btn icon-only" href="#/settings" aria-label=${t("nav.settings")} title=${t("nav.settings")}>
        <${Icon} name="settings" size=${14} />
      </a>
      <span class="spacer"></span>
      ${running
        ? html`<button type="button" class="send stop" data-testid="stop" aria-label=${t("input.stop")} title=${t("input.stop")} onClick=${onStop}>
            <${Icon} name="square" size=${14} />
          </button>`
        : html`<button
            type="submit"
            class="send"
            data-testid="send"
            aria-label=${t("input.send")}
            title=${t("input.send")}
            disabled=${empty || Boolean(disabledReason)}
          >
            <${Icon} name="arrow-up" size=${16} />
          </button>`}
    </div>
  </form>`;
}
