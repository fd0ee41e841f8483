#!/usr/bin/env bash
# Vendors the pinned front-end libraries, fonts and icons into web/vendor/ (and axe-core into
# tests/browser/vendor/) from the npm registry with `npm pack`, and records every package's
# tarball integrity and every copied file's SHA-256 in web/vendor/MANIFEST.json.
# The web app loads nothing from a CDN: run this only to change a version, then commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENDOR=web/vendor
AXE_DIR=tests/browser/vendor

# name@version → what we copy (source path inside the package → destination under the repo).
PACKAGES=(
  "preact@11.2.0"
  "htm@3.1.1"
  "marked@18.2.1"
  "dompurify@3.5.0"
  "@fontsource-variable/raleway@5.3.0"
  "@fontsource-variable/geist-mono@5.3.0"
  "lucide-static@1.62.0"
  "axe-core@4.11.4"
  # Loaded only when a reply needs them (web/app/md-extras.js), so outside the first-load budget.
  "@highlightjs/cdn-assets@11.12.0"
  "katex@0.19.1"
)
# The lucide icons the UI uses (web/app/icons.js names them).
ICONS=(
  activity arrow-down arrow-up arrow-up-right brain calendar-days check chevron-down chevron-right
  circle-alert circle-check circle-x clock copy file-text folder funnel globe history id-card keyboard
  languages link-2 list-checks loader-circle log-out monitor moon octagon-pause pencil search settings
  sparkles square sun trash-2 triangle-alert undo-2 waypoints wrench x zap
)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fetch() {  # fetch NAME@VERSION → prints the extracted package dir
  local spec=$1 dir
  dir="$WORK/$(echo "$spec" | tr '/@' '__')"
  mkdir -p "$dir"
  (cd "$dir" && npm pack "$spec" --silent --json > pack.json && tar xzf ./*.tgz)
  echo "$dir"
}

# copy SRC DEST: copy one file, dropping a trailing source-map comment (the maps are not vendored).
copy() {
  mkdir -p "$(dirname "$2")"
  sed -e '/^\/\/# sourceMappingURL=/d' "$1" > "$2"
}

rm -rf "$VENDOR" "$AXE_DIR"
mkdir -p "$VENDOR" "$AXE_DIR"
: > "$WORK/packs.txt"

for spec in "${PACKAGES[@]}"; do
  dir=$(fetch "$spec")
  echo "$spec $dir" >> "$WORK/packs.txt"
  p=$dir/package
  case "$spec" in
    preact@*)
      copy "$p/dist/preact.mjs" "$VENDOR/preact/preact.js"
      copy "$p/hooks/dist/hooks.mjs" "$VENDOR/preact/hooks.js"
      cp "$p/LICENSE" "$VENDOR/preact/LICENSE" ;;
    htm@*)
      copy "$p/dist/htm.module.js" "$VENDOR/htm/htm.js"
      cp "$p/LICENSE" "$VENDOR/htm/LICENSE" ;;
    marked@*)
      # lib/marked.esm.js is the package's minified ES module build.
      copy "$p/lib/marked.esm.js" "$VENDOR/marked/marked.js"
      cp "$p/LICENSE" "$VENDOR/marked/LICENSE" ;;
    dompurify@*)
      # The package's minified build is UMD only (its ES module build is unminified, 2.5× the
      # size): give it the CommonJS `module` it looks for and export what it puts there.
      mkdir -p "$VENDOR/dompurify"
      {
        echo "// dompurify/dist/purify.min.js, wrapped as an ES module by scripts/vendor-web.sh."
        echo "const module = { exports: {} };"
        echo "const exports = module.exports;"
        sed -e '/^\/\/# sourceMappingURL=/d' "$p/dist/purify.min.js"
        echo "export default module.exports;"
      } > "$VENDOR/dompurify/purify.js"
      cp "$p/LICENSE" "$VENDOR/dompurify/LICENSE" ;;
    @fontsource-variable/raleway@*)
      mkdir -p "$VENDOR/fonts"
      for sub in latin latin-ext; do
        cp "$p/files/raleway-$sub-wght-normal.woff2" "$VENDOR/fonts/raleway-$sub.woff2"
      done
      cp "$p/LICENSE" "$VENDOR/fonts/LICENSE-raleway" ;;
    @fontsource-variable/geist-mono@*)
      mkdir -p "$VENDOR/fonts"
      for sub in latin latin-ext; do
        cp "$p/files/geist-mono-$sub-wght-normal.woff2" "$VENDOR/fonts/geist-mono-$sub.woff2"
      done
      cp "$p/LICENSE" "$VENDOR/fonts/LICENSE-geist-mono" ;;
    lucide-static@*)
      mkdir -p "$VENDOR/lucide"
      cp "$p/LICENSE" "$VENDOR/lucide/LICENSE"
      ICON_DIR="$p/icons" node scripts/vendor-icons.mjs "${ICONS[@]}" > "$VENDOR/lucide/icons.js" ;;
    @highlightjs/cdn-assets@*)
      copy "$p/es/highlight.min.js" "$VENDOR/highlight/highlight.js"
      cp "$p/LICENSE" "$VENDOR/highlight/LICENSE" ;;
    katex@*)
      # As with DOMPurify: the minified build is UMD only (katex.mjs is unminified, 2.2× the size).
      mkdir -p "$VENDOR/katex"
      {
        echo "// katex/dist/katex.min.js, wrapped as an ES module by scripts/vendor-web.sh."
        echo "const module = { exports: {} };"
        echo "const exports = module.exports;"
        sed -e '/^\/\/# sourceMappingURL=/d' "$p/dist/katex.min.js"
        echo "export default module.exports;"
      } > "$VENDOR/katex/katex.js"
      copy "$p/dist/katex.min.css" "$VENDOR/katex/katex.css"
      mkdir -p "$VENDOR/katex/fonts"
      cp "$p"/dist/fonts/*.woff2 "$VENDOR/katex/fonts/"
      cp "$p/LICENSE" "$VENDOR/katex/LICENSE" ;;
    axe-core@*)
      cp "$p/axe.min.js" "$AXE_DIR/axe.min.js"
      cp "$p/LICENSE" "$AXE_DIR/LICENSE-axe-core" ;;
  esac
done

python3 - "$ROOT" "$WORK/packs.txt" <<'PY'
"""Write web/vendor/MANIFEST.json: packages (version, npm integrity) and files (SHA-256)."""
import hashlib, json, sys
from pathlib import Path

root = Path(sys.argv[1])
packages = {}
for line in Path(sys.argv[2]).read_text().splitlines():
    spec, d = line.split(" ", 1)
    name, version = spec.rsplit("@", 1)
    info = json.loads((Path(d) / "pack.json").read_text())[0]
    packages[name] = {"version": version, "integrity": info["integrity"], "tarball": info["filename"]}
files = {}
for base in ("web/vendor", "tests/browser/vendor"):
    for f in sorted((root / base).rglob("*")):
        if f.is_file() and f.name != "MANIFEST.json":
            files[str(f.relative_to(root))] = hashlib.sha256(f.read_bytes()).hexdigest()
manifest = {"generated_by": "scripts/vendor-web.sh", "packages": packages, "files": files}
(root / "web/vendor/MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n")
print(f"vendored {len(packages)} packages, {len(files)} files")
PY
