"""Shared fixtures: the Docker engine, the offline base image, and a tiny fixture task (built
by support.fixture_task), and a real CooperBench task imported and checked once; and the
hooks of the suite's tiers (``--tier``, support.tiers).

Docker fixtures are session-scoped: the base image is built once (reused when present) and
fixture task images are content-addressed, so repeated sessions reuse them.

On several pytest-xdist workers (scripts/test.sh: ``--dist loadfile``, each test file on one
worker, so a module-scoped fixture runs once) the hook below runs ``alone`` modules with the
other workers paused, and the session fixtures do their one-off work once for the run
(support.workers).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import fixture_task
from support.fixture_task import write_fixture_task
from support.real_cooperbench import (
    DIRTY_EQUALS_ID,
    ImportedTask,
    dataset_of,
    import_dirty_equals,
)
from support.tiers import pytest_addoption, pytest_collection_modifyitems  # noqa: F401
from support.workers import file_lock, machine_turn, once, shared_dir, worker

from arena_bot.core.settings import OFFLINE_BASE_IMAGE

REPO = Path(__file__).resolve().parent.parent


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Under xdist, a test (its fixtures' set-up and tear-down included) holds the machine
    shared; an ``alone`` test takes no shared turn (its module holds the machine exclusively
    through the ``alone_on_machine`` fixture)."""
    if item.get_closest_marker("alone") is not None:
        yield
        return
    factory = item.config._tmp_path_factory  # type: ignore[attr-defined]
    with machine_turn(factory, alone=False):
        yield


@pytest.fixture(scope="module")
def alone_on_machine(request: pytest.FixtureRequest,
                     tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The other xdist workers pause from here to the end of the module (which must be
    marked ``alone``: its tests take no shared turn, else they would wait on themselves)."""
    assert request.node.get_closest_marker("alone") is not None, request.node.nodeid
    with machine_turn(tmp_path_factory, alone=True):
        yield


@pytest.fixture(scope="session")
def docker_client() -> Iterator[object]:
    """A docker-py client for the real engine (the suite needs one; see ensure_docker.sh)."""
    from arena_bot.sandbox.engine import docker_client as connect

    client = connect()
    yield client
    client.close()


def _base_image(docker_client: object) -> str:
    """The base image of the Docker tests: ``ARENA_TEST_BASE_IMAGE`` if set, else the offline
    image (built once if missing and the public image cannot be had, as on this project's
    offline CI), else the public default (GitHub runners pull it)."""
    from arena_bot.core.errors import SandboxError
    from arena_bot.core.settings import DEFAULT_BASE_IMAGE
    from arena_bot.sandbox.images import build_base_image, image_exists, resolve_base_image

    chosen = os.environ.get("ARENA_TEST_BASE_IMAGE")
    if chosen:
        return resolve_base_image(docker_client, chosen, explicit=True)  # type: ignore[arg-type]
    if image_exists(docker_client, OFFLINE_BASE_IMAGE):  # type: ignore[arg-type]
        return OFFLINE_BASE_IMAGE
    try:
        return resolve_base_image(docker_client, DEFAULT_BASE_IMAGE, explicit=True)  # type: ignore[arg-type]
    except SandboxError:  # no registry here: build the offline image instead
        build_base_image(docker_client, tag=OFFLINE_BASE_IMAGE)  # type: ignore[arg-type]
        return OFFLINE_BASE_IMAGE


@pytest.fixture(scope="session")
def base_image(docker_client: object, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The base image of the Docker tests (:func:`_base_image`). Under xdist the first worker
    also builds the images of the tasks many files share (the fixture task, the sample
    tasks) while the others wait, so two workers never build the same image at once."""
    if not worker():
        return _base_image(docker_client)
    with file_lock(shared_dir(tmp_path_factory) / "images.lock"):
        chosen = _base_image(docker_client)
        _build_shared_task_images(docker_client, chosen, tmp_path_factory)
    return chosen


def _build_shared_task_images(docker_client: object, base: str,
                              tmp_path_factory: pytest.TempPathFactory) -> None:
    from arena_bot.sandbox.images import TaskImages
    from arena_bot.tasks.dataset import Dataset, load_task

    images = TaskImages(docker_client, base_image=base)  # type: ignore[arg-type]
    fixture_root = tmp_path_factory.mktemp("shared-images")
    write_fixture_task(fixture_root)
    for task in [load_task(fixture_root / "calc-fixture"), *Dataset(REPO / "dataset").all()]:
        images.ensure(task)


@pytest.fixture(scope="session")
def fixture_task_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset folder holding the fixture task (session-wide; do not modify it)."""
    root = tmp_path_factory.mktemp("dataset")
    write_fixture_task(root)
    return root


@pytest.fixture(scope="session")
def task_kit() -> object:
    """The fixture task's helpers (support.fixture_task) as a fixture, for the tests written
    before they could be imported; new tests import them: ``from support.fixture_task``."""
    return fixture_task


@pytest.fixture(scope="session")
def real_dirty_equals(tmp_path_factory: pytest.TempPathFactory,
                      base_image: str) -> ImportedTask:
    """The real CooperBench task dirty-equals 43, every feature, imported with its wheels
    and checked once per session (support.real_cooperbench.import_dirty_equals); its
    dataset folder is shared: tests make their own board with ``.board(path)``."""
    return once(
        tmp_path_factory, "real-dirty-equals",
        make=lambda folder: import_dirty_equals(folder, base_image),
        save=lambda imported, folder: (folder / "check-output.txt").write_text(
            imported.check_output, encoding="utf-8"),
        load=lambda folder: ImportedTask(
            dataset_of(folder), DIRTY_EQUALS_ID,
            (folder / "check-output.txt").read_text(encoding="utf-8")))
