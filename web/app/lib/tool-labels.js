// A tool card's label comes from the server: every `tool.call` event carries it, in the user's
// language and time zone (core/turn/labels.py; each tool declares its phrases beside its
// definition in core/agent/main_tools.py). The page keeps no table of tools of its own.

/** The label for a tool card: the event's, else the tool's name. */
export function toolLabel(item) {
  return item.label || String(item.tool || "tool");
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
