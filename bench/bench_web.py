"""The web UI's first load: every file the browser fetches before the page works, gzipped.

Fonts are counted apart (the budget excludes them); modules loaded later with `import()` are not
part of the first load. The budget is 150 KB gzipped. `measure` compresses the files on disk;
`served` asks the local server for each of them as a browser does (`Accept-Encoding: gzip,
deflate, br`) and counts the bytes that come over the wire, which is the figure the docs give.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WEB = Path(__file__).resolve().parent.parent / "web"
BUDGET_BYTES = 150 * 1024
ACCEPT = "gzip, deflate, br"

_STATIC_IMPORT = re.compile(
    r"""(?:^|[;\s])(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|^import\s*["']([^"']+)["']""", re.M
)
_HTML_REF = re.compile(r"""<(?:script|link)\b[^>]*?(?:src|href)=["']([^"']+)["'][^>]*>""", re.I)
_CSS_URL = re.compile(r"""url\(([^)]+)\)""")


@dataclass(frozen=True)
class Asset:
    """One fetched file: its path under web/, raw and gzipped bytes, and whether it is a font."""

    path: str
    raw: int
    gz: int
    font: bool


def import_map(html: str) -> dict[str, str]:
    """The page's import map (bare specifier → path relative to web/)."""
    m = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    if not m:
        return {}
    imports = json.loads(m.group(1)).get("imports", {})
    return {k: v.removeprefix("./") for k, v in imports.items()}


def module_imports(path: Path) -> list[str]:
    """The static import specifiers of one ES module (comments ignored, dynamic import() skipped)."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"(?m)^\s*//.*$", "", text)
    return [a or b for a, b in _STATIC_IMPORT.findall(text)]


def _resolve(spec: str, base: Path, imports: dict[str, str]) -> Path:
    if spec in imports:
        return WEB / imports[spec]
    if spec.startswith("."):
        return (base.parent / spec).resolve()
    raise ValueError(f"{base}: bare import {spec!r} is not in the import map")


def module_graph(entry: Path, imports: dict[str, str]) -> list[Path]:
    """Every module reachable from `entry` through static imports."""
    seen: dict[Path, None] = {}
    todo = [entry.resolve()]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        if not path.is_file():
            raise FileNotFoundError(f"imported but missing: {path}")
        seen[path] = None
        todo.extend(_resolve(spec, path, imports) for spec in module_imports(path))
    return list(seen)


def _local(ref: str) -> bool:
    return not ref.startswith(("http:", "https:", "//", "data:"))


def page_assets(page: str = "index.html") -> list[Path]:
    """Everything a page loads up front: itself, its scripts, styles (and their url()s), modules."""
    html_path = WEB / page
    html = html_path.read_text(encoding="utf-8")
    imports = import_map(html)
    files: dict[Path, None] = {html_path.resolve(): None}
    for ref in _HTML_REF.findall(html):
        if not _local(ref):
            raise ValueError(f"{page} loads {ref} from another origin")
        target = (WEB / ref).resolve()
        files[target] = None
        if target.suffix == ".css":
            for url in _CSS_URL.findall(target.read_text(encoding="utf-8")):
                files[(target.parent / url.strip("'\"")).resolve()] = None
        elif target.suffix == ".js" and 'type="module"' in html and ref.startswith("app/main"):
            files.update(dict.fromkeys(module_graph(target, imports)))
    return list(files)


def measure(page: str = "index.html") -> list[Asset]:
    """Raw and gzipped sizes of a page's first load."""
    out = []
    for path in page_assets(page):
        data = path.read_bytes()
        rel = str(path.relative_to(WEB.resolve()))
        out.append(Asset(rel, len(data), len(gzip.compress(data, 9)), path.suffix == ".woff2"))
    return out


def served(client: Any, page: str = "index.html") -> list[Asset]:
    """The first load as `client` (an httpx client of the local server) receives it: the bytes on
    the wire for each file (`gz`), and the file's own size (`raw`)."""
    out = []
    for path in page_assets(page):
        rel = str(path.relative_to(WEB.resolve()))
        response = client.get("/" if rel == page else f"/{rel}", headers={"Accept-Encoding": ACCEPT})
        response.raise_for_status()
        out.append(Asset(rel, len(response.content), response.num_bytes_downloaded, path.suffix == ".woff2"))
    return out


def served_by_the_demo() -> list[Asset]:
    """`served` against the demo server (`previously serve --demo`), in-process."""
    from fastapi.testclient import TestClient

    from functions.server import ServeOptions, build_app, prepare
    from functions.settings import load_settings

    options = ServeOptions(demo=True, maintenance_minutes=0)
    app = build_app(prepare(options, load_settings()), options)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:  # a loopback Host for the guard
        return served(client)


def main() -> None:
    """Print the first load of the timeline page against the budget, on disk and as served."""
    _report("gzipped on disk", measure())
    _report("as the local server sends it", served_by_the_demo())


def _report(how: str, assets: list[Asset]) -> None:
    code = [a for a in assets if not a.font]
    fonts = [a for a in assets if a.font]
    for a in sorted(code, key=lambda a: -a.gz)[:12]:
        print(f"  {a.gz / 1024:7.1f} KB gz  {a.raw / 1024:7.1f} KB  {a.path}")
    total = sum(a.gz for a in code)
    print(
        f"first load {how} (excluding fonts): {len(code)} files, {total / 1024:.1f} KB "
        f"(budget {BUDGET_BYTES / 1024:.0f} KB); fonts: {sum(a.raw for a in fonts) / 1024:.1f} KB"
    )


if __name__ == "__main__":
    main()
