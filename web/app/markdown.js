// Model and memory text as Markdown: GitHub-flavoured, sanitised, links open in a new tab,
// code blocks with a language label, a copy button and a fold for long blocks.
import { useMemo } from "preact/hooks";
import { Marked } from "marked";
import DOMPurify from "dompurify";
import { html } from "./html.js";

const FOLD_LINES = 20;

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  // A link into the page itself (a card's ref: "#/slice/…") stays in this tab.
  if (node.tagName === "A" && node.getAttribute("href") && !node.getAttribute("href").startsWith("#")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function makeParser(labels) {
  const marked = new Marked({ gfm: true, breaks: false });
  marked.use({
    renderer: {
      // Images in model or memory text are shown as links: loading them would let any text make
      // the browser fetch an outside URL (a tracking pixel, or data smuggled out in the query).
      image({ href, text }) {
        return `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`;
      },
      code({ text, lang }) {
        const language = String(lang || "").split(/\s/)[0];
        const lines = String(text).split("\n").length;
        const folded = lines > FOLD_LINES;
        const head = `<div class="code-head"><span class="code-lang">${escapeHtml(language || labels.code)}</span>`
          + `<button type="button" class="code-copy" data-copy="1">${escapeHtml(labels.copy)}</button></div>`;
        const more = folded
          ? `<button type="button" class="code-more" data-unfold="1">${escapeHtml(labels.showAll.replace("{count}", lines))}</button>`
          : "";
        return `<div class="code-block${folded ? " folded" : ""}">${head}<pre><code>${escapeHtml(text)}</code></pre>${more}</div>`;
      },
    },
  });
  return marked;
}

const parsers = new Map();

/** Markdown → sanitised HTML (pure apart from the DOM sanitiser). */
export function renderMarkdown(text, labels) {
  const key = JSON.stringify(labels);
  if (!parsers.has(key)) parsers.set(key, makeParser(labels));
  const raw = parsers.get(key).parse(String(text || ""));
  return DOMPurify.sanitize(raw, { FORBID_TAGS: ["style", "form", "img", "picture", "video", "audio", "source", "iframe"], FORBID_ATTR: ["style"] });
}

/** Markdown → the plain text a screen reader should hear. */
export function markdownToText(text) {
  const box = document.createElement("div");
  box.innerHTML = renderMarkdown(text, { copy: "", copied: "", copyFailed: "", code: "", showAll: "" });
  box.querySelectorAll(".code-head, .code-more").forEach((el) => el.remove());
  return box.textContent.replace(/\s+/g, " ").trim();
}

async function copyCode(button, labels) {
  const code = button.closest(".code-block")?.querySelector("code");
  if (!code) return;
  try {
    await navigator.clipboard.writeText(code.textContent);
    button.textContent = labels.copied;
  } catch {
    button.textContent = labels.copyFailed;
  }
  setTimeout(() => {
    button.textContent = labels.copy;
  }, 1600);
}

function onClick(e, labels) {
  const copy = e.target.closest("[data-copy]");
  if (copy) return copyCode(copy, labels);
  const unfold = e.target.closest("[data-unfold]");
  if (unfold) {
    unfold.closest(".code-block")?.classList.remove("folded");
    unfold.remove();
  }
  return undefined;
}

/** Rendered Markdown. `t` supplies the labels of the code-block buttons. */
export function Markdown({ text, t, class: cls = "" }) {
  const labels = useMemo(
    () => ({ copy: t("md.copy"), copied: t("md.copied"), copyFailed: t("md.copyFailed"), code: t("md.code"), showAll: t("md.showAll", { count: "{count}" }) }),
    [t],
  );
  const inner = useMemo(() => renderMarkdown(text, labels), [text, labels]);
  return html`<div class=${`md ${cls}`} onClick=${(e) => onClick(e, labels)} dangerouslySetInnerHTML=${{ __html: inner }}></div>`;
}
