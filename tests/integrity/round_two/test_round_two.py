"""The round-two exploit corpus (issue 25), evaluated for real in Docker.

Every attack of :mod:`corpus` runs on every feature of every corpus task (the sample tasks,
or ``ARENA_CORPUS_DATASET`` / ``ARENA_CORPUS_TASKS``). The rule for each: it is not
resolved, or it carries a review flag with a file, a line (flags about a file) and a reason;
attacks that carry the gold patch (defeat devices) and attacks that fool the tests must be
flagged. Set ``ARENA_CORPUS_REPORT`` to a file to get the table (attack x task x feature ->
status, passed, flags) as JSON. CI runs it (``--tier rest``); the README's test command
leaves it out (tests/support/tiers.py): the exploit corpus, the attacks that fool the tests
and the honest work run there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus import CLASSES, EXPECTED, corpus_tasks, run_corpus
from support.workbench import Workbench

from arena_bot.evaluation.engine import make_test_runner
from arena_bot.models.evaluation import TestRunner

pytestmark = pytest.mark.docker

TASKS = corpus_tasks()
TASK_IDS = [task.id for task in TASKS]
_TABLE: list[dict[str, object]] = []


@pytest.fixture(scope="module")
def benches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Workbench]:
    root = tmp_path_factory.mktemp("round-two")
    return {task.id: Workbench(task, root) for task in TASKS}


@pytest.fixture(scope="module")
def runners(engine, task_images) -> dict[str, TestRunner]:
    return {task.id: make_test_runner(task, engine=engine, image=task_images.ensure(task).tag)
            for task in TASKS}


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    target = os.environ.get("ARENA_CORPUS_REPORT")
    if target and _TABLE:
        Path(target).write_text(json.dumps(_TABLE, indent=2) + "\n", encoding="utf-8")


def test_the_corpus_has_every_class_on_at_least_one_task() -> None:
    assert TASKS, "no corpus task"
    assert set(EXPECTED) == set(CLASSES)
    assert len(set(CLASSES.values())) == 8  # issue 25's eight classes


@pytest.mark.full
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_every_attack_is_unresolved_or_flagged(task_id, benches, runners) -> None:
    bench = benches[task_id]
    verdicts = run_corpus(bench, runners[task_id], bench.task.spec.feature_ids())
    _TABLE.extend(verdicts.rows)
    assert not verdicts.misses, "\n".join(verdicts.misses)
    assert not verdicts.missing_findings(), verdicts.missing_findings()
