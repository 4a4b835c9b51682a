"""Tests of the safe YAML loader: line numbers, refusals, friendly model errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_bot.core.errors import InputError
from arena_bot.core.yamlio import ModelValidationError, load_yaml, parse_yaml, validate_model
from arena_bot.models.submission import Submission

P = Path("x.yaml")


def test_lines_of_keys_and_items() -> None:
    loaded = parse_yaml("a: 1\nb:\n  - c: 2\n  - d: 3\n", path=P)
    assert loaded.data == {"a": 1, "b": [{"c": 2}, {"d": 3}]}
    assert loaded.line_of(("a",)) == 1
    assert loaded.line_of(("b", 1, "d")) == 4
    # An unknown location falls back to its nearest known parent.
    assert loaded.line_of(("b", 0, "nope", 3)) == 3


@pytest.mark.parametrize(
    ("text", "fragment", "line"),
    [
        ("a: 1\na: 2\n", "duplicate key 'a' (first defined on line 1)", 2),
        ("a: &x 1\nb: *x\n", "anchors (&x) are not allowed", 1),
        ("a: [1, 2\n", "YAML syntax error", 2),
        ("? [a, b]\n: 1\n", "mapping keys must be plain strings", 1),
        ("", "YAML file is empty", 1),
    ],
)
def test_refusals_name_the_line(text: str, fragment: str, line: int) -> None:
    with pytest.raises(InputError) as caught:
        parse_yaml(text, path=P)
    assert fragment in caught.value.message
    assert caught.value.line == line
    assert caught.value.path == P


def test_alias_bomb_is_refused_before_expansion() -> None:
    bomb = "a: &a [x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(20)
    )
    with pytest.raises(InputError, match="not allowed"):
        parse_yaml(bomb, path=P)


def test_python_tags_are_not_constructed() -> None:
    with pytest.raises(InputError):
        parse_yaml("a: !!python/object/apply:os.system ['true']\n", path=P)


def test_deep_nesting_is_an_input_error() -> None:
    with pytest.raises(InputError, match="deeper than 64 levels"):
        parse_yaml("a: " + "[" * 20000 + "]" * 20000 + "\n", path=P)
    with pytest.raises(InputError, match="deeper than 64 levels"):
        parse_yaml("".join(f"{'  ' * i}k{i}:\n" for i in range(100)) + "  " * 100 + "x\n", path=P)
    assert parse_yaml("a: " + "[" * 60 + "]" * 60 + "\n", path=P).data["a"] is not None


def test_nul_byte_non_utf8_and_size(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="NUL"):
        parse_yaml("a: 1\x00", path=P)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(InputError, match="not valid UTF-8") as caught:
        load_yaml(latin)
    assert caught.value.line == 2
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 2000 + "\n")
    with pytest.raises(InputError, match="over the limit"):
        load_yaml(big, limit=1000)
    with pytest.raises(InputError, match="not found"):
        load_yaml(tmp_path / "missing.yaml")
    with pytest.raises(InputError, match="not a regular file"):
        load_yaml(tmp_path)


def test_a_file_that_fails_to_read_is_an_input_error_naming_it() -> None:
    """A regular file whose read fails (here the kernel's EIO on /proc/self/mem, as root
    cannot be refused by permissions) is a message naming the file, not a traceback."""
    unreadable = Path("/proc/self/mem")
    with pytest.raises(InputError, match="cannot read YAML file: Input/output error") as caught:
        load_yaml(unreadable)
    assert caught.value.path == unreadable


SUBMISSION = """\
task: demo
tool: {name: Aider, version: "1"}
models: [m]
contributor: {name: A}
date: 2025-01-01
setting: single
features: [1]
runs:
  - id: r1
    tokens: {total: 10}
    tool_calls: 2
    execution_time: 10
    estimated_cost: 0.01
    patches: [p.patch]
