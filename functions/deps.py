"""The composition root: the one place that turns settings into concrete backends."""

from __future__ import annotations

from pathlib import Path

from core.storage.base import Storage
from core.storage.demo import DemoStorage
from core.storage.github import GitHubStorage
from core.storage.local import LocalStorage
from functions.settings import Settings

REPO_ROOT = Path(__file__).resolve().parent.parent
# The bundled sample persona (a memory root: it holds memory/).
SAMPLE_ROOT = REPO_ROOT / "sample"


def build_storage(settings: Settings, memory_override: Path | None = None) -> Storage:
    """The storage STORAGE selects; `--memory DIR` (the override) always means a folder.

    With an override, `demo` runs the read-only overlay on that folder and every other setting
    uses it as a local folder, so `previously check --memory DIR` reads exactly DIR.
    """
    if settings.storage == "demo":
        return DemoStorage(memory_override or SAMPLE_ROOT)
    if memory_override is not None or settings.storage == "local":
        return LocalStorage(memory_override or settings.memory_root)
    token = settings.github_token.get_secret_value() if settings.github_token else ""
    return GitHubStorage(
        settings.github_repo or "",
        token,
        branch=settings.github_branch,
        api_url=settings.github_api_url,
    )
