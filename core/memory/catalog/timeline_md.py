"""`memory/episodic/timeline.md`: the catalog as Markdown, eras and days newest first.

A projection only — index.json is the canonical catalog. With locale `zh` the labels are the
original's, byte for byte; `en` says the same in English.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_LABELS = {
    "zh": {"no_summary": "*(无摘要)*", "turns": "{n}轮", "turn": "{n}轮"},
    "en": {"no_summary": "*(no summary)*", "turns": "{n} turns", "turn": "{n} turn"},
}


def _labels(locale: str) -> dict[str, str]:
    return _LABELS.get(locale, _LABELS["en"])


def slice_line(entry: Mapping[str, Any], locale: str = "en") -> str:
    """`- **<id>** <label>[ · <n> turns][ · <tone>][ [tag,tag]]`."""
    labels = _labels(locale)
    label = entry.get("focus") or entry.get("summary") or labels["no_summary"]
    line = f"- **{entry.get('id', '')}** {label}"
    turns = entry.get("turn_count")
    if isinstance(turns, int) and not isinstance(turns, bool) and turns:
        line += " · " + labels["turn" if turns == 1 else "turns"].format(n=turns)
    if entry.get("tone"):
        line += f" · {entry['tone']}"
    tags = entry.get("tags") or []
    if tags:
        line += f" [{','.join(str(t) for t in tags)}]"
    return line


def group_entries(entries: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[tuple[str, list[Any]]]]]:
    """Eras (`YYYY-MM`) newest first, each with its days newest first, each day's slices newest first."""
    eras: dict[str, dict[str, list[Any]]] = {}
    for entry in sorted(entries, key=lambda e: str(e.get("id", "")), reverse=True):
        date = str(entry.get("date", ""))
        eras.setdefault(date[:7], {}).setdefault(date, []).append(entry)
    return [
        (era, sorted(days.items(), key=lambda kv: kv[0], reverse=True))
        for era, days in sorted(eras.items(), key=lambda kv: kv[0], reverse=True)
    ]


def render_timeline_md(index: Mapping[str, Any], locale: str = "en") -> str:
    """The whole file: a blank line closes the header and every day."""
    lines = [
        "# Timeline",
        "",
        f"_Generated: {index.get('updated_at', '')}_",
        f"_Slices: {index.get('slice_count', 0)}_",
        f"_Needs marking: {index.get('needs_marking', 0)}_",
        f"_Schema: {index.get('_schema', 1)}_",
        "",
    ]
    for era, days in group_entries(index.get("slices") or []):
        lines.append(f"## {era}")
        for day, entries in days:
            lines.append(f"### {day[5:]}")
            lines.extend(slice_line(e, locale) for e in entries)
            lines.append("")
    return "\n".join(lines)
