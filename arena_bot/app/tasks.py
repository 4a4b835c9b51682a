"""Task use cases: build the images evaluation runs in; check a task's gold patches and bare
base in Docker, record expected ids."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena_bot.app.evaluation import task_images
from arena_bot.core.settings import Settings
from arena_bot.evaluation.expected import FeatureCheck, check_feature, write_expected
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.sandbox.engine import docker_client
from arena_bot.sandbox.images import TaskImage, build_base_image
from arena_bot.tasks.dataset import Dataset, TaskFolder


def build_base(*, tag: str, force: bool, mirror: str | None,
               progress: Callable[[str], None]) -> None:
    """Build the offline base image ``tag`` with debootstrap (kept unless ``force``)."""
    build_base_image(docker_client(), tag=tag, force=force, mirror=mirror, progress=progress)


def build_task_images(
    settings: Settings, task_ids: Sequence[str], *, base_image: str | None,
    progress: Callable[[str], None],
) -> Iterator[tuple[TaskFolder, TaskImage]]:
    """Each task's image (default: every task's), built unless one of its content exists."""
    tasks = _tasks(settings, task_ids)
    images = task_images(settings, base_image, progress)
    for task in tasks:
        yield task, images.ensure(task)


def _tasks(settings: Settings, task_ids: Sequence[str]) -> list[TaskFolder]:
    data = Dataset(settings.dataset_dir)
    return [data.get(task_id) for task_id in task_ids] if task_ids else data.all()


@dataclass(frozen=True)
class CheckedFeature:
    """One feature's check, and where its expected ids were recorded (``None``: not)."""

    task: TaskFolder
    check: FeatureCheck
    recorded: Path | None


def check_tasks(
    settings: Settings,
    task_ids: Sequence[str] = (),
    *,
    repeat: int = 2,
    write: bool = True,
    base_image: str | None = None,
    progress: Callable[[str], None] = lambda _line: None,
) -> Iterator[CheckedFeature]:
    """Run every feature's gold patch ``repeat`` times and the bare base commit of the tasks
    (default: all) in Docker, one feature at a time; with ``write``, record the expected ids
    of each feature without problems in ``feature<N>/expected_tests.json``."""
    tasks = _tasks(settings, task_ids)
    images = task_images(settings, base_image, progress)
    engine = DockerEngine(images.client)
    try:
        for task in tasks:
            image = images.ensure(task).tag
            for feature_id in task.spec.feature_ids():
                result = check_feature(task, feature_id=feature_id, engine=engine, image=image,
                                       repeats=repeat)
                recorded = None
                if write and not result.problems:
                    write_expected(task, result)
                    recorded = task.feature(feature_id).expected_tests
                yield CheckedFeature(task=task, check=result, recorded=recorded)
    finally:
        engine.drain()
