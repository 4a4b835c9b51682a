"""Shared fixtures: the Docker engine, the offline base image, and a tiny fixture task
(built by support.fixture_task), and a real CooperBench task imported and checked once.

Docker fixtures are session-scoped: the base image is built once (reused when present) and
fixture task images are content-addressed, so repeated sessions reuse them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import fixture_task
from support.fixture_task import write_fixture_task
from support.real_cooperbench import ImportedTask, import_dirty_equals

from arena_bot.settings import OFFLINE_BASE_IMAGE


@pytest.fixture(scope="session")
def docker_client() -> Iterator[object]:
    """A docker-py client for the real engine (the suite needs one; see ensure_docker.sh)."""
    from arena_bot.sandbox.engine import docker_client as connect

    client = connect()
    yield client
    client.close()


@pytest.fixture(scope="session")
def base_image(docker_client: object) -> str:
    """The base image of the Docker tests: ``ARENA_TEST_BASE_IMAGE`` if set, else the offline
    image (built once if missing and the public image cannot be had, as on this project's
    offline CI), else the public default (GitHub runners pull it)."""
    from arena_bot.errors import SandboxError
    from arena_bot.sandbox.images import build_base_image, image_exists, resolve_base_image
    from arena_bot.settings import DEFAULT_BASE_IMAGE

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
    return import_dirty_equals(tmp_path_factory.mktemp("real-dirty-equals"), base_image)
