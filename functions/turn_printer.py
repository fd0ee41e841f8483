"""The one printer of a turn's events on a terminal: `previously chat`, in this process or `--url`.

`TurnPrinter` reads each event once — which run it belongs to and whether that run was retried,
reply and reasoning text, step and tool progress, card notes, a picture the model cannot see,
the error, the end — and tells its `Look`, which only decides what that looks like:

- `Streams` (`chat --url`, a script's client): the reply alone on stdout, progress and notes as
  plain lines on stderr, the error last;
- `Styled` (in-process `chat`, a rich console): reasoning dimmed, each finished tool call with
  ✓ / ✗, card notes, retries and errors in colour.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from core.turn.events import run_of

if TYPE_CHECKING:
    from rich.console import Console

RETRIED_NOTE = "(the step was retried; the reply starts again)"
INTERRUPTED_NOTE = "(the reply was interrupted)"


class Look(Protocol):
    """How a printer shows what happened in a turn."""

    def retried(self, step: str, attempt: int, after_text: bool) -> None:
        """A run of `step` started again (`after_text`: some of the reply was already shown)."""

    def text(self, text: str, reasoning: bool) -> None:
        """Streamed reply (or reasoning) text."""

    def step(self, label: str) -> None:
        """A step started."""

    def tool(self, state: str, label: str) -> None:
        """A tool call is running, or ended (completed, error, interrupted, denied)."""

    def card(self, note: str) -> None:
        """What the user-card pass did."""

    def unseen(self, model: str) -> None:
        """The model was told pictures were attached but cannot see them."""

    def failed(self, message: str) -> None:
        """The turn failed."""

    def done(self, status: str) -> None:
        """The turn ended (done, interrupted)."""

    def finish(self) -> None:
        """Nothing more will come."""


@dataclass
class TurnPrinter:
    """Hands every event of a turn to `look`, and notices a retried run (a step, or one call
    of a fan-out) by its `attempt`."""

    look: Look
    attempts: dict[str, int] = field(default_factory=dict)
    wrote_text: bool = False

    def event(self, e: dict[str, Any]) -> None:
        """Show one event."""
        run, attempt = run_of(e), int(e.get("attempt", 1))
        if attempt > self.attempts.get(run, attempt):
            self.look.retried(str(e.get("step", "")), attempt, self.wrote_text)
        self.attempts[run] = max(attempt, self.attempts.get(run, 0))
        kind = e.get("type")
        if kind in ("text.delta", "reasoning.delta"):
            self.wrote_text = self.wrote_text or kind == "text.delta"
            self.look.text(str(e.get("text", "")), reasoning=kind == "reasoning.delta")
        elif kind == "step.started" and e.get("label"):
            self.look.step(str(e["label"]))
        elif kind == "tool.call":
            self.look.tool(str(e.get("state")), str(e.get("label") or e.get("tool")))
        elif kind in ("card.evolved", "card.skipped"):
            self.look.card(str(e.get("summary") or e.get("reason") or ""))
        elif kind == "attachment.unseen":
            self.look.unseen(str(e.get("model")))
        elif kind == "turn.error":
            self.look.failed(str(e.get("message") or e.get("code")))
        elif kind == "turn.done":
            self.look.done(str(e.get("status")))

    def finish(self) -> None:
        """End the output (the last line, the error)."""
        self.look.finish()


@dataclass
class Streams:
    """Plain text for scripts: the reply to `out`, progress and notes to `err`."""

    out: TextIO
    err: TextIO
    error: str | None = None
    mid_line: bool = False  # the reply's current line is not ended yet

    def _note(self, line: str) -> None:
        # On a terminal both streams share the screen: end the reply's line first.
        if self.mid_line:
            self.out.write("\n")
            self.mid_line = False
        self.err.write(line + "\n")

    def retried(self, step: str, attempt: int, after_text: bool) -> None:
        if after_text:
            self.err.write(f"\n{RETRIED_NOTE}\n")

    def text(self, text: str, reasoning: bool) -> None:
        if reasoning:
            return
        self.out.write(text)
        self.out.flush()
        self.mid_line = self.mid_line or bool(text)

    def step(self, label: str) -> None:
        self._note(f"· {label}")

    def tool(self, state: str, label: str) -> None:
        if state == "running":
            self._note(f"· {label}")

    def card(self, note: str) -> None:
        pass

    def unseen(self, model: str) -> None:
        pass

    def failed(self, message: str) -> None:
        self.error = message

    def done(self, status: str) -> None:
        if status == "interrupted":
            self.err.write(f"\n{INTERRUPTED_NOTE}\n")

    def finish(self) -> None:
        if self.mid_line:
            self.out.write("\n")
        if self.error:
            self.err.write(f"error: {self.error}\n")


@dataclass
class Styled:
    """A rich console: reasoning dimmed, tool results, notes and errors styled."""

    console: Console
    mode: str = ""  # "reasoning" | "text" | "" — what the current line holds

    def _break(self) -> None:
        if self.mode:
            self.console.print()
            self.mode = ""

    def retried(self, step: str, attempt: int, after_text: bool) -> None:
        self._break()
        self.console.print(f"[yellow](retrying {step}, attempt {attempt})[/yellow]")

    def text(self, text: str, reasoning: bool) -> None:
        mode = "reasoning" if reasoning else "text"
        if self.mode != mode:
            self._break()
            self.mode = mode
        style = "dim" if reasoning else None
        self.console.print(text, end="", style=style, markup=False, highlight=False)

    def step(self, label: str) -> None:
        pass

    def tool(self, state: str, label: str) -> None:
        if state == "running":
            return
        self._break()
        mark = "✓" if state == "completed" else "✗"
        self.console.print(f"  {mark} {label}", style="cyan", markup=False)

    def card(self, note: str) -> None:
        self._break()
        self.console.print(f"  (user card: {note})", style="dim", markup=False)

    def unseen(self, model: str) -> None:
        self._break()
        note = f"  ({model} cannot see images: it was told one was attached, not what it shows)"
        self.console.print(note, style="yellow", markup=False)

    def failed(self, message: str) -> None:
        self._break()
        self.console.print(f"error: {message}", style="red", markup=False)

    def done(self, status: str) -> None:
        self._break()

    def finish(self) -> None:
        self._break()
