"""Conflict counts equal CooperBench v0.1's: the literal CooperBench git sequence runs beside
``merge_patches`` on every case, including sides that delete lines inside a conflict."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from arena_bot.merge.conflicts import conflict_score, count_diff_conflicts
from arena_bot.merge.gitmerge import merge_patches
from arena_bot.models.evaluation import ConflictDetails

_ENV = {
    **os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@localhost",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@localhost",
}

BASE = {
    "a.py": "".join(f"line {i}\n" for i in range(1, 21)),
    "b.py": "".join(f"value_{i} = {i}\n" for i in range(1, 16)),
}


def _git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=cwd, env=_ENV, capture_output=True, text=True,
                          check=False)
    assert not check or done.returncode == 0, done.stderr
    return done


def _replace(text: str, start: int, stop: int, new: list[str]) -> str:
    """Lines ``start..stop`` (1-based, inclusive) of ``text`` replaced by ``new``."""
    lines = text.splitlines(keepends=True)
    return "".join(lines[: start - 1] + [f"{n}\n" for n in new] + lines[stop:])


#: Each case: the files agent 1 and agent 2 end up with (None: unchanged).
CASES = {
    "agent1_deletes_inside_conflict": (
        {"a.py": _replace(BASE["a.py"], 5, 10, ["one"])},
        {"a.py": _replace(BASE["a.py"], 6, 7, ["two", "two b"])},
    ),
    "both_delete_inside_conflict": (
        {"a.py": _replace(BASE["a.py"], 5, 12, ["one"])},
        {"a.py": _replace(BASE["a.py"], 4, 9, [])},
    ),
    "deletions_in_several_files": (
        {"a.py": _replace(BASE["a.py"], 2, 6, ["x"]),
         "b.py": _replace(_replace(BASE["b.py"], 12, 14, []), 3, 5, ["y1", "y2"])},
        {"a.py": _replace(BASE["a.py"], 3, 4, []),
         "b.py": _replace(_replace(BASE["b.py"], 13, 13, ["z"]), 4, 4, [])},
    ),
    "plain_replacements": (
        {"a.py": _replace(BASE["a.py"], 10, 10, ["ten from one"])},
        {"a.py": _replace(BASE["a.py"], 10, 10, ["ten from two", "more"])},
    ),
}


def _repo(tmp: Path) -> tuple[Path, str]:
    repo = tmp / "base"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=main")
    for name, text in BASE.items():
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "--quiet", "-m", "base")
    return repo, _git(repo, "rev-parse", "HEAD").stdout.strip()


def _branch(repo: Path, name: str, files: dict[str, str]) -> str:
    """Commit ``files`` on branch ``name`` from main; return the patch against main."""
    _git(repo, "checkout", "--quiet", "-B", name, "main")
    for path, text in files.items():
        (repo / path).write_text(text)
    _git(repo, "commit", "--quiet", "-am", name)
    return _git(repo, "diff", "main", name).stdout


def _cooperbench_sequence(repo: Path) -> ConflictDetails:
    """CooperBench v0.1: feature2's workspace merges feature1 with --no-commit --no-ff and the
    work tree's `git diff` is counted (markers in the default ``merge`` style)."""
    _git(repo, "checkout", "--quiet", "feature2")
    merged = _git(repo, "merge", "feature1", "--no-commit", "--no-ff", check=False)
    assert "CONFLICT (content)" in merged.stdout
    details = count_diff_conflicts(_git(repo, "diff").stdout)
    _git(repo, "merge", "--abort")
    return details


@pytest.mark.parametrize("case", sorted(CASES))
def test_counts_equal_the_cooperbench_sequence(case: str, tmp_path: Path) -> None:
    repo, base = _repo(tmp_path)
    files1, files2 = CASES[case]
    patch1 = _branch(repo, "feature1", files1)
    patch2 = _branch(repo, "feature2", files2)
    expected = _cooperbench_sequence(repo)
    outcome = merge_patches(base_repo=repo, base_commit=base, patch1=patch1, patch2=patch2)
    assert outcome.status == "conflicts"
    assert outcome.details == expected
    assert conflict_score(outcome.details) == conflict_score(expected)
    assert expected.conflict_sections >= 1


def test_seed_counting_is_kept_as_an_option_and_can_differ(tmp_path: Path) -> None:
    """CooperBench's substring rule skips any line containing ``=======`` (a reST underline
    inside a conflict); the seed's count over the files, kept as ``counting="files"``, counts
    it. The default follows CooperBench."""
    repo, base = _repo(tmp_path)
    patch1 = _branch(repo, "feature1", {"a.py": _replace(BASE["a.py"], 5, 5, ["Title", "=" * 10])})
    patch2 = _branch(repo, "feature2", {"a.py": _replace(BASE["a.py"], 5, 5, ["Other"])})
    expected = _cooperbench_sequence(repo)
    ours = merge_patches(base_repo=repo, base_commit=base, patch1=patch1, patch2=patch2)
    seed = merge_patches(base_repo=repo, base_commit=base, patch1=patch1, patch2=patch2,
                         counting="files")
    assert ours.details == expected
    assert (ours.details.conflict_lines, seed.details.conflict_lines) == (2, 3)


def test_diff_rule_on_literal_combined_diff_text() -> None:
    text = (
        "diff --cc a.py\n"
        "@@@ -1,5 -1,5 +1,9 @@@\n"
        "  line 1\n"
        "++<<<<<<< HEAD\n"
        " +two\n"
        "- line 3\n"
        "++=======\n"
        "+ one\n"
        "++>>>>>>> feature1\n"
        "  line 9\n"
    )
    details = count_diff_conflicts(text)
    assert details == ConflictDetails(conflict_sections=1, conflict_lines=3,
                                      avg_lines_per_conflict=3.0)
    assert count_diff_conflicts("") == ConflictDetails()
    two = count_diff_conflicts(text + text.replace("+ one\n", ""))
    assert (two.conflict_sections, two.conflict_lines, two.avg_lines_per_conflict) == (2, 5, 2.5)
