"""Reading and checking the sample's readable source: `sample/source/sample.yaml` + one YAML per slice."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from core.text import utf16_len

from .formats import ToolCall

SLICE_ID_RE = re.compile(r"^\d{4}-\d{2}-\d{2}-\d{4}$")
TONES = ("positive", "neutral", "negative", "mixed")
CLOSED_BY = ("time_cap", "capacity", "context_lost")
SUMMARY_MAX = 100
_HEADER_LIKE = re.compile(r"## Turn |^## Cognition ", re.MULTILINE)


class SourceError(ValueError):
    """The source says something the memory format (or the story) cannot hold."""


@dataclass
class Settings:
    """Sample-wide values: the persona's timezone, the catalog clock, the UI locale."""

    timezone: str
    generated_at: str
    locale: str


@dataclass
class Round:
    """One exchange's cognition: the model's thinking paragraphs and its tool calls."""

    thinking: list[str]
    tools: list[ToolCall]


@dataclass
class SliceSource:
    """One slice as written in `sample/source/slices/<id>.yaml`."""

    slice_id: str
    closed_by: str
    focus: str = ""
    summary: str = ""
    tone: str = ""
    tags: list[str] = field(default_factory=list)
    open_loops: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    turns: list[tuple[str, str]] = field(default_factory=list)
    cognition: list[Round] = field(default_factory=list)
    evolution: dict[str, Any] | None = None
    snapshot: bool = True
    end: str = ""


def _str_list(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SourceError(f"{where}: expected a list of non-empty strings, got {value!r}")
    return [v.strip() for v in value]


def _turns(raw: Any, where: str) -> list[tuple[str, str]]:
    turns: list[tuple[str, str]] = []
    for i, item in enumerate(raw or []):
        if not isinstance(item, dict) or len(item) != 1:
            raise SourceError(f"{where}: turn {i + 1} must be a single `user:` or `agent:` entry")
        ((role, content),) = item.items()
        expected = "user" if i % 2 == 0 else "agent"
        if role != expected:
            raise SourceError(f"{where}: turn {i + 1} should be `{expected}:` (turns alternate, user first)")
        text = str(content).strip()
        if not text or _HEADER_LIKE.search(text):
            raise SourceError(f"{where}: turn {i + 1} is empty or contains a header-shaped line")
        turns.append((role, text))
    return turns


def _cognition(raw: Any, rounds: int, where: str) -> list[Round]:
    if not raw:
        return []
    if len(raw) != rounds:
        raise SourceError(f"{where}: cognition needs one entry per exchange ({rounds}), got {len(raw)}")
    out = []
    for entry in raw:
        tools = []
        for call in entry.get("tools") or []:
            ((name, raw_params),) = call.items()
            params = dict(raw_params or {})
            status = str(params.pop("status", "ok"))
            tools.append(ToolCall(name, params, status))
        out.append(Round(_str_list(entry.get("thinking"), where), tools))
    return out


def _check(s: SliceSource, where: str) -> None:
    if s.closed_by not in CLOSED_BY:
        raise SourceError(f"{where}: closed_by must be one of {CLOSED_BY}")
    if s.tone and s.tone not in TONES:
        raise SourceError(f"{where}: tone must be one of {TONES}")
    if utf16_len(s.summary) > SUMMARY_MAX:
        raise SourceError(f"{where}: summary is {utf16_len(s.summary)} chars, keep it within {SUMMARY_MAX}")
    for tag in s.tags:
        if tag != " ".join(tag.lower().split()):
            raise SourceError(f"{where}: tag {tag!r} must be lowercase with single spaces (strand keys)")
    if s.closed_by == "context_lost" and not any(role == "agent" for role, _ in s.turns):
        raise SourceError(f"{where}: context_lost needs at least one agent turn (REFERENCE §7.1)")
    if not s.turns and not s.end:
        raise SourceError(f"{where}: a slice without turns needs an explicit `end`")


def load_slice(path: Path) -> SliceSource:
    """Parse and check one slice file."""
    where = str(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise SourceError(f"{where}: not valid YAML ({exc})") from exc
    if not isinstance(raw, dict):
        raise SourceError(f"{where}: expected a mapping")
    slice_id = str(raw.get("id", ""))
    if not SLICE_ID_RE.match(slice_id) or path.stem != slice_id:
        raise SourceError(f"{where}: `id` must be YYYY-MM-DD-HHMM and match the file name")
    turns = _turns(raw.get("turns"), where)
    s = SliceSource(
        slice_id=slice_id,
        closed_by=str(raw.get("closed_by", "time_cap")),
        focus=str(raw.get("focus", "")).strip(),
        summary=str(raw.get("summary", "")).strip(),
        tone=str(raw.get("tone", "")),
        tags=_str_list(raw.get("tags"), f"{where} tags"),
        open_loops=_str_list(raw.get("open_loops"), f"{where} open_loops"),
        decisions=_str_list(raw.get("decisions"), f"{where} decisions"),
        turns=turns,
        cognition=_cognition(raw.get("cognition"), (len(turns) + 1) // 2, where),
        evolution=raw.get("evolution"),
        snapshot=bool(raw.get("snapshot", True)),
        end=str(raw.get("end", "")),
    )
    _check(s, where)
    return s


def load_settings(path: Path) -> Settings:
    """Parse `sample.yaml`."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    generated = raw["generated_at"]
    if isinstance(generated, dt.datetime):
        raise SourceError(f"{path}: quote `generated_at` so it stays an exact ISO string")
    return Settings(timezone=raw["timezone"], generated_at=str(generated), locale=raw.get("locale", "en"))


def load_source(root: Path) -> tuple[Settings, list[SliceSource]]:
    """Everything under `sample/source/`, slices in id order."""
    settings = load_settings(root / "sample.yaml")
    slices = [load_slice(p) for p in sorted((root / "slices").glob("*.yaml"))]
    if not slices:
        raise SourceError(f"{root}/slices holds no slice files")
    return settings, slices
