// The live conversation's state: messages, the running turn, sending, stopping and resuming a turn
// that was still running when the page was reloaded.
import { useEffect, useRef, useState } from "preact/hooks";
import { apiFetch } from "./api.js";
import { applyEvent, applyEvents, initialTurn, isFinished, replyText, stopTurn } from "./lib/stream.js";
import { clearResume, followLate, followTurn, loadResume, saveResume, wsUrlFor } from "./lib/turn-client.js";
import { storedImages, storedPictures, uploads, withoutPictureLinks } from "./attachments.js";

const SAVE_EVERY_MS = 250;
let nextId = 1;
const newId = () => `m${nextId++}`;

function storage() {
  try {
    return globalThis.localStorage;
  } catch {
    return null;
  }
}

/** The WebSocket path named by the page (`<meta name="previously-ws-path">`), else /api/ws. */
function wsPath() {
  const meta = document.querySelector('meta[name="previously-ws-path"]');
  const path = meta && meta.getAttribute("content");
  return path && path.startsWith("/") ? path : "/api/ws";
}

function sessionSlice(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === "assistant" && m.turn.sliceId) return m.turn.sliceId;
  }
  return null;
}

/** What the server needs to know about this conversation (the context-lost rule counts agent turns). */
export function clientState(messages) {
  const sliceId = sessionSlice(messages);
  const seen = messages.filter((m) => m.role === "assistant" && m.turn.status === "done" && m.turn.sliceId === sliceId).length;
  return { slice_id: sliceId, agent_turns_seen: sliceId ? seen : 0 };
}

/** The live chat. `options` builds the request extras (model, thinking, effort, locale); `state`
 * is `GET /api/state`'s answer, whose open slice fills in the exchanges from before a reload. */
