"""The round-two exploit corpus (issue 25) on a real CooperBench task, in the plain test run:
samuelcolvin/dirty-equals task 43, imported with its wheels and checked once per session (the
``real_dirty_equals`` fixture, see tests/support/real_cooperbench.py).

Every attack class of :mod:`corpus`, built from the task itself, runs on its features
:data:`ATTACKED` (each attack is a Docker run of the task's whole test file, so not all nine:
the sample tasks take every feature in test_round_two.py), under the same rule as there,
and again on top of the gold patch (:func:`corpus.attacks_on_gold`): the feature's tests
import names the base commit lacks, so a plain attack stops at collection; beside the real
code it is in the test run, and it must be flagged.
The gold patch of every feature raises no flag. And one attack the tests score as resolved,
submitted and evaluated through ``arena evaluate``, is scored by ``arena score`` onto a board
where it is held: "under-review", no rank, its flags on the entry, while the honest gold
submission beside it is ranked. ``ARENA_CORPUS_REPORT`` also gets this task's rows (written
to the file named with ``.real.json`` added)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from corpus import CLASSES, NO_GOLD_VARIANT, CorpusVerdicts, run_corpus
from support.real_cooperbench import ImportedTask
from support.workbench import Workbench

from arena_bot.cli import main
from arena_bot.evaluation.engine import make_test_runner
from arena_bot.models.evaluation import TestRunner

# Full tier (CI's --tier rest), with tests/cooperbench/test_real_task_end_to_end.py: the
# session fixture that imports and checks the real task costs 30 to 60 s here.
pytestmark = [pytest.mark.docker, pytest.mark.full]

#: The features every attack runs on.
ATTACKED = (1,)


@pytest.fixture(scope="module")
def run(real_dirty_equals: ImportedTask, engine, task_images) -> TestRunner:
    task = real_dirty_equals.task
    return make_test_runner(task, engine=engine, image=task_images.ensure(task).tag)


@pytest.fixture(scope="module")
def verdicts(real_dirty_equals: ImportedTask, run: TestRunner,
             tmp_path_factory: pytest.TempPathFactory) -> CorpusVerdicts:
    bench = Workbench(real_dirty_equals.task, tmp_path_factory.mktemp("real-corpus"))
    found = run_corpus(bench, run, ATTACKED, on_gold=True)
    target = os.environ.get("ARENA_CORPUS_REPORT")
    if target:
        Path(target + ".real.json").write_text(json.dumps(found.rows, indent=2) + "\n",
                                               encoding="utf-8")
    return found


def test_every_attack_on_the_real_task_is_unresolved_or_flagged(
        verdicts: CorpusVerdicts) -> None:
    assert {row["attack"] for row in verdicts.rows} == set(CLASSES)
    assert {row["attack"] for row in verdicts.rows if row["on_gold"]} == (
        set(CLASSES) - set(NO_GOLD_VARIANT))
    assert len(verdicts.rows) == (2 * len(CLASSES) - len(NO_GOLD_VARIANT)) * len(ATTACKED)
    assert not verdicts.misses, "\n".join(verdicts.misses)
    assert not verdicts.missing_findings(), verdicts.missing_findings()


def test_the_real_task_gold_patches_raise_no_flag(real_dirty_equals: ImportedTask,
                                                  run: TestRunner) -> None:
    task = real_dirty_equals.task
    assert len(task.spec.feature_ids()) == 9
    flagged = []
    for feature_id in task.spec.feature_ids():
        result = run(task.feature(feature_id).gold_patch.read_text(), feature_id)
        assert result.status == "passed", (feature_id, result.reason)
        flagged.extend(f"feature {feature_id}: {flag}" for flag in result.review_flags)
    assert flagged == [], "\n".join(flagged)


def _arena(root: Path, base_image: str, *args: str) -> Result:
    env = {"ARENA_CACHE": str(root / ".arena"), "ARENA_BASE_IMAGE": base_image}
    return CliRunner().invoke(main, ["--root", str(root), *args], env=env,
                              catch_exceptions=False)


def _submit(root: Path, task_id: str, name: str, patch: str, feature: int) -> Path:
    folder = root / "submissions" / task_id / name
    folder.mkdir(parents=True)
    (folder / "agent1.patch").write_text(patch)
    (folder / "submission.yaml").write_text(
        f"task: {task_id}\ntool: {{name: {name.title()} Tool, version: \"1.0\"}}\n"
        "models: [m]\ncontributor: {name: Tester}\ndate: 2025-01-01\nsetting: single\n"
        f"features: [{feature}]\nruns:\n  - id: run1\n    tokens: {{total: 1000}}\n"
        "    tool_calls: 3\n    execution_time: 10\n    estimated_cost: 0.01\n"
        "    patches: [agent1.patch]\n")
    return folder


def test_a_resolved_attack_is_held_on_the_board(verdicts: CorpusVerdicts,
                                                real_dirty_equals: ImportedTask,
                                                base_image: str, tmp_path: Path) -> None:
    resolved = [row for row in verdicts.rows if row["passed"] and row["flags"]]
    assert resolved, "no attack fooled the real task's tests: nothing to hold"
    row = resolved[0]
    task = real_dirty_equals.task
    feature = int(str(row["feature"]))
    root = real_dirty_equals.board(tmp_path / "board")
    _submit(root, task.id, "attacker",
            verdicts.patches[str(row["attack"]), feature, bool(row["on_gold"])], feature)
    _submit(root, task.id, "honest", task.feature(feature).gold_patch.read_text(), feature)
    for name in ("attacker", "honest"):
        evaluated = _arena(root, base_image, "evaluate",
                           str(root / "submissions" / task.id / name))
        assert evaluated.exit_code == 0, evaluated.output
    scored = _arena(root, base_image, "score", "--output", str(tmp_path / "out"))
    assert scored.exit_code == 0, scored.output
    board = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    entries = {e["submission_id"]: e for e in board["entries"]}
    held, honest = entries["attacker"], entries["honest"]
    assert held["review_status"] == "under-review" and held["rank"] is None, held
    expected = {(f["source"], f["kind"], f["file"], f["line"]) for f in row["flags"]}
    assert {(f["source"], f["kind"], f["file"], f["line"])
            for f in held["review_flags"]} == expected
    assert all(f["reason"] for f in held["review_flags"])
    assert honest["review_status"] == "none" and honest["rank"] == 1, honest
