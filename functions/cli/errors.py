"""The one top-level error handler of every `previously` command.

A failure that no command turned into its own message ends here: one line on stderr saying what
failed and what to do, and an exit status a script can branch on (75, EX_TEMPFAIL, for "try
later": a rate limit, a GitHub or model outage). No traceback unless `PREVIOUSLY_DEBUG` is set,
and then the whole chain (causes, contexts, notes) passes through the redactor first, so a token
that an upstream error echoed never reaches the terminal.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

import typer
from typer._click.exceptions import ClickException
from typer.core import TyperGroup

from core.errors import PreviouslyError, TransientError
from core.redact import redact, register_secrets

DEBUG_VARIABLE = "PREVIOUSLY_DEBUG"
EX_FAILURE = 1
EX_TEMPFAIL = 75  # sysexits.h: a temporary failure, the same command later should succeed
# What passes through untouched: Typer's and Click's own ends (exit codes, usage errors, Ctrl-C).
_OWN = (typer.Exit, typer.Abort, ClickException)


def exit_code(exc: BaseException) -> int:
    """75 for a failure that a later run can get past (rate limits, outages), else 1."""
    return EX_TEMPFAIL if isinstance(exc, TransientError) else EX_FAILURE


def error_line(exc: BaseException) -> str:
    """One line: the domain error's own sentence, or what broke and how to see more."""
    if isinstance(exc, PreviouslyError):
        text = str(exc) or f"{type(exc).__name__} (no details)"
    else:
        detail = str(exc).strip()
        text = (
            f"unexpected {type(exc).__name__}{': ' + detail if detail else ''}. This is a bug in "
            f"Previously; run the command again with {DEBUG_VARIABLE}=1 to see where it happened"
        )
    return "error: " + " ".join(redact(text).split())


def debugging() -> bool:
    return os.environ.get(DEBUG_VARIABLE, "").strip().lower() not in ("", "0", "false", "no")


def redacted_traceback(exc: BaseException) -> str:
    """The whole chain (`__cause__`, `__context__`, arguments, notes) as text, secrets masked."""
    return redact("".join(traceback.format_exception(exc)))


def report(exc: BaseException) -> typer.Exit:
    """Print `exc` as the CLI shows a failure; the Exit to raise."""
    from functions.logs import environment_secrets

    register_secrets(environment_secrets())  # the failure may have come before the settings did
    if debugging():
        sys.stderr.write(redacted_traceback(exc))
    typer.secho(error_line(exc), err=True, fg=typer.colors.RED)
    return typer.Exit(exit_code(exc))


class GuardedGroup(TyperGroup):
    """The root command group: every subcommand runs inside `report`'s handler."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _OWN:
            raise
        except Exception as exc:
            raise report(exc) from None
