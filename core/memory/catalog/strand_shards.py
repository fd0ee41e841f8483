"""`memory/episodic/strands/`: the strands (tag → slice paths) in shards, and their small menu.

At 10,000 slices the single strands.json was ~730 KB, read whole by every cold turn and
rewritten whole by every close. Here a strand lives in shard `NN.json`, `NN` = crc32 of its
normalised key mod 32: every key a tag can match (`find_matching`: the same normalised form)
sits in one shard, so weaving, unweaving or reading one tag touches one shard, and a match
made inside that shard is the match the whole map gives. `menu.json` is derived from the
shards: per strand, how many slices it names and its newest few — what a turn reads (the
names, the prompt's topic menu, the prune), a few KB.

Each shard is a strands.json of its own (`render_strands` of its part, same rules). Writes are
diffs: an operation computes the new strands of the shards it reads, and queues per changed
shard an Update that, over the shard's text at the commit, adds the paths it added, removes the
paths it removed and drops a key it dropped when nothing else is left in it. Over the text it
read this is exactly the operation's result; over a newer one (a conflict) paths another writer
added stay (unioned, never dropped). The menu's Update re-derives the entries of the changed
shards from what their Updates produced.

The single strands.json is still read (with any shards, paths unioned) until the first write
or maintain converts it: every shard and the menu queued, the old file deleted, one commit.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from core.memory import paths
from core.memory.catalog.index import read_or_none
from core.memory.catalog.strands import (
    Strands,
    find_matching,
    js_key_order,
    normalize_key,
    parse_strands,
    render_strands,
    weave_tags,
)
from core.memory.catalog.strands_file import remember, strands_file
from core.memory.formats import jsjson
from core.memory.owners.registry import update_derived
from core.storage.base import Reader

MENU_LATEST = 3  # the newest paths the menu keeps per strand (the prompt shows the latest before now)

Change = Callable[[Strands], Strands]


class ShardWriter(Reader, Protocol):
    """A batch the shards are queued into (a WriteBatch)."""

    def put(self, path: paths.MemoryPath, text: str) -> None: ...

    def update(self, path: paths.MemoryPath, fn: Callable[[str | None], str | None]) -> None: ...

    def delete(self, path: paths.MemoryPath) -> None: ...


@dataclass(frozen=True)
class MenuEntry:
    """One strand as the menu holds it: how many slices it names and its newest few paths."""

    count: int
    latest: tuple[str, ...]  # newest first (string order of the slice paths)


Menu = dict[str, MenuEntry]


def shard_of(key: str) -> int:
    """The shard holding the strand `key` (and every key that normalises like it)."""
    return zlib.crc32(normalize_key(key).encode("utf-8")) % paths.STRAND_SHARDS


def split(strands: Mapping[str, list[str]]) -> dict[int, Strands]:
    """The map cut into its shards (only shards with keys), each in the map's order."""
    out: dict[int, Strands] = {}
    for key, rels in strands.items():
        out.setdefault(shard_of(key), {})[key] = list(rels)
    return out


def menu_entry(rels: Iterable[object]) -> MenuEntry:
    rels = list(rels)
    newest = sorted({p for p in rels if isinstance(p, str)}, reverse=True)[:MENU_LATEST]
    return MenuEntry(len(rels), tuple(newest))


def menu_of(strands: Mapping[str, list[str]]) -> Menu:
    return {key: menu_entry(rels) for key, rels in strands.items()}


def render_menu(menu: Menu) -> str:
    """menu.json's bytes: strand → {count, latest}, in JS key order, 2-space JSON."""
    return jsjson.dumps(
        {k: {"count": menu[k].count, "latest": list(menu[k].latest)} for k in js_key_order(menu)}
    )


def parse_menu(text: str | None) -> Menu | None:
    """The menu; None when absent or unreadable (it is then derived from the shards)."""
    if text is None:
        return None
    try:
        raw: Any = json.loads(text)
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None
    out: Menu = {}
    for key, value in raw.items():
        count = value.get("count") if isinstance(value, dict) else None
        latest = value.get("latest") if isinstance(value, dict) else None
        if (
            type(count) is not int
            or not isinstance(latest, list)
            or not all(isinstance(p, str) for p in latest)
        ):
            return None
        out[key] = MenuEntry(count, tuple(latest))
    return out