export function useChat({ options, onSliceOpened, onFinished, state = null }) {
  const [messages, setMessages] = useState([]);
  const [resuming, setResuming] = useState(true);
  // While an exchange is being taken back (`resend`), the view counts as running: the old exchange
  // is still on screen and must not be edited or answered again a second time.
  const [retracting, setRetracting] = useState(false);
  const retractingRef = useRef(false);
  const ctl = useRef(null);
  const late = useRef([]); // the closing turns whose card change is still to come (followLate)
  const lastSave = useRef(0);
  // Looked up once: after that (or after an exchange was taken back) the page holds the whole
  // conversation, and a refreshed state would still list a taken-back exchange.
  const filled = useRef(false);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;

  const update = (id, fn) => setMessages((ms) => ms.map((m) => (m.id === id ? fn(m) : m)));

  function follow(assistantId, text, opts) {
    const store = storage();
    let seen = opts.after || 0;
    let closing = false; // this turn closed a slice: its card pass reports after `turn.done`
    ctl.current = followTurn({
      ...opts,
      // A message with pictures goes over HTTP: a WebSocket frame (API Gateway's) is too small for it.
      wsUrl: opts.start && opts.start.attachments ? null : wsUrlFor(globalThis.location, wsPath()),
      fetchJson: apiFetch,
      onTurnId: (turnId) => {
        if (store) saveResume(store, { turn_id: turnId, after: 0, message: text });
        update(assistantId, (m) => ({ ...m, turn: { ...m.turn, turnId } }));
      },
      onEvent: (event) => {
        seen = Math.max(seen, Number(event.seq) || 0);
        if (event.type === "turn.started" && event.slice_closed) closing = true;
        update(assistantId, (m) => ({ ...m, turn: applyEvent(m.turn, event), lastEventAt: Date.now() }));
        if (event.type === "turn.started" && onSliceOpened) onSliceOpened(event);
        const now = Date.now();
        if (store && event.turn_id && now - lastSave.current > SAVE_EVERY_MS) {
          lastSave.current = now;
          saveResume(store, { turn_id: event.turn_id, after: event.seq, message: text });
        }
      },
      onEnd: (status) => {
        if (store) clearResume(store);
        const turnId = ctl.current && ctl.current.turnId;
        ctl.current = null;
        if (onFinished) onFinished();
        if (closing && status === "done" && turnId) {
          late.current.push(followLate({ turnId, after: seen, fetchJson: apiFetch,
            onEvent: (event) => update(assistantId, (m) => ({ ...m, turn: applyEvent(m.turn, event) })) }));
        }
      },
      onError: (error) => {
        if (store) clearResume(store);
        ctl.current = null;
        update(assistantId, (m) => ({ ...m, error, turn: stopTurn(m.turn) }));
      },
    });
  }

  /** Send a message. `images`: pictures from the input bar (their bytes go with the message) or
   * pictures already stored with an earlier turn (`stored`: sent again by reference). */
  function send(text, images = []) {
    const message = String(text || "").trim();
    if ((!message && !images.length) || running()) return false; // a picture may go on its own
    const user = { id: newId(), role: "user", text: message, images, at: Date.now() };
    const assistant = { id: newId(), role: "assistant", turn: initialTurn(), error: null, lastEventAt: Date.now(), live: true };
    const body = { message, client: clientState(messagesRef.current), ...options() };
    const fresh = images.filter((a) => !a.stored);
    const again = images.filter((a) => a.stored).map((a) => a.stored);
    if (fresh.length) body.attachments = uploads(fresh);
    if (again.length) body.reattach = again;
    setMessages((ms) => [...ms, user, assistant]);
    follow(assistant.id, message, { start: body });
    return true;
  }

  /** Answer the last message again (`text` null) or send an edit of it. The old exchange is taken
   * back first; the server keeps its words in the slice's agent.md. Rejects when it cannot be. */
  async function resend(text = null) {
    const ms = messagesRef.current;
    const [user, assistant] = ms.slice(-2);
    if (running() || retractingRef.current) return false;
    if (!user || user.role !== "user" || !assistant || assistant.role !== "assistant") return false;
    const { sliceId, turnId } = assistant.turn;
    if (!sliceId || !turnId) return false;
    const path = `/api/slices/${sliceId}/turns/${encodeURIComponent(turnId)}/retract`;
    retractingRef.current = true;
    setRetracting(true);
    let taken;
    try {
      taken = await apiFetch("POST", path, { reason: text === null ? "regenerate" : "edit" });
    } finally {
      retractingRef.current = false;
      setRetracting(false);
    }
    const rest = ms.slice(0, -2);
    filled.current = true;
    messagesRef.current = rest;
    setMessages(rest);
    // The pictures of the exchange go again with it (by reference: they are stored in the slice).
    return send(text === null ? taken.message : text, storedPictures(taken.pictures || []));
  }

  function stop() {
    const turnId = ctl.current && ctl.current.turnId;
    if (ctl.current) ctl.current.stop();
    ctl.current = null;
    // Ask the server to stop too (it keeps the partial reply); the view stops following at once.
    if (turnId) apiFetch("POST", `/api/turns/${encodeURIComponent(turnId)}/cancel`, {}).catch(() => {});
    const store = storage();
    if (store) clearResume(store);
    setMessages((ms) => ms.map((m) => (m.role === "assistant" ? { ...m, turn: stopTurn(m.turn) } : m)));
  }

  function running() {
    const ms = messagesRef.current;
    const last = ms[ms.length - 1];
    return Boolean(last && last.role === "assistant" && !last.error && !isFinished(last.turn));
  }

  // The first exchange joined an open slice (a reload, another device): show what came before it,
  // so the conversation reads whole and the next message counts it as seen. Rare, so the helper
  // loads only when it may be needed (not part of the first load).
  useEffect(() => {
    if (filled.current || !state || !state.active || messages.length < 2) return;
    import("./lib/earlier.js").then(({ earlierMessages, earlierToShow }) => {
      const ms = messagesRef.current;
      const wanted = earlierToShow(ms, state);
      if (!wanted || filled.current) return;
      filled.current = true;
      const earlier = earlierMessages(state.active_turns, wanted.sliceId, wanted.userTurnId).map((m) => ({
        ...m,
        id: newId(),
        ...(m.role === "user" ? { text: withoutPictureLinks(m.content), images: storedImages(m.content, m.sliceId) } : {}),
      }));
      const firstId = ms[0].id;
      if (earlier.length) setMessages((now) => (now.length && now[0].id === firstId ? [...earlier, ...now] : now));
    }, () => {}); // not loaded (offline before it was ever cached): the page's own exchanges stay
  }, [messages, state]);

  // A reload mid-turn: pick the same turn up again (a finished one lives in its slice instead).
  useEffect(() => () => late.current.forEach((l) => l.stop()), []);

  useEffect(() => {
    const store = storage();
    const rec = store && loadResume(store);
    if (!rec) {
      setResuming(false);
      return;
    }
    apiFetch("GET", `/api/turns/${encodeURIComponent(rec.turn_id)}?after=0`)
      .then((view) => {
        if (view.status !== "running") {
          clearResume(store);
          return;
        }
        const turn = applyEvents(initialTurn(rec.turn_id), view.events);
        const user = { id: newId(), role: "user", text: rec.message || "", at: Date.now() };
        const assistant = { id: newId(), role: "assistant", turn, error: null, lastEventAt: Date.now(), live: true };
        setMessages([user, assistant]);
        follow(assistant.id, rec.message || "", { turnId: rec.turn_id, after: turn.lastSeq });
      })
      .catch((err) => {
        if (err && err.status === 404) clearResume(store);
      })
      .finally(() => setResuming(false));
    return () => ctl.current && ctl.current.stop();
  }, []);

  return { messages, send, resend, stop, running: running() || retracting, resuming };
}

/** The finished reply of the last assistant message, for the screen-reader announcement. */
export function lastReply(messages) {
  const last = messages[messages.length - 1];
  if (!last || last.role !== "assistant" || !isFinished(last.turn)) return "";
  return replyText(last.turn);
}
