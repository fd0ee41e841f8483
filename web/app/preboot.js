// Runs before first paint (a classic, blocking script): sets the theme class and the language so the
// page never flashes the wrong theme. Keys match web/app/lib/prefs.js.
(function () {
  var root = document.documentElement;
  var theme = null;
  var locale = null;
  try {
    theme = localStorage.getItem("previously:theme");
    locale = localStorage.getItem("previously:locale");
  } catch (e) {
    // Storage unavailable: fall back to the system theme and the browser's language.
  }
  var dark = theme === "dark" || (theme !== "light" && window.matchMedia("(prefers-color-scheme: dark)").matches);
  root.classList.toggle("dark", dark);
  var param = new URLSearchParams(location.search).get("lang");
  var lang = (param || locale || navigator.language || "en").toLowerCase();
  root.lang = lang === "qps" ? "en" : lang.indexOf("zh") === 0 ? "zh" : "en";
})();
