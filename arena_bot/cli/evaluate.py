"""``arena evaluate``: run submissions' patches against their tasks' tests in Docker."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena_bot.config import load_config
from arena_bot.dataset import Dataset, TaskFolder
from arena_bot.errors import InputError, UsageError
from arena_bot.evaluation.engine import Evaluator, Outcome
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.evaluation.store import ResultStore
from arena_bot.images import TaskImages, resolve_base_image
from arena_bot.index import Index
from arena_bot.models.evaluation import FeatureResult
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.sandbox.engine import docker_client
from arena_bot.settings import Settings
from arena_bot.submissions import SubmissionFolder, find_submission_folders, load_submission


@click.command("evaluate")
@click.argument(
    "paths", nargs=-1, type=click.Path(path_type=Path), metavar="[SUBMISSION]..."
)
@click.option("--all", "all_", is_flag=True, help="Evaluate every submission under submissions/.")
@click.option(
    "--jobs", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
    help="Evaluation units run in parallel.",
)
@click.option(
    "--base-image", default=None,
    help="Base image of the task images (default: ARENA_BASE_IMAGE or the public "
    "python:3.11-slim-bookworm; offline: arena-base:bookworm from `arena images base`).",
)
@click.option("--force", is_flag=True, help="Re-run even when a stored result matches.")
@click.pass_obj
def evaluate(
    settings: Settings,
    paths: tuple[Path, ...],
    all_: bool,
    jobs: int,
    base_image: str | None,
    force: bool,
) -> None:
    """Run each SUBMISSION's patches against its task's tests in hardened containers.

    Prints one line per run and feature and stores an EvaluationResult JSON per submission
    under the cache (same inputs: reused). Failing tests are results: the exit status is 0
    whenever evaluation ran, 1 for bad input, 2 for a wrong call.
    """
    if all_ == bool(paths):
        raise UsageError("give SUBMISSION paths or --all (one of the two)")
    if all_:
        if not settings.submissions_dir.is_dir():
            raise UsageError("no submissions/ folder here", path=settings.submissions_dir,
                             hint="run from the repository root or pass --root")
        paths = (settings.submissions_dir,)
    run_evaluation(
        settings, find_submission_folders(list(paths)), jobs=jobs, base_image=base_image,
        force=force,
    )


def run_evaluation(
    settings: Settings,
    folders: list[Path],
    *,
    jobs: int,
    base_image: str | None,
    force: bool,
    index: Index | None = None,
) -> list[Outcome]:
    """Evaluate the submissions in ``folders`` in Docker, print the table, return outcomes.

    ``index`` spares re-reading and re-hashing files an earlier stage or run already read.
    """
    dataset = Dataset(settings.dataset_dir, index)
    pairs = [_pair(load_submission(folder, index), dataset) for folder in folders]
    client = docker_client()
    engine = DockerEngine(client)
    swept = engine.sweep()
    if swept:
        click.echo(f"removed {swept} leftover sandbox container(s) of interrupted runs")
    resolved = resolve_base_image(
        client, base_image or settings.base_image, explicit=base_image is not None,
        progress=lambda line: click.echo(line, err=True),
    )
    evaluator = Evaluator(
        engine=engine,
        images=TaskImages(client, base_image=resolved,
                          progress=lambda line: click.echo(line, err=True)),
        store=ResultStore(settings.results_dir, index),
        repos=BaseRepoCache(settings.cache_dir / "repos"),
        progress=lambda line: click.echo(line, err=True),
        patch_bytes=load_config(settings.root).config.limits.patch_bytes,
    )
    outcomes = evaluator.evaluate(pairs, jobs=jobs, force=force)
    engine.drain()
    click.echo(render_table(outcomes))
    click.echo(f"results: {settings.results_dir}")
    sys.stdout.flush()
    return outcomes


def _pair(submission: SubmissionFolder, dataset: Dataset) -> tuple[SubmissionFolder, TaskFolder]:
    task = dataset.get(submission.spec.task)
    unknown = [fid for fid in submission.spec.features if fid not in task.features]
    if unknown:
        raise InputError(
            f"features {unknown} do not exist in task {task.id} "
            f"(it has {sorted(task.features)})",
            path=submission.yaml_path,
            line=submission.source.line_of(("features",)),
        )
    return submission, task


def _feature_row(label: str, feature: FeatureResult) -> list[str]:
    tests = f"{feature.tests_passed}/{feature.tests_failed}/{feature.tests_errored}"
    return [label, f"f{feature.feature}", feature.status, feature.apply_status, tests,
            f"{feature.duration:.1f}s", feature.reason or ""]


def render_table(outcomes: list[Outcome]) -> str:
    """The summary table: one row per run and feature (merged code for coop runs)."""
    header = ["submission / run", "feature", "status", "patch", "pass/fail/err", "time", "reason"]
    rows: list[list[str]] = []
    for outcome in outcomes:
        result = outcome.result
        name = outcome.submission.key + (" (cached)" if outcome.cached else "")
        if result.error:
            rows.append([name, "-", "error", "-", "-", f"{result.duration:.1f}s", result.error])
            continue
        for run in result.runs:
            label = f"{name} {run.run_id}"
            if run.merge is not None:
                merge = run.merge
                rows.append([label, "merge", merge.status, merge.strategy,
                             f"score {merge.conflict_score}", "",
                             merge.error or f"severity {merge.severity}"])
            for feature in run.tested_features:
                rows.append(_feature_row(label, feature))
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)]
        lines.append("  ".join([*cells, _one_line(row[-1])]).rstrip())
    passed = sum(f.passed for o in outcomes for r in o.result.runs for f in r.tested_features)
    total = sum(len(r.tested_features) for o in outcomes for r in o.result.runs)
    lines.append(f"{len(outcomes)} submission(s), {passed}/{total} feature runs passed")
    return "\n".join(lines)


def _one_line(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
