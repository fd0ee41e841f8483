"""An evolve-now run's record survives the run store whatever text its report carries."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from core.jobs.evolve_runs import KEY, PREFIX, EvolveRun
from core.turn.runstore_fs import FolderRunStore


@settings(max_examples=40, deadline=None)
@given(message=st.text(), error=st.one_of(st.none(), st.text()), progress=st.text())
def test_a_run_record_round_trips_through_the_folder_run_store(
    message: str, error: str | None, progress: str
) -> None:
    run = EvolveRun(
        "r1", "failed" if error is not None else "done", "2026-08-11T11:15:00.000Z",
        "2026-08-11T11:16:00.000Z", progress, {"message": message, "card": {"diff": message}}, error,
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as root:
        store = FolderRunStore(Path(root))
        store.put(PREFIX + run.run_id, KEY, run.to_dict())
        got = store.get(PREFIX + run.run_id, KEY)
        assert isinstance(got, dict) and EvolveRun.from_dict(got) == run


def test_an_odd_record_reads_as_failed_not_as_running() -> None:
    odd = EvolveRun.from_dict({"run_id": "x", "status": "whatever", "report": "not a dict"})
    assert (odd.status, odd.report) == ("failed", None)
