"""Evaluation use case: run submissions' patches against their tasks' tests in Docker."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena_bot.app.memo import Memo, code_version
from arena_bot.app.scoring import task_inputs
from arena_bot.core.config import load_config
from arena_bot.core.errors import InputError, SandboxError
from arena_bot.core.settings import Settings
from arena_bot.evaluation.engine import Evaluator, Outcome, make_test_runner
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.evaluation.store import ResultStore
from arena_bot.intake.submissions import SubmissionFolder, load_submission
from arena_bot.models.evaluation import TestRunner
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.sandbox.engine import ENGINE_ERRORS, docker_client
from arena_bot.sandbox.images import TaskImages, local_base_image, resolve_base_image
from arena_bot.tasks.dataset import Dataset, TaskFolder


@dataclass(frozen=True)
class Unchanged:
    """Submissions an earlier run found stored results for, none of whose inputs changed
    since (see :func:`evaluate_submissions`): counted, not loaded."""

    submissions: int = 0
    tasks: int = 0
    #: Feature runs passed, of ``feature_runs`` (as the table's last line counts them).
    passed: int = 0
    feature_runs: int = 0


@dataclass(frozen=True)
class Evaluated:
    """What one evaluation call did: each submission's outcome, and the sandbox containers
    of interrupted earlier runs it removed first.

    With ``summarize_unchanged``, the outcomes of tasks the memo vouched for are not loaded:
    ``unchanged`` counts them instead."""

    outcomes: list[Outcome]
    swept: int = 0
    unchanged: Unchanged | None = None


def evaluate_submissions(
    settings: Settings,
    folders: Sequence[Path],
    *,
    jobs: int,
    base_image: str | None,
    force: bool,
    memo: Memo | None = None,
    progress: Callable[[str], None] = lambda _line: None,
    summarize_unchanged: bool = False,
) -> Evaluated:
    """Evaluate the submissions in ``folders`` in Docker and store their results.

    ``progress`` receives what is being done (image builds, the base image chosen, units).

    ``summarize_unchanged`` (the pipeline, over a whole board): a task all of whose
    submissions had stored results is remembered in ``memo`` under the content ids of
    everything that decided it (the submissions' and the task's files, the stored results,
    the base image, the bot's code); when the next run finds the same key, nothing of the
    task is loaded or read, and its submissions are counted in ``unchanged``.
    """
    dataset = Dataset(settings.dataset_dir)
    if not (summarize_unchanged and memo is not None and not force):
        pairs = [_pair(load_submission(folder), dataset) for folder in folders]
        setup = docker_evaluator(settings, base_image=base_image, progress=progress)
        outcomes = setup.evaluator.evaluate(pairs, jobs=jobs, force=force)
        setup.engine.drain()
        return Evaluated(outcomes=outcomes, swept=setup.swept)
    setup = docker_evaluator(settings, base_image=base_image, progress=progress)
    evaluator = setup.evaluator
    groups: dict[str, list[Path]] = {}
    for folder in folders:
        groups.setdefault(folder.parent.name, []).append(folder)
    tasks = [dataset.get(task_id) for task_id in sorted(groups) if dataset.has(task_id)]
    inputs = task_inputs(settings, tasks, settings.results_dir,
                         f"{code_version()}\n{evaluator.images.base_image}",
                         known=dataset.task_ids(), only=folders)
    found: dict[Path, Outcome] = {}
    missing: list[tuple[SubmissionFolder, TaskFolder]] = []
    unchanged = Unchanged()
    for task_id, group in groups.items():
        key = f"evaluated:{inputs[task_id].key}" if task_id in inputs else ""
        stored = memo.get(key) if key else None
        counted = _counted(stored.decode()) if stored is not None else None
        if counted is not None:
            submissions, passed, runs = counted
            unchanged = Unchanged(
                submissions=unchanged.submissions + submissions, tasks=unchanged.tasks + 1,
                passed=unchanged.passed + passed, feature_runs=unchanged.feature_runs + runs,
            )
            continue
        outcomes = []
        for folder in group:
            pair = _pair(load_submission(folder), dataset)
            outcome = evaluator.stored(*pair)
            if outcome is None:
                missing.append(pair)
            else:
                found[folder] = outcome
                outcomes.append(outcome)
        if key and len(outcomes) == len(group):
            passed, runs = feature_counts(outcomes)
            memo.put(key, f"{len(group)}:{passed}:{runs}".encode())
    for outcome in evaluator.evaluate(missing, jobs=jobs):
        found[outcome.submission.root] = outcome
    setup.engine.drain()
    return Evaluated(outcomes=[found[folder] for folder in folders if folder in found],
                     swept=setup.swept, unchanged=unchanged)


def _counted(key: str) -> tuple[int, int, int] | None:
    """(submissions, feature runs passed, feature runs) as the memo holds them; ``None`` when
    damaged (the task is then looked at again)."""
    counts = key.split(":")
    if len(counts) != 3 or not all(count.isascii() and count.isdigit() for count in counts):
        return None
    submissions, passed, runs = (int(count) for count in counts)
    return submissions, passed, runs


def feature_counts(outcomes: Sequence[Outcome]) -> tuple[int, int]:
    """(feature runs passed, feature runs) of ``outcomes``: what the table's last line and
    the memo's count of an unchanged task say."""
    runs = [run for outcome in outcomes for run in outcome.result.runs]
    return (sum(f.passed for run in runs for f in run.tested_features),
            sum(len(run.tested_features) for run in runs))


@dataclass(frozen=True)
class DockerEvaluator:
    """An evaluator on this machine's Docker engine, the engine (to drain once done) and
    how many leftover sandbox containers of interrupted runs were removed first."""

    evaluator: Evaluator
    engine: DockerEngine
    swept: int


def task_images(
    settings: Settings, base_image: str | None, progress: Callable[[str], None]
) -> TaskImages:
    """The task image builder (its ``client`` is this machine's Docker engine) on
    ``base_image`` (given: chosen explicitly, an error when missing) or the configured one:
    where every use case that builds task images gets it."""
    client = docker_client()
    resolved = resolve_base_image(client, base_image or settings.base_image,
                                  explicit=base_image is not None, progress=progress)
    return TaskImages(client, base_image=resolved, progress=progress)


def docker_evaluator(
    settings: Settings, *, base_image: str | None,
    progress: Callable[[str], None] = lambda _line: None,
) -> DockerEvaluator:
    """The one way an evaluator is put together (`arena evaluate`, the pipeline, the bot's
    matrix units): engine, task images, result store, base-repository cache and the
    configured patch limit."""
    images = task_images(settings, base_image, progress)
    engine = DockerEngine(images.client)
    swept = engine.sweep()
    evaluator = Evaluator(
        engine=engine,
        images=images,
        store=ResultStore(settings.results_dir),
        repos=BaseRepoCache(settings.cache_dir / "repos"),
        progress=progress,
        patch_bytes=load_config(settings.root).config.limits.patch_bytes,
    )
    return DockerEvaluator(evaluator=evaluator, engine=engine, swept=swept)


@contextmanager
def docker_test_runner(
    settings: Settings, task: TaskFolder, *, progress: Callable[[str], None] = lambda _l: None,
) -> Iterator[TestRunner]:
    """The engine's Docker test runner for ``task`` (its image built if needed), for the
    merge analysis' test step. Every sandbox it opened is removed when the block ends: not
    left to the interpreter's exit, where a signal (SIGTERM's default action) would end the
    process with a container still there."""
    images = task_images(settings, None, progress)
    image = images.ensure(task)
    engine = DockerEngine(images.client)
    try:
        yield make_test_runner(task, engine=engine, image=image.tag)
    finally:
        engine.drain()


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


def planned_base_image(settings: Settings) -> str:
    """The base image evaluation will use, as far as this machine's engine tells without
    pulling (`arena bot plan --pending` looks stored results up under it); the configured
    one when no engine answers (the plan job may have none)."""
    try:
        return local_base_image(docker_client(timeout=10), settings.base_image)
    except SandboxError:
        return settings.base_image
    except ENGINE_ERRORS:
        return settings.base_image
