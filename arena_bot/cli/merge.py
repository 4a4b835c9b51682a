"""``arena merge``: merge analysis of two agents' patches on a task, outside a submission."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from arena_bot.cli.evaluation_output import failure_lines
from arena_bot.config import load_config
from arena_bot.errors import InputError, SandboxError
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.intake.patches import parse_patch, read_patch_text
from arena_bot.merge.coop import evaluate_coop_run, merge_result, untested_features
from arena_bot.merge.gitmerge import merge_patches
from arena_bot.merge.report import MergeReport
from arena_bot.models.evaluation import MergeResult, TestRunner
from arena_bot.settings import Settings
from arena_bot.tasks.dataset import Dataset, TaskFolder


@click.command("merge")
@click.argument("patch1", type=click.Path(path_type=Path))
@click.argument("patch2", type=click.Path(path_type=Path))
@click.option("--task", "task_id", required=True, help="Task id (a folder under dataset/).")
@click.option(
    "--features",
    nargs=2,
    type=int,
    default=None,
    metavar="I J",
    help="Features of agent 1 and agent 2, I < J (default: 1 2).",
)
@click.option(
    "--no-tests", is_flag=True, help="Only the git part: no Docker, no tests on the merged code."
)
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write seed 003's merge report JSON to this file.",
)
@click.option("--verbose", "-v", is_flag=True,
              help="Also print each feature's test output on the merged code.")
@click.pass_obj
def merge(
    settings: Settings,
    patch1: Path,
    patch2: Path,
    task_id: str,
    features: tuple[int, int] | None,
    no_tests: bool,
    output: Path | None,
    verbose: bool,
) -> None:
    """Merge PATCH1 (agent 1, feature I) with PATCH2 (agent 2, feature J) on a task.

    Test files are dropped from both patches, each is committed on its own branch from the
    task's base commit, and agent 1's branch is merged into agent 2's. Conflicts are counted
    as CooperBench does and, on conflict, the merge is retried with the union strategy. Then
    both features' tests run on the merged code in Docker (unless --no-tests).
    """
    limit = load_config(settings.root).config.limits.patch_bytes  # validation's limit
    texts = (_read_patch(patch1, max_bytes=limit), _read_patch(patch2, max_bytes=limit))
    task = Dataset(Path(settings.dataset_dir)).get(task_id)
    feature_ids = _feature_pair(task=task, features=features)
    base_repo = _base_repos(settings).get(task)
    if no_tests:
        outcome = merge_patches(
            base_repo=base_repo,
            base_commit=task.spec.source.commit,
            patch1=texts[0],
            patch2=texts[1],
        )
        tested = [] if outcome.testable else untested_features(
            outcome=outcome, feature_ids=feature_ids
        )
        result = merge_result(outcome=outcome, features=tested)
    else:
        result = evaluate_coop_run(
            base_repo=base_repo,
            base_commit=task.spec.source.commit,
            patch1=texts[0],
            patch2=texts[1],
            feature_ids=feature_ids,
            run_tests=_docker_runner(settings=settings, task=task),
        )
    report = MergeReport.from_result(
        result,
        repo_name=repo_name(task),
        task_id=task.id,
        feature_ids=feature_ids,
        timestamp=dt.datetime.now(dt.UTC),
    )
    _print_summary(result=result, report=report, verbose=verbose)
    if output is not None:
        report.write(output)
        click.echo(f"merge report written to {output}")


def repo_name(task: TaskFolder) -> str:
    """The report's ``repo_name``: the source URL's repository name, else the task id."""
    url = task.spec.source.url
    if url:
        return url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git")
    return task.id


def _read_patch(path: Path, *, max_bytes: int) -> str:
    text, problem = read_patch_text(path, max_bytes=max_bytes)
    if problem is not None:
        raise InputError(
            problem.message, path=path, line=problem.line,
            hint="pass a unified diff as printed by `git diff --binary` against the base commit",
        )
    parsed = parse_patch(text, max_bytes=max_bytes)
    if not parsed.files:
        # Nothing git could apply; binary or odd sections are left to the merge to judge.
        problem = next(iter(parsed.problems), None)
        raise InputError(
            problem.message if problem else "no file changes in this patch",
            path=path, line=problem.line if problem else None,
            hint="pass a unified diff as printed by `git diff` against the base commit",
        )
    return text


def _feature_pair(*, task: TaskFolder, features: tuple[int, int] | None) -> tuple[int, int]:
    known = task.spec.feature_ids()
    if features is None:
        if len(known) < 2:
            raise InputError(
                f"task {task.id} has a single feature; a merge needs two",
                path=task.root / "task.yaml",
            )
        return (known[0], known[1])
    first, second = features
    if first >= second:
        raise InputError(
            f"--features {first} {second}: agent 1's feature must be the smaller one",
            hint=f"use --features {min(features)} {max(features)} and swap the patches",
        )
    missing = [fid for fid in features if fid not in known]
    if missing:
        raise InputError(
            f"task {task.id} has no feature {', '.join(map(str, missing))} "
            f"(features: {', '.join(map(str, known))})",
            path=task.root / "task.yaml",
        )
    return (first, second)


def _base_repos(settings: Settings) -> BaseRepoCache:
    # The same cache `arena evaluate` uses, so a task is cloned once for both commands.
    return BaseRepoCache(Path(settings.cache_dir) / "repos")


def _docker_runner(*, settings: Settings, task: TaskFolder) -> TestRunner:
    """The evaluation engine's Docker test runner for ``task`` (image built if needed)."""
    # Imported here so that `arena merge --no-tests` needs no Docker engine at all.
    from arena_bot.app.evaluation import docker_test_runner

    try:
        return docker_test_runner(settings, task,
                                  progress=lambda message: click.echo(message, err=True))
    except SandboxError as exc:  # no engine, no base image: the git part still works
        raise SandboxError(
            exc.message, hint=f"{exc.hint}; or add --no-tests for the git part only"
        ) from None


def _print_summary(*, result: MergeResult, report: MergeReport, verbose: bool = False) -> None:
    details = result.conflict_details
    click.echo(f"merge: {result.status} (strategy {result.strategy})")
    click.echo(
        f"  conflict score {result.conflict_score} ({result.severity}): "
        f"{details.conflict_sections} section(s), {details.conflict_lines} line(s), "
        f"{details.avg_lines_per_conflict:.2f} lines per section"
    )
    click.echo(
        "  patches: "
        + ", ".join(f"{agent} {status}" for agent, status in sorted(result.apply_status.items()))
    )
    results = {feature.feature: feature for feature in result.features}
    for feature in (report.feature1, report.feature2):
        if feature.tests_passed is None:
            verdict = "tests not run"
        else:
            verdict = "passed" if feature.tests_passed else "failed"
        tested = results.get(feature.number)
        reason = f" ({tested.reason})" if tested is not None and tested.reason else ""
        click.echo(f"  feature {feature.number}: {verdict}{reason}")
        if tested is not None:
            for line in failure_lines(tested, indent="    "):
                click.echo(line)
            if verbose:
                click.echo(f"    --- feature {feature.number} test output ---")
                click.echo(tested.output.rstrip() or "(no output)")
    if result.error:
        click.echo(f"  note: {result.error}")
    if result.features:
        click.echo(f"  both passed: {'yes' if result.both_passed else 'no'}")
