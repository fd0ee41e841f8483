// The card's Markdown as a person reads it: without the file's title and its bookkeeping line
// ("_Active slice: … | Format: … | Updated: …_"), which say how the file is kept, not who you are.

const STAMP = /^_Active slice: [^\n]*\| Updated: [^\n]*_$/;
const TITLE = /^# Previously On\s*$/i;

/** `markdown` without the leading title and stamp lines (everything else exactly as it is). */
export function cardBody(markdown) {
  const lines = String(markdown || "").split("\n");
  let i = 0;
  while (i < lines.length && (lines[i].trim() === "" || TITLE.test(lines[i]) || STAMP.test(lines[i].trim()))) i++;
  return lines.slice(i).join("\n");
}
