"""The one Lambda factory: every function is python3.13 on arm64 with JSON logs, tracing and the layer."""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.config import StageConfig
from infra.packaging import Assets

RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64


class LambdaFactory(Construct):
    """Owns the shared code asset and dependency layer; makes functions that use both."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig, assets: Assets) -> None:
        super().__init__(scope, id)
        self.config = config
        self.code = lambda_.Code.from_asset(str(assets.code_dir))
        self.layer = lambda_.LayerVersion(
            self,
            "Dependencies",
            code=lambda_.Code.from_asset(str(assets.layer_dir)),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            description="Previously runtime dependencies (python -m layers.build)",
        )
        # Functions made with SnapStart (by construct path) and their `live` aliases.
        self._snap_started: set[str] = set()
        self._entries: dict[str, lambda_.IFunction] = {}
        self.common_env: dict[str, str] = {
            "PREVIOUSLY_STAGE": config.name,
            "POWERTOOLS_SERVICE_NAME": "previously",
            "POWERTOOLS_LOG_LEVEL": "INFO",
            # The state machine's timeout, so recovery's deadline for a turn is the same.
            "PREVIOUSLY_TURN_TIMEOUT_MINUTES": str(config.turn_timeout_minutes),
        }

    def function(
        self,
        scope: Construct,
        id: str,
        *,
        handler: str,
        timeout: Duration,
        memory_mb: int | None = None,
        environment: Mapping[str, str] | None = None,
        description: str = "",
        snap_start: bool = False,
    ) -> lambda_.Function:
        """A function running `handler` (module.attr under the asset root) with the shared settings."""
        log_group = logs.LogGroup(
            scope,
            f"{id}Logs",
            retention=retention(self.config.log_retention_days),
            removal_policy=RemovalPolicy.DESTROY,
        )
        snap = lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if self._snaps(snap_start, scope, id) else None
        return lambda_.Function(
            scope,
            id,
            snap_start=snap,
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=handler,
            code=self.code,
            layers=[self.layer],
            timeout=timeout,
            memory_size=memory_mb or self.config.step_memory_mb,
            environment={**self.common_env, **(environment or {})},
            description=description,
            tracing=lambda_.Tracing.ACTIVE,
            logging_format=lambda_.LoggingFormat.JSON,
            application_log_level_v2=lambda_.ApplicationLogLevel.INFO,
            system_log_level_v2=lambda_.SystemLogLevel.WARN,
            log_group=log_group,
        )

    def _snaps(self, wanted: bool, scope: Construct, id: str) -> bool:
        if wanted and self.config.snap_start:
            self._snap_started.add(f"{scope.node.path}/{id}")
            return True
        return False

    def entry(self, fn: lambda_.Function) -> lambda_.IFunction:
        """What callers invoke: with SnapStart the `live` alias of the current version, else `fn`.

        SnapStart applies only to published versions; the alias moves to each new version on
        deploy, and callers (API Gateway, Step Functions) name the alias.
        """
        key = fn.node.path
        if key not in self._snap_started:
            return fn
        if key not in self._entries:
            self._entries[key] = lambda_.Alias(fn, "Live", alias_name="live", version=fn.current_version)
        return self._entries[key]


def retention(days: int) -> logs.RetentionDays:
    """The longest CloudWatch retention that does not exceed `days` (at least one day)."""
    best = logs.RetentionDays.ONE_DAY
    for limit, option in _RETENTIONS:
        if limit <= days:
            best = option
    return best


_RETENTIONS = (
    (1, logs.RetentionDays.ONE_DAY),
    (3, logs.RetentionDays.THREE_DAYS),
    (5, logs.RetentionDays.FIVE_DAYS),
    (7, logs.RetentionDays.ONE_WEEK),
    (14, logs.RetentionDays.TWO_WEEKS),
    (30, logs.RetentionDays.ONE_MONTH),
    (60, logs.RetentionDays.TWO_MONTHS),
    (90, logs.RetentionDays.THREE_MONTHS),
    (180, logs.RetentionDays.SIX_MONTHS),
    (365, logs.RetentionDays.ONE_YEAR),
)
