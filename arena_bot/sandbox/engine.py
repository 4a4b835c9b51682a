"""Connecting to the Docker engine (the one place that turns "no engine" into a clear error)."""

from __future__ import annotations

import docker
import docker.errors
import requests

from arena_bot.core.errors import SandboxError

#: What docker-py raises when the engine fails: API errors, and connection errors when the
#: daemon goes away mid-run (requests' exceptions, not DockerException).
ENGINE_ERRORS: tuple[type[Exception], ...] = (
    docker.errors.DockerException,
    requests.exceptions.RequestException,
)


def docker_client(*, timeout: int = 120, max_pool_size: int = 64) -> docker.DockerClient:
    """A docker-py client for the engine named by ``DOCKER_HOST`` (or the local socket).

    Raises SandboxError with the set-up command when no engine answers.
    """
    try:
        # Every running command holds one connection (its output stream): the pool must be
        # larger than the number of parallel evaluation units.
        client = docker.from_env(timeout=timeout, max_pool_size=max_pool_size)
        client.ping()
    except (docker.errors.DockerException, OSError) as exc:
        raise SandboxError(
            f"no Docker engine answers ({str(exc).splitlines()[0][:200]})",
            hint="start one with scripts/ensure_docker.sh (installs docker.io and runs dockerd)",
        ) from None
    return client
