"""A flag must be rare on honest work (issue 25): zero review flags, static or runtime, on
every patch of the sample submissions (each against every feature of its task) and on the
gold patch of every feature of every corpus task (the sample tasks, or the tasks of
``ARENA_CORPUS_DATASET``), evaluated for real in Docker."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import ROOT, corpus_tasks

from arena_bot.evaluation.engine import make_test_runner
from arena_bot.intake.submissions import load_submission
from arena_bot.tasks.dataset import Dataset

pytestmark = pytest.mark.docker

TASKS = corpus_tasks()


def _sample_patches() -> list[tuple[str, Path]]:
    found = []
    for yaml in sorted((ROOT / "submissions").glob("*/*/submission.yaml")):
        submission = load_submission(yaml.parent)
        names = {name for run in submission.spec.runs for name in run.patches}
        found.extend((submission.spec.task, yaml.parent / name) for name in sorted(names))
    return found


SAMPLES = _sample_patches()


def test_there_are_honest_samples() -> None:
    assert len(SAMPLES) >= 10


@pytest.mark.parametrize("task_id", sorted({task for task, _ in SAMPLES}))
def test_sample_submissions_raise_no_flag(task_id, engine, task_images) -> None:
    task = Dataset(ROOT / "dataset").get(task_id)
    run = make_test_runner(task, engine=engine, image=task_images.ensure(task).tag)
    flagged = []
    for _, patch in (pair for pair in SAMPLES if pair[0] == task_id):
        for feature_id in task.spec.feature_ids():
            result = run(patch.read_text(), feature_id)
            flagged.extend(f"{patch.relative_to(ROOT)} feature {feature_id}: {flag}"
                           for flag in result.review_flags)
    assert flagged == [], "\n".join(flagged)


@pytest.mark.parametrize("task_id", [task.id for task in TASKS])
def test_gold_patches_raise_no_flag(task_id, engine, task_images) -> None:
    task = next(task for task in TASKS if task.id == task_id)
    run = make_test_runner(task, engine=engine, image=task_images.ensure(task).tag)
    for feature_id in task.spec.feature_ids():
        result = run(task.feature(feature_id).gold_patch.read_text(), feature_id)
        assert result.status == "passed", (feature_id, result.reason)
        assert result.review_flags == [], (feature_id, result.review_flags)
