"""The README's layout section names every part of the tree: a newcomer reading it finds where
a change belongs, and a module added without a line there fails here."""

from __future__ import annotations

import re
from pathlib import Path

from support.gitrepo import git

REPO = Path(__file__).resolve().parents[1]
#: Files every Python project has; the layout speaks of the project's own parts.
_COMMON = {".gitignore", "README.md", "pyproject.toml"}


def _layout() -> str:
    """The code block under ``## Layout``."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Layout\n+```\n(.*?)^```", text, re.M | re.S)
    assert match, "README.md has no ## Layout section with a code block"
    return match.group(1)


def _named(layout: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", layout) is not None


def test_every_top_level_entry_is_in_the_layout() -> None:
    """What git tracks at the top of the checkout (not what a developer has lying there)."""
    layout = _layout()
    tracked = {name.split("/", 1)[0] for name in git("ls-files", cwd=REPO).splitlines()}
    missing = sorted(e for e in tracked - _COMMON if not _named(layout, e))
    assert missing == [], f"README.md's layout does not name {missing}"


def test_every_module_and_package_of_arena_bot_is_in_the_layout() -> None:
    layout = _layout()
    parts = sorted(
        p.name + ("/" if p.is_dir() else "")
        for p in (REPO / "arena_bot").iterdir()
        if p.name not in {"__init__.py", "__pycache__"} and (p.suffix == ".py" or p.is_dir())
    )
    assert parts, "arena_bot/ is empty?"
    missing = [part for part in parts if not _named(layout, part.rstrip("/"))]
    assert missing == [], f"README.md's layout does not name {missing}"
