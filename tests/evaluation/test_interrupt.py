"""Ctrl-C (SIGINT) and SIGTERM stop `arena evaluate`, `arena pipeline`, `arena dataset check`
and `arena merge` within seconds at any point: while a task image builds, while a sandbox
starts, while tests run, and while results are stored. Each time: exit status 130 (143 for
SIGTERM), "interrupted" and no traceback, no container of the run left (looked up by this
run's own owner label: the engine is shared), no build step left running, nothing partly
written.

The figure asserted (5 s) is the promise made to a contributor pressing Ctrl-C; each case
prints what it measured (`pytest -s` shows the matrix)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import docker
import pytest

from arena_bot.dataset import TaskFolder
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.sandbox.docker import OWNER_PID_LABEL, SANDBOX_LABEL

pytestmark = pytest.mark.docker

#: What the issue promises: stopped within this many seconds of the signal.
STOP_WITHIN = 5.0
ARENA = str(Path(sys.executable).parent / "arena")
EXIT_STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}


@dataclass
class Run:
    """One `arena` process under test: its output gathered as it comes."""

    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    @property
    def mine(self) -> dict[str, list[str]]:
        return {"label": [SANDBOX_LABEL, f"{OWNER_PID_LABEL}={self.process.pid}"]}


def _wait_for(what: str, run: Run, ready: Callable[[], bool], *, within: float = 120) -> None:
    deadline = time.monotonic() + within
    while not ready():
        if run.process.poll() is not None or time.monotonic() > deadline:
            run.process.kill()
            run.process.wait()
            pytest.fail(f"never reached {what}: {run.output}")
        time.sleep(0.05)


def _containers(client: docker.DockerClient, run: Run, *, running: bool = False) -> list[object]:
    return list(client.containers.list(all=not running, sparse=True, filters=run.mine))


def _build_steps(client: docker.DockerClient, marker: str) -> list[str]:
    """Containers (any owner) running a build step that names ``marker``."""
    return [str(c.attrs.get("Command", "")) for c in client.containers.list(all=True, sparse=True)
            if marker in str(c.attrs.get("Command", ""))]


def _interrupt(run: Run, sig: signal.Signals) -> float:
    """Send ``sig``; seconds until the process ended (it is killed past 30 s)."""
    sent = time.monotonic()
    run.process.send_signal(sig)
    try:
        run.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        run.process.kill()
        run.process.wait()
        pytest.fail(f"still running 30 s after {sig.name}: {run.output}")
    return time.monotonic() - sent


@pytest.fixture
def board(tmp_path: Path, fixture_task: TaskFolder, base_image: str) -> Callable[..., Path]:
    """A repository root with a copy of the fixture task (its feature 1 looping forever when
    ``looping``; a build step that sleeps when ``slow_build``)."""

    def make(*, looping: bool, slow_build: str | None = None) -> Path:
        root = tmp_path / "root"
        task = root / "dataset" / fixture_task.id
        shutil.copytree(fixture_task.root, task)
        if looping:
            gold = task / "feature1" / "feature.patch"
            gold.write_text(gold.read_text().replace("return a * b", "while True: pass"))
        if slow_build:
            with (task / "Dockerfile").open("a") as dockerfile:
                dockerfile.write(f"RUN sleep 300 # {slow_build}\n")
        return root

    return make


def _start(root: Path, args: list[str], base_image: str) -> Run:
    env = {**os.environ, "ARENA_CACHE": str(root / ".arena"), "ARENA_BASE_IMAGE": base_image}
    process = subprocess.Popen(
        [ARENA, "--root", str(root), *args], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )
    return Run(process)


def _submit(root: Path, write_submission: Callable[..., object], task: TaskFolder, *,
            name: str, patch: Path, runs: int = 2) -> None:
    folder = write_submission(name, patches=[patch.read_text()], runs=runs).root  # type: ignore[attr-defined]
    shutil.copytree(folder, root / "submissions" / task.id / name)


def _command(kind: str, root: Path, task: TaskFolder, write_submission: Callable[..., object],
             ) -> list[str]:
    """The arguments of ``kind`` on ``root`` (its submission written first)."""
    patch = root / "dataset" / task.id / "feature1" / "feature.patch"
    if kind in ("evaluate", "pipeline"):
        _submit(root, write_submission, task, name="loop", patch=patch)
        return ["evaluate", "--all", "--jobs", "2"] if kind == "evaluate" else \
            ["pipeline", "--jobs", "2", "--output", str(root / "out")]
    if kind == "dataset check":
        return ["dataset", "check", task.id, "--repeat", "1"]
    other = root / "dataset" / task.id / "feature2" / "feature.patch"
    return ["merge", str(patch), str(other), "--task", task.id,
            "--output", str(root / "report.json")]


#: (command, phase, signal): every command in every phase it has, both signals somewhere.
MATRIX = [
    ("evaluate", "build", signal.SIGINT),
    ("evaluate", "start", signal.SIGINT),
    ("evaluate", "tests", signal.SIGINT),
    ("evaluate", "tests", signal.SIGTERM),
    ("pipeline", "build", signal.SIGTERM),
    ("pipeline", "tests", signal.SIGINT),
    ("dataset check", "build", signal.SIGINT),
    ("dataset check", "start", signal.SIGTERM),
    ("dataset check", "tests", signal.SIGINT),
    ("merge", "start", signal.SIGINT),
    ("merge", "tests", signal.SIGTERM),
]


@pytest.mark.parametrize(("kind", "phase", "sig"), MATRIX,
                         ids=[f"{k.replace(' ', '-')}-{p}-{s.name}" for k, p, s in MATRIX])
def test_signal_stops_the_command_and_leaves_nothing(
    kind: str, phase: str, sig: signal.Signals, board: Callable[..., Path],
    fixture_task: TaskFolder, write_submission: Callable[..., object],
    docker_client: docker.DockerClient, base_image: str,
) -> None:
    marker = f"arena-interrupt-{uuid.uuid4().hex}" if phase == "build" else None
    root = board(looping=True, slow_build=marker)
    task = fixture_task
    args = _command(kind, root, task, write_submission)
    expected = root / "dataset" / task.id / "feature1" / "expected_tests.json"
    before = expected.read_bytes() if expected.exists() else None
    run = _start(root, args, base_image)
    if phase == "build":
        _wait_for("the image build's sleeping step", run,
                  lambda: bool(_build_steps(docker_client, marker or "")))
    elif phase == "start":
        _wait_for("a sandbox being created", run, lambda: bool(_containers(docker_client, run)))
    else:
        _wait_for("a running sandbox", run,
                  lambda: bool(_containers(docker_client, run, running=True)))
        time.sleep(1.5)  # the tests are looping by now
    seconds = _interrupt(run, sig)
    print(f"\n{kind} / {phase} / {sig.name}: exited {run.process.returncode} "
          f"{seconds:.2f} s after the signal")

    assert run.process.returncode == EXIT_STATUS[sig], run.output
    assert seconds < STOP_WITHIN, run.output
    assert "interrupted" in run.output and "Traceback" not in run.output, run.output
    assert _containers(docker_client, run) == []
    if marker:
        # The engine gives the build up once its client is gone (its step is killed).
        deadline = time.monotonic() + STOP_WITHIN
        while _build_steps(docker_client, marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _build_steps(docker_client, marker) == []
    # Nothing partly written: no temporary file anywhere, no result, no report, the
    # expected test ids as they were.
    assert not [p for p in root.rglob(".tmp-*")]
    assert not list((root / ".arena").rglob("*.json"))
    assert not (root / "report.json").exists() and not (root / "out").exists()
    assert (expected.read_bytes() if expected.exists() else None) == before


def test_results_stored_when_interrupted_are_whole(
    board: Callable[..., Path], fixture_task: TaskFolder,
    write_submission: Callable[..., object], docker_client: docker.DockerClient,
    base_image: str,
) -> None:
    """Interrupted while results are being stored (the signal follows the last unit's line):
    whatever is in the store is a whole result, never a part, and nothing else is."""
    root = board(looping=False)
    gold = root / "dataset" / fixture_task.id / "feature1" / "feature.patch"
    for number in range(6):
        _submit(root, write_submission, fixture_task, name=f"gold{number}", patch=gold,
                runs=1)
    run = _start(root, ["evaluate", "--all", "--jobs", "2"], base_image)
    _wait_for("the last unit's line", run,
              lambda: sum("feature 1:" in line for line in run.lines) >= 6)
    seconds = _interrupt(run, signal.SIGINT)
    print(f"\nevaluate / storing / SIGINT: exited {run.process.returncode} "
          f"{seconds:.2f} s after the signal")
    assert run.process.returncode in (0, 130), run.output
    assert seconds < STOP_WITHIN
    assert "Traceback" not in run.output
    assert _containers(docker_client, run) == []
    assert not [p for p in root.rglob(".tmp-*")]
    stored = list((root / ".arena").rglob("*.json"))
    for path in stored:
        assert EvaluationResult.model_validate_json(path.read_bytes()).runs
    if run.process.returncode == 0:
        assert len(stored) == 6
