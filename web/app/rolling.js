// Odometer digits: a number that counts through the values between old and new.
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.js";

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
const easeOutCubic = (p) => 1 - (1 - p) ** 3;

/** Whether the user asked for less motion. */
export function prefersReducedMotion() {
  return Boolean(globalThis.matchMedia && globalThis.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

/**
 * A zero-padded integer that rolls to each new value, starting from what is on screen (so a change
 * mid-roll retargets smoothly). `from` sets the first value shown; `duration` fixes the roll time.
 */
export function Rolling({ value, width = 2, from = null, duration = null }) {
  const start = from === null ? value : from;
  const [shown, setShown] = useState(start);
  const shownRef = useRef(start);

  useEffect(() => {
    const origin = shownRef.current;
    const delta = value - origin;
    if (!delta) return undefined;
    if (prefersReducedMotion()) {
      shownRef.current = value;
      setShown(value);
      return undefined;
    }
    const ms = duration ?? clamp(Math.abs(delta) * 28, 70, 320);
    const t0 = performance.now();
    let frame = 0;
    const tick = (now) => {
      const p = Math.min(1, (now - t0) / ms);
      const v = Math.round(origin + delta * easeOutCubic(p));
      shownRef.current = v;
      setShown(v);
      if (p < 1) frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [value, duration]);

  return html`<span class="rolling">${String(shown).padStart(width, "0")}</span>`;
}
