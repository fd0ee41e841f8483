// The service worker: the app shell and the last timeline the page read, for a phone that is
// offline. Always the network first (so an update shows at once), the cache only when it fails.
// SHELL is checked against the files in web/ by tests/unit/test_pwa.py. API replies are kept per
// demo persona: the page repeats the picker's cookie in PERSONA_HEADER (app/api.js), and
// the copy's key is the URL with that persona added (a `?persona=` already in the URL wins, as
// it does on the server), so offline each persona sees its own last timeline.

const SHELL_CACHE = "previously-shell-v1";
const DATA_CACHE = "previously-data-v2"; // v1 kept replies by URL alone, whoever's they were
const PERSONA_HEADER = "X-Previously-Persona";
// On a copy served because the network failed: the page then shows it read-only (app/api.js), as
// a browser's navigator.onLine can still say "online" when the server cannot be reached.
const OFFLINE_HEADER = "X-Previously-Offline";
const BASE = new URL("./", self.location).pathname;
// The reads the page needs to show the timeline, a slice and the card (never turns, search, export).
const DATA = /^api\/(timeline|state|strands|config|models|card|slices\/[0-9-]+)$/;

const SHELL = [
  "./",
  "index.html",
  "favicon.svg",
  "manifest.json",
  "icons/apple-touch-icon.png",
  "icons/icon-192.png",
  "icons/icon-512.png",
  "icons/icon-maskable-512.png",
  "app/api.js",
  "app/app-data.js",
  "app/app.js",
  "app/attachments.js",
  "app/briefing.js",
  "app/card-history.js",
  "app/card-page.js",
  "app/cards.js",
  "app/chat-state.js",
  "app/chat.js",
  "app/dialog.js",
  "app/editable.js",
  "app/evolution-page.js",
  "app/evolve-now.js",
  "app/header.js",
  "app/html.js",
  "app/i18n/en.js",
  "app/i18n/zh.js",
  "app/icons.js",
  "app/import-page.js",
  "app/lazy.js",
  "app/input-bar.js",
  "app/lib/card-text.js",
  "app/lib/chips.js",
  "app/lib/earlier.js",
  "app/lib/form.js",
  "app/lib/geometry.js",
  "app/lib/i18n.js",
  "app/lib/import-flow.js",
  "app/lib/keys.js",
  "app/lib/prefs.js",
  "app/lib/search.js",
  "app/lib/seq.js",
  "app/lib/stream.js",
  "app/lib/time.js",
  "app/lib/tool-labels.js",
  "app/lib/turn-client.js",
  "app/lib/urls.js",
  "app/lib/web-answer.js",
  "app/main.js",
  "app/markdown.js",
  "app/md-extras.js",
  "app/navigation.js",
  "app/older.js",
  "app/panes.js",
  "app/persona-link.js",
  "app/persona-picker.js",
  "app/popover.js",
  "app/preboot.js",
  "app/preferences.js",
  "app/pwa.js",
  "app/rolling.js",
  "app/search.js",
  "app/settings.js",
  "app/shortcuts.js",
  "app/slice-actions.js",
  "app/slice-dialogs.js",
  "app/slice-view.js",
  "app/travel.js",
  "app/wheel-toolbar.js",
  "app/wheel.js",
  "styles/base.css",
  "styles/cards.css",
  "styles/content.css",
  "styles/controls.css",
  "styles/forms.css",
  "styles/layout.css",
  "styles/markdown.css",
  "styles/wheel.css",
  "vendor/dompurify/purify.js",
  "vendor/fonts/geist-mono-latin-ext.woff2",
  "vendor/fonts/geist-mono-latin.woff2",
  "vendor/fonts/raleway-latin-ext.woff2",
  "vendor/fonts/raleway-latin.woff2",
  "vendor/htm/htm.js",
  "vendor/lucide/icons.js",
  "vendor/marked/marked.js",
  "vendor/preact/hooks.js",
  "vendor/preact/preact.js",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  const keep = new Set([SHELL_CACHE, DATA_CACHE]);
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("previously-") && !keep.has(n)).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

/** The key of an API reply's offline copy: its URL, plus the persona the request names. */
function dataKey(request) {
  const url = new URL(request.url);
  const persona = request.headers.get(PERSONA_HEADER);
  if (persona && !url.searchParams.has("persona")) url.searchParams.set("persona", persona);
  return url.href;
}

/** `hit` as served from the cache, marked so the page knows it is not the network's answer. */
function servedOffline(hit) {
  const headers = new Headers(hit.headers);
  headers.set(OFFLINE_HEADER, "1");
  return new Response(hit.body, { status: hit.status, statusText: hit.statusText, headers });
}

/** The network's answer, kept as the offline copy (the worker stays alive until it is written);
 * offline, the copy. */
async function networkFirst(event, request, cacheName, fallback, key = request) {
  const cache = await caches.open(cacheName);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") event.waitUntil(cache.put(key, response.clone()).catch(() => {}));
    return response;
  } catch (err) {
    const hit = (await cache.match(key)) || (fallback && (await cache.match(fallback)));
    if (hit) return servedOffline(hit);
    throw err;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || !url.pathname.startsWith(BASE)) return;
  const rel = url.pathname.slice(BASE.length);
  if (rel.startsWith("api/")) {
    if (DATA.test(rel)) event.respondWith(networkFirst(event, request, DATA_CACHE, null, dataKey(request)));
    return;
  }
  event.respondWith(networkFirst(event, request, SHELL_CACHE, request.mode === "navigate" ? "./" : null));
});
