"""Draw the app icons in web/icons/ (the favicon's spine-and-dots mark) with Pillow.

Run once after changing the mark: `.venv/bin/python scripts/build_icons.py`; the PNGs are committed.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[1] / "web" / "icons"
BRAND = (61, 78, 230, 255)
WHITE = (255, 255, 255)


def _mark(size: int, safe: float) -> Image.Image:
    """The mark on a brand square; `safe` is the share of the side the mark may use (maskable: 0.6)."""
    img = Image.new("RGBA", (size, size), BRAND)
    draw = ImageDraw.Draw(img, "RGBA")
    unit = size * safe / 32
    off = size * (1 - safe) / 2

    def p(x: float, y: float) -> tuple[float, float]:
        return off + x * unit, off + y * unit

    def line(a: tuple[float, float], b: tuple[float, float], width: float, alpha: int) -> None:
        draw.line([p(*a), p(*b)], fill=(*WHITE, alpha), width=max(1, round(width * unit)))
        for x, y in (a, b):
            r = width * unit / 2
            cx, cy = p(x, y)
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(*WHITE, alpha))

    def dot(x: float, y: float, r: float, alpha: int) -> None:
        cx, cy = p(x, y)
        draw.ellipse([cx - r * unit, cy - r * unit, cx + r * unit, cy + r * unit], fill=(*WHITE, alpha))

    line((11, 7), (11, 25), 2, 128)
    dot(11, 12, 2.5, 153)
    dot(11, 20, 3.5, 255)
    line((17, 20), (24, 20), 2.5, 255)
    line((17, 12), (22, 12), 2, 153)
    return img


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        _mark(size, 0.8).save(OUT / f"icon-{size}.png", optimize=True)
    _mark(512, 0.6).save(OUT / "icon-maskable-512.png", optimize=True)
    _mark(180, 0.8).convert("RGB").save(OUT / "apple-touch-icon.png", optimize=True)


if __name__ == "__main__":
    main()
