// Above the wheel: filter by strand, and open search / jump to a date.
import { useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { Icon } from "./icons.js";
import { usePopover } from "./popover.js";

/** The toolbar; `counts` maps strand → how many slices it names, `strand` is the active filter (or null). */
export function WheelToolbar({ counts, strand, onStrand, onSearch, t, phone }) {
  const [open, setOpen] = useState(false);
  const wrap = useRef(null);
  const button = useRef(null);
  usePopover(open, setOpen, wrap, button);
  const names = Object.keys(counts || {}).sort((a, b) => counts[b] - counts[a] || a.localeCompare(b));
  const label = strand ? `#${strand}` : t("wheel.allStrands");
  const pick = (name) => {
    onStrand(name);
    setOpen(false);
    button.current && button.current.focus();
  };
  return html`<div class="wheel-toolbar">
    <div class="popover-wrap" ref=${wrap}>
      <button
        ref=${button}
        type="button"
        class=${`tool-btn ${strand ? "active" : ""}`}
        data-testid="strand-filter"
        aria-haspopup="dialog"
        aria-expanded=${String(open)}
        aria-label=${t("wheel.filterLabel", { current: label })}
        title=${t("wheel.filterLabel", { current: label })}
        disabled=${names.length === 0}
        onClick=${() => setOpen(!open)}
      >
        <${Icon} name="funnel" size=${14} />${!phone && html`<span class="filter-name">${label}</span>`}
      </button>
      ${open &&
      html`<div class="popover down strand-menu" role="dialog" aria-label=${t("wheel.filterTitle")}>
        <fieldset>
          <legend class="sr-only">${t("wheel.filterTitle")}</legend>
          <label class="model-option"><input type="radio" name="strand" checked=${!strand} onChange=${() => pick(null)} /><span>${t("wheel.allStrands")}</span></label>
          ${names.map(
            (name) => html`<label class="model-option">
              <input type="radio" name="strand" checked=${strand === name} onChange=${() => pick(name)} />
              <span>#${name}</span><span class="muted small">${counts[name]}</span>
            </label>`,
          )}
        </fieldset>
      </div>`}
    </div>
    ${!phone &&
    html`<button type="button" class="tool-btn" onClick=${onSearch} aria-label=${t("wheel.jump")} title=${t("wheel.jump")}>
      <${Icon} name="calendar-days" size=${14} />
    </button>`}
  </div>`;
}
