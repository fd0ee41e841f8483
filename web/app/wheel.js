// The timeline wheel: every slice oldest → newest ending in NOW, as a virtualised listbox.
// Scrolling and dragging only preview (the readout follows the centred row); a click, Enter or
// Space travels. The cursor (aria-activedescendant) is always the centred row.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { html } from "./html.js";
import { Rolling } from "./rolling.js";
import * as g from "./lib/geometry.js";
import { fields, hhmm, wheelDate, wheelMonthDay } from "./lib/time.js";

const DRAG_THRESHOLD = 3;
const NEAR = 40; // rows from the start at which older slices are asked for

function optionId(entry) {
  return `wheel-opt-${entry.id}`;
}

function beamStyle(stops) {
  const parts = stops.map(([at, alpha]) => `rgb(var(--brand-rgb) / ${alpha}) ${(at * 100).toFixed(1)}%`);
  return `linear-gradient(to bottom, ${parts.join(", ")})`;
}

function useViewport(ref) {
  const [height, setHeight] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    setHeight(el.clientHeight);
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return height;
}

/** Mouse drag: content follows the pointer; the click that ends a drag is swallowed. */
function useDrag(ref) {
  const swallow = useRef(false);
  const onMouseDown = (e) => {
    if (e.button !== 0) return;
    const el = ref.current;
    const startY = e.clientY;
    const startTop = el.scrollTop;
    let dragging = false;
    const move = (ev) => {
      const dy = ev.clientY - startY;
      if (!dragging && Math.abs(dy) > DRAG_THRESHOLD) {
        dragging = true;
        el.classList.add("dragging");
      }
      if (dragging) el.scrollTop = startTop - dy;
    };
    const end = () => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", end);
      window.removeEventListener("blur", end);
      el.classList.remove("dragging");
      if (dragging) {
        swallow.current = true;
        setTimeout(() => {
          swallow.current = false;
        }, 0);
      }
    };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", end);
    window.addEventListener("blur", end);
  };
  const onClickCapture = (e) => {
    if (swallow.current) {
      e.stopPropagation();
      e.preventDefault();
      swallow.current = false;
    }
  };
  return { onMouseDown, onClickCapture };
}

/** What a row without a focus line says: damaged (the slice view says why), in progress, or not described yet. */
function untitled(entry, t) {
  if (entry.problem) return t("wheel.damaged");
  return entry.status === "active" ? t("wheel.inProgress") : t("wheel.untitled");
}

function Row({ entry, index, total, rowH, scrollTop, lit, cursor, phone, t, onPick }) {
  // Text fades by colour (never below the muted colour's contrast), not by opacity.
  const { t: far, scale } = g.focal(g.rowDistance(index, scrollTop, rowH), rowH);
  const top = index * rowH;
  const when = entry.isNow ? t("wheel.now") : hhmm(entry.ms);
  const focus = entry.isNow ? t("wheel.nowFocus") : entry.focus || untitled(entry, t);
  const f = fields(entry.ms);
  const cls = `wheel-row${lit ? " lit" : ""}${cursor ? " cursor" : ""}${entry.isNow ? " now" : ""}${entry.focus || entry.isNow ? "" : " dry"}`;
  return html`<div
    id=${optionId(entry)}
    role="option"
    class=${cls}
    data-slice-id=${entry.id}
    aria-selected=${lit ? "true" : "false"}
    aria-setsize=${total}
    aria-posinset=${index + 1}
    style=${`top:${top}px;height:${rowH}px;transform:scale(${scale.toFixed(3)});--t:${far.toFixed(3)}`}
    onClick=${() => onPick(index)}
  >
    ${phone
      ? html`<span class="wheel-fog" aria-hidden="true"></span>
          ${lit && !entry.isNow && html`<span class="wheel-yr" data-testid="wheel-year">${f.year}</span>`}
          <span class="wheel-md">${wheelMonthDay(entry.ms)}</span>
          ${entry.isNow
            ? html`<span class="wheel-big now-label">${t("wheel.now")}</span>`
            : html`<span class="wheel-big">${String(f.hour).padStart(2, "0")}</span>
                <span class="wheel-big">${String(f.minute).padStart(2, "0")}</span>`}
          <span class="sr-only">${wheelDate(entry.ms)} ${focus}</span>`
      : html`<span class="wheel-dot" aria-hidden="true"></span>
          <span class="wheel-when">
            <span class="wheel-date">${wheelDate(entry.ms)}</span>
            <span class="wheel-time">${when}</span>
          </span>
          <span class="wheel-focus">${focus}</span>`}
  </div>`;
}

