"""Pytest settings judged on the parsed files, before and after the patch.

The patch-text rule (:mod:`arena_bot.intake.patches`) refuses a hunk of ``pyproject.toml`` or
``setup.cfg`` that mentions pytest settings; it cannot see a line added inside a pytest
section the repository already has (``pythonpath = ...`` under ``[tool.pytest.ini_options]``
spells no setting name it knows). So once the patch is applied, the harness reads these
files at the base commit and in the patched tree and compares the pytest part of each, parsed
with ``tomllib`` / ``configparser`` the way pytest reads them: any difference is refused.
Pure logic; :func:`collect_command` is what runs in the sandbox to fetch the texts.
"""

from __future__ import annotations

import configparser
import json
import tomllib
from dataclasses import dataclass

#: Files at the repository's root whose pytest part matters (the tests' own folders and
#: pytest's own ini files are protected paths, refused from the patch text already).
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini")
#: INI sections pytest reads, per file.
_INI_SECTIONS = {"setup.cfg": ("tool:pytest", "pytest"), "tox.ini": ("pytest",)}

#: Prints ``{file: [text at BASE or null, text now or null]}`` for the files changed since
#: BASE; run by the owner with ``python3 -I -S`` (no site, no code of the repository).
_COLLECT = r"""
import json, subprocess, sys
base, names = sys.argv[1], sys.argv[2:]
found = {}
for name in names:
    old = subprocess.run(["git", "show", f"{base}:{name}"], capture_output=True)
    try:
        with open(name, "rb") as handle:
            new = handle.read()
    except OSError:
        new = None
    before = old.stdout if old.returncode == 0 else None
    if before != new:
        found[name] = [None if t is None else t.decode("utf-8", "replace") for t in (before, new)]
print(json.dumps(found))
"""


@dataclass(frozen=True)
class ConfigChange:
    """One config file whose pytest settings the patch changed."""

    file: str
    detail: str


def collect_command(base_commit: str) -> list[str]:
    """The argv that prints the before/after texts of :data:`CONFIG_FILES` that changed."""
    return ["python3", "-I", "-S", "-c", _COLLECT, base_commit, *CONFIG_FILES]


def pytest_settings(name: str, text: str | None) -> object:
    """The pytest part of config file ``name`` (``None`` when the file or the part is
    absent). A file that does not parse yields a marker string: pytest would fail on it or
    read it differently, and it never equals a parsed value."""
    if text is None:
        return None
    if name.endswith(".toml"):
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            return f"unparseable TOML: {exc}"
        tool = data.get("tool")
        return tool.get("pytest") if isinstance(tool, dict) else None
    parser = configparser.RawConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        return f"unparseable INI: {exc}"
    found = {section: dict(parser.items(section))
             for section in _INI_SECTIONS.get(name, ("pytest",)) if parser.has_section(section)}
    return found or None


def changed_settings(collected: str) -> list[ConfigChange]:
    """The config files of ``collected`` (the JSON :func:`collect_command` prints) whose
    pytest settings differ between the base commit and the patched tree."""
    try:
        texts = json.loads(collected)
    except json.JSONDecodeError:
        return [ConfigChange(file="?", detail="the config files could not be compared")]
    if not isinstance(texts, dict):
        return [ConfigChange(file="?", detail="the config files could not be compared")]
    changes: list[ConfigChange] = []
    for name, pair in texts.items():
        if name not in CONFIG_FILES or not isinstance(pair, list) or len(pair) != 2:
            changes.append(ConfigChange(file=str(name), detail="could not be compared"))
            continue
        before, after = (pytest_settings(name, text) for text in pair)
        if before != after:
            changes.append(ConfigChange(file=name, detail=_describe(before, after)))
    return changes


def _describe(before: object, after: object) -> str:
    if isinstance(after, str):
        return after
    if before is None:
        return "adds pytest settings"
    if after is None:
        return "removes the pytest settings"
    if isinstance(before, dict) and isinstance(after, dict):
        old, new = _flat(before), _flat(after)
        differing = [k for k in sorted({*old, *new}) if old.get(k) != new.get(k)]
        return "changes " + ", ".join(differing[:5]) if differing else "changes pytest settings"
    return "changes pytest settings"


def _flat(tree: dict[str, object], prefix: str = "") -> dict[str, object]:
    """``tree`` as dotted keys → leaf values (for naming what changed)."""
    flat: dict[str, object] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