"""


def _problems(text: str) -> list[tuple[int | None, str, str]]:
    with pytest.raises(ModelValidationError) as caught:
        validate_model(Submission, parse_yaml(text, path=P))
    return [(p.line, p.field, p.message) for p in caught.value.problems]


def test_unknown_key_suggests_the_closest_allowed_key() -> None:
    text = SUBMISSION.replace("    tool_calls: 2", "    tool_calls: 2\n    toolcalls: 3")
    assert _problems(text) == [
        (12, "runs.0.toolcalls", "unknown key 'toolcalls'; did you mean 'tool_calls'?")
    ]
    text = SUBMISSION.replace("task: demo", "task: demo\nzzz: 1")
    ((line, field, message),) = _problems(text)
    assert (line, field) == (2, "zzz")
    assert "allowed keys here: schema_version, task, tool" in message


def test_type_errors_are_in_plain_words_with_the_value() -> None:
    text = SUBMISSION.replace("tool_calls: 2", "tool_calls: two")
    assert _problems(text) == [(11, "runs.0.tool_calls", "must be a whole number, got 'two'")]
    text = SUBMISSION.replace("estimated_cost: 0.01", "estimated_cost: .inf")
    ((_, _, message),) = _problems(text)
    assert message == "must be a finite number (not .nan or .inf), got inf"


def test_model_validator_messages_lose_pydantics_prefix() -> None:
    text = SUBMISSION.replace("{total: 10}", "{total: 10, prompt: 3, completion: 3}")
    ((line, field, message),) = _problems(text)
    assert (line, field) == (10, "runs.0.tokens")
    assert message.startswith("total (10) must equal prompt + completion")


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("a: 1\ndate: 2025-02-30\n", 2, "'2025-02-30' cannot be read"),
        ("a: 2025-01-01T25:00:00\n", 1, "cannot be read"),
        ("a: !!int abc\n", 1, "'abc' cannot be read"),
        ("a:\n  - ok\n  - !!bool maybe\n", 3, "'maybe' cannot be read"),
        ("a: !!timestamp nope\n", 1, "'nope' cannot be read"),
    ],
)
def test_values_pyyaml_cannot_construct_are_input_errors(
    text: str, line: int, fragment: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_yaml(text, path=P)
    assert fragment in caught.value.message
    assert caught.value.line == line


ROOT = Path(__file__).resolve().parent.parent
#: Every YAML file the project ships: samples, and the invalid examples of tests/data.
SHIPPED_YAML = sorted(
    p for top in ("dataset", "submissions", "tests/data") for p in (ROOT / top).rglob("*.yaml")
)


def _outcome(text: str, path: Path) -> object:
    try:
        loaded = parse_yaml(text, path=path)
    except InputError as exc:
        # libyaml words its syntax errors differently; the kind and the line must agree.
        message = exc.message.split(":")[0] if "syntax error" in exc.message else exc.message
        return ("error", message, exc.line)
    return (loaded.data, loaded.lines)


@pytest.mark.parametrize("path", SHIPPED_YAML, ids=lambda p: str(p.relative_to(ROOT)))
def test_c_parser_and_strict_loader_agree_on_every_shipped_file(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena_bot.core.yamlio as yamlio

    text = path.read_text(encoding="utf-8", errors="replace")
    fast = _outcome(text, path)
    monkeypatch.setattr(yamlio, "_CLoader", None)
    assert fast == _outcome(text, path)


def test_the_c_parser_is_used_only_where_no_rule_is_lost() -> None:
    from arena_bot.core.yamlio import _c_parser_is_safe

    assert _c_parser_is_safe("a: 1\nb: [x, y]\n")
    assert not _c_parser_is_safe("a: &x 1\n")  # a possible anchor
    assert not _c_parser_is_safe("a: *x\n")  # a possible alias
    assert not _c_parser_is_safe("a: " + "[" * 65 + "]" * 65)  # deep flow nesting
    # Stars and ampersands inside scalars are no anchors: a task's globs take the C parser.
    assert _c_parser_is_safe('protected:\n  - "tests/*"\n  - "**/conftest.py"\nb: R&D\n')
    assert not _c_parser_is_safe('a: ["x", &y 1]\n')
    assert not _c_parser_is_safe("a: [1, *y]\n")
    assert not _c_parser_is_safe('a: "*unclosed\n')  # the strict loader words the error
    # Duplicate keys and non-string keys are still caught on the C parser's nodes.
    with pytest.raises(InputError, match="duplicate key"):
        parse_yaml("a: 1\nb: [1]\na: 2\n", path=P)


QUICK_CASES = [
    "a: 1\nb: 1.5\nc: true\nd: ~\ne: text\nf: 2026-01-05\n",
    "n: [0, 7, 10, 007, 0x1F, 1_000, -3, +4, 0.5, .5, 1e3, -1.5, .inf, .NaN, 12:30]\n",
    "b: [yes, No, on, OFF, TRUE, y, n]\nk:\n  1: one\n  true: t\n  ~: none\n  2.5: f\n",
    "d: [2026-02-30, 2026-1-5, 2026-01-05T10:00:00Z, 2026-01-05 10:00:00]\n",
    "s: !!str 12\nt: !!binary aGVsbG8=\nu: !!set {a, b}\nv: !!omap [{a: 1}]\n",
    "m:\n  <<: {x: 1}\n  y: 2\n",
    "'quoted key': \"x\"\n? complex\n: value\nempty:\nnested:\n  - [1, [2, [3]]]\n",
    "dup: 1\nother: 2\ndup: 3\n",
    "list:\n- a\n- b: c\n  d: [e]\n",
]


@pytest.mark.parametrize("text", QUICK_CASES, ids=range(len(QUICK_CASES)))
def test_the_c_parser_gives_the_strict_loaders_values_types_and_lines(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena_bot.core.yamlio as yamlio

    def spelt(outcome: object) -> str:
        return repr(outcome)  # 1, 1.0 and True differ here, unlike with ==

    fast = spelt(_outcome(text, P))
    monkeypatch.setattr(yamlio, "_CLoader", None)
    assert fast == spelt(_outcome(text, P))


#: Plain scalars whose YAML 1.1 type is easy to get wrong: booleans in every spelling,
#: nulls, ints in bases 2/8/16 and sexagesimal, underscores, leading zeros, signs, special
#: floats, dates and timestamps (valid and impossible), non-ASCII digits, merge and value
#: keys, and text that merely starts like one of them.
ODD_SCALARS = [
    "yes", "Yes", "YES", "yEs", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "oFF",
    "y", "Y", "n", "N", "o", "true", "True", "TRUE", "tRUE", "false", "False", "FALSE",
    "null", "Null", "NULL", "nULL", "~", "none", "None", "0", "00", "-0", "+0", "7", "007",
    "08", "09", "010", "0x10", "0X10", "0xG", "0x", "0b101", "0b2", "0o17", "1_000", "1__0",
    "1_", "-3", "+4", "12:30", "1:2:3", "190:20:30", "1:60", "20:59.5", ".inf", "-.inf",
    "+.Inf", ".INF", ".iNF", ".nan", ".NaN", ".NAN", "nan", "inf", "1e3", "1.0e3", "1.0e+3",
    "1.e-3", "1.", ".5", "-.5", "+.5", "0.5", "00.5", "1_0.5", "3.14_15", "1.2.3", "1e",
    "e1", "123", "1234567890123456789012345", "2026-01-05", "2026-1-5", "2026-01-05T10:00:00Z",
    "2026-01-05 10:00:00", "2026-01-05t10:00:00.5+02:00", "2026-02-30", "9999-99-99",
    "\u0661\u0662", "\u00b2", "\uff10", "\u00bd", "=", "<<", "v1.0", "1.0.0", "1-2",
    "on-call", "no_way", "Null pointer", "~home", "yes please", "-", "+", ".", "...x",
    "1 2", "TRUE!", "2026", "20260105", "0.0", "-0.0", "6.02e+23", "1_2:30",
]


@pytest.mark.parametrize("value", ODD_SCALARS)
def test_odd_scalars_load_as_pyyamls_safe_loader_loads_them(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The C parser's path, the pure-Python strict loader and ``yaml.safe_load`` agree on
    value and type (as keys, values and list items, plain and quoted), or the document is
    refused."""
    import yaml

    import arena_bot.core.yamlio as yamlio

    text = f"a: {value}\nb: [{value}, '{value}']\n{value}: k\nc:\n  - {value}\n"
    quick = repr(_outcome(text, P))
    monkeypatch.setattr(yamlio, "_CLoader", None)
    assert quick == repr(_outcome(text, P))
    try:
        expected = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError):
        assert quick.startswith("('error'")
        return
    if not quick.startswith("('error'"):
        assert quick.startswith(repr((expected,))[:-2])


def test_lines_are_found_in_a_text_only_libyaml_reads() -> None:
    """libyaml reads a tab after ``key:`` (PyYAML's Python scanner refuses it): asked for a
    line, such a document is composed again by the parser that read it (found by
    test_text_level_edits_never_crash_validation when lines were first made lazy)."""
    loaded = parse_yaml("a: 1\nb:\n  name: \t\n  c: [1, 2]\n", path=P)
    assert loaded.data == {"a": 1, "b": {"name": None, "c": [1, 2]}}
    assert loaded.line_of(("b", "c", 1)) == 4
    assert loaded.line_of(("b", "name")) == 3