function Readout({ entry, t }) {
  if (!entry) return null;
  const f = fields(entry.ms);
  return html`<div class="wheel-readout" data-testid="wheel-readout" aria-hidden="true">
    <div class="readout-clock">
      ${entry.isNow
        ? html`<span class="readout-now">${t("wheel.now")}</span>`
        : html`<${Rolling} value=${f.hour} /><span class="colon">:</span><${Rolling} value=${f.minute} />`}
      <span class="readout-date">${wheelDate(entry.ms)}</span>
    </div>
    <div class="readout-focus">${entry.isNow ? t("wheel.nowFocus") : entry.focus || untitled(entry, t)}</div>
  </div>`;
}

/**
 * The scroll state of the wheel: the scroller, its height, the scroll position, and the effects that
 * keep the right row centred. `scrollToIndex(i, smooth)` centres row i.
 */
function useWheelScroll({ entries, litId, rowH, reducedMotion, onNearStart }) {
  const scroller = useRef(null);
  const viewport = useViewport(scroller);
  const [scrollTop, setScrollTop] = useState(0);
  const frame = useRef(0);
  const placed = useRef(false);
  const lastViewport = useRef(0);
  const n = entries.length;
  const litIndex = entries.findIndex((e) => e.id === litId);
  const cursor = g.centerIndex(scrollTop, rowH, n);
  const cursorRef = useRef(cursor);
  cursorRef.current = cursor;
  const shape = useMemo(() => entries.map((e) => e.id).join(","), [entries]);
  const first = useRef();

  const scrollToIndex = (i, smooth) => {
    const el = scroller.current;
    if (!el || i < 0) return;
    const top = g.scrollTopFor(i, rowH);
    if (smooth && !reducedMotion) el.scrollTo({ top, behavior: "smooth" });
    else {
      el.scrollTop = top;
      setScrollTop(el.scrollTop);
    }
  };
  // Centre the lit row (else NOW) when the list appears or changes shape, without animation…
  useLayoutEffect(() => {
    if (!viewport || !n) return;
    // …but rows added above (the old list is the new one's tail) keep the view where it was; a
    // list that changed otherwise (a strand filter picked or dropped) centres again.
    const el = scroller.current;
    const before = first.current;
    const moved = placed.current && before ? entries.findIndex((e) => !e.isNow && e.id === before.id) : -1;
    first.current = { id: entries[0].id, n };
    if (moved > 0 && n - moved === before.n) return setScrollTop((el.scrollTop += moved * rowH));
    scrollToIndex(litIndex >= 0 ? litIndex : n - 1, false);
    placed.current = true;
  }, [shape, rowH, viewport > 0]);
  // …keep the row under the cursor centred when the wheel is resized…
  useLayoutEffect(() => {
    const resized = lastViewport.current > 0 && viewport > 0;
    lastViewport.current = viewport;
    if (resized && placed.current && cursorRef.current >= 0) scrollToIndex(cursorRef.current, false);
  }, [viewport]);
  // …and glide to it when the lit row changes (a click, a search result, the previous/next keys).
  useEffect(() => {
    if (placed.current && litIndex >= 0) scrollToIndex(litIndex, true);
  }, [litId]);

  const onScroll = () => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      if (!scroller.current) return;
      setScrollTop(scroller.current.scrollTop);
      if (onNearStart && scroller.current.scrollTop < NEAR * rowH) onNearStart();
    });
  };
  return { scroller, viewport, scrollTop, cursor, litIndex, scrollToIndex, onScroll };
}

