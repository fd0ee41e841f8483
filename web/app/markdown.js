// Model and memory text as Markdown: GitHub-flavoured, sanitised, links open in a new tab,
// code blocks with a language label, a copy button and a fold for long blocks; GitHub's alerts
// (> [!NOTE]); math ($…$, $$…$$, \(…\), \[…\]) and code highlighting load when needed (md-extras.js).
import { useEffect, useMemo, useRef } from "preact/hooks";
import { Marked } from "marked";
import DOMPurify from "dompurify";
import { html } from "./html.js";
import { enhance } from "./md-extras.js";

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

const ALERTS = ["note", "tip", "important", "warning", "caution"];
const ALERT_MARK = /^<p>\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*\n?/i;

function mathHtml(tex, raw, display) {
  const tag = display ? "div" : "span";
  return `<${tag} class="math${display ? " display" : ""}" data-tex="${escapeHtml(tex)}">${escapeHtml(raw)}</${tag}>`;
}

// Inline: $…$ (not "$5 and $10": no space inside the dollars, no digit after the closing one),
// \(…\), and $$…$$ inside a line; a block: $$…$$ or \[…\] on lines of their own.
const INLINE_MATH = [/^\$\$([^$\n]+?)\$\$/, /^\\\((.+?)\\\)/, /^\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<!\s)\$(?!\d)/];
const BLOCK_MATH = [/^ {0,3}\$\$([\s\S]+?)\$\$ *(?:\n+|$)/, /^ {0,3}\\\[([\s\S]+?)\\\] *(?:\n+|$)/];

const math = [
  {
    name: "mathBlock",
    level: "block",
    start: (src) => src.match(/^ {0,3}(\$\$|\\\[)/m)?.index,
    tokenizer(src) {
      for (const re of BLOCK_MATH) {
        const m = re.exec(src);
        if (m) return { type: "mathBlock", raw: m[0], text: m[1].trim() };
      }
      return undefined;
    },
    renderer: (tok) => mathHtml(tok.text, tok.raw.trim(), true),
  },
  {
    name: "mathInline",
    level: "inline",
    start: (src) => src.match(/\$|\\\(/)?.index,
    tokenizer(src) {
      for (const re of INLINE_MATH) {
        const m = re.exec(src);
        if (m) return { type: "mathInline", raw: m[0], text: m[1] };
      }
      return undefined;
    },
    renderer: (tok) => mathHtml(tok.text, tok.raw, false),
  },
];

function makeParser(labels) {
  const marked = new Marked({ gfm: true, breaks: false });
  marked.use({ extensions: math });
  marked.use({
    renderer: {
      // GitHub's alerts: a quote that opens with [!NOTE] (TIP, IMPORTANT, WARNING, CAUTION).
      blockquote({ tokens }) {
        const body = this.parser.parse(tokens);
        const m = ALERT_MARK.exec(body);
        if (!m) return `<blockquote>\n${body}</blockquote>\n`;
        const kind = m[1].toLowerCase();
        const rest = body.slice(m[0].length).replace(/^<\/p>\s*/, "");
        const restHtml = body.slice(m[0].length).startsWith("</p>") ? rest : `<p>${rest}`;
        return `<div class="md-alert md-alert-${kind}" role="note"><p class="md-alert-title">${escapeHtml(labels.alerts[kind])}</p>${restHtml}</div>\n`;
      },
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
        const tagged = /^[\w+#.-]{1,30}$/.test(language) ? ` data-lang="${escapeHtml(language.toLowerCase())}"` : "";
        return `<div class="code-block${folded ? " folded" : ""}">${head}<pre><code${tagged}>${escapeHtml(text)}</code></pre>${more}</div>`;
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
  const alerts = Object.fromEntries(ALERTS.map((k) => [k, ""]));
  box.innerHTML = renderMarkdown(text, { copy: "", copied: "", copyFailed: "", code: "", showAll: "", alerts });
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
    () => ({
      copy: t("md.copy"),
      copied: t("md.copied"),
      copyFailed: t("md.copyFailed"),
      code: t("md.code"),
      showAll: t("md.showAll", { count: "{count}" }),
      alerts: Object.fromEntries(ALERTS.map((k) => [k, t(`md.alert.${k}`)])),
    }),
    [t],
  );
  const inner = useMemo(() => renderMarkdown(text, labels), [text, labels]);
  const box = useRef(null);
  useEffect(() => enhance(box.current), [inner]);
  return html`<div ref=${box} class=${`md ${cls}`} onClick=${(e) => onClick(e, labels)} dangerouslySetInnerHTML=${{ __html: inner }}></div>`;
}
