"""Plain typed functions as model tools: the name, docstring and signature are the description.

`describe(fn)` derives a JSON schema from the signature (pydantic); `invoke(fn, arguments)`
validates a model's JSON arguments against it and turns bad arguments into a `REJECTED:`
string the model can act on, instead of an exception that would end the run.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

ToolFn = Callable[..., str]


@dataclass(frozen=True)
class ToolDescription:
    """What a model is told about one tool."""

    name: str
    description: str
    parameters: dict[str, Any]


def _function(fn: ToolFn) -> Callable[..., Any]:
    return getattr(fn, "__func__", fn)


@lru_cache(maxsize=256)
def _model_for(func: Callable[..., Any]) -> type[BaseModel]:
    hints = typing.get_type_hints(func, include_extras=True)
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(func).parameters.items():
        if name == "self":
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[name] = (hints.get(name, Any), default)
    config = ConfigDict(extra="forbid")
    model: type[BaseModel] = create_model(f"{func.__name__}_args", __config__=config, **fields)
    return model


def args_model(fn: ToolFn) -> type[BaseModel]:
    """The pydantic model of a tool's arguments (unknown arguments are refused)."""
    return _model_for(_function(fn))


def describe(fn: ToolFn) -> ToolDescription:
    """Name, description (the docstring) and JSON-schema parameters of a tool."""
    schema = args_model(fn).model_json_schema()
    schema.pop("title", None)
    doc = inspect.getdoc(fn) or ""
    return ToolDescription(name=_function(fn).__name__, description=doc, parameters=schema)


def invoke(fn: ToolFn, arguments: dict[str, Any] | None) -> str:
    """Call a tool with a model's arguments; invalid arguments become a rejection string."""
    try:
        parsed = args_model(fn).model_validate(arguments or {})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()
        )
        return f"REJECTED: invalid arguments for {_function(fn).__name__} — {problems}. Fix them and retry."
    return fn(**{name: getattr(parsed, name) for name in type(parsed).model_fields})
