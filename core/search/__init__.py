"""The deterministic full-text recall floor (docs/RECALL.md).

Entry points: `open_index(snapshot).search(question, k, now, tz)` (or `recall(...)` for one
question), `index_slice(batch, slice_id, clock)` when a slice closes, `refresh_index(batch,
clock, full=False)` from maintenance, `unindex_slice(batch, slice_id, clock)` when a slice is forgotten.
"""

from core.search.engine import Hit
from core.search.recall import OpenIndex, RecallResult, index_slice, open_index, recall, unindex_slice
from core.search.refresh import RefreshReport, refresh_index

__all__ = [
    "Hit",
    "OpenIndex",
    "RecallResult",
    "RefreshReport",
    "index_slice",
    "open_index",
    "recall",
    "refresh_index",
    "unindex_slice",
]
