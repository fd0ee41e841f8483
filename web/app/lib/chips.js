// Briefing suggestion chips: a short label (≤ 30 characters) and the full message it sends.

export const CHIP_LABEL_MAX = 30;

/** Shorten a label to `max` characters (code points), ending with an ellipsis when cut. */
export function clipLabel(text, max = CHIP_LABEL_MAX) {
  const chars = Array.from(String(text || "").trim().replace(/\s+/g, " "));
  if (chars.length <= max) return chars.join("");
  return `${chars.slice(0, max - 1).join("").trimEnd()}…`;
}

/**
 * The chips for the arrival briefing. Suggestions from the server win (labels still clipped);
 * otherwise they are built from the last topic, the open loops and another recent slice.
 */
export function buildChips(state, t) {
  if (!state) return [];
  const fromServer = Array.isArray(state.suggestions) ? state.suggestions : [];
  const chips = fromServer.length
    ? fromServer.map((s) => ({ label: s.label || s.prompt, prompt: s.prompt || s.label }))
    : localChips(state, t);
  return chips
    .filter((c) => c.prompt && String(c.prompt).trim())
    .map((c) => ({ label: clipLabel(c.label), prompt: String(c.prompt) }))
    .slice(0, 4);
}

function localChips(state, t) {
  const chips = [];
  const topic = (state.last_topic || "").trim();
  if (topic) {
    chips.push({ label: t("chips.continue", { topic }), prompt: t("chips.continuePrompt", { topic }) });
  }
  if (Array.isArray(state.open_loops) && state.open_loops.length) {
    chips.push({ label: t("chips.loops"), prompt: t("chips.loopsPrompt") });
  }
  const other = (state.recent || []).find((r) => r && r.focus && r.focus.trim() && r.slice_id !== state.last_slice_id);
  if (other) {
    const topicOther = other.focus.trim();
    chips.push({ label: t("chips.talk", { topic: topicOther }), prompt: t("chips.talkPrompt", { topic: topicOther }) });
  }
  return chips;
}
