"""The one engine that turns typed Python functions (or pydantic models) into model tools.

    def read_slice(sliceId: Annotated[str, Field(description="YYYY-MM-DD-HHMM")], call: CallId = "") -> str:
        '''Read one slice of the timeline.'''

    tool = Tool.from_function(read_slice)
    tool.spec          # ToolSpec for the model (a `CallId` parameter is not part of it)
    tool.run(call)     # ToolResult; invalid arguments come back as an instructive error result

One behaviour for every tool: arguments the schema does not name are ignored, invalid ones
come back as `ERROR: invalid arguments for …`, a domain error as `ERROR: <its message>`, and
the call's id reaches the function explicitly, through a parameter annotated `CallId`, never
through ambient state.
"""

from __future__ import annotations

import copy
import functools
import inspect
import json
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, cast

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from core.errors import PreviouslyError
from core.llm.types import ToolCall, ToolResult, ToolSpec


class _CallIdMarker:
    """Marks the parameter that receives the id of the call being served."""


CallId = Annotated[str, _CallIdMarker()]


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
    """A callable the model may use: its spec, the model validating its arguments, the function,
    and the parameter that receives the call id (None: the function does not ask for it)."""

    spec: ToolSpec
    args: type[BaseModel]
    fn: Callable[..., Any]
    call_id_param: str | None = None

    @classmethod
    def from_function(cls, fn: Callable[..., Any], name: str | None = None) -> Tool:
        """Build a tool from a typed function; its docstring is the description the model reads."""
        hints = typing.get_type_hints(fn, include_extras=True)
        fields: dict[str, Any] = {}
        call_id_param: str | None = None
        for param in inspect.signature(fn).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError(f"tool {fn.__name__}: *args/**kwargs cannot be described to a model")
            hint = hints.get(param.name, Any)
            if _is_call_id(hint):
                call_id_param = param.name
                continue
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[param.name] = (hint, default)
        tool_name = name or fn.__name__
        args = create_model(f"{tool_name}_arguments", __config__=ConfigDict(extra="ignore"), **fields)
        doc = inspect.getdoc(fn)
        if not doc:
            raise TypeError(f"tool {tool_name} needs a docstring: it is the description the model reads")
        return cls(ToolSpec(tool_name, doc, json_schema(args)), args, fn, call_id_param)

    def run(self, call: ToolCall) -> ToolResult:
        """Validate and run one call; bad arguments and domain errors become error results."""
        if call.error:
            return ToolResult(call.id, rejection(self.spec.name, call.error), is_error=True)
        try:
            output = self.invoke(call.arguments, call.id)
        except ValidationError as exc:
            return ToolResult(call.id, rejection(self.spec.name, describe_errors(exc)), is_error=True)
        except PreviouslyError as exc:
            return ToolResult(call.id, f"ERROR: {exc}", is_error=True)
        return ToolResult(call.id, as_text(output))

    def invoke(self, arguments: Mapping[str, Any], call_id: str = "") -> Any:
        """Validate `arguments` and call the function with them (and `call_id`, when it asks)."""
        parsed = self.args.model_validate(dict(arguments))
        kwargs = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        if self.call_id_param is not None:
            kwargs[self.call_id_param] = call_id
        return self.fn(**kwargs)


def _is_call_id(hint: Any) -> bool:
    return any(isinstance(m, _CallIdMarker) for m in getattr(hint, "__metadata__", ()))


def as_text(output: Any) -> str:
    """A tool's return value as the text the model reads."""
    if isinstance(output, str):
        return output
    if isinstance(output, BaseModel):
        return output.model_dump_json()
    return json.dumps(output, ensure_ascii=False, default=str)
