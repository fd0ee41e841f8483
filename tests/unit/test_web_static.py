"""The web UI as files: vendored copies match their manifest, nothing loads from another origin,
every import resolves, and the first load stays within its budget."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from bench import bench_web

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
# A reference to another origin in a place the browser would fetch it from.
REMOTE = re.compile(
    r"""(?:src|href)=["']?(?:https?:)?//"""
    r"""|url\(\s*["']?(?:https?:)?//"""
    r"""|(?:from\s+|import\(\s*)["'](?:https?:)?//"""
    r"""|@import"""
)
OWN_SOURCES = [*WEB.glob("*.html"), *(WEB / "app").rglob("*.js"), *(WEB / "styles").glob("*.css")]


def test_every_vendored_file_matches_the_manifest() -> None:
    manifest = json.loads((WEB / "vendor" / "MANIFEST.json").read_text(encoding="utf-8"))
    on_disk = {
        str(p.relative_to(ROOT))
        for base in (WEB / "vendor", ROOT / "tests" / "browser" / "vendor")
        for p in base.rglob("*")
        if p.is_file() and p.name != "MANIFEST.json"
    }
    assert set(manifest["files"]) == on_disk
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((ROOT / rel).read_bytes()).hexdigest() == digest, rel
    for name, info in manifest["packages"].items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", info["version"]), name
        assert info["integrity"].startswith("sha512-"), name


def test_nothing_is_loaded_from_another_origin() -> None:
    assert REMOTE.search('<script src="https://cdn.example/x.js">')
    assert REMOTE.search("import x from 'https://esm.example/x.js'")
    offenders = [
        f"{p.relative_to(ROOT)}: {m.group(0)}"
        for p in OWN_SOURCES
        for m in REMOTE.finditer(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_every_module_import_resolves() -> None:
    imports = bench_web.import_map((WEB / "index.html").read_text(encoding="utf-8"))
    graph = bench_web.module_graph(WEB / "app" / "main.js", imports)
    names = {p.name for p in graph}
    assert {"app.js", "wheel.js", "stream.js", "preact.js", "hooks.js", "marked.js", "purify.js"} <= names
    for page in ("index.html", "sign-in.html"):
        for path in bench_web.page_assets(page):
            assert path.is_file(), path


def test_the_first_load_fetches_minified_libraries_only() -> None:
    """A library's readable build costs the page twice the bytes (DOMPurify's was 2.5x). The
    icon table (`vendor/lucide/icons.js`, written by scripts/vendor-icons.mjs, 7 KB) is one icon
    a line and small enough not to matter."""
    imports = bench_web.import_map((WEB / "index.html").read_text(encoding="utf-8"))
    graph = bench_web.module_graph(WEB / "app" / "main.js", imports)
    vendored = [p for p in graph if "vendor" in p.parts and p.stat().st_size > 10_000]
    assert {p.name for p in vendored} >= {"marked.js", "purify.js", "preact.js"}
    for path in vendored:
        text = path.read_text(encoding="utf-8")
        per_line = len(text) / max(1, text.count("\n"))
        assert per_line > 300, f"{path.relative_to(WEB)}: {per_line:.0f} chars a line, not a minified build"


def test_first_load_is_within_budget() -> None:
    assets = bench_web.measure()
    total = sum(a.gz for a in assets if not a.font)
    print(
        f"first load: {total / 1024:.1f} KB gzipped, excluding fonts "
        f"(budget {bench_web.BUDGET_BYTES // 1024} KB)"
    )
    assert 20 * 1024 < total <= bench_web.BUDGET_BYTES


def test_the_module_scanner_sees_static_imports_only(tmp_path: Path) -> None:
    mod = tmp_path / "m.js"
    mod.write_text(
        'import a from "./a.js";\nimport {\n  b,\n} from "./b.js";\nexport { c } from "./c.js";\n'
        '// import nope from "./commented.js";\nconst lazy = () => import("./lazy.js");\n',
        encoding="utf-8",
    )
    assert bench_web.module_imports(mod) == ["./a.js", "./b.js", "./c.js"]


def test_every_stylesheet_closes_its_blocks() -> None:
    """An unclosed rule turns every later one into a nested rule that no longer matches (the
    slice actions and reply actions lost their layout that way)."""
    for css in sorted((WEB / "styles").glob("*.css")):
        text = re.sub(r"/\*.*?\*/", "", css.read_text(encoding="utf-8"), flags=re.S)
        depth = 0
        for ch in text:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0, f"{css.name}: a '}}' closes nothing"
        assert depth == 0, f"{css.name}: {depth} block(s) left open"
