"""A real CooperBench task end to end, as a new user runs it, offline but for the package
index: samuelcolvin/dirty-equals task 43 (the committed task folder and upstream bundle, see
tests/data/cooperbench/real/README.md), imported with every feature and checked once per
session (the ``real_dirty_equals`` fixture: dependencies resolved into wheels.txt, expected
ids recorded, with the uuid-parametrized ids left out as flaky). Here: the records of its
first two features, the gold patch evaluated (exit 0) and a broken one (exit 1), the pair
merged with their tests, and what `arena submit` writes from a messy agent tree evaluated."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.gitrepo import git
from support.real_cooperbench import DIRTY_EQUALS_BUNDLE, DIRTY_EQUALS_ID, ImportedTask

from arena_bot.cli import main
from arena_bot.intake.patches import protected_paths_for
from arena_bot.intake.submit import working_tree_patch

# Full tier (CI's --tier rest, with the attack corpus on the same task): the session fixture
# that imports and checks the real task costs 30 to 60 s here.
pytestmark = [pytest.mark.docker, pytest.mark.full]

TASK_ID = DIRTY_EQUALS_ID


def invoke(root: Path, *args: str, base_image: str) -> Result:
    env = {"ARENA_CACHE": str(root / ".arena"), "ARENA_BASE_IMAGE": base_image}
    return CliRunner().invoke(main, ["--root", str(root), *args], env=env,
                              catch_exceptions=False)


def submission(root: Path, name: str, patch: str, feature: int) -> Path:
    folder = root / "submissions" / TASK_ID / name
    folder.mkdir(parents=True)
    (folder / "agent1.patch").write_text(patch)
    (folder / "submission.yaml").write_text(
        f"task: {TASK_ID}\ntool: {{name: Real Tool, version: \"1.0\"}}\nmodels: [m]\n"
        "contributor: {name: Tester}\ndate: 2025-01-01\nsetting: single\n"
        f"features: [{feature}]\nruns:\n  - id: run1\n    tokens: {{total: 1000}}\n"
        "    tool_calls: 3\n    execution_time: 10\n    estimated_cost: 0.01\n"
        "    patches: [agent1.patch]\n")
    return folder


def test_a_real_task_imports_checks_evaluates_and_merges(
        tmp_path: Path, base_image: str, real_dirty_equals: ImportedTask) -> None:
    root = real_dirty_equals.board(tmp_path / "board")
    task = root / "dataset" / TASK_ID
    wheels = (task / "wheels.txt").read_text().split()
    assert "pytest==8.3.5" in wheels and any(w.startswith("pytz==") for w in wheels)

    assert len(real_dirty_equals.task.spec.feature_ids()) == 9
    for feature in (1, 2):
        expected = json.loads((task / f"feature{feature}" / "expected_tests.json").read_text())
        assert expected["fail_to_pass"] and expected["pass_to_pass"], expected
        # One test_is_uuid_true id is made from str(uuid1()): different every run, so
        # each run's is left out as flaky; the rest of the feature is recorded.
        assert len(expected["flaky"]) == 2 and all("test_is_uuid_true[" in i
                                                   for i in expected["flaky"])
        assert not set(expected["flaky"]) & set(expected["fail_to_pass"]
                                                + expected["pass_to_pass"])
        # Parameter ids holding "::" (IPv6 addresses) are recorded whole.
        assert feature != 1 or any("[::" in i for i in expected["fail_to_pass"])
    assert "flaky test id(s) left out" in real_dirty_equals.check_output

    gold = (task / "feature1" / "feature.patch").read_text()
    submission(root, "gold", gold, 1)
    passed = invoke(root, "evaluate", str(root / "submissions" / TASK_ID / "gold"),
                    base_image=base_image)
    assert passed.exit_code == 0, passed.output
    assert "all 1 feature run(s) passed" in passed.output
    # Applies cleanly, checks the version the wrong way round: real tests fail.
    broken_patch = gold.replace("elif self.version != ip.version:",
                                "elif self.version == ip.version:")
    assert broken_patch != gold
    submission(root, "broken", broken_patch, 1)
    failed = invoke(root, "evaluate", str(root / "submissions" / TASK_ID / "broken"),
                    base_image=base_image)
    assert failed.exit_code == 1, failed.output
    assert "1 of 1 feature run(s) did not pass: broken feature 1 failed" in failed.output

    merged = invoke(root, "merge", "--task", TASK_ID, "--features", "1", "2",
                    str(task / "feature1" / "feature.patch"),
                    str(task / "feature2" / "feature.patch"), "--output",
                    str(tmp_path / "merge.json"), base_image=base_image)
    assert merged.exit_code == 0, merged.output
    assert json.loads((tmp_path / "merge.json").read_text()), merged.output
    # Both features' tests ran on the merged code (whatever the merge's outcome).
    for feature in (1, 2):
        assert any(line.startswith(f"  feature {feature}: passed")
                   or line.startswith(f"  feature {feature}: failed")
                   for line in merged.output.splitlines()), merged.output
    assert "both passed: " in merged.output


def test_a_messy_agent_tree_submitted_applies_as_is_and_passes(
        tmp_path: Path, base_image: str, real_dirty_equals: ImportedTask) -> None:
    """What `arena submit` writes from an agent's working tree holding every kind of change a
    text patch carries (the gold feature, renames, a deletion, a mode change, CRLF, empty and
    unterminated files, a quoted name) applies with the first plain `git apply` in the task's
    container, and the feature's tests pass."""
    root = real_dirty_equals.board(tmp_path / "board")
    task = real_dirty_equals.task
    work = tmp_path / "work"
    git("clone", "-q", str(DIRTY_EQUALS_BUNDLE), str(work), cwd=tmp_path)
    git("checkout", "-q", task.spec.source.commit, cwd=work)
    git("apply", str(task.feature(1).gold_patch), cwd=work)
    git("mv", "docs/index.md", "docs/home.md", cwd=work)  # a staged rename
    (work / "docs" / "types").rename(work / "docs" / "kinds")  # renames, unstaged
    (work / "LICENSE").unlink()
    (work / "Makefile").chmod(0o755)
    (work / "dirty_equals" / "_crlf.py").write_bytes(b"X = 1\r\nY = 2\r\n")
    with (work / "README.md").open("ab") as readme:
        readme.write(b"one\r\ntwo\r\n")
    (work / "dirty_equals" / "_empty.py").write_text("")
    (work / "dirty_equals" / "_unterminated.py").write_text("Z = 3")
    (work / "docs" / "caf\u00e9 notes.md").write_text("caf\u00e9\n")
    tests = work / "tests" / "test_other.py"
    tests.write_text(tests.read_text() + "\n# the agent's own test edit\n")  # left out
    left_out: list[str] = []
    patch = working_tree_patch(workdir=work, base=task.spec.source.commit,
                               protected=protected_paths_for(task), left_out=left_out)
    assert left_out == [] and "tests/" not in patch and "rename from docs/index.md" in patch
    folder = submission(root, "messy", patch, 1)
    result = invoke(root, "evaluate", str(folder), base_image=base_image)
    assert result.exit_code == 0, result.output
    assert "all 1 feature run(s) passed" in result.output
    # "clean": the first plain git apply took it (no whitespace or 3-way fallback).
    assert re.search(r"messy run1 +f1 +passed +clean ", result.output), result.output
