"""The installable app as files: the manifest names icons that exist at the sizes it says, and the
service worker's shell lists exactly the files the page needs offline."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PIL import Image

pytestmark = pytest.mark.unit

WEB = Path(__file__).resolve().parents[2] / "web"
# Loaded only when a reply has highlighted code or math (web/app/md-extras.js): offline such a
# reply shows plain code and the formula's TeX, so the shell does not carry ~700 KB for them.
ON_DEMAND = ("vendor/katex/", "vendor/highlight/")


def _expected_shell() -> set[str]:
    files = {"./", "index.html", "favicon.svg", "manifest.json"}
    files |= {f"icons/{p.name}" for p in (WEB / "icons").glob("*.png")}
    for folder, suffixes in (("app", {".js"}), ("styles", {".css"}), ("vendor", {".js", ".woff2"})):
        files |= {
            str(p.relative_to(WEB))
            for p in (WEB / folder).rglob("*")
            if p.suffix in suffixes
            and p.name != "sign-in.js"
            and not str(p.relative_to(WEB)).startswith(ON_DEMAND)
        }
    return files


def test_the_shell_lists_every_file_the_page_loads_and_nothing_else() -> None:
    sw = (WEB / "sw.js").read_text(encoding="utf-8")
    block = re.search(r"const SHELL = \[(.*?)\];", sw, re.S)
    assert block
    listed = re.findall(r'"([^"]+)"', block.group(1))
    assert len(listed) == len(set(listed))
    assert set(listed) == _expected_shell()
    assert all((WEB / f).is_file() for f in listed if f != "./")


def test_the_manifest_icons_exist_at_their_sizes_and_index_links_it() -> None:
    manifest = json.loads((WEB / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["display"] == "standalone" and manifest["start_url"] == "./"
    sizes = set()
    for icon in manifest["icons"]:
        with Image.open(WEB / icon["src"]) as img:
            assert f"{img.width}x{img.height}" == icon["sizes"], icon
            sizes.add(img.width)
    assert {192, 512} <= sizes
    assert any(i.get("purpose") == "maskable" for i in manifest["icons"])
    index = (WEB / "index.html").read_text(encoding="utf-8")
    assert 'rel="manifest" href="manifest.json"' in index


def test_d29_the_manifest_has_what_an_installed_app_is_expected_to_have() -> None:
    from urllib.parse import urljoin

    manifest = json.loads((WEB / "manifest.json").read_text(encoding="utf-8"))
    for key in ("id", "name", "short_name", "description", "lang", "scope", "categories"):
        assert manifest.get(key), key
    base = "https://example.test/app/manifest.json"  # as deployed under a path
    scope = urljoin(base, manifest["scope"])
    assert urljoin(base, manifest["start_url"]).startswith(scope)
    # Each shortcut opens a route of the page (web/app/app-data.js parseRoute), inside the scope.
    app_data = (WEB / "app" / "app-data.js").read_text(encoding="utf-8")
    assert manifest["shortcuts"]
    for shortcut in manifest["shortcuts"]:
        url = urljoin(base, shortcut["url"])
        assert url.startswith(scope) and shortcut["name"], shortcut
        view = url.split("#/", 1)[1]
        assert f'head === "{view}"' in app_data, view
        assert all((WEB / icon["src"]).is_file() for icon in shortcut.get("icons", []))
    # Screenshots for the richer install sheet: one narrow, one wide, at the sizes they say.
    assert {s["form_factor"] for s in manifest["screenshots"]} == {"narrow", "wide"}
    for shot in manifest["screenshots"]:
        with Image.open(WEB / shot["src"]) as img:
            assert f"{img.width}x{img.height}" == shot["sizes"], shot
            assert shot["type"] == Image.MIME[img.format]
        assert shot["label"]
    # The browser's bar follows the colour scheme (the manifest has one theme colour only): the
    # dark one first, as the first <meta> that matches wins.
    index = (WEB / "index.html").read_text(encoding="utf-8")
    dark = index.find('name="theme-color" content="#0a0a0a" media="(prefers-color-scheme: dark)"')
    assert -1 < dark < index.find('name="theme-color" content="#3d4ee6"')


def test_the_data_cache_name_is_the_one_sign_out_forgets() -> None:
    sw = (WEB / "sw.js").read_text(encoding="utf-8")
    name = re.search(r'const DATA_CACHE = "([^"]+)"', sw)
    pwa = (WEB / "app" / "pwa.js").read_text(encoding="utf-8")
    assert name and f'caches.delete("{name.group(1)}")' in pwa


def test_the_offline_copy_is_kept_per_persona_by_the_header_the_page_sends() -> None:
    from functions.compose.demo import PERSONA_COOKIE, PERSONA_PARAM

    sw = (WEB / "sw.js").read_text(encoding="utf-8")
    api = (WEB / "app" / "api.js").read_text(encoding="utf-8")
    header = re.search(r'const PERSONA_HEADER = "([^"]+)"', sw)
    assert header and f'const PERSONA_HEADER = "{header.group(1)}"' in api
    assert f"(?:^|;\\s*){PERSONA_COOKIE}=" in api  # the cookie the server reads
    assert f'searchParams.has("{PERSONA_PARAM}")' in sw  # a `?persona=` in the URL wins, as on the server
    assert "headers: withPersona(" in api  # every API call carries the header
    assert "networkFirst(event, request, DATA_CACHE, null, dataKey(request))" in sw
    assert "event.waitUntil(cache.put(" in sw  # the worker lives until the copy is written
