"""The two Lambda assets: the project's own packages (staged at synth) and the dependency layer.

Synth must work offline on a fresh clone, so it never downloads anything: the function code is
copied from the working tree, and the layer is whatever `python -m layers.build` produced. When
the layer has not been built, a placeholder keeps synth working and the stack carries a warning
that deploying it would give functions without their dependencies.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from infra.config import REPO_ROOT
from layers.bytecode import compile_tree, find_python

# The packages that run on Lambda; tests, web/ and infra/ never ship in a function.
APP_PACKAGES = ("core", "functions", "identity")
# A demo stage's personas (read-only at run time); their `source/` folders only build them.
SAMPLE_DIR = "sample"
_SAMPLE_SKIP = shutil.ignore_patterns("source", "README.md", "__pycache__", ".gitkeep", ".DS_Store")
# Documents the API serves (`GET /api/help/models` and `/api/help/forget`: the page's model set-up
# link and the forget dialog's guide to purging history).
APP_DOCS = ("docs/MODELS.md", "docs/FORGET.md")
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".gitkeep", ".DS_Store")


@dataclass(frozen=True)
class Assets:
    """Directories CDK turns into asset zips."""

    code_dir: Path
    layer_dir: Path
    layer_built: bool
    # Whether the function code holds bytecode of the runtime's Python (layers/bytecode.py).
    code_compiled: bool = False


def stage_app_code(out: Path, repo_root: Path = REPO_ROOT, with_sample: bool = False) -> Path:
    """Copy the runtime packages into `out` (replacing it), the function asset's root; with
    `with_sample` (a demo stage) the sample personas too, where `functions/compose/demo.py` looks."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for package in APP_PACKAGES:
        source = repo_root / package
        if source.is_dir():
            shutil.copytree(source, out / package, ignore=_SKIP)
    for doc in APP_DOCS:
        if (repo_root / doc).is_file():
            (out / doc).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(repo_root / doc, out / doc)
    if with_sample:
        shutil.copytree(repo_root / SAMPLE_DIR, out / SAMPLE_DIR, ignore=_SAMPLE_SKIP)
    return out


def layer_is_built(layer_dir: Path) -> bool:
    """True when `python -m layers.build` has filled layer_dir/python."""
    site = layer_dir / "python"
    return (layer_dir / "manifest.json").is_file() and site.is_dir() and any(site.iterdir())


def prepare_assets(layer_dir: Path, build_root: Path = REPO_ROOT / "build", demo: bool = False) -> Assets:
    """Stage the function code (a demo's with the sample personas); point at the built layer
    or at an empty placeholder."""
    code_dir = stage_app_code(build_root / "app", with_sample=demo)
    python = find_python()
    compiled = python is not None and compile_tree(code_dir, python) > 0
    if layer_is_built(layer_dir):
        return Assets(code_dir, layer_dir, True, compiled)
    placeholder = build_root / "layer-placeholder"
    (placeholder / "python").mkdir(parents=True, exist_ok=True)
    (placeholder / "python" / "README.txt").write_text(
        "Placeholder: run `python -m layers.build` before deploying.\n", encoding="utf-8"
    )
    return Assets(code_dir, placeholder, False, compiled)
