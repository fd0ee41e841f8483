"""The owner of a slice's core.md for the operations that change it (forget, edit, take-back) and
the one that inspects it (check): read, parse, change, write — in one place.

Reading for a change refuses what cannot be changed safely, untouched: a damaged core.md (not
UTF-8, over its cap: `readable_slice_file`) and an old single-file slice (its words are read,
never cut). Writing queues the change on the batch as the turn's own writer does
(`core.memory.slice.merge.SliceUpdate`: the text a rewrite moves out goes to appendix.md in the
same commit), so no operation renders core.md itself.
"""

from __future__ import annotations

from datetime import datetime

from core.clock import iso
from core.errors import InvalidInput
from core.memory import paths
from core.memory.damage import Listing
from core.memory.slice.merge import SliceEdit, edit_slice
from core.memory.slice.model import Slice, parse_core_md
from core.memory.slice.view import readable_slice_file
from core.storage.base import WriteBatch


def parse_slice(text: str) -> Slice:
    """A core.md text as a slice (SliceFormatError names the line to fix)."""
    return parse_core_md(text)


def read_for_change(view: Listing, slice_id: str, legacy: str) -> Slice:
    """The slice's core.md, parsed, for an operation that will rewrite it.

    NotFound for an unknown slice; InvalidInput — `legacy` as the message — for an old
    single-file slice, and for a damaged core.md (left exactly as it is); SliceFormatError names
    the line of a frontmatter that does not parse.
    """
    path, text = readable_slice_file(view, slice_id)
    if path != paths.core_md(slice_id):
        raise InvalidInput(legacy)
    return parse_slice(text)


def queue_change(batch: WriteBatch, slice_id: str, change: SliceEdit, now: datetime) -> None:
    """Queue `change` over the slice's current core.md (and the appendix it may move text to)."""
    edit_slice(change, iso(now)).queue(batch, slice_id)
