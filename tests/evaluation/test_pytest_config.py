"""Pytest settings compared on the parsed config files (pure logic; the in-sandbox collection
is exercised in tests/integrity/test_locked_down_pytest.py)."""

from __future__ import annotations

import json

import pytest

from arena_bot.evaluation.pytest_config import changed_settings, pytest_settings

BASE_TOML = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'


def _changes(name: str, before: str | None, after: str | None) -> list[str]:
    return [f"{c.file}: {c.detail}" for c in changed_settings(json.dumps({name: [before, after]}))]


def test_a_key_added_inside_an_existing_pytest_section_is_a_change() -> None:
    # The text rule knows no `pythonpath`: the parsed comparison does.
    after = BASE_TOML + 'pythonpath = ["evil"]\n'
    assert _changes("pyproject.toml", BASE_TOML, after) == [
        "pyproject.toml: changes ini_options.pythonpath"]


def test_escaped_keys_are_read_as_pytest_reads_them() -> None:
    after = '[project]\nname = "x"\n\n[tool."\\u0070ytest".ini_options]\naddopts = "-p no:python"\n'
    assert _changes("pyproject.toml", '[project]\nname = "x"\n', after) == [
        "pyproject.toml: adds pytest settings"]


def test_other_edits_of_config_files_are_not_changes() -> None:
    after = BASE_TOML.replace('name = "x"', 'name = "x"\ndependencies = ["pytest>=8"]')
    assert _changes("pyproject.toml", BASE_TOML, after) == []
    cfg = "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n"
    assert _changes("setup.cfg", cfg, cfg.replace("name = x", "name = y")) == []


@pytest.mark.parametrize("name", ["setup.cfg", "tox.ini"])
def test_ini_sections_are_compared(name: str) -> None:
    section = "tool:pytest" if name == "setup.cfg" else "pytest"
    before = f"[{section}]\naddopts = -q\n"
    assert _changes(name, before, before + "python_files = *.py\n")
    assert _changes(name, None, before)
    assert _changes(name, before, None) == [f"{name}: removes the pytest settings"]


def test_an_unparseable_file_is_a_change() -> None:
    (change,) = _changes("pyproject.toml", BASE_TOML, BASE_TOML + "[[[")
    assert "unparseable TOML" in change


def test_collected_output_that_is_not_json_is_refused() -> None:
    assert changed_settings("not json")[0].detail == "the config files could not be compared"
    assert changed_settings(json.dumps({"other.toml": ["a", "b"]}))[0].file == "other.toml"


def test_absent_parts_read_as_none() -> None:
    assert pytest_settings("pyproject.toml", None) is None
    assert pytest_settings("pyproject.toml", '[project]\nname = "x"\n') is None
    assert pytest_settings("setup.cfg", "[metadata]\nname = x\n") is None
