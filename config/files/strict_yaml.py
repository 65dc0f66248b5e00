"""The one YAML reader of the kit: plain data out, or one ``ConfigError`` naming the line.

PyYAML's safe loader reads YAML 1.1, where ``yes`` is true, ``0755`` is 493, ``1:30`` is 90
and ``2024-01-01`` is a date; a duplicate key silently replaces the first; nine nested
aliases expand to a billion nodes downstream; and a deep enough nesting ends in a
``RecursionError``. This reader keeps PyYAML's scanner and parser but composes and
constructs on its own terms:

- plain scalars resolve by the YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1023-core-schema),
  and any plain scalar that YAML 1.1 would read differently is refused rather than guessed;
- explicit tags, merge keys (``<<``), non-string keys and duplicate keys are refused;
- bytes must be UTF-8, the file at most ``MAX_FILE_BYTES``, nesting at most ``MAX_DEPTH``
  and the document, with every alias expanded, at most ``MAX_NODES`` nodes (counted while
  composing, before anything is expanded).
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from config.errors import ConfigError

MAX_FILE_BYTES = 1 << 20
"""An environment or run file is a few kilobytes; a megabyte leaves room and bounds the work."""
MAX_DEPTH = 32
MAX_NODES = 10_000
"""Values of the document with every alias expanded (what validation walks); an environment has a few hundred."""

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"

# YAML 1.2 core schema.
_NULL = re.compile(r"null|Null|NULL|~|")
_TRUE = re.compile(r"true|True|TRUE")
_FALSE = re.compile(r"false|False|FALSE")
_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_FLOAT_YAML_1_1 = re.compile(r"[-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?|\.[0-9_]+([eE][-+][0-9]+)?")
"""YAML 1.1's floats: a core-schema float outside these (``1e3``, ``-.5``) is a string to a 1.1 reader."""
# Plain scalars YAML 1.1 (PyYAML, many other tools) reads differently from YAML 1.2, or that
# look like a number to a reader and a string to the parser: refused, with the fix.
_AMBIGUOUS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF"),
        "write true or false for a boolean, or quote it for a string",
    ),
    (re.compile(r"[-+]?0[0-9_]+"), "write the number without a leading zero, or quote it for a string"),
    (re.compile(r"[-+]?0[bBoOxX][0-9a-fA-F_]+"), "write the number in decimal, or quote it for a string"),
    (re.compile(r"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?"), "quote it (YAML 1.1 reads it as base 60)"),
    (re.compile(r"(?=.*_)[-+]?[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?"), "write it without '_', or quote it"),
    (re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?"), "quote it (YAML reads it as a date)"),
    (re.compile(r"[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)"), "write a finite number"),
    (re.compile(r"[=<]+"), "quote it (YAML 1.1 gives it a meaning)"),
)


class _Refused(Exception):
    """A problem at a line of the document; turned into a ``ConfigError`` by ``parse_yaml``."""

    def __init__(self, line: int, value: Any, problem: str, fix: str) -> None:
        super().__init__(problem)
        self.line, self.value, self.problem, self.fix = line, value, problem, fix


class _NoImplicitTypes(BaseResolver):
    """Every untagged scalar stays a string node; ``_construct`` types plain ones by YAML 1.2."""


class _BoundedComposer(Composer):
    """PyYAML's composer with a depth bound and the expanded size of every node counted as it is built."""

    def __init__(self) -> None:
        super().__init__()
        self._depth = 0
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        event = self.peek_event()  # type: ignore[attr-defined]
        if isinstance(event, yaml.AliasEvent):
            target = self.anchors.get(event.anchor) if event.anchor is not None else None
            if target is not None and id(target) not in self._sizes:
                raise _Refused(event.start_mark.line + 1, f"*{event.anchor}", "alias inside its own anchor", _NO_LOOP)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _Refused(
                event.start_mark.line + 1, self._depth, f"nested deeper than {MAX_DEPTH} levels", "flatten the file"
            )
        node: Node = super().compose_node(parent, index)  # type: ignore[no-untyped-call,assignment]
        self._depth -= 1
        if id(node) not in self._sizes:
            children = node.value if isinstance(node, SequenceNode) else ()
            if isinstance(node, MappingNode):
                children = [n for pair in node.value for n in pair]
            size = 1 + sum(self._sizes[id(child)] for child in children)
            if size > MAX_NODES:
                raise _Refused(
                    node.start_mark.line + 1,
                    size,
                    f"expands to more than {MAX_NODES} values (aliases counted as copies)",
                    "write the values out instead of nesting aliases",
                )
            self._sizes[id(node)] = size
        return node


_NO_LOOP = "point aliases only at anchors defined before them"


