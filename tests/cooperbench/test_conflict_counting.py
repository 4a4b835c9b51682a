"""Conflict counts equal CooperBench v0.1's: the literal CooperBench git sequence runs beside
``merge_patches`` on every case, including sides that delete lines inside a conflict."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.gitrepo import git, git_run

from arena_bot.merge.conflicts import conflict_score, count_diff_conflicts
from arena_bot.merge.gitmerge import merge_patches
from arena_bot.models.evaluation import ConflictDetails

BASE = {
    "a.py": "".join(f"line {i}\n" for i in range(1, 21)),
    "b.py": "".join(f"value_{i} = {i}\n" for i in range(1, 16)),
}




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


# The conflicting cases of tests/merge (test_merge_git.py, test_merge_coop.py), restated on
# their own base files so that every merge test case also runs beside CooperBench's sequence.
_BLOCKS = [f"def f{n}():\n    return {n}\n" for n in range(10)]
_SPACER = "\n\n# ---- spacer ----\n# ---- spacer ----\n# ---- spacer ----\n\n"
_UTIL = "".join(f"line {n}\n" for n in range(30))
MERGE_BASE = {"app.py": _SPACER.join(_BLOCKS), "util.txt": _UTIL, "README.md": "# demo\n"}
_SHOP = "def limit():\n    return 10\n\n\ndef price(amount):\n    return amount * 2\n"
SHOP_BASE = {"shop.py": _SHOP}


def _blocks(edits: dict[int, str]) -> str:
    blocks = list(_BLOCKS)
    for number, body in edits.items():
        blocks[number] = body
    return _SPACER.join(blocks)


def _util(edits: dict[int, str]) -> str:
    lines = _UTIL.splitlines(keepends=True)
    for index, text in edits.items():
        lines[index] = text
    return "".join(lines)


#: name -> (base files, agent 1's files, agent 2's files)
MERGE_SUITE_CASES = {
    "merge_git_one_section": (
        MERGE_BASE, {"app.py": _blocks({3: "def f3():\n    return 'agent one'\n"})},
        {"app.py": _blocks({3: "def f3():\n    return 'agent two'\n"})},
    ),
    "merge_git_several_sections_in_several_files": (
        MERGE_BASE,
        {"app.py": _blocks({2: "def f2():\n    return 'one'\n",
                            7: "def f7():\n    x = 1\n    return x\n"}),
         "util.txt": _util({10: "ten (one)\n", 11: "eleven (one)\n", 12: "twelve (one)\n"})},
        {"app.py": _blocks({2: "def f2():\n    return 'two'\n",
                            7: "def f7():\n    return 'two'\n"}),
         "util.txt": _util({10: "ten (two)\n", 11: "eleven (two)\n", 12: "twelve (two)\n"})},
    ),
    "merge_git_literal_1": (
        MERGE_BASE, {"app.py": _blocks({3: "def f3():\n    return 'one'\n"})},
        {"app.py": _blocks({3: "def f3():\n    return 'two'\n"})},
    ),
    "merge_git_literal_2": (
        MERGE_BASE,
        {"app.py": _blocks({2: "def f2():\n    a = 1\n    return a\n", 7: "x = 7\n",
                            9: "def f9():\n    pass\n"})},
        {"app.py": _blocks({2: "def f2():\n    return 2\n", 7: "y = 7\nz = 8\n",
                            8: "def f8():\n    pass\n"})},
    ),
    "merge_git_literal_3": (
        MERGE_BASE, {"app.py": _blocks({0: "import os\n" + _BLOCKS[0]})},
        {"app.py": _blocks({0: "import sys\n" + _BLOCKS[0], 5: "five = 5\n"})},
    ),
    "merge_coop_append_at_end": (
        SHOP_BASE,
        {"shop.py": _SHOP.replace("return 10", "return 20")
         + "\n\ndef extra_one():\n    return 1\n"},
        {"shop.py": _SHOP + "\n\ndef discount(amount):\n    return amount - 1\n"},
    ),
    "merge_coop_union_failing": (
        SHOP_BASE, {"shop.py": _SHOP.replace("return 10", "return 20")},
        {"shop.py": _SHOP.replace("return 10", "return 30")},
    ),
    "merge_cli_conflicting_patches": (
        {"calc.py": "VERSION = 2\n\n\ndef add(a, b):\n    return a + b\n"},
        {"calc.py": "VERSION = 2\n\n\ndef add(a, b):\n    return b + a\n"},
        {"calc.py": "VERSION = 2\n\n\ndef add(a, b):\n    return sum((a, b))\n"},
    ),
}


def _repo(tmp: Path, base: dict[str, str] = BASE) -> tuple[Path, str]:
    repo = tmp / "base"
    repo.mkdir()
    git("init", "--quiet", "--initial-branch=main", cwd=repo)
    for name, text in base.items():
        (repo / name).write_text(text)
    git("add", "-A", cwd=repo)
    git("commit", "--quiet", "-m", "base", cwd=repo)
    return repo, git("rev-parse", "HEAD", cwd=repo).strip()


def _branch(repo: Path, name: str, files: dict[str, str]) -> str:
    """Commit ``files`` on branch ``name`` from main; return the patch against main."""
    git("checkout", "--quiet", "-B", name, "main", cwd=repo)
    for path, text in files.items():
        (repo / path).write_text(text)
    git("commit", "--quiet", "-am", name, cwd=repo)
    return git("diff", "main", name, cwd=repo)


def _cooperbench_sequence(repo: Path) -> ConflictDetails:
    """CooperBench v0.1: feature2's workspace merges feature1 with --no-commit --no-ff and the
    work tree's `git diff` is counted (markers in the default ``merge`` style)."""
    git("checkout", "--quiet", "feature2", cwd=repo)
    merged = git_run("merge", "feature1", "--no-commit", "--no-ff", cwd=repo)
    assert "CONFLICT (content)" in merged.stdout
    details = count_diff_conflicts(git("diff", cwd=repo))
    git("merge", "--abort", cwd=repo)
    return details


