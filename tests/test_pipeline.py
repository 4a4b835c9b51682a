"""``arena pipeline``, the README's main job, end to end on the sample data (real Docker)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena_bot.cli import main
from arena_bot.models.evaluation import EvaluationResult

REPO = Path(__file__).resolve().parent.parent
#: Documented in its notes: made on a stale checkout, its patch does not apply.
NOT_APPLYING = "csvstat-summaries/2026-11-08_aider_deepseek-v3"


@pytest.fixture(scope="module")
def sample_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's sample dataset and submissions, with its own cache."""
    root = tmp_path_factory.mktemp("pipeline")
    shutil.copytree(REPO / "dataset", root / "dataset")
    shutil.copytree(REPO / "submissions", root / "submissions")
    return root


def run_pipeline(root: Path, base_image: str) -> Result:
    env = {"ARENA_CACHE": str(root / ".arena"), "ARENA_BASE_IMAGE": base_image}
    return CliRunner().invoke(
        main, ["--root", str(root), "pipeline", "--output", str(root / "out")], env=env
    )


def sample_keys() -> set[str]:
    return {
        f"{p.parent.parent.name}/{p.parent.name}"
        for p in (REPO / "submissions").rglob("submission.yaml")
    }


@pytest.fixture(scope="module")
def first_run(sample_root: Path, base_image: str) -> Result:
    """The README's main job on a fresh copy of the samples: the one Docker evaluation of
    every sample submission in the suite (the tests below read what it stored)."""
    return run_pipeline(sample_root, base_image)


@pytest.mark.docker
def test_pipeline_validates_evaluates_and_scores_every_sample(
    sample_root: Path, first_run: Result
) -> None:
    result = first_run
    assert result.exit_code == 0, result.output
    for stage in ("1/3 validate", "2/3 evaluate", "3/3 score"):
        assert stage in result.output
    keys = sample_keys()
    assert f"{len(keys)} submissions checked: {len(keys)} valid, 0 invalid" in result.output

    board = json.loads((sample_root / "out" / "leaderboard.json").read_text())
    entries = {entry["key"]: entry for entry in board["entries"]}
    assert set(entries) == keys
    assert all(entry["status"] == "scored" for entry in entries.values())
    assert {task["task_id"] for task in board["tasks"]} == {
        p.name for p in (REPO / "dataset").iterdir() if (p / "task.yaml").is_file()
    }
    # The sample whose patch was made against an older commit cannot apply: no correctness.
    stale = entries["csvstat-summaries/2026-11-08_aider_deepseek-v3"]
    assert stale["scores"]["correctness"] == 0
    assert all(run["features_passed"] == 0 for run in stale["runs"])
    # A strong sample passes every feature in every run.
    strong = entries["slugkit-options/2026-11-02_claude-code_claude-sonnet-4-5"]
    assert strong["scores"]["correctness"] == 100
    csv_lines = (sample_root / "out" / "leaderboard.csv").read_text().splitlines()
    assert len(csv_lines) == len(keys) + 1


@pytest.mark.docker
def test_every_sample_fails_for_the_right_reasons(sample_root: Path, first_run: Result) -> None:
    """Never a harness error, timeout, rejection or missing report: every sample fails (if
    at all) because real tests failed in the structured results; coop runs have a merge."""
    assert first_run.exit_code == 0, first_run.output
    results = [EvaluationResult.model_validate_json(path.read_bytes())
               for path in sorted((sample_root / ".arena" / "results").rglob("*.json"))]
    assert {f"{r.task_id}/{r.submission_id}" for r in results} == sample_keys()
    passed = failed = 0
    for result in results:
        key = f"{result.task_id}/{result.submission_id}"
        assert result.error is None, key
        for run in result.runs:
            for feature in run.tested_features:
                where = f"{key} {run.run_id} feature {feature.feature}"
                if key == NOT_APPLYING:
                    assert (feature.status, feature.apply_status) == ("apply_failed", "failed")
                    continue
                assert feature.status in {"passed", "failed"}, (where, feature.reason)
                if feature.status == "failed":
                    failed += 1
                    assert feature.tests_failed + feature.tests_errored > 0, where
                else:
                    passed += 1
                    # Exit status 1: the harness's failing canary test (never counted).
                    assert feature.exit_code == 1 and feature.tests_passed > 0, where
    assert passed > 0 and failed > 0
    coop = [r for r in results if any(run.merge is not None for run in r.runs)]
    assert coop and all(run.merge is not None for r in coop for run in r.runs)


