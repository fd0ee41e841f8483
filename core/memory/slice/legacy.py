"""Legacy flat slice files (`slices/YYYY/MM/DD/HHMM.md`): read, never written.

Older memories kept a slice as one Markdown file instead of a `HHMM/timeline/` directory. They
use the same frontmatter and turn format, so they parse with the core.md rules; only the
active-slice recovery looks at them. A slice id missing from the frontmatter comes from the path.
"""

from __future__ import annotations

from core.errors import InvalidInput
from core.memory.paths import MemoryPath, legacy_flat_slice_id
from core.memory.slice.model import Slice, parse_core_md


def parse_legacy_slice(path: MemoryPath, text: str) -> Slice:
    """A legacy flat slice file as a Slice (SliceFormatError when its YAML does not parse)."""
    path_id = legacy_flat_slice_id(path)
    if path_id is None:
        raise InvalidInput(f'"{path}" is not a legacy slice file (expected slices/YYYY/MM/DD/HHMM.md).')
    s = parse_core_md(text)
    if not s.slice_id:
        s.slice_id = path_id
    return s
