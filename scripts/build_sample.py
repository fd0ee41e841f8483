#!/usr/bin/env python3
"""Regenerate every demo persona's memory/ from its source/ (sample/, sample/personas/<id>/);
`--check` only reports files that are out of date."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.samplekit.build import main

if __name__ == "__main__":
    raise SystemExit(main())
