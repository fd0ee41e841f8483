// Where the sign-in page sends the browser, and back.

/** The sign-in page URL that returns to `loc` afterwards (relative, so it works under any prefix). */
export function signInUrl(loc) {
  const next = `${loc.pathname}${loc.search}${loc.hash}`;
  return `sign-in.html?next=${encodeURIComponent(next)}`;
}

/** A `next` target we may go back to: only a path on this site, never another origin. */
export function safeNext(raw) {
  const next = String(raw || "");
  return next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "./";
}
