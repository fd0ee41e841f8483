"""The demo: its personas, each visitor's own sandbox of them, and the one resolver that picks
the Deps a request reads and writes (`persona_deps`).

An entrypoint hands `add_demo` one function, `SeatDeps`, that builds the Deps of one seat (a
persona, for everyone or for one visitor); how a seat is stored and where its turns run is the
entrypoint's choice (functions/compose/local.py, aws.py), what a demo offers is decided here.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from core.clock import Clock
from core.errors import InvalidInput
from core.storage.visitor import visitor_id
from functions.compose.deps import REPO_ROOT
from functions.settings import Settings

if TYPE_CHECKING:
    from core.storage.demo import Persona
    from functions.compose.deps import Deps

# The bundled sample persona (a memory root: it holds memory/).
SAMPLE_ROOT = REPO_ROOT / "sample"

# How a request names its demo persona: `?persona=ID` wins, else the cookie the page's picker sets.
PERSONA_PARAM = "persona"
PERSONA_COOKIE = "previously_persona"

# A demo visitor is named by a random id in an HttpOnly cookie the request guard sets
# (functions/api/guard.py); anything else in that cookie is treated as no id at all.
VISITOR_COOKIE = "previously_visitor"

# How long a visitor's changes are kept at most, from their first change (the cookie lives as long).
VISITOR_HOURS = 24
VISITORS_KEPT = 64  # visitors whose changes one process keeps; the least recently active go first


def new_visitor_id() -> str:
    """A fresh, unguessable visitor id (128 random bits, the form `visitor_id` accepts)."""
    return secrets.token_hex(16)


@dataclass(frozen=True)
class Seat:
    """One place in the demo: a persona (the default one or another), for everyone or for one visitor."""

    persona: Persona
    default: bool
    visitor: str | None = None


# How an entrypoint builds the Deps of one seat.
SeatDeps = Callable[[Seat], "Deps"]


@dataclass(frozen=True)
class VisitorTerms:
    """How long one process holds a visitor's Deps, and whether reads make them too (on AWS the
    overlay is in S3, so any container must find a visitor's changes)."""

    lifetime: timedelta = timedelta(hours=VISITOR_HOURS)
    made_on_read: bool = False


@dataclass
class DemoCast:
    """The demo's personas, each with its own Deps (its own overlay, runs and turns); the
    first is the default. Everything else (security, models, clock) is shared."""

    personas: list[Persona]
    deps: dict[str, Deps]

    @property
    def default(self) -> str:
        return self.personas[0].id

    def pick(self, asked: str | None, remembered: str | None = None) -> tuple[str, Deps]:
        """The persona a request names: an unknown `?persona=` is refused (400), an unknown
        cookie (a persona since removed) falls back to the default."""
        if asked is not None:
            if asked not in self.deps:
                known = ", ".join(p.id for p in self.personas)
                raise InvalidInput(f'Unknown demo persona "{asked}". Choose one of: {known}.')
            return asked, self.deps[asked]
        pid = remembered if remembered in self.deps else self.default
        return pid, self.deps[pid]


# The Deps of one (persona id, visitor id): that persona under an overlay of the visitor's own.
VisitorDepsFactory = Callable[[str, str], "Deps"]


