// A demo link's `/?persona=jia` (or `#/card?persona=jia`): picks that persona as the picker does,
// before the page first renders, then drops the parameter from the address bar. main.js loads
// this module only for an address that names a persona.
import { api } from "./api.js";
import { rememberPersona, setUrlNotice } from "./persona-picker.js";

/** `?persona=ID` in a page address, before the hash or in the hash's own query (the first wins):
 * `{id, rest}` with `rest` the same address (path, query, hash) without it; null when absent. */
export function personaInUrl(href) {
  const url = new URL(href);
  let id = url.searchParams.get("persona");
  url.searchParams.delete("persona");
  const q = url.hash.indexOf("?");
  if (q >= 0) {
    const params = new URLSearchParams(url.hash.slice(q + 1));
    if (params.has("persona")) {
      id = id ?? params.get("persona");
      params.delete("persona");
      const left = params.toString();
      url.hash = url.hash.slice(0, q) + (left ? `?${left}` : "");
    }
  }
  return id === null ? null : { id, rest: `${url.pathname}${url.search}${url.hash}` };
}

/** Before the first render: adopt the persona the address names (the picker's cookie), or keep
 * the current one and leave a notice; either way the parameter leaves the address bar. */
export async function adoptPersonaFromUrl(loc = globalThis.location) {
  const found = personaInUrl(loc.href);
  if (!found) return;
  const id = found.id;
  try {
    // The list, not `?persona=ID`: an unknown id is then no 400 in the console.
    const cast = await api.get("/api/demo/personas");
    if (!cast || cast.personas.length < 2) setUrlNotice({ key: "persona.none", id });
    else if (cast.personas.some((p) => p.id === id)) rememberPersona(cast.cookie, id);
    else setUrlNotice({ key: "persona.unknown", id });
  } catch {
    setUrlNotice({ key: "persona.unchecked", id });
  }
  globalThis.history.replaceState(globalThis.history.state, "", found.rest);
}
