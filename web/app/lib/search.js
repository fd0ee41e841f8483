// Instant search over the timeline catalog (focus, summary, tags, strands, loops, decisions, date),
// so finding a slice costs no request; the server's full-text search adds matches inside turns.

const FIELDS = [
  ["focus", 8],
  ["summary", 4],
  ["tags", 3],
  ["strands", 3],
  ["open_loops", 2],
  ["decisions", 2],
  ["id", 1],
  ["date", 1],
];

function fieldText(entry, name) {
  const v = entry[name];
  return (Array.isArray(v) ? v.join(" ") : String(v || "")).toLocaleLowerCase();
}

/** Search terms: lower-cased words (a quoted phrase stays whole). */
export function terms(query) {
  const out = [];
  const re = /"([^"]+)"|(\S+)/g;
  let m;
  while ((m = re.exec(String(query || "").toLocaleLowerCase()))) out.push(m[1] || m[2]);
  return out;
}

/** Entries matching every term, best first (newest first among equals), at most `limit`. */
export function searchCatalog(entries, query, limit = 30) {
  const words = terms(query);
  if (!words.length) return [];
  const scored = [];
  entries.forEach((entry, index) => {
    let score = 0;
    for (const word of words) {
      let best = 0;
      for (const [name, weight] of FIELDS) if (fieldText(entry, name).includes(word)) best = Math.max(best, weight);
      if (!best) return;
      score += best;
    }
    scored.push({ entry, score, index });
  });
  scored.sort((a, b) => b.score - a.score || b.index - a.index);
  return scored.slice(0, limit).map((s) => s.entry);
}

/** Split `text` into [plain, match, plain, …] pieces for highlighting (odd indices match). */
export function highlight(text, query) {
  const s = String(text || "");
  const words = terms(query).filter(Boolean);
  if (!words.length) return [s];
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return s.split(new RegExp(`(${escaped.join("|")})`, "i"));
}
