"""OpenAI's published request schema, to check every chat-completions body the adapter sends.

The schema is `tests/data/openai/openapi.json.gz` (OpenAI's own OpenAPI 3.1 description, vendored;
`$PREVIOUSLY_OPENAI_SCHEMA` overrides the path). A body that does not fit
`CreateChatCompletionRequest` is a bug in the adapter, whatever a lenient server would accept.
"""

from __future__ import annotations

import gzip
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

_DEFAULT = Path(__file__).resolve().parents[1] / "data" / "openai" / "openapi.json.gz"
REQUEST_SCHEMA = "CreateChatCompletionRequest"


def schema_path() -> Path:
    """Where the OpenAPI document is read from."""
    return Path(os.environ.get("PREVIOUSLY_OPENAI_SCHEMA") or _DEFAULT)


@cache
def _validator() -> Draft202012Validator:
    path = schema_path()
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    document = json.loads(raw.decode("utf-8"))
    root = {"$ref": f"#/components/schemas/{REQUEST_SCHEMA}", "components": document["components"]}
    return Draft202012Validator(root)


def request_problems(body: Any) -> list[str]:
    """Why `body` is not a valid chat-completions request (empty when it is)."""
    try:
        validator = _validator()
    except (OSError, ValueError, KeyError) as exc:
        return [f"cannot load OpenAI's schema from {schema_path()}: {exc}"]
    found = []
    for error in validator.iter_errors(body):
        where = "/".join(str(p) for p in error.absolute_path) or "(body)"
        found.append(f"{where}: {error.message[:300]}")
    return found
