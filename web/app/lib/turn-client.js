// Following a turn: the WebSocket first (`turn.start` / `turn.follow`), HTTP as the fallback
// (`POST /api/turns`, then `GET /api/turns/{id}?after=SEQ`), and a small record in localStorage so a
// reload mid-turn can pick the same turn up again.

import { admitSeq } from "./seq.js";
import { isTerminal } from "./stream.js";

export const RESUME_KEY = "previously:turn";

/** Remember the running turn (id, last seq seen, the message) so a reload can resume it. */
export function saveResume(storage, record) {
  try {
    storage.setItem(RESUME_KEY, JSON.stringify(record));
  } catch {
    // Private mode or a full quota: resuming after a reload is a convenience, not a must.
  }
}

/** The remembered running turn, or null. */
export function loadResume(storage) {
  try {
    const rec = JSON.parse(storage.getItem(RESUME_KEY) || "null");
    return rec && typeof rec.turn_id === "string" ? rec : null;
  } catch {
    return null;
  }
}

/** Forget the remembered turn. */
export function clearResume(storage) {
  try {
    storage.removeItem(RESUME_KEY);
  } catch {
    // Nothing to clean up if storage is unavailable.
  }
}

/** The WebSocket URL for a page location (same origin, ws: or wss:). */
export function wsUrlFor(location, path = "/api/ws") {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

/**
 * Start (opts.start = request body) or follow (opts.turnId, opts.after) a turn.
 * Calls onTurnId once the id is known, onEvent per new event (no duplicates; a skipped seq may come late),
 * onEnd(status) when the turn ends, onError(error) when it cannot be followed. Returns {stop}.
 */
export function followTurn(opts) {
  const {
    start = null,
    WebSocketImpl = globalThis.WebSocket,
    wsUrl = null,
    fetchJson,
    pollMs = 300,
    waitSeconds = 20,
    timers = globalThis,
    onEvent = () => {},
    onTurnId = () => {},
    onEnd = () => {},
    onError = () => {},
  } = opts;
  let turnId = opts.turnId || null;
  let lastSeq = opts.after || 0;
  let missing = [];
  let finished = false;
  let ws = null;
  let timer = null;
  let failures = 0;

  function finish(status) {
    if (finished) return;
    finished = true;
    if (ws) ws.close();
    if (timer) timers.clearTimeout(timer);
    onEnd(status);
  }

  function fail(error) {
    if (finished) return;
    finished = true;
    if (ws) ws.close();
    if (timer) timers.clearTimeout(timer);
    onError(error);
  }

  function learnId(id) {
    if (id && !turnId) {
      turnId = id;
      onTurnId(id);
    }
  }

  function handle(event) {
    if (finished || !event || typeof event !== "object") return;
    const seq = Number(event.seq) || 0;
    const next = admitSeq({ last: lastSeq, missing }, seq);
    if (!next) return;
    ({ last: lastSeq, missing } = next);
    learnId(event.turn_id);
    onEvent(event);
    if (isTerminal(event)) finish(event.type === "turn.error" ? "error" : event.status || "done");
  }

  async function poll() {
    timer = null;
    if (finished) return;
    try {
      // Long-poll: the server answers as soon as there is something new (or after `waitSeconds`).
      const view = await fetchJson("GET", `/api/turns/${encodeURIComponent(turnId)}?after=${lastSeq}&wait=${waitSeconds}`);
      failures = 0;
      for (const event of view.events || []) handle(event);
      if (!finished && view.status && view.status !== "running") finish(view.status);
    } catch (err) {
      if (err && err.status === 404) return fail(err);
      failures += 1;
      if (failures > 6) return fail(err);
    }
    if (!finished) timer = timers.setTimeout(poll, pollMs * Math.min(4, 1 + failures));
  }

  async function viaHttp() {
    if (finished) return;
    if (!turnId) {
      try {
        const accepted = await fetchJson("POST", "/api/turns", start);
        learnId(accepted.turn_id);
      } catch (err) {
        return fail(err);
      }
    }
    poll();
  }

  function viaSocket() {
    let opened = false;
    let sentStart = false;
    try {
      ws = new WebSocketImpl(wsUrl);
    } catch {
      ws = null;
      return viaHttp();
    }
    ws.onopen = () => {
      opened = true;
      if (turnId) {
        ws.send(JSON.stringify({ action: "turn.follow", turn_id: turnId, after: lastSeq }));
      } else {
        sentStart = true;
        ws.send(JSON.stringify({ action: "turn.start", ...start }));
      }
    };
    ws.onmessage = (msg) => {
      let data;
      try {
        data = JSON.parse(msg.data);
      } catch {
        return;
      }
      if (data && data.type === "turn.accepted") return learnId(data.turn_id);
      if (data && data.type && data.type !== "error") return handle(data);
      if (data && data.error) {
        const err = new Error(data.message || data.error);
        err.code = data.error;
        err.status = data.status;
        return fail(err);
      }
      if (data && data.turn_id) learnId(data.turn_id);
    };
    ws.onclose = () => {
      ws = null;
      if (finished) return;
      if (!opened) return viaHttp();
      if (turnId) return poll();
      // The start was sent but no id came back: re-sending could run the turn twice.
      if (sentStart) fail(new Error("connection lost before the turn started"));
    };
    ws.onerror = () => {};
  }

  if (WebSocketImpl && wsUrl) viaSocket();
  else viaHttp();

  return {
    stop() {
      if (finished) return;
      finished = true;
      if (ws) ws.close();
      if (timer) timers.clearTimeout(timer);
    },
    get turnId() {
      return turnId;
    },
    get lastSeq() {
      return lastSeq;
    },
  };
}

/** Events a closing turn records after `turn.done` that the chat shows: the card pass's outcome. */
const LATE = new Set(["card.evolved", "card.skipped"]);

/**
 * After a turn that closed a slice has ended for the user, read its own event log on
 * (`GET /api/turns/{id}?after=SEQ`): the close passes run after the reply, and their `card.evolved`
 * or `card.skipped` goes to onEvent when it arrives. Stops at that event, at the run's `after`
 * step, on an error or after `maxMs`. Returns {stop}.
 */
export function followLate(opts) {
  const { turnId, fetchJson, pollMs = 1500, maxMs = 300_000, timers = globalThis, now = () => Date.now(), onEvent = () => {} } = opts;
  let after = opts.after || 0;
  let timer = null;
  let stopped = false;
  const until = now() + maxMs;
  async function poll() {
    timer = null;
    if (stopped) return;
    try {
      const view = await fetchJson("GET", `/api/turns/${encodeURIComponent(turnId)}?after=${after}`);
      for (const event of view.events || []) {
        if (stopped) return;
        after = Math.max(after, Number(event.seq) || 0);
        if (LATE.has(event.type)) {
          stopped = true;
          return onEvent(event);
        }
        if (event.type === "step.done" && event.step === "after") stopped = true;
      }
    } catch {
      stopped = true; // a card change is also on the timeline and the card page: nothing is lost
    }
    if (!stopped && now() < until) timer = timers.setTimeout(poll, pollMs);
  }
  timer = timers.setTimeout(poll, 0);
  return {
    stop() {
      stopped = true;
      if (timer) timers.clearTimeout(timer);
    },
  };
}
