"""The layer rules of STYLE.md, enforced by reading imports (not by convention)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN_IN_CORE = {
    "boto3",
    "botocore",
    "fastapi",
    "starlette",
    "mangum",
    "aws_cdk",
    "constructs",
    "aws_lambda_powertools",
    "uvicorn",
    "typer",
    "functions",
    "infra",
    "tests",
}
# The model SDKs may be imported only by their adapter modules.
SDK_ADAPTERS = {"anthropic": "core/llm/anthropic_adapter.py", "openai": "core/llm/openai_adapter.py"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _py_files(top: str) -> list[Path]:
    return sorted((ROOT / top).rglob("*.py"))


@pytest.mark.unit
def test_core_imports_no_adapter_or_cloud_package() -> None:
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & FORBIDDEN_IN_CORE) for p in _py_files("core")}
    assert {k: v for k, v in offenders.items() if v} == {}


@pytest.mark.unit
def test_model_sdks_only_in_their_adapters() -> None:
    bad = []
    for top in ("core", "functions"):
        for p in _py_files(top):
            rel = str(p.relative_to(ROOT))
            for sdk, allowed in SDK_ADAPTERS.items():
                if sdk in _imports(p) and rel != allowed:
                    bad.append((rel, sdk))
    assert bad == []


@pytest.mark.unit
def test_nothing_imports_infra_at_run_time() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for top in ("core", "functions")
        for p in _py_files(top)
        if "infra" in _imports(p) or "aws_cdk" in _imports(p)
    ]
    assert offenders == []


def _modules(path: Path) -> set[str]:
    """Full dotted names of the absolute imports of one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.unit
