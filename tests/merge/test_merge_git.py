"""The git part of merge analysis on real repositories with crafted patches."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from support.gitrepo import git_run

from arena_bot.core.errors import MergeError
from arena_bot.merge.gitmerge import merge_patches

# Ten well-separated blocks, so edits to different blocks never touch the same hunk.
BLOCKS = [f"def f{n}():\n    return {n}\n" for n in range(10)]
SPACER = "\n\n# ---- spacer ----\n# ---- spacer ----\n# ---- spacer ----\n\n"
APP = SPACER.join(BLOCKS)
UTIL = "".join(f"line {n}\n" for n in range(30))
BASE_FILES = {"app.py": APP, "util.txt": UTIL, "README.md": "# demo\n"}


def edit_block(number: int, body: str) -> str:
    """APP with block ``number`` replaced by ``body``."""
    blocks = list(BLOCKS)
    blocks[number] = body
    return SPACER.join(blocks)


def edit_lines(text: str, changes: dict[int, str]) -> str:
    lines = text.splitlines(keepends=True)
    for index, replacement in changes.items():
        lines[index] = replacement
    return "".join(lines)


def test_clean_merge_of_edits_to_different_files(make_base) -> None:
    base = make_base(BASE_FILES)
    patch1 = base.patch({"app.py": edit_block(0, "def f0():\n    return 100\n")})
    patch2 = base.patch({"util.txt": edit_lines(UTIL, {5: "line five\n"})})

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert (outcome.status, outcome.strategy) == ("clean", "ort")
    assert outcome.details.conflict_sections == 0
    assert outcome.details.conflict_lines == 0
    assert outcome.details.avg_lines_per_conflict == 0.0
    assert (outcome.agent1.status, outcome.agent2.status) == ("clean", "clean")
    merged = base.apply(outcome.merged_diff)
    assert "return 100" in (merged / "app.py").read_text()
    assert "line five\n" in (merged / "util.txt").read_text()
    # The base commit, not the branch tip, is what was merged on.
    assert not (merged / "LATER.txt").exists()
    assert "LATER.txt" not in outcome.merged_diff


def test_one_conflict_section(make_base) -> None:
    base = make_base(BASE_FILES)
    patch1 = base.patch({"app.py": edit_block(3, "def f3():\n    return 'agent one'\n")})
    patch2 = base.patch({"app.py": edit_block(3, "def f3():\n    return 'agent two'\n")})

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    # <<<<<<< HEAD / agent two / ======= / agent one / >>>>>>> agent1
    assert outcome.status == "conflicts"
    assert outcome.details.conflict_sections == 1
    assert outcome.details.conflict_lines == 2
    assert outcome.details.avg_lines_per_conflict == 2.0
    assert outcome.conflicted_files == ("app.py",)
    # The union retry keeps both sides (ours = agent 2 first).
    assert outcome.strategy == "union"
    merged = (base.apply(outcome.merged_diff) / "app.py").read_text()
    assert "    return 'agent two'\n    return 'agent one'\n" in merged
    assert "<<<<<<<" not in merged


def test_several_sections_in_several_files(make_base) -> None:
    base = make_base(BASE_FILES)
    patch1 = base.patch(
        {
            "app.py": SPACER.join(
                [*BLOCKS[:2], "def f2():\n    return 'one'\n", *BLOCKS[3:7],
                 "def f7():\n    x = 1\n    return x\n", *BLOCKS[8:]]
            ),
            "util.txt": edit_lines(UTIL, {10: "ten (one)\n", 11: "eleven (one)\n",
                                          12: "twelve (one)\n"}),
        }
    )
    patch2 = base.patch(
        {
            "app.py": SPACER.join(
                [*BLOCKS[:2], "def f2():\n    return 'two'\n", *BLOCKS[3:7],
                 "def f7():\n    return 'two'\n", *BLOCKS[8:]]
            ),
            "util.txt": edit_lines(UTIL, {10: "ten (two)\n", 11: "eleven (two)\n",
                                          12: "twelve (two)\n"}),
        }
    )

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    # app.py: f2 body 1+1 lines; f7 body 1 (two) + 2 (one) lines; util.txt: 3+3 lines.
    assert outcome.status == "conflicts"
    assert outcome.details.conflict_sections == 3
    assert outcome.details.conflict_lines == 2 + 3 + 6
    assert outcome.details.avg_lines_per_conflict == round(11 / 3, 2)  # as CooperBench rounds
    assert set(outcome.conflicted_files) == {"app.py", "util.txt"}
    assert outcome.strategy == "union"


def test_identical_patches_merge_cleanly(make_base) -> None:
    base = make_base(BASE_FILES)
    patch = base.patch({"app.py": edit_block(1, "def f1():\n    return 'same'\n")})

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch, patch2=patch
    )

    assert (outcome.status, outcome.strategy) == ("clean", "ort")
    assert outcome.details.conflict_sections == 0
    merged = (base.apply(outcome.merged_diff) / "app.py").read_text()
    assert merged.count("return 'same'") == 1


def test_patch_that_does_not_apply(make_base) -> None:
    base = make_base(BASE_FILES)
    good = base.patch({"util.txt": edit_lines(UTIL, {0: "zero\n"})})
    bad = (
        "diff --git a/app.py b/app.py\n"
        "--- a/app.py\n"
        "+++ b/app.py\n"
        "@@ -1,2 +1,2 @@\n"
        " def nothing_like_this():\n"
        "-    return 'not in the file'\n"
        "+    return 'changed'\n"
    )

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=good, patch2=bad
    )

    assert (outcome.status, outcome.strategy) == ("apply_failed", "none")
    assert (outcome.agent1.status, outcome.agent2.status) == ("clean", "failed")
    assert outcome.agent2.message is not None and "app.py" in outcome.agent2.message
    assert outcome.merged_diff == ""
    assert not outcome.testable
    reason = outcome.failure_reason()
    assert reason is not None and reason.startswith("agent2's patch did not apply")


def test_first_patch_failing_still_reports_the_second(make_base) -> None:
    base = make_base(BASE_FILES)
    bad = "diff --git a/nope.py b/nope.py\n--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n"
    good = base.patch({"util.txt": edit_lines(UTIL, {0: "zero\n"})})

    outcome = merge_patches(base_repo=base.path, base_commit=base.commit, patch1=bad, patch2=good)

    assert outcome.status == "apply_failed"
    assert (outcome.agent1.status, outcome.agent2.status) == ("failed", "clean")


def test_patch_applied_with_three_way_fallback(make_base) -> None:
    base = make_base(BASE_FILES)
    # Agent 2 wrote its patch on a newer version of util.txt (line 23 differs), so its
    # context does not match the base: plain `git apply` refuses, `--3way` finds the
    # preimage blob named in the index line and merges the change in.
    newer = edit_lines(UTIL, {23: "line 23 (newer)\n"})
    (base.path / "util.txt").write_text(newer)
    base.git("commit", "--quiet", "-am", "newer util")
    newer_commit = base.git("rev-parse", "HEAD").strip()
    patch1 = base.patch({"util.txt": edit_lines(UTIL, {3: "three\n"})})
    patch2 = base.patch({"util.txt": edit_lines(newer, {26: "twenty-six\n"})}, start=newer_commit)
    assert " line 23 (newer)\n" in patch2

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert (outcome.agent1.status, outcome.agent2.status) == ("clean", "three_way")
    assert (outcome.status, outcome.strategy) == ("clean", "ort")
    merged = (base.apply(outcome.merged_diff) / "util.txt").read_text()
    assert "three\n" in merged and "twenty-six\n" in merged
    assert "newer" not in merged


def test_patch_with_windows_line_endings_applies_ignoring_whitespace(make_base) -> None:
    """Saved with CRLF line endings, a patch's context matches the base only with whitespace
    ignored; it goes on as the evaluation harness (and CooperBench's runner.sh) applies it."""
    base = make_base(BASE_FILES)
    patch1 = base.patch({"util.txt": edit_lines(UTIL, {3: "three\n"})})
    patch2 = base.patch({"app.py": edit_block(5, "def f5():\n    return 55\n")})
    outcome = merge_patches(base_repo=base.path, base_commit=base.commit, patch1=patch1,
                            patch2=patch2.replace("\n", "\r\n"))

    assert (outcome.agent1.status, outcome.agent2.status) == ("clean", "whitespace")
    assert (outcome.status, outcome.strategy) == ("clean", "ort")
    assert "return 55" in (base.apply(outcome.merged_diff) / "app.py").read_text()


def test_binary_conflict_cannot_be_resolved_by_union(make_base) -> None:
    base = make_base({**BASE_FILES, "logo.bin": bytes(range(256)) * 4})
    patch1 = base.patch(
        {"logo.bin": b"\x00agent one" + bytes(range(256)), "app.py": edit_block(0, "x = 1\n")}
    )
    patch2 = base.patch(
        {"logo.bin": b"\x00agent two" + bytes(range(256)), "app.py": edit_block(0, "x = 2\n")}
    )
    assert "GIT binary patch" in patch1

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert outcome.status == "conflicts"
    assert outcome.strategy == "none"
    # Binary conflicts leave no markers: only app.py's section is counted.
    assert outcome.details.conflict_sections == 1
    assert outcome.details.conflict_lines == 2
    assert set(outcome.conflicted_files) == {"app.py", "logo.bin"}
    assert outcome.unresolved_files == ("logo.bin",)
    assert outcome.merged_diff == ""
    assert "logo.bin" in (outcome.failure_reason() or "")


def test_binary_hunks_merge_cleanly_when_they_do_not_overlap(make_base) -> None:
    base = make_base(BASE_FILES)
    picture = bytes(range(256)) * 3
    patch1 = base.patch({"assets/picture.bin": picture})
    patch2 = base.patch({"README.md": "# demo\n\nwith a picture\n"})

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert (outcome.status, outcome.strategy) == ("clean", "ort")
    assert "GIT binary patch" in outcome.merged_diff
    merged = base.apply(outcome.merged_diff)
    assert (merged / "assets" / "picture.bin").read_bytes() == picture


def test_rename_on_one_side_edit_on_the_other(make_base) -> None:
    base = make_base(BASE_FILES)
    patch1 = base.patch({}, renames={"util.txt": "lib/util.txt"})
    patch2 = base.patch({"util.txt": edit_lines(UTIL, {7: "seven, edited\n"})})
    assert "rename from util.txt" in patch1

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert (outcome.status, outcome.strategy) == ("clean", "ort")
    merged = base.apply(outcome.merged_diff)
    assert not (merged / "util.txt").exists()
    assert "seven, edited\n" in (merged / "lib" / "util.txt").read_text()


def test_test_files_are_dropped_before_merging(make_base) -> None:
    base = make_base({**BASE_FILES, "tests/test_app.py": "def test_x():\n    pass\n"})
    # Both agents edit the same test file differently: dropped, so no conflict.
    patch1 = base.patch(
        {"tests/test_app.py": "def test_x():\n    assert 1\n", "app.py": edit_block(0, "a = 1\n"),
         "pkg/conftest.py": "X = 1\n"}
    )
    patch2 = base.patch(
        {"tests/test_app.py": "def test_x():\n    assert 2\n", "README.md": "# two\n"}
    )

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert (outcome.status, outcome.strategy) == ("clean", "ort")
    assert outcome.agent1.dropped_test_files == ("pkg/conftest.py", "tests/test_app.py")
    assert outcome.agent2.dropped_test_files == ("tests/test_app.py",)
    assert "tests/test_app.py" not in outcome.merged_diff
    assert "conftest.py" not in outcome.merged_diff


def test_patch_of_only_test_files_is_missing(make_base) -> None:
    base = make_base(BASE_FILES)
    only_tests = base.patch({"tests/test_new.py": "def test_new():\n    pass\n"})
    other = base.patch({"README.md": "# two\n"})

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=other, patch2=only_tests
    )

    assert outcome.status == "apply_failed"
    assert outcome.agent2.status == "missing"
    assert "agent2's patch is empty" in (outcome.failure_reason() or "")