class _Loader(Reader, Scanner, Parser, _BoundedComposer, _NoImplicitTypes):  # type: ignore[misc]
    def __init__(self, text: str) -> None:
        Reader.__init__(self, text)  # type: ignore[no-untyped-call]
        Scanner.__init__(self)  # type: ignore[no-untyped-call]
        Parser.__init__(self)  # type: ignore[no-untyped-call]
        _BoundedComposer.__init__(self)
        _NoImplicitTypes.__init__(self)  # type: ignore[no-untyped-call]


def parse_yaml(data: bytes) -> Any:
    """One YAML document as plain data (dict, list, str, int, float, bool, None); ``ConfigError`` otherwise.

    The error's field is ``line N``; the caller adds the file with ``with_source``. Messages
    never quote the file's text beyond the one offending value.
    """
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError("file", f"{len(data)} bytes", f"larger than {MAX_FILE_BYTES} bytes", "split or trim the file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ConfigError(
            f"line {line}", f"byte 0x{data[error.start]:02x}", "not UTF-8 text", "save the file as UTF-8"
        ) from None
    try:
        loader = _Loader(text.removeprefix("\ufeff"))
        try:
            node = loader.get_single_node()  # type: ignore[no-untyped-call]
        finally:
            loader.dispose()  # type: ignore[no-untyped-call]
        return None if node is None else _construct(node, "")
    except _Refused as refused:
        raise ConfigError(f"line {refused.line}", refused.value, refused.problem, refused.fix) from None
    except yaml.reader.ReaderError as error:
        line = text[: error.position].count("\n") + 1
        raise ConfigError(
            f"line {line}",
            f"U+{error.character:04X}" if isinstance(error.character, int) else error.character,
            "YAML: character not allowed in a YAML file",
            "remove the control character",
        ) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        # A mark at the end of the stream sits on the line after the last one: name the last line.
        line = min(mark.line + 1, max(1, len(text.splitlines()))) if mark is not None else 1
        column = f"column {mark.column + 1}" if mark is not None else "start"
        problem = error.problem or error.context or "invalid YAML"
        raise ConfigError(f"line {line}", column, f"YAML: {problem}", "fix the YAML syntax at that line") from None
    except yaml.YAMLError as error:  # no position known
        raise ConfigError("line 1", type(error).__name__, "YAML: invalid document", "fix the YAML syntax") from None


def _construct(node: Node, path: str) -> Any:
    line = node.start_mark.line + 1
    where = path or "<top>"
    if isinstance(node, ScalarNode):
        if node.tag != _STR:
            raise _Refused(line, node.tag, f"{where}: YAML tags are not supported", "remove the tag")
        return _scalar(node.value, plain=node.style is None, line=line, where=where)
    if isinstance(node, SequenceNode):
        if node.tag != _SEQ:
            raise _Refused(line, node.tag, f"{where}: YAML tags are not supported", "remove the tag")
        return [_construct(item, f"{path}[{i}]") for i, item in enumerate(node.value)]
    assert isinstance(node, MappingNode)
    if node.tag != _MAP:
        raise _Refused(line, node.tag, f"{where}: YAML tags are not supported", "remove the tag")
    out: dict[str, Any] = {}
    first_line: dict[str, int] = {}
    for key_node, value_node in node.value:
        key_line = key_node.start_mark.line + 1
        if not isinstance(key_node, ScalarNode) or key_node.tag != _STR:
            kind = _KINDS.get(type(key_node), "a tagged key")
            raise _Refused(key_line, kind, f"{where}: a key is not a string", _KEY_FIX)
        if key_node.style is None and key_node.value == "<<":
            raise _Refused(key_line, "<<", f"{where}: merge keys are not supported", "write the keys out")
        key = _scalar(key_node.value, plain=key_node.style is None, line=key_line, where=where)
        if not isinstance(key, str):
            raise _Refused(key_line, key, f"{where}: a key is not a string", _KEY_FIX)
        if key in first_line:
            raise _Refused(
                key_line,
                key,
                f"{_join(path, key)}: duplicate key (first at line {first_line[key]})",
                "keep one of the two entries",
            )
        first_line[key] = key_line
        out[key] = _construct(value_node, _join(path, key))
    return out


_KEY_FIX = "use a plain word as the key (quote it if it looks like a number)"
_KINDS = {MappingNode: "a mapping", SequenceNode: "a list", ScalarNode: "a tagged value"}


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _scalar(value: str, *, plain: bool, line: int, where: str) -> Any:
    if not plain:
        return value
    if _NULL.fullmatch(value):
        return None
    if _TRUE.fullmatch(value):
        return True
    if _FALSE.fullmatch(value):
        return False
    if _INT.fullmatch(value):
        return int(value)
    for pattern, fix in _AMBIGUOUS:
        if pattern.fullmatch(value):
            raise _Refused(line, value, f"{where}: ambiguous YAML value", fix)
    if _FLOAT.fullmatch(value):
        if not _FLOAT_YAML_1_1.fullmatch(value):
            raise _Refused(line, value, f"{where}: ambiguous YAML value", "write it with a decimal point, or quote it")
        return float(value)
    return value