def test_storage_knows_nothing_of_memory() -> None:
    offenders = {
        str(p.relative_to(ROOT)): sorted(m for m in _modules(p) if m.startswith("core.memory"))
        for p in _py_files("core/storage")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


# The memory layer owns the files; search, media, the model layer and the operations over the
# owners (core/actions) sit above it.
ABOVE_MEMORY = (
    "core.search",
    "core.media",
    "core.llm",
    "core.actions",
    "core.agent",
    "core.turn",
    "core.jobs",
    "core.imports",
)


@pytest.mark.unit
def test_memory_imports_nothing_above_it() -> None:
    offenders = {
        str(p.relative_to(ROOT)): sorted(m for m in _modules(p) if m.startswith(ABOVE_MEMORY))
        for p in _py_files("core/memory")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _package_graph() -> dict[str, set[str]]:
    """core.<package> → the core packages its modules import."""
    graph: dict[str, set[str]] = {}
    for p in _py_files("core"):
        rel = p.relative_to(ROOT).with_suffix("")
        source = _package(".".join(rel.parts))
        targets = {_package(m) for m in _modules(p) if m.startswith("core.")} - {source}
        graph.setdefault(source, set()).update(targets)
    return graph


@pytest.mark.unit
def test_core_packages_import_each_other_without_a_cycle() -> None:
    assert _find_cycle(_package_graph()) == []


# Above the memory, one direction: the agent (its helpers and passes) ← the turn ← the jobs that run
# outside a turn (maintain, evolve-now). A lower layer never imports a higher one.
BELOW = {
    "core/agent": ("core.turn", "core.jobs"),
    "core/turn": ("core.jobs",),
}


@pytest.mark.unit
@pytest.mark.parametrize("top", sorted(BELOW))
def test_no_upward_import_between_agent_turn_and_jobs(top: str) -> None:
    offenders = {
        str(p.relative_to(ROOT)): sorted(m for m in _modules(p) if m.startswith(BELOW[top]))
        for p in _py_files(top)
    }
    assert {k: v for k, v in offenders.items() if v} == {}


@pytest.mark.unit
def test_only_the_adapters_start_jobs() -> None:
    """core/jobs is an entry point's to call (CLI, API, Lambda); nothing else in core imports it."""
    offenders = [
        str(p.relative_to(ROOT))
        for p in _py_files("core")
        if not p.is_relative_to(ROOT / "core/jobs") and any(m.startswith("core.jobs") for m in _modules(p))
    ]
    assert offenders == []


def _find_cycle(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    done: set[str] = set()

    def visit(node: str, path: tuple[str, ...]) -> tuple[str, ...] | None:
        if node in path:
            return (*path[path.index(node) :], node)
        if node in done:
            return None
        for nxt in sorted(graph.get(node, ())):
            if found := visit(nxt, (*path, node)):
                return found
        done.add(node)
        return None

    return [c for n in sorted(graph) if (c := visit(n, ()))]


AGENT_PACKAGES = ("recall", "workers", "evolution")


def _agent_subpackage(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] == ["core", "agent"] and len(parts) > 2 and parts[2] in AGENT_PACKAGES:
        return parts[2]
    return None


@pytest.mark.unit
def test_agent_subpackages_import_each_other_without_a_cycle() -> None:
    """recall/, workers/ and evolution/ use the agent's shared modules and each other, never in a circle."""
    assert all((ROOT / "core/agent" / name / "__init__.py").exists() for name in AGENT_PACKAGES)
    graph: dict[str, set[str]] = {}
    for p in _py_files("core/agent"):
        source = _agent_subpackage(".".join(p.relative_to(ROOT).with_suffix("").parts))
        if source is None:
            continue
        targets = {t for m in _modules(p) if (t := _agent_subpackage(m))} - {source}
        graph.setdefault(source, set()).update(targets)
    assert _find_cycle(graph) == []


# Who commits (docs/DEVELOPING.md "Rules of thumb", Storage): a core operation takes storage and
# commits once; the adapters under functions/ (api routes, cli commands, mcp tools, handlers, aws)
# call that operation and never open a WriteBatch or call `.commit(` themselves. Modules allowed
# to anyway (the composition root, should it ever have to): none today.
MAY_COMMIT: set[str] = set()


def _commit_sites(source: str) -> list[str]:
    """Where a module touches a WriteBatch or calls a `commit` method: `line: what`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and any(a.name == "WriteBatch" for a in node.names):
            found.append(f"{node.lineno}: imports WriteBatch")
        elif getattr(node, "id", None) == "WriteBatch" or getattr(node, "attr", None) == "WriteBatch":
            found.append(f"{node.lineno}: uses WriteBatch")  # a Name or an Attribute
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "commit":
            found.append(f"{node.lineno}: calls .commit()")
    return sorted(found, key=lambda site: int(site.split(":")[0]))


@pytest.mark.unit
def test_the_commit_check_sees_a_batch_and_a_commit() -> None:
    source = (
        "from core.storage.base import WriteBatch\n"
        "import core.storage.base as base\n"
        "def f(storage):\n"
        "    batch = WriteBatch.open(storage)\n"
        "    base.WriteBatch.open(storage)\n"
        "    storage.commit([], 'm')\n"
    )
    assert _commit_sites(source) == [
        "1: imports WriteBatch",
        "4: uses WriteBatch",
        "5: uses WriteBatch",
        "6: calls .commit()",
    ]


@pytest.mark.unit
def test_no_adapter_opens_a_batch_or_commits() -> None:
    offenders = {
        rel: sites
        for p in _py_files("functions")
        if (rel := str(p.relative_to(ROOT))) not in MAY_COMMIT
        and (sites := _commit_sites(p.read_text(encoding="utf-8")))
    }
    assert offenders == {}, "move the batch into a core operation that commits once (docs/DEVELOPING.md)"


# The storage backends, run stores and turn runners: the composition root alone builds them.
BACKEND_CLASSES = {
    "LocalStorage",
    "GitHubStorage",
    "DemoStorage",
    "InMemoryStorage",
    "FolderRunStore",
    "MemoryRunStore",
    "S3RunStore",
    "S3Overlay",
    "StepFunctionsTurns",
    "LocalTurnService",
}
COMPOSE = ROOT / "functions/compose"


def _calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


@pytest.mark.unit
def test_only_functions_compose_builds_a_storage_backend_or_run_store() -> None:
    """functions/compose/ is the one composition root: a handler, command or route asks its container."""
    offenders = sorted(
        f"{p.relative_to(ROOT)}: {name}"
        for top in ("core", "functions")
        for p in _py_files(top)
        if not p.is_relative_to(COMPOSE)
        for name in {_called_name(c) for c in _calls(p)} & BACKEND_CLASSES
    )
    assert offenders == []


def _first_arg_name(call: ast.Call) -> str:
    arg = call.args[0] if call.args else None
    return arg.id if isinstance(arg, ast.Name) else arg.attr if isinstance(arg, ast.Attribute) else ""


@pytest.mark.unit
def test_no_container_is_patched_after_it_is_built() -> None:
    """Containers are built whole: no `dataclasses.replace` in functions/compose/, nor on a
    `*deps`/`*access` value anywhere in production code."""
    offenders = sorted(
        f"{p.relative_to(ROOT)}:{c.lineno}"
        for top in ("core", "functions")
        for p in _py_files(top)
        for c in _calls(p)
        if _called_name(c) == "replace"
        and not isinstance(getattr(c.func, "value", None), ast.Constant)
        and (p.is_relative_to(COMPOSE) or _first_arg_name(c).lower().endswith(("deps", "access")))
    )
    assert offenders == []


@pytest.mark.unit
def test_compose_needs_no_cloud_construct_library() -> None:
    assert [str(p.relative_to(ROOT)) for p in _py_files("functions") if "aws_cdk" in _imports(p)] == []
