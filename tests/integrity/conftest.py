"""Fixtures of the exploit corpus: a real engine and the sample tasks' images; the calculator
fixture task (``task``: a module may give its own), a runner of its tests (``run``) and a
checkout of its base commit to write patches against (``repo``), once per module."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.fixture_task import copy_fixture_task

from arena_bot.evaluation.engine import make_test_runner
from arena_bot.models.evaluation import TestRunner
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.sandbox.images import TaskImages
from arena_bot.tasks.dataset import TaskFolder, load_task


@pytest.fixture(scope="session")
def engine(docker_client: object) -> DockerEngine:
    return DockerEngine(docker_client)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def task_images(docker_client: object, base_image: str) -> TaskImages:
    return TaskImages(docker_client, base_image=base_image)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def task(fixture_task_root: Path, tmp_path_factory: pytest.TempPathFactory) -> TaskFolder:
    # With the expected test ids recorded: no flag for an unchecked task muddles the rules.
    return load_task(copy_fixture_task(fixture_task_root, tmp_path_factory.mktemp("fx")))


@pytest.fixture(scope="module")
def run(task: TaskFolder, engine: DockerEngine, task_images: TaskImages) -> TestRunner:
    return make_test_runner(task, engine=engine, image=task_images.ensure(task).tag)


@pytest.fixture(scope="module")
def repo(task: TaskFolder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("calc") / "repo"
    subprocess.run(["git", "clone", "-q", str(task.bundle), str(work)], check=True)
    subprocess.run(["git", "checkout", "-q", task.spec.source.commit], cwd=work, check=True)
    return work
