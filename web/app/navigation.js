// Moving through the timeline: the wheel's entries, the travel between views, the global keys.
import { useEffect, useRef, useState } from "preact/hooks";
import { fetchSlice } from "./app-data.js";
import { entryMs } from "./lib/time.js";
import { shortcutFor } from "./lib/keys.js";

/** The wheel's rows: the catalog (filtered by a strand, if one is picked) and NOW last. */
export function buildEntries(catalog, strands, strand, nowMs) {
  const members = strand ? new Set(strands[strand] || []) : null;
  const rows = (catalog || [])
    .filter((e) => !members || members.has(e.id) || (e.strands || []).includes(strand))
    .map((e) => ({ id: e.id, ms: entryMs(e), focus: e.focus || "", status: e.status, problem: Boolean(e.problem), isNow: false }));
  rows.push({ id: "now", ms: nowMs, focus: "", isNow: true });
  return rows;
}

/**
 * What the content pane shows (`shown`) and the travel overlay between two views: the route
 * changes at once, the pane follows when the clock has rolled (or at once with reduced motion).
 */
export function useTravel(route, catalog, reduced) {
  const [shown, setShown] = useState(route);
  const [travel, setTravel] = useState(null);
  const skipNext = useRef(false);
  const msOf = (id) => {
    const e = (catalog || []).find((x) => x.id === id);
    return e ? entryMs(e) : entryMs({ id });
  };
  useEffect(() => {
    const same = route.view === shown.view && route.id === shown.id;
    if (same) return setTravel(null);
    const fromSlice = shown.view === "slice";
    const toSlice = route.view === "slice";
    if (toSlice) fetchSlice(route.id).catch(() => {});
    const animate = !reduced && !skipNext.current && (toSlice || (fromSlice && route.view === "live"));
    skipNext.current = false;
    if (!animate) {
      setTravel(null);
      return setShown(route);
    }
    setTravel({
      key: `${route.view}:${route.id}:${Date.now()}`,
      target: route,
      fromMs: fromSlice ? msOf(shown.id) : Date.now(),
      toMs: toSlice ? msOf(route.id) : Date.now(),
      isNow: !toSlice,
    });
  }, [route.view, route.id]);
  const current = useRef(null);
  current.current = travel;
  const land = () => {
    const tr = current.current;
    if (!tr) return;
    setShown(tr.target);
    setTravel(null);
  };
  return { shown, travel, land, skipNextTravel: () => (skipNext.current = true) };
}

/** Global keys: `actions` maps an action name (lib/keys.js) to what it does. */
export function useShortcuts(actions) {
  useEffect(() => {
    const onKey = (e) => {
      const action = shortcutFor(e);
      if (!action || !actions[action] || document.querySelector("dialog[open]")) return;
      e.preventDefault();
      actions[action]();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  });
}