def test_patch_of_only_test_files_after_an_agents_prose_is_missing(make_base) -> None:
    # An agent's answer as submitted: the diff inside a Markdown fence (a git-format test file
    # only). git apply ignores the prose; once the test file is dropped nothing is left.
    base = make_base(BASE_FILES)
    only_tests = base.patch({"tests/test_new.py": "def test_new():\n    pass\n"})
    other = base.patch({"README.md": "# two\n"})

    outcome = merge_patches(base_repo=base.path, base_commit=base.commit, patch1=other,
                            patch2=f"Here is the fix:\n\n```diff\n{only_tests}```\n")

    assert outcome.agent2.status == "missing", outcome.agent2.message
    assert outcome.agent2.message == "only test files, which are dropped before merging"
    assert "agent2's patch is empty" in (outcome.failure_reason() or "")


def test_base_repository_is_left_untouched_and_temp_removed(
    make_base, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = make_base(BASE_FILES)
    before = (
        base.git("rev-parse", "HEAD"),
        base.git("for-each-ref"),
        base.git("status", "--porcelain", "--ignored"),
    )
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(workdir))  # the throwaway repository's home
    patch1 = base.patch({"app.py": edit_block(3, "a = 1\n")})
    patch2 = base.patch({"app.py": edit_block(3, "a = 2\n")})

    merge_patches(base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2)

    after = (
        base.git("rev-parse", "HEAD"),
        base.git("for-each-ref"),
        base.git("status", "--porcelain", "--ignored"),
    )
    assert after == before
    assert not (base.path / ".git" / "info" / "attributes").exists()
    assert list(workdir.iterdir()) == []