def apply_diff(current: Strands, old: Mapping[str, list[str]], new: Mapping[str, list[str]]) -> Strands:
    """`current` with the change from `old` to `new` applied (the module docstring): exactly
    `new` when `current` is `old`; paths only `current` has stay, and a path another writer
    removed meanwhile is not brought back unless this change adds it."""
    out: Strands = {}
    for key, rels in current.items():
        was = set(old.get(key, ()))
        if key in new:
            out[key] = _merged(rels, list(old.get(key, ())), new[key])
        elif key in old:
            left = [p for p in rels if p not in was]
            if left:
                out[key] = left
        else:
            out[key] = list(rels)
    for key, rels in new.items():
        if key in out or key in current:
            continue
        was = set(old.get(key, ()))
        added = [p for p in rels if p not in was]
        if added or key not in old:  # a key another writer removed keeps only what this one added
            out[key] = added
    return out


def _merged(current: list[str], old: list[str], now: list[str]) -> list[str]:
    """One strand: `now` when nobody else changed it; else its current list less what this change
    removed, then what this change added (as an update of the single file did)."""
    if current == old:
        return list(now)
    was, wanted = set(old), set(now)
    kept = [p for p in current if p in wanted or p not in was]
    have = set(kept)
    return kept + [p for p in now if p not in have and p not in was]


def updated_menu(menu: Menu, changed: Mapping[int, Strands], order: Iterable[str] = ()) -> Menu:
    """`menu` with the entries of the changed shards re-derived from their strands: keys kept in
    place, new keys at the end (in `order` first, the operation's own)."""
    fresh = {key: menu_entry(rels) for strands in changed.values() for key, rels in strands.items()}
    out: Menu = {}
    for key, entry in menu.items():
        if shard_of(key) not in changed:
            out[key] = entry
        elif key in fresh:
            out[key] = fresh[key]
    for key in [*order, *fresh]:
        if key in fresh and key not in out:
            out[key] = fresh[key]
    return out


# Reading


def _legacy(view: Reader) -> Strands | None:
    text = read_or_none(view, paths.STRANDS_JSON)
    return None if text is None else parse_strands(text)[0]


def _shards_present(view: Reader) -> list[int]:
    found = {paths.strand_shard(n).value: n for n in range(paths.STRAND_SHARDS)}
    return sorted(found[p.value] for p in view.list(paths.STRANDS_DIR) if p.value in found)


def read_shard(view: Reader, n: int) -> Strands:
    """One shard's strands ({} when absent or unreadable: rebuilt by the next weave)."""
    return strands_file(read_or_none(view, paths.strand_shard(n))).copy()


def union(*maps: Mapping[str, list[str]]) -> Strands:
    """Maps joined key by key: a key's paths as the first map has them, then the paths a later
    map adds (the same file read alone gives its own lists back unchanged)."""
    out: Strands = {}
    for strands in maps:
        for key, rels in strands.items():
            if key not in out:
                out[key] = list(rels)
                continue
            seen = set(out[key])
            for rel in rels:
                if rel not in seen:
                    seen.add(rel)
                    out[key].append(rel)
    return out


def read_all_strands(view: Reader) -> Strands:
    """Every strand (the single file unioned with the shards), in the menu's order."""
    legacy = _legacy(view)
    present = _shards_present(view)
    merged = union(legacy or {}, *(read_shard(view, n) for n in present))
    if legacy is not None or not present:
        return merged
    menu = parse_menu(read_or_none(view, paths.STRANDS_MENU)) or {}
    return {**{k: merged[k] for k in menu if k in merged}, **merged}


def read_menu(view: Reader) -> Menu:
    """The menu (names, counts, newest paths); derived from the strands when it is missing or
    damaged, or when the single strands.json is still there."""
    if _legacy(view) is None:
        menu = parse_menu(read_or_none(view, paths.STRANDS_MENU))
        if menu is not None:
            return menu
    return menu_of(read_all_strands(view))


def read_strand(view: Reader, tag: str) -> tuple[str, list[str]] | None:
    """The strand named `tag`, else the one it matches (`find_matching`), and its paths, reading
    its shard only."""
    legacy = _legacy(view)
    strands = read_shard(view, shard_of(tag))
    if legacy is not None:
        strands = union({k: v for k, v in legacy.items() if shard_of(k) == shard_of(tag)}, strands)
    key = tag if tag in strands else find_matching(strands, tag)
    return None if key is None else (key, strands[key])


# Writing


