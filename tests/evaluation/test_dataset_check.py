"""``arena dataset check``: expected test ids recorded from gold and bare runs (real Docker),
and the verdict that requires them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.fixture_task import write_fixture_task

from arena_bot.cli import main
from arena_bot.evaluation.junit import JUnitReport
from arena_bot.evaluation.verdict import decide
from arena_bot.models.evaluation import TestCaseResult
from arena_bot.models.task import ExpectedTests
from arena_bot.tasks.dataset import TaskFolder, load_task


def invoke(root: Path, *args: str, base_image: str):
    env = {"ARENA_CACHE": str(root / ".arena"), "ARENA_BASE_IMAGE": base_image}
    return CliRunner().invoke(main, ["--root", str(root), *args], env=env)


@pytest.fixture
def root_with_task(tmp_path: Path, fixture_task: TaskFolder) -> Path:
    root = tmp_path / "root"
    shutil.copytree(fixture_task.root, root / "dataset" / fixture_task.id)
    return root


@pytest.mark.docker
def test_check_records_fail_to_pass_and_pass_to_pass(root_with_task: Path, base_image) -> None:
    """Each feature's tests patch adds a module that cannot be collected on the base commit
    (it imports what the feature adds), and pytest then runs no test at all: the base's own
    tests/test_add.py, which passes there, was recorded as fail-to-pass."""
    done = invoke(root_with_task, "dataset", "check", "calc-fixture", base_image=base_image)
    assert done.exit_code == 0, done.output
    task = load_task(root_with_task / "dataset" / "calc-fixture")
    for feature_id in task.spec.feature_ids():
        recorded = ExpectedTests.model_validate_json(
            task.feature(feature_id).expected_tests.read_text())
        added = {1: "tests.test_mul::test_mul", 2: "tests.test_sub::test_sub"}[feature_id]
        assert recorded.fail_to_pass == [added], done.output
        assert recorded.pass_to_pass == ["tests.test_add::test_add"], done.output
        assert not recorded.flaky
        assert all("::" in name for name in recorded.fail_to_pass + recorded.pass_to_pass)


@pytest.mark.docker
def test_check_reports_a_failing_gold_patch_and_records_nothing(
    root_with_task: Path, base_image
) -> None:
    gold = root_with_task / "dataset" / "calc-fixture" / "feature1" / "feature.patch"
    gold.write_text(gold.read_text().replace("return a", "return -a"))
    done = invoke(root_with_task, "dataset", "check", "calc-fixture", "--repeat", "1",
                  base_image=base_image)
    assert done.exit_code == 1
    assert "gold patch run 1 did not pass" in done.output
    assert "with one gold run a flaky test id cannot be told" in done.output
    assert "Traceback" not in done.output
    assert not (gold.parent / "expected_tests.json").exists()


DOWNLOADS = ("import urllib.request\n\n\ndef test_download():\n"
             "    urllib.request.urlopen('http://example.org/data.parquet', timeout=5)\n")


@pytest.mark.docker
def test_a_test_that_cannot_pass_in_the_sandbox_fails_no_gold_patch(
        tmp_path: Path, base_image) -> None:
    """datasets task 7309: tests/io/test_parquet.py's geoparquet test downloads a file, and the
    sandbox has no network: it errored in every gold run, so no feature of the task could be
    recorded and every gold patch evaluated would fail. A test failing in every gold run and on
    the untouched base commit is left out (`always_failing`) and fails no run; one of the
    feature's own tests failing with the gold patch still fails the check."""
    root = tmp_path / "root"
    write_fixture_task(root / "dataset", base_files={"tests/test_download.py": DOWNLOADS})
    done = invoke(root, "dataset", "check", "calc-fixture", "--repeat", "1",
                  base_image=base_image)
    assert done.exit_code == 0, done.output
    assert "fail on the untouched base commit and in every gold run" in done.output
    task = load_task(root / "dataset" / "calc-fixture")
    for feature_id in (1, 2):
        recorded = ExpectedTests.model_validate_json(
            task.feature(feature_id).expected_tests.read_text())
        assert recorded.always_failing == ["tests.test_download::test_download"]
        assert {1: "tests.test_mul::test_mul", 2: "tests.test_sub::test_sub"}[feature_id] \
            in recorded.fail_to_pass
    folder = root / "submissions" / "calc-fixture" / "gold"
    folder.mkdir(parents=True)
    shutil.copy(task.feature(1).gold_patch, folder / "agent1.patch")
    (folder / "submission.yaml").write_text(
        "task: calc-fixture\ntool: {name: T, version: '1'}\nmodels: [m]\n"
        "contributor: {name: C}\ndate: 2025-01-01\nsetting: single\nfeatures: [1]\n"
        "runs:\n  - id: run1\n    tokens: {total: 10}\n    tool_calls: 1\n"
        "    execution_time: 1\n    estimated_cost: 0.01\n    patches: [agent1.patch]\n")
    evaluated = invoke(root, "evaluate", str(folder), base_image=base_image)
    assert evaluated.exit_code == 0, evaluated.output
    assert "all 1 feature run(s) passed" in evaluated.output


