"""The turn analyzer's report: a lenient schema for what the model sends, a clean result for callers.

Models are sloppy: numbers where strings belong, "true" for true, a lone string for a list, a
nested object sent as a JSON string, extra fields, missing optional ones. The schema forgives
all of that; a report that is not an object, or that carries none of the expected fields, is
rejected and the caller falls back (docs/ARCHITECTURE.md, step "analyze").
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

IntentType = Literal["code_debug", "code_write", "explain", "chat", "review", "clarify"]
Section = Literal["identity", "past", "now", "horizon", "self_model"]
Intensity = Literal["none", "light", "strong"]
Register = Literal["neutral", "emotional", "humorous", "frustrated", "excited"]
Tone = Literal["positive", "neutral", "negative", "mixed"]

INTENTS: tuple[str, ...] = get_args(IntentType)
SECTIONS: tuple[str, ...] = get_args(Section)
INTENSITIES: tuple[str, ...] = get_args(Intensity)
REGISTERS: tuple[str, ...] = get_args(Register)
TONES: tuple[str, ...] = get_args(Tone)


def as_text(value: Any) -> Any:
    """Numbers and booleans to strings, strings trimmed, None to ""; other shapes left to fail."""
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value).lower() if isinstance(value, bool) else str(value)
    return value.strip() if isinstance(value, str) else value


def as_text_list(value: Any) -> Any:
    """A lone string (or a comma-separated one) becomes a list; scalars inside become strings."""
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, list):
        return [as_text(v) for v in value if v is not None]
    return value


def as_bool(value: Any) -> Any:
    """ "true"/"yes"/"1"/1 → True, "false"/"no"/"0"/0 → False."""
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "yes", "y", "1"):
            return True
        if lowered in ("false", "no", "n", "0", ""):
            return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return bool(value)
    return value


def as_choice(value: Any, allowed: tuple[str, ...], default: str | None) -> str | None:
    """A case- and spacing-tolerant enum value; anything unknown becomes `default`."""
    text = as_text(value)
    if isinstance(text, str):
        key = text.lower().replace("-", "_").replace(" ", "_")
        if key in allowed:
            return key
    return default


def _choice(allowed: tuple[str, ...], default: str | None) -> BeforeValidator:
    return BeforeValidator(lambda v: as_choice(v, allowed, default))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def _maybe_json(data: Any) -> Any:
    """A JSON object or array sent as a string, decoded; anything else unchanged."""
    if isinstance(data, str) and data.strip().startswith(("{", "[")) and _is_json(data):
        return json.loads(data)
    return data


Text = Annotated[str, BeforeValidator(as_text)]
TextList = Annotated[list[str], BeforeValidator(as_text_list)]
Flag = Annotated[bool, BeforeValidator(as_bool)]


class Lenient(BaseModel):
    """Extra fields ignored; the object itself may arrive as a JSON string."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _decode(cls, data: Any) -> Any:
        return _maybe_json(data)


class NewTagIn(Lenient):
    tag: Text = Field(description="a short, durable topic name")
    reason: Text = ""

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        data = _maybe_json(data)
        return {"tag": data} if isinstance(data, str | int | float) else data


class MessageTagsIn(Lenient):
    reuse: TextList = Field(default=[], description="existing topic names, copied exactly (at most 5)")
    create: list[NewTagIn] = Field(
        default=[], description="new durable topics nothing existing covers (at most 3)"
    )

    @field_validator("create", mode="before")
    @classmethod
    def _create_list(cls, v: Any) -> Any:
        v = _maybe_json(v)
        if isinstance(v, str):
            v = as_text_list(v)
        if isinstance(v, dict):
            return [v]
        return [] if v is None else v


class SemanticHintIn(Lenient):
    strands: TextList = Field(default=[], description="existing topics this message relates to (at most 5)")
    reason: Text = ""


class IntentIn(Lenient):
    type: Annotated[IntentType, _choice(INTENTS, "chat")] = "chat"
    reason: Text = ""


class MemoryUpdateIn(Lenient):
    content: Text = Field(default="", description="exactly what to record about the user, in one sentence")
    section: Annotated[Section | None, _choice(SECTIONS, None)] = None


class EvolveCardIn(Lenient):
    worth: Flag = True
    reason: Text = ""


class EmotionalSignalIn(Lenient):
    intensity: Annotated[Intensity, _choice(INTENSITIES, "none")] = "none"
    # `register` would shadow BaseModel.register; the wire name stays "register".
    tone_register: Annotated[Register, _choice(REGISTERS, "neutral")] = Field(
        default="neutral", alias="register"
    )
    note: Text = ""


class ClosedMarkingIn(Lenient):
    focus: Text = Field(default="", description="what the closing slice was mainly about, a few words")
    summary: Text = Field(default="", description="one line, at most 100 characters")
    tags: TextList = Field(default=[], description="the slice's topics (at most 6), reusing existing names")
    tone: Annotated[Tone, _choice(TONES, "neutral")] = "neutral"


REPORT_FIELDS = (
    "message_tags",
    "semantic_hint",
    "intent",
    "memory_worthy",
    "memory_update",
    "evolve_card",
    "emotional_signal",
    "closed_marking",
)


class AnalyzerReport(Lenient):
    """Everything the analyzer reports about one turn (the report tool's arguments)."""

    # Shown to the model as required so it fills them; validation still tolerates their absence.
    model_config = ConfigDict(
        json_schema_extra={"required": ["message_tags", "intent", "memory_worthy", "emotional_signal"]}
    )

    message_tags: MessageTagsIn = MessageTagsIn()
    semantic_hint: SemanticHintIn = SemanticHintIn()
    intent: IntentIn | None = None
    memory_worthy: Flag = Field(default=True, description="false for small talk and acknowledgements")
    memory_update: MemoryUpdateIn | None = Field(
        default=None,
        description="only for an explicit request to remember something, or a correction of how to behave",
    )
    evolve_card: EvolveCardIn | None = Field(default=None, description="only when a slice is closing")
    emotional_signal: EmotionalSignalIn = EmotionalSignalIn()
    closed_marking: ClosedMarkingIn | None = Field(default=None, description="only when a slice is closing")

    @model_validator(mode="before")
    @classmethod
    def _recognisable(cls, data: Any) -> Any:
        data = _maybe_json(data)
        if not isinstance(data, dict):
            return data
        if not any(k in data for k in REPORT_FIELDS):
            raise ValueError(f"none of the expected fields ({', '.join(REPORT_FIELDS)}) is present")
        # A blank or null optional part means "not given".
        return {k: v for k, v in data.items() if v not in (None, "", "null")}
