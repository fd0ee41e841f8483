"""`previously chat --url`: the scripted client against a live server (HTTP long-poll)."""

from __future__ import annotations

import io
import json
import threading
from typing import Any

import pytest
from rich.console import Console

from functions.chat import HttpTurnClient, chat, local_timezone
from functions.turn_printer import Streams, Styled, TurnPrinter
from tests.fakes.fake_turns import ScriptedTurns
from tests.fakes.live_server import live_server
from tests.functional.api_env import KEY, make_env

pytestmark = pytest.mark.functional


def test_chat_streams_the_reply_from_a_live_server() -> None:
    turns = ScriptedTurns(reply=None)
    env = make_env(turns=turns, required=True)

    def play() -> None:
        turns.emit("turn00001", "step.started", label="Reading the timeline")
        turns.finish("turn00001", "Hi Alex, welcome back.")

    out, err = io.StringIO(), io.StringIO()
    with live_server(env.client.app) as url:
        threading.Timer(0.3, play).start()
        code = chat(HttpTurnClient(url, KEY), "hello", "Europe/London", out, err, as_json=False)
    assert code == 0
    assert out.getvalue() == "Hi Alex, welcome back.\n"
    assert "· Reading the timeline" in err.getvalue()
    assert turns.started[0].timezone == "Europe/London"


def test_chat_json_prints_the_finished_turn() -> None:
    env = make_env(required=True)
    out, err = io.StringIO(), io.StringIO()
    with live_server(env.client.app) as url:
        code = chat(HttpTurnClient(url, KEY), "hello", "UTC", out, err, as_json=True)
    data = json.loads(out.getvalue())
    assert code == 0 and data["status"] == "done" and data["reply"] == "Hello back."
    assert [e["seq"] for e in data["events"]] == [1, 2, 3, 4]
    assert list(data)[:5] == ["turn_id", "status", "slice_id", "reply", "error"]  # as without --url
    assert data["error"] is None


def test_chat_with_a_wrong_key_says_so() -> None:
    from functions.chat import ChatError

    env = make_env(required=True)
    with live_server(env.client.app) as url, pytest.raises(ChatError, match=r"the key was refused \(401\)"):
        chat(HttpTurnClient(url, "wrong"), "hello", "UTC", io.StringIO(), io.StringIO(), as_json=False)
    assert env.turns.started == []
    with live_server(env.client.app) as url, pytest.raises(ChatError, match="wants its access key"):
        chat(HttpTurnClient(url, None), "hello", "UTC", io.StringIO(), io.StringIO(), as_json=False)


def test_printer_notes_a_retried_step() -> None:
    out, err = io.StringIO(), io.StringIO()
    p = TurnPrinter(Streams(out, err))
    p.event({"type": "text.delta", "step": "respond", "attempt": 1, "text": "Hel"})
    p.event({"type": "text.delta", "step": "respond", "attempt": 2, "text": "Hello"})
    assert "retried" in err.getvalue()


def test_printers_count_attempts_per_tool_call_of_a_round() -> None:
    # Call 1 of a tools round is retried while call 0 still reports attempt 1: one retry note each.
    def tool(item: int, attempt: int, state: str) -> dict[str, Any]:
        return {
            "type": "tool.call",
            "step": "tools",
            "item": item,
            "attempt": attempt,
            "state": state,
            "label": "L",
        }

    events = [
        {"type": "text.delta", "step": "respond", "attempt": 1, "text": "Let me look."},
        tool(0, 1, "running"),
        tool(1, 1, "running"),
        tool(1, 2, "running"),
        tool(0, 1, "completed"),
        tool(1, 2, "completed"),
    ]
    out, err = io.StringIO(), io.StringIO()
    p = TurnPrinter(Streams(out, err))
    screen = io.StringIO()
    cli = TurnPrinter(Styled(Console(file=screen, width=100)))
    for e in events:
        p.event(e)
        cli.event(e)
    assert err.getvalue().count("retried") == 1
    assert screen.getvalue().count("retrying tools, attempt 2") == 1


def test_local_timezone_is_a_known_zone() -> None:
    from core.reltime import zone

    assert zone(local_timezone()) is not None


def test_printer_ends_the_reply_line_before_a_progress_line() -> None:
    screen = io.StringIO()  # a terminal: stdout and stderr land on the same screen
    p = TurnPrinter(Streams(screen, screen))
    p.event({"type": "text.delta", "step": "respond", "attempt": 1, "text": "Hello"})
    p.event({"type": "step.started", "step": "finalize", "attempt": 1, "label": "Saving the reply"})
    p.finish()
    assert screen.getvalue() == "Hello\n· Saving the reply\n"


