"""The damaged authored files outside the slice folders, named for `maintain`, `check` and the page.

A handful of reads (the card, config.json, the staged notes, the evolution files and playbooks): cheap
enough for every maintenance pass and every `/api/state`. A slice's core.md is named by
`core.memory.damage.damaged_slices`, which maintenance reads only when the search index
shows a gap; its other files (agent.md, the appendix, the snapshot, pictures, attachments) by
`core.memory.owners.slice_files`, which maintenance re-checks when their folder changed and the
page reads from its record (`notices`).
"""

from __future__ import annotations

from core.errors import Damage
from core.memory import paths
from core.memory.owners.registry import Owner, owner_of
from core.memory.owners.slice_files import View, recorded_damage

_SINGLE = (paths.CARD, paths.CONFIG_JSON)
_FOLDERS = (paths.NOTES_DIR, paths.EVOLUTION_DIR, paths.PLAYBOOKS_DIR)


def damage_of(view: View, owner: Owner, path: paths.MemoryPath) -> Damage | None:
    """What keeps the file from being used, through its owner (text, or bytes for pictures)."""
    return owner.damage(view, path)


def damaged_authored(view: View) -> list[Damage]:
    """Every damaged authored file outside the slice folders (card, config, notes, evolution), by path."""
    found: list[Damage] = []
    listed = [p for folder in _FOLDERS for p in view.list(folder)]
    for path in sorted({*_SINGLE, *listed}):
        owner = owner_of(path)
        if owner is not None and owner.authored and (d := damage_of(view, owner, path)):
            found.append(d)
    return found


def notices(view: View) -> list[str]:
    """One line per damaged authored file, for the page's briefing: those outside the slices
    (read now), and the slice files other than core.md the last maintenance pass found (a
    damaged core.md shows on the timeline and in its slice view instead)."""
    found = [*damaged_authored(view), *recorded_damage(view)]
    return [f"{d.path} could not be read and was left as it is: {d.problem}" for d in found]
