"""D18: the timeline wheel stays smooth at 300 slices on a slower phone (4× CPU throttle).

Two causes were found and removed: every row had `transition: color`, and the row's colour follows
its distance from the centre (`--t`), so each scroll frame started a fresh transition on every
visible row (style recalculated and rows repainted for 120 ms after each frame); and each phone row
drew its "fog" with `filter: blur()`, one filter effect per row to re-layerise every frame.
"""

from __future__ import annotations

import json
import statistics
from urllib.parse import parse_qs, urlparse

import pytest

from core.memory.catalog.window import window
from tests.browser.conftest import Server, settle
from tests.browser.test_wheel import _many_slices

pytestmark = pytest.mark.browser

PROBE = """() => {
  window.__gaps = []; window.__long = [];
  let last = performance.now(), on = true;
  new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__long.push(e.duration)))
    .observe({ type: "longtask" });
  const tick = (t) => { window.__gaps.push(t - last); last = t; if (on) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  window.__stop = () => { on = false; return { gaps: window.__gaps.slice(1), long: window.__long }; };
}"""
# CSS animations and transitions running inside the wheel's rows.
ROW_ANIMATIONS = """() => document.getAnimations().filter((a) => {
  const el = a.effect && a.effect.target;
  return el && el.closest && el.closest('.wheel-row');
}).length"""
SCROLL_TOP = "() => document.querySelector('[data-testid=wheel]').scrollTop"


def _serve_300(page) -> None:  # type: ignore[no-untyped-def]
    entries = _many_slices(300)

    def timeline(route) -> None:  # type: ignore[no-untyped-def]
        query = {k: v[0] for k, v in parse_qs(urlparse(route.request.url).query).items()}
        w = window(entries, before=query.get("before"))
        body = {"slices": w.slices, "total": w.total, "offset": w.offset, "months": []}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/timeline*", timeline)


def test_swiping_the_phone_wheel_over_300_slices_under_4x_throttle(make_app, demo_server: Server) -> None:
    # No fake clock: it would stand in for requestAnimationFrame and performance.now.
    # service worker off: its fetches are not seen by page.route (test_wheel.py says more)
    app = make_app(demo_server, size="phone", now=None, service_workers="block")
    _serve_300(app.page)
    page = app.open(wait="[data-testid=briefing]")
    page.wait_for_function("() => document.querySelectorAll('[role=option]').length > 0")
    settle(page)
    cdp = app.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    box = page.get_by_test_id("wheel").bounding_box()
    assert box
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    start = page.evaluate(SCROLL_TOP)
    page.evaluate(PROBE)
    animated = []
    for swipe in range(6):
        dy = -300 if swipe % 3 == 2 else 500  # finger down (towards older slices), now and then back
        touch = {"x": x, "y": y - dy / 2}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [touch]})
        for step in range(1, 13):
            point = {"x": x, "y": y - dy / 2 + dy * step / 12}
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
            if step % 4 == 0:
                animated.append(page.evaluate(ROW_ANIMATIONS))
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        page.wait_for_timeout(700)
    frames = page.evaluate("window.__stop()")
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    assert page.evaluate(SCROLL_TOP) < start - 10 * 96, "the swipes moved the wheel back by several rows"

    # Deterministic: nothing in a row animates while the wheel moves (a colour transition per row
    # and frame was most of the style work).
    assert max(animated) == 0, animated
    # And the budget, loose enough for a 2-core machine shared with other work (measured in
    # docs/UI.md, D18): before the fix p95 was 83–133 ms here.
    gaps = sorted(frames["gaps"])
    p95 = gaps[int(len(gaps) * 0.95)]
    assert len(gaps) > 100, len(gaps)
    assert p95 <= 100, f"p95 frame gap {p95:.0f} ms (median {statistics.median(gaps):.0f})"
    assert max(frames["long"], default=0) < 500, frames["long"]
