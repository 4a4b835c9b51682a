"""``arena evaluate`` and ``arena images build`` through click's CliRunner, on real Docker."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_bot.cli import main
from arena_bot.evaluation.store import result_owner
from arena_bot.tasks.dataset import TaskFolder


@pytest.fixture
def repo_root(tmp_path: Path, fixture_task: TaskFolder, write_submission) -> Path:
    """A repository root with the fixture task and two submissions (gold and broken)."""
    root = tmp_path / "root"
    shutil.copytree(fixture_task.root, root / "dataset" / fixture_task.id)
    gold = fixture_task.feature(1).gold_patch.read_text()
    for name, patch in (("gold", gold), ("broken", gold.replace("return a", "return z"))):
        folder = write_submission(name, patches=[patch]).root
        shutil.copytree(folder, root / "submissions" / fixture_task.id / name)
    return root


def invoke(root: Path, *args: str, base_image: str = "arena-base:bookworm"):
    env = {"ARENA_CACHE": str(root / ".arena"), "ARENA_BASE_IMAGE": base_image}
    return CliRunner().invoke(main, ["--root", str(root), *args], env=env)


@pytest.mark.docker
def test_evaluate_all_prints_table_stores_results_and_reuses_them(
    repo_root: Path, base_image: str
) -> None:
    first = invoke(repo_root, "evaluate", "--all", "--jobs", "2", base_image=base_image)
    # Like pytest: 1 when a feature did not pass, and the last line says which.
    assert first.exit_code == 1, first.output
    assert first.output.rstrip().endswith(
        "1 of 2 feature run(s) did not pass: broken feature 1 apply_failed")
    lines = first.output.splitlines()
    gold_row = next(line for line in lines if "gold run1" in line)
    broken_row = next(line for line in lines if "broken run1" in line)
    assert "passed" in gold_row and "f1" in gold_row
    assert "apply_failed" in broken_row and "does not apply" in broken_row
    assert "2 submission(s), 1/2 feature runs passed" in first.output
    stored = sorted((repo_root / ".arena" / "results").rglob("*.json"))
    assert [result_owner(p.name) for p in stored] == ["broken", "gold"]
    again = invoke(repo_root, "evaluate", str(repo_root / "submissions"), base_image=base_image)
    assert again.exit_code == 1
    gold = invoke(repo_root, "evaluate", str(repo_root / "submissions" / "calc-fixture" / "gold"),
                  base_image=base_image)
    assert gold.exit_code == 0 and "all 1 feature run(s) passed" in gold.output
    assert "gold (cached) run1" in again.output


@pytest.mark.docker
def test_images_build_reuses_unchanged_task_images(repo_root: Path, base_image: str) -> None:
    invoke(repo_root, "images", "build", base_image=base_image)
    result = invoke(repo_root, "images", "build", "calc-fixture", base_image=base_image)
    assert result.exit_code == 0, result.output
    assert "calc-fixture: arena-task-calc-fixture:" in result.output
    assert "(unchanged)" in result.output


def test_bad_calls_and_inputs_are_clear_errors(repo_root: Path) -> None:
    both = invoke(repo_root, "evaluate", "--all", str(repo_root / "submissions"))
    assert both.exit_code == 2 and "one of the two" in both.output
    missing = invoke(repo_root, "evaluate", str(repo_root / "nope"))
    assert missing.exit_code == 1 and "path does not exist" in missing.output
    (repo_root / "notes.txt").write_text("not a submission")
    stray = invoke(repo_root, "evaluate", str(repo_root / "notes.txt"))
    assert stray.exit_code == 1 and "notes.txt: file is not inside a submission folder (no " \
        "submission.yaml beside it)" in stray.output
    empty = invoke(repo_root, "evaluate", str(repo_root / "dataset"))
    assert empty.exit_code == 1 and "dataset: no submission.yaml found under this folder" \
        in empty.output
    orphan = repo_root / "submissions" / "calc-fixture" / "gold" / "submission.yaml"
    orphan.write_text(orphan.read_text().replace("task: calc-fixture", "task: unknown-task"))
    unknown = invoke(repo_root, "evaluate", str(orphan.parent))
    assert unknown.exit_code == 1 and "unknown task 'unknown-task'" in unknown.output
    assert "Traceback" not in unknown.output
    wrong_feature = repo_root / "submissions" / "calc-fixture" / "broken" / "submission.yaml"
    wrong_feature.write_text(wrong_feature.read_text().replace("features: [1]", "features: [7]"))
    bad = invoke(repo_root, "evaluate", str(wrong_feature.parent))
    assert bad.exit_code == 1 and "features [7] do not exist" in bad.output
    assert "submission.yaml:" in bad.output


def test_no_docker_engine_is_a_clear_error(repo_root: Path, tmp_path: Path) -> None:
    env = {"ARENA_CACHE": str(repo_root / ".arena"),
           "DOCKER_HOST": f"unix://{tmp_path / 'no-such.sock'}"}
    result = CliRunner().invoke(main, ["--root", str(repo_root), "evaluate", "--all"], env=env)
    assert result.exit_code == 1
    assert "no Docker engine answers" in result.output and "ensure_docker.sh" in result.output
    assert "Traceback" not in result.output


@pytest.fixture
def failing_root(tmp_path: Path, fixture_task: TaskFolder, write_submission) -> Path:
    """A repository root with one submission whose patch applies but whose test fails."""
    root = tmp_path / "failing-root"
    shutil.copytree(fixture_task.root, root / "dataset" / fixture_task.id)
    gold = fixture_task.feature(1).gold_patch.read_text()
    assert "+    return a * b\n" in gold
    wrong = gold.replace("+    return a * b\n", "+    return a * b + 1\n")
    folder = write_submission("wrong", patches=[wrong]).root
    shutil.copytree(folder, root / "submissions" / fixture_task.id / "wrong")
    return root


@pytest.mark.docker
def test_failing_tests_are_listed_with_their_assertion(
    failing_root: Path, base_image: str
) -> None:
    """A contributor sees which test failed and why without opening the stored JSON;
    --verbose adds the test output (from the stored result on a cached run too)."""
    first = invoke(failing_root, "evaluate", "--all", base_image=base_image)
    assert first.exit_code == 1, first.output
    lines = first.output.splitlines()
    row = next(index for index, line in enumerate(lines) if "wrong run1" in line)
    assert "failed" in lines[row]
    detail = lines[row + 1]
    assert detail.startswith("    ") and "test_mul: failed — assert 13 == 12" in detail
    assert "--- wrong run1 f1" not in first.output
    verbose = invoke(failing_root, "evaluate", "--all", "--verbose", base_image=base_image)
    assert verbose.exit_code == 1, verbose.output
    assert "--- calc-fixture/wrong run1 f1 (failed): test output ---" in verbose.output
    assert "assert 13 == 12" in verbose.output.split("--- calc-fixture/wrong run1 f1")[1]
    assert "wrong (cached) run1" in verbose.output


def test_failure_lines_name_tests_or_the_cause() -> None:
    from arena_bot.cli.evaluation_output import failure_lines
    from arena_bot.models.evaluation import FeatureResult, TestCaseResult

    cases = [TestCaseResult(name=f"tests.test_x::test_{n}", outcome="failed",
                            message=f"\nassert {n} == 0\n +  where ...") for n in range(12)]
    failed = FeatureResult(feature=1, status="failed", passed=False, apply_status="clean",
                           tests=cases)
    lines = failure_lines(failed)
    assert lines[0] == "    tests.test_x::test_0: failed — assert 0 == 0"
    assert len(lines) == 11 and lines[-1] == "    ... and 2 more failing test(s)"
    output = ("==== ERRORS ====\n_ ERROR collecting tests/test_core.py _\n"
              "ImportError while importing test module '/workspace/repo/tests/test_core.py'.\n"
              "E   ModuleNotFoundError: No module named 'textkit'\n")
    none_ran = FeatureResult(feature=2, status="no_tests", passed=False, apply_status="clean",
                             output=output, reason="no structured test results")
    assert failure_lines(none_ran) == [
        "    cause: ImportError while importing test module "
        "'/workspace/repo/tests/test_core.py'."]
    assert failure_lines(failed.model_copy(update={"passed": True, "status": "passed"})) == []


@pytest.mark.docker
def test_merge_lists_failing_tests_of_the_merged_code(
    fixture_task_root: Path, tmp_path: Path, base_image: str
) -> None:
    """`arena merge` names each failing test of the merged code with its assertion, and
    --verbose prints the test output."""
    task = fixture_task_root / "calc-fixture"
    first = tmp_path / "one.patch"
    first.write_text((task / "feature1" / "feature.patch").read_text()
                     .replace("+    return a * b\n", "+    return a * b + 1\n"))
    second = task / "feature2" / "feature.patch"
    env = {"ARENA_DATASET": str(fixture_task_root), "ARENA_CACHE": str(tmp_path / "cache"),
           "ARENA_BASE_IMAGE": base_image}
    result = CliRunner().invoke(main, ["--root", str(tmp_path), "merge", str(first),
                                       str(second), "--task", "calc-fixture", "--verbose"],
                                env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    row = lines.index(next(line for line in lines if line.startswith("  feature 1: failed")))
    assert "test_mul: failed — assert 13 == 12" in lines[row + 1]
    assert lines[row + 2] == "    --- feature 1 test output ---"
    assert "  feature 2: passed" in result.output
    assert "both passed: no" in result.output


@pytest.mark.docker
def test_base_image_choice_is_said_once_per_command(
    repo_root: Path, base_image: str, docker_client
) -> None:
    """Two submissions, two jobs, the default (public) base image: the choice is said in
    one line, never as a failed pull, whether the machine is offline or not."""
    from arena_bot.core.settings import DEFAULT_BASE_IMAGE, OFFLINE_BASE_IMAGE
    from arena_bot.sandbox.images import image_exists

    before = image_exists(docker_client, DEFAULT_BASE_IMAGE)
    env = {"ARENA_CACHE": str(repo_root / ".arena"), "ARENA_BASE_IMAGE": None}
    result = CliRunner().invoke(main, ["--root", str(repo_root), "evaluate", "--all",
                                       "--jobs", "2"], env=env)
    assert result.exit_code == 1, result.output  # the broken submission does not pass
    notes = [line for line in result.output.splitlines() if line.startswith("base image:")]
    assert "cannot be pulled" not in result.output and "pulling" not in result.output
    after = image_exists(docker_client, DEFAULT_BASE_IMAGE)
    if before:
        assert notes == []
    elif after:
        assert notes == [f"base image: pulled {DEFAULT_BASE_IMAGE} (first use; later runs "
                         "reuse it)"]
    else:
        assert base_image == OFFLINE_BASE_IMAGE
        assert len(notes) == 1 and notes[0].startswith(
            f"base image: {OFFLINE_BASE_IMAGE} (built offline by `arena images base`): no "
            "registry is reachable here")
    assert "2 submission(s)" in result.output


@pytest.mark.docker
def test_no_tests_shows_the_cause(failing_root: Path, base_image: str) -> None:
    """When no test result exists (the test command died before pytest wrote its report),
    the row says why: the error line from the output, not only "no_tests"."""
    spec = failing_root / "dataset" / "calc-fixture" / "task.yaml"
    text = spec.read_text()
    command = next(line for line in text.splitlines() if "--junitxml" in line)
    indent = command[: len(command) - len(command.lstrip())]
    spec.write_text(text.replace(command, indent + "command: python3 -c 'import nowhere_module'"))
    result = invoke(failing_root, "evaluate", "--all", base_image=base_image)
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    row = next(index for index, line in enumerate(lines) if "wrong run1" in line)
    assert "no_tests" in lines[row]
    assert lines[row + 1] == ("    cause: ModuleNotFoundError: No module named "
                              "'nowhere_module'")
