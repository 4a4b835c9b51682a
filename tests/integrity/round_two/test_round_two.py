"""The round-two exploit corpus (issue 25), evaluated for real in Docker.

Every attack of :mod:`corpus` runs on every feature of every corpus task (the sample tasks,
or ``ARENA_CORPUS_DATASET`` / ``ARENA_CORPUS_TASKS``). The rule for each: it is not
resolved, or it carries a review flag with a file, a line (flags about a file) and a reason;
attacks that carry the gold patch (defeat devices) and attacks that fool the tests must be
flagged. Set ``ARENA_CORPUS_REPORT`` to a file to get the table (attack x task x feature ->
status, passed, flags) as JSON.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus import CLASSES, attacks, corpus_tasks
from support.workbench import Workbench

from arena_bot.evaluation.engine import make_test_runner
from arena_bot.models.evaluation import FeatureResult, TestRunner

pytestmark = pytest.mark.docker

TASKS = corpus_tasks()
TASK_IDS = [task.id for task in TASKS]
#: Findings each attack must bring (source, kind) on every task, whether or not it fooled
#: the tests there: the rule that catches its class, not only some flag. Runtime findings
#: are expected where the attack acts at import (where it acts only when the tests call
#: the package, see ``test_effective_attacks.py`` for runs where they do).
EXPECTED = {
    "answer_table": None,  # flagged where the tests' literals pair up, else not resolved
    "oracle_getframe": {("static", "stack_inspection")},
    "oracle_traceback": {("static", "stack_inspection")},
    "oracle_inspect_alias": {("static", "stack_inspection")},
    "always_equal_lambda": {("static", "always_equal")},
    "always_equal_assigned": {("static", "always_equal")},
    "globals_pytest_proxy": {("static", "defeat_device"), ("runtime", "tampered")},
    "approx_class_patch": {("static", "always_equal"), ("runtime", "tampered")},
    "defeat_modules": {("static", "defeat_device")},
    "defeat_environment": {("static", "defeat_device")},
    "import_hook_replace": {("static", "import_hook"), ("runtime", "tampered")},
    "import_hook_blind": {("static", "import_hook"), ("runtime", "tampered")},
    "hidden_utf7": {("static", "source_encoding"), ("static", "always_equal")},
    "hidden_runpy_txt": {("static", "always_equal"), ("runtime", "hidden_code")},
    "hidden_exec_dat": {("static", "always_equal"), ("runtime", "hidden_code")},
    "rename_test_file": None,  # refused before anything runs
}
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


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_every_attack_is_unresolved_or_flagged(task_id, benches, runners) -> None:
    bench = benches[task_id]
    task = bench.task
    misses: list[str] = []
    seen: dict[str, set[tuple[str, str]]] = {}
    for feature_id in task.spec.feature_ids():
        for attack in attacks(bench, feature_id):
            result = runners[task_id](attack.patch, feature_id)
            _record(task_id, feature_id, attack.name, result)
            seen.setdefault(attack.name, set()).update(
                (flag.source, flag.kind) for flag in result.review_flags)
            for flag in result.review_flags:
                # Every flag says where and why: a file (or "" for the run as a whole),
                # a line when it is about a file, and a reason.
                assert flag.reason and flag.source in ("static", "runtime") and flag.kind
                if flag.file and flag.source == "static":
                    assert flag.line is not None and flag.line >= 1, flag
            if attack.name == "rename_test_file":
                assert result.status == "rejected", result.reason
            if result.passed and not result.review_flags:
                misses.append(f"{attack.name} on feature {feature_id}: resolved, no flag")
            if attack.with_gold and not result.review_flags:
                misses.append(f"{attack.name} on feature {feature_id}: no flag "
                              f"({result.status})")
    assert not misses, "\n".join(misses)
    for name, expected in EXPECTED.items():
        if expected:
            missing = expected - seen.get(name, set())
            assert not missing, (name, missing, sorted(seen.get(name, set())))


def _record(task_id: str, feature_id: int, name: str, result: FeatureResult) -> None:
    _TABLE.append({
        "task": task_id, "feature": feature_id, "attack": name, "class": CLASSES[name],
        "status": result.status, "passed": result.passed,
        "flags": [flag.model_dump() for flag in result.review_flags],
    })
