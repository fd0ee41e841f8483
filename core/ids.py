"""The identifiers other than the slice id, as values parsed once at the boundary.

Each type is a `str` subclass: once parsed it travels through code typed `str` unchanged, and a
function that needs the guarantee says so by taking the type. `parse` accepts the text or raises
`InvalidInput` saying what the id looks like; `try_parse` answers None instead. `PATTERN` (and
`MAX_LENGTH`) is the same rule for a FastAPI/pydantic schema — pydantic's regex engine has no
look-around, so the rule is spelt without it and the length is a separate bound.

The slice id is `core.memory.paths.SliceId` (it also knows its folder under the memory layout).
No module other than these two compiles a pattern for one of the ids (tests/unit/test_id_patterns.py
reads the tree).
"""

from __future__ import annotations

import re
from datetime import date
from typing import ClassVar, Self

from core.errors import InvalidInput

_ID_CHARS = "A-Za-z0-9_-"
_DIGIT = "[0-9]"  # ASCII only: Python's `\d` also takes other scripts' digits (`２０２６`)


class TextId(str):
    """A text identifier with one rule; subclasses set the rule and how errors name it."""

    KIND: ClassVar[str]
    RULE: ClassVar[str]
    EXAMPLE: ClassVar[str]
    PATTERN: ClassVar[str]  # `^…$` for a schema; `_valid` is the whole rule
    MAX_LENGTH: ClassVar[int]
    _RE: ClassVar[re.Pattern[str]]

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls._RE = re.compile(cls.PATTERN.removeprefix("^").removesuffix("$"))

    @classmethod
    def _valid(cls, text: str) -> bool:
        return len(text) <= cls.MAX_LENGTH and cls._RE.fullmatch(text) is not None

    @classmethod
    def parse(cls, text: object) -> Self:
        """`text` as this id, or InvalidInput saying what one looks like."""
        found = cls.try_parse(text)
        if found is None:
            shown = text if isinstance(text, str) else repr(text)
            raise InvalidInput(f'Invalid {cls.KIND} "{shown}": {cls.RULE}, e.g. {cls.EXAMPLE}.')
        return found

    @classmethod
    def try_parse(cls, text: object) -> Self | None:
        """`text` as this id, or None."""
        if isinstance(text, cls):
            return text
        if not isinstance(text, str) or not cls._valid(text):
            return None
        return cls(text)

    @classmethod
    def matches(cls, text: object) -> bool:
        return cls.try_parse(text) is not None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str.__repr__(self)})"


def is_legacy_number(label: str) -> bool:
    """Whether a turn label is a legacy turn number (`## Turn 3 — …` carries no turn id)."""
    return bool(label) and all("0" <= c <= "9" for c in label)


class TurnId(TextId):
    """One exchange's id (docs/FORMAT.md "core.md"): 1–64 of `A–Z a–z 0–9 _ -`, never all digits.

    The all-digits rule keeps an id from ever reading back as a legacy numbered turn (`## Turn 3`),
    which has no id (issue 33 item 6); live ids (`core.clock.RandomIds`) and imported ones
    (`core.imports.model.free_turn_id`) are made so.
    """

    KIND = "turn id"
    RULE = "1-64 letters, digits, '_' or '-', not all digits"
    EXAMPLE = "kQ3x_A"
    PATTERN = f"^{_DIGIT}*[A-Za-z_-][{_ID_CHARS}]*$"
    MAX_LENGTH = 64


class RunId(TextId):
    """An evolve-now run's id (made by the same source as turn ids): 1–64 of `A–Z a–z 0–9 _ -`."""

    KIND = "run id"
    RULE = "1-64 letters, digits, '_' or '-'"
    EXAMPLE = "kQ3x_A"
    PATTERN = f"^[{_ID_CHARS}]+$"
    MAX_LENGTH = 64


class RunName(TextId):
    """What a run store keeps a run under: a turn id, or a job's record (`evolve-<run id>`,
    `evolve-current`). One path segment: 1–80 of `A–Z a–z 0–9 _ -` (no dot, so never `..`)."""

    KIND = "run name"
    RULE = "1-80 letters, digits, '_' or '-'"
    EXAMPLE = "evolve-kQ3x_A"
    PATTERN = f"^[{_ID_CHARS}]+$"
    MAX_LENGTH = 80


