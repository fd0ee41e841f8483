// Which demo persona this browser reads: the cookie the picker sets (the server's
// functions/deps.py PERSONA_COOKIE). API calls repeat it in a header that only the service
// worker reads, so the offline copy of each reply is kept per persona (sw.js can see a
// request's headers but never its cookies).

export const PERSONA_COOKIE = "previously_persona";
export const PERSONA_HEADER = "X-Previously-Persona";

/** The picker's cookie in `cookies` (document.cookie by default), or "" when unset. */
export function rememberedPersona(cookies = globalThis.document ? document.cookie : "") {
  for (const part of String(cookies).split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === PERSONA_COOKIE) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return "";
      }
    }
  }
  return "";
}

/** The headers of an API call, with the persona header when the picker's cookie is set. */
export function withPersona(headers) {
  const persona = rememberedPersona();
  return persona ? { ...headers, [PERSONA_HEADER]: persona } : headers;
}
