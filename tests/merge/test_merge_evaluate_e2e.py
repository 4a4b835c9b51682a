"""End to end: ``arena evaluate`` on a coop sample submission (real git, real Docker)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_bot.cli import main
from arena_bot.intake.submissions import load_submission
from arena_bot.merge.gitmerge import merge_patches
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.tasks.dataset import Dataset

REPO_ROOT = Path(__file__).resolve().parents[2]


def coop_sample() -> Path:
    """The first coop submission of the sample data set under submissions/."""
    for path in sorted((REPO_ROOT / "submissions").glob("*/*/submission.yaml")):
        if load_submission(path.parent).spec.setting == "coop":
            return path.parent
    raise AssertionError("the sample data set has no coop submission")


@pytest.mark.docker
def test_arena_evaluate_merges_a_coop_submission(base_image: str, tmp_path: Path) -> None:
    folder = coop_sample()
    submission = load_submission(folder)
    cache = tmp_path / "cache"
    env = {
        "ARENA_DATASET": str(REPO_ROOT / "dataset"),
        "ARENA_SUBMISSIONS": str(REPO_ROOT / "submissions"),
        "ARENA_CACHE": str(cache),
        "ARENA_BASE_IMAGE": base_image,
    }

    result = CliRunner().invoke(main, ["--root", str(REPO_ROOT), "evaluate", str(folder)],
                                env=env)

    assert result.exit_code == 0, result.output
    assert " merge " in result.output
    stored = list((cache / "results").rglob("*.json"))
    assert len(stored) == 1
    evaluation = EvaluationResult.model_validate_json(stored[0].read_text())
    assert len(evaluation.runs) == len(submission.spec.runs)
    for run, spec in zip(evaluation.runs, submission.spec.runs, strict=True):
        merge = run.merge
        assert merge is not None
        assert [feature.feature for feature in merge.features] == submission.spec.features
        assert merge.both_passed == all(feature.passed for feature in merge.features)
        # The stored analysis is exactly what the git part finds on the same patches.
        repos = list((cache / "repos").iterdir())
        outcome = merge_patches(
            base_repo=repos[0],
            base_commit=evaluation_commit(folder),
            patch1=(folder / spec.patches[0]).read_text(),
            patch2=(folder / spec.patches[1]).read_text(),
        )
        assert (merge.status, merge.strategy) == (outcome.status, outcome.strategy)
        assert merge.conflict_details == outcome.details
        assert merge.conflict_score == 20 * outcome.details.conflict_sections \
            + 2 * outcome.details.conflict_lines


def evaluation_commit(folder: Path) -> str:
    """The base commit of the submission's task."""
    task = load_submission(folder).spec.task
    return Dataset(REPO_ROOT / "dataset").get(task).spec.source.commit
