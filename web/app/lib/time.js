// Dates for the timeline: slice ids, local wheel labels, turn timestamps, relative labels.

const SLICE_ID = /^(\d{4})-(\d{2})-(\d{2})-(\d{2})(\d{2})$/;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "2026-07-25-1430" (a UTC minute) → epoch ms, or NaN when the id is not a slice id. */
export function sliceIdToMs(id) {
  const m = SLICE_ID.exec(String(id || ""));
  if (!m) return NaN;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]);
}

/** Epoch ms of an ISO timestamp, or NaN. */
export function isoToMs(iso) {
  const ms = Date.parse(String(iso || ""));
  return Number.isFinite(ms) ? ms : NaN;
}

/** The moment a catalog entry / slice starts: its `start`, else its id. */
export function entryMs(entry) {
  if (!entry) return NaN;
  const fromStart = isoToMs(entry.start);
  return Number.isFinite(fromStart) ? fromStart : sliceIdToMs(entry.id || entry.slice_id);
}

const pad2 = (n) => String(n).padStart(2, "0");

/** Local calendar fields of a moment (the browser's time zone). */
export function fields(ms) {
  const d = new Date(ms);
  return {
    year: d.getFullYear(),
    month: d.getMonth() + 1,
    day: d.getDate(),
    hour: d.getHours(),
    minute: d.getMinutes(),
  };
}

/** "2026/07/25" in local time. */
export function wheelDate(ms) {
  const f = fields(ms);
  return `${f.year}/${pad2(f.month)}/${pad2(f.day)}`;
}

/** "07/25" in local time (the phone gear). */
export function wheelMonthDay(ms) {
  const f = fields(ms);
  return `${pad2(f.month)}/${pad2(f.day)}`;
}

/** "14:30" in local time. */
export function hhmm(ms) {
  const f = fields(ms);
  return `${pad2(f.hour)}:${pad2(f.minute)}`;
}

/** "2026/07/25 14:30" in local time (the travel clock's target); the wheel's date format. */
export function fullStamp(ms) {
  return `${wheelDate(ms)} ${hhmm(ms)}`;
}

/** True when two moments fall on the same local calendar day. */
export function sameLocalDay(a, b) {
  const x = fields(a);
  const y = fields(b);
  return x.year === y.year && x.month === y.month && x.day === y.day;
}

/** A turn's timestamp: "14:30" on the day already shown (the slice's day, else today), else
 * "2026/07/25 14:30" (a slice that ran past midnight). */
export function turnStamp(iso, nowMs, dayMs = NaN) {
  const ms = isoToMs(iso);
  if (!Number.isFinite(ms)) return String(iso || "");
  return sameLocalDay(ms, Number.isFinite(dayMs) ? dayMs : nowMs) ? hhmm(ms) : fullStamp(ms);
}

/** "Jul 25 14:30" / "7月25日 14:30": a slice moment in tool labels, local time. */
export function shortMoment(ms, locale) {
  const f = fields(ms);
  if (locale === "zh") return `${f.month}月${f.day}日 ${pad2(f.hour)}:${pad2(f.minute)}`;
  const month = new Date(ms).toLocaleString("en-US", { month: "short" });
  return `${month} ${f.day} ${pad2(f.hour)}:${pad2(f.minute)}`;
}

/** "Jul 25, 2026" / "2026年7月25日" from a YYYY-MM-DD date (no time zone shift). */
export function shortDate(ymd, locale) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(ymd || ""));
  if (!m) return String(ymd || "");
  if (locale === "zh") return `${+m[1]}年${+m[2]}月${+m[3]}日`;
  const month = new Date(Date.UTC(+m[1], +m[2] - 1, 15)).toLocaleString("en-US", {
    month: "short",
    timeZone: "UTC",
  });
  return `${month} ${+m[3]}, ${m[1]}`;
}

/**
 * Where `target` sits relative to `now`, as an i18n key and a count:
 * under 5 minutes "moments", then minutes, hours, days, weeks (< 35 days), months (< 365 days), years.
 */
export function relativeBetween(target, now) {
  const delta = target - now;
  const future = delta > 0;
  const abs = Math.abs(delta);
  const suffix = future ? "In" : "Ago";
  if (abs < 5 * MINUTE) return { key: future ? "rel.soon" : "rel.moments", n: 0 };
  if (abs < HOUR) return { key: `rel.minutes${suffix}`, n: Math.floor(abs / MINUTE) };
  if (abs < DAY) return { key: `rel.hours${suffix}`, n: Math.floor(abs / HOUR) };
  const days = abs / DAY;
  if (days < 7) return { key: `rel.days${suffix}`, n: Math.floor(days) };
  if (days < 35) return { key: `rel.weeks${suffix}`, n: Math.max(1, Math.round(days / 7)) };
  if (days < 365) return { key: `rel.months${suffix}`, n: Math.min(12, Math.max(1, Math.round(days / 30.44))) };
  return { key: `rel.years${suffix}`, n: Math.max(1, Math.round(days / 365.25)) };
}
