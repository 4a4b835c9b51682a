"""Safe YAML loading that remembers where every value came from.

Contributor YAML is untrusted. This loader:

* refuses files over a size cap before reading them whole;
* refuses anything that is not UTF-8 text;
* refuses anchors and aliases (the "billion laughs" bomb), duplicate keys and merge keys
  (``<<``, which would hide a second value of a key);
* builds plain Python data with :class:`yaml.SafeLoader` constructors only, in one pass over
  the nodes that also applies the rules above (a cold board reads every ``submission.yaml``:
  2.4x faster than checking the nodes, then letting PyYAML construct them);
* parses with libyaml's C parser when the text cannot hold an anchor, an alias or deep flow
  nesting (about nine times faster), and with the pure-Python strict loader otherwise, so
  every refusal keeps its exact message and line;
* gives the line of every mapping key and sequence item on demand, so a pydantic error at
  ``runs.0.tokens.total`` can be reported as ``submission.yaml:14``.
"""

from __future__ import annotations

import difflib
import re
import stat
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError

from arena_bot.core.errors import InputError
from arena_bot.core.files import read_at_most

#: YAML documents of the project are small; anything bigger is a mistake or an attack.
MAX_YAML_BYTES = 256 * 1024
#: Nesting deeper than this is refused while parsing (the formats need fewer than 10).
MAX_YAML_DEPTH = 64

Loc = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)


class LoadedYaml:
    """Parsed YAML data, and on demand the 1-based line of every key / item path."""

    def __init__(self, *, path: Path, data: Any, text: str) -> None:
        self.path = path
        self.data = data
        self._text = text

    @cached_property
    def lines(self) -> dict[Loc, int]:
        """The line of every key and item path: only messages need them, so the text is
        composed again, as it was parsed, when one asks."""
        loader = _loader(self._text)
        try:
            lines: dict[Loc, int] = {}
            node = loader.get_single_node()
            if node is not None:
                _record_lines(node, (), lines)
            return lines
        finally:
            loader.dispose()

    def line_of(self, loc: Loc) -> int | None:
        """The line of ``loc`` or of its nearest enclosing node."""
        loc = tuple(loc)
        while loc:
            if loc in self.lines:
                return self.lines[loc]
            loc = loc[:-1]
        return self.lines.get((), None)


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader without aliases; duplicate keys are caught while walking the node tree."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.MarkedYAMLError(
                problem="anchors and aliases (*name) are not allowed",
                problem_mark=event.start_mark,
            )
        event = self.peek_event()  # type: ignore[no-untyped-call]
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise yaml.MarkedYAMLError(
                problem=f"anchors (&{anchor}) are not allowed",
                problem_mark=event.start_mark,
            )
        # Documents of the project are a few levels deep; deeper nesting is an attack that
        # would otherwise end in a slow RecursionError.
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.MarkedYAMLError(
                    problem=f"nesting is deeper than {MAX_YAML_DEPTH} levels",
                    problem_mark=event.start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


#: libyaml's C parser, when PyYAML was built with it.
_CLoader: type[Any] | None = getattr(yaml, "CSafeLoader", None)


def _c_parser_is_safe(text: str) -> bool:
    """Whether ``text`` can go to libyaml's C parser without losing a safety rule.

    The C composer cannot be hooked, so the rules it would skip are ruled out first: no
    anchor and no alias token (no ``&`` or ``*`` in the text at all, or, when there is one,
    as in a glob ``"tests/*"``, none among the tokens libyaml's scanner reads), and at most
    MAX_YAML_DEPTH brackets, so flow nesting stays within the cap (block nesting is bounded
    by the size cap through indentation, and is checked again while walking the nodes).
    Anything else takes the pure-Python loader, which refuses it with its exact message
    and line.
    """
    if _CLoader is None or text.count("[") + text.count("{") > MAX_YAML_DEPTH:
        return False
    return ("&" not in text and "*" not in text) or _no_anchor_tokens(text)


def _loader(text: str) -> Any:
    """libyaml's C parser where no rule is lost (:func:`_c_parser_is_safe`), else the strict
    pure-Python loader. Lines are found again with the same one: libyaml accepts a few texts
    the Python scanner refuses (a tab after ``key:``)."""
    return _CLoader(text) if _CLoader is not None and _c_parser_is_safe(text) \
        else _StrictLoader(text)


def _no_anchor_tokens(text: str) -> bool:
    """Whether libyaml's scanner finds no anchor or alias in ``text`` (nor an error)."""
    assert _CLoader is not None
    scanner = _CLoader(text)
    try:
        while scanner.check_token():
            if isinstance(scanner.get_token(), (yaml.AnchorToken, yaml.AliasToken)):
                return False
    except yaml.YAMLError:
        return False  # the strict loader reports it in its own words
    finally:
        scanner.dispose()
    return True


#: The tag YAML gives an unquoted ``<<`` key.
_MERGE_TAG = "tag:yaml.org,2002:merge"


#: Scalar tags whose constructor returns the value (the collection tags' constructors are
#: generators, and ``!!map`` on a scalar must fail as PyYAML fails it).
_SCALAR_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in
                         ("int", "float", "bool", "null", "timestamp", "binary"))
