// The live conversation's exchanges from before this page was opened (a reload, another tab or
// device): when the page's first exchange joins an open slice, the slice's earlier turns — as
// `GET /api/state` lists them in `active_turns` — are shown above it. The server counts what the
// page shows (the context-lost rule, docs/FORMAT.md `closed_by`), so a page that showed only its
// own exchanges would have its next message start a new slice.
import { applyEvents, initialTurn } from "./stream.js";

/** The open slice this page's first exchange continues and that exchange's user turn id, when its
 * earlier turns are still to be shown; else null. `state` is `GET /api/state`'s answer. */
export function earlierToShow(messages, state) {
  const [first, reply] = messages;
  if (!first || first.role !== "user" || first.earlier || !reply || reply.role !== "assistant") return null;
  const turn = reply.turn;
  const active = state && state.active;
  if (!turn.sliceId || turn.sliceOpened || !active || active.slice_id !== turn.sliceId) return null;
  return { sliceId: turn.sliceId, userTurnId: turn.userTurnId || turn.turnId };
}

/** A stored reply as a finished assistant turn of slice `sliceId` (its words; the cognition
 * stays in the slice view). */
export function storedReply(sliceId, turnId, text) {
  return applyEvents(initialTurn(turnId), [
    { seq: 1, type: "turn.started", step: "prepare", attempt: 1, turn_id: turnId, slice_id: sliceId, slice_opened: false },
    { seq: 2, type: "text.delta", step: "agent", attempt: 1, text },
    { seq: 3, type: "turn.done", step: "finish", attempt: 1, status: "done", agent_turn_id: turnId },
  ]);
}

/** The slice's turns before `userTurnId` (all of them when it is not among them yet) as chat
 * messages marked `earlier`: `{role: "user", content}` and `{role: "assistant", turn}`. */
export function earlierMessages(turns, sliceId, userTurnId) {
  const list = Array.isArray(turns) ? turns : [];
  const end = list.findIndex((t) => t.role === "user" && t.turn_id && t.turn_id === userTurnId);
  return (end < 0 ? list : list.slice(0, end)).map((t, i) =>
    t.role === "agent"
      ? { id: `e${i}`, role: "assistant", earlier: true, error: null, turn: storedReply(sliceId, t.turn_id || null, t.content || "") }
      : { id: `e${i}`, role: "user", earlier: true, content: t.content || "", sliceId },
  );
}
