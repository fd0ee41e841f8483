"""The timeline as the agent reads it: the frozen brief in the prompt, date windows, pages.

Every line is the catalog's pointer line (`- **<id>** <label> · N轮 · tone [tags]`), optionally
tagged with the slice's date on the user's calendar. The brief in the system prompt is frozen
at the slice start: only slices closed before the current one, dates without "N days ago".
Pinned by `timeline_render.json` (briefs, slice_line_with_time, id_tags) and
`recall_filters.json` (the paginated global timeline).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.memory.catalog.entry import CatalogEntry
from core.memory.catalog.timeline_md import entries_of, slice_line
from core.memory.paths import SliceId
from core.reltime import Instant, local_date_key, normalize_locale, rel_phrase, weekday_label
from core.reltime_blocks import slice_start_iso

RECENT = 10
BRIEF_HEADING = "## Timeline (recent)"
EMPTY_LINE = "- (empty — no slices yet)"


def id_tag(slice_id: str, timezone: str | None, locale: str, now: Instant = None) -> str:
    """The id's UTC minute on the user's calendar: `（08-11 周二）`, ` (08-17 Mon)`; with `now`,
    relative instead (`（08-11 周二·6 天前）`, ` (08-17 today)`); "" without a zone or a valid id."""
    start = slice_start_iso(slice_id)
    if not timezone or start is None:
        return ""
    key = local_date_key(start, timezone)
    if key is None:
        return ""
    what = rel_phrase(start, now, timezone, locale, weekday=True) if now else weekday_label(key, locale)
    if not what:
        return ""
    return f"（{key[5:]} {what}）" if normalize_locale(locale) == "zh" else f" ({key[5:]} {what})"


def brief_line(
    entry: CatalogEntry,
    *,
    timezone: str | None = None,
    locale: str = "zh",
    now: Instant = None,
    labels: str | None = None,
) -> str:
    """A pointer line with the date tag after the id; `labels` is the catalog's language."""
    line = slice_line(entry, labels or normalize_locale(locale))
    head = f"- **{entry.id}**"
    tag = id_tag(entry.id, timezone, locale, now)
    return head + tag + line[len(head) :] if tag and line.startswith(head) else line


def _id(entry: CatalogEntry) -> str:
    return entry.id


def newest_first(entries: Sequence[CatalogEntry]) -> list[CatalogEntry]:
    """Entries by id, newest first."""
    return sorted(entries, key=_id, reverse=True)


def newest(entries: Iterable[CatalogEntry], n: int) -> list[CatalogEntry]:
    """The `n` newest entries, newest first (without sorting a whole archive)."""
    return heapq.nlargest(max(0, n), entries, key=_id)


def timeline_brief(
    index: Mapping[str, Any] | None,
    *,
    as_of: str | None = None,
    now: Instant = None,
    timezone: str | None = None,
    locale: str = "zh",
    labels: str | None = None,
    recent: int = RECENT,
) -> str:
    """The `## Timeline (recent)` block.

    Frozen (`as_of` = the current slice id): slices closed before it, absolute date tags, totals
    over that pool — the same text for every turn of the slice. Otherwise: the whole catalog,
    tags relative to `now`, totals from the catalog's counters.
    """
    slices = entries_of(index or {})
    if as_of is not None:
        pool = [e for e in slices if e.closed and e.id < as_of]
        total, dry = len(pool), sum(1 for e in pool if e.needs_marking)
        # A head of the catalog (core/memory/catalog/head.py) counts the closed slices before it.
        total += _count((index or {}).get("older_closed"), 0)
        dry += _count((index or {}).get("older_dry"), 0)
        now = None
    else:
        pool = slices
        total = _count((index or {}).get("slice_count"), len(pool))
        dry = _count((index or {}).get("needs_marking"), 0)
    lines = [BRIEF_HEADING]
    shown = newest(pool, recent)
    lines += [brief_line(e, timezone=timezone, locale=locale, now=now, labels=labels) for e in shown]
    if not shown:
        lines.append(EMPTY_LINE)
    zh = normalize_locale(locale) == "zh"
    if total > recent:
        lines.append(
            f"- 往前共 {total} 片，可用 readTimelineWindow / readSliceSummary 回溯"
            if zh
            else f"- {total} slices in all; reach older ones with readTimelineWindow / readSliceSummary"
        )
    if dry:
        zh_line = f"- {dry} 片尚未生成摘要（needs_marking）"
        en_line = f"- {dry} slice{'' if dry == 1 else 's'} still without a summary (needs_marking)"
        lines.append(zh_line if zh else en_line)
    return "\n".join(lines)


def _count(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def in_window(entries: Sequence[CatalogEntry], start: str | None, end: str | None) -> list[CatalogEntry]:
    """Entries whose UTC date (from the id) lies in [start, end] (either end open), newest first."""
    days = ((e, SliceId.parse(e.id).date) for e in entries)
    return newest_first([e for e, day in days if (not start or day >= start) and (not end or day <= end)])


def _page_header(shown: int, total: int, first: int) -> str:
    tail = "Older slices: use readTimelineWindow with a date range."
    if first == 0:
        return f"Global timeline: showing newest {shown} of {total} slices. {tail}"
    return f"Global timeline: showing slices {first + 1}–{first + shown} of {total}, newest first. {tail}"


def paginate_lines(lines: Sequence[str], limit: int, page: int = 1) -> str:
    """One page of pointer lines (already newest first) under a header saying where it sits."""
    if not lines:
        return "(timeline is empty — no slices yet)"
    limit = max(1, limit)
    pages = (len(lines) + limit - 1) // limit
    if page < 1 or page > pages:
        return f"(no page {page}: the timeline has {pages} page{'s' if pages != 1 else ''} of {limit})"
    first = (page - 1) * limit
    shown = list(lines[first : first + limit])
    return "\n".join([_page_header(len(shown), len(lines), first), *shown])


def paginate_entries(entries: Sequence[CatalogEntry], limit: int, page: int = 1, labels: str = "en") -> str:
    """A page of the catalog, newest first."""
    return paginate_lines([slice_line(e, labels) for e in newest_first(entries)], limit, page)


def pointer_lines(timeline_md: str) -> list[str]:
    """The pointer lines of a timeline.md (it lists them newest first already)."""
    return [line for line in timeline_md.split("\n") if line.startswith("- **")]


def paginate_markdown(timeline_md: str, limit: int, page: int = 1) -> str:
    """A page of timeline.md's pointer lines (when the catalog cannot be read)."""
    return paginate_lines(pointer_lines(timeline_md), limit, page)
