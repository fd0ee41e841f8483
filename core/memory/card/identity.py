"""The card's Identity section → who the agent is talking to (name, aliases, address, pronouns).

Read from the live card's `## Identity`, falling back to the legacy archive's
`### Identity & background` and the v1/v2 `User identity` heading. English labels are matched
in any case; a few Chinese phrasings (`名字:`, `别名`, `叫 X`, `可用 X 称呼`) are understood too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from core.memory.card.model import strip_inline_comments
from core.text import js_trim

BLOCK_HEADING = "## Who you're assisting"

_SECTION_HEADINGS = (
    re.compile(r"^##\s+Identity\s*$", re.IGNORECASE),
    re.compile(r"^###\s+Identity & background\s*$", re.IGNORECASE),
    re.compile(r"^#{2,3}\s+User identity\s*$", re.IGNORECASE),
)
_SEP = r"\s*[:：]\s*"
_NAME_RE = re.compile(rf"^(?:name|名字|姓名){_SEP}(.+)$", re.IGNORECASE)
_ALIAS_RE = re.compile(rf"^(?:alias(?:es)?|also known as|别名|昵称){_SEP}(.+)$", re.IGNORECASE)
_ADDRESS_RE = re.compile(rf"^address(?: them)? as{_SEP}(.+)$", re.IGNORECASE)
_PRONOUNS_RE = re.compile(rf"^(?:pronouns|代词|人称){_SEP}(.+)$", re.IGNORECASE)
_WORD = r"([^\s，。、；,;:：（(]+)"
_CALLS_SELF_RE = re.compile(rf"(?:自称|叫)\s*{_WORD}")
_ADDRESS_ZH_RE = re.compile(rf"可用\s*{_WORD}\s*称呼")


@dataclass(frozen=True)
class IdentityProfile:
    """Who the user is, as far as the card says; empty strings mean "not stated"."""

    body: str
    name: str = ""
    aliases: tuple[str, ...] = ()
    address_as: str = ""
    pronouns: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The original's JSON shape (only the fields that are present)."""
        data: dict[str, Any] = {"body": self.body}
        if self.name:
            data["name"] = self.name
        if self.aliases:
            data["aliases"] = list(self.aliases)
        if self.address_as:
            data["addressAs"] = self.address_as
        if self.pronouns:
            data["pronouns"] = self.pronouns
        return data


def _section_bullets(lines: list[str], heading: re.Pattern[str]) -> list[str] | None:
    start = next((i for i, line in enumerate(lines) if heading.match(line)), None)
    if start is None:
        return None
    bullets = []
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        if line.startswith(("- ", "* ")) and (text := strip_inline_comments(line[2:])):
            bullets.append(text)
    return bullets


def _first(pattern: re.Pattern[str], bullets: list[str]) -> str:
    for b in bullets:
        m = pattern.search(b)
        if m:
            return js_trim(m.group(1))
    return ""


def parse_identity(card_text: str) -> IdentityProfile | None:
    """The identity profile of a card (or legacy document); None when it states no identity."""
    lines = [js_trim(line) for line in (card_text or "").split("\n")]
    bullets: list[str] | None = None
    for heading in _SECTION_HEADINGS:
        bullets = _section_bullets(lines, heading)
        if bullets is not None:
            break
    if not bullets:
        return None
    name = js_trim(re.split(r"[(（]", _first(_NAME_RE, bullets), maxsplit=1)[0]) or _first(
        _CALLS_SELF_RE, bullets
    )
    alias_text = _first(_ALIAS_RE, bullets)
    aliases = tuple(a for a in (js_trim(x) for x in re.split(r"[,，、]", alias_text)) if a)
    return IdentityProfile(
        body="\n".join(bullets),
        name=name,
        aliases=aliases,
        address_as=_first(_ADDRESS_RE, bullets) or _first(_ADDRESS_ZH_RE, bullets),
        pronouns=_first(_PRONOUNS_RE, bullets),
    )


def identity_block(profile: IdentityProfile) -> str:
    """The prompt block: a heading, the structured fields present, then the raw lines."""
    fields = []
    if profile.name:
        fields.append(f"Name: {profile.name}")
    if profile.aliases:
        fields.append(f"Aliases: {', '.join(profile.aliases)}")
    if profile.address_as:
        fields.append(f"Address them as: {profile.address_as}")
    if profile.pronouns:
        fields.append(f"Pronouns: {profile.pronouns}")
    head = "\n".join([BLOCK_HEADING, *fields])
    return f"{head}\n\n{profile.body}"


def identity_block_for(card_text: str) -> str:
    """`identity_block` of a card text, or "" when the card states no identity."""
    profile = parse_identity(card_text)
    return identity_block(profile) if profile else ""
