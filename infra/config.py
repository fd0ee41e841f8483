"""Typed stage configuration: one validated object per deployment, read from CDK context.

`cdk.json` holds the stages under `previously:stages`; `-c stage=NAME` picks one (default `prod`),
and `-c previously:<field>=value` overrides a single field for one command. A typo or an
out-of-range value stops synth with a message naming the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.ids import RepoName

REPO_ROOT = Path(__file__).resolve().parent.parent
STAGES_KEY = "previously:stages"


class StageConfig(BaseModel):
    """Everything that differs between deployments (names, sizes, limits, the memory repository)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Part of every resource name, so short and DNS-safe.
    name: str = Field(pattern=r"^[a-z][a-z0-9-]{0,20}$")
    account: str | None = Field(default=None, pattern=r"^\d{12}$")
    region: str | None = Field(default=None, pattern=r"^[a-z]{2}(-[a-z]+)+-\d$")

    github_repo: str = Field(default="", description="owner/name of the memory repository")
    github_branch: str = ""
    github_api_url: str = "https://api.github.com"
    # A public demo (docs/DEPLOY.md "A public demo"): the bundled sample personas ship with the
    # functions, STORAGE=demo, no memory repository or GitHub token; visitors' changes are kept
    # in the run bucket and wiped a day after the first one.
    demo: bool = False

    api_memory_mb: int = Field(default=1024, ge=128, le=10240)
    step_memory_mb: int = Field(default=1024, ge=128, le=10240)
    log_retention_days: int = Field(default=30, ge=1)
    run_retention_days: int = Field(default=14, ge=1, le=3650)
    turn_timeout_minutes: int = Field(default=30, ge=5, le=24 * 60)
    maintenance_minutes: int = Field(default=15, ge=5, le=24 * 60)
    # SnapStart: functions start from a snapshot taken after their imports (docs/DEPLOY.md).
    snap_start: bool = True

    api_rate_per_second: float = Field(default=20, gt=0)
    api_burst: int = Field(default=40, ge=1)
    sign_in_rate_per_second: float = Field(default=0.5, gt=0)
    sign_in_burst: int = Field(default=3, ge=1)

    alarm_email: str | None = Field(default=None, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
    layer_dir: Path = REPO_ROOT / "build" / "layer"
    web_dir: Path = REPO_ROOT / "web"
    # Where synth stages the function code (and a placeholder layer when none is built).
    build_dir: Path = REPO_ROOT / "build"

    @field_validator("github_repo")
    @classmethod
    def _repo_shape(cls, v: str) -> str:
        if v and not RepoName.matches(v):
            raise ValueError("github_repo must look like owner/name")
        return v

    @property
    def stack_name(self) -> str:
        return f"Previously-{self.name}"

    @property
    def secret_name(self) -> str:
        return f"previously/{self.name}/app"


def stage_from_context(context: dict[str, Any]) -> StageConfig:
    """The stage named by `stage` in context, with `previously:<field>` overrides applied."""
    stages: dict[str, dict[str, Any]] = context.get(STAGES_KEY) or {}
    name = str(context.get("stage") or "prod")
    if stages and name not in stages:
        raise ValueError(f"Unknown stage {name!r}; cdk.json defines: {', '.join(sorted(stages))}")
    values: dict[str, Any] = {"name": name, **stages.get(name, {})}
    for key, value in context.items():
        if key.startswith("previously:") and key != STAGES_KEY:
            values[key.removeprefix("previously:")] = value
    try:
        return StageConfig(**values)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"Invalid configuration for stage {name!r}: {problems}") from exc
