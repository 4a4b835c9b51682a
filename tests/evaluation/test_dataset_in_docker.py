"""The sample dataset in the real sandbox: gold patches pass and tests alone fail, through
`arena dataset check`'s own code."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_bot.evaluation.engine import make_test_runner
from arena_bot.evaluation.expected import check_feature
from arena_bot.evaluation.harness import load_expected_tests
from arena_bot.tasks.dataset import Dataset, TaskFolder

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
TASKS = Dataset(ROOT / "dataset").all()
FEATURES = [(task, fid) for task in TASKS for fid in task.spec.feature_ids()]


def test_there_are_sample_tasks() -> None:
    assert len(TASKS) >= 3


@pytest.mark.parametrize(("task", "feature_id"), FEATURES,
                         ids=[f"{t.id}-f{f}" for t, f in FEATURES])
def test_gold_patch_passes_and_tests_alone_fail(
    task: TaskFolder, feature_id: int, engine, task_images
) -> None:
    """Through `arena dataset check`'s own code (one implementation for CI and maintainers):
    no problem, and the recorded expected ids are the ones a fresh check finds."""
    image = task_images.ensure(task).tag
    check = check_feature(task, feature_id=feature_id, engine=engine, image=image, repeats=1)
    assert check.ok, "\n".join(check.problems)
    recorded = load_expected_tests(task, feature_id)
    assert recorded is not None, f"run `arena dataset check {task.id}`"
    assert (recorded.fail_to_pass, recorded.pass_to_pass) == (
        check.expected.fail_to_pass, check.expected.pass_to_pass)
    # The gold patch also passes when judged against its recorded ids.
    gold = make_test_runner(task, engine=engine, image=image)(
        task.feature(feature_id).gold_patch.read_text(), feature_id)
    assert gold.status == "passed", gold.reason
    # An honest patch raises no flag: neither the patch's text and syntax tree nor the
    # plugin's in-process guard while its tests ran (false positives cost maintainers).
    assert gold.review_flags == [], gold.review_flags


# The sample submissions are evaluated once in the suite, by the README's main job:
# tests/test_pipeline.py::test_every_sample_fails_for_the_right_reasons reads its results.
