"""What a function imports before Lambda SnapStart takes its snapshot.

Without SnapStart every handler imports lazily, so a cold start pays only for what it uses. With
SnapStart (`AWS_LAMBDA_INITIALIZATION_TYPE=snap-start`, set by Lambda while it prepares a
version) the init phase is paid once per deploy, so the heavy imports — the model SDKs, PyGithub,
FastAPI — are done there and every later start restores them from the snapshot. Nothing here
reads a secret or opens a connection: those happen per invocation, after the restore.
"""

from __future__ import annotations

import importlib
import os
import pkgutil

SNAP_START = "snap-start"


def preloading() -> bool:
    """Whether this is SnapStart's init phase."""
    return os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") == SNAP_START


def preload(*modules: str) -> list[str]:
    """Import `modules` during SnapStart's init phase (elsewhere nothing); the names imported."""
    if not preloading():
        return []
    done = []
    for name in modules:
        if name.endswith(".*"):  # a package and every module in it
            package = importlib.import_module(name[:-2])
            subs = [f"{name[:-2]}.{m.name}" for m in pkgutil.iter_modules(package.__path__)]
            for sub in subs:
                importlib.import_module(sub)
            done += subs
        else:
            importlib.import_module(name)
            done.append(name)
    return done


STEP_MODULES = (
    "core.turn.steps.*",
    "core.llm.anthropic_adapter",
    "core.llm.openai_adapter",
    "core.storage.github",
    "functions.compose.aws",
    "functions.llm",
)
API_MODULES = ("functions.api.app", "mangum", "core.storage.github", "functions.compose.aws")
# The scheduled pass and evolve-now: maintenance, the card passes' models, GitHub.
MAINTAIN_MODULES = (
    "core.jobs.maintain",
    "core.jobs.evolve_runs",
    "core.llm.anthropic_adapter",
    "core.llm.openai_adapter",
    "core.storage.github",
    "functions.compose.aws",
    "functions.llm",
)
