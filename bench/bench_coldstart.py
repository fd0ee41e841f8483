"""Cold start of the Lambda API handler: import time of `functions.handlers.api` in a fresh
interpreter (median of several runs), the heaviest imports, and a check that no model SDK loads."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5
PROBE = """
import json, sys, time
t0 = time.perf_counter()
import functions.handlers.api
t1 = time.perf_counter()
print(json.dumps({"seconds": t1 - t0, "sdks": [m for m in ("anthropic", "openai") if m in sys.modules],
                  "modules": len(sys.modules)}))
"""


def _env(memory: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREVIOUSLY_", "STORAGE", "GITHUB_"))}
    env.update(
        STORAGE="local", PREVIOUSLY_MEMORY=memory, PREVIOUSLY_ACCESS_KEY="x" * 32, OPENAI_API_KEY="sk-x"
    )
    return env


def _probe(env: dict[str, str], *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *flags, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )


def _heaviest(stderr: str, n: int = 8) -> list[tuple[int, str]]:
    """Top-level packages by cumulative import time (µs), from `-X importtime` output."""
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line[len("import time:") :].split("|"))
        if not name.startswith(" ") and "." not in name.strip():
            rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:n]


def main() -> None:
    """Print the median cold import time, the heaviest packages and the SDK check."""
    with tempfile.TemporaryDirectory() as memory:
        env = _env(memory)
        results = [json.loads(_probe(env).stdout.strip().splitlines()[-1]) for _ in range(RUNS)]
        detail = _probe(env, "-X", "importtime")
    times = [r["seconds"] for r in results]
    print(
        f"import functions.handlers.api: median {statistics.median(times) * 1000:.0f} ms "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}; {RUNS} fresh interpreters, "
        f"{results[0]['modules']} modules)"
    )
    print("heaviest top-level imports (cumulative):")
    for micros, name in _heaviest(detail.stderr):
        print(f"  {micros / 1000:8.0f} ms  {name}")
    sdks = sorted({m for r in results for m in r["sdks"]})
    print(f"model SDKs loaded at import: {sdks or 'none'} — {'OK' if not sdks else 'FAIL'}")
    if sdks:
        raise SystemExit("the API handler must not import a model SDK at cold start")


if __name__ == "__main__":
    main()
