"""Compare-and-set on one S3 object: read it with its ETag, replace it only if it is unchanged.

The one primitive behind every object several Lambdas may rewrite at once (a run's event tail,
a demo persona's overlay manifest): S3's conditional writes (`If-Match`, `If-None-Match: *`)
refuse a writer whose copy is stale, and that writer reads again and retries.
"""

from __future__ import annotations

from typing import Any

_LOST_RACE = frozenset({"PreconditionFailed", "ConditionalRequestConflict", "412", "409"})


def read_versioned(client: Any, bucket: str, key: str) -> tuple[str | None, bytes | None]:
    """The object's ETag and bytes, or (None, None) when it does not exist."""
    try:
        got = client.get_object(Bucket=bucket, Key=key)
    except client.exceptions.NoSuchKey:
        return None, None
    return str(got["ETag"]), bytes(got["Body"].read())


def put_if_unchanged(client: Any, bucket: str, key: str, body: bytes, etag: str | None) -> str | None:
    """Write `body` if the object is still at `etag` (still absent when None): the new ETag,
    or None when another writer got there first (read again and retry)."""
    condition = {"IfMatch": etag} if etag is not None else {"IfNoneMatch": "*"}
    try:
        put = client.put_object(
            Bucket=bucket, Key=key, Body=body, ContentType="application/json", **condition
        )
    except client.exceptions.ClientError as exc:
        error = exc.response.get("Error", {})
        status = str(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", ""))
        if {str(error.get("Code", "")), status} & _LOST_RACE:
            return None
        raise
    return str(put["ETag"])
