// Wheel geometry: centring, the virtual window, the focal effect, keys, the beam.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as g from "../app/lib/geometry.js";

test("row i is centred at scrollTop = i * rowH, and both ends can be centred", () => {
  const viewport = 600;
  const rowH = 56;
  const n = 51;
  const pad = g.padFor(viewport, rowH);
  assert.equal(pad, 272);
  const maxScroll = g.contentHeight(n, viewport, rowH) - viewport;
  assert.equal(g.scrollTopFor(n - 1, rowH), maxScroll);
  for (const i of [0, 10, n - 1]) {
    const top = g.scrollTopFor(i, rowH);
    assert.equal(pad + i * rowH + rowH / 2 - top, viewport / 2);
    assert.equal(g.centerIndex(top, rowH, n), i);
  }
  assert.equal(g.centerIndex(-500, rowH, n), 0);
  assert.equal(g.centerIndex(1e9, rowH, n), n - 1);
  assert.equal(g.centerIndex(0, rowH, 0), -1);
});

test("the virtual window covers the viewport plus six rows each side", () => {
  const [first, last] = g.visibleRange(g.scrollTopFor(20, 56), 600, 56, 100);
  assert.ok(first <= 20 - 5 - 6 && first >= 0);
  assert.ok(last >= 20 + 5 + 6 && last < 100);
  assert.deepEqual(g.visibleRange(0, 600, 56, 3), [0, 2]);
  assert.deepEqual(g.visibleRange(0, 600, 56, 0), [0, -1]);
});

test("rows shrink and fade away from the centre, down to a floor", () => {
  assert.deepEqual(g.focal(0, 56), { t: 0, scale: 1, opacity: 1 });
  const far = g.focal(10 * 56, 56);
  assert.equal(far.t, 1);
  assert.ok(Math.abs(far.scale - 0.88) < 1e-9);
  assert.ok(Math.abs(far.opacity - 0.3) < 1e-9);
  assert.equal(g.focal(-56, 56).t, g.focal(56, 56).t);
});

test("navigation keys move the cursor and stop at the ends", () => {
  assert.equal(g.keyTarget("ArrowUp", 5, 10, 4), 4);
  assert.equal(g.keyTarget("ArrowDown", 9, 10, 4), 9);
  assert.equal(g.keyTarget("PageUp", 2, 10, 4), 0);
  assert.equal(g.keyTarget("PageDown", 2, 10, 4), 6);
  assert.equal(g.keyTarget("Home", 7, 10, 4), 0);
  assert.equal(g.keyTarget("End", 0, 10, 4), 9);
  assert.equal(g.keyTarget("a", 0, 10, 4), null);
  assert.equal(g.keyTarget("Home", 0, 0, 4), null);
});

test("the beam peaks at the lit row and is flat when nothing is lit", () => {
  assert.deepEqual(g.beamStops(null), [[0, 0.18], [1, 0.18]]);
  const stops = g.beamStops(0.5);
  assert.deepEqual(stops.find(([at]) => at === 0.5), [0.5, 0.65]);
  assert.ok(stops.every(([at]) => at >= 0 && at <= 1));
  assert.ok(g.beamStops(0).every(([at]) => at >= 0));
});

test("indexAtOrBefore finds the slice to jump to for a date", () => {
  const times = [10, 20, 30];
  assert.equal(g.indexAtOrBefore(times, 25), 1);
  assert.equal(g.indexAtOrBefore(times, 30), 2);
  assert.equal(g.indexAtOrBefore(times, 5), 0);
  assert.equal(g.indexAtOrBefore([], 5), -1);
});
