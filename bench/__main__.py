"""Run every benchmark (`make bench`) or the ones named: `python -m bench storage weave`."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import bench


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))
    wanted = [n for n in names if not argv or n.removeprefix("bench_") in argv]
    if not wanted:
        print(f"no benchmark matches {argv}; available: {[n.removeprefix('bench_') for n in names]}")
        return 2
    for name in wanted:
        print(f"\n=== {name.removeprefix('bench_')} ===", flush=True)
        start = time.perf_counter()
        importlib.import_module(f"bench.{name}").main()
        print(f"({time.perf_counter() - start:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
