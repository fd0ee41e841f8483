"""A public demo stage (`demo: true`): what synth makes of it, and a turn through its state machine.

The synthesized demo stack sets STORAGE=demo, wants no GitHub token, ships the sample personas
with the function code and expires the visitors' overlays. moto then runs the demo stage's own
state machine with every step in a fresh set of containers (compose caches dropped before each
task), the environment taken from the template: what the save step writes reaches the next step
and a fresh API container only through the overlay in the run bucket.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from functions.aws.demo_overlay import DEMO_OVERLAY_MAX_BYTES
from functions.compose import aws as compose
from functions.handlers import steps as steps_handler
from infra.packaging import SAMPLE_DIR
from layers.build import LAMBDA_UNZIPPED_LIMIT
from tests.fakes.fake_model_server import FakeModelServer, Reply
from tests.infra.conftest import DEMO, Synth
from tests.infra.sfn_harness import REGION
from tests.infra.test_persona_moto import BUCKET, CALLBACK, VISITOR, DemoOnAws, _http, demo_on_aws

pytestmark = [pytest.mark.infra, pytest.mark.xdist_group("cdk")]
REPO = Path(__file__).resolve().parents[2]
STEPS = "functions.handlers.steps.handler"


def _functions(synth: Synth) -> dict[str, dict[str, Any]]:
    """Our functions of the demo stack by handler: their environment variables."""
    found: dict[str, dict[str, Any]] = {}
    for res in synth.templates[DEMO]["Resources"].values():
        props = res.get("Properties", {})
        if res["Type"] == "AWS::Lambda::Function" and str(props.get("Handler", "")).startswith("functions."):
            found[props["Handler"]] = props["Environment"]["Variables"]
    return found


def _digest(root: Path) -> dict[str, str]:
    """Every file under `root` (but the personas' build sources) by relative path: its sha256."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "source" not in p.relative_to(root).parts and p.name != "README.md"
    }


def test_a_demo_stage_runs_storage_demo_without_a_repository_or_token(synth: Synth) -> None:
    functions = _functions(synth)
    assert len(functions) == 4
    for variables in functions.values():
        assert variables["STORAGE"] == "demo"
        assert not {"GITHUB_REPO", "GITHUB_BRANCH", "GITHUB_API_URL"} & set(variables)
    resources = synth.templates[DEMO]["Resources"]
    secrets = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::SecretsManager::Secret"]
    (secret,) = [s for s in secrets if "SecretStringTemplate" in s["GenerateSecretString"] and s.get("Name")]
    template = json.loads(secret["GenerateSecretString"]["SecretStringTemplate"])
    assert "GITHUB_TOKEN" not in template and "ANTHROPIC_API_KEY" in template
    assert not any("No memory repository" in w for w in synth.warnings[DEMO])
    assert synth.nag_errors[DEMO] == []


def test_the_visitors_overlays_expire_after_a_day_beside_the_runs(synth: Synth) -> None:
    (bucket,) = [
        r["Properties"]
        for r in synth.templates[DEMO]["Resources"].values()
        if r["Type"] == "AWS::S3::Bucket" and "LifecycleConfiguration" in r["Properties"]
    ]
    rules = {r["Prefix"]: r["ExpirationInDays"] for r in bucket["LifecycleConfiguration"]["Rules"]}
    assert rules == {"runs/": 14, "personas/": 14, "demo/": 1}
    full = synth.templates["Previously-test"]["Resources"]
    for res in full.values():
        if res["Type"] == "AWS::S3::Bucket" and "LifecycleConfiguration" in res["Properties"]:
            prefixes = [r["Prefix"] for r in res["Properties"]["LifecycleConfiguration"]["Rules"]]
            assert "demo/" not in prefixes, "a stage with a real memory has no demo overlays"


def test_the_demo_function_code_carries_the_sample_personas_untouched(synth: Synth) -> None:
    staged = synth.outdir / "demo" / "app"
    assert sorted(p.name for p in staged.iterdir()) == ["core", "docs", "functions", "identity", "sample"]
    shipped = staged / SAMPLE_DIR
    assert (shipped / "memory").is_dir() and (shipped / "persona.json").is_file()
    assert sorted(p.name for p in (shipped / "personas").iterdir()) == ["jia", "xiaowen"]
    assert not list(shipped.rglob("source")), "the personas' build sources stay home"
    assert _digest(shipped) == _digest(REPO / SAMPLE_DIR), "byte for byte the repository's personas"
    size = sum(p.stat().st_size for p in staged.rglob("*") if p.is_file())
    assert size < 0.05 * LAMBDA_UNZIPPED_LIMIT, f"function code {size / 1e6:.1f} MB"
    assert not (synth.outdir / "build" / "app" / "sample").exists(), "other stages ship no sample"


