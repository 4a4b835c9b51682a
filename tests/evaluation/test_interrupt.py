"""Ctrl-C during ``arena evaluate``: the run stops at once and leaves no container behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import docker
import pytest

from arena_bot.sandbox.docker import OWNER_PID_LABEL, SANDBOX_LABEL

pytestmark = pytest.mark.docker


def test_ctrl_c_stops_and_removes_containers(
    tmp_path: Path, fixture_task, write_submission, docker_client: docker.DockerClient,
    base_image: str,
) -> None:
    root = tmp_path / "root"
    shutil.copytree(fixture_task.root, root / "dataset" / fixture_task.id)
    looping = fixture_task.feature(1).gold_patch.read_text().replace(
        "return a * b", "while True: pass"
    )
    folder = write_submission("loop", patches=[looping], runs=2).root
    shutil.copytree(folder, root / "submissions" / fixture_task.id / "loop")
    env = {**os.environ, "ARENA_CACHE": str(root / ".arena"), "ARENA_BASE_IMAGE": base_image}
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "arena"), "--root", str(root), "evaluate", "--all",
         "--jobs", "2"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    mine = {"label": [SANDBOX_LABEL, f"{OWNER_PID_LABEL}={process.pid}"]}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not docker_client.containers.list(filters=mine):
        time.sleep(0.2)
    if not docker_client.containers.list(filters=mine):
        process.kill()
        pytest.fail(f"no sandbox started: {process.communicate()[0]}")
    time.sleep(1.5)  # let the tests start looping
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 130, output
    assert "interrupted" in output and "Traceback" not in output
    assert docker_client.containers.list(all=True, filters=mine) == []
    assert not list((root / ".arena").rglob("*.json"))  # nothing half-evaluated was stored
