"""plan.json: the matrix output stays small however many units there are (GitHub caps a
job's outputs at 1 MB), the unit ids travel in the plan file, and `arena bot evaluate-unit
--plan FILE --shard N` reads it back or says clearly what is wrong with it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.fixture_task import copy_fixture_task, write_fixture_submission

from arena_bot.bot.plan import (
    PLAN_FILE,
    PlanFile,
    matrix_of,
    read_plan,
    shard,
    units_for,
    write_plan,
)
from arena_bot.cli import main
from arena_bot.core.errors import InputError, UsageError

#: GitHub's cap on a job's outputs, which it counts as UTF-16 (2 bytes a character).
OUTPUTS_CAP = 1024 * 1024


def test_thirty_thousand_units_keep_the_matrix_small_and_round_trip(tmp_path: Path) -> None:
    """A harness bump on a 10,000-submission board re-evaluates every unit: 30,000 here."""
    units = units_for(
        (f"task-{i % 40:02d}/2026-11-{1 + i % 28:02d}_tool-{i:05d}_claude-sonnet-4-5",
         "solo", [1, 2, 3]) for i in range(10_000))
    assert len(units) == 30_000
    ids = [u.id for u in units]
    # what the matrix carried before: every id, well past the cap
    assert 2 * len(" ".join(ids)) > OUTPUTS_CAP

    shards = shard(units)
    matrix = json.dumps(matrix_of(shards), sort_keys=True)
    assert len(matrix.encode()) < 20_000
    assert json.loads(matrix) == {"include": [{"shard": i} for i in range(256)]}

    path = write_plan(PlanFile.of(shards), tmp_path / "arena-plan")
    assert path == tmp_path / "arena-plan" / PLAN_FILE
    plan = read_plan(path)
    assert plan.schema_version == 1
    assert [plan.units_of(i, path) for i in range(256)] == shards
    back = [u for i in range(256) for u in plan.units_of(i, path)]
    assert sorted(back) == ids  # every unit once
    assert plan.units_of(5, path) == ids[5::256]  # round-robin, as the shards were dealt


def test_the_plan_file_is_the_documented_json(tmp_path: Path) -> None:
    units = units_for([("t/a", "coop", [1, 2]), ("t/b", "solo", [1, 3])])
    path = write_plan(PlanFile.of(shard(units, max_jobs=2)), tmp_path)
    assert json.loads(path.read_text()) == {
        "schema_version": 1,
        "shards": [{"shard": 0, "units": ["t/a#coop-1-2", "t/b#f3"]},
                   {"shard": 1, "units": ["t/b#f1"]}],
    }
    empty = write_plan(PlanFile.of([]), tmp_path / "none")
    assert read_plan(empty).shards == []
    with pytest.raises(UsageError, match="the plan has no shard 0: it has no shard"):
        read_plan(empty).units_of(0, empty)


def _plan(tmp_path: Path, document: object) -> Path:
    """``tmp_path/plan.json`` holding ``document`` (bytes and text as they are, else JSON)."""
    path = tmp_path / "plan.json"
    if isinstance(document, bytes):
        path.write_bytes(document)
    else:
        path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


GOOD = {"schema_version": 1, "shards": [{"shard": 0, "units": ["t/a#f1"]},
                                         {"shard": 1, "units": ["t/b#f1"]}]}


@pytest.mark.parametrize(("document", "said"), [
    ("{", "the plan is not JSON"),
    (b"\xff\xfe{}", "the plan is not JSON"),
    ("[" * 100_000 + "]" * 100_000, "not JSON (nested too deep)"),
    ({**GOOD, "schema_version": 2}, "the plan has schema_version 2; this bot reads version 1"),
    ({"shards": GOOD["shards"]}, "the plan has no schema_version; this bot reads version 1"),
    ([1, 2], "does not match its format at (top level)"),
    ({**GOOD, "units": 3}, "does not match its format at units: Extra inputs"),
    ({"schema_version": 1, "shards": [{"shard": "0", "units": ["t/a#f1"]}]},
     "at shards.0.shard: Input should be a valid integer"),
    ({"schema_version": 1, "shards": [{"shard": 0, "units": "t/a#f1 t/b#f1"}]},
     "at shards.0.units: Input should be a valid list"),
    ({"schema_version": 1, "shards": [{"shard": 0, "units": []}]}, "at shards.0.units"),
    ({"schema_version": 1, "shards": [{"shard": 1, "units": ["t/a#f1"]}]},
     "shards[0] has shard 1; the shards are numbered 0, 1, 2... in order"),
    ({"schema_version": 1, "shards": [{"shard": 0, "units": ["t/a#f1"]},
                                      {"shard": 1, "units": ["t/a#f1"]}]},
     "unit 't/a#f1' is in more than one place"),
])
def test_a_bad_plan_file_is_an_input_error_naming_it(
    tmp_path: Path, document: object, said: str
) -> None:
    path = _plan(tmp_path, document)
    with pytest.raises(InputError) as caught:
        read_plan(path)
    assert said in str(caught.value) and caught.value.path == path


def test_a_missing_plan_or_a_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read the plan: No such file") as caught:
        read_plan(tmp_path / "arena-plan" / "plan.json")
    assert caught.value.hint and "arena-plan" in caught.value.hint
    (tmp_path / "folder").mkdir()
    with pytest.raises(InputError, match="the plan is not a file"):
        read_plan(tmp_path / "folder")


def _evaluate_unit(root: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--root", str(root), "bot", "evaluate-unit", *args,
                                     "--output", str(root / "units")])


@pytest.fixture
def board(tmp_path: Path, fixture_task_root: Path) -> Path:
    root = tmp_path / "board"
    copy_fixture_task(fixture_task_root, root)
    write_fixture_submission(root, "solo", setting="solo", features=(1, 2))
    return root


@pytest.mark.parametrize(("document", "args", "code", "said"), [
    (None, ["--shard", "0"], 1, "plan.json: cannot read the plan: No such file"),
    ("{", ["--shard", "0"], 1, "plan.json: the plan is not JSON"),
    ({**GOOD, "schema_version": 2}, ["--shard", "0"], 1, "the plan has schema_version 2"),
    (GOOD, ["--shard", "2"], 2, "plan.json: the plan has no shard 2: its shards are 0 to 1"),
])
def test_evaluate_unit_names_the_plan_file_it_cannot_use(
    board: Path, document: object, args: list[str], code: int, said: str
) -> None:
    path = board / "plan.json" if document is None else _plan(board, document)
    done = _evaluate_unit(board, "--plan", str(path), *args)
    assert done.exit_code == code, done.output
    assert said in done.output and str(path) in done.output
    assert "Traceback" not in done.output
    assert not (board / "units").exists()


@pytest.mark.parametrize(("args", "said"), [
    ([], "no unit to evaluate: give UNITS, or --plan FILE --shard N"),
    (["calc-fixture/solo#f1", "--plan", "plan.json", "--shard", "0"],
     "UNITS and --plan/--shard both given"),
    (["--plan", "plan.json"], "--shard is missing: --plan FILE and --shard N go together"),
    (["--shard", "0"], "--plan is missing"),
])
def test_evaluate_unit_takes_units_or_a_plan_shard_not_both(
    board: Path, args: list[str], said: str
) -> None:
    done = _evaluate_unit(board, *args)
    assert done.exit_code == 2, done.output
    assert said in done.output and "Traceback" not in done.output


def test_evaluate_unit_evaluates_the_shard_the_plan_lists(board: Path) -> None:
    """Every id is checked before anything runs (no Docker needed to see that it is the
    asked shard's ids that reach the evaluation): shard 1's unknown unit is refused, shard
    0 would not have been."""
    plan = board / "arena-plan"
    done = CliRunner().invoke(main, ["--root", str(board), "bot", "plan", "--output", str(plan)])
    assert done.exit_code == 0, done.output
    assert read_plan(plan / PLAN_FILE).shards[0].units == ["calc-fixture/solo#f1"]
    path = write_plan(PlanFile.of([["calc-fixture/solo#f1"], ["calc-fixture/solo#f9"]]), plan)
    refused = _evaluate_unit(board, "--plan", str(path), "--shard", "1")
    assert refused.exit_code == 2, refused.output
    assert "shard 1 of" in refused.output and "1 unit(s)" in refused.output
    assert "unknown unit 'calc-fixture/solo#f9'" in refused.output
    assert "calc-fixture/solo#f1, calc-fixture/solo#f2" in refused.output


def test_a_wrong_event_is_refused_before_the_plan_is_read(board: Path) -> None:
    done = CliRunner().invoke(
        main, ["--root", str(board), "bot", "evaluate-unit", "--plan", "missing.json",
               "--shard", "0", "--output", str(board / "units")],
        env={**os.environ, "GITHUB_EVENT_NAME": "pull_request"})
    assert done.exit_code == 2
    assert "triggered by pull_request: nothing done" in done.output
    assert "missing.json" not in done.output
