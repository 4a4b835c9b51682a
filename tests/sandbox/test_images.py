"""Base and task images: mirror detection, base image reuse, base image resolution."""

from __future__ import annotations

import re
from pathlib import Path

import docker
import pytest
from click.testing import CliRunner

from arena_bot.cli import main
from arena_bot.core.errors import SandboxError
from arena_bot.sandbox.images import (
    BASE_PACKAGES,
    BASE_WHEELS_LABEL,
    DEFAULT_MIRROR,
    IMAGE_LABEL,
    apt_mirror,
    resolve_base_image,
)
from arena_bot.tasks.wheels import BASE_WHEELS, PYTEST_PIN, TEST_TOOLS


def test_apt_mirror_reads_the_deb822_source(tmp_path: Path) -> None:
    sources = tmp_path / "debian.sources"
    sources.write_text(
        "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\n"
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n"
    )
    assert apt_mirror(sources) == "http://mirror.example/debian"
    assert apt_mirror(tmp_path / "absent") == DEFAULT_MIRROR


@pytest.mark.docker
def test_images_base_reuses_an_existing_image(base_image: str) -> None:
    result = CliRunner().invoke(main, ["images", "base", "--tag", base_image])
    assert result.exit_code == 0, result.output
    assert f"{base_image} already exists" in result.output and "--force" in result.output


@pytest.mark.docker
def test_base_image_resolution(docker_client: docker.DockerClient, base_image: str) -> None:
    assert resolve_base_image(docker_client, base_image) == base_image
    with pytest.raises(SandboxError, match="cannot be pulled") as caught:
        resolve_base_image(docker_client, "arena-test-missing-image:never", explicit=True)
    assert "arena images base" in str(caught.value)


@pytest.mark.docker
def test_the_offline_base_image_has_the_pinned_pytest_not_debians(
    docker_client: docker.DockerClient, base_image: str
) -> None:
    """The offline image's pytest is the index's pinned one (jinja's `filterwarnings = error`
    breaks on Debian's 7.2.1), installed where the image's Python installs packages, with a
    `pytest` console script; Debian's python3-pytest is not in the image at all."""
    image = docker_client.images.get(base_image)
    labels = image.labels or {}
    assert labels.get(IMAGE_LABEL) == "base", f"{base_image} is not built by `arena images base`"
    assert labels.get(BASE_WHEELS_LABEL) == ",".join(BASE_WHEELS)
    script = (
        "pytest --version; python3 -c 'import pytest, pluggy; print(pytest.__file__); "
        "print(pluggy.__file__)'; head -n 1 /usr/local/bin/pytest; "
        "dpkg-query -W python3-pytest python3-pluggy 2>&1; echo dpkg=$?"
    )
    output = docker_client.containers.run(base_image, ["sh", "-c", script], remove=True,
                                          network_disabled=True, user="nobody").decode()
    version = PYTEST_PIN.partition("==")[2]
    assert f"pytest {version}\n" in output, output
    assert "/usr/local/lib/python3.11/dist-packages/pytest/__init__.py" in output, output
    assert "/usr/local/lib/python3.11/dist-packages/pluggy/__init__.py" in output, output
    assert "#!/usr/bin/python3\n" in output, output
    assert "no packages found matching python3-pytest" in output and "dpkg=1" in output, output


def test_the_base_wheels_are_pytests_pin_with_its_dependencies() -> None:
    """One place pins pytest: the base image's wheels and every task's test tools share it,
    and every wheel is pinned to an exact version."""
    assert PYTEST_PIN in BASE_WHEELS and PYTEST_PIN in TEST_TOOLS
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][A-Za-z0-9.]*", w) for w in BASE_WHEELS)
    names = {w.partition("==")[0] for w in BASE_WHEELS}
    assert {"pip", "pytest", "pluggy", "iniconfig", "packaging"} <= names
    assert "python3-pytest" not in BASE_PACKAGES
