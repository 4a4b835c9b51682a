"""Dropping test files from an agent's patch before merging (pure text processing).

CooperBench drops test files from agents' patches so that the merged code is judged by the
task's own tests, not by tests an agent wrote (or edited) for itself.

The rule: a file section of the patch is dropped when any path it names (old or new side,
rename and copy sources included) is a test path:

* a path with a directory component ``tests`` (``tests/x.py``, ``pkg/tests/data.json``);
* a file named ``test_*.py``, ``*_test.py`` or ``conftest.py`` in any folder.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase

_TEST_FILE_PATTERNS = ("test_*.py", "*_test.py", "conftest.py")
_TEST_DIRS = frozenset({"tests"})

# Header lines that name a path, in git's extended format and in plain unified diffs.
_PATH_LINE = re.compile(
    r"^(?:--- |\+\+\+ |rename from |rename to |copy from |copy to )(?P<path>.+?)\s*$"
)
_GIT_HEADER = re.compile(r"^diff --git (?P<old>\"?a/.+?\"?) (?P<new>\"?b/.+\"?)$")


@dataclass(frozen=True)
class FilteredPatch:
    """An agent's patch with its test files removed."""

    text: str
    #: Paths of the sections that were dropped, in patch order.
    dropped: tuple[str, ...]

    @property
    def is_empty(self) -> bool:
        """True when nothing but test files (or nothing at all) was in the patch."""
        return not self.text.strip()


def is_test_path(path: str) -> bool:
    """Whether ``path`` (POSIX, relative to the repository root) is a test file."""
    parts = [part for part in path.split("/") if part]
    if not parts:
        return False
    if any(part in _TEST_DIRS for part in parts[:-1]):
        return True
    return any(fnmatchcase(parts[-1], pattern) for pattern in _TEST_FILE_PATTERNS)


def drop_test_files(patch: str) -> FilteredPatch:
    """Remove every file section that touches a test path (see the module docstring).

    Text before the first file section (a commit message from ``git format-patch``, say) is
    kept as is: ``git apply`` ignores it.
    """
    preamble, sections = _split_sections(patch)
    kept: list[str] = [preamble]
    dropped: list[str] = []
    for section in sections:
        paths = _section_paths(section)
        if any(is_test_path(path) for path in paths):
            dropped.append(paths[0] if paths else "?")
        else:
            kept.append(section)
    return FilteredPatch(text="".join(kept), dropped=tuple(dropped))


def _split_sections(patch: str) -> tuple[str, list[str]]:
    """Split a patch into its preamble and one text per file.

    Git patches start each file with ``diff --git``; plain unified diffs (``diff -u``) with a
    ``--- `` line directly followed by ``+++ ``.
    """
    lines = patch.splitlines(keepends=True)
    git_style = any(line.startswith("diff --git ") for line in lines)
    starts: list[int] = []
    for index, line in enumerate(lines):
        if git_style:
            if line.startswith("diff --git "):
                starts.append(index)
        elif (
            line.startswith("--- ")
            and index + 1 < len(lines)
            and lines[index + 1].startswith("+++ ")
        ):
            # A hunk line "--- x" (a removed "-- x") followed by "+++ y" (an added "++ y")
            # is indistinguishable here; only plain diffs without git headers are affected.
            starts.append(index)
    if not starts:
        return patch, []
    preamble = "".join(lines[: starts[0]])
    bounds = [*starts, len(lines)]
    sections = ["".join(lines[begin:end]) for begin, end in itertools.pairwise(bounds)]
    return preamble, sections


def _section_paths(section: str) -> list[str]:
    """Every repository path a file section names (without ``a/``/``b/``, ``/dev/null``)."""
    paths: list[str] = []
    for line in section.splitlines():
        if line.startswith("@@"):
            break  # hunks follow; no more headers in this section
        header = _GIT_HEADER.match(line)
        if header:
            paths.extend((_strip_prefix(header.group("old")), _strip_prefix(header.group("new"))))
            continue
        match = _PATH_LINE.match(line)
        if match:
            raw = match.group("path").split("\t", 1)[0]  # diff -u appends a timestamp
            if line.startswith(("--- ", "+++ ")):
                paths.append(_strip_prefix(raw))
            else:
                paths.append(_unquote(raw))
    return [path for path in paths if path and path != "/dev/null"]


def _strip_prefix(raw: str) -> str:
    path = _unquote(raw)
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def _unquote(raw: str) -> str:
    """Undo git's C-style quoting of unusual file names (``"a/t\\303\\251st.py"``)."""
    if not (len(raw) >= 2 and raw.startswith('"') and raw.endswith('"')):
        return raw
    body = raw[1:-1]
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape").encode(
            "latin-1"
        ).decode("utf-8", "replace")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return body
