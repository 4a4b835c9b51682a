"""Dropping test files from an agent's patch before merging (pure text processing).

CooperBench drops test files from agents' patches so that the merged code is judged by the
task's own tests, not by tests an agent wrote (or edited) for itself.

The rule: a file section of the patch is dropped when any path it names (old or new side,
rename and copy sources included) is a test path:

* a path with a directory component ``tests`` (``tests/x.py``, ``pkg/tests/data.json``);
* a file named ``test_*.py``, ``*_test.py`` or ``conftest.py`` in any folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena_bot.intake.patches import is_test_path, parse_patch


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


def drop_test_files(patch: str) -> FilteredPatch:
    """Remove every file section that touches a test path (see the module docstring); text
    outside the sections (a ``git format-patch`` message before them, an agent's prose or
    Markdown fence around them) is kept: ``git apply`` ignores it. Limits were applied when
    the patch was read: only its sections matter here.
    """
    parsed = parse_patch(patch, max_bytes=len(patch.encode("utf-8", "surrogatepass")) + 1,
                         max_lines=patch.count("\n") + 2)
    # Where each line starts: a section's text begins at its first line.
    starts = [0, *(found.end() for found in re.finditer("\n", patch))]
    cut: list[tuple[int, int]] = []
    dropped: list[str] = []
    for section in parsed.files:
        if not any(is_test_path(path) for path in section.paths):
            continue
        begin = starts[section.line - 1]
        end = begin + len(section.raw)
        if patch[begin:end] != section.raw:  # not read as written: nothing dropped, git decides
            return FilteredPatch(text=patch, dropped=())
        cut.append((begin, end))
        dropped.append(section.paths[0] if section.paths else "?")
    if dropped and len(dropped) == len(parsed.files):
        # Every section was a test file: the text around them (an agent's prose, a fence)
        # is no patch, and git apply would call it "No valid patches in input".
        return FilteredPatch(text="", dropped=tuple(dropped))
    kept: list[str] = []
    position = 0
    for begin, end in cut:
        kept.append(patch[position:begin])
        position = end
    kept.append(patch[position:])
    return FilteredPatch(text="".join(kept), dropped=tuple(dropped))
