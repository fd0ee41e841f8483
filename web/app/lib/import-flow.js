// Pure helpers of the Import screen: guessing the format from a file name, reading NDJSON
// progress as it arrives, and the share of the work done.

export const FORMATS = ["chatgpt", "claude", "markdown", "jsonl"];

/** A likely format for a file name; ChatGPT when nothing says otherwise. */
export function guessFormat(name) {
  const lower = String(name || "").toLowerCase();
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return "jsonl";
  if (lower.endsWith(".md") || lower.endsWith(".markdown")) return "markdown";
  if (lower.includes("claude") || lower.includes("anthropic")) return "claude";
  return "chatgpt";
}

/** The complete lines of an NDJSON text read so far, parsed (a cut-off last line waits). */
export function ndjsonLines(text) {
  const lines = String(text || "").split("\n");
  lines.pop();
  return lines.filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/**
 * Progress between 0 and 1 from the accept stream's lines: reading is the first half, writing
 * the second (reading has no total, so it counts as half done once any conversation is read).
 */
export function progressOf(lines) {
  let share = 0;
  for (const line of lines) {
    if (line.type !== "progress") continue;
    if (line.phase === "read") share = Math.max(share, 0.25);
    if (line.phase === "write" && line.total) share = Math.max(share, 0.5 + 0.5 * Math.min(1, line.done / line.total));
  }
  if (lines.some((l) => l.type === "done")) share = 1;
  return share;
}

/** The final line of the stream, if it has come: `{type: "done", …}` or `{type: "error", …}`. */
export function outcomeOf(lines) {
  return lines.find((l) => l.type === "done" || l.type === "error") || null;
}

/**
 * A server message split at its `code` spans, for the page to show them as code rather than
 * as backticks: [{ code: false, text }, { code: true, text }, …]. A lone backtick stays text.
 */
export function codeParts(message) {
  const text = String(message || "");
  const parts = [];
  const span = /`([^`\n]+)`/g;
  let last = 0;
  for (let m = span.exec(text); m; m = span.exec(text)) {
    if (m.index > last) parts.push({ code: false, text: text.slice(last, m.index) });
    parts.push({ code: true, text: m[1] });
    last = span.lastIndex;
  }
  if (last < text.length) parts.push({ code: false, text: text.slice(last) });
  return parts;
}
