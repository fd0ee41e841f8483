// The app's data and browser state as hooks: the hash route, the API reads, the slice cache,
// media queries, the clock and the stick-to-bottom scroller.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "./api.js";

const SLICE_TTL_MS = 5 * 60_000;
const SLICE_ID = /^\d{4}-\d{2}-\d{2}-\d{4}$/;

/** "#/slice/2026-07-25-1430" → {view: "slice", id}; "#/settings", "#/card", "#/import"; anything else is live. */
export function parseRoute(hash) {
  const path = String(hash || "").replace(/^#\/?/, "");
  const [head, id] = path.split("/");
  if (head === "slice" && SLICE_ID.test(id || "")) return { view: "slice", id };
  if (head === "settings" || head === "card" || head === "import" || head === "evolution") return { view: head, id: null };
  return { view: "live", id: null };
}

export function useRoute() {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return route;
}

export function useMedia(query) {
  const mq = () => window.matchMedia(query);
  const [matches, setMatches] = useState(() => mq().matches);
  useLayoutEffect(() => {
    const list = mq();
    const on = () => setMatches(list.matches);
    on();
    list.addEventListener("change", on);
    return () => list.removeEventListener("change", on);
  }, [query]);
  return matches;
}

/** The wall clock, refreshed every `everyMs`. */
export function useNow(everyMs = 30_000) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** Strand map with every member normalised to a slice id ("2026/08/11/1426" → "2026-08-11-1426"). */
export function normalizeStrands(strands) {
  const out = {};
  for (const [name, ids] of Object.entries(strands || {})) {
    out[name] = (ids || []).map((p) => {
      const m = /^(\d{4})\D(\d{2})\D(\d{2})\D(\d{4})$/.exec(String(p));
      return m ? `${m[1]}-${m[2]}-${m[3]}-${m[4]}` : String(p);
    });
  }
  return out;
}

/** `GET/PATCH /api/config` answer `{config, problems}`; older servers sent the config itself. */
export function unwrapConfig(res) {
  if (res && typeof res.config === "object" && res.config !== null) return { ...res.config, problems: res.problems || [] };
  return res || {};
}

/** The user's zone and language, for routes that phrase dates and labels for them. */
export function localQuery(locale) {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  return `tz=${encodeURIComponent(tz)}&locale=${locale === "zh" ? "zh" : "en"}`;
}

/** Everything the app reads at start: catalog, briefing state, config, models, strands. */
export function useAppData(locale) {
  const [catalog, setCatalog] = useState(null);
  const [catalogError, setCatalogError] = useState(null);
  const [state, setState] = useState(null);
  const [stateError, setStateError] = useState(null);
  const [config, setConfig] = useState(null);
  const [models, setModels] = useState(null);
  const [strands, setStrands] = useState({});
  const [strandCounts, setStrandCounts] = useState({});

  // A window of the catalog: older slices and the merge on refresh are in older.js.
  const win = useRef({});
  const keep = (rows, start) => (Object.assign(win.current, { rows, start }), setCatalog(rows));
  const refreshCatalog = () =>
    api
      .get("/api/timeline")
      .then((res) => {
        (win.current.merge || keep)(res.slices || [], res.offset);
        setCatalogError(null);
      })
      .catch(setCatalogError);
  const loadOlder = () => win.current.start > 0 && import("./older.js").then((m) => m.loadOlder(win.current, keep));
  const refreshState = () =>
    api
      .get(`/api/state?${localQuery(locale)}`)
      .then((s) => {
        setState(s);
        setStateError(null);
      })
      .catch(setStateError);
  // Models resolve against the saved settings: read them again after a save.
  const refreshModels = () =>
    api.get("/api/models").then(setModels).catch(() => setModels({ providers: [], models: [], main: null, worker: null }));
  // Arrival reads how many slices each strand names (a few KB at any size); a strand's own ids
  // are asked for when the wheel is filtered by it (the whole map is megabytes at 10,000 slices).
  const refreshStrands = () =>
    api
      .get("/api/strands?counts=true")
      .then((res) => (setStrandCounts((res && res.counts) || {}), setStrands({})))
      .catch(() => setStrandCounts({}));
  const loadStrand = (name) =>
    name &&
    api
      .get(`/api/strands?name=${encodeURIComponent(name)}`)
      .then((res) => setStrands((had) => ({ ...had, ...normalizeStrands(res && res.strands) })))
      .catch(() => {});

  // The briefing is phrased in the UI's language: read it again when that changes.
  useEffect(() => {
    refreshState();
  }, [locale]);

  useEffect(() => {
    refreshCatalog();
    refreshStrands();
    api.get("/api/config").then((res) => setConfig(unwrapConfig(res))).catch(() => setConfig({}));
    refreshModels();
  }, []);

  return { catalog, catalogError, loadOlder, state, stateError, config, setConfig, models, strands, strandCounts, loadStrand, refreshCatalog, refreshState, refreshStrands, refreshModels };
}

const sliceCache = new Map();

/** Fetch a slice's content, reusing a copy younger than five minutes; a slice that does not
 * exist is asked for once too (the travel's prefetch and the view share the 404). */
export function fetchSlice(id) {
  const hit = sliceCache.get(id);
  if (hit && Date.now() - hit.at < SLICE_TTL_MS) return hit.promise;
  const promise = api.get(`/api/slices/${id}`);
  sliceCache.set(id, { at: Date.now(), promise });
  promise.catch((err) => err.status !== 404 && sliceCache.delete(id));
  return promise;
}

/** Forget cached slices (after a turn wrote to one). */
export function dropSliceCache(id = null) {
  if (id) sliceCache.delete(id);
  else sliceCache.clear();
}

/** {data, error, loading} of the slice `id` (null → nothing); `replace(data)` after an edit. */
export function useSlice(id) {
  const [result, setResult] = useState({ id: null, data: null, error: null });
  useEffect(() => {
    if (!id) return undefined;
    let live = true;
    setResult((r) => (r.id === id ? r : { id, data: null, error: null }));
    fetchSlice(id)
      .then((data) => live && setResult({ id, data, error: null }))
      .catch((error) => live && setResult({ id, data: null, error }));
    return () => {
      live = false;
    };
  }, [id]);
  const mine = result.id === id;
  const replace = (data) => {
    sliceCache.set(id, { at: Date.now(), promise: Promise.resolve(data) });
    setResult({ id, data, error: null });
  };
  return { data: mine ? result.data : null, error: mine ? result.error : null, loading: !mine || (!result.data && !result.error), replace };
}

/** Keep a scroller pinned to the bottom while content grows, unless the user scrolled up. */
export function useStickToBottom(ref, deps, enabled) {
  const stuck = useRef(true);
  const [away, setAway] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const on = () => {
      const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
      stuck.current = atBottom;
      setAway(!atBottom);
    };
    el.addEventListener("scroll", on, { passive: true });
    return () => el.removeEventListener("scroll", on);
  }, [ref.current]);
  useLayoutEffect(() => {
    const el = ref.current;
    if (enabled && el && stuck.current) el.scrollTop = el.scrollHeight;
  }, deps);
  const toBottom = () => {
    const el = ref.current;
    stuck.current = true;
    setAway(false);
    if (el) el.scrollTop = el.scrollHeight;
  };
  return { away: enabled && away, toBottom };
}