class DemoVisitors:
    """Each demo visitor's own Deps per persona, so their changes (turns, card, settings) are
    seen by them alone and never by another visitor.

    Made on the visitor's first change (`create`); until then they read the pristine persona.
    At most `kept` are held, the least recently used dropped first, and each is dropped
    `lifetime` after it was made: a dropped visitor's changes are gone (on AWS the overlay is
    in S3 and wiped on the same schedule, so `made_on_read` makes them for reads too).
    """

    def __init__(
        self,
        make: VisitorDepsFactory,
        clock: Clock,
        *,
        kept: int = VISITORS_KEPT,
        lifetime: timedelta = timedelta(hours=VISITOR_HOURS),
        made_on_read: bool = False,
    ) -> None:
        self.make = make
        self.clock = clock
        self.kept = kept
        self.lifetime = lifetime
        self.made_on_read = made_on_read
        self._held: OrderedDict[tuple[str, str], tuple[datetime, Deps]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, persona: str, visitor: str, create: bool, hold: bool = True) -> Deps | None:
        """The visitor's Deps for `persona`; None when they have none (and `create` is off).

        `hold` off (a caller that keeps no cookie, so will never name this visitor again): a
        Deps made now serves this one request and is not held, so it cannot push out the
        visitors who will come back.
        """
        key, now = (persona, visitor), self.clock.now()
        with self._lock:
            held = self._held.get(key)
            if held is not None and now - held[0] < self.lifetime:
                self._held.move_to_end(key)
                return held[1]
            self._held.pop(key, None)
            if not (create or self.made_on_read):
                return None
            made = self.make(persona, visitor)
            if not hold:
                return made
            self._held[key] = (now, made)
            while len(self._held) > self.kept:
                self._held.popitem(last=False)
            return made

    def __len__(self) -> int:
        return len(self._held)


def add_demo(first: Deps, root: Path, seat_deps: SeatDeps, terms: VisitorTerms) -> Deps:
    """`first` (the default persona's Deps, over the demo folder at `root`) given the demo's
    other personas (`cast`, when the folder holds several) and its visitors, each seat's Deps
    built by `seat_deps`."""
    from core.storage.demo import find_personas

    found = find_personas(root)
    if len(found) >= 2:
        others = {p.id: seat_deps(Seat(p, default=False)) for p in found[1:]}
        first.cast = DemoCast(found, {found[0].id: first, **others})
    by_id = {p.id: p for p in found}

    def make(persona: str, visitor: str) -> Deps:
        return seat_deps(Seat(by_id[persona], by_id[persona] is found[0], visitor))

    first.visitors = DemoVisitors(make, first.clock, lifetime=terms.lifetime, made_on_read=terms.made_on_read)
    return first


def persona_deps(
    deps: Deps,
    asked: str | None,
    remembered: str | None,
    visitor: str | None = None,
    create: bool = False,
    hold: bool = True,
) -> Deps:
    """The Deps of the persona a request names (`deps` itself outside a multi-persona demo);
    in a demo, those of that persona under the `visitor`'s own overlay once they have one
    (`create`: a request that may change something makes it; `hold`: see DemoVisitors.get)."""
    if deps.cast is None:
        pid, chosen = str(getattr(deps.storage, "persona", "")), deps
    else:
        pid, chosen = deps.cast.pick(asked, remembered)
    visitor = visitor_id(visitor)
    if deps.visitors is None or visitor is None:
        return chosen
    return deps.visitors.get(pid, visitor, create, hold) or chosen


def demo_personas(root: Path) -> list[Persona]:
    """The personas a demo folder offers, the default first; [] when it holds only one."""
    from core.storage.demo import find_personas

    personas = find_personas(root)
    return personas if len(personas) >= 2 else []


def recorded_persona(settings: Settings, persona_id: str | None) -> Persona | None:
    """The demo persona a turn's record names (None: the default, also when none is named).

    A name this deployment's demo does not offer is refused, never read as the default: the
    turn would otherwise answer from, and write into, another persona's memory.
    """
    if persona_id is None:
        return None
    personas = demo_personas(SAMPLE_ROOT) if settings.storage == "demo" else []
    found = next((p for p in personas if p.id == persona_id), None)
    if found is None:
        known = ", ".join(p.id for p in personas) or "none (it serves no demo personas)"
        raise InvalidInput(
            f'This turn was started for demo persona "{persona_id}", which this deployment does not '
            f"offer; its personas: {known}. Start the turn again from a persona it offers."
        )
    return None if found.id == personas[0].id else found
