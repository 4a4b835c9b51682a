"""Safe YAML loading that remembers where every value came from.

Contributor YAML is untrusted. This loader:

* refuses files over a size cap before reading them whole;
* refuses anything that is not UTF-8 text;
* refuses anchors and aliases (the "billion laughs" bomb) and duplicate keys;
* builds plain Python data with :class:`yaml.SafeLoader` constructors only;
* records the line of every mapping key and sequence item, so a pydantic error at
  ``runs.0.tokens.total`` can be reported as ``submission.yaml:14``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from arena_bot.errors import InputError

#: YAML documents of the project are small; anything bigger is a mistake or an attack.
MAX_YAML_BYTES = 256 * 1024

Loc = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)


@dataclass
class LoadedYaml:
    """Parsed YAML data plus the 1-based line of every key / item path."""

    path: Path
    data: Any
    lines: dict[Loc, int] = field(default_factory=dict)

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

    def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError(
                problem="anchors and aliases (*name) are not allowed",
                problem_mark=event.start_mark,
            )
        event = self.peek_event()
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise yaml.MarkedYAMLError(
                problem=f"anchors (&{anchor}) are not allowed",
                problem_mark=event.start_mark,
            )
        return super().compose_node(parent, index)


def _walk(node: yaml.Node, loc: Loc, lines: dict[Loc, int], path: Path) -> Iterator[None]:
    lines.setdefault(loc, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key is None:
                raise InputError(
                    "mapping keys must be plain strings",
                    path=path,
                    line=key_node.start_mark.line + 1,
                )
            if key in seen:
                raise InputError(
                    f"duplicate key {key!r} (first defined on line {seen[key]})",
                    path=path,
                    line=key_node.start_mark.line + 1,
                    hint="remove one of the two entries",
                )
            seen[key] = key_node.start_mark.line + 1
            lines[(*loc, key)] = key_node.start_mark.line + 1
            yield from _walk(value_node, (*loc, key), lines, path)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*loc, index)] = item.start_mark.line + 1
            yield from _walk(item, (*loc, index), lines, path)


def read_text_capped(path: Path, *, limit: int, what: str) -> str:
    """Read a UTF-8 text file, refusing files over ``limit`` bytes or not UTF-8."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise InputError(f"{what} not found", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", path=path) from None
    if not path.is_file():
        raise InputError(f"{what} is not a regular file", path=path)
    if size > limit:
        raise InputError(
            f"{what} is {size:,} bytes, over the limit of {limit:,} bytes",
            path=path,
            hint="keep the file small; large logs belong in a trajectory file",
        )
    with path.open("rb") as handle:
        raw = handle.read(limit + 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{what} is not valid UTF-8 (byte {exc.start})",
            path=path,
            line=line,
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
    try:
        loader = _StrictLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                raise InputError("YAML file is empty", path=path, line=1)
            lines: dict[Loc, int] = {}
            for _ in _walk(node, (), lines, path):
                pass
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or "invalid YAML"
        if exc.context:
            problem = f"{exc.context}; {problem}"
        raise InputError(
            f"YAML syntax error: {problem}",
            path=path,
            line=line,
            hint="check indentation and quoting around this line",
        ) from None
    except yaml.YAMLError as exc:
        raise InputError(f"YAML error: {exc}", path=path) from None
    except RecursionError:
        raise InputError("YAML nesting is too deep", path=path) from None
    return LoadedYaml(path=path, data=data, lines=lines)


@dataclass(frozen=True)
class FieldProblem:
    """One problem with one field of a YAML document."""

    path: Path
    line: int | None
    field: str
    message: str


def describe_validation_error(exc: ValidationError, loaded: LoadedYaml) -> list[FieldProblem]:
    """Turn a pydantic error into problems that name file, line and field."""
    problems = []
    for error in exc.errors(include_url=False):
        loc = tuple(part for part in error["loc"] if not _is_union_tag(part))
        dotted = ".".join(str(part) for part in loc) or "(document)"
        kind = error["type"]
        if kind == "extra_forbidden":
            message = f"unknown key {loc[-1]!r}; check its spelling against the format page"
        elif kind == "missing":
            message = "required key is missing"
        else:
            message = error["msg"]
        problems.append(
            FieldProblem(path=loaded.path, line=loaded.line_of(loc), field=dotted, message=message)
        )
    return problems


def _is_union_tag(part: str | int) -> bool:
    # pydantic inserts the member type name into locs of union errors, e.g. "list[str]".
    return isinstance(part, str) and ("[" in part or part in {"str", "int", "float"})


def validate_model(model: type[M], loaded: LoadedYaml) -> M:
    """Validate ``loaded.data`` as ``model``; raise one InputError listing every problem."""
    try:
        return model.model_validate(loaded.data)
    except ValidationError as exc:
        problems = describe_validation_error(exc, loaded)
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
