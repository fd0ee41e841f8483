"""`app.py` synthesizes offline, as `cdk synth` runs it on a fresh clone: no AWS credentials, no network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.infra, pytest.mark.xdist_group("app-synth")]
ROOT = Path(__file__).resolve().parents[2]


def test_app_synthesizes_without_credentials_or_network(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CDK_"))}
    env.update(
        {
            "CDK_OUTDIR": str(tmp_path / "cdk.out"),
            # Context as the CDK CLI passes it (cdk.json's, plus -c overrides).
            "CDK_CONTEXT_JSON": json.dumps(
                {"stage": "ci", "previously:stages": {"ci": {"github_repo": "octo/memory"}}}
            ),
            "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
            # Any attempt to reach the network fails fast instead of succeeding by accident.
            "HTTP_PROXY": "http://127.0.0.1:9",
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "AWS_CONFIG_FILE": str(tmp_path / "none"),
            "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
            "AWS_EC2_METADATA_DISABLED": "true",
        }
    )
    done = subprocess.run(
        [sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    template = json.loads((tmp_path / "cdk.out" / "Previously-ci.template.json").read_text(encoding="utf-8"))
    kinds = {r["Type"] for r in template["Resources"].values()}
    assert {"AWS::StepFunctions::StateMachine", "AWS::CloudFront::Distribution", "AWS::Events::Rule"} <= kinds
    manifest = json.loads((tmp_path / "cdk.out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["artifacts"]["Previously-ci"]["environment"] == "aws://unknown-account/unknown-region"