/** Listbox keys: arrows, pages, Home/End move the cursor; Enter and Space travel to it. */
function wheelKeyHandler({ entries, cursor, viewport, rowH, scrollToIndex, onSelect }) {
  return (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if ((e.key === "Enter" || e.key === " ") && cursor >= 0) {
      e.preventDefault();
      onSelect(entries[cursor]);
      return;
    }
    const page = Math.max(1, Math.floor(viewport / rowH) - 1);
    const target = g.keyTarget(e.key, cursor, entries.length, page);
    if (target === null) return;
    e.preventDefault();
    scrollToIndex(target, false);
  };
}

/** The wheel. `entries` end with the NOW entry; `litId` is the loaded (or just clicked) row. */
export function Wheel({ entries, litId, onSelect, phone, t, reducedMotion, label, toolbar, listRef, onNearStart }) {
  const rowH = phone ? g.ROW_PHONE : g.ROW_DESKTOP;
  const w = useWheelScroll({ entries, litId, rowH, reducedMotion, onNearStart });
  const drag = useDrag(w.scroller);
  const n = entries.length;
  const pick = (i) => {
    w.scrollToIndex(i, true);
    onSelect(entries[i]);
  };
  const [first, last] = g.visibleRange(w.scrollTop, w.viewport, rowH, n);
  const pad = g.padFor(w.viewport, rowH);
  const litY = w.litIndex >= 0 && w.viewport ? (pad + w.litIndex * rowH + rowH / 2 - w.scrollTop) / w.viewport : null;
  const beam = beamStyle(g.beamStops(litY !== null && litY >= 0 && litY <= 1 ? litY : null));
  const rows = [];
  for (let i = first; i <= last && n; i++) {
    const props = { entry: entries[i], index: i, total: n, rowH, scrollTop: w.scrollTop, phone, t, onPick: pick };
    rows.push(html`<${Row} key=${entries[i].id} ...${props} lit=${i === w.litIndex} cursor=${i === w.cursor} />`);
  }
  const setRef = (el) => {
    w.scroller.current = el;
    if (listRef) listRef.current = el;
  };
  return html`<div class=${`wheel ${phone ? "phone" : "desktop"}`}>
    ${toolbar}
    ${!phone && html`<${Readout} entry=${entries[w.cursor]} t=${t} />`}
    <div class="wheel-stage">
      <div class="wheel-spine" aria-hidden="true" style=${`background:${beam}`}></div>
      ${!phone && html`<div class="wheel-band" aria-hidden="true" style=${`height:${rowH}px`}></div>`}
      <div
        ref=${setRef}
        class="wheel-scroller"
        role="listbox"
        tabindex="0"
        aria-label=${label}
        aria-activedescendant=${w.cursor >= 0 ? optionId(entries[w.cursor]) : undefined}
        data-testid="wheel"
        onScroll=${w.onScroll}
        onKeyDown=${wheelKeyHandler({ entries, cursor: w.cursor, viewport: w.viewport, rowH, scrollToIndex: w.scrollToIndex, onSelect })}
        onMouseDown=${drag.onMouseDown}
        onClickCapture=${drag.onClickCapture}
      >
        <div class="wheel-track" style=${`height:${g.contentHeight(n, w.viewport, rowH)}px`}>
          <div class="wheel-rows" style=${`top:${pad}px`}>${rows}</div>
        </div>
      </div>
      ${!phone && html`<div class="wheel-fade top" aria-hidden="true"></div><div class="wheel-fade bottom" aria-hidden="true"></div>`}
    </div>
  </div>`;
}