def _ev(type: str, step: str = "respond", attempt: int = 1, **fields: Any) -> dict[str, Any]:
    return {"type": type, "step": step, "attempt": attempt, **fields}


# Every kind of event either printer shows, with a retried tool call and a retried reply.
EVENTS = [
    _ev("step.started", step="save", label="Saving your message"),
    _ev("attachment.unseen", model="fake-small"),
    _ev("reasoning.delta", text="Thinking it over."),
    _ev("text.delta", text="Let me "),
    _ev("text.delta", text="look."),
    _ev("tool.call", step="tools", item=0, state="running", label="Searching memory", tool="recall"),
    _ev("tool.call", step="tools", item=1, state="running", label=None, tool="webFetch"),
    _ev(
        "tool.call", step="tools", item=1, attempt=2, state="running", label="Reading a page", tool="webFetch"
    ),
    _ev("tool.call", step="tools", item=0, state="completed", label="Searching memory", tool="recall"),
    _ev("tool.call", step="tools", item=1, attempt=2, state="error", label="Reading a page", tool="webFetch"),
    _ev("text.delta", text="Here [b]is[/b] "),
    _ev("text.delta", attempt=2, text="Here is the answer."),
    _ev("step.started", step="after", label="Updating the card"),
    _ev("card.evolved", step="after", summary="1 change"),
    _ev("card.skipped", step="after", reason="nothing new"),
    _ev("turn.error", step="after", code="model_error", message="The model refused."),
    _ev("turn.done", step="after", status="interrupted"),
]


def test_the_client_prints_every_event_as_it_always_has() -> None:
    """`chat --url`: the reply alone on stdout, progress and notes on stderr, byte for byte."""
    out, err = io.StringIO(), io.StringIO()
    p = TurnPrinter(Streams(out, err))
    for e in EVENTS:
        p.event(e)
    p.finish()
    assert out.getvalue() == "Let me look.\nHere [b]is[/b] Here is the answer.\n"
    assert err.getvalue() == (
        "· Saving your message\n"
        "· Searching memory\n"
        "· webFetch\n"
        "\n"
        "(the step was retried; the reply starts again)\n"
        "· Reading a page\n"
        "\n"
        "(the step was retried; the reply starts again)\n"
        "· Updating the card\n"
        "\n"
        "(the reply was interrupted)\n"
        "error: The model refused.\n"
    )


def test_the_terminal_prints_every_event_as_it_always_has() -> None:
    """In-process `chat`: reasoning dimmed, tool results, card notes and errors styled, byte for byte."""
    screen = io.StringIO()
    cli = TurnPrinter(Styled(Console(file=screen, width=100, force_terminal=True, color_system="standard")))
    for e in EVENTS:
        cli.event(e)
    assert screen.getvalue() == (
        "\x1b[33m  \x1b[0m\x1b[1;33m(\x1b[0m\x1b[33mfake-small cannot see images: "
        "it was told one was attached, not what it shows\x1b[0m\x1b[1;33m)\x1b[0m\n"
        "\x1b[2mThinking it over.\x1b[0m\n"
        "Let me look.\n"
        "\x1b[1;33m(\x1b[0m\x1b[33mretrying tools, attempt \x1b[0m\x1b[1;33m2\x1b[0m\x1b[1;33m)\x1b[0m\n"
        "\x1b[36m  ✓ Searching memory\x1b[0m\n"
        "\x1b[36m  ✗ Reading a page\x1b[0m\n"
        "Here [b]is[/b] \n"
        "\x1b[1;33m(\x1b[0m\x1b[33mretrying respond, attempt \x1b[0m\x1b[1;33m2\x1b[0m\x1b[1;33m)\x1b[0m\n"
        "Here is the answer.\n"
        "\x1b[2m  \x1b[0m\x1b[1;2m(\x1b[0m\x1b[2muser card: \x1b[0m\x1b[1;2;36m1\x1b[0m"
        "\x1b[2m change\x1b[0m\x1b[1;2m)\x1b[0m\n"
        "\x1b[2m  \x1b[0m\x1b[1;2m(\x1b[0m\x1b[2muser card: nothing new\x1b[0m\x1b[1;2m)\x1b[0m\n"
        "\x1b[31merror: The model refused.\x1b[0m\n"
    )
