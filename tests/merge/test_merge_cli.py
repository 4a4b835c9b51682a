"""``arena merge`` through click's CliRunner, on the shared fixture task (real git, real Docker)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.gitrepo import git

from arena_bot.cli import main
from arena_bot.tasks.dataset import load_task

SEED_KEYS = {
    "repo_name", "task_id", "timestamp", "feature1", "feature2", "merge_status",
    "conflict_score", "conflict_details",
}


@pytest.fixture
def arena(fixture_task_root: Path, tmp_path: Path):
    """``arena(*args)`` → click Result, with the fixture dataset and a private cache."""
    env = {
        "ARENA_DATASET": str(fixture_task_root),
        "ARENA_CACHE": str(tmp_path / "cache"),
        "ARENA_SUBMISSIONS": str(tmp_path / "submissions"),
    }

    def run(*args: str, extra_env: dict[str, str] | None = None):
        runner = CliRunner()
        return runner.invoke(
            main, ["--root", str(tmp_path), *args], env={**env, **(extra_env or {})}
        )

    return run


@pytest.fixture
def gold(fixture_task_root: Path) -> tuple[Path, Path]:
    task = fixture_task_root / "calc-fixture"
    return task / "feature1" / "feature.patch", task / "feature2" / "feature.patch"


def fixture_patch(
    fixture_task_root: Path, tmp_path: Path, name: str, edits: dict[str, tuple[str, str]]
) -> Path:
    """A patch file made with git on the fixture task's base commit.

    ``edits`` maps a path to (old text, new text); an empty old text creates the file. Made
    from the real base so the patches keep applying when the shared fixture changes.
    """
    task = load_task(fixture_task_root / "calc-fixture")
    work = tmp_path / f"src-{name}"
    git("clone", "--quiet", str(task.bundle), str(work), cwd=tmp_path)
    git("checkout", "--quiet", task.spec.source.commit, cwd=work)
    for path, (old, new) in edits.items():
        target = work / path
        text = target.read_text() if old else ""
        assert old in text
        target.write_text(text.replace(old, new, 1) if old else new)
    git("add", "-A", cwd=work)
    diff = git("diff", "--cached", cwd=work)
    patch = tmp_path / f"{name}.patch"
    patch.write_text(diff)
    return patch


def conflicting_patches(fixture_task_root: Path, tmp_path: Path) -> tuple[Path, Path]:
    """Two agents rewriting ``add``'s body differently (one section of 1 + 1 lines)."""
    first = fixture_patch(fixture_task_root, tmp_path, "one",
                          {"calc.py": ("return a + b", "return b + a")})
    second = fixture_patch(fixture_task_root, tmp_path, "two",
                           {"calc.py": ("return a + b", "return sum((a, b))")})
    return first, second


def test_no_tests_clean_merge_writes_seed_report(arena, gold, tmp_path: Path) -> None:
    output = tmp_path / "report.json"
    result = arena("merge", str(gold[0]), str(gold[1]), "--task", "calc-fixture", "--no-tests",
                   "--output", str(output))

    assert result.exit_code == 0, result.output
    assert "merge: clean (strategy ort)" in result.output
    assert "feature 1: tests not run" in result.output
    report = json.loads(output.read_text())
    assert SEED_KEYS | {"strategy", "severity"} == set(report)
    assert report["task_id"] == "calc-fixture"
    assert report["repo_name"] == "calc-fixture"  # a bundle source has no URL name
    assert report["merge_status"] == "clean"
    assert report["strategy"] == "ort"
    assert report["severity"] == "NONE"
    assert report["conflict_score"] == 0
    assert report["conflict_details"] == {
        "conflict_sections": 0, "conflict_lines": 0, "avg_lines_per_conflict": 0.0
    }
    assert report["feature1"]["number"] == 1 and report["feature2"]["number"] == 2
    assert report["feature1"]["tests_passed"] is None
    assert len(report["timestamp"]) == len("2024-01-15 10:30:00")


def test_no_tests_conflict_counts(arena, fixture_task_root: Path, tmp_path: Path) -> None:
    first, second = conflicting_patches(fixture_task_root, tmp_path)
    output = tmp_path / "report.json"
    result = arena("merge", str(first), str(second), "--task", "calc-fixture", "--no-tests",
                   "--features", "1", "2", "--output", str(output))

    assert result.exit_code == 0, result.output
    assert "merge: conflicts (strategy union)" in result.output
    report = json.loads(output.read_text())
    assert report["conflict_details"]["conflict_sections"] == 1
    assert report["conflict_details"]["conflict_lines"] == 2
    assert report["conflict_score"] == 24
    assert report["severity"] == "MEDIUM"