def test_unknown_base_commit_is_a_merge_error(make_base) -> None:
    base = make_base(BASE_FILES)
    patch = base.patch({"README.md": "# x\n"})

    with pytest.raises(MergeError, match="cannot check out base commit"):
        merge_patches(
            base_repo=base.path, base_commit="0" * 40, patch1=patch, patch2=patch
        )


def test_not_a_repository_is_a_merge_error(tmp_path: Path) -> None:
    with pytest.raises(MergeError, match="not a git repository"):
        merge_patches(base_repo=tmp_path, base_commit="0" * 40, patch1="", patch2="")


def literal_cooperbench_merge(base, patch1: str, patch2: str) -> tuple[int, int, str]:
    """CooperBench's procedure, literally: branches, `git merge agent1 --no-commit --no-ff`
    on agent2, counting over the conflicted files in the working tree, then the union retry.
    Returns (sections, lines, merged app.py after the union retry)."""
    from arena_bot.merge.conflicts import count_conflicts

    work = base.apply("")
    run = _runner(work)
    run("checkout", "--quiet", "-b", "agent1")
    run("apply", "--index", "-", input_text=patch1)
    run("commit", "--quiet", "-m", "agent1")
    run("checkout", "--quiet", "-b", "agent2", base.commit)
    run("apply", "--index", "-", input_text=patch2)
    run("commit", "--quiet", "-m", "agent2")
    run("merge", "agent1", "--no-commit", "--no-ff", check=False)
    conflicted = run("diff", "--name-only", "--diff-filter=U").split()
    details = count_conflicts((work / name).read_text() for name in conflicted)
    run("merge", "--abort")
    (work / ".git" / "info" / "attributes").write_text("* merge=union\n")
    run("merge", "agent1", "--no-commit", "--no-ff")
    return details.conflict_sections, details.conflict_lines, (work / "app.py").read_text()


