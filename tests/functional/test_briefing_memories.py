"""The arrival briefing returns real content for the sample memory and for an imported LoCoMo memory."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from core.actions.briefing import arrival
from core.clock import parse_iso
from core.storage.local import LocalStorage
from functions.cli import cmd_import, cmd_maintain  # noqa: F401 - registers the commands
from functions.cli.app import app
from tests.conftest import LOCOMO_DEV, SAMPLE_ROOT

pytestmark = pytest.mark.functional

LOCOMO = LOCOMO_DEV / "locomo10_dev.json"
NO_MODEL_ENV = {
    "STORAGE": "",
    "GITHUB_TOKEN": "",
    "OPENAI_BASE_URL": "",
    "OPENAI_API_KEY": "",
    "ANTHROPIC_API_KEY": "",
    "DEEPSEEK_API_KEY": "",
}


def test_sample_memory_briefing_names_the_person_and_what_is_open() -> None:
    got = arrival(LocalStorage(SAMPLE_ROOT).snapshot(), parse_iso("2026-11-30T09:00:00Z"), "Europe/London")
    b = got.briefing
    assert b.name == "Nell Marchetti"
    assert b.last_slice_id == "2026-11-26-2010" and b.last_topic
    assert 1 <= len(b.open_loops) <= 4
    assert b.suggestions and all(len(s.label) <= 30 for s in b.suggestions)
    assert b.suggestions[0].prompt.endswith(b.last_topic) or b.last_topic in b.suggestions[0].prompt
    assert b.card_excerpt


@pytest.mark.skipif(not LOCOMO.is_file(), reason="LoCoMo dev data not beside the repository")
def test_locomo_memory_after_import_and_maintenance_has_a_real_last_topic(tmp_path: Path) -> None:
    runner = CliRunner()
    imported = runner.invoke(
        app,
        ["import", "--format", "locomo", str(LOCOMO), "--conversation", "conv-26", "--memory", str(tmp_path)],
        env=NO_MODEL_ENV,
    )
    assert imported.exit_code == 0, imported.output
    maintained = runner.invoke(app, ["maintain", "--no-model", "--memory", str(tmp_path)], env=NO_MODEL_ENV)
    assert maintained.exit_code == 0, maintained.output

    got = arrival(LocalStorage(tmp_path).snapshot(), parse_iso("2023-10-25T12:00:00Z"), "UTC")
    b = got.briefing
    assert b.name is None  # LoCoMo carries no user card: no placeholder name
    assert b.last_slice_id and b.last_slice_id.startswith("2023-")
    assert b.last_topic and b.last_topic.strip()  # marked by maintenance, not empty
    assert b.suggestions and b.suggestions[0].label.startswith("Continue")
