"""Hand-made slices for search tests: core.md text in the product's layout."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.memory.paths import core_md
from core.storage.memory import InMemoryStorage


def slice_text(
    slice_id: str,
    turns: list[tuple[str, str]],
    *,
    status: str = "closed",
    focus: str = "",
    summary: str = "",
    tags: list[str] | None = None,
    timezone: str = "UTC",
) -> str:
    """A core.md with the given (role, text) turns, 30 s apart from the id's minute."""
    y, mo, d, hm = slice_id.split("-")
    start = datetime(int(y), int(mo), int(d), int(hm[:2]), int(hm[2:]), tzinfo=UTC)
    lines = ["---", f"slice_id: {slice_id}"]
    if focus:
        lines.append(f"focus: {focus}")
    lines += [
        f"status: {status}",
        f"start: '{start.strftime('%Y-%m-%dT%H:%M:%S.000Z')}'",
        f"timezone: {timezone}",
    ]
    if summary:
        lines.append(f"summary: {summary}")
    lines.append("tags: []" if not tags else "tags:\n" + "\n".join(f"  - {t}" for t in tags))
    lines.append("---")
    body = []
    for i, (role, text) in enumerate(turns):
        ts = (start + timedelta(seconds=30 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        body.append(f"## Turn t{i // 2:05d} — {ts} ({role})\n\n{text}")
    return "\n".join(lines) + "\n\n" + "\n\n".join(body) + "\n"


def storage_with(slices: dict[str, str]) -> InMemoryStorage:
    """In-memory storage holding these slice texts at their core.md paths."""
    return InMemoryStorage({core_md(sid): text for sid, text in slices.items()})


SAMPLE = {
    "2026-03-14-0900": slice_text(
        "2026-03-14-0900",
        [
            ("user", "I finally adopted a rescue dog today, a beagle called Pixel."),
            ("agent", "Congratulations! How is Pixel settling in?"),
            ("user", "He sleeps all day and chews my shoes."),
        ],
    ),
    "2026-05-02-1830": slice_text(
        "2026-05-02-1830",
        [
            ("user", "My sister's wedding in Lisbon was beautiful, we danced until 2am."),
            ("agent", "That sounds wonderful. Did the whole family make it?"),
        ],
        focus="Sister's wedding in Lisbon",
        tags=["family", "travel"],
    ),
    "2026-07-28-0658": slice_text(
        "2026-07-28-0658",
        [
            ("user", "Work is stressful: the quarterly report is due and my manager keeps changing it."),
            ("agent", "Let's break the report into smaller parts."),
        ],
    ),
    "2026-08-09-2015": slice_text(
        "2026-08-09-2015",
        [
            ("user", "Took Pixel to the beach, he loved chasing the waves."),
            ("agent", "Beagles love the beach! Did he swim?"),
        ],
        timezone="Europe/Berlin",
    ),
    "2026-08-10-1200": slice_text(
        "2026-08-10-1200",
        [("user", "我们今天去爬山了，天气很好。"), ("agent", "爬山很棒！去了哪座山？")],
    ),
}
