"""Convert between the vectors' in-memory TimeSlice objects and our Slice."""

from __future__ import annotations

import re
from typing import Any

from core.clock import parse_iso
from core.memory.formats import matter
from core.memory.formats.escape import FLAG_KEY, FLAG_VALUE, unescape_turn
from core.memory.formats.yaml_load import YamlDate
from core.memory.slice.model import KEY_ORDER, LIST_KEYS, Slice, Turn
from core.memory.slice.turns import slice_turn_spans
from core.text import js_trim_end
from tests.conformance.vectors import shape

# The vectors' in-memory TimeSlice object (optional keys appear only when set).
SLICE = shape(
    "slice",
    "slice_id turns",
    "focus status start end timezone summary open_loops decisions tags related_slices loops"
    " emotional_tone closedBy evolutionSummary estimatedTokens",
)

_DATE_NOTE_RE = re.compile(r'^\(non-string \[object Date\]: "(.*)"\)$')


def slice_from_vector(obj: dict[str, Any]) -> Slice:
    """A vector `input`/`local` object as a Slice."""
    s = Slice(slice_id=obj["slice_id"])
    for key in KEY_ORDER:
        if key in obj:
            setattr(s, key, list(obj[key]) if key in LIST_KEYS else obj[key])
    s.closed_by = obj.get("closedBy", "")
    s.evolution_summary = obj.get("evolutionSummary", "")
    s.turns = [Turn(t.get("turnId"), t["timestamp"], t["role"], t["content"]) for t in obj["turns"]]
    return s


def slice_to_vector(s: Slice) -> dict[str, Any]:
    """Our Slice in the vectors' shape (optional keys only when set, camelCase as in memory)."""
    out: dict[str, Any] = {
        "slice_id": s.slice_id,
        "focus": s.focus,
        "status": s.status,
        "start": s.start,
        "timezone": s.timezone,
        "summary": s.summary,
    }
    out.update(
        {k: list(getattr(s, k)) for k in ("open_loops", "decisions", "tags", "related_slices", "loops")}
    )
    for key, name in (("end", "end"), ("emotional_tone", "emotional_tone"), ("closed_by", "closedBy")):
        if getattr(s, key):
            out[name] = getattr(s, key)
    if s.evolution_summary:
        out["evolutionSummary"] = s.evolution_summary
    out["turns"] = [_turn(t) for t in s.turns]
    return out


def _turn(t: Turn) -> dict[str, Any]:
    d: dict[str, Any] = {"timestamp": t.timestamp, "role": t.role, "content": t.content}
    if t.turn_id is not None:
        d["turnId"] = t.turn_id
    return d


def assert_same_slice(ours: Slice, expected: dict[str, Any]) -> None:
    """Compare with a vector object; a JS Date there matches our YamlDate holding the same instant.

    Deliberate: an unquoted timestamp keeps its source text with us (`2024-01-01`), where the
    original holds a Date (serialised in the vector as ISO or as a `(non-string …)` note).
    """
    got = slice_to_vector(ours)
    want = dict(expected)
    want.pop("estimatedTokens", None)
    for key in ("slice_id", "start", "end"):
        value = getattr(ours, key)
        if isinstance(value, YamlDate) and key in want:
            note = _DATE_NOTE_RE.match(want[key])
            iso = note.group(1) if note else want[key]
            assert parse_iso(value) == parse_iso(iso), key
            want[key] = got[key]
    assert got == {k: want[k] for k in want} and set(got) == set(want)


def as_the_original_frames_it(text: str) -> str:
    """The file with gray-matter's trim applied to its frontmatter (the original's bytes).

    Deliberate difference (core/memory/formats/matter.py): we keep the blank end of a last frontmatter
    value that ends in line breaks; the original trims it away. Nothing else differs.
    """
    split = matter.split(text)
    if not split.has_frontmatter or not split.closed:
        return text
    end = split.yaml_offset + len(split.yaml_text)
    return text[: split.yaml_offset] + js_trim_end(split.yaml_text) + text[end:]


def assert_original_bytes(ours: str, original: str) -> None:
    """Byte for byte the original's file, but for the kept blank end of a last YAML value."""
    if ours != original:
        assert as_the_original_frames_it(ours) == original


def _kept(original: Any, given: Any) -> Any:
    if isinstance(original, str) and isinstance(given, str):
        lost = given[len(original) :]
        return given if given.startswith(original) and "\n" in lost and not lost.strip() else original
    if isinstance(original, list) and isinstance(given, list) and len(original) == len(given):
        return [_kept(o, g) for o, g in zip(original, given, strict=True)]
    return original


def with_kept_ends(reparsed: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The original's re-read slice, with the trailing line breaks its framing lost put back.

    Where the original read back `summary` as `a` from a written `a\\n`, we read `a\\n`.
    """
    return {k: _kept(v, given.get(k)) if k != "turns" else v for k, v in reparsed.items()}


def without_escapes(text: str) -> str:
    """The file with the escape flag line removed and each turn's stored text unescaped: the
    original's bytes for a file we wrote escaped (docs/FORMAT.md "Escaped turn text")."""
    text = text.replace(f"{FLAG_KEY}: {FLAG_VALUE}\n", "", 1)
    out, pos = [], 0
    for span in slice_turn_spans(text):
        out += [text[pos : span.content_start], unescape_turn(text[span.content_start : span.content_end])]
        pos = span.content_end
    return "".join(out) + text[pos:]
