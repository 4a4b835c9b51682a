"""Merge use case (`arena merge`): the merge analysis of two agents' patches on a task,
outside a submission."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from arena_bot.app.evaluation import docker_test_runner
from arena_bot.core.config import load_config
from arena_bot.core.errors import InputError, SandboxError
from arena_bot.core.settings import Settings
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.intake.patches import parse_patch, read_patch_text
from arena_bot.merge.coop import evaluate_coop_run
from arena_bot.merge.report import MergeReport
from arena_bot.models.evaluation import MergeResult
from arena_bot.tasks.dataset import Dataset, TaskFolder


@dataclass(frozen=True)
class MergeAnalysis:
    result: MergeResult
    #: Seed 003's merge report of the result.
    report: MergeReport


def analyse_merge(
    settings: Settings,
    patches: tuple[Path, Path],
    *,
    task_id: str,
    features: tuple[int, int] | None,
    run_tests: bool,
    progress: Callable[[str], None] = lambda _line: None,
) -> MergeAnalysis:
    """Merge ``patches`` (agent 1's feature I, agent 2's feature J; default: the task's
    first two features) from the task's base commit, test files dropped, conflicts counted
    as CooperBench does; with ``run_tests``, both features' tests run on the merged code in
    Docker (the task image built if needed)."""
    limit = load_config(settings.root).config.limits.patch_bytes  # validation's limit
    texts = (_read_patch(patches[0], max_bytes=limit), _read_patch(patches[1], max_bytes=limit))
    task = Dataset(settings.dataset_dir).get(task_id)
    feature_ids = _feature_pair(task=task, features=features)
    # The same cache `arena evaluate` uses, so a task is cloned once for both commands.
    base_repo = BaseRepoCache(settings.cache_dir / "repos").get(task)
    with ExitStack() as stack:
        runner = None
        if run_tests:
            try:
                runner = stack.enter_context(docker_test_runner(settings, task,
                                                                progress=progress))
            except SandboxError as exc:  # no engine, no base image: the git part still works
                raise SandboxError(
                    exc.message, hint=f"{exc.hint}; or add --no-tests for the git part only"
                ) from None
        result = evaluate_coop_run(base_repo=base_repo, base_commit=task.spec.source.commit,
                                   patch1=texts[0], patch2=texts[1], feature_ids=feature_ids,
                                   run_tests=runner)
    report = MergeReport.from_result(result, repo_name=repo_name(task), task_id=task.id,
                                     feature_ids=feature_ids, timestamp=dt.datetime.now(dt.UTC))
    return MergeAnalysis(result=result, report=report)


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
