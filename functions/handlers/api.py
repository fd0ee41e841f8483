"""Lambda entry of the HTTP API: the FastAPI app behind Mangum (API Gateway HTTP API events).

Settings are read and validated once, at cold start; a bad setting fails the cold start loudly.
Authentication is always required here. This module imports no model SDK: the adapters load
only where a model is called (bench/bench_coldstart.py measures the import).
"""

from __future__ import annotations

from mangum import Mangum

from functions.api.app import create_app
from functions.deps import build_deps
from functions.settings import load_settings

# Turns must outlive a request here: the deployment wires its own runner (Step Functions).
app = create_app(build_deps(load_settings(), require_auth=True, in_process_turns=False))
handler = Mangum(app, lifespan="off")