def test_patch_that_does_not_apply_is_reported(arena, gold, tmp_path: Path) -> None:
    broken = tmp_path / "broken.patch"
    broken.write_text(
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
        "@@ -1,2 +1,2 @@\n def nope(a, b):\n-    return 0\n+    return 1\n"
    )
    output = tmp_path / "report.json"
    result = arena("merge", str(gold[0]), str(broken), "--task", "calc-fixture", "--no-tests",
                   "--output", str(output))

    # reported, then the command fails on its input, naming the file (it exited 0, naming
    # only "agent2")
    assert result.exit_code == 1, result.output
    assert "merge: apply_failed (strategy none)" in result.output
    assert "agent2's patch did not apply" in result.output
    assert f"error: {broken}: the patch does not apply to the task's base commit" in (
        result.output)
    assert "Traceback" not in result.output
    report = json.loads(output.read_text())
    assert report["merge_status"] == "apply_failed"
    assert report["feature2"]["tests_passed"] is False
    assert "did not apply" in report["feature2"]["test_output"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.patch", "{gold2}", "--task", "calc-fixture"], "patch file is missing"),
        (["{link}", "{gold2}", "--task", "calc-fixture"], "patch file is a symbolic link"),
        (["{gold1}", "{gold2}", "--task", "no-such-task"], "unknown task 'no-such-task'"),
        (["{gold1}", "{gold2}", "--task", "calc-fixture", "--features", "2", "1"],
         "agent 1's feature must be the smaller one"),
        (["{gold1}", "{gold2}", "--task", "calc-fixture", "--features", "1", "7"],
         "has no feature 7"),
        (["{binary}", "{gold2}", "--task", "calc-fixture"], "patch is not UTF-8 text"),
        (["{folder}", "{gold2}", "--task", "calc-fixture"], "patch path is not a regular file"),
        (["{gold1}", "{text}", "--task", "calc-fixture"], "text.patch:1: "),
    ],
)
def test_bad_input_is_a_clear_error(
    arena, gold, tmp_path: Path, args: list[str], message: str
) -> None:
    binary = tmp_path / "binary.patch"
    binary.write_bytes(b"diff --git a/x b/x\n\xff\xfe\n")
    text = tmp_path / "text.patch"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n")
    link = tmp_path / "link.patch"
    link.symlink_to(gold[0])  # the same rule as validation: a patch is a file, not a link
    values = {"gold1": str(gold[0]), "gold2": str(gold[1]), "binary": str(binary),
              "folder": str(tmp_path), "text": str(text), "link": str(link)}
    result = arena("merge", *(arg.format(**values) for arg in args), "--no-tests")

    assert result.exit_code == 1, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_unwritable_output_is_a_clear_error(arena, gold, tmp_path: Path) -> None:
    result = arena("merge", str(gold[0]), str(gold[1]), "--task", "calc-fixture", "--no-tests",
                   "--output", str(tmp_path / "no" / "such" / "folder" / "r.json"))

    assert result.exit_code == 1, result.output
    assert "cannot write the merge report" in result.output


@pytest.mark.docker
def test_merge_runs_both_features_tests_in_docker(
    arena, gold, base_image: str, tmp_path: Path
) -> None:
    output = tmp_path / "report.json"
    result = arena("merge", str(gold[0]), str(gold[1]), "--task", "calc-fixture",
                   "--output", str(output), extra_env={"ARENA_BASE_IMAGE": base_image})

    assert result.exit_code == 0, result.output
    assert "feature 1: passed" in result.output
    assert "feature 2: passed" in result.output
    assert "both passed: yes" in result.output
    report = json.loads(output.read_text())
    assert report["feature1"]["tests_passed"] is True
    assert report["feature2"]["tests_passed"] is True
    assert "passed" in report["feature1"]["test_output"]


@pytest.mark.docker
def test_union_merge_failing_tests_in_docker(
    arena, fixture_task_root: Path, base_image: str, tmp_path: Path
) -> None:
    # Both agents rewrite `add`'s body; union keeps agent 2's (wrong) line first, so the
    # task's existing test_add fails in both features' runs.
    first = fixture_patch(
        fixture_task_root, tmp_path, "one",
        {"calc.py": ("    return a + b\n",
                     "    return b + a\n\n\ndef mul(a, b):\n    return a * b\n")},
    )
    second = fixture_patch(
        fixture_task_root, tmp_path, "two",
        {"calc.py": ("return a + b", "return a - b"),
         "stats.py": ("", "def sub(a, b):\n    return a - b\n")},
    )
    output = tmp_path / "report.json"
    result = arena("merge", str(first), str(second), "--task", "calc-fixture",
                   "--output", str(output), extra_env={"ARENA_BASE_IMAGE": base_image})

    assert result.exit_code == 0, result.output
    assert "merge: conflicts (strategy union)" in result.output
    assert "feature 1: failed" in result.output
    assert "feature 2: failed" in result.output
    assert "both passed: no" in result.output
    report = json.loads(output.read_text())
    assert report["feature1"]["tests_passed"] is False
    assert "test_add" in report["feature1"]["test_output"]


def test_no_docker_engine_is_a_clear_error_suggesting_no_tests(
    arena, gold, tmp_path: Path
) -> None:
    result = arena("merge", str(gold[0]), str(gold[1]), "--task", "calc-fixture",
                   extra_env={"DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock"})

    assert result.exit_code == 1, result.output
    assert "no Docker engine answers" in result.output
    assert "--no-tests" in result.output
