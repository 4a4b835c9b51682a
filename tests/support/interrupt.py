"""Ctrl-C and SIGTERM sent to `arena` commands at chosen points (tests/evaluation/
test_interrupt.py asserts what they leave; benchmarks/bench_interrupt.py prints how fast they
stop): each case copies the fixture task into a root of its own, starts the command, waits for
its phase (an image build's step, a sandbox created, tests running, results being stored),
sends the signal and records the exit status, the seconds it took and what was left."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import docker

from arena_bot.sandbox.docker import OWNER_PID_LABEL, SANDBOX_LABEL

#: What issue 30 promises: stopped within this many seconds of the signal.
STOP_WITHIN = 5.0
ARENA = str(Path(sys.executable).parent / "arena")
EXIT_STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}
#: Submissions of the storing case (two runs each).
STORED = 2
#: How long a phase may take to be reached (image builds on a loaded machine).
REACH_WITHIN = 180.0


@dataclass(frozen=True)
class Case:
    kind: str  # evaluate, pipeline, dataset check, merge
    phase: str  # build, start, tests, storing
    sig: signal.Signals

    @property
    def id(self) -> str:
        return f"{self.kind.replace(' ', '-')}-{self.phase}-{self.sig.name}"


#: Every command in every phase it has; each command gets both signals somewhere.
MATRIX = [
    Case("evaluate", "build", signal.SIGINT),
    Case("evaluate", "start", signal.SIGTERM),
    Case("evaluate", "tests", signal.SIGINT),
    Case("evaluate", "storing", signal.SIGINT),
    Case("pipeline", "build", signal.SIGTERM),
    Case("pipeline", "start", signal.SIGINT),
    Case("pipeline", "tests", signal.SIGINT),
    Case("dataset check", "build", signal.SIGINT),
    Case("dataset check", "start", signal.SIGTERM),
    Case("dataset check", "tests", signal.SIGINT),
    Case("merge", "build", signal.SIGTERM),
    Case("merge", "start", signal.SIGINT),
    Case("merge", "tests", signal.SIGTERM),
]


@dataclass
class Outcome:
    """What one case's process did and left."""

    case: Case
    root: Path
    output: str = ""
    status: int | None = None
    seconds: float = 0.0
    failure: str | None = None  # the phase was never reached
    containers: list[str] = field(default_factory=list)
    build_steps: list[str] = field(default_factory=list)
    expected_before: bytes | None = None
    #: Seconds from the start of the command to its phase.
    reached_after: float = 0.0

    def line(self) -> str:
        """``command / phase / signal -> status, seconds, leftovers``."""
        case = self.case
        return (f"{case.kind} / {case.phase} / {case.sig.name} -> {self.status}, "
                f"{self.seconds:.2f} s, {len(self.containers)} container(s), "
                f"{len(self.build_steps)} build step(s) (signalled {self.reached_after:.1f} s "
                "after the start)"
                + (f" ({self.failure})" if self.failure else ""))


