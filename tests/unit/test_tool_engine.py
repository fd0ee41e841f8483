"""The one tool engine (core/llm/tools.py): schema, unknown arguments, the text the model sees,
call ids — the same behaviour for the main, recall, card, direction and evolution tools."""

from __future__ import annotations

import importlib.util
from typing import Annotated

import pytest
from pydantic import Field

from core.errors import NotFound
from core.llm.tools import CallId, Tool
from core.llm.types import ToolCall

pytestmark = pytest.mark.unit


def lookup(
    name: Annotated[str, Field(min_length=1, description="what to look up")],
    call: CallId = "",
    limit: int = 3,
) -> str:
    """Look something up."""
    if name == "missing":
        raise NotFound(f'Nothing called "{name}". Try a shorter name.')
    return f"{name}/{limit}/{call}"


class Notebook:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, text: str) -> str:
        """Add a line to the notebook."""
        self.lines.append(text)
        return "OK"


def test_the_call_id_parameter_is_filled_from_the_call_and_hidden_from_the_model() -> None:
    tool = Tool.from_function(lookup)
    assert tool.spec.parameters == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": "what to look up"},
            "limit": {"type": "integer", "default": 3},
        },
        "required": ["name"],
    }
    result = tool.run(ToolCall("toolu_7", "lookup", {"name": "oslo"}))
    assert (result.call_id, result.content, result.is_error) == ("toolu_7", "oslo/3/toolu_7", False)


def test_a_model_cannot_set_the_call_id_and_unknown_arguments_are_ignored() -> None:
    tool = Tool.from_function(lookup)
    result = tool.run(ToolCall("c1", "lookup", {"name": "oslo", "call": "forged", "colour": "red"}))
    assert result.content == "oslo/3/c1" and not result.is_error


def test_invalid_arguments_come_back_as_one_instructive_error() -> None:
    result = Tool.from_function(lookup).run(ToolCall("c2", "lookup", {"name": "", "limit": "many"}))
    assert result.is_error and result.call_id == "c2"
    assert result.content == (
        "ERROR: invalid arguments for lookup: name: String should have at least 1 character; "
        "limit: Input should be a valid integer, unable to parse string as an integer. "
        "Call lookup again with arguments matching its schema."
    )


def test_a_domain_error_is_the_models_to_act_on_and_other_errors_propagate() -> None:
    result = Tool.from_function(lookup).run(ToolCall("c3", "lookup", {"name": "missing"}))
    assert result.is_error and result.content == 'ERROR: Nothing called "missing". Try a shorter name.'

    def broken() -> str:
        """Always fails."""
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError):
        Tool.from_function(broken).run(ToolCall("c4", "broken", {}))


def test_bound_methods_are_tools_without_self() -> None:
    book = Notebook()
    tool = Tool.from_function(book.add)
    assert tool.spec.parameters["required"] == ["text"] and "self" not in tool.spec.parameters["properties"]
    assert tool.run(ToolCall("c5", "add", {"text": "milk"})).content == "OK"
    assert book.lines == ["milk"]


def test_there_is_one_engine() -> None:
    assert importlib.util.find_spec("core.agent.typed_tools") is None
