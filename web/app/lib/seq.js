// Which of a turn's events are new, by their gap-free `seq`. Events of parallel tool calls can
// arrive out of order over the socket (each call pushes its own), so a seq below the highest
// seen is still taken once if it was skipped, and a seq already seen is a duplicate.

const MAX_MISSING = 1000;

/** `{last, missing}` after `seq`, or null when `seq` was already taken (a duplicate). */
export function admitSeq(track, seq) {
  if (!seq) return track;
  if (seq > track.last) {
    const gap = [];
    for (let s = track.last + 1; s < seq && gap.length < MAX_MISSING; s += 1) gap.push(s);
    return { last: seq, missing: gap.length ? track.missing.concat(gap) : track.missing };
  }
  if (!track.missing.includes(seq)) return null;
  return { last: track.last, missing: track.missing.filter((s) => s !== seq) };
}
