// The slices older than the loaded window, fetched when the wheel travels near its start.
import { api } from "./api.js";

/** Prepend the page just before `w.rows[0]` (`keep(rows, start)` stores the catalog); from then
 * on a refresh keeps the older rows and replaces the newest window. */
export function loadOlder(w, keep) {
  w.merge = (fresh, start) => {
    const old = fresh.length ? w.rows.filter((e) => e.id < fresh[0].id) : [];
    keep(old.concat(fresh), start - old.length);
  };
  if (w.busy || !w.rows || !w.rows.length || !(w.start > 0)) return;
  w.busy = true;
  api
    .get(`/api/timeline?before=${w.rows[0].id}`)
    .then((res) => {
      const have = new Set(w.rows.map((e) => e.id));
      keep(res.slices.filter((e) => !have.has(e.id)).concat(w.rows), res.offset);
    })
    .catch(() => {})
    .finally(() => (w.busy = false));
}
