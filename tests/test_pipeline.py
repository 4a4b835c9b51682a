"""``arena pipeline``, the README's main job, end to end on the sample data (real Docker)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena_bot.cli import main

REPO = Path(__file__).resolve().parent.parent


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


@pytest.mark.docker
def test_pipeline_validates_evaluates_and_scores_every_sample(
    sample_root: Path, base_image: str
) -> None:
    result = run_pipeline(sample_root, base_image)
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
def test_pipeline_reuses_results_and_reports_invalid_submissions(
    sample_root: Path, base_image: str
) -> None:
    first = run_pipeline(sample_root, base_image)
    assert first.exit_code == 0, first.output
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