_STR_TAG = "tag:yaml.org,2002:str"
_PLAIN_TAGS = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"})


def _built(loader: Any, node: yaml.Node, path: Path, depth: int = 1) -> Any:
    """The Python value of ``node``, as ``construct_document`` builds it, in one pass that
    also refuses merge keys, keys that are not plain scalars, duplicate keys and nesting
    deeper than MAX_YAML_DEPTH."""
    if depth > MAX_YAML_DEPTH:
        raise InputError(
            f"YAML syntax error: nesting is deeper than {MAX_YAML_DEPTH} levels",
            path=path,
            line=node.start_mark.line + 1,
            hint="check indentation and quoting around this line",
        )
    if isinstance(node, yaml.ScalarNode):
        if node.tag == _STR_TAG:
            return node.value
        if node.tag in _SCALAR_TAGS:
            return loader.yaml_constructors[node.tag](loader, node)
        return loader.construct_object(node, deep=True)  # PyYAML's own error for the rest
    if isinstance(node, yaml.SequenceNode):
        items = [_built(loader, item, path, depth + 1) for item in node.value]
        return items if node.tag in _PLAIN_TAGS else loader.construct_object(node, deep=True)
    mapping: dict[Any, Any] = {}
    seen: dict[str, int] = {}
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE_TAG:
            # With anchors refused, ``<<`` only gives a key a second, hidden value.
            raise InputError(
                "merge keys (<<) are not allowed",
                path=path,
                line=key_node.start_mark.line + 1,
                hint="write the keys out in full, each once",
            )
        if not isinstance(key_node, yaml.ScalarNode):
            raise InputError(
                "mapping keys must be plain strings",
                path=path,
                line=key_node.start_mark.line + 1,
            )
        if key_node.value in seen:
            raise InputError(
                f"duplicate key {key_node.value!r} (first defined on line "
                f"{seen[key_node.value]})",
                path=path,
                line=key_node.start_mark.line + 1,
                hint="remove one of the two entries",
            )
        seen[key_node.value] = key_node.start_mark.line + 1
        mapping[_built(loader, key_node, path)] = _built(loader, value_node, path, depth + 1)
    return mapping if node.tag in _PLAIN_TAGS else loader.construct_object(node, deep=True)


def _record_lines(node: yaml.Node, loc: Loc, lines: dict[Loc, int]) -> None:
    """The line of every key and item path under ``node`` (a document :func:`_built`
    accepted)."""
    lines.setdefault(loc, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            lines[(*loc, key_node.value)] = key_node.start_mark.line + 1
            _record_lines(value_node, (*loc, key_node.value), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*loc, index)] = item.start_mark.line + 1
            _record_lines(item, (*loc, index), lines)


