"""Counting merge conflicts the way CooperBench does (seed 003), as pure functions.

Seed 003: ``conflict_score = conflict_sections * 20 + conflict_lines * 2``.

Counting rule (CooperBench's, over the content of the files git left conflicted):

* a line starting with ``<<<<<<< `` opens a section (+1 section);
* inside a section, the separator ``=======`` is skipped and a line starting with
  ``>>>>>>> `` closes the section;
* every other line inside a section counts +1 conflict line (both sides' lines).

Git is always run with ``merge.conflictStyle=merge`` (see :mod:`arena_bot.merge.gitmerge`), so
there is no ``|||||||`` base part; were there one, its lines would count like any other
line inside the section, as they do in CooperBench.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from arena_bot.models.evaluation import ConflictDetails

Severity = Literal["NONE", "LOW", "MEDIUM", "HIGH", "CRITICAL"]

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


def conflict_score(details: ConflictDetails) -> int:
    """Seed 003: ``conflict_sections * 20 + conflict_lines * 2``."""
    return details.conflict_sections * SECTION_WEIGHT + details.conflict_lines * LINE_WEIGHT


def severity(score: int) -> Severity:
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
