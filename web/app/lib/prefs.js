// What the browser remembers between visits: theme, language and the input bar's model choices.

export const THEME_KEY = "previously:theme";
export const LOCALE_KEY = "previously:locale";
export const PREFS_KEY = "previously:prefs";
export const THEMES = ["light", "dark", "system"];

function read(storage, key) {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
}

function write(storage, key, value) {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // Storage can be unavailable (private mode); the choice then lasts for this page only.
  }
}

/** The stored theme preference (light, dark or system). */
export function loadTheme(storage) {
  const v = read(storage, THEME_KEY);
  return THEMES.includes(v) ? v : "system";
}

export function saveTheme(storage, theme) {
  write(storage, THEME_KEY, theme === "system" ? null : theme);
}

/** The next theme in the toggle's cycle: light → dark → system → light. */
export function nextTheme(theme) {
  return THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
}

/** Whether the page should be dark for a preference and the system's setting. */
export function isDark(theme, systemDark) {
  return theme === "dark" || (theme === "system" && systemDark);
}

export function loadLocale(storage) {
  return read(storage, LOCALE_KEY);
}

export function saveLocale(storage, locale) {
  write(storage, LOCALE_KEY, locale);
}

/** The input bar's stored choices: {model, thinking, effort}. */
export function loadPrefs(storage) {
  try {
    const v = JSON.parse(read(storage, PREFS_KEY) || "{}");
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

export function savePrefs(storage, prefs) {
  write(storage, PREFS_KEY, JSON.stringify(prefs));
}

/** The effort levels a model offers (DeepSeek models only low and high). */
export function effortLevels(modelId) {
  return /^deepseek/i.test(String(modelId || "")) ? ["low", "high"] : ["low", "medium", "high"];
}

/** The next effort level when the effort button is pressed. */
export function nextEffort(modelId, effort) {
  const levels = effortLevels(modelId);
  const i = levels.indexOf(effort);
  return levels[(i + 1) % levels.length];
}
