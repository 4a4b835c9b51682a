"""CooperBench's conflict counting, score and severity bands."""

from __future__ import annotations

import pytest

from arena_bot.merge.conflicts import conflict_score, count_conflicts, severity
from arena_bot.models.evaluation import ConflictDetails

ONE_SECTION = """\
keep
<<<<<<< HEAD
ours 1
ours 2
=======
theirs 1
>>>>>>> agent1
keep
"""


def test_one_section_counts_both_sides_but_not_markers() -> None:
    details = count_conflicts([ONE_SECTION])
    assert details == ConflictDetails(
        conflict_sections=1, conflict_lines=3, avg_lines_per_conflict=3.0
    )


def test_sections_add_up_over_files() -> None:
    two = ONE_SECTION + "<<<<<<< HEAD\n=======\nonly theirs\n>>>>>>> agent1\n"
    details = count_conflicts([two, ONE_SECTION])
    assert details.conflict_sections == 3
    assert details.conflict_lines == 3 + 1 + 3
    assert details.avg_lines_per_conflict == pytest.approx(7 / 3)


def test_no_sections_means_zero_average_not_division_by_zero() -> None:
    assert count_conflicts(["plain\n", ""]) == ConflictDetails()
    assert count_conflicts([]) == ConflictDetails()


def test_marker_like_lines_outside_sections_are_ignored() -> None:
    text = "=======\n>>>>>>> stray\nx\n<<<<<<<no-space\n"
    assert count_conflicts([text]).conflict_sections == 0
    assert count_conflicts([text]).conflict_lines == 0


def test_section_left_open_ends_with_its_file() -> None:
    details = count_conflicts(["<<<<<<< HEAD\na\nb\n", "c\n"])
    assert (details.conflict_sections, details.conflict_lines) == (1, 2)


def test_crlf_separator_is_still_a_separator() -> None:
    text = "<<<<<<< HEAD\r\na\r\n=======\r\nb\r\n>>>>>>> x\r\n"
    assert count_conflicts([text]).conflict_lines == 2


def test_score_is_sections_times_20_plus_lines_times_2() -> None:
    details = ConflictDetails(conflict_sections=2, conflict_lines=11, avg_lines_per_conflict=5.5)
    assert conflict_score(details) == 62  # seed 003's example counts


@pytest.mark.parametrize(
    ("score", "band"),
    [(0, "NONE"), (1, "LOW"), (20, "LOW"), (21, "MEDIUM"), (50, "MEDIUM"), (51, "HIGH"),
     (100, "HIGH"), (101, "CRITICAL")],
)
def test_severity_bands(score: int, band: str) -> None:
    assert severity(score) == band