@pytest.fixture
def demo_stage(
    synth: Synth, monkeypatch: pytest.MonkeyPatch, fake_models: FakeModelServer
) -> Iterator[DemoOnAws]:
    """The demo stage's state machine under moto, each task in fresh containers; the functions'
    memory settings are the template's (no access key in the secret: a public demo)."""
    for name in ("PREVIOUSLY_ACCESS_KEY", "PREVIOUSLY_ACCESS_KEY_HASH", "PREVIOUSLY_SESSION_SECRET"):
        monkeypatch.delenv(name, raising=False)
    env = {
        "STORAGE": _functions(synth)[STEPS]["STORAGE"],
        "AWS_DEFAULT_REGION": REGION,
        "RUN_BUCKET": BUCKET,
        "WS_CALLBACK_URL": CALLBACK,
        "OPENAI_BASE_URL": fake_models.openai_base_url,
        "OPENAI_API_KEY": "test-key",
    }

    def task(event: dict[str, Any]) -> Any:
        compose.reset()  # this step's container has never seen the turn: only S3 carries it
        return steps_handler.handler(event, None)

    with demo_on_aws(synth.templates[DEMO], task, env, monkeypatch, fake_models) as on_aws:
        yield on_aws


def test_a_visitors_turn_reaches_every_container_and_the_persona_is_never_written(
    demo_stage: DemoOnAws,
) -> None:
    from functions.handlers import api

    before = _digest(REPO / SAMPLE_DIR)
    demo_stage.brain.main(Reply(text="Hello, visitor — Nell's memory is all yours today."))
    turn_id = demo_stage.start("Hi! Just looking around.")
    view = demo_stage.finish(turn_id, "")
    assert view["status"] == "done", [e["type"] for e in view["events"]]

    compose.reset()
    api._adapter.cache_clear()  # a fresh API container: it knows the turn only from the bucket
    status, state = _http("GET", "/api/state", headers={"x-access-key": ""})
    assert status == 200, state
    assert state["flags"]["demo"] is True and state["flags"]["auth_required"] is False
    turns = [(t["role"], t["content"]) for t in state["active_turns"]]
    assert turns[-2:] == [
        ("user", "Hi! Just looking around."),
        ("agent", "Hello, visitor — Nell's memory is all yours today."),
    ]
    other = {"x-access-key": "", "cookie": f"previously_visitor={'d' * 32}"}
    _, elsewhere = _http("GET", "/api/state", headers=other)  # another browser
    assert "Hi! Just looking around." not in [t["content"] for t in elsewhere["active_turns"]]
    listing = boto3.client("s3", region_name=REGION).list_objects_v2(Bucket=BUCKET, Prefix="demo/")
    keys = [o["Key"] for o in listing.get("Contents", [])]
    mine = f"demo/nell/{VISITOR}/overlay/manifest.json"
    assert mine in keys and all(k.startswith(f"demo/nell/{VISITOR}/overlay/") for k in keys)
    manifest = json.loads(
        boto3.client("s3", region_name=REGION).get_object(Bucket=BUCKET, Key=mine)["Body"].read()
    )
    assert 0 < manifest["written_bytes"] < DEMO_OVERLAY_MAX_BYTES
    assert _digest(REPO / SAMPLE_DIR) == before, "the persona's own files are untouched"


def test_a_full_overlay_ends_the_turn_with_an_error_that_says_so(
    demo_stage: DemoOnAws, monkeypatch: pytest.MonkeyPatch
) -> None:
    from functools import cache

    from core.clock import SystemClock
    from functions.aws.demo_overlay import S3Overlay

    @cache
    def tiny(persona: str, visitor: str) -> S3Overlay:
        client = boto3.client("s3", region_name=REGION)
        return S3Overlay(client, BUCKET, persona, SystemClock(), visitor=visitor, max_bytes=100)

    monkeypatch.setattr(compose, "visitor_overlay", tiny)
    demo_stage.brain.main(Reply(text="Never sent."))
    turn_id = demo_stage.start("A message bigger than what is left of the day's room.")
    view = demo_stage.finish(turn_id, "")
    assert view["status"] == "error"
    end = view["events"][-1]
    assert (end["type"], end["code"]) == ("turn.error", "too_large")
    assert "no room for more changes" in end["message"] and "24 hours after the first" in end["message"]
    assert demo_stage.brain.requests.get("main", []) == [], "no model call for a turn that cannot be kept"
    listing = boto3.client("s3", region_name=REGION).list_objects_v2(Bucket=BUCKET, Prefix="demo/")
    assert listing.get("KeyCount", 0) == 0, "nothing was written"
