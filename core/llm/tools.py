"""Tools as typed Python functions (or pydantic models): the schema comes from the signature.

def read_slice(slice_id: Annotated[str, Field(description="YYYY-MM-DD-HHMM")]) -> str:
    '''Read one slice of the timeline.'''
tool = Tool.from_function(read_slice)
tool.spec          # ToolSpec for the model
tool.run(call)     # ToolResult; invalid arguments come back as an instructive error result
"""

from __future__ import annotations

import copy
import functools
import inspect
import json
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from core.errors import PreviouslyError
from core.llm.types import ToolCall, ToolResult, ToolSpec


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema made plain for providers: `$ref`s inlined, titles dropped."""
    return copy.deepcopy(_plain_schema(model))


@functools.lru_cache(maxsize=256)
def _plain_schema(model: type[BaseModel]) -> dict[str, Any]:
    # Generating a schema costs ~0.1 s; a sub-agent's report schema is asked for on every call.
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})
    return cast(dict[str, Any], _clean(schema, defs))


def _clean(node: Any, defs: dict[str, Any], in_properties: bool = False) -> Any:
    if isinstance(node, list):
        return [_clean(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and not in_properties:
            continue  # pydantic's titles only echo the field names
        out[key] = _clean(value, defs, in_properties=key == "properties" and not in_properties)
    return out


def spec_from_model(model: type[BaseModel], name: str, description: str | None = None) -> ToolSpec:
    """A tool whose arguments are one pydantic model (description defaults to its docstring)."""
    text = description or inspect.getdoc(model) or name
    return ToolSpec(name=name, description=text, parameters=json_schema(model))


def rejection(name: str, problem: str) -> str:
    """The text a model gets back for a call it must redo."""
    return (
        f"ERROR: invalid arguments for {name}: {problem}. "
        f"Call {name} again with arguments matching its schema."
    )


def describe_errors(exc: ValidationError) -> str:
    """Validation errors as one readable line: `field.path: message; …`."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


@dataclass(frozen=True)
class Tool:
    """A callable the model may use: its spec, the model validating its arguments, the function."""

    spec: ToolSpec
    args: type[BaseModel]
    fn: Callable[..., Any]

    @classmethod
    def from_function(cls, fn: Callable[..., Any], name: str | None = None) -> Tool:
        """Build a tool from a typed function; its docstring is the description the model reads."""
        hints = typing.get_type_hints(fn, include_extras=True)
        fields: dict[str, Any] = {}
        for param in inspect.signature(fn).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError(f"tool {fn.__name__}: *args/**kwargs cannot be described to a model")
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[param.name] = (hints.get(param.name, Any), default)
        tool_name = name or fn.__name__
        args = create_model(f"{tool_name}_arguments", __config__=ConfigDict(extra="ignore"), **fields)
        doc = inspect.getdoc(fn)
        if not doc:
            raise TypeError(f"tool {tool_name} needs a docstring: it is the description the model reads")
        return cls(ToolSpec(tool_name, doc, json_schema(args)), args, fn)

    def run(self, call: ToolCall) -> ToolResult:
        """Validate and run one call; bad arguments and domain errors become error results."""
        if call.error:
            return ToolResult(call.id, rejection(self.spec.name, call.error), is_error=True)
        try:
            output = self.invoke(call.arguments)
        except ValidationError as exc:
            return ToolResult(call.id, rejection(self.spec.name, describe_errors(exc)), is_error=True)
        except PreviouslyError as exc:
            return ToolResult(call.id, f"ERROR: {exc}", is_error=True)
        return ToolResult(call.id, as_text(output))

    def invoke(self, arguments: Mapping[str, Any]) -> Any:
        """Validate `arguments` and call the function (raises ValidationError)."""
        parsed = self.args.model_validate(dict(arguments))
        return self.fn(**{name: getattr(parsed, name) for name in type(parsed).model_fields})


def as_text(output: Any) -> str:
    """A tool's return value as the text the model reads."""
    if isinstance(output, str):
        return output
    if isinstance(output, BaseModel):
        return output.model_dump_json()
    return json.dumps(output, ensure_ascii=False, default=str)
