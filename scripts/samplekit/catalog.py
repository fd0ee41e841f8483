"""The derived indexes: strands.json (§10), timeline/index.json and timeline.md (§11), monthly _index.json."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .formats import js_json


@dataclass(frozen=True)
class Labels:
    """The words timeline.md uses; they follow `locale` in config.json."""

    turns: str
    no_summary: str


LABELS = {
    "zh": Labels(turns=" · {n}轮", no_summary="*(无摘要)*"),
    "en": Labels(turns=" · {n} turns", no_summary="*(no summary)*"),
}


def slice_rel(slice_id: str) -> str:
    """`2026-11-26-2010` → `2026/11/26/2010`."""
    return "/".join(slice_id.split("-"))


def weave_strands(slices: Iterable[tuple[str, Sequence[str]]]) -> dict[str, list[str]]:
    """Weave every slice's tags in slice order (merge-first, §10.3); tags must already be normalised."""
    strands: dict[str, list[str]] = {}
    for slice_id, tags in slices:
        for tag in tags:
            if tag.isdigit():
                raise ValueError(f"tag {tag!r}: integer-like strand keys change JSON key order (§10.1)")
            paths = strands.setdefault(tag, [])
            if slice_rel(slice_id) not in paths:
                paths.append(slice_rel(slice_id))
    return strands


def catalog_entry(fm: Mapping[str, Any], turn_count: int, strand_keys: Iterable[str]) -> dict[str, Any]:
    """One index.json entry as a full weave builds it from disk (key order of §11.1)."""
    keys = set(strand_keys)
    entry: dict[str, Any] = {"id": fm["slice_id"], "date": fm["slice_id"][:10], "start": fm["start"]}
    if fm.get("end"):
        entry["end"] = fm["end"]
    entry |= {
        "turn_count": turn_count,
        "status": "closed" if fm["status"] == "closed" else "active",
        "focus": fm.get("focus", ""),
        "summary": fm.get("summary", ""),
        "tags": list(fm["tags"]),
    }
    if fm.get("emotional_tone"):
        entry["tone"] = fm["emotional_tone"]
    entry |= {
        "open_loops": list(fm["open_loops"]),
        "decisions": list(fm["decisions"]),
        "strands": [t for t in fm["tags"] if t in keys],
        "needs_marking": not fm.get("focus") and not fm.get("summary"),
    }
    return entry


def build_index(entries: Sequence[dict[str, Any]], updated_at: str) -> dict[str, Any]:
    """The content of `memory/episodic/timeline/index.json` (write it with `js_json`)."""
    ordered = sorted(entries, key=lambda e: e["id"])
    return {
        "_schema": 1,
        "updated_at": updated_at,
        "slice_count": len(ordered),
        "needs_marking": sum(1 for e in ordered if e["needs_marking"]),
        "slices": ordered,
    }


def slice_line(entry: Mapping[str, Any], labels: Labels) -> str:
    """One pointer line: `- **id** label · N turns · tone [tags]`."""
    label = entry["focus"] or entry["summary"] or labels.no_summary
    line = f"- **{entry['id']}** {label}"
    if entry.get("turn_count"):
        line += labels.turns.format(n=entry["turn_count"])
    if entry.get("tone"):
        line += f" · {entry['tone']}"
    if entry["tags"]:
        line += f" [{','.join(entry['tags'])}]"
    return line


def render_timeline_md(index: Mapping[str, Any], labels: Labels) -> str:
    """`memory/episodic/timeline.md`: eras and days newest first (§11.2)."""
    out = [
        "# Timeline",
        "",
        f"_Generated: {index['updated_at']}_",
        f"_Slices: {index['slice_count']}_",
        f"_Needs marking: {index['needs_marking']}_",
        f"_Schema: {index['_schema']}_",
        "",
    ]
    days: dict[str, list[Mapping[str, Any]]] = {}
    for entry in sorted(index["slices"], key=lambda e: e["id"], reverse=True):
        days.setdefault(entry["date"], []).append(entry)
    era = None
    for day, entries in days.items():
        if day[:7] != era:
            era = day[:7]
            out.append(f"## {era}")
        out.append(f"### {day[5:]}")
        out.extend(slice_line(e, labels) for e in entries)
        out.append("")
    return "\n".join(out)


def monthly_indexes(frontmatters: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """`slices/YYYY/MM/_index.json` texts keyed by `YYYY/MM` (§11.6)."""
    months: dict[str, list[dict[str, Any]]] = {}
    for fm in sorted(frontmatters, key=lambda f: f["slice_id"]):
        sid = fm["slice_id"]
        months.setdefault(f"{sid[:4]}/{sid[5:7]}", []).append(
            {
                "id": sid,
                "focus": fm.get("focus", ""),
                "summary": fm.get("summary", ""),
                "tags": list(fm["tags"]),
                "status": fm["status"],
                "start": fm["start"],
                "open_loops": list(fm["open_loops"]),
                "decisions": list(fm["decisions"]),
            }
        )
    return {m: js_json({"month": m.replace("/", "-"), "slices": s}) for m, s in months.items()}
