"""The Lambda API handler's cold import: it works from the environment and loads no model SDK."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, sys; import functions.handlers.api as h; "
    "print(json.dumps({'sdks': sorted(m for m in ('anthropic', 'openai') if m in sys.modules), "
    "'handler': callable(h.handler)}))"
)


def test_cold_import_loads_no_model_sdk(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREVIOUSLY_", "STORAGE", "GITHUB_"))}
    env.update(
        STORAGE="local",
        PREVIOUSLY_MEMORY=str(tmp_path),
        PREVIOUSLY_ACCESS_KEY="k" * 32,
        OPENAI_API_KEY="sk-test",
        ANTHROPIC_API_KEY="sk-ant-test",
    )
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"sdks": [], "handler": True}


STEP_PROBE = (
    "import json, sys; import functions.handlers.steps, functions.handlers.maintain, functions.compose.aws, "
    "functions.compose.deps, functions.compose.backends, functions.compose.demo; "
    "print(json.dumps(sorted(m for m in ('fastapi', 'starlette', 'mangum', 'anthropic', 'openai', 'typer') "
    "if m in sys.modules)))"
)


def test_step_and_maintenance_composition_loads_no_web_framework_or_model_sdk() -> None:
    out = subprocess.run(
        [sys.executable, "-c", STEP_PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


@pytest.mark.parametrize("handler", ["steps", "maintain"])
def test_under_snap_start_the_heavy_imports_happen_at_init(handler: str) -> None:
    import os
    import subprocess
    import sys

    code = (
        f"import sys, functions.handlers.{handler};"
        "print(sorted(m for m in ('anthropic', 'openai', 'github') if m in sys.modules))"
    )
    env = {**os.environ, "AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start"}
    snap = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert snap.stdout.strip() == "['anthropic', 'github', 'openai']"
    env["AWS_LAMBDA_INITIALIZATION_TYPE"] = "on-demand"
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert cold.stdout.strip() == "[]"
