// Timeline-wheel geometry: row positions, the centred row, the virtual window, the focal effect.
// Row i is centred in the viewport exactly when scrollTop = i * rowHeight (the padding above the
// first row and below the last is half the viewport, so both ends can reach the centre).

export const ROW_DESKTOP = 56;
export const ROW_PHONE = 96;
export const OVERSCAN = 6;

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

/** Padding above the first row (and below the last) so that either end can be centred. */
export function padFor(viewport, rowH) {
  return Math.max(0, viewport / 2 - rowH / 2);
}

/** Total scrollable height of `n` rows. */
export function contentHeight(n, viewport, rowH) {
  return 2 * padFor(viewport, rowH) + n * rowH;
}

/** The scrollTop that centres row `i`. */
export function scrollTopFor(i, rowH) {
  return i * rowH;
}

/** The index of the row nearest the centre at a given scrollTop. */
export function centerIndex(scrollTop, rowH, n) {
  if (n <= 0) return -1;
  return clamp(Math.round(scrollTop / rowH), 0, n - 1);
}

/** The rows to keep in the DOM: those in view plus `overscan` on each side (inclusive range). */
export function visibleRange(scrollTop, viewport, rowH, n, overscan = OVERSCAN) {
  if (n <= 0) return [0, -1];
  const pad = padFor(viewport, rowH);
  const first = Math.floor((scrollTop - pad) / rowH) - overscan;
  const last = Math.ceil((scrollTop + viewport - pad) / rowH) + overscan;
  return [clamp(first, 0, n - 1), clamp(last, 0, n - 1)];
}

/**
 * The focal effect of a row whose centre is `distance` px from the viewport centre: `t` runs from
 * 0 (centred) to 1 (2.4 rows away or more); the row shrinks and fades with it.
 */
export function focal(distance, rowH) {
  const t = Math.min(1, Math.abs(distance) / (2.4 * rowH));
  // A light shrink: the farthest rows stay readable (the date at 0.75rem never drops under 10 px).
  return { t, scale: 1 - 0.12 * t, opacity: 1 - 0.7 * t };
}

/** Distance in px between row `i`'s centre and the viewport centre. */
export function rowDistance(i, scrollTop, rowH) {
  return i * rowH - scrollTop;
}

/**
 * The spine's "beam": a vertical gradient peaking at the lit row. `litFraction` is the lit row's
 * position in the viewport (0 top … 1 bottom), or null when it is out of view.
 */
export function beamStops(litFraction) {
  if (litFraction === null || litFraction === undefined || !Number.isFinite(litFraction)) {
    return [[0, 0.18], [1, 0.18]];
  }
  const p = clamp(litFraction, 0, 1);
  const stops = [[0, 0.05], [p - 0.18, 0.22], [p, 0.65], [p + 0.18, 0.22], [1, 0.05]];
  return stops.filter(([at]) => at >= 0 && at <= 1);
}

/** The new cursor index after a navigation key, or null for keys the wheel does not handle. */
export function keyTarget(key, index, n, page) {
  if (n <= 0) return null;
  const i = index < 0 ? n - 1 : index;
  switch (key) {
    case "ArrowUp":
      return clamp(i - 1, 0, n - 1);
    case "ArrowDown":
      return clamp(i + 1, 0, n - 1);
    case "PageUp":
      return clamp(i - page, 0, n - 1);
    case "PageDown":
      return clamp(i + page, 0, n - 1);
    case "Home":
      return 0;
    case "End":
      return n - 1;
    default:
      return null;
  }
}

/** The index of the last entry that starts at or before `ms` (the first one when all are later). */
export function indexAtOrBefore(times, ms) {
  let best = -1;
  for (let i = 0; i < times.length; i++) {
    if (times[i] <= ms) best = i;
    else break;
  }
  return best < 0 ? (times.length ? 0 : -1) : best;
}