def _runner(work: Path):
    def run(*args: str, input_text: str | None = None, check: bool = True) -> str:
        done = git_run(*args, cwd=work, input_text=input_text)
        assert done.returncode == 0 or not check, done.stderr
        return done.stdout

    return run


@pytest.mark.parametrize(
    ("edits1", "edits2"),
    [
        ({3: "def f3():\n    return 'one'\n"}, {3: "def f3():\n    return 'two'\n"}),
        (
            {2: "def f2():\n    a = 1\n    return a\n", 7: "x = 7\n", 9: "def f9():\n    pass\n"},
            {2: "def f2():\n    return 2\n", 7: "y = 7\nz = 8\n", 8: "def f8():\n    pass\n"},
        ),
        ({0: "import os\n" + BLOCKS[0]}, {0: "import sys\n" + BLOCKS[0], 5: "five = 5\n"}),
    ],
)
def test_counts_and_union_result_match_a_literal_git_merge(
    make_base, edits1: dict[int, str], edits2: dict[int, str]
) -> None:
    base = make_base(BASE_FILES)

    def apply_edits(edits: dict[int, str]) -> str:
        blocks = list(BLOCKS)
        for number, body in edits.items():
            blocks[number] = body
        return SPACER.join(blocks)

    patch1 = base.patch({"app.py": apply_edits(edits1)})
    patch2 = base.patch({"app.py": apply_edits(edits2)})
    sections, lines, union_app = literal_cooperbench_merge(base, patch1, patch2)

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert sections > 0
    assert outcome.details.conflict_sections == sections
    assert outcome.details.conflict_lines == lines
    assert outcome.strategy == "union"
    assert (base.apply(outcome.merged_diff) / "app.py").read_text() == union_app