ALL_CASES = {**{name: (BASE, *files) for name, files in CASES.items()}, **MERGE_SUITE_CASES}


@pytest.mark.parametrize("case", sorted(ALL_CASES))
def test_counts_equal_the_cooperbench_sequence(case: str, tmp_path: Path) -> None:
    base_files, files1, files2 = ALL_CASES[case]
    repo, base = _repo(tmp_path, base_files)
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


SAMPLES = Path(__file__).parent.parent.parent / "dataset"


def _sample_pairs() -> list[tuple[str, int, int]]:
    from arena_bot.tasks.dataset import Dataset

    pairs = []
    for task in Dataset(SAMPLES).all():
        ids = task.spec.feature_ids()
        pairs += [(task.id, i, j) for i in ids for j in ids if i < j]
    return pairs


@pytest.mark.parametrize(("task_id", "first", "second"), _sample_pairs())
def test_sample_gold_pairs_count_as_cooperbench(task_id: str, first: int, second: int,
                                                tmp_path: Path) -> None:
    """The shipped tasks' gold patches, paired as coop runs pair them: the same counts as the
    literal sequence, conflicting (slugkit-options) or clean."""
    from arena_bot.tasks.dataset import load_task

    task = load_task(SAMPLES / task_id)
    assert task.bundle is not None
    repo = tmp_path / "repo"
    git("clone", "--quiet", str(task.bundle), str(repo), cwd=tmp_path)
    base = task.spec.source.commit
    patches = {}
    for name, fid in (("feature1", first), ("feature2", second)):
        patch = task.feature(fid).gold_patch.read_text()
        git("checkout", "--quiet", "-B", name, base, cwd=repo)
        git("apply", "--index", "-", input_text=patch, cwd=repo)
        git("commit", "--quiet", "-m", name, cwd=repo)
        patches[name] = patch
    git("checkout", "--quiet", "feature2", cwd=repo)
    git_run("merge", "feature1", "--no-commit", "--no-ff", cwd=repo)
    expected = count_diff_conflicts(git("diff", cwd=repo))
    git_run("merge", "--abort", cwd=repo)
    outcome = merge_patches(base_repo=repo, base_commit=base, patch1=patches["feature1"],
                            patch2=patches["feature2"])
    assert outcome.details == expected
    assert conflict_score(outcome.details) == conflict_score(expected)
    assert (outcome.status == "conflicts") == (expected.conflict_sections > 0)
    if task_id == "slugkit-options":  # dataset/README.md: its two gold patches conflict
        assert expected.conflict_sections >= 1
