// The sign-in page: trade the access key for a session cookie, then go back where the user was.
import { loadLocale, makeT, normalizeLocale } from "./lib/i18n.js";
import { safeNext } from "./lib/urls.js";

const lang = normalizeLocale(document.documentElement.lang);
await loadLocale(lang).catch(() => {}); // offline and not cached: English
const t = makeT(lang);
for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
document.title = `${t("signin.title")} — Previously`;

const form = document.getElementById("sign-in-form");
const input = document.getElementById("key");
const error = document.getElementById("sign-in-error");
const button = form.querySelector("button");
input.focus();

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const key = input.value.trim();
  if (!key) return input.focus();
  button.disabled = true;
  button.textContent = t("signin.working");
  error.textContent = "";
  try {
    const res = await fetch("/api/auth/sign-in", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ key }),
    });
    if (res.ok) {
      location.assign(safeNext(new URLSearchParams(location.search).get("next")));
      return;
    }
    error.textContent = res.status === 429 ? t("signin.throttled") : t("signin.wrong");
  } catch {
    error.textContent = t("signin.failed");
  }
  button.disabled = false;
  button.textContent = t("signin.submit");
  input.select();
});
