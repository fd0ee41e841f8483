// The time-travel transition: a clock that rolls from where you are to the slice's moment, under
// "PREVIOUSLY ON {NAME}". Skipped entirely when the user prefers reduced motion; any key or click
// skips it too.
import { useEffect } from "preact/hooks";
import { html } from "./html.js";
import { Rolling } from "./rolling.js";
import { fields, fullStamp, relativeBetween } from "./lib/time.js";

// Short enough not to tax someone who opens many slices a session (docs/UI.md "The December audit", D17).
export const SETTLE_MS = 550;
export const HOLD_MS = 300;

function Clock({ fromMs, toMs }) {
  const a = fields(fromMs);
  const b = fields(toMs);
  const roll = (key, width) => html`<${Rolling} from=${a[key]} value=${b[key]} width=${width} duration=${SETTLE_MS} />`;
  return html`<div class="travel-clock" aria-hidden="true">
    ${roll("year", 4)}<span>/</span>${roll("month", 1)}<span>/</span>${roll("day", 2)}
    <span class="gap"></span>${roll("hour", 2)}<span>:</span>${roll("minute", 2)}
  </div>`;
}

/** The overlay; calls onDone when the clock has settled and held (or when skipped). */
export function TimeTravel({ fromMs, toMs, nowMs, isNow, name, t, onDone }) {
  useEffect(() => {
    const timer = setTimeout(onDone, SETTLE_MS + HOLD_MS);
    const skip = (e) => {
      if (e.type === "keydown" && ["Shift", "Control", "Alt", "Meta"].includes(e.key)) return;
      onDone();
    };
    window.addEventListener("keydown", skip, { once: true });
    return () => {
      clearTimeout(timer);
      window.removeEventListener("keydown", skip);
    };
  }, []);

  const rel = relativeBetween(toMs, nowMs);
  const title = isNow
    ? t("travel.now")
    : t.parts(rel.key, { count: rel.n, n: html`<${Rolling} from=${0} value=${rel.n} width=${1} duration=${SETTLE_MS} />` });
  const spoken = isNow ? t("travel.now") : t(rel.key, { count: rel.n, n: rel.n });
  const who = (name || t("travel.you")).toLocaleUpperCase();

  return html`<div class="travel" data-testid="time-travel" data-ms=${SETTLE_MS + HOLD_MS} onClick=${onDone}>
    <div class="stage-glow" aria-hidden="true"></div>
    <p class="eyebrow">${t("travel.eyebrow", { name: who })}</p>
    <h2 class="travel-title" data-testid="relative-time">${title}</h2>
    <${Clock} fromMs=${fromMs} toMs=${toMs} />
    <p class="sr-only" role="status">${spoken}, ${fullStamp(toMs)}</p>
    <p class="travel-skip muted small" aria-hidden="true">${t("travel.skip")}</p>
  </div>`;
}
