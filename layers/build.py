"""Build the Lambda dependency layer without Docker: cp313 manylinux aarch64 wheels from the lock file.

    python -m layers.build            # build (or reuse) build/layer, print its size
    python -m layers.build --force    # rebuild even if the lock did not change

The runtime dependency group is exported from uv.lock (the CDK and dev groups never enter it,
nor the CLI-only packages, nor boto3, which the Lambda runtime provides), installed with pip
for the Lambda platform, then checked: every native extension must be an aarch64 ELF and the
unzipped size must stay under the budget.
A rebuild is skipped when the exported requirements are unchanged since the last build.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from layers.bytecode import compile_tree, find_python

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "build" / "layer"
PYTHON_VERSION = "3.13"
# Lambda's python3.13 runtime is Amazon Linux 2023 (glibc 2.34): wheels built for glibc 2.17 or
# 2.28 both run there, and some packages (Pillow 12.3+) publish only the newer tag.
PLATFORMS = ("manylinux2014_aarch64", "manylinux_2_28_aarch64")
# What Lambda allows for a function plus all its layers, unzipped.
LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024
# Our own budget, well under the limit, so the function code and growth have room.
DEFAULT_BUDGET_MB = 150
# Packages only the CLI / local server needs; pruned with everything only they pull in.
CLI_ONLY = ("uvicorn", "typer", "rich")
# The Lambda Python runtime ships boto3 and botocore (about 23 MiB); the functions use only
# long-standing clients (S3, Step Functions, Secrets Manager, the WebSocket management API).
RUNTIME_PROVIDED = ("boto3",)
EM_AARCH64 = 183  # ELF e_machine for AArch64


@dataclass(frozen=True)
class LayerReport:
    """What a build produced: its size, its biggest packages, and whether it was reused."""

    path: str
    key: str
    total_bytes: int
    file_count: int
    largest: dict[str, int]
    foreign_binaries: list[str]
    reused: bool

    @property
    def total_mb(self) -> float:
        return self.total_bytes / (1024 * 1024)


def export_requirements(repo_root: Path = REPO_ROOT) -> str:
    """The pinned runtime requirements from uv.lock, without dev, infra, CLI-only or runtime-provided ones."""
    cmd = [sys.executable, "-m", "uv"] if _has_module(sys.executable, "uv") else ["python3", "-m", "uv"]
    cmd += ["export", "--frozen", "--no-default-groups", "--no-hashes", "--no-emit-project", "--no-header"]
    cmd += ["--format", "requirements.txt"]
    for name in (*CLI_ONLY, *RUNTIME_PROVIDED):
        cmd += ["--prune", name]
    done = subprocess.run(cmd, cwd=repo_root, check=True, capture_output=True, text=True)
    return done.stdout


def build_layer(out: Path = DEFAULT_OUT, force: bool = False, requirements: str | None = None) -> LayerReport:
    """Install the requirements into out/python for the Lambda platform, or reuse a matching build."""
    requirements = requirements if requirements is not None else export_requirements()
    python = find_python(PYTHON_VERSION)
    pyc = "pyc" if python else "no-pyc"  # a machine that gains a 3.13 rebuilds with bytecode
    key = hashlib.sha256(
        f"{' '.join(PLATFORMS)} cp{PYTHON_VERSION} {pyc}\n{requirements}".encode()
    ).hexdigest()
    manifest = out / "manifest.json"
    target = out / "python"
    if not force and target.is_dir() and manifest.is_file():
        previous = json.loads(manifest.read_text(encoding="utf-8"))
        if previous.get("key") == key:
            return _measure(out, key, reused=True)
    if out.exists():
        shutil.rmtree(out)
    target.mkdir(parents=True)
    req_file = out / "requirements.txt"
    req_file.write_text(requirements, encoding="utf-8")
    _pip_install(req_file, target)
    if python:
        compile_tree(target, python)
    report = _measure(out, key, reused=False)
    manifest.write_text(json.dumps(asdict(report), indent=2) + "\n", encoding="utf-8")
    return report


def _pip_install(req_file: Path, target: Path) -> None:
    # The lock is fully resolved for every platform, so pip must not re-resolve (--no-deps);
    # --no-compile because the bytecode of this machine's Python would be ignored by 3.13; a
    # Python 3.13, when the machine has one, compiles the layer afterwards.
    cmd = [*_pip_command(), "install", "--quiet", "--disable-pip-version-check", "--no-deps"]
    cmd += ["--root-user-action=ignore"]
    cmd += ["--target", str(target), "--implementation", "cp"]
    for platform in PLATFORMS:
        cmd += ["--platform", platform]
    cmd += ["--python-version", PYTHON_VERSION, "--only-binary=:all:", "--no-compile"]
    cmd += ["-r", str(req_file)]
    subprocess.run(cmd, check=True)


def _pip_command() -> list[str]:
    """A pip to run: this interpreter's if it has one (uv venvs do not), else the system python3's."""
    if _has_module(sys.executable, "pip"):
        return [sys.executable, "-m", "pip"]
    python3 = shutil.which("python3")
    if python3 and _has_module(python3, "pip"):
        return [python3, "-m", "pip"]
    raise SystemExit("No pip found: install pip for python3 (apt install python3-pip) and retry.")


def _has_module(python: str, module: str) -> bool:
    probe = subprocess.run([python, "-c", f"import {module}"], capture_output=True)
    return probe.returncode == 0


def _measure(out: Path, key: str, reused: bool) -> LayerReport:
    """Sizes per top-level package and every native extension that is not aarch64."""
    target = out / "python"
    sizes: dict[str, int] = {}
    total = count = 0
    foreign: list[str] = []
    for path in target.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        size = path.stat().st_size
        total += size
        count += 1
        top = path.relative_to(target).parts[0]
        sizes[top] = sizes.get(top, 0) + size
        if ".so" in path.suffixes and not _is_aarch64_elf(path):
            foreign.append(str(path.relative_to(target)))
    largest = dict(sorted(sizes.items(), key=lambda kv: -kv[1])[:10])
    return LayerReport(str(out), key, total, count, largest, sorted(foreign), reused)


def _is_aarch64_elf(path: Path) -> bool:
    with path.open("rb") as fh:
        head = fh.read(20)
    return head[:4] == b"\x7fELF" and int.from_bytes(head[18:20], "little") == EM_AARCH64


def directory_bytes(path: Path) -> int:
    """Total size of the regular files under path."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def problems(report: LayerReport, budget_mb: float, code_bytes: int = 0) -> list[str]:
    """Why this layer must not ship: foreign binaries, over budget, over Lambda's limit."""
    found = []
    if report.foreign_binaries:
        sample = report.foreign_binaries[:3]
        found.append(f"{len(report.foreign_binaries)} native files are not aarch64: {sample}")
    if report.total_mb > budget_mb:
        found.append(f"layer is {report.total_mb:.1f} MiB, over the {budget_mb} MiB budget")
    if report.total_bytes + code_bytes > LAMBDA_UNZIPPED_LIMIT:
        found.append("layer plus function code exceed Lambda's 250 MB unzipped limit")
    return found


def format_report(report: LayerReport, code_bytes: int) -> str:
    """The human summary printed after a build."""
    lines = [
        f"layer: {report.path} ({'reused, lock unchanged' if report.reused else 'built'})",
        f"  {report.total_mb:.1f} MiB in {report.file_count} files;"
        f" function code {code_bytes / 1048576:.1f} MiB;"
        f" together {(report.total_bytes + code_bytes) / LAMBDA_UNZIPPED_LIMIT:.0%} of Lambda's 250 MB",
        "  largest: " + ", ".join(f"{k} {v / 1048576:.1f}" for k, v in report.largest.items()),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: build or reuse, report, exit 1 when the layer must not ship."""
    parser = argparse.ArgumentParser(prog="python -m layers.build", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--force", action="store_true", help="rebuild even if the lock did not change")
    parser.add_argument("--budget-mb", type=float, default=DEFAULT_BUDGET_MB)
    args = parser.parse_args(argv)
    report = build_layer(args.out, force=args.force)
    code_bytes = sum(directory_bytes(REPO_ROOT / pkg) for pkg in ("core", "functions", "identity"))
    print(format_report(report, code_bytes))
    found = problems(report, args.budget_mb, code_bytes)
    for problem in found:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
