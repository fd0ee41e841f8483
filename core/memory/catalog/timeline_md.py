"""`memory/episodic/timeline.md`: the catalog as Markdown, eras and days newest first.

A projection only — the catalog (its month files) is canonical. With locale `zh` the labels are the
original's, byte for byte; `en` says the same in English.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.memory.catalog.entry import CatalogEntry

_LABELS = {
    "zh": {"no_summary": "*(无摘要)*", "turns": "{n}轮", "turn": "{n}轮"},
    "en": {"no_summary": "*(no summary)*", "turns": "{n} turns", "turn": "{n} turn"},
}


def _labels(locale: str) -> dict[str, str]:
    return _LABELS.get(locale, _LABELS["en"])


def slice_line(entry: CatalogEntry, locale: str = "en") -> str:
    """`- **<id>** <label>[ · <n> turns][ · <tone>][ [tag,tag]]`."""
    labels = _labels(locale)
    label = entry.focus or entry.summary or labels["no_summary"]
    line = f"- **{entry.id}** {label}"
    if entry.turn_count:
        line += " · " + labels["turn" if entry.turn_count == 1 else "turns"].format(n=entry.turn_count)
    if entry.tone:
        line += f" · {entry.tone}"
    if entry.tags:
        line += f" [{','.join(entry.tags)}]"
    return line


def entries_of(index: Mapping[str, Any]) -> list[CatalogEntry]:
    """The entries of a catalog document (objects without a valid slice id are not entries)."""
    return [e for e in map(CatalogEntry.from_json, index.get("slices") or []) if e]


def group_entries(entries: Sequence[CatalogEntry]) -> list[tuple[str, list[tuple[str, list[CatalogEntry]]]]]:
    """Eras (`YYYY-MM`) newest first, each with its days newest first, each day's slices newest first."""
    eras: dict[str, dict[str, list[CatalogEntry]]] = {}
    for entry in sorted(entries, key=lambda e: e.id, reverse=True):
        eras.setdefault(entry.date[:7], {}).setdefault(entry.date, []).append(entry)
    return [
        (era, sorted(days.items(), key=lambda kv: kv[0], reverse=True))
        for era, days in sorted(eras.items(), key=lambda kv: kv[0], reverse=True)
    ]


def render_timeline_md(index: Mapping[str, Any], locale: str = "en") -> str:
    """The whole file: the header and a blank line, then the eras; a blank line closes every day
    but the last, which ends with its line's newline. An empty catalog is the header and its
    blank line (docs/FORMAT.md, timeline.md: the header plus one extra newline)."""
    header = "\n".join(
        [
            "# Timeline",
            "",
            f"_Generated: {index.get('updated_at', '')}_",
            f"_Slices: {index.get('slice_count', 0)}_",
            f"_Needs marking: {index.get('needs_marking', 0)}_",
            f"_Schema: {index.get('_schema', 1)}_",
        ]
    )
    eras = [
        f"## {era}\n" + "\n".join(_day_block(day, entries, locale) for day, entries in days)
        for era, days in group_entries(entries_of(index))
    ]
    return header + "\n\n" + "\n".join(eras)


def _day_block(day: str, entries: Sequence[CatalogEntry], locale: str) -> str:
    return "".join([f"### {day[5:]}\n", *(slice_line(e, locale) + "\n" for e in entries)])