def test_a_damaged_expected_file_is_a_clear_error(root_with_task: Path) -> None:
    from arena_bot.core.errors import DatasetError
    from arena_bot.evaluation.harness import load_expected_tests

    task = load_task(root_with_task / "dataset" / "calc-fixture")
    task.feature(1).expected_tests.write_text("{not json")
    with pytest.raises(DatasetError) as caught:
        load_expected_tests(task, 1)
    assert "arena dataset check" in caught.value.message


def _decide(cases: dict[str, str], expected: ExpectedTests):
    report = JUnitReport(cases=[TestCaseResult(name=n, outcome=o)  # type: ignore[arg-type]
                                for n, o in cases.items()])
    return decide(apply_status="clean", tests_patch_applied=True, setup_exit=None,
                  exit_code=0, timed_out=False, oom_killed=False, report=report,
                  expected=expected)


def test_an_always_failing_id_fails_no_run() -> None:
    expected = ExpectedTests(fail_to_pass=["t.test_a::test_new"],
                             always_failing=["t.test_n::test_download"])
    assert _decide({"t.test_a::test_new": "passed", "t.test_n::test_download": "error"},
                   expected).status == "failed"  # pytest's exit 1 is expected, not 0
    report = JUnitReport(cases=[TestCaseResult(name=n, outcome=o)  # type: ignore[arg-type]
                                for n, o in {"t.test_a::test_new": "passed",
                                             "t.test_n::test_download": "error",
                                             "t.test_b::test_other": "failed"}.items()])
    other = decide(apply_status="clean", tests_patch_applied=True, setup_exit=None,
                   exit_code=1, timed_out=False, oom_killed=False, report=report,
                   expected=expected)
    assert other.status == "failed" and other.reason == "1 test(s) failed and 0 errored"
    alone = JUnitReport(cases=report.cases[:2])
    assert decide(apply_status="clean", tests_patch_applied=True, setup_exit=None,
                  exit_code=1, timed_out=False, oom_killed=False, report=alone,
                  expected=expected).passed


def test_an_always_failing_id_does_not_excuse_a_missing_canary() -> None:
    """A missing canary next to real failures is an honest collection error; next to failures
    of always-failing ids only, it is a report with the canaries taken out."""
    from arena_bot.evaluation.verdict import Canaries

    canaries = Canaries(must_pass="tests.test_zz_arena::test_ok",
                        must_fail="tests.test_zz_arena::test_fails")
    report = JUnitReport(cases=[TestCaseResult(name=n, outcome=o)  # type: ignore[arg-type]
                                for n, o in {"t.test_a::test_new": "passed",
                                             "t.test_n::test_download": "error"}.items()])
    verdict = decide(apply_status="clean", tests_patch_applied=True, setup_exit=None,
                     exit_code=1, timed_out=False, oom_killed=False, report=report,
                     canaries=canaries,
                     expected=ExpectedTests(fail_to_pass=["t.test_a::test_new"],
                                            always_failing=["t.test_n::test_download"]))
    assert verdict.status == "tampered", verdict


def test_every_expected_id_must_be_present_and_passed() -> None:
    expected = ExpectedTests(fail_to_pass=["t.test_a::test_new"],
                             pass_to_pass=["t.test_b::test_old"])
    assert _decide({"t.test_a::test_new": "passed", "t.test_b::test_old": "passed"},
                   expected).passed
    missing = _decide({"t.test_b::test_old": "passed", "t.test_c::test_x": "passed"}, expected)
    assert missing.status == "failed" and "missing" in (missing.reason or "")
    skipped = _decide({"t.test_a::test_new": "passed", "t.test_b::test_old": "skipped"},
                      expected)
    assert skipped.status == "failed" and "did not pass" in (skipped.reason or "")


def test_sample_tasks_have_recorded_ids() -> None:
    root = Path(__file__).resolve().parents[2] / "dataset"
    for folder in sorted(p for p in root.iterdir() if (p / "task.yaml").exists()):
        task = load_task(folder)
        for feature_id in task.spec.feature_ids():
            path = task.feature(feature_id).expected_tests
            assert path.is_file(), f"run `arena dataset check {task.id}`"
            assert json.loads(path.read_text())["fail_to_pass"]
