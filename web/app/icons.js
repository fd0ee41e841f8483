// Inline SVG icons (lucide, vendored). Decorative unless given a label.
import { html } from "./html.js";
import ICONS from "../vendor/lucide/icons.js";

/** An icon by lucide name; `label` makes it meaningful to screen readers, otherwise it is hidden. */
export function Icon({ name, size = 16, label = null, class: cls = "" }) {
  const inner = ICONS[name] || "";
  return html`<svg
    class=${`icon ${cls}`}
    width=${size}
    height=${size}
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    stroke-width="2"
    stroke-linecap="round"
    stroke-linejoin="round"
    aria-hidden=${label ? undefined : "true"}
    role=${label ? "img" : undefined}
    aria-label=${label || undefined}
    focusable="false"
    dangerouslySetInnerHTML=${{ __html: inner }}
  ></svg>`;
}
