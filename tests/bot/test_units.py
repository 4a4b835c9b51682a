"""Scale-out on real Docker: `arena bot plan` → `arena bot evaluate-unit` on separate
"runners" → `arena bot aggregate` stores exactly what `arena evaluate` stores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from support.fixture_task import copy_fixture_task, write_fixture_submission

from arena_bot.cli import main
from arena_bot.models.evaluation import EvaluationResult

KEY = "calc-fixture/solo-half"
COOP = "calc-fixture/coop-pair"


def _root(tmp_path: Path, fixture_task_root: Path, name: str) -> Path:
    """A repository: the fixture task and a solo submission solving feature 1 of 2."""
    root = tmp_path / name
    copy_fixture_task(fixture_task_root, root)
    write_fixture_submission(root, KEY.split("/")[1], setting="solo", features=(1, 2))
    return root


def _coop_root(tmp_path: Path, fixture_task_root: Path, name: str) -> Path:
    """A repository with a coop submission: agent 1 solves feature 1, agent 2 feature 2."""
    root = tmp_path / name
    copy_fixture_task(fixture_task_root, root)
    write_fixture_submission(root, COOP.split("/")[1], setting="coop", features=(1, 2),
                             gold_of=(1, 2))
    return root


def _arena(root: Path, base_image: str, *args: str):  # type: ignore[no-untyped-def]
    env = {"ARENA_CACHE": str(root / ".arena"), "ARENA_BASE_IMAGE": base_image,
           "GITHUB_OUTPUT": str(root / "gh_output")}
    return CliRunner().invoke(main, ["--root", str(root), *args], env=env)


def _stored(root: Path) -> dict[str, EvaluationResult]:
    return {p.name: EvaluationResult.model_validate_json(p.read_bytes())
            for p in (root / ".arena" / "results").rglob("*.json")}


@pytest.mark.docker
def test_units_on_separate_runners_aggregate_to_what_evaluate_stores(
    tmp_path: Path, fixture_task_root: Path, base_image: str
) -> None:
    root = _root(tmp_path, fixture_task_root, "publish")
    plan = _arena(root, base_image, "bot", "plan", "--pending", "--threshold", "1")
    assert plan.exit_code == 0, plan.output
    matrix = json.loads(plan.stdout.splitlines()[0])
    assert sorted(job["units"] for job in matrix["include"]) == [f"{KEY}#f1", f"{KEY}#f2"]
    outputs = (root / "gh_output").read_text()
    assert "units=2\n" in outputs and "scale-out=true\n" in outputs

    # each matrix job starts from its own checkout: a fresh store
    shards = []
    for job in matrix["include"]:
        runner = _root(tmp_path, fixture_task_root, f"runner{job['shard']}")
        out = tmp_path / f"unit-results-{job['shard']}"
        done = _arena(runner, base_image, "bot", "evaluate-unit", job["units"],
                      "--output", str(out))
        assert done.exit_code == 0, done.output
        assert not (runner / ".arena" / "results").exists()  # a unit stores nothing itself
        shards.append(out)
    f1, f2 = (sorted(out.glob("*.json")) for out in shards)
    partial = _arena(root, base_image, "bot", "aggregate", *map(str, f2))
    assert partial.exit_code == 0 and "stored 0 submission" in partial.output
    assert "a unit is missing" in partial.output
    merged = _arena(root, base_image, "bot", "aggregate", *map(str, f2 + f1))
    assert merged.exit_code == 0, merged.output
    assert f"{KEY}: stored" in merged.output
    again = _arena(root, base_image, "bot", "plan", "--pending", "--threshold", "1")
    assert json.loads(again.stdout.splitlines()[0]) == {"include": []}
    assert "scale-out=false" in (root / "gh_output").read_text().splitlines()[-1]

    # the same submission evaluated in one go by `arena evaluate`
    local = _root(tmp_path, fixture_task_root, "local")
    evaluated = _arena(local, base_image, "evaluate", "--all")
    assert _evaluation_ran(evaluated), evaluated.output
    (name, scaled), = _stored(root).items()
    (local_name, whole), = _stored(local).items()
    assert name == local_name  # the same content address: publish finds it
    assert scaled.input_hash == whole.input_hash and scaled.image == whole.image
    outcome = [(f.feature, f.status, f.tests_passed, f.tests_failed)
               for r in scaled.runs for f in r.features]
    assert outcome == [(f.feature, f.status, f.tests_passed, f.tests_failed)
                       for r in whole.runs for f in r.features]
    assert [s for _, s, _, _ in outcome] == ["passed", "failed"]
    # and it scores: the board has the entry scored, not pending
    scored = _arena(root, base_image, "score", "--output", str(root / "board"))
    assert scored.exit_code == 0, scored.output
    board = json.loads((root / "board" / "leaderboard.json").read_text())
    assert [e["status"] for e in board["entries"]] == ["scored"]


def test_unknown_units_are_clear_errors(tmp_path: Path, fixture_task_root: Path) -> None:
    root = _root(tmp_path, fixture_task_root, "repo")
    for unit, expected in [(f"{KEY}#f9", f"this submission's units are: {KEY}#f1, {KEY}#f2"),
                           ("calc-fixture/nope#f1", "unknown unit"),
                           ("../../etc#f1", "unknown unit"), (KEY, "unknown unit")]:
        result = _arena(root, "arena-base:bookworm", "bot", "evaluate-unit", unit,
                        "--output", str(tmp_path / "o"))
        assert result.exit_code == 2, result.output
        assert expected in result.output and "Traceback" not in result.output


def test_aggregate_refuses_a_file_that_is_not_a_unit_result(tmp_path: Path,
                                                             fixture_task_root: Path) -> None:
    root = _root(tmp_path, fixture_task_root, "repo")
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"unit": f"{KEY}#f1", "passed": True}))
    result = _arena(root, "arena-base:bookworm", "bot", "aggregate", str(odd))
    assert result.exit_code == 1 and "is not a unit result" in result.output
    assert "evaluate-unit" in result.output and "Traceback" not in result.output


@pytest.mark.docker
def test_a_coop_pair_is_one_unit_and_assembles_like_evaluate(
    tmp_path: Path, fixture_task_root: Path, base_image: str
) -> None:
    root = _coop_root(tmp_path, fixture_task_root, "publish")
    plan = _arena(root, base_image, "bot", "plan", "--pending")
    assert json.loads(plan.stdout.splitlines()[0]) == {
        "include": [{"shard": 0, "units": f"{COOP}#coop-1-2"}]}
    out = tmp_path / "units"
    done = _arena(root, base_image, "bot", "evaluate-unit", f"{COOP}#coop-1-2",
                  "--output", str(out))
    assert done.exit_code == 0, done.output
    assert "run1 merge" in done.output
    merged = _arena(root, base_image, "bot", "aggregate", "--from", str(out))
    assert merged.exit_code == 0 and f"{COOP}: stored" in merged.output, merged.output
    local = _coop_root(tmp_path, fixture_task_root, "local")
    assert _evaluation_ran(_arena(local, base_image, "evaluate", "--all"))
    (name, scaled), = _stored(root).items()
    (local_name, whole), = _stored(local).items()
    assert name == local_name
    merge, reference = scaled.runs[0].merge, whole.runs[0].merge
    assert merge is not None and reference is not None
    assert (merge.status, merge.both_passed, merge.conflict_score) == (
        reference.status, reference.both_passed, reference.conflict_score)
    assert [(f.feature, f.status) for f in merge.features] == [
        (f.feature, f.status) for f in reference.features]


@pytest.mark.docker
def test_plan_pending_finds_what_evaluation_stored_under_the_chosen_base_image(
    tmp_path: Path, fixture_task_root: Path, base_image: str
) -> None:
    # No base image configured: evaluation asks for the public default and, on a machine
    # without a registry, falls back to the offline image and stores its results under that
    # name. The plan must judge "pending" with the same choice, or it re-plans everything.
    root = _root(tmp_path, fixture_task_root, "default-image")
    env = {"ARENA_CACHE": str(root / ".arena"), "GITHUB_OUTPUT": str(root / "gh_output")}
    evaluated = CliRunner().invoke(main, ["--root", str(root), "evaluate", "--all"], env=env)
    assert _evaluation_ran(evaluated), evaluated.output
    plan = CliRunner().invoke(main, ["--root", str(root), "bot", "plan", "--pending"], env=env)
    assert plan.exit_code == 0, plan.output
    assert json.loads(plan.stdout.splitlines()[0]) == {"include": []}


def _evaluation_ran(result: Any) -> bool:
    """`arena evaluate` ran to its end: exit 0 when every feature passed, else 1 with the
    summary line naming the features that did not (like pytest)."""
    lines = result.output.rstrip().splitlines()
    return (result.exit_code == 0 and lines[-1].startswith("all ")) or (
        result.exit_code == 1 and "feature run(s) did not pass" in lines[-1])
