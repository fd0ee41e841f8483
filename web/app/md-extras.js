// What rendered Markdown needs only sometimes: code highlighting (highlight.js) and math (KaTeX).
// Both are vendored and loaded the first time a reply has a code block with a language or a
// formula, so they never weigh on the first load. Until they arrive (or if they fail) the code
// stays plain and a formula shows its TeX.

let hljsLoad = null;
let katexLoad = null;

function highlighter() {
  hljsLoad ||= import("../vendor/highlight/highlight.js").then(
    (m) => m.default,
    (err) => ((hljsLoad = null), Promise.reject(err)), // offline: try again with the next reply
  );
  return hljsLoad;
}

function typesetter() {
  if (!katexLoad) {
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = new URL("../vendor/katex/katex.css", import.meta.url).href;
    document.head.append(css);
    katexLoad = import("../vendor/katex/katex.js").then(
      (m) => m.default,
      (err) => ((katexLoad = null), css.remove(), Promise.reject(err)),
    );
  }
  return katexLoad;
}

async function highlight(blocks) {
  const hljs = await highlighter();
  for (const code of blocks) {
    const lang = code.dataset.lang;
    if (!code.isConnected || code.dataset.highlighted || !hljs.getLanguage(lang)) continue;
    // highlight.js escapes the code it wraps in its spans.
    code.innerHTML = hljs.highlight(code.textContent, { language: lang, ignoreIllegals: true }).value;
    code.dataset.highlighted = "1";
    code.classList.add("hljs");
  }
}

async function typeset(formulas) {
  const katex = await typesetter();
  for (const el of formulas) {
    if (!el.isConnected || el.dataset.typeset) continue;
    // No trust: \href, \url and friends stay inert; a bad formula shows in red, never throws.
    katex.render(el.dataset.tex, el, { displayMode: el.classList.contains("display"), throwOnError: false });
    el.dataset.typeset = "1";
  }
}

/** Highlight the code and typeset the math under `root`, loading each library on first need. */
export function enhance(root) {
  if (!root) return;
  const blocks = [...root.querySelectorAll("code[data-lang]:not([data-highlighted])")];
  const formulas = [...root.querySelectorAll(".math[data-tex]:not([data-typeset])")];
  if (blocks.length) highlight(blocks).catch(() => {});
  if (formulas.length) typeset(formulas).catch(() => {});
}
