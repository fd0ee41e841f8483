"""Cold start: import time of each Lambda handler in a fresh interpreter (median of several runs),
the heaviest imports of the API handler, a check that no model SDK loads, the SnapStart init phase
(the same imports with the snapshot preload on), and the CLI's start-up per command.

SnapStart's restore time can only be measured on Lambda itself; it is printed as not measurable
here."""

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
import functions.handlers.MODULE
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


HANDLERS = ("api", "ws", "steps", "maintain")
CLI_RUNS = 3


def _probe(env: dict[str, str], *flags: str, module: str = "api") -> subprocess.CompletedProcess[str]:
    code = PROBE.replace("MODULE", module)
    return subprocess.run(
        [sys.executable, *flags, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )


def _median_import(env: dict[str, str], module: str) -> tuple[float, dict]:
    results = [json.loads(_probe(env, module=module).stdout.strip().splitlines()[-1]) for _ in range(RUNS)]
    return statistics.median(r["seconds"] for r in results), results[0]


def _cli_seconds(env: dict[str, str], *args: str) -> float:
    import time

    times = []
    for _ in range(CLI_RUNS):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "functions.cli", *args], cwd=ROOT, env=env, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _handlers_and_snapshot(env: dict[str, str]) -> None:
    print("handler import, fresh interpreter (median of 5): on-demand | SnapStart init phase")
    snap_env = {**env, "AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start"}
    for module in HANDLERS:
        cold, first = _median_import(env, module)
        init, snap_first = _median_import(snap_env, module)
        print(
            f"  {module:9s} {cold * 1000:6.0f} ms ({first['sdks'] or 'no SDK'}) | "
            f"{init * 1000:6.0f} ms ({snap_first['sdks'] or 'no SDK'}, paid once per deploy)"
        )
    print("  SnapStart restore: not measurable offline (it happens inside Lambda; see docs/DEPLOY.md)")
    print(f"CLI start-up (median of {CLI_RUNS}, whole process):")
    for args in (("--help",), ("hash-key", "--help"), ("check", "--help"), ("info", "--json")):
        print(f"  previously {' '.join(args):18s} {_cli_seconds(env, *args) * 1000:6.0f} ms")


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
        _handlers_and_snapshot(env)
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
