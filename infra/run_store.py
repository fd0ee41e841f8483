"""The run store's bucket: turns' events and scratch data, a demo's overlays, GitHub's blobs (a
cache); lifecycle rules expire them."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from constructs import Construct

from functions.aws.blob_cache import CACHE_PREFIX
from functions.aws.demo_overlay import DEMO_OVERLAY_DAYS, DEMO_PREFIX
from functions.aws.runstore import PERSONA_RUN_PREFIX, RUN_PREFIX
from infra.config import StageConfig

RUN_BUCKET_ENV = "RUN_BUCKET"
# Every prefix runs live under: the default's, and the demo's other personas' own.
EXPIRED_PREFIXES = (("expire-runs", RUN_PREFIX), ("expire-persona-runs", PERSONA_RUN_PREFIX))
# GitHub's blobs kept for every container (functions/aws/blob_cache.py): a blob still in use
# after this is fetched once more.
BLOB_CACHE_DAYS = 30


class RunStoreBucket(Construct):
    """A private bucket; runs older than the stage's retention are deleted by S3 itself."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig) -> None:
        super().__init__(scope, id)
        self.bucket = s3.Bucket(
            self,
            "Runs",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            lifecycle_rules=[
                *(
                    _expire(rule_id, prefix, config.run_retention_days)
                    for rule_id, prefix in EXPIRED_PREFIXES
                ),
                *([] if config.demo else [_expire("expire-blob-cache", CACHE_PREFIX, BLOB_CACHE_DAYS)]),
                # A demo's visitors' changes (functions/aws/demo_overlay.py): never kept longer.
                *([_expire("expire-demo-overlays", DEMO_PREFIX, DEMO_OVERLAY_DAYS)] if config.demo else []),
            ],
            # Runs are scratch: memory lives in the GitHub repository, so teardown may drop them.
            removal_policy=RemovalPolicy.DESTROY,
            auto_delete_objects=True,
        )

    def grant(self, fn: lambda_.Function, write: bool = True) -> None:
        """Read (and by default write) access for `fn`, and the bucket name in its environment."""
        if write:
            self.bucket.grant_read_write(fn)
        else:
            self.bucket.grant_read(fn)
        fn.add_environment(RUN_BUCKET_ENV, self.bucket.bucket_name)


def _expire(rule_id: str, prefix: str, days: int) -> s3.LifecycleRule:
    return s3.LifecycleRule(
        id=rule_id,
        prefix=prefix,
        expiration=Duration.days(days),
        abort_incomplete_multipart_upload_after=Duration.days(1),
    )
