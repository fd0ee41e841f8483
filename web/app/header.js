// The fixed header: the name, the demo badge, search, the card, settings, theme and language.
import { useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { usePopover } from "./popover.js";
import { PersonaMenu, usePersonas } from "./persona-picker.js";

const THEME_ICON = { light: "sun", dark: "moon", system: "monitor" };

function DemoBadge({ t }) {
  const [open, setOpen] = useState(false);
  const cast = usePersonas(true);
  const wrap = useRef(null);
  const button = useRef(null);
  usePopover(open, setOpen, wrap, button);
  return html`<div class="popover-wrap demo-wrap" ref=${wrap}>
    <button
      ref=${button}
      type="button"
      class="demo-badge"
      data-testid="demo-badge"
      aria-expanded=${String(open)}
      onClick=${() => setOpen(!open)}
    >
      ${t("demo.badge")}
    </button>
    ${open &&
    html`<div class="popover down" role="dialog" aria-label=${t("demo.title")}>
      <p class="popover-title">${t("demo.title")}</p>
      <p class="muted">${t("demo.body")}</p>
      <p class="muted mono small">${t("demo.own")}</p>
      ${cast && html`<${PersonaMenu} cast=${cast} t=${t} />`}
    </div>`}
  </div>`;
}

function NavButton({ icon, label, onClick, href, testid, current }) {
  const inner = html`<${Icon} name=${icon} /><span class="nav-label">${label}</span>`;
  return href
    ? html`<a class="nav-btn" href=${href} aria-label=${label} title=${label} data-testid=${testid} aria-current=${current ? "page" : undefined}>${inner}</a>`
    : html`<button type="button" class="nav-btn" aria-label=${label} title=${label} data-testid=${testid} onClick=${onClick}>${inner}</button>`;
}

/** The header; `route` marks the current page link. */
export function Header({ t, locale, onLocale, theme, onTheme, demo, onSearch, onShortcuts, route }) {
  const themeLabel = t("theme.toggle", { theme: t(`theme.${theme}`) });
  return html`<header class="app-header" data-testid="app-header">
    <a class="logo" href="#/" aria-label=${t("nav.home")}>Previously</a>
    <nav class="header-nav" aria-label=${t("nav.label")}>
      ${demo && html`<${DemoBadge} t=${t} />`}
      <${NavButton} icon="search" label=${t("nav.search")} onClick=${onSearch} testid="open-search" />
      <${NavButton} icon="id-card" label=${t("nav.card")} href="#/card" testid="nav-card" current=${route.view === "card"} />
      <${NavButton} icon="sparkles" label=${t("evo.nav")} href="#/evolution" testid="nav-evolution" current=${route.view === "evolution"} />
      <${NavButton} icon="file-text" label=${t("import.nav")} href="#/import" testid="nav-import" current=${route.view === "import"} />
      <${NavButton} icon="settings" label=${t("nav.settings")} href="#/settings" testid="nav-settings" current=${route.view === "settings"} />
      <span class="divider" aria-hidden="true"></span>
      <button type="button" class="icon-btn theme-btn" data-testid="theme-toggle" data-theme=${theme} aria-label=${themeLabel} title=${themeLabel} onClick=${onTheme}>
        <${Icon} name=${THEME_ICON[theme]} />
      </button>
      <button
        type="button"
        class="icon-btn locale-btn"
        data-testid="locale-toggle"
        aria-label=${t("nav.language")}
        title=${t("nav.language")}
        onClick=${() => onLocale(locale === "zh" ? "en" : "zh")}
      >
        <span aria-hidden="true">${locale === "zh" ? "EN" : "中"}</span>
      </button>
      <button type="button" class="icon-btn hide-phone" aria-label=${t("nav.shortcuts")} title=${t("nav.shortcuts")} onClick=${onShortcuts}>
        <${Icon} name="keyboard" />
      </button>
    </nav>
  </header>`;
}
