// Dates on the wheel, in turns and in the travel overlay, in London's local time (london.mjs).
import "./london.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import * as time from "../app/lib/time.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 30, 12, 0);

test("slice ids are UTC minutes", () => {
  assert.equal(time.sliceIdToMs("2026-07-25-1430"), Date.UTC(2026, 6, 25, 14, 30));
  assert.ok(Number.isNaN(time.sliceIdToMs("2026/07/25/1430")));
  assert.ok(Number.isNaN(time.sliceIdToMs("now")));
});

test("an entry's moment is its start, else its id", () => {
  assert.equal(time.entryMs({ id: "2026-07-25-1430", start: "2026-07-25T14:30:26.000Z" }), Date.UTC(2026, 6, 25, 14, 30, 26));
  assert.equal(time.entryMs({ id: "2026-07-25-1430", start: "" }), Date.UTC(2026, 6, 25, 14, 30));
  assert.equal(time.entryMs({ slice_id: "2026-07-25-1430" }), Date.UTC(2026, 6, 25, 14, 30));
});

test("wheel labels are local (London is UTC+1 in July)", () => {
  const ms = Date.UTC(2026, 6, 25, 23, 30);
  assert.equal(process.env.TZ, "Europe/London");
  assert.equal(time.wheelDate(ms), "2026/07/26");
  assert.equal(time.wheelMonthDay(ms), "07/26");
  assert.equal(time.hhmm(ms), "00:30");
  assert.equal(time.fullStamp(ms), "2026/07/26 00:30");
});

test("a turn of today shows only its time", () => {
  assert.equal(time.turnStamp("2026-11-30T09:05:00.000Z", NOW), "09:05");
  assert.equal(time.turnStamp("2026-11-29T09:05:00.000Z", NOW), "2026/11/29 09:05");
  assert.equal(time.turnStamp("garbage", NOW), "garbage");
  // In a past slice only a turn past the slice's own day repeats the date.
  const day = Date.parse("2026-06-24T20:00:00.000Z");
  assert.equal(time.turnStamp("2026-06-24T20:30:00.000Z", NOW, day), "21:30");
  assert.equal(time.turnStamp("2026-06-24T23:30:00.000Z", NOW, day), "2026/06/25 00:30");
});

test("short moments and dates in both languages", () => {
  const ms = Date.UTC(2026, 6, 25, 13, 30);
  assert.equal(time.shortMoment(ms, "en"), "Jul 25 14:30");
  assert.equal(time.shortMoment(ms, "zh"), "7月25日 14:30");
  assert.equal(time.shortDate("2026-07-01", "en"), "Jul 1, 2026");
  assert.equal(time.shortDate("2026-07-01", "zh"), "2026年7月1日");
  assert.equal(time.shortDate("soon", "en"), "soon");
});

test("relativeBetween picks the unit by distance", () => {
  const cases = [
    [NOW - 4 * MIN, "rel.moments", 0],
    [NOW + 4 * MIN, "rel.soon", 0],
    [NOW - 5 * MIN, "rel.minutesAgo", 5],
    [NOW - 59 * MIN, "rel.minutesAgo", 59],
    [NOW - HOUR, "rel.hoursAgo", 1],
    [NOW - 23 * HOUR, "rel.hoursAgo", 23],
    [NOW - DAY, "rel.daysAgo", 1],
    [NOW - 3.5 * DAY, "rel.daysAgo", 3],
    [NOW - 7 * DAY, "rel.weeksAgo", 1],
    [NOW - 34 * DAY, "rel.weeksAgo", 5],
    [NOW - 35 * DAY, "rel.monthsAgo", 1],
    [NOW - 364 * DAY, "rel.monthsAgo", 12],
    [NOW - 365 * DAY, "rel.yearsAgo", 1],
    [NOW - 730 * DAY, "rel.yearsAgo", 2],
    [NOW + 3 * DAY, "rel.daysIn", 3],
  ];
  for (const [at, key, n] of cases) assert.deepEqual(time.relativeBetween(at, NOW), { key, n }, `${(NOW - at) / DAY} days`);
});
