"""Request and response bodies of the HTTP and WebSocket API (docs/API.md "Routes") — the contract the UI
reads.

Requests forbid unknown fields (except the flush body, which the original's clients send with
fields of their own). Responses may gain fields; never rename or drop one without
updating every user (web/, the CLI's `chat --url`, tests).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator

from core.ids import PictureName
from core.memory.paths import SLICE_ID_PATTERN
from core.memory.slice.core_edits import FLUSH_MAX_TURNS
from functions.api.id_params import id_field

Effort = Literal["low", "medium", "high"]
Locale = Literal["en", "zh"]
# The shape of an IANA zone name; the server also checks that the zone exists.
TIMEZONE_PATTERN = r"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ------------------------------------------------------------------ turns


class ClientState(Strict):
    """What the client has seen of the active slice (feeds the context-lost rule)."""

    slice_id: str | None = Field(default=None, pattern=SLICE_ID_PATTERN)
    agent_turns_seen: int = Field(default=0, ge=0, le=10_000)


class ImageUpload(Strict):
    """A picture sent with a message: its file name and its bytes in base64."""

    name: str = Field(default="image", max_length=255)
    data: str = Field(min_length=1, max_length=4_200_000, description="the file's bytes, base64")


class StoredImage(Strict):
    """A picture already stored with an earlier turn of a slice, sent again by reference
    (answer again, edit and resend: `POST /api/slices/{id}/turns/{turn_id}/retract` lists them)."""

    slice_id: str = Field(pattern=SLICE_ID_PATTERN)
    file: str = id_field(PictureName, description="as linked")
    name: str = Field(default="image", max_length=255)


class TurnRequest(Strict):
    """`POST /api/turns` and the WebSocket `turn.start` action."""

    message: str = Field(
        default="",
        max_length=100_000,
        description="may be empty only when the message carries a picture (`attachments` or `reattach`)",
    )
    timezone: str = Field(
        default="UTC",
        max_length=64,
        pattern=TIMEZONE_PATTERN,
        description="IANA zone name, e.g. Europe/Lisbon (an unknown zone is refused)",
    )
    client: ClientState = Field(default_factory=ClientState)
    model: str | None = Field(default=None, max_length=128)
    thinking: bool | None = None
    effort: Effort | None = None
    locale: Locale | None = None
    attachments: list[ImageUpload] = Field(default_factory=list, max_length=8)
    reattach: list[StoredImage] = Field(
        default_factory=list,
        max_length=8,
        description="pictures stored with an earlier turn, sent again (small enough for a WebSocket frame)",
    )

    @model_validator(mode="after")
    def _says_something(self) -> TurnRequest:
        # Refused here, before any turn service sees it (core.turn.runtime.check_request says the same).
        if not self.message.strip() and not self.attachments and not self.reattach:
            raise ValueError("The message is empty: say something or attach a picture.")
        return self


class TurnAccepted(BaseModel):
    turn_id: str


class TurnView(BaseModel):
    """`GET /api/turns/{turn_id}?after=SEQ`: status, the events after SEQ, the reply once known."""

    turn_id: str
    status: Literal["running", "done", "interrupted", "error"]
    events: list[dict[str, Any]]
    reply: str | None = None
    slice_id: str | None = None


class WsStart(TurnRequest):
    action: Literal["turn.start"]


class WsFollow(Strict):
    action: Literal["turn.follow"]
    turn_id: str = Field(min_length=1, max_length=64)
    after: int = Field(default=0, ge=0)


class WsCancel(Strict):
    """The stop button: ask a running turn to end (`turn.done` with status `interrupted`)."""

    action: Literal["turn.cancel"]
    turn_id: str = Field(min_length=1, max_length=64)


# ------------------------------------------------------------------ reads


class Suggestion(BaseModel):
    """A briefing chip: a short label and the full message it sends."""

    label: str
    prompt: str


class SliceSummary(BaseModel):
    slice_id: str
    start: str
    end: str | None = None
    status: str
    focus: str = ""
    summary: str = ""
    open_loops: list[str] = []
    decisions: list[str] = []
    turn_count: int | None = None
    timezone: str | None = None


class Flags(BaseModel):
    demo: bool
    model_configured: bool
    auth_required: bool
    storage: Literal["local", "github", "demo"]
    read_only: bool


class TurnOut(BaseModel):
    turn_id: str | None
    timestamp: str
    role: str
    content: str
    cognition: str | None = Field(default=None, description="This turn's block of agent.md (agent turns)")


class StateView(BaseModel):
    """`GET /api/state`: the arrival briefing, the active slice, flags and what to set up."""

    name: str | None = Field(description="The user's name from the card's Identity; null when unknown")
    last_topic: str | None = None
    last_slice_id: str | None = None
    open_loops: list[str] = Field(default=[], max_length=4)
    suggestions: list[Suggestion] = []
    card_excerpt: str | None = None
    active: SliceSummary | None = None
    active_turns: list[TurnOut] = Field(default=[], description="The open slice's turns, oldest first")
    recent: list[SliceSummary] = []
    flags: Flags
    setup: list[str] = Field(default=[], description="Plain sentences saying what to configure, if anything")
    damaged: list[str] = Field(
        default=[],
        description="Memory files that could not be read and were left as they are (the card, "
        "config.json, staged notes, evolution files, and the slice files other than core.md the "
        "last maintenance pass found), one sentence each; everything else still works",
    )


class TimelineEntry(BaseModel):
    """One catalog entry (memory/episodic/timeline/index.json), oldest → newest in `GET /api/timeline`."""

    model_config = ConfigDict(extra="allow")
    id: str
    date: str
    start: str
    end: str | None = None
    turn_count: int | None = None
    status: str
    focus: str = ""
    summary: str = ""
    tags: list[str] = []
    tone: str | None = None
    open_loops: list[str] = []
    decisions: list[str] = []
    strands: list[str] = []
    needs_marking: bool = False
    problem: str | None = Field(default=None, description="Why the slice file cannot be read; null when fine")


class MonthCount(BaseModel):
    month: str = Field(description="YYYY-MM (UTC start)")
    count: int


class TimelineView(BaseModel):
    """`GET /api/timeline`: a window of the catalog, oldest → newest, and the whole span by month."""

    slices: list[TimelineEntry]
    total: int = Field(description="Slices in the whole timeline")
    offset: int = Field(default=0, description="Position of `slices[0]` in the whole timeline (0 = oldest)")
    months: list[MonthCount] = Field(default=[], description="Every slice by start month, oldest first")


class SliceView(BaseModel):
    """`GET /api/slices/{slice_id}`."""

    slice_id: str
    start: str
    end: str | None = None
    status: str
    timezone: str
    focus: str = ""
    summary: str = ""
    tags: list[str] = []
    open_loops: list[str] = []
    decisions: list[str] = []
    emotional_tone: str | None = None
    closed_by: str | None = None
    evolution_summary: str | None = None
    marked_by: str | None = Field(
        default=None, description="`user` after a hand edit, `fallback` for a rule mark"
    )
    done_loops: list[str] = Field(default=[], description="Open loops the user marked done")
    turns: list[TurnOut]
    previously: str | None = Field(default=None, description="The slice's previously.md snapshot, Markdown")
    appendix: str | None = None
    problem: str | None = Field(
        default=None,
        description=(
            "Why the slice file could not be read whole: broken or unclosed frontmatter (the turns "
            "found are still shown), not UTF-8 or over the size cap (no turns); null when fine"
        ),
    )


class SearchHit(BaseModel):
    slice_id: str
    relevance: float
    reason: str
    focus: str = ""
    start: str | None = None


class SearchView(BaseModel):
    query: str
    hits: list[SearchHit]


class CardEntry(BaseModel):
    section: Literal["identity", "past", "anchor", "now", "horizon", "self_model", "unsorted"]
    n: int = Field(description="1-based position within the section, as `previously card show` numbers it")
    text: str
    refs: list[str] = []
    since: str | None = None
    by: str | None = Field(default=None, description="Horizon due date YYYY-MM-DD; null when none")
    flag: str | None = Field(
        default=None, description="'stale' (Now ≥ 7 days) or 'overdue' (Horizon past its date)"
    )


class CardView(BaseModel):
    """`GET /api/card`."""

    markdown: str
    entries: list[CardEntry]
    updated: str | None = None
    can_undo: bool = False
    can_redo: bool = False


class CardLine(BaseModel):
    type: Literal["removed", "added"]
    text: str


class CardVersion(BaseModel):
    """One version in `GET /api/card/history`, newest first; the live card has `id` null."""

    id: str | None = Field(description="What POST /api/card/history/{id}/restore takes; null: the live card")
    at: str | None = Field(description="When this version was made (UTC ISO); null when not known")
    by: str | None = Field(description="What made it: user, evolution, undo, redo, restore, import, repair")
    added: int | None = Field(description="Card lines added against the version before it")
    removed: int | None = Field(description="Card lines removed against the version before it")
    sample: CardLine | None = Field(description="One line that changed (the one-line summary)")
    readable: bool = True


class CardHistoryView(BaseModel):
    """`GET /api/card/history`."""

    versions: list[CardVersion]
    total: int = Field(description="How many earlier versions are kept (the listing shows the newest)")
    can_undo: bool
    can_redo: bool
    undo_to: str | None = Field(description="The version an undo would bring back")
    redo_to: str | None = Field(description="The version a redo would bring back")


class CardEntryPatch(Strict):
    text: str = Field(min_length=1, max_length=2400)


class StrandsView(BaseModel):
    strands: dict[str, list[str]] = Field(description="strand → slice ids, newest last ({} with `counts`)")
    counts: dict[str, int] | None = Field(default=None, description="strand → slice count (with `counts`)")


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    name: str
    provider: str
    supports_thinking: bool = False
    supports_vision: bool = False
    default_effort: Effort | None = None


class ModelsView(BaseModel):
    providers: list[str]
    models: list[ModelInfo]
    main: str | None
    worker: str | None
    configured: bool = False
    provider_details: list[dict[str, Any]] = Field(
        default=[], description="id, name, base_url, env, models, state, detail (what its listing said)"
    )
    presets: list[dict[str, Any]] = Field(
        default=[],
        description="Every known provider: id, name, env (key variables), configured, main, worker",
    )
    main_model: dict[str, Any] | None = Field(
        default=None, description="The resolved main model, with thinking/effort and source"
    )
    worker_model: dict[str, Any] | None = None
    notes: list[str] = []
    setup: str | None = Field(default=None, description="What to configure when no provider is set")


class FromOriginalClient(BaseModel):
    """A body the original's clients send: fields it does not define are ignored, as the original
    ignored them (its schema stripped unknown keys), so such a client's save is not refused."""

    model_config = ConfigDict(extra="ignore")


