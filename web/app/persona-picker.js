// The demo's persona picker: in a demo with several personas the briefing's name is a button
// that opens a dialog of persona cards; picking one remembers it in the cookie the server reads
// (GET /api/demo/personas names it) and reloads the page, so every view reads the new persona.
// A link may name the persona too (app/persona-link.js, loaded only then).
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { Dialog } from "./dialog.js";
import { api } from "./api.js";

const YEAR_SECONDS = 365 * 24 * 3600;

/** Remember `id` for every later request (the API, the WebSocket and the offline copy). */
export function rememberPersona(cookie, id) {
  document.cookie = `${cookie}=${encodeURIComponent(id)}; path=/; max-age=${YEAR_SECONDS}; SameSite=Lax`;
}

/** Remember `id`, then reload so every view reads that persona. */
export function choosePersona(cookie, id) {
  rememberPersona(cookie, id);
  globalThis.location.reload();
}

let urlNotice = null; // what became of a demo link's unknown `?persona=` (app/persona-link.js)
export const setUrlNotice = (notice) => (urlNotice = notice);

/** The notice an address naming no such persona leaves (the page stays on the current one). */
export function PersonaUrlNotice({ t }) {
  const [notice, setNotice] = useState(urlNotice);
  if (!notice) return null;
  const close = () => ((urlNotice = null), setNotice(null));
  return html`<p class="offline-bar persona-url-notice" role="alert" data-testid="persona-notice">
    <span>${t(notice.key, { id: notice.id })}</span>
    <button type="button" class="link-btn" onClick=${close}>${t("common.close")}</button>
  </p>`;
}

function span(p, t) {
  if (!p.first || !p.last) return t("persona.count", { count: p.slice_count, n: p.slice_count });
  const range = `${p.first.slice(0, 7).replace("-", "/")} – ${p.last.slice(0, 7).replace("-", "/")}`;
  return `${t("persona.count", { count: p.slice_count, n: p.slice_count })} · ${range}`;
}

function PersonaCard({ p, current, t, onPick }) {
  const blurb = p.blurb[t.locale] || p.blurb.en || "";
  return html`<li>
    <button
      type="button"
      class=${`persona-card ${current ? "current" : ""}`}
      data-testid="persona-option"
      data-persona=${p.id}
      aria-current=${current ? "true" : undefined}
      onClick=${() => onPick(p.id)}
    >
      <span class="persona-name">${p.name}${current && html`<span class="persona-now">${t("persona.current")}</span>`}</span>
      ${blurb && html`<span class="persona-blurb">${blurb}</span>`}
      <span class="persona-span mono">${span(p, t)}</span>
    </button>
  </li>`;
}

let personas = null; // one request for the header and the briefing (a switch reloads the page)

/** The demo's personas (`GET /api/demo/personas`), or null outside a demo or with only one. */
export function usePersonas(demo) {
  const [cast, setCast] = useState(null);
  useEffect(() => {
    if (!demo) return;
    personas ??= api.get("/api/demo/personas");
    personas.then((c) => setCast(c && c.personas.length > 1 ? c : null)).catch(() => ((personas = null), setCast(null)));
  }, [demo]);
  return cast;
}

/** The header's demo popover: one button per persona, the current one marked. */
export function PersonaMenu({ cast, t }) {
  return html`<div class="persona-menu" data-testid="persona-menu">
    <p class="popover-title">${t("persona.switch")}</p>
    <ul>
      ${cast.personas.map(
        (p) => html`<li>
          <button
            type="button"
            class="link-btn"
            data-persona=${p.id}
            aria-current=${p.id === cast.current ? "true" : undefined}
            disabled=${p.id === cast.current}
            onClick=${() => choosePersona(cast.cookie, p.id)}
          >
            ${p.name}${p.id === cast.current ? ` · ${t("persona.current")}` : ""}
          </button>
        </li>`,
      )}
    </ul>
  </div>`;
}

/** The briefing's name: a plain heading, or in a multi-persona demo a button opening the picker. */
export function PersonaName({ name, demo, t }) {
  const cast = usePersonas(demo);
  const [open, setOpen] = useState(false);
  if (!cast) {
    return html`<h1 class="brief-name" data-testid="briefing-name">${name}</h1>`;
  }
  const pick = (id) => (id === cast.current ? setOpen(false) : choosePersona(cast.cookie, id));
  return html`<h1 class="brief-name">
      <button
        type="button"
        class="persona-switch"
        data-testid="persona-switch"
        aria-haspopup="dialog"
        title=${t("persona.switch")}
        onClick=${() => setOpen(true)}
      >
        <span data-testid="briefing-name">${name}</span><${Icon} name="chevron-down" size=${22} />
        <span class="sr-only">${t("persona.switch")}</span>
      </button>
    </h1>
    <${Dialog}
      open=${open}
      onClose=${() => setOpen(false)}
      title=${t("persona.title")}
      icon="id-card"
      testid="persona-dialog"
      closeLabel=${t("common.close")}
      wide=${true}
    >
      <p class="muted">${t("persona.body")}</p>
      <ul class="persona-grid">
        ${cast.personas.map((p) => html`<${PersonaCard} p=${p} current=${p.id === cast.current} t=${t} onPick=${pick} />`)}
      </ul>
    </${Dialog}>`;
}
