// Theme, language and the input bar's model choices: remembered in this browser, seeded from
// memory/user/config.json, and written back to it when the memory is writable.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api.js";
import { PSEUDO, normalizeLocale } from "./lib/i18n.js";
import * as prefs from "./lib/prefs.js";

function store() {
  try {
    return globalThis.localStorage;
  } catch {
    return { getItem: () => null, setItem() {}, removeItem() {} };
  }
}

function urlLocale() {
  const param = new URLSearchParams(location.search).get("lang");
  return param ? normalizeLocale(param) : null;
}

function initialLocale() {
  const fromUrl = urlLocale();
  // A language asked for in the URL sticks (the pseudo-locale of the tests does not).
  if (fromUrl && fromUrl !== PSEUDO) prefs.saveLocale(store(), fromUrl);
  const stored = prefs.loadLocale(store());
  return fromUrl || (stored && normalizeLocale(stored)) || normalizeLocale(navigator.language);
}

function applyTheme(theme) {
  const root = document.documentElement;
  root.classList.add("no-transitions");
  root.classList.toggle("dark", prefs.isDark(theme, matchMedia("(prefers-color-scheme: dark)").matches));
  requestAnimationFrame(() => requestAnimationFrame(() => root.classList.remove("no-transitions")));
}

/** The request fields that come from preferences (docs/API.md "Turns": the turn body). */
function options(state, locale, models) {
  const out = { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC", locale: locale === "zh" ? "zh" : "en" };
  const known = !models || !models.models || models.models.some((m) => m.id === state.model);
  if (state.model && known) out.model = state.model;
  if (typeof state.thinking === "boolean") out.thinking = state.thinking;
  if (state.effort) out.effort = state.effort;
  return out;
}

export function usePreferences() {
  const [locale, setLocaleState] = useState(initialLocale);
  const [theme, setThemeState] = useState(() => prefs.loadTheme(store()));
  const [choice, setChoice] = useState(() => ({ thinking: true, effort: "medium", ...prefs.loadPrefs(store()) }));
  // Saves go one after another: two clicks in quick succession must reach config.json in the order
  // they were made, or the earlier choice could land last and win.
  const saving = useRef(Promise.resolve());

  useEffect(() => {
    document.documentElement.lang = locale === PSEUDO ? "en" : locale;
  }, [locale]);

  useEffect(() => {
    applyTheme(theme);
    if (theme !== "system") return undefined;
    const mq = matchMedia("(prefers-color-scheme: dark)");
    const on = () => applyTheme("system");
    mq.addEventListener("change", on);
    return () => mq.removeEventListener("change", on);
  }, [theme]);

  const setLocale = (next) => {
    prefs.saveLocale(store(), next);
    if (urlLocale()) {
      const url = new URL(location.href);
      url.searchParams.delete("lang");
      history.replaceState(null, "", url);
    }
    setLocaleState(next);
  };
  const setTheme = (next) => {
    prefs.saveTheme(store(), next);
    setThemeState(next);
  };

  /** Take language and model defaults from config.json, unless this browser chose otherwise. */
  const adoptConfig = (config, explicit = false) => {
    if (!config) return;
    const stored = prefs.loadPrefs(store());
    const model = config.model || {};
    setChoice((c) => ({
      ...c,
      thinking: explicit || stored.thinking === undefined ? model.thinking ?? c.thinking : c.thinking,
      effort: explicit || stored.effort === undefined ? model.effort || model.reasoningEffort || c.effort : c.effort,
      model: explicit || stored.model === undefined ? (model.main && model.main !== "auto" ? model.main : c.model) : c.model,
    }));
    // The default demo persona's locale is not the visitor's: there the browser's language stays.
    // A persona the visitor picked (the picker's cookie) is shown in its own language.
    const picked = /(?:^|;\s*)previously_persona=/.test(globalThis.document ? document.cookie : "");
    const visitor = config.datasource === "demo" && !explicit && !picked;
    if (config.locale && !visitor && (explicit || (!urlLocale() && !prefs.loadLocale(store())))) {
      if (explicit) prefs.saveLocale(store(), normalizeLocale(config.locale));
      setLocaleState(normalizeLocale(config.locale));
    }
  };

  const updatePrefs = (patch, flags) => {
    const next = { ...choice, ...patch };
    setChoice(next);
    prefs.savePrefs(store(), next);
    if (flags && flags.read_only) return;
    const model = {};
    if ("model" in patch) model.main = patch.model;
    if ("thinking" in patch) model.thinking = patch.thinking;
    if ("effort" in patch) model.effort = patch.effort;
    saving.current = saving.current.then(() => api.patch("/api/config", { model }).catch(() => {}));
  };

  return {
    locale,
    setLocale,
    theme,
    setTheme,
    cycleTheme: () => setTheme(prefs.nextTheme(theme)),
    prefs: choice,
    updatePrefs,
    adoptConfig,
    requestOptions: (models) => options(choice, locale, models),
  };
}