class RunKey(TextId):
    """A value's key inside a run (`deadline`, `cancel`, …): 1–120 of `A–Z a–z 0–9 _ . -`, not
    starting with a dot and without `..` (it names a file or an object key)."""

    KIND = "run key"
    RULE = "1-120 letters, digits, '_', '.' or '-', not starting with '.'"
    EXAMPLE = "deadline"
    PATTERN = "^[A-Za-z0-9_-][A-Za-z0-9_.-]*$"
    MAX_LENGTH = 120

    @classmethod
    def _valid(cls, text: str) -> bool:
        return super()._valid(text) and ".." not in text


class DayKey(TextId):
    """A calendar day `YYYY-MM-DD` (ASCII digits). `parse` also checks the calendar; `try_shape`
    takes any digits (the relative-time code rolls Feb 30 over like JS `Date.UTC`)."""

    KIND = "day"
    RULE = "a date YYYY-MM-DD"
    EXAMPLE = "2026-08-01"
    PATTERN = f"^{_DIGIT}{{4}}-{_DIGIT}{{2}}-{_DIGIT}{{2}}$"
    MAX_LENGTH = 10

    @classmethod
    def _valid(cls, text: str) -> bool:
        if not cls.has_shape(text):
            return False
        try:
            date.fromisoformat(text)
        except ValueError:
            return False
        return True

    @classmethod
    def has_shape(cls, text: object) -> bool:
        """`YYYY-MM-DD` in ASCII digits, whatever the calendar says of it."""
        return isinstance(text, str) and cls._RE.fullmatch(text) is not None

    @classmethod
    def parts(cls, text: object) -> tuple[int, int, int] | None:
        """(year, month, day) of anything `has_shape` accepts, unchecked against the calendar."""
        if not cls.has_shape(text):
            return None
        assert isinstance(text, str)
        return int(text[:4]), int(text[5:7]), int(text[8:])

    @property
    def as_date(self) -> date:
        return date.fromisoformat(self)


class RepoName(TextId):
    """A GitHub repository `owner/name` (GITHUB_REPO)."""

    KIND = "repository"
    RULE = "owner/name (letters, digits, '_', '.' or '-' on each side)"
    EXAMPLE = "me/memory"
    PATTERN = "^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"
    MAX_LENGTH = 200

    @property
    def owner(self) -> str:
        return self.partition("/")[0]

    @property
    def name(self) -> str:
        return self.partition("/")[2]


class PictureName(TextId):
    """A stored picture's name as core.md links it: `<turn id>-<n>.<png|jpg|webp>` (docs/FORMAT.md
    "Pictures"). The turn part keeps the character rule only, so pictures of any stored turn stay
    readable."""

    KIND = "picture name"
    RULE = "<turn id>-<n>.png, .jpg or .webp"
    EXAMPLE = "kQ3x_A-1.png"
    PATTERN = f"^[{_ID_CHARS}]{{1,64}}-{_DIGIT}{{1,2}}\\.(png|jpg|webp)$"
    MAX_LENGTH = 72
    LEGACY_SUFFIX: ClassVar[str] = ".b64"  # a picture not migrated yet: the image's base64 text

    @property
    def turn(self) -> str:
        return self.rpartition("-")[0]

    @property
    def number(self) -> int:
        return int(self.rpartition("-")[2].partition(".")[0])

    @property
    def ext(self) -> str:
        return self.rpartition(".")[2]

    @classmethod
    def from_file(cls, file_name: object) -> tuple[PictureName, bool] | None:
        """The name a picture file (`<name>` or legacy `<name>.b64`) is linked by, and whether it is
        the legacy base64 form; None for any other file name."""
        if not isinstance(file_name, str):
            return None
        legacy = file_name.endswith(cls.LEGACY_SUFFIX)
        found = cls.try_parse(file_name.removesuffix(cls.LEGACY_SUFFIX) if legacy else file_name)
        return (found, legacy) if found is not None else None