class FlushTurn(FromOriginalClient):
    role: Literal["user", "agent"]
    content: str = Field(max_length=100_000)
    timestamp: str = Field(max_length=64)


class FlushRequest(FromOriginalClient):
    """`POST /api/episodic/flush` (docs/API.md "Memory"): 1–50 turns, the 50th included."""

    sliceId: str = Field(pattern=SLICE_ID_PATTERN)  # the original's field name
    turns: list[FlushTurn] = Field(
        min_length=1,
        max_length=FLUSH_MAX_TURNS,
        description=f"1–{FLUSH_MAX_TURNS} turns; send more in a second request",
    )


class SlicingPatch(Strict):
    # The bounds are checked by the config model (core/memory/config.py RANGES, with its own
    # wording); stated here so the OpenAPI document says what the server enforces.
    maxSliceMinutes: StrictInt | None = Field(
        default=None,
        description="5–120: a slice closes this long after it began",
        json_schema_extra={"minimum": 5, "maximum": 120},
    )
    maxTurnsPerSlice: StrictInt | None = Field(
        default=None, description="5–100 turns per slice", json_schema_extra={"minimum": 5, "maximum": 100}
    )


class ModelPatch(Strict):
    provider: str | None = Field(default=None, max_length=128, description="The original's main model id")
    thinking: StrictBool | None = None
    reasoningEffort: Effort | None = None
    main: str | None = Field(default=None, max_length=128, description="Main model id, or auto")
    worker: str | None = Field(default=None, max_length=128, description="Worker model id, or auto")
    effort: Effort | None = None


class WorkerPatch(Strict):
    mode: Literal["auto", "manual"] | None = None
    provider: str | None = Field(default=None, max_length=128)


class ConfigPatch(Strict):
    """`PATCH /api/config`: only the fields sent change (groups merge key by key)."""

    slicing: SlicingPatch | None = None
    model: ModelPatch | None = None
    worker: WorkerPatch | None = None
    onboarded: StrictBool | None = Field(default=None, description="true or false (not 0 or 1)")
    datasource: Literal["demo", "own"] | None = None
    locale: Locale | None = None


class ConfigView(BaseModel):
    """`GET /api/config`: the preferences as merged with the defaults, and what was wrong with the file."""

    config: dict[str, Any]
    problems: list[str] = Field(default=[], description="Stored values that were replaced by defaults")


class SignIn(Strict):
    key: str = Field(min_length=1, max_length=512)


class Health(BaseModel):
    ok: bool
    version: str


class ErrorBody(BaseModel):
    """Every 4xx/5xx: a machine code and a sentence saying what to do."""

    error: str
    message: str
