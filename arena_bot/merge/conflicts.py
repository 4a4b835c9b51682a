"""Counting merge conflicts the way CooperBench does (seed 003), as pure functions.

Seed 003: ``conflict_score = conflict_sections * 20 + conflict_lines * 2``. A line opening
with ``<<<<<<< `` opens a section, ``>>>>>>> `` closes it, the ``=======`` separator is
skipped and every other line inside counts (both sides'). Two texts can be counted (the
``counting`` option): ``cooperbench`` (the default, :func:`count_diff_conflicts`) the ``git
diff`` of the conflicted work tree, as CooperBench v0.1 does, or ``files`` (the seed's
reading, :func:`count_conflicts`) the conflicted files, which gives fewer lines whenever a
side deleted lines inside a conflict. Git runs with ``merge.conflictStyle=merge``, so there
is no ``|||||||`` base part; were there one, its lines would count, as in CooperBench.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from arena_bot.models.evaluation import ConflictDetails, ConflictSeverity

#: Which text conflicts are counted over (see the module docstring).
Counting = Literal["cooperbench", "files"]
DEFAULT_COUNTING: Counting = "cooperbench"

SECTION_WEIGHT = 20
LINE_WEIGHT = 2

_OPEN = "<<<<<<< "
_SEPARATOR = "======="
_CLOSE = ">>>>>>> "


def count_conflicts(contents: Iterable[str]) -> ConflictDetails:
    """Count conflict sections and lines over the conflicted files' contents.

    Each string is one file's full text. A section left open at the end of a file (which git
    never writes, but a file may be cut) ends with the file.
    ``avg_lines_per_conflict`` is ``conflict_lines / conflict_sections``, and 0 when there are
    no sections (the seed's formula would divide by zero).
    """
    sections = 0
    lines = 0
    for text in contents:
        inside = False
        for line in text.splitlines():
            if line.startswith(_OPEN):
                sections += 1
                inside = True
            elif not inside:
                continue
            elif line.startswith(_CLOSE):
                inside = False
            elif line.rstrip("\r") != _SEPARATOR:
                lines += 1
    average = lines / sections if sections else 0.0
    return ConflictDetails(
        conflict_sections=sections, conflict_lines=lines, avg_lines_per_conflict=average
    )


def count_diff_conflicts(diff_text: str) -> ConflictDetails:
    """Count exactly as CooperBench v0.1's ``_analyze_diff_content`` over ``git diff`` text:
    a combined diff, so substring tests on stripped lines (``++<<<<<<< HEAD``), and
    ``avg_lines_per_conflict`` rounded to 2 places like its report."""
    sections = 0
    lines = 0
    inside = False
    for raw in diff_text.splitlines():
        line = raw.strip()
        if _OPEN in line:
            sections += 1
            inside = True
        elif _SEPARATOR in line:
            continue
        elif ">>>>>>>" in line:
            inside = False
        elif inside:
            lines += 1
    average = round(lines / sections, 2) if sections else 0.0
    return ConflictDetails(
        conflict_sections=sections, conflict_lines=lines, avg_lines_per_conflict=average
    )


def conflict_score(details: ConflictDetails) -> int:
    """Seed 003: ``conflict_sections * 20 + conflict_lines * 2``."""
    return details.conflict_sections * SECTION_WEIGHT + details.conflict_lines * LINE_WEIGHT


def severity(score: int) -> ConflictSeverity:
    """CooperBench's bands: >100 CRITICAL, >50 HIGH, >20 MEDIUM, >0 LOW, else NONE."""
    if score > 100:
        return "CRITICAL"
    if score > 50:
        return "HIGH"
    if score > 20:
        return "MEDIUM"
    if score > 0:
        return "LOW"
    return "NONE"