@pytest.mark.parametrize(
    "path",
    ["../outside.txt", ".git/config", "/etc/hostname"],
)
def test_patch_escaping_the_repository_does_not_apply(make_base, tmp_path: Path, path: str) -> None:
    base = make_base(BASE_FILES)
    good = base.patch({"README.md": "# fine\n"})
    hostile = (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        "@@ -0,0 +1 @@\n+owned\n"
    )

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=good, patch2=hostile
    )

    assert outcome.status == "apply_failed"
    assert outcome.agent2.status == "failed"
    assert not (tmp_path / "outside.txt").exists()
    assert "owned" not in (base.path / ".git" / "config").read_text()


def test_symlink_and_mode_changes_merge_without_touching_disk(make_base) -> None:
    base = make_base({**BASE_FILES, "run.sh": "echo hi\n"})
    patch1 = (
        "diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n"
        "@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n"
    )
    patch2 = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert (outcome.status, outcome.strategy) == ("clean", "ort")
    assert "new file mode 120000" in outcome.merged_diff
    assert "new mode 100755" in outcome.merged_diff


def test_inherited_git_variables_cannot_redirect_the_analysis(
    make_base, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    base = make_base(BASE_FILES)
    patch1 = base.patch({"app.py": edit_block(3, "a = 1\n")})
    patch2 = base.patch({"app.py": edit_block(3, "a = 2\n")})
    refs_before = base.git("for-each-ref")
    # As inside a git hook of the base repository (or a CI step that exports them).
    monkeypatch.setenv("GIT_DIR", str(base.path / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(base.path))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "foreign-index"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'merge.conflictstyle'='diff3'")

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    monkeypatch.undo()
    assert (outcome.details.conflict_sections, outcome.details.conflict_lines) == (1, 2)
    assert base.git("for-each-ref") == refs_before
    assert not (base.path / ".git" / "info" / "attributes").exists()
    assert not (tmp_path / "foreign-index").exists()


def test_bare_and_linked_work_tree_base_repositories(make_base, tmp_path: Path) -> None:
    base = make_base(BASE_FILES)
    bare = tmp_path / "bare.git"
    base.git("clone", "--quiet", "--bare", str(base.path), str(bare))
    linked = tmp_path / "linked"
    base.git("worktree", "add", "--quiet", "--detach", str(linked), base.commit)
    patch1 = base.patch({"app.py": edit_block(0, "x = 1\n")})
    patch2 = base.patch({"README.md": "# two\n"})

    for repository in (bare, linked):
        outcome = merge_patches(
            base_repo=repository, base_commit=base.commit[:12], patch1=patch1, patch2=patch2
        )
        assert (outcome.status, outcome.strategy) == ("clean", "ort"), repository


def test_only_conflicted_files_are_counted_even_with_glob_characters(make_base) -> None:
    # ab.txt holds marker-like lines of its own; a pathspec "a*.txt" would also match it.
    markers = "<<<<<<< not a conflict\nx\n=======\ny\n>>>>>>> fixture\n"
    base = make_base({**BASE_FILES, "a*.txt": UTIL, "ab.txt": markers})
    patch1 = base.patch({"a*.txt": edit_lines(UTIL, {4: "four (one)\n"})})
    patch2 = base.patch({"a*.txt": edit_lines(UTIL, {4: "four (two)\n"})})

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert outcome.conflicted_files == ("a*.txt",)
    assert (outcome.details.conflict_sections, outcome.details.conflict_lines) == (1, 2)


def test_add_add_conflict_is_counted_and_union_resolves_it(make_base) -> None:
    base = make_base(BASE_FILES)
    patch1 = base.patch({"new.py": "ONE = 1\nTWO = 2\nTHREE = 3\n"})
    patch2 = base.patch({"new.py": "A = 'a'\nB = 'b'\n"})

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert outcome.status == "conflicts"
    assert outcome.conflicted_files == ("new.py",)
    assert (outcome.details.conflict_sections, outcome.details.conflict_lines) == (1, 5)
    assert outcome.strategy == "union"
    merged = (base.apply(outcome.merged_diff) / "new.py").read_text()
    assert merged == "A = 'a'\nB = 'b'\nONE = 1\nTWO = 2\nTHREE = 3\n"


def test_modify_delete_conflict_has_no_markers_and_stays_unresolved(make_base) -> None:
    base = make_base(BASE_FILES)
    patch1 = base.patch({"util.txt": None})
    patch2 = base.patch({"util.txt": edit_lines(UTIL, {2: "two\n"})})

    outcome = merge_patches(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2
    )

    assert (outcome.status, outcome.strategy) == ("conflicts", "none")
    assert outcome.details.conflict_sections == 0
    assert outcome.unresolved_files == ("util.txt",)
