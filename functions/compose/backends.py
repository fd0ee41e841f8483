"""One function per backend: the storage, the run stores, the turn's wiring, the access policy, the web.

Every entrypoint's container (functions/compose/local.py, aws.py, mcp.py) is built from these;
no other module constructs a storage backend or a run store (tests/unit/test_layers.py).
Backends are imported on use: PyGithub alone costs a cold start a good second.
"""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from core.clock import Clock, IdSource, RandomIds, SystemClock
from core.llm.registry import ModelRegistry
from core.storage.base import Storage
from core.storage.local import LocalStorage
from core.turn.deps import SinkFactory, TurnDeps
from core.turn.runstore import MemoryRunStore, RunStore
from core.turn.runstore_fs import FolderRunStore
from core.turn.sink import RunStoreSinks
from core.web import WebAccess
from core.web.fetch import WebFetcher
from core.web.guard import FetchGuard
from core.web.search import BraveSearch, SearchBackend, SearxngSearch
from functions.settings import Settings

if TYPE_CHECKING:  # the API's security pulls in FastAPI, which step and maintenance Lambdas never need
    from core.storage.demo import OverlayFactory
    from functions.api.security import Security

RUNS_KEPT_DAYS = 14


def build_storage(
    settings: Settings,
    memory_override: Path | None = None,
    overlay_for: OverlayFactory | None = None,
    *,
    every_slice: bool = False,
) -> Storage:
    """The storage STORAGE selects; `--memory DIR` (the override) always means a folder.

    On GitHub the slices are listed a month at a time as reads need them (a turn lists its
    month only); `every_slice` says the caller lists them all anyway (`maintain`, `weave`), so
    with nothing cached the listing is one recursive tree rather than a walk folder by folder.

    With an override, `demo` runs the read-only overlay on that folder and every other setting
    uses it as a local folder, so `previously check --memory DIR` reads exactly DIR. A demo's
    writes go where `overlay_for` says (default: this process's memory).
    """
    if settings.storage == "demo":
        from core.storage.demo import DemoStorage
        from functions.compose import demo

        return DemoStorage(memory_override or demo.SAMPLE_ROOT, overlay_for)
    if memory_override is not None or settings.storage == "local":
        from core.storage.disk_cache import folder_memo_file

        folder = memory_override or settings.memory_root
        return LocalStorage(folder, folder_memo=folder_memo_file(settings.cache_dir, folder))
    from core.memory.paths import SLICES
    from core.storage.disk_cache import DiskCache, SharedCache, cache_root
    from core.storage.github import GitHubStorage
    from core.storage.github_listing import LazyTrees
    from functions.aws.blob_cache import run_bucket_cache

    token = settings.github_token.get_secret_value() if settings.github_token else ""
    repo = settings.github_repo or ""
    root = cache_root(settings.cache_dir, repo)
    # A folder for the server and CLI; inside a deployed Lambda, the run bucket.
    shared: SharedCache | None = (
        DiskCache(root) if root is not None else run_bucket_cache(settings.cache_dir, repo)
    )
    return GitHubStorage(
        repo,
        token,
        branch=settings.github_branch,
        api_url=settings.github_api_url,
        disk_cache=shared,
        lazy=None if every_slice else LazyTrees(SLICES.value, depth=2),
    )


def runs_root(settings: Settings, storage: Storage) -> Path:
    """$PREVIOUSLY_RUNS, else `<memory-root>.runs/` beside a local memory, else a temp folder."""
    if settings.runs_dir is not None:
        return settings.runs_dir
    if isinstance(storage, LocalStorage):
        root = storage.root.resolve()
        return root.parent / f"{root.name}.runs"
    return Path(tempfile.gettempdir()) / "previously-runs"


def build_run_store(settings: Settings, storage: Storage, clock: Clock | None = None) -> FolderRunStore:
    """The folder run store for this memory; runs untouched for two weeks are removed."""
    store = FolderRunStore(runs_root(settings, storage))
    store.prune((clock or SystemClock()).now() - timedelta(days=RUNS_KEPT_DAYS))
    return store


def memory_run_store(settings: Settings, storage: Storage, clock: Clock | None = None) -> RunStore:
    """The run store turns over this memory write, so every runner (serve, `previously chat`,
    `previously maintain`) reads the same runs and recovers what another one left behind.
    The demo saves nothing, runs included."""
    return unsaved_run_store() if storage.demo else build_run_store(settings, storage, clock)


def unsaved_run_store() -> RunStore:
    """A run store held in this process only (the demo's, and a one-off command's)."""
    return MemoryRunStore()


def build_search(settings: Settings) -> SearchBackend | None:
    """SearXNG when SEARXNG_URL is set, else Brave Search when its key is, else none."""
    if settings.searxng_url:
        return SearxngSearch(settings.searxng_url)
    key = settings.brave_search_api_key.get_secret_value().strip() if settings.brave_search_api_key else ""
    return BraveSearch(key) if key else None


def build_web(settings: Settings) -> WebAccess:
    """webFetch (unless PREVIOUSLY_WEB_FETCH is off) behind the guard, and the search backend (WEB.md)."""
    fetcher = WebFetcher(FetchGuard.from_setting(settings.fetch_allow_hosts)) if settings.web_fetch else None
    return WebAccess(fetcher=fetcher, search=build_search(settings))


def build_turn_deps(
    settings: Settings,
    storage: Storage,
    run_store: RunStore,
    *,
    clock: Clock | None = None,
    ids: IdSource | None = None,
    registry: ModelRegistry | None = None,
    sink_for: SinkFactory | None = None,
) -> TurnDeps:
    """Everything a turn step needs, from the settings and the chosen storage and run store
    (events go to the run store unless `sink_for` names where an attempt's go)."""
    from functions.llm import build_registry

    clock = clock or SystemClock()
    return TurnDeps(
        storage=storage,
        clock=clock,
        ids=ids or RandomIds(),
        run_store=run_store,
        models=registry if registry is not None else build_registry(settings, clock),
        sink_for=sink_for or RunStoreSinks(run_store),
        demo=storage.demo,
        web=build_web(settings),
        turn_timeout=timedelta(minutes=settings.turn_timeout_minutes),
    )


def build_security(settings: Settings, required: bool, secret_file: Path | None = None) -> Security:
    """The access policy from the configured key (plain or hashed) and whether auth is required.

    Sessions are signed with PREVIOUSLY_SESSION_SECRET; without it, with a secret kept in
    `secret_file` (the local server: beside the memory, never inside it), else one per process.
    """
    from functions.api.guard import RequestGuard
    from functions.api.security import Security, load_session_secret

    plain = settings.access_key.get_secret_value().strip() if settings.access_key else ""
    secret = settings.session_secret.get_secret_value().strip() if settings.session_secret else ""
    if not secret and secret_file is not None and (plain or settings.stored_key):
        secret = load_session_secret(secret_file)
    return Security.build(
        plain or None,
        settings.stored_key,
        secret or None,
        required,
        RequestGuard.build(
            settings.public_host_list,
            settings.behind_cloudfront,
            settings.origin_secret.get_secret_value().strip() if settings.origin_secret else None,
            settings.cors_origin_list,
        ),
    )


def secret_file(settings: Settings, storage: Storage) -> Path | None:
    """Where a local server keeps its session-signing secret: in the runs folder beside the memory."""
    if not isinstance(storage, LocalStorage) or storage.demo:
        return None
    return runs_root(settings, storage) / "session-secret"
