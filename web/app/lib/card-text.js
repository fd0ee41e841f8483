// The card's Markdown as a person reads it: without the file's title and its bookkeeping line
// ("_Active slice: … | Format: … | Updated: …_"), which say how the file is kept, not who you are.

const STAMP = /^_Active slice: [^\n]*\| Updated: [^\n]*_$/;
const TITLE = /^# Previously On\s*$/i;

const REFS = /\s*—\s*refs:\s*(.*)$/;
const SLICE_REF = /^(\d{4})[/-](\d{2})[/-](\d{2})[/-](\d{4})$/;

/** An entry's " — refs: [2025/02/08/1617]" tail as links to those slices (the card page's
 * way), so no bookkeeping syntax is shown; a ref that names no slice stays as plain text. */
export function refsAsLinks(line) {
  const m = REFS.exec(line);
  if (!m) return line;
  const bracketed = [...m[1].matchAll(/\[([^\]]*)\]/g)].flatMap((b) => b[1].split(","));
  const refs = (bracketed.length ? bracketed : m[1].split(/[,\s]+/)).map((r) => r.trim()).filter(Boolean);
  const links = refs.map((r) => {
    const d = SLICE_REF.exec(r);
    return d ? `[${d[1]}/${d[2]}/${d[3]}](#/slice/${d[1]}-${d[2]}-${d[3]}-${d[4]})` : r;
  });
  return links.length ? `${line.slice(0, m.index)} — ${links.join(", ")}` : line.slice(0, m.index);
}

/** `markdown` without the leading title and stamp lines, its refs as slice links (every other
 * word exactly as it is). */
export function cardBody(markdown) {
  const lines = String(markdown || "").split("\n");
  let i = 0;
  while (i < lines.length && (lines[i].trim() === "" || TITLE.test(lines[i]) || STAMP.test(lines[i].trim()))) i++;
  return lines.slice(i).map(refsAsLinks).join("\n");
}
