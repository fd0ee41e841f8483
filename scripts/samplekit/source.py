"""Reading and checking the sample's readable source: `sample/source/sample.yaml` + one YAML per slice."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml

from core.clock import iso, parse_iso, try_parse_iso
from core.memory.slice.agent_md import STATUS_ERROR, STATUS_OK, STATUS_UNKNOWN, ToolCall
from core.text import utf16_len

SLICE_ID_RE = re.compile(r"^\d{4}-\d{2}-\d{2}-\d{4}$")
TONES = ("positive", "neutral", "negative", "mixed")
CLOSED_BY = ("time_cap", "capacity", "context_lost")
SUMMARY_MAX = 100
_HEADER_LIKE = re.compile(r"## Turn |^## Cognition ", re.MULTILINE)
# libyaml's loader when PyYAML was built with it: the same results, several times faster.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SourceError(ValueError):
    """The source says something the memory format (or the story) cannot hold."""


@dataclass
class Settings:
    """Sample-wide values: the persona's timezone, the catalog clock, the UI locale."""

    timezone: str
    generated_at: str
    locale: str

    @property
    def woven_at(self) -> dt.datetime:
        """`generated_at` as an instant: the clock of the weave that built the indexes."""
        return parse_iso(self.generated_at)


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


def _tool_call(call: Any, where: str) -> ToolCall:
    """`{name: {param: value, …}}`; an optional `status` param (ok, error, ?) is the call's outcome."""
    if not isinstance(call, dict) or len(call) != 1:
        raise SourceError(f"{where}: a tool call is a single `name: {{params}}` entry, got {call!r}")
    ((name, raw_params),) = call.items()
    if raw_params is not None and not isinstance(raw_params, dict):
        raise SourceError(f"{where}: the parameters of `{name}` must be a mapping, got {raw_params!r}")
    params = dict(raw_params or {})
    status = str(params.pop("status", STATUS_OK))
    if status not in (STATUS_OK, STATUS_ERROR, STATUS_UNKNOWN):
        raise SourceError(f"{where}: `{name}` status must be ok, error or ?, got {status!r}")
    return ToolCall(str(name), params, status)


def _cognition(raw: Any, rounds: int, where: str) -> list[Round]:
    if not raw:
        return []
    if not isinstance(raw, list) or len(raw) != rounds:
        raise SourceError(f"{where}: cognition needs a list with one entry per exchange ({rounds})")
    out = []
    for i, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict):
            raise SourceError(f"{where}: cognition entry {i} must be a mapping (thinking, tools)")
        tools = [_tool_call(call, f"{where} cognition {i}") for call in entry.get("tools") or []]
        out.append(Round(_str_list(entry.get("thinking"), f"{where} cognition {i}"), tools))
    return out


def _evolution(raw: Any, where: str) -> dict[str, Any] | None:
    """`evolution: {summary, ops}`: what changed on the card when this slice closed."""
    if raw is None:
        return None
    ops = raw.get("ops") if isinstance(raw, dict) else None
    summary = raw.get("summary") if isinstance(raw, dict) else None
    if not isinstance(summary, str) or not summary.strip() or not isinstance(ops, list) or not ops:
        raise SourceError(f"{where}: `evolution` needs a `summary` line and a non-empty list of `ops`")
    return {"summary": " ".join(summary.split()), "ops": ops}


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
    stamp = try_parse_iso(s.end)
    if s.end and (stamp is None or iso(stamp) != s.end):
        raise SourceError(f"{where}: `end` must be a quoted UTC instant like '2026-01-01T10:20:30.000Z'")


def _read_mapping(path: Path) -> dict[str, Any]:
    """A source file's top-level YAML mapping."""
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    except OSError as exc:
        raise SourceError(f"{path}: cannot read it ({exc.strerror})") from exc
    except yaml.YAMLError as exc:
        raise SourceError(f"{path}: not valid YAML ({exc})") from exc
    if not isinstance(raw, dict):
        raise SourceError(f"{path}: expected a YAML mapping at the top level")
    return raw


def load_slice(path: Path) -> SliceSource:
    """Parse and check one slice file."""
    where = str(path)
    raw = _read_mapping(path)
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
        evolution=_evolution(raw.get("evolution"), where),
        snapshot=bool(raw.get("snapshot", True)),
        end=str(raw.get("end", "")),
    )
    _check(s, where)
    return s


def load_settings(path: Path) -> Settings:
    """Parse `sample.yaml`."""
    raw = _read_mapping(path)
    generated = raw.get("generated_at")
    stamp = try_parse_iso(generated) if isinstance(generated, str) else None
    if stamp is None or iso(stamp) != generated:
        raise SourceError(f"{path}: `generated_at` must be a quoted UTC instant (YYYY-MM-DDTHH:MM:SS.mmmZ)")
    timezone = str(raw.get("timezone", ""))
    try:
        ZoneInfo(timezone)
    except (ValueError, ZoneInfoNotFoundError) as exc:
        raise SourceError(f"{path}: `timezone` must be an IANA zone such as Europe/London") from exc
    return Settings(timezone=timezone, generated_at=generated, locale=str(raw.get("locale", "en")))


def load_source(root: Path) -> tuple[Settings, list[SliceSource]]:
    """Everything under `sample/source/`, slices in id order."""
    settings = load_settings(root / "sample.yaml")
    slices = [load_slice(p) for p in sorted((root / "slices").glob("*.yaml"))]
    if not slices:
        raise SourceError(f"{root}/slices holds no slice files")
    return settings, slices
