"""The deployment as the step Lambdas see it: boto3 clients, the S3 run store, sinks that push."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.turn.deps import SinkFactory
from core.turn.runstore import RunStore
from functions.aws.push import ConnectionPusher
from functions.aws.sink import PushingSink


def boto_client(service: str, **kwargs: Any) -> Any:
    """A boto3 client (imported here so modules that only describe resources stay light)."""
    import boto3

    return boto3.client(service, **kwargs)


def ws_client(callback_url: str | None) -> Any | None:
    """The API Gateway management client for pushing to connections, when the stage is known."""
    return boto_client("apigatewaymanagementapi", endpoint_url=callback_url) if callback_url else None


SinkFor = SinkFactory


@dataclass
class LambdaStepEnvironment:
    """StepEnvironment on AWS; `make_deps` turns a sink factory into what the step functions take."""

    runs: RunStore
    push_client: Any | None
    make_deps: Callable[[SinkFor], Any]

    def sink(
        self, turn_id: str, step: str, attempt: int, connection_id: str | None, item: int | None = None
    ) -> PushingSink:
        """A sink storing into the run store (which numbers), pushing to the connection and followers."""
        runs = self.runs
        pusher = None
        followers = None
        if self.push_client is not None:
            forget = getattr(runs, "remove_follower", None)
            pusher = ConnectionPusher(
                self.push_client,
                [connection_id],
                on_gone=(lambda cid: forget(turn_id, cid)) if forget else None,
            )
            listing = getattr(runs, "followers", None)
            followers = (lambda: listing(turn_id)) if listing else None
        return PushingSink(runs, turn_id, step, attempt, pusher=pusher, followers=followers, item=item)

    def deps(self, sink: PushingSink) -> Any:
        """The step's dependencies; asking for this attempt's sink gives `sink` (one seq counter)."""

        def sink_for(turn_id: str, step: str, attempt: int, item: int | None = None) -> PushingSink:
            if (turn_id, step, attempt, item) == (sink.turn_id, sink.step, sink.attempt, sink.item):
                return sink
            return self.sink(turn_id, step, attempt, None, item)

        return self.make_deps(sink_for)
