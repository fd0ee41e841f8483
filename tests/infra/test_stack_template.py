"""CDK assertions on the synthesized stack: resources, routes, permissions, environment, schedule, retries."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from core.turn.steps import STEP_TABLE, TOOL_ROUND_CAP
from tests.infra.conftest import FULL, Synth
from tests.infra.sfn_harness import state_machine_definition

pytestmark = [pytest.mark.infra, pytest.mark.xdist_group("cdk")]
# CloudFront's managed policies (fixed ids, the same in every account).
CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
CACHING_OPTIMIZED = "658327ea-f89d-4fab-a63d-7e88639e58f6"  # gzip and brotli in the cache key
ALL_VIEWER_EXCEPT_HOST = "b689b0a8-53d0-40ab-baf2-68738e2966ac"


@pytest.fixture(scope="module")
def template(synth: Synth) -> Any:
    from aws_cdk.assertions import Template

    return Template.from_json(synth.templates[FULL])


@pytest.fixture(scope="module")
def resources(synth: Synth) -> dict[str, Any]:
    return synth.templates[FULL]["Resources"]


def of_type(resources: dict[str, Any], kind: str) -> dict[str, Any]:
    return {k: v for k, v in resources.items() if v["Type"] == kind}


def app_functions(resources: dict[str, Any]) -> dict[str, Any]:
    """Our functions (CDK's own helpers — bucket cleanup, site upload — are not ours to shape)."""
    return {
        k: v
        for k, v in of_type(resources, "AWS::Lambda::Function").items()
        if str(v["Properties"].get("Handler", "")).startswith("functions.handlers.")
    }


def test_every_function_is_python313_arm64_json_logs_traced_with_the_layer(resources: dict[str, Any]) -> None:
    functions = app_functions(resources)
    handlers = sorted({f["Properties"]["Handler"] for f in functions.values()})
    assert handlers == [
        "functions.handlers.api.handler",
        "functions.handlers.maintain.handler",
        "functions.handlers.steps.handler",
        "functions.handlers.ws.handler",
    ]
    layer_ids = [
        k for k in of_type(resources, "AWS::Lambda::LayerVersion") if k.startswith("LambdasDependencies")
    ]
    assert len(layer_ids) == 1
    for fn in functions.values():
        props = fn["Properties"]
        assert props["Runtime"] == "python3.13"
        assert props["Architectures"] == ["arm64"]
        assert props["TracingConfig"] == {"Mode": "Active"}
        assert props["LoggingConfig"]["LogFormat"] == "JSON"
        assert props["Layers"] == [{"Ref": layer_ids[0]}]
        assert 0 < props["Timeout"] <= 900


def test_functions_get_their_resources_in_the_environment(resources: dict[str, Any]) -> None:
    env = {
        f["Properties"]["Handler"]: f["Properties"]["Environment"]["Variables"]
        for f in app_functions(resources).values()
    }
    for variables in env.values():
        assert variables["STORAGE"] == "github"
        assert variables["GITHUB_REPO"] == "octo/memory"
        assert "PREVIOUSLY_SECRET_ARN" in variables
    for handler in ("functions.handlers.api.handler", "functions.handlers.ws.handler"):
        assert {"RUN_BUCKET", "STATE_MACHINE_ARN"} <= set(env[handler])
    assert {"RUN_BUCKET", "WS_CALLBACK_URL"} <= set(env["functions.handlers.steps.handler"])
    assert "WS_CALLBACK_URL" in env["functions.handlers.ws.handler"]
    assert "RUN_BUCKET" in env["functions.handlers.maintain.handler"]
    assert "STATE_MACHINE_ARN" not in env["functions.handlers.maintain.handler"]


def _policy_actions(resources: dict[str, Any], role_prefix: str) -> set[str]:
    actions: set[str] = set()
    for policy in of_type(resources, "AWS::IAM::Policy").values():
        roles = [r["Ref"] for r in policy["Properties"]["Roles"]]
        if any(r.startswith(role_prefix) for r in roles):
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                acts = statement["Action"]
                actions.update([acts] if isinstance(acts, str) else acts)
    return actions


def test_permissions_are_granted_per_function(resources: dict[str, Any]) -> None:
    api = _policy_actions(resources, "ApiFunction")
    assert {"states:StartExecution", "states:DescribeExecution", "secretsmanager:GetSecretValue"} <= api
    assert "s3:PutObject" in api and "execute-api:ManageConnections" not in api
    step = _policy_actions(resources, "WorkflowStepRespond")
    assert {"execute-api:ManageConnections", "s3:PutObject", "secretsmanager:GetSecretValue"} <= step
    assert not any(a.startswith("states:") for a in step)
    maintain = _policy_actions(resources, "MaintainFunction")
    assert "secretsmanager:GetSecretValue" in maintain
    assert not any(a.startswith(("states:", "execute-api:")) for a in maintain)
    assert not any(a == "*" for a in api | step | maintain)


def test_http_api_routes_and_sign_in_throttling(template: Any, resources: dict[str, Any]) -> None:
    routes = sorted(
        r["Properties"]["RouteKey"] for r in of_type(resources, "AWS::ApiGatewayV2::Route").values()
    )
    assert {"ANY /api/{proxy+}", "POST /api/auth/sign-in", "GET /sign-in", "ANY /mcp"} <= set(routes)
    stages = [s["Properties"] for s in of_type(resources, "AWS::ApiGatewayV2::Stage").values()]
    http_stage = next(s for s in stages if s["StageName"] == "$default")
    assert http_stage["AutoDeploy"] is True
    assert http_stage["DefaultRouteSettings"]["ThrottlingRateLimit"] == 20
    assert http_stage["RouteSettings"]["POST /api/auth/sign-in"] == {
        "ThrottlingRateLimit": 0.5,
        "ThrottlingBurstLimit": 3,
    }


def test_websocket_api_routes_by_action(resources: dict[str, Any]) -> None:
    apis = [a["Properties"] for a in of_type(resources, "AWS::ApiGatewayV2::Api").values()]
    ws = next(a for a in apis if a["ProtocolType"] == "WEBSOCKET")
    assert ws["RouteSelectionExpression"] == "$request.body.action"
    routes = {r["Properties"]["RouteKey"] for r in of_type(resources, "AWS::ApiGatewayV2::Route").values()}
    assert {"$connect", "$disconnect", "$default", "turn.start", "turn.follow", "turn.cancel"} <= routes


def test_the_turn_is_a_standard_state_machine_with_the_tables_retries(
    synth: Synth, resources: dict[str, Any]
) -> None:
    machine = next(iter(of_type(resources, "AWS::StepFunctions::StateMachine").values()))["Properties"]
    assert machine["StateMachineType"] == "STANDARD"
    definition = json.loads(state_machine_definition(synth.templates[FULL]))
    states = definition["States"]
    spec = STEP_TABLE["respond"]
    (respond_retry,) = [r for r in states["respond"]["Retry"] if "TransientError" in r["ErrorEquals"]]
    # Step Functions matches names exactly, so the subclasses of the table's errors are listed too.
    assert set(spec.retries[0].errors) | {"ModelTransientError", "GitHubRateLimited", "SliceIdTaken"} <= set(
        respond_retry["ErrorEquals"]
    )
    rule = spec.retries[0]
    assert (respond_retry["MaxAttempts"], respond_retry["IntervalSeconds"], respond_retry["BackoffRate"]) == (
        rule.max_attempts - 1,
        round(rule.interval_seconds),
        rule.backoff_rate,
    )
    for name, step in STEP_TABLE.items():
        task = states[name]
        if step.fan_out is not None:
            task = task["ItemProcessor"]["States"][f"{name}-each"]
        assert task["TimeoutSeconds"] == step.timeout_seconds + 30
    assert states["Start"]["Result"] == {"rounds": 0, "cap": TOOL_ROUND_CAP}
    assert states["Begin"]["Result"] == "save"
    # The close passes follow the reply: save goes straight on, finalize (or analyze without a
    # model) chooses whether the closed slice's passes run before `after`.
    assert "save-next" not in states
    assert {c["Next"] for c in states["analyze-next"]["Choices"]} >= {"respond", "close"}
    assert {c["Next"] for c in states["finalize-next"]["Choices"]} >= {"close"}
    assert states["close"]["Catch"][0]["Next"] == "close-skipped", "a failing close never fails the turn"
    lambda_retry = states["respond"]["Retry"][0]
    assert "Lambda.ServiceException" in lambda_retry["ErrorEquals"]
    assert states["after"]["Catch"][0]["Next"] == "TurnDone"
    assert states["finalize"]["Catch"][0]["Next"] == "record_failure"
    assert states["respond-next"]["Type"] == "Choice" and states["finalize-next"]["Type"] == "Choice"
    assert definition.get("QueryLanguage", "JSONPath") == "JSONPath"


def test_the_tools_of_a_round_are_a_map_of_one_invocation_per_call(synth: Synth) -> None:
    states = json.loads(state_machine_definition(synth.templates[FULL]))["States"]
    spec = STEP_TABLE["tools"]
    assert spec.fan_out is not None
    tools = states["tools"]
    assert (tools["Type"], tools["ItemsPath"], tools["MaxConcurrency"]) == (
        "Map",
        "$.calls",
        spec.fan_out.max_concurrency,
    )
    each = tools["ItemProcessor"]["States"]["tools-each"]
    assert each["Parameters"]["item.$"] == "$.item" and each["Parameters"]["step"] == "tools"
    # Each iteration retries alone; what no retry cures fails the turn through the Map's catch.
    assert any("TransientError" in r["ErrorEquals"] for r in each["Retry"])
    assert tools["Catch"][0]["Next"] == "record_failure" and tools["Next"] == "respond"
    assert states["recall"]["Type"] == "Task", "recall stays its own state"


def test_maintenance_runs_on_a_schedule(resources: dict[str, Any]) -> None:
    rules = list(of_type(resources, "AWS::Events::Rule").values())
    assert [r["Properties"]["ScheduleExpression"] for r in rules] == ["rate(15 minutes)"]
    target = rules[0]["Properties"]["Targets"][0]
    # The schedule calls the `live` alias: the published version that starts from a snapshot.
    assert target["Arn"]["Ref"].startswith("MaintainFunctionLive"), target["Arn"]
    assert target["RetryPolicy"]["MaximumRetryAttempts"] == 0


def test_the_run_store_is_private_and_expires(template: Any) -> None:
    from aws_cdk.assertions import Match

    template.has_resource_properties(
        "AWS::S3::Bucket",
        {
            "LifecycleConfiguration": {
                "Rules": Match.array_with(
                    [
                        Match.object_like({"ExpirationInDays": 14, "Prefix": prefix, "Status": "Enabled"})
                        for prefix in ("runs/", "personas/")  # the demo's other personas: their own
                    ]
                    # GitHub's blobs for every container (functions/aws/blob_cache.py)
                    + [Match.object_like({"ExpirationInDays": 30, "Prefix": "cache/", "Status": "Enabled"})]
                )
            },
            "PublicAccessBlockConfiguration": {
                "BlockPublicAcls": True,
                "BlockPublicPolicy": True,
                "IgnorePublicAcls": True,
                "RestrictPublicBuckets": True,
            },
        },
    )


def test_one_origin_for_site_api_and_websocket(resources: dict[str, Any]) -> None:
    dist = next(iter(of_type(resources, "AWS::CloudFront::Distribution").values()))["Properties"]
    config = dist["DistributionConfig"]
    assert config["DefaultRootObject"] == "index.html"
    # The page's files are compressed at the edge (brotli, else gzip); docs/DEPLOY.md section 10.
    site = config["DefaultCacheBehavior"]
    assert site["Compress"] is True and site["CachePolicyId"] == CACHING_OPTIMIZED
    assert [b["PathPattern"] for b in config["CacheBehaviors"]] == ["/api/ws", "/api/*", "/sign-in", "/mcp"]
    for behavior in config["CacheBehaviors"]:
        assert behavior["ViewerProtocolPolicy"] == "https-only"
        # Never cached; cookies, query strings and every viewer header (x-forwarded-host included)
        # reach the APIs, all but Host, on which API Gateway routes.
        assert behavior["CachePolicyId"] == CACHING_DISABLED
        assert behavior["OriginRequestPolicyId"] == ALL_VIEWER_EXCEPT_HOST
        assert len(behavior["FunctionAssociations"]) == 1
        assert "POST" in behavior["AllowedMethods"]
    assert len(of_type(resources, "AWS::CloudFront::OriginAccessControl")) == 1
    code = [f["Properties"]["FunctionCode"] for f in of_type(resources, "AWS::CloudFront::Function").values()]
    assert any("request.uri = '/live'" in c for c in code)
    assert all("x-forwarded-host" in c for c in code)


def test_web_is_deployed_with_invalidation(resources: dict[str, Any]) -> None:
    deploys = [r["Properties"] for r in resources.values() if r["Type"] == "Custom::CDKBucketDeployment"]
    assert len(deploys) == 1
    assert deploys[0]["DistributionPaths"] == ["/*"]
    assert deploys[0]["SystemMetadata"]["cache-control"] == "no-cache"
    assert deploys[0]["Prune"] is True


def test_secret_alarms_and_outputs(synth: Synth, resources: dict[str, Any]) -> None:
    secrets = [s["Properties"] for s in of_type(resources, "AWS::SecretsManager::Secret").values()]
    (secret,) = [s for s in secrets if s.get("Name") == "previously/test/app"]
    template = json.loads(secret["GenerateSecretString"]["SecretStringTemplate"])
    assert set(template) >= {"GITHUB_TOKEN", "ANTHROPIC_API_KEY", "PREVIOUSLY_ACCESS_KEY_SHA256"}
    assert all(v == "" for v in template.values())
    assert secret["GenerateSecretString"]["GenerateStringKey"] == "PREVIOUSLY_SESSION_SECRET"
    alarms = [a["Properties"] for a in of_type(resources, "AWS::CloudWatch::Alarm").values()]
    assert len(alarms) == 3
    assert {m["Expression"] for a in alarms for m in a.get("Metrics", []) if "Expression" in m} == {
        "failed + timedout + aborted"
    }
    assert [s["Properties"]["Endpoint"] for s in of_type(resources, "AWS::SNS::Subscription").values()] == [
        "owner@example.com"
    ]
    assert set(synth.templates[FULL]["Outputs"]) >= {"Url", "SecretName", "StateMachineArn"}


def test_an_alarm_watches_maintenance_passes_a_rate_limit_stopped(resources: dict[str, Any]) -> None:
    from functions.aws import metrics

    alarms = [a["Properties"] for a in of_type(resources, "AWS::CloudWatch::Alarm").values()]
    (stopped,) = [a for a in alarms if a.get("MetricName") == metrics.MAINTENANCE_STOPPED]
    assert stopped["Namespace"] == metrics.NAMESPACE and stopped["Statistic"] == "Sum"
    assert {d["Name"]: d["Value"] for d in stopped["Dimensions"]} == {
        "service": metrics.SERVICE,
        "stage": "test",
    }
    assert stopped["Threshold"] == 1 and stopped["AlarmActions"], "it notifies the alarm topic"


def test_a_missing_layer_is_a_warning_not_a_failure(synth: Synth) -> None:
    assert any("python -m layers.build" in w for w in synth.warnings[FULL])


def test_evolve_now_invokes_the_maintenance_alias_once(resources: dict[str, Any]) -> None:
    api = next(
        r
        for r in resources.values()
        if r["Type"] == "AWS::Lambda::Function"
        and r["Properties"]["Handler"] == "functions.handlers.api.handler"
    )
    target = json.dumps(api["Properties"]["Environment"]["Variables"]["EVOLVE_FUNCTION"])
    assert "MaintainFunctionLive" in target, target
    configs = [r for r in resources.values() if r["Type"] == "AWS::Lambda::EventInvokeConfig"]
    # The alias's own qualifier (CDK reads it out of the alias ARN), retried never.
    assert any(
        "MaintainFunctionLive" in json.dumps(c["Properties"]["Qualifier"])
        and c["Properties"]["MaximumRetryAttempts"] == 0
        for c in configs
    ), configs


def test_the_function_asset_holds_only_runtime_packages(synth: Synth) -> None:
    staged = synth.outdir / "build" / "app"
    assert sorted(p.name for p in staged.iterdir()) == ["core", "docs", "functions", "identity"]
    assert sorted(p.name for p in (staged / "docs").iterdir()) == ["FORGET.md", "MODELS.md"]  # /api/help/
    assert not list(staged.rglob("__pycache__"))
    cdk_import = re.compile(r"^\s*(import|from)\s+(aws_cdk|constructs|infra)\b", re.MULTILINE)
    assert not [p for p in staged.rglob("*.py") if cdk_import.search(p.read_text(encoding="utf-8"))]


def test_cdk_nag_aws_solutions_finds_nothing_unaccepted(synth: Synth) -> None:
    assert synth.nag_errors[FULL] == [], "\n".join(synth.nag_errors[FULL])


def test_every_accepted_nag_finding_says_why() -> None:
    from infra.nag import _ACCEPTED

    for rule, reason, _ in _ACCEPTED:
        assert rule.startswith("AwsSolutions-") and len(reason) >= 40, rule


def test_api_stages_keep_access_logs_without_bodies(resources: dict[str, Any]) -> None:
    stages = [r for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Stage"]
    assert len(stages) == 2
    for stage in stages:
        fmt = json.loads(stage["Properties"]["AccessLogSettings"]["Format"])
        assert {"requestId", "ip", "route", "status"} <= set(fmt) and "body" not in json.dumps(fmt).lower()


def test_the_alarm_topic_refuses_plain_http(resources: dict[str, Any]) -> None:
    policies = [r for r in resources.values() if r["Type"] == "AWS::SNS::TopicPolicy"]
    assert any("aws:SecureTransport" in json.dumps(p) for p in policies)


def test_snap_start_on_published_versions_and_callers_use_the_live_alias(resources: dict[str, Any]) -> None:
    functions = {k: r for k, r in resources.items() if r["Type"] == "AWS::Lambda::Function"}
    snap = {
        k
        for k, r in functions.items()
        if r["Properties"].get("SnapStart") == {"ApplyOn": "PublishedVersions"}
    }
    api = next(
        k for k, r in functions.items() if r["Properties"]["Handler"] == "functions.handlers.api.handler"
    )
    ws = next(
        k for k, r in functions.items() if r["Properties"]["Handler"] == "functions.handlers.ws.handler"
    )
    maintain = next(
        k for k, r in functions.items() if r["Properties"]["Handler"] == "functions.handlers.maintain.handler"
    )
    assert {api, ws, maintain} <= snap  # every function the schedule or a caller starts often
    aliases = [r for r in resources.values() if r["Type"] == "AWS::Lambda::Alias"]
    assert {json.dumps(a["Properties"]["FunctionName"]) for a in aliases} >= {
        json.dumps({"Ref": api}),
        json.dumps({"Ref": ws}),
    }
    integrations = [r for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Integration"]
    uris = [json.dumps(i["Properties"]["IntegrationUri"]) for i in integrations]
    assert uris and all("Live" in uri for uri in uris), uris
    steps = {
        k for k, r in functions.items() if r["Properties"]["Handler"] == "functions.handlers.steps.handler"
    }
    record_failure = {k for k in steps if "RecordFailure" in k}
    assert steps - record_failure <= snap  # every step of the table starts from a snapshot
    machine = next(r for r in resources.values() if r["Type"] == "AWS::StepFunctions::StateMachine")
    definition = json.dumps(machine["Properties"]["DefinitionString"])
    assert definition.count("Live") >= len(steps - record_failure)  # the tasks invoke the live aliases


def test_only_the_functions_behind_cloudfront_believe_its_viewer_header(resources: dict[str, Any]) -> None:
    for r in resources.values():
        if r["Type"] != "AWS::Lambda::Function":
            continue
        env = r["Properties"].get("Environment", {}).get("Variables", {})
        behind = r["Properties"]["Handler"] in (
            "functions.handlers.api.handler",
            "functions.handlers.ws.handler",
        )
        assert (env.get("PREVIOUSLY_BEHIND_CLOUDFRONT") == "true") is behind, r["Properties"]["Handler"]


def test_only_cloudfront_reaches_the_apis_and_they_answer_to_its_name(resources: dict[str, Any]) -> None:
    """CloudFront sends every API request the origin secret (a dynamic reference, never the value
    in the template); the API and WebSocket functions read that secret and answer to the
    distribution's own name, and no other function knows either."""
    (origin_id,) = [
        k
        for k, r in of_type(resources, "AWS::SecretsManager::Secret").items()
        if r["Properties"]["GenerateSecretString"].get("GenerateStringKey") == "PREVIOUSLY_ORIGIN_SECRET"
    ]
    (dist_id,) = of_type(resources, "AWS::CloudFront::Distribution")
    origins = resources[dist_id]["Properties"]["DistributionConfig"]["Origins"]
    api_origins = [o for o in origins if "CustomOriginConfig" in o]
    assert len(api_origins) >= 2
    for o in api_origins:
        (header,) = o["OriginCustomHeaders"]
        assert header["HeaderName"] == "x-previously-origin"
        text = json.dumps(header["HeaderValue"])
        assert (
            "{{resolve:secretsmanager:" in text
            and origin_id in text
            and ":SecretString:PREVIOUSLY_ORIGIN_SECRET::" in text
        )
    for r in of_type(resources, "AWS::Lambda::Function").values():
        env = r["Properties"].get("Environment", {}).get("Variables", {})
        behind = r["Properties"]["Handler"] in (
            "functions.handlers.api.handler",
            "functions.handlers.ws.handler",
        )
        assert ("PREVIOUSLY_ORIGIN_SECRET_ARN" in env) is behind
        assert ("PREVIOUSLY_PUBLIC_HOSTS" in env) is behind
        if behind:
            assert env["PREVIOUSLY_ORIGIN_SECRET_ARN"] == {"Ref": origin_id}
            assert env["PREVIOUSLY_PUBLIC_HOSTS"] == {"Fn::GetAtt": [dist_id, "DomainName"]}


def test_every_function_knows_the_turn_timeout_the_state_machine_has(
    synth: Synth, resources: dict[str, Any]
) -> None:
    """Recovery's deadline for a turn (PREVIOUSLY_TURN_TIMEOUT_MINUTES) is the execution's timeout."""
    definition = json.loads(state_machine_definition(synth.templates[FULL]))
    for fn in app_functions(resources).values():
        minutes = fn["Properties"]["Environment"]["Variables"]["PREVIOUSLY_TURN_TIMEOUT_MINUTES"]
        assert int(minutes) * 60 == definition["TimeoutSeconds"] == 30 * 60
