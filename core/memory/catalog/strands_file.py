"""A strand file (a shard, or the single strands.json of an older memory) parsed once per text.

Every read through a write batch re-applies its queued updates, and a turn reads the same
file several times; the parse is memoised by the exact text (an entry is addressed by its
content, so it can never be stale). A `StrandsFile` keeps the parsed map with each strand's
rendered member; `splice` renders a changed map by reusing the members of strands that did not
change (and extending the ones that only gained paths at the end), byte for byte
`render_strands` of the new map (tests compare the two). A damaged file parses as it always
did (`parse_strands`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.memory.catalog.strands import Strands, js_key_order, parse_strands, weave_tags
from core.memory.formats import jsjson
from core.memory.formats.memo import TextMemo

_MEMO_SIZE = (
    48  # a turn sees a few versions of a few shards; all 32 together are ~2 MB in memory at 10k slices
)
_LIST_END = "\n  ]"
_ITEM_SEP = ",\n    "


@dataclass(frozen=True, eq=False)
class StrandsFile:
    """A strand map with its canonical text and each strand's rendered member. Never mutated:
    `copy` gives a map to change, `splice` renders the changed map."""

    strands: Mapping[str, list[str]]
    problems: tuple[str, ...]
    order: tuple[str, ...]
    members: Mapping[str, str]
    text: str

    def copy(self) -> Strands:
        """A mutable copy of the map (the lists too)."""
        return {key: list(paths) for key, paths in self.strands.items()}

    def splice(self, strands: Strands) -> StrandsFile:
        """The file for `strands`, re-rendering only the strands that differ from this one's."""
        members = {key: self._member(key, paths) for key, paths in strands.items()}
        same_keys = list(strands) == list(self.strands)
        order = self.order if same_keys else tuple(js_key_order(strands))
        text = jsjson.join_members([members[key] for key in order])
        snapshot = {key: list(paths) for key, paths in strands.items()}
        return StrandsFile(snapshot, (), order, members, text)

    def _member(self, key: str, paths: list[str]) -> str:
        old = self.strands.get(key)
        if old is None:
            return jsjson.member(key, paths)
        if old == paths:
            return self.members[key]
        if old and len(paths) > len(old) and paths[: len(old)] == old:
            # Only appended: the rendered list grows at its end.
            added = _ITEM_SEP.join(jsjson.escape(p) for p in paths[len(old) :])
            return self.members[key][: -len(_LIST_END)] + _ITEM_SEP + added + _LIST_END
        return jsjson.member(key, paths)

    def weave(self, tags: Iterable[str], path: str) -> StrandsFile:
        """This file with `path` woven under each tag, exactly as `weave_tags`."""
        strands = self.copy()
        weave_tags(strands, tags, path)
        return remember(self.splice(strands))


def _from_map(strands: Strands, problems: Iterable[str]) -> StrandsFile:
    order = tuple(js_key_order(strands))
    members = {key: jsjson.member(key, paths) for key, paths in strands.items()}
    text = jsjson.join_members([members[key] for key in order])
    return StrandsFile(strands, tuple(problems), order, members, text)


_MEMO: TextMemo[StrandsFile] = TextMemo(_MEMO_SIZE)
_EMPTY = _from_map({}, ())


def remember(file: StrandsFile) -> StrandsFile:
    """Keep a rendered file so reading its text back costs no parse."""
    return _MEMO.put(file.text, file)


def strands_file(text: str | None) -> StrandsFile:
    """The file for this text (missing → empty; malformed → empty with its problems)."""
    if text is None:
        return _EMPTY
    found = _MEMO.get(text)
    if found is None:
        strands, problems = parse_strands(text)
        found = _MEMO.put(text, _from_map(strands, problems))
    return found


def load_strands(text: str | None) -> Strands:
    """`parse_strands` without the problem list, memoised (a fresh copy to change)."""
    return strands_file(text).copy()