class Run:
    """One `arena` process: its output gathered as it comes."""

    def __init__(self, root: Path, args: list[str], base_image: str) -> None:
        env = {**os.environ, "ARENA_CACHE": str(root / ".arena"),
               "ARENA_BASE_IMAGE": base_image, "ARENA_DEBUG_STACKS": "1"}
        self.process = subprocess.Popen(
            [ARENA, "--root", str(root), *args], env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        self._reader.join(5)
        return "".join(self.lines)

    @property
    def mine(self) -> dict[str, list[str]]:
        return {"label": [SANDBOX_LABEL, f"{OWNER_PID_LABEL}={self.process.pid}"]}


def _containers(client: docker.DockerClient, run: Run, *, running: bool = False) -> list[str]:
    return [str(c.id) for c in client.containers.list(all=not running, sparse=True,
                                                      filters=run.mine)]


def _build_steps(client: docker.DockerClient, marker: str) -> list[str]:
    """Containers (whoever made them) running a build step that names ``marker``."""
    return [str(c.attrs.get("Command", "")) for c in client.containers.list(all=True, sparse=True)
            if marker in str(c.attrs.get("Command", ""))]


def _prepare(case: Case, root: Path, task: Path, marker: str | None) -> list[str]:
    """``root`` with a copy of the fixture task (feature 1's gold patch hanging,
    except for the storing case; a build step that sleeps when ``marker``), the submission
    the command needs, and the command's arguments."""
    task_id = task.name
    folder = root / "dataset" / task_id
    shutil.copytree(task, folder)
    gold = folder / "feature1" / "feature.patch"
    if case.phase != "storing":
        # Sleeping, not spinning: fourteen cases at once must not starve the machine.
        gold.write_text(gold.read_text().replace("return a * b",
                                                 "__import__('time').sleep(600)"))
    if marker:
        with (folder / "Dockerfile").open("a") as dockerfile:
            dockerfile.write(f"RUN sleep 300 # {marker}\n")
    if case.kind == "dataset check":
        return ["dataset", "check", task_id, "--repeat", "1"]
    if case.kind == "merge":
        return ["merge", str(gold), str(folder / "feature2" / "feature.patch"),
                "--task", task_id, "--output", str(root / "report.json")]
    # Two runs: the two jobs' units start together. The storing case has two submissions.
    for number in range(STORED if case.phase == "storing" else 1):
        submission = root / "submissions" / task_id / f"sub{number}"
        submission.mkdir(parents=True)
        shutil.copy(gold, submission / "agent1.patch")
        runs = "".join(f"""
              - id: run{n}
                tokens: {{total: 1000}}
                tool_calls: 3
                execution_time: 10
                estimated_cost: 0.01
                patches: [agent1.patch]""" for n in (1, 2))
        (submission / "submission.yaml").write_text(textwrap.dedent(f"""\
            task: {task_id}
            tool: {{name: Fixture Tool, version: "1.0"}}
            models: [fixture-model]
            contributor: {{name: Tester}}
            date: 2025-01-01
            setting: single
            features: [1]
            runs:""") + runs + "\n")
    if case.kind == "evaluate":
        return ["evaluate", "--all", "--jobs", "2"]
    return ["pipeline", "--jobs", "2", "--output", str(root / "out")]


def _reach(run: Run, ready: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + REACH_WITHIN
    while not ready():
        if run.process.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _signal_state(pid: int) -> str:
    """The process's blocked, ignored and caught signal masks (/proc/PID/status)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError as exc:
        return f"(no signal state: {exc})\n"
    return "".join(line + "\n" for line in status.splitlines()
                   if line.startswith(("SigBlk", "SigIgn", "SigCgt", "SigPnd", "ShdPnd")))


def run_case(case: Case, root: Path, task: Path, client: docker.DockerClient,
             base_image: str) -> Outcome:
    """Run ``case`` on a copy of the task folder ``task`` under ``root`` (empty)."""
    marker = f"arena-interrupt-{uuid.uuid4().hex}" if case.phase == "build" else None
    args = _prepare(case, root, task, marker)
    expected = root / "dataset" / task.name / "feature1" / "expected_tests.json"
    outcome = Outcome(case=case, root=root,
                      expected_before=expected.read_bytes() if expected.exists() else None)
    run = Run(root, args, base_image)
    started = time.monotonic()
    if case.phase == "build":
        reached = _reach(run, lambda: bool(_build_steps(client, marker or "")))
    elif case.phase == "start":
        reached = _reach(run, lambda: bool(_containers(client, run)))
    elif case.phase == "tests":
        reached = _reach(run, lambda: bool(_containers(client, run, running=True)))
        time.sleep(1.5)  # the tests are hanging by now
    else:  # storing: right after the last unit's line, when the results are written
        reached = _reach(run, lambda: sum(": passed" in line for line in run.lines)
                         >= 2 * STORED)
    if not reached:
        run.process.kill()
        run.process.wait()
        outcome.failure = f"never reached the {case.phase} phase"
        outcome.output = run.output
        return outcome
    sent = time.monotonic()
    outcome.reached_after = sent - started
    run.process.send_signal(case.sig)
    try:
        run.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        # Still running: say why before killing it (its signal state, every thread's stack).
        run.lines.append(_signal_state(run.process.pid))
        run.process.send_signal(signal.SIGUSR1)
        time.sleep(2)
        run.process.kill()
        run.process.wait()
    outcome.seconds = time.monotonic() - sent
    outcome.status = run.process.returncode
    outcome.output = run.output
    outcome.containers = _containers(client, run)
    if marker:
        # The engine gives the build up once its client is gone (its step is killed).
        deadline = time.monotonic() + STOP_WITHIN
        while _build_steps(client, marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        outcome.build_steps = _build_steps(client, marker)
    return outcome


