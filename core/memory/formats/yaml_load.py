"""Load YAML the way js-yaml 3 `safeLoad` reads it, on top of PyYAML (libyaml when available).

Differences from PyYAML's SafeLoader, all taken from js-yaml: `yes`/`no`/`on`/`off` stay
strings; ints accept `0b…`/`0x…`/leading-zero octal/sexagesimal; a duplicated key is an error;
keys become strings. Unquoted timestamps, which js-yaml turns into Dates, are kept as their
source text (`YamlDate`, a `str`) so a rewrite writes them back unchanged.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.resolver import BaseResolver

from core.errors import SliceFormatError
from core.memory.formats import yaml_types as yt
from core.memory.formats.yaml_fast import load_plain_mapping
from core.memory.formats.yaml_types import YamlDate

__all__ = ["YamlDate", "js_key", "load_yaml", "load_yaml_node", "scan_tokens"]

try:
    from yaml.cyaml import CParser as _FastParser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _FastParser = None  # type: ignore[assignment, misc]


class _JsResolver(BaseResolver):
    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        """A plain scalar's tag by js-yaml's rules; everything else as PyYAML does."""
        if kind is ScalarNode and implicit[0]:
            if value and value[0] not in yt.MAYBE_TYPED:
                return self.DEFAULT_SCALAR_TAG
            return yt.implicit_tag(value) or self.DEFAULT_SCALAR_TAG
        return super().resolve(kind, value, implicit)


class _JsConstructor(SafeConstructor):
    def construct_mapping(self, node: Node, deep: bool = False) -> dict[str, Any]:  # type: ignore[override]
        """A mapping with string keys; a key written twice is an error, as in js-yaml."""
        if not isinstance(node, MappingNode):
            raise ConstructorError(
                None, None, f"expected a mapping, found {type(node).__name__}", node.start_mark
            )
        merged = 0
        if any(key.tag == yt.MERGE for key, _ in node.value):
            explicit = sum(1 for key, _ in node.value if key.tag != yt.MERGE)
            self.flatten_mapping(node)
            merged = len(node.value) - explicit
        result: dict[str, Any] = {}
        seen: set[str] = set()
        for i, (key_node, value_node) in enumerate(node.value):
            key = self.construct_object(key_node, deep=deep)
            if type(key) is not str:
                key = js_key(key)
            if i >= merged:
                # Merged-in keys may be overridden; a key written twice is an error in js-yaml.
                if key in seen:
                    raise ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"duplicated key {key!r}",
                        key_node.start_mark,
                    )
                seen.add(key)
            result[key] = self.construct_object(value_node, deep=deep)
        return result

    def construct_js_int(self, node: ScalarNode) -> int:
        value = self.construct_scalar(node)
        if not yt.is_int(value):
            raise ConstructorError(None, None, f"cannot read {value!r} as an integer", node.start_mark)
        return yt.construct_int(value)

    def construct_js_float(self, node: ScalarNode) -> float:
        value = self.construct_scalar(node)
        if not (yt.is_float(value) or yt.is_int(value)):
            raise ConstructorError(None, None, f"cannot read {value!r} as a number", node.start_mark)
        return yt.construct_float(value)

    def construct_js_bool(self, node: ScalarNode) -> bool:
        return self.construct_scalar(node) in ("true", "True", "TRUE")

    def construct_js_timestamp(self, node: ScalarNode) -> str:
        return YamlDate(self.construct_scalar(node))


_JsConstructor.yaml_constructors = {
    **SafeConstructor.yaml_constructors,
    yt.INT: _JsConstructor.construct_js_int,
    yt.FLOAT: _JsConstructor.construct_js_float,
    yt.BOOL: _JsConstructor.construct_js_bool,
    yt.TIMESTAMP: _JsConstructor.construct_js_timestamp,
}


class _PyLoader(
    yaml.reader.Reader,
    yaml.scanner.Scanner,
    yaml.parser.Parser,
    yaml.composer.Composer,
    _JsConstructor,
    _JsResolver,
):
    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        _JsConstructor.__init__(self)
        _JsResolver.__init__(self)


if _FastParser is not None:

    class _CLoader(_FastParser, _JsConstructor, _JsResolver):
        def __init__(self, stream: str) -> None:
            _FastParser.__init__(self, stream)
            _JsConstructor.__init__(self)
            _JsResolver.__init__(self)

    _Loader: type = _CLoader
else:  # pragma: no cover
    _Loader = _PyLoader


def js_key(key: Any) -> str:
    """A mapping key as JS sees it (object keys are strings)."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int | float):
        return yt.js_to_string(key)
    return str(key)


def load_yaml(text: str, first_line: int = 1, source: str = "YAML") -> Any:
    """Parse one YAML document; SliceFormatError (naming the line) when it does not parse.

    Plain frontmatter (what the product writes) takes the fast reader; anything else, and every
    error, goes through the full loader.
    """
    plain = load_plain_mapping(text)
    if plain is not None:
        return plain
    data, _ = load_yaml_node(text, first_line, source)
    return data


def load_yaml_node(text: str, first_line: int = 1, source: str = "YAML") -> tuple[Any, Node | None]:
    """Parse one YAML document and also return its node tree (positions of every value)."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
        return data, node
    except yaml.YAMLError as exc:
        raise _format_error(exc, text, first_line, source) from exc
    except (ValueError, OverflowError) as exc:
        raise SliceFormatError(f"{source} holds a value that cannot be read: {exc}") from exc
    finally:
        loader.dispose()


def _format_error(exc: yaml.YAMLError, text: str, first_line: int, source: str) -> SliceFormatError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line: int | None = None
    if mark is not None:
        line = mark.line
    elif isinstance(exc, yaml.reader.ReaderError):
        line = text.count("\n", 0, exc.position)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    where = f" at line {line + first_line}" if line is not None else ""
    return SliceFormatError(
        f"{source} does not parse{where}: {problem}. Fix the YAML by hand (quote values that contain "
        "': ' or start with a special character); the file is left untouched until then."
    )


def scan_tokens(text: str) -> list[tuple[int, int]]:
    """Character spans `[start, end)` of every YAML token (used to find comments, which no token covers)."""
    spans: list[tuple[int, int]] = []
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            spans.append((token.start_mark.index, token.end_mark.index))
    except yaml.YAMLError:
        return spans
    return spans
