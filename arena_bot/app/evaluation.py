"""Evaluation use case: run submissions' patches against their tasks' tests in Docker."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena_bot.config import load_config
from arena_bot.dataset import Dataset, TaskFolder
from arena_bot.errors import InputError, SandboxError
from arena_bot.evaluation.engine import Evaluator, Outcome, make_test_runner
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.evaluation.store import ResultStore
from arena_bot.index import Index
from arena_bot.models.evaluation import TestRunner
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.sandbox.engine import ENGINE_ERRORS, docker_client
from arena_bot.sandbox.images import TaskImages, local_base_image, resolve_base_image
from arena_bot.settings import Settings
from arena_bot.submissions import SubmissionFolder, load_submission


@dataclass(frozen=True)
class EvaluationRun:
    """What one evaluation call did: each submission's outcome, and the sandbox containers
    of interrupted earlier runs it removed first."""

    outcomes: list[Outcome]
    swept: int = 0


def evaluate_submissions(
    settings: Settings,
    folders: Sequence[Path],
    *,
    jobs: int,
    base_image: str | None,
    force: bool,
    index: Index | None = None,
    progress: Callable[[str], None] = lambda _line: None,
) -> EvaluationRun:
    """Evaluate the submissions in ``folders`` in Docker and store their results.

    ``index`` spares re-reading and re-hashing files an earlier stage or run already read;
    ``progress`` receives what is being done (image builds, the base image chosen, units).
    """
    dataset = Dataset(settings.dataset_dir, index)
    pairs = [_pair(load_submission(folder, index), dataset) for folder in folders]
    setup = docker_evaluator(settings, base_image=base_image, index=index, progress=progress)
    outcomes = setup.evaluator.evaluate(pairs, jobs=jobs, force=force)
    setup.engine.drain()
    return EvaluationRun(outcomes=outcomes, swept=setup.swept)


@dataclass(frozen=True)
class DockerEvaluator:
    """An evaluator on this machine's Docker engine, the engine (to drain once done) and
    how many leftover sandbox containers of interrupted runs were removed first."""

    evaluator: Evaluator
    engine: DockerEngine
    swept: int


def docker_evaluator(
    settings: Settings, *, base_image: str | None, index: Index | None = None,
    progress: Callable[[str], None] = lambda _line: None,
) -> DockerEvaluator:
    """The one way an evaluator is put together (`arena evaluate`, the pipeline, the bot's
    matrix units): engine, base image (``base_image`` given = chosen explicitly), task
    images, result store, base-repository cache and the configured patch limit."""
    client = docker_client()
    engine = DockerEngine(client)
    swept = engine.sweep()
    resolved = resolve_base_image(
        client, base_image or settings.base_image, explicit=base_image is not None,
        progress=progress,
    )
    evaluator = Evaluator(
        engine=engine,
        images=TaskImages(client, base_image=resolved, progress=progress),
        store=ResultStore(settings.results_dir, index),
        repos=BaseRepoCache(settings.cache_dir / "repos"),
        progress=progress,
        patch_bytes=load_config(settings.root).config.limits.patch_bytes,
    )
    return DockerEvaluator(evaluator=evaluator, engine=engine, swept=swept)


def docker_test_runner(
    settings: Settings, task: TaskFolder, *, progress: Callable[[str], None] = lambda _l: None,
) -> TestRunner:
    """The engine's Docker test runner for ``task`` (its image built if needed), for the
    merge analysis' test step."""
    client = docker_client()
    base_image = resolve_base_image(client, settings.base_image, explicit=False,
                                    progress=progress)
    image = TaskImages(client, base_image=base_image, progress=progress).ensure(task)
    return make_test_runner(task, engine=DockerEngine(client), image=image.tag)


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