def queue_strands(batch: ShardWriter, change: Change, keys: Iterable[str] | None = None) -> None:
    """Queue `change` over the strands of the shards holding `keys` (every shard when None).

    `change` gets those shards' strands as one map and returns the new map; it must not add a
    key outside them. The single strands.json, when still there, is converted here.
    """
    legacy = _legacy(batch)
    present = _shards_present(batch)
    every = legacy is not None or keys is None
    touched = sorted(range(paths.STRAND_SHARDS) if every else {shard_of(k) for k in keys or ()})
    files = {n: read_shard(batch, n) if n in present else {} for n in touched}
    from_legacy = split(legacy or {})
    base: Strands = {}
    for n in touched:
        base.update(union(from_legacy.get(n, {}), files[n]))
    if legacy is not None:
        base = {**{k: base[k] for k in legacy if k in base}, **base}
    new = change({k: list(v) for k, v in base.items()})
    parts = split(new)
    if not set(parts) <= set(touched):
        raise ValueError("a strand change added a key outside the shards it read")
    changed = {n: parts.get(n, {}) for n in touched if parts.get(n, {}) != files[n]}
    menu_text = read_or_none(batch, paths.STRANDS_MENU)
    menu = None if legacy is not None else parse_menu(menu_text)
    if not changed and legacy is None:
        if menu is None and present:  # a damaged or missing menu: derived again
            batch.put(paths.STRANDS_MENU, render_menu(menu_of(read_all_strands(batch))))
        return
    if menu is None:  # no menu yet, a damaged one, or a conversion: derived from the strands
        menu = menu_of(union(*(read_shard(batch, n) for n in present if n not in changed)))
    rederive = {n: parts.get(n, {}) for n in touched} if legacy is not None else changed
    results: dict[int, Strands] = {}
    for n, part in changed.items():
        update_derived(batch, paths.strand_shard(n), _shard_update(n, files[n], part, results))
    base_menu, order = menu, list(new)
    update_derived(
        batch, paths.STRANDS_MENU, lambda text: _menu_update(text, base_menu, rederive, results, order)
    )
    if legacy is not None:
        batch.delete(paths.STRANDS_JSON)


def queue_weave(batch: ShardWriter, tags: Sequence[str], rel: str) -> None:
    """Queue the slice path `rel` woven under each tag (`weave_tags`). When the menu shows every
    tag's strand already naming it (a closed slice woven again), nothing past the menu is read."""
    menu = read_menu(batch)
    names: Strands = {key: [] for key in menu}
    if all((key := find_matching(names, tag)) is not None and rel in menu[key].latest for tag in tags):
        return
    queue_strands(batch, lambda strands: _woven(strands, tags, rel), tags)


def _woven(strands: Strands, tags: Sequence[str], rel: str) -> Strands:
    weave_tags(strands, tags, rel)
    return strands


def _shard_update(
    n: int, old: Strands, new: Strands, results: dict[int, Strands]
) -> Callable[[str | None], str | None]:
    def apply(text: str | None) -> str | None:
        file = strands_file(text)  # parsed once per text; the splice re-renders what changed only
        out = results[n] = apply_diff(file.copy(), old, new)
        rendered = remember(file.splice(out)).text
        return None if rendered == text else rendered

    return apply


def _menu_update(
    text: str | None,
    base: Menu,
    changed: Mapping[int, Strands],
    results: Mapping[int, Strands],
    order: list[str],
) -> str | None:
    menu = parse_menu(text)
    now = {n: results.get(n, part) for n, part in changed.items()}
    rendered = render_menu(updated_menu(base if menu is None else menu, now, order))
    return None if rendered == text else rendered


def migrate_strands(batch: ShardWriter) -> bool:
    """Queue the single strands.json's conversion to the shards (nothing else changes); whether
    there was one to convert."""
    if read_or_none(batch, paths.STRANDS_JSON) is None:
        return False
    queue_strands(batch, lambda strands: strands)
    return True


def put_strands(batch: ShardWriter, strands: Strands) -> None:
    """Queue the whole strands map as the shards and the menu (a rebuild from the slices)."""
    present = _shards_present(batch)
    parts = split(strands)
    for n in sorted(set(present) | set(parts)):
        batch.put(paths.strand_shard(n), render_strands(parts.get(n, {})))
    batch.put(paths.STRANDS_MENU, render_menu(menu_of(strands)))
    if read_or_none(batch, paths.STRANDS_JSON) is not None:
        batch.delete(paths.STRANDS_JSON)
