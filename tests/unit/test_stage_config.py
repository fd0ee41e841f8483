"""Stage configuration from CDK context: defaults, overrides, and loud errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from infra.config import StageConfig, stage_from_context
from infra.packaging import layer_is_built, stage_app_code

pytestmark = pytest.mark.unit


def test_defaults_make_a_prod_stage() -> None:
    config = stage_from_context({})
    assert (config.name, config.stack_name, config.secret_name) == (
        "prod",
        "Previously-prod",
        "previously/prod/app",
    )
    assert config.maintenance_minutes == 15 and config.run_retention_days == 14


def test_a_named_stage_and_a_one_off_override() -> None:
    context = {
        "stage": "test",
        "previously:stages": {"prod": {}, "test": {"github_repo": "me/memory", "api_memory_mb": 512}},
        "previously:maintenance_minutes": "30",  # -c values arrive as text
    }
    config = stage_from_context(context)
    assert (config.name, config.github_repo, config.api_memory_mb, config.maintenance_minutes) == (
        "test",
        "me/memory",
        512,
        30,
    )


@pytest.mark.parametrize(
    ("context", "message"),
    [
        (
            {"stage": "nope", "previously:stages": {"prod": {}}},
            "Unknown stage 'nope'; cdk.json defines: prod",
        ),
        ({"previously:stages": {"prod": {"github_repo": "no-slash"}}}, "github_repo"),
        ({"previously:stages": {"prod": {"maintenance_minutes": 1}}}, "maintenance_minutes"),
        ({"previously:stages": {"prod": {"typo_field": 1}}}, "typo_field"),
        ({"stage": "Bad Name"}, "name"),
    ],
)
def test_mistakes_stop_synth_with_the_field_named(context: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        stage_from_context(context)


def test_the_function_asset_holds_the_runtime_packages_only(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for rel in (
        "core/a.py",
        "core/__pycache__/a.cpython-311.pyc",
        "functions/b.py",
        "tests/t.py",
        "infra/i.py",
        "docs/MODELS.md",
        "docs/FORGET.md",
        "docs/DEPLOY.md",
    ):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x = 1\n", encoding="utf-8")
    out = stage_app_code(tmp_path / "out", repo)
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        "core/a.py",
        "docs/FORGET.md",
        "docs/MODELS.md",
        "functions/b.py",
    ], "the guides ship for GET /api/help/{models,forget}"


def test_a_layer_counts_as_built_only_with_its_manifest(tmp_path: Path) -> None:
    assert not layer_is_built(tmp_path)
    (tmp_path / "python" / "pkg").mkdir(parents=True)
    assert not layer_is_built(tmp_path)
    (tmp_path / "manifest.json").write_text("{}", encoding="utf-8")
    assert layer_is_built(tmp_path)


def test_config_is_frozen() -> None:
    with pytest.raises(ValueError):
        StageConfig(name="prod").name = "other"  # type: ignore[misc]


def test_cdk_json_offers_a_public_demo_stage_and_any_stage_can_be_made_one() -> None:
    import json

    from infra.config import REPO_ROOT

    context = json.loads((REPO_ROOT / "cdk.json").read_text(encoding="utf-8"))["context"]
    demo = stage_from_context({**context, "stage": "demo"})
    assert (demo.demo, demo.github_repo, demo.stack_name) == (True, "", "Previously-demo")
    assert demo.run_retention_days == 1, "a demo keeps its visitors' run records one day"
    assert stage_from_context(context).demo is False
    assert stage_from_context({**context, "previously:demo": "true"}).demo is True  # -c previously:demo=true


def test_a_demo_stages_function_asset_carries_the_sample_personas(tmp_path: Path) -> None:
    from infra.config import REPO_ROOT

    out = stage_app_code(tmp_path / "app", with_sample=True)
    assert (out / "sample" / "memory").is_dir() and not (out / "sample" / "source").exists()
    card = "memory/user/config.json"
    assert (out / "sample" / card).read_bytes() == (REPO_ROOT / "sample" / card).read_bytes()
    assert not (stage_app_code(tmp_path / "plain") / "sample").exists()