def read_text_capped(path: Path, *, limit: int, what: str) -> str:
    """Read a UTF-8 text file, refusing files over ``limit`` bytes or not UTF-8."""
    try:
        found = path.stat()
    except FileNotFoundError:
        raise InputError(f"{what} not found", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", path=path) from None
    if not stat.S_ISREG(found.st_mode):
        raise InputError(f"{what} is not a regular file", path=path)
    size = found.st_size
    if size > limit:
        raise InputError(
            f"{what} is {size:,} bytes, over the limit of {limit:,} bytes",
            path=path,
            hint="keep the file small; large logs belong in a trajectory file",
        )
    try:
        with open(path, "rb") as handle:
            raw = read_at_most(handle, limit)
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", path=path) from None
    if len(raw) > limit:  # grew since it was measured
        raise InputError(f"{what} is over the limit of {limit:,} bytes", path=path,
                         hint="keep the file small; large logs belong in a trajectory file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{what} is not valid UTF-8 (byte {exc.start})",
            path=path,
            line=raw[: exc.start].count(b"\n") + 1,
            hint="save the file as UTF-8 text",
        ) from None


def load_yaml(path: Path, *, limit: int = MAX_YAML_BYTES) -> LoadedYaml:
    """Load one YAML document from ``path`` safely, with line numbers."""
    text = read_text_capped(path, limit=limit, what="YAML file")
    return parse_yaml(text, path=path)


def parse_yaml(text: str, *, path: Path) -> LoadedYaml:
    """Parse YAML text (see :func:`load_yaml`)."""
    if "\x00" in text:
        raise InputError("YAML file contains a NUL byte", path=path)
    with _yaml_errors(path):
        loader = _loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                raise InputError("YAML file is empty", path=path, line=1)
            try:
                data = _built(loader, node, path)
            except _CONSTRUCTOR_ERRORS as exc:
                # PyYAML's constructors raise plain Python errors for values that look like a
                # type but are not one (``2025-02-30``, ``!!int abc``): find the value's line.
                bad = _first_unreadable_scalar(node)
                shown = repr(bad.value)[:60] if bad is not None else "a value"
                raise InputError(
                    f"YAML value {shown} cannot be read ({exc})",
                    path=path,
                    line=bad.start_mark.line + 1 if bad is not None else None,
                    hint="dates are YYYY-MM-DD; put quotes around text that looks like a "
                    "number or date",
                ) from None
        finally:
            loader.dispose()
    return LoadedYaml(path=path, data=data, text=text)


@contextmanager
def _yaml_errors(path: Path) -> Iterator[None]:
    """PyYAML's exceptions, as input errors naming the file and line."""
    try:
        yield
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or "invalid YAML"
        if exc.context:
            problem = f"{exc.context}; {problem}"
        hint = (
            "write the values out in full: anchors and aliases are refused"
            if "anchor" in problem
            else "check indentation and quoting around this line"
        )
        raise InputError(
            f"YAML syntax error: {problem}", path=path, line=line, hint=hint
        ) from None
    except yaml.YAMLError as exc:
        raise InputError(f"YAML error: {exc}", path=path) from None
    except RecursionError:
        raise InputError("YAML nesting is too deep", path=path) from None


_CONSTRUCTOR_ERRORS = (ValueError, TypeError, KeyError, AttributeError, OverflowError, IndexError)


def _first_unreadable_scalar(root: yaml.Node) -> yaml.ScalarNode | None:
    """The first scalar under ``root`` that PyYAML's safe constructors fail on."""
    stack = [root]
    while stack:
        node = stack.pop(0)
        if isinstance(node, yaml.ScalarNode):
            probe = yaml.SafeLoader("")
            try:
                probe.construct_object(node)
            except _CONSTRUCTOR_ERRORS:
                return node
            except yaml.YAMLError:
                continue
            finally:
                probe.dispose()
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            stack += list(node.value)
    return None


@dataclass(frozen=True)
class FieldProblem:
    """One problem with one field of a YAML document."""

    path: Path
    line: int | None
    field: str
    message: str


def _problem(error: Any, loaded: LoadedYaml, model: type[BaseModel]) -> FieldProblem:
    """One pydantic error as a problem naming file, line and field; an unknown key's message
    suggests the closest allowed key."""
    loc = tuple(part for part in error["loc"] if not _is_union_tag(part))
    kind = error["type"]
    if kind == "extra_forbidden":
        message = f"unknown key {loc[-1]!r}"
        allowed = _allowed_keys(model, loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        if close:
            message += f"; did you mean {close[0]!r}?"
        elif allowed:
            message += f"; allowed keys here: {', '.join(allowed)}"
    elif kind == "missing":
        message = "required key is missing"
    else:
        message = _friendly(error)
    return FieldProblem(path=loaded.path, line=loaded.line_of(loc),
                        field=".".join(str(part) for part in loc) or "(document)",
                        message=message)


#: Plainer words for pydantic's most common complaints about hand-written YAML.
_TYPE_WORDS = {
    "dict_type": "must be a mapping (indented 'key: value' lines)",
    "model_type": "must be a mapping (indented 'key: value' lines)",
    "model_attributes_type": "must be a mapping (indented 'key: value' lines)",
    "list_type": "must be a list ('- item' lines or [a, b])",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number (not .nan or .inf)",
    "string_type": "must be text (quote it if YAML reads it as something else)",
    "bool_type": "must be true or false",
    "date_type": "must be a date written as YYYY-MM-DD (without quotes)",
}


#: A number in e-notation: YAML 1.1 (PyYAML) reads ``1e-3`` (no dot) as text.
_E_NOTATION = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)[eE][-+]?\d+$")
_NUMBER_TYPES = {"int_type", "int_parsing", "float_type", "float_parsing"}


def _friendly(error: Any) -> str:
    message = str(_TYPE_WORDS.get(error["type"], error["msg"]))
    message = message.removeprefix("Value error, ")
    if error["type"] in _TYPE_WORDS and "input" in error:
        shown = repr(error["input"])
        if len(shown) > 60:
            shown = shown[:57] + "..."
        message += f", got {shown}"
        if (error["type"] in _NUMBER_TYPES and isinstance(error["input"], str)
                and _E_NOTATION.match(error["input"])):
            message += " (YAML reads e-notation without a dot as text: write the number " \
                "out, such as 0.001 or 1000000)"
    return message


def _allowed_keys(model: type[BaseModel], loc: Loc) -> list[str]:
    """Field names of the (nested) model at ``loc``, or ``[]`` when it cannot be told."""
    current: Any = model
    for part in loc:
        current = _unwrap(current, index=isinstance(part, int))
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        field = current.model_fields.get(part)
        if field is None:
            return []
        current = field.annotation
    current = _unwrap(current, index=False)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _unwrap(annotation: Any, *, index: bool) -> Any:
    """Strip Optional/Annotated (and one list level when ``index``) from an annotation."""
    for _ in range(5):
        origin = get_origin(annotation)
        args = [a for a in get_args(annotation) if a is not type(None)]
        if origin is Annotated or (origin in (Union, types.UnionType) and len(args) == 1):
            annotation = args[0]
        elif index and origin is list and args:
            annotation = args[0]
            index = False
        else:
            break
    return annotation


def _is_union_tag(part: str | int) -> bool:
    # pydantic inserts the member type name into locs of union errors, e.g. "list[str]".
    return isinstance(part, str) and ("[" in part or part in {"str", "int", "float"})


def validate_model(model: type[M], loaded: LoadedYaml) -> M:
    """Validate ``loaded.data`` as ``model``; raise one InputError listing every problem."""
    try:
        return model.model_validate(loaded.data)
    except ValidationError as exc:
        problems = [_problem(error, loaded, model) for error in exc.errors(include_url=False)]
        first = problems[0]
        detail = "\n".join(
            f"  {p.path}:{p.line or '?'}: {p.field}: {p.message}" for p in problems
        )
        raise ModelValidationError(
            f"{len(problems)} problem(s) in {model.__name__}:\n{detail}",
            path=first.path,
            line=first.line,
            problems=problems,
        ) from None


class ModelValidationError(InputError):
    """A YAML document parsed but does not match its model."""

    def __init__(self, message: str, *, problems: list[FieldProblem], **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.problems = problems
