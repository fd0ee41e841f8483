// Human labels for tool cards, built from the tool's name and input (never the raw tool name
// when we know the tool), in the UI's language.
import { shortDate, shortMoment, sliceIdToMs } from "./time.js";

const KNOWN = new Set([
  "recall",
  "readSlice",
  "readSliceSummary",
  "readTimelineWindow",
  "readPreviously",
  "readAgentTimeline",
  "readStrand",
  "readTimeline",
  "listSlices",
  "listStrands",
  "currentTime",
  "webSearch",
  "webFetch",
  "thinkDeep",
]);

function sliceMoment(id, locale) {
  const ms = sliceIdToMs(id);
  return Number.isFinite(ms) ? shortMoment(ms, locale) : String(id || "");
}

function clip(text, max) {
  const s = String(text ?? "");
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function period(input, t, locale) {
  const from = input.from ? shortDate(input.from, locale) : "";
  const to = input.to ? shortDate(input.to, locale) : "";
  if (from && to) return t("tool.period.range", { from, to });
  if (from) return t("tool.period.since", { from });
  if (to) return t("tool.period.until", { to });
  return t("tool.period.recent");
}

function urlSummary(url) {
  try {
    const u = new URL(String(url));
    return clip(u.host + (u.pathname === "/" ? "" : u.pathname), 48);
  } catch {
    return clip(url, 48);
  }
}

/** The `{…}` values a known tool's label template needs. */
function labelParams(tool, input, t, locale) {
  switch (tool) {
    case "readSlice":
    case "readSliceSummary":
    case "readAgentTimeline":
      return { when: sliceMoment(input.sliceId || input.slice_id, locale) };
    case "readPreviously":
      return { when: input.sliceId ? sliceMoment(input.sliceId, locale) : "" };
    case "readTimelineWindow":
    case "readTimeline":
      return { period: period(input, t, locale) };
    case "recall":
    case "webSearch":
      return { query: clip(input.query, 60) };
    case "readStrand":
      return { name: clip(input.strand || input.name, 40) };
    case "webFetch":
      return { url: urlSummary(input.url) };
    case "thinkDeep":
      return { question: clip(input.question, 60) };
    default:
      return {};
  }
}

/** The label for a tool card in a given state (running uses the "…ing" form). */
export function toolLabel(item, t, locale) {
  const input = item.input && typeof item.input === "object" ? item.input : {};
  const phase = item.state === "running" ? "running" : "done";
  if (!KNOWN.has(item.tool)) {
    if (item.label && item.label !== item.tool) return item.label;
    const name = String(item.tool || "tool");
    const args = clip(JSON.stringify(input), 40);
    return `${name.charAt(0).toUpperCase()}${name.slice(1)} ${args === "{}" ? "" : args}`.trim();
  }
  let key = `tool.${item.tool}.${phase}`;
  if (item.tool === "readPreviously" && !input.sliceId) key = `tool.readCard.${phase}`;
  if (item.tool === "recall" && phase === "done" && item.recall) {
    return t("tool.recall.found", { count: item.recall.hits.length, query: clip(item.recall.query, 60) });
  }
  return t(key, labelParams(item.tool, input, t, locale));
}

/** The icon name (web/app/icons.js) for a tool. */
export function toolIcon(tool) {
  if (tool === "recall") return "history";
  if (tool === "currentTime") return "clock";
  if (tool === "webSearch") return "globe";
  if (tool === "webFetch") return "link-2";
  if (tool === "thinkDeep") return "brain";
  if (tool === "readStrand" || tool === "listStrands") return "waypoints";
  if (tool === "listSlices") return "folder";
  if (String(tool).startsWith("read")) return "file-text";
  return "wrench";
}

/** The reason shown on a denied card (the tool's output, or a generic phrase). */
export function deniedReason(item, t) {
  const out = typeof item.output === "string" ? item.output : item.output ? JSON.stringify(item.output) : "";
  return out.trim() || t("tool.deniedGeneric");
}
