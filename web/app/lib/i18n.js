// Dictionaries and message formatting: flat dotted keys, `{name}` placeholders, `.one`/`.other` plurals.
import en from "../i18n/en.js";

// English is always there (every other dictionary falls back to it); the others load when the
// page first needs them (`loadLocale`), so a visitor downloads one language, not both.
export const DICTS = { en };
const LOADERS = { zh: () => import("../i18n/zh.js") };

/** The pseudo-locale used by tests: every UI string wrapped so untranslated text stands out. */
export const PSEUDO = "qps";

/** Normalise a language tag to one of ours ("zh-CN" → "zh", anything else → "en"). */
export function normalizeLocale(tag) {
  const s = String(tag || "").toLowerCase();
  if (s === PSEUDO) return PSEUDO;
  return s.startsWith("zh") ? "zh" : "en";
}

/** Whether `locale`'s dictionary is ready for makeT. */
export function hasLocale(locale) {
  const name = normalizeLocale(locale);
  return name === PSEUDO || Boolean(DICTS[name]) || !LOADERS[name];
}

/** Load `locale`'s dictionary (a no-op when it is there); makeT uses it from then on. */
export async function loadLocale(locale) {
  const name = normalizeLocale(locale);
  if (hasLocale(name)) return;
  DICTS[name] = (await LOADERS[name]()).default;
}

function dictFor(locale) {
  if (locale === PSEUDO) return en;
  return DICTS[locale] || en;
}

function pick(dict, key, params) {
  if (params && typeof params.count === "number") {
    const plural = params.count === 1 ? `${key}.one` : `${key}.other`;
    if (plural in dict) return dict[plural];
  }
  return dict[key];
}

/** Split a template into literal strings and `{name}` placeholders. */
export function parseTemplate(template) {
  const parts = [];
  const re = /\{(\w+)\}/g;
  let last = 0;
  let m;
  while ((m = re.exec(template))) {
    if (m.index > last) parts.push(template.slice(last, m.index));
    parts.push({ name: m[1] });
    last = re.lastIndex;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}

/** Build a translate function for a locale; unknown keys fall back to English, then to the key. */
export function makeT(locale) {
  const dict = dictFor(locale);
  const wrap = locale === PSEUDO ? (s) => `⟦${s}⟧` : (s) => s;
  function raw(key, params) {
    const template = pick(dict, key, params) ?? pick(en, key, params);
    return template === undefined ? key : template;
  }
  /** A plain string with placeholders filled in. */
  function t(key, params = {}) {
    const parts = parseTemplate(raw(key, params)).map((p) =>
      typeof p === "string" ? p : String(params[p.name] ?? ""),
    );
    return wrap(parts.join(""));
  }
  /** An array of strings and caller-supplied nodes (e.g. a rolling number in place of `{n}`). */
  t.parts = function parts(key, params = {}) {
    const out = parseTemplate(raw(key, params)).map((p) => (typeof p === "string" ? p : params[p.name]));
    if (locale === PSEUDO) return ["⟦", ...out, "⟧"];
    return out;
  };
  t.locale = locale;
  return t;
}
