"""Infra fixtures: the stacks synthesized once per test session, and their templates."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")


@dataclass(frozen=True)
class Synth:
    """The synthesized stacks of one App: raw templates and their warnings."""

    templates: dict[str, dict[str, Any]]
    warnings: dict[str, list[str]]
    # cdk-nag's AWS Solutions findings that no suppression accepts ("path rule: text").
    nag_errors: dict[str, list[str]]
    outdir: Path


FULL = "Previously-test"
WORKFLOW = "Workflow-test"
DEMO = "Previously-demo"  # a public demo stage (`demo: true`), synthesized in the same app


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synth]:
    """The full stack (the real step table), a demo stage of it and a workflow-only stack over
    the synthetic table, in one app synthesized once."""
    import aws_cdk as cdk

    from infra import nag
    from infra.config import StageConfig
    from infra.stack import PreviouslyStack
    from infra.turn_flow import turn_flow
    from tests.infra.stacks import WorkflowStack
    from tests.infra.synthetic import FLOW

    root = tmp_path_factory.mktemp("cdk")
    config = StageConfig(
        name="test",
        github_repo="octo/memory",
        github_branch="main",
        alarm_email="owner@example.com",
        layer_dir=root / "no-layer",
        build_dir=root / "build",
    )
    app = cdk.App(outdir=str(root / "cdk.out"))
    PreviouslyStack(app, FULL, config=config, flow=turn_flow())
    demo = config.model_copy(
        update={"name": "demo", "demo": True, "github_repo": "", "build_dir": root / "demo"}
    )
    PreviouslyStack(app, DEMO, config=demo, flow=turn_flow())
    WorkflowStack(app, WORKFLOW, config=config, flow=FLOW)
    nag.attach(app)
    assembly = app.synth()
    templates = {name: assembly.get_stack_by_name(name).template for name in (FULL, WORKFLOW, DEMO)}
    warnings = {
        name: [
            str(m.entry.data) for m in assembly.get_stack_by_name(name).messages if m.level.value == "WARNING"
        ]
        for name in (FULL, WORKFLOW, DEMO)
    }
    nag_errors = {
        name: [
            f"{m.id} {m.entry.data}"
            for m in assembly.get_stack_by_name(name).messages
            if m.level.value == "ERROR" and "AwsSolutions-" in str(m.entry.data)
        ]
        for name in (FULL, DEMO)
    }
    yield Synth(templates, warnings, nag_errors, root)
