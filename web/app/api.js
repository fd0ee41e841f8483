// JSON over fetch for the API: one error type, and a 401 sends the browser to the sign-in page.
import { signInUrl } from "./lib/urls.js";

// The demo persona the picker's cookie names, repeated in a header only sw.js reads (it cannot
// see cookies), so it keeps each persona's offline copy apart.
const PERSONA_HEADER = "X-Previously-Persona";
function withPersona(headers) {
  const cookies = globalThis.document ? document.cookie : "";
  const m = /(?:^|;\s*)previously_persona=([\w.-]{1,64})(?:;|$)/.exec(cookies);
  return m ? { ...headers, [PERSONA_HEADER]: m[1] } : headers; // an odd value: no header, no failed call
}

// sw.js marks a reply it served from its offline copy; the page then reads only (pwa.js useOnline).
const OFFLINE_HEADER = "X-Previously-Offline";
function reached(online) {
  globalThis.dispatchEvent && globalThis.dispatchEvent(new CustomEvent(REACH_EVENT, { detail: online }));
}
/** The event that says whether the last API call reached the server (detail: true or false). */
export const REACH_EVENT = "previously-reach";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}


/** Call the API; resolves to the parsed JSON body (or null for an empty body). */
export async function apiFetch(method, path, body = undefined) {
  let res;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: withPersona(
        body === undefined ? { Accept: "application/json" } : { "Content-Type": "application/json", Accept: "application/json" },
      ),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    reached(false);
    throw new ApiError(0, "network", err && err.message);
  }
  reached(res.headers.get(OFFLINE_HEADER) !== "1");
  if (res.status === 401 && !path.startsWith("/api/auth/")) {
    globalThis.location.assign(signInUrl(globalThis.location));
    throw new ApiError(401, "unauthorized", "Sign-in required");
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { message: text.slice(0, 300) };
    }
  }
  if (!res.ok) {
    const detail = data && (data.message || data.detail);
    throw new ApiError(res.status, (data && data.error) || "http_error", typeof detail === "string" ? detail : `HTTP ${res.status}`);
  }
  return data;
}

/** Shorthands. */
export const api = {
  get: (path) => apiFetch("GET", path),
  post: (path, body = {}) => apiFetch("POST", path, body),
  patch: (path, body) => apiFetch("PATCH", path, body),
  put: (path, body) => apiFetch("PUT", path, body),
  del: (path) => apiFetch("DELETE", path),
};
