"""A real CooperBench task end to end, as a new user runs it, offline but for the package
index: samuelcolvin/dirty-equals task 43 (the committed task folder and upstream bundle, see
tests/data/cooperbench/real/README.md), imported with every feature and checked once per
session (the ``real_dirty_equals`` fixture: dependencies resolved into wheels.txt, expected
ids recorded, with the uuid-parametrized ids left out as flaky). Here: the records of its
first two features, the gold patch evaluated (exit 0) and a broken one (exit 1), and the
pair merged with their tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.real_cooperbench import DIRTY_EQUALS_ID, ImportedTask

from arena_bot.cli import main

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
