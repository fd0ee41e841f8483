"""The MCP server's container: an `OutsideAccess` over the memory, the clock, ids and the models."""

from __future__ import annotations

from core.agent.outside import ModelsFor, OutsideAccess
from core.clock import Clock, IdSource, RandomIds, SystemClock
from core.errors import InvalidInput, NoModelConfigured
from core.llm.registry import ModelPrefs, Resolution
from core.memory.config import UserConfig
from core.search.warm import WarmIndex
from core.storage.base import Storage
from functions.compose.deps import ModelDirectory, ModelResolver

# API Gateway gives a request 30 seconds: a remote recall's worker scan must end well before.
REMOTE_RECALL_SECONDS = 20.0


def models_for(registry: ModelDirectory | ModelResolver | None) -> ModelsFor:
    """Resolve the worker from the memory's own config.json (None: recall uses the floor, also
    when the directory cannot resolve a model at all)."""

    def resolve(config: UserConfig) -> Resolution | None:
        if not isinstance(registry, ModelResolver) or not registry.configured:
            return None
        try:
            resolution: Resolution = registry.resolve(None, ModelPrefs.from_config(config.data))
        except (InvalidInput, NoModelConfigured):
            return None
        return resolution

    return resolve


def build_access(
    storage: Storage,
    registry: ModelDirectory | ModelResolver | None,
    *,
    source: str,
    clock: Clock | None = None,
    ids: IdSource | None = None,
    timezone: str | None = None,
    remote: bool = False,
    writes_allowed: bool = True,
    index: WarmIndex | None = None,
) -> OutsideAccess:
    """Access over `storage` with the registry's models (remote: recall ends before the gateway's limit)."""
    access = OutsideAccess(
        storage=storage,
        clock=clock or SystemClock(),
        ids=ids or RandomIds(),
        models=models_for(registry),
        timezone=timezone,
        source=source,
        writes_allowed=writes_allowed,
    )
    if index is not None:
        access.index = index  # the server's kept index (else the access keeps its own)
    if remote:
        access.recall_budget = REMOTE_RECALL_SECONDS
    return access