@pytest.mark.docker
def test_pipeline_reuses_results_and_reports_invalid_submissions(
    sample_root: Path, base_image: str, first_run: Result
) -> None:
    assert first_run.exit_code == 0, first_run.output
    before = (sample_root / "out" / "leaderboard.json").read_bytes()

    broken = sample_root / "submissions" / "ttlcache-bugs" / "2026-11-20_broken_yaml"
    shutil.copytree(
        sample_root / "submissions" / "ttlcache-bugs" / "2026-11-06_codex-cli_gpt-5", broken
    )
    (broken / "submission.yaml").write_text("task: ttlcache-bugs\ntool: [unclosed\n")
    try:
        second = run_pipeline(sample_root, base_image)
    finally:
        shutil.rmtree(broken)

    assert second.exit_code == 1
    assert "2026-11-20_broken_yaml/submission.yaml" in second.output
    assert "1 submission(s) are invalid" in second.output
    # Nothing was evaluated again, and the valid submissions' leaderboard is unchanged.
    evaluate_stage = second.output.split("2/3 evaluate")[1].split("3/3 score")[0]
    assert "(cached)" in evaluate_stage
    assert "broken_yaml" not in evaluate_stage
    assert (sample_root / "out" / "leaderboard.json").read_bytes() == before


@pytest.mark.docker
def test_unchanged_tasks_are_counted_from_the_memo_and_any_change_is_seen(
    sample_root: Path, base_image: str, first_run: Result, tmp_path: Path
) -> None:
    """A task all of whose results were found stored is remembered in the memo under the
    content of every file that decided it; while none changes, the next run counts its
    submissions without loading them. A touched task file (same bytes) changes nothing; a
    stored result removed is seen: that task is looked at again (and the missing result
    evaluated again), never counted."""
    assert first_run.exit_code == 0, first_run.output
    board = tmp_path / "board"
    shutil.copytree(sample_root, board)
    # A copy is the same board (its content ids are): start without the memo the earlier
    # runs on the sample left, to see a task remembered, then counted.
    (board / ".arena" / "memo.sqlite").unlink(missing_ok=True)

    def evaluate_stage(result: Result) -> str:
        assert result.exit_code == 0, result.output
        return result.output.split("2/3 evaluate")[1].split("3/3 score")[0]

    remembered = evaluate_stage(run_pipeline(board, base_image))
    assert all(f"{key} (cached)" in remembered for key in sample_keys())
    assert "unchanged since" not in remembered
    before = (board / "out" / "leaderboard.json").read_bytes()

    counted = evaluate_stage(run_pipeline(board, base_image))
    assert f"{len(sample_keys())} submission(s) of 3 task(s) unchanged" in counted
    assert "(cached)" not in counted and "submission / run" not in counted  # no empty table
    assert (board / "out" / "leaderboard.json").read_bytes() == before

    (board / "dataset" / "ttlcache-bugs" / "task.yaml").touch()  # same bytes, new stat
    stored = next((board / ".arena" / "results").glob(f"{NOT_APPLYING}.*.json"))
    stored.unlink()
    seen = evaluate_stage(run_pipeline(board, base_image))
    untouched = {key for key in sample_keys() if not key.startswith("csvstat-summaries/")}
    assert f"{len(untouched)} submission(s) of 2 task(s) unchanged" in seen
    looked_at = sample_keys() - untouched - {NOT_APPLYING}  # and found stored
    assert all(f"{key} (cached)" in seen for key in looked_at)
    assert f"{NOT_APPLYING} run" in seen and f"{NOT_APPLYING} (cached)" not in seen
    assert stored.exists()  # evaluated again and stored
    # The same board: only the digest of its inputs moved (the new result's time is new).
    after = json.loads((board / "out" / "leaderboard.json").read_bytes())
    assert after.pop("input_digest") != json.loads(before).pop("input_digest")
    assert after == {k: v for k, v in json.loads(before).items() if k != "input_digest"}


def test_a_damaged_evaluation_count_counts_nothing() -> None:
    """What the memo holds for a task's evaluation is checked: a damaged value is no count
    (the task is looked at again), never an exception out of the pipeline."""
    from arena_bot.app.evaluation import _counted

    assert _counted("3:2:4") == (3, 2, 4)
    for key in ("", "3:2", "a:b:c", "3:2:4:5", "-1:0:0", "\u00b2:1:1", "1:2:3\n", "1::2"):
        assert _counted(key) is None, key
