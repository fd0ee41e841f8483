"""Settings and models: `GET/PATCH /api/config` (memory/user/config.json), `GET /api/models`, and
`GET /api/help/{models,forget}` (the model set-up and purge guides the page shows)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from core.errors import NotFound
from core.llm.models_view import ModelsOverview
from core.llm.registry import ModelPrefs
from core.memory.config_store import read_config, save_config_patch
from functions.api.common import AUTH, MUTATION, DepsDep
from functions.api.schemas import ConfigPatch, ConfigView, ErrorBody, ModelsView
from functions.compose.deps import REPO_ROOT, Deps
from functions.models_json import models_json

router = APIRouter(tags=["settings"], dependencies=AUTH, responses={401: {"model": ErrorBody}})
# The guides the page shows in a dialog, by name: `GET /api/help/{name}`.
GUIDES = {"models": REPO_ROOT / "docs" / "MODELS.md", "forget": REPO_ROOT / "docs" / "FORGET.md"}


@router.get("/api/help/{name}", response_class=PlainTextResponse)
def get_guide(name: str) -> PlainTextResponse:
    """A guide as plain text: `models` (docs/MODELS.md, how to configure a model provider) or
    `forget` (docs/FORGET.md, how to purge what git history still holds)."""
    path = GUIDES.get(name)
    if path is None:
        raise NotFound(f"There is no guide called {name!r}; there are: {', '.join(GUIDES)}.")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise NotFound(f"The guide is not bundled here; see docs/{path.name} in the repository.") from exc
    return PlainTextResponse(text, media_type="text/plain; charset=utf-8")


@router.get("/api/models", response_model=ModelsView)
async def get_models(deps: DepsDep) -> ModelsView:
    """Configured providers, their models, and the resolved main and worker models."""
    prefs = ModelPrefs.from_config(read_config(deps.storage.snapshot())[0].data)
    overview = await run_in_threadpool(deps.models.models_overview, prefs)
    return models_view(overview)


def models_view(overview: ModelsOverview) -> ModelsView:
    """The overview in the API's shape (ids at the top, details alongside)."""
    payload = models_json(overview)
    return ModelsView(
        providers=[p.provider.id for p in overview.providers],
        models=payload["models"],
        main=overview.main.model.info.id if overview.main else None,
        worker=overview.worker.model.info.id if overview.worker else None,
        configured=overview.configured,
        provider_details=payload["providers"],
        presets=payload["presets"],
        main_model=payload["main"],
        worker_model=payload["worker"],
        notes=payload["notes"],
        setup=payload["setup"],
    )


def config_view(deps: Deps) -> ConfigView:
    """The preferences as stored now."""
    config, problems = read_config(deps.storage.snapshot())
    return ConfigView(config=config.data, problems=[str(p) for p in problems])


@router.get("/api/config", response_model=ConfigView)
def get_config(deps: DepsDep) -> ConfigView:
    """Preferences (memory/user/config.json) merged with the defaults."""
    return config_view(deps)


@router.patch(
    "/api/config",
    response_model=ConfigView,
    dependencies=MUTATION,
    responses={400: {"model": ErrorBody}, 403: {"model": ErrorBody}},
)
def patch_config(body: ConfigPatch, deps: DepsDep) -> ConfigView:
    """Change some preferences: deep-merged into the file, ranges and choices checked."""
    partial = body.model_dump(exclude_none=True)
    save_config_patch(deps.storage, partial)
    return config_view(deps)
