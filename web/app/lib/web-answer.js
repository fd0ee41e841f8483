// The search helper's answer that heads a webSearch result, when there is one
// (core/agent/workers/search_agent.py): the text between its first line and the numbered results.
const HEAD = "Web search for ";
const RESULTS = "\n\nWeb results for ";

/** The helper's answer (answer, recommendation, suggested reads) as text; "" for plain results. */
export function webAnswer(output) {
  const text = typeof output === "string" ? output : "";
  if (!text.startsWith(HEAD)) return "";
  const end = text.lastIndexOf(RESULTS);
  const head = end < 0 ? text : text.slice(0, end);
  const firstBreak = head.indexOf("\n");
  return firstBreak < 0 ? "" : head.slice(firstBreak + 1).trim();
}
