"""Evolve now on AWS: the API records the run and invokes the maintenance function asynchronously.

The two passes can outlast the API's 29 s, so the run happens in the maintenance function (its
timeout is minutes) with the event `{"job": "evolve", "run_id": ...}`; the run's state is in the
S3 run store, where the API's GET reads it (core/jobs/evolve_runs.py).
"""

from __future__ import annotations

import json
from typing import Any

EVOLVE_JOB = "evolve"


def evolve_event(run_id: str) -> dict[str, str]:
    """The maintenance function's event for one evolve-now run."""
    return {"job": EVOLVE_JOB, "run_id": run_id}


class LambdaEvolveLauncher:
    """Starts a recorded run by an asynchronous (`Event`) invoke of the maintenance function."""

    def __init__(self, client: Any, function_name: str) -> None:
        self.client = client
        self.function_name = function_name

    def __call__(self, run_id: str) -> None:
        self.client.invoke(
            FunctionName=self.function_name,
            InvocationType="Event",
            Payload=json.dumps(evolve_event(run_id)).encode("utf-8"),
        )
