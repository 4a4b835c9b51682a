"""Ctrl-C and SIGTERM sent to `arena` commands at chosen points (tests/evaluation/
test_interrupt.py asserts what they leave; benchmarks/bench_interrupt.py prints how fast they
stop): each case copies the fixture task into a root of its own, starts the command, waits for
its phase (an image build's step, a sandbox created, tests running, results being stored, the
task's repository being cloned for a merge), sends the signal and records the exit status, the
seconds it took and what was left.

The clone phase clones from a server that accepts the connection and never answers (a stalled
network: git waits for the TLS handshake for ever), so the clone is under way when the signal
comes, in an evaluation worker (evaluate, pipeline) or in the main thread (merge)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
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
#: Runs the command (execv: same process id) with SIGINT's default disposition, as a
#: terminal's foreground job has it: a job a non-interactive shell starts in the background
#: (`pytest ... &`) inherits SIGINT ignored, and Python then leaves it ignored.
_SIGINT_DEFAULT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                   "os.execv(sys.argv[1], sys.argv[1:])")


@dataclass(frozen=True)
class Case:
    kind: str  # evaluate, pipeline, dataset check, merge
    phase: str  # build, start, tests, storing, clone
    sig: signal.Signals

    @property
    def id(self) -> str:
        return f"{self.kind.replace(' ', '-')}-{self.phase}-{self.sig.name}"


#: Every command in every phase it has; each command gets both signals somewhere. (`arena
#: dataset check` stores each feature's expected ids right after its runs, with no line
#: between to wait for: its storing is the atomic write the other cases check.)
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
    Case("pipeline", "storing", signal.SIGTERM),
    Case("merge", "storing", signal.SIGTERM),
    Case("evaluate", "clone", signal.SIGINT),
    Case("pipeline", "clone", signal.SIGTERM),
    Case("merge", "clone", signal.SIGINT),
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
    #: Processes still running that the command started (git clones of the clone phase).
    processes: list[str] = field(default_factory=list)
    expected_before: bytes | None = None
    #: Seconds from the start of the command to its phase.
    reached_after: float = 0.0

    def line(self) -> str:
        """``command / phase / signal -> status, seconds, leftovers``."""
        case = self.case
        return (f"{case.kind} / {case.phase} / {case.sig.name} -> {self.status}, "
                f"{self.seconds:.2f} s, {len(self.containers)} container(s), "
                f"{len(self.build_steps)} build step(s), {len(self.processes)} process(es) "
                f"(signalled {self.reached_after:.1f} s "
                "after the start)"
                + (f" ({self.failure})" if self.failure else ""))


class Run:
    """One `arena` process: its output gathered as it comes."""

    def __init__(self, root: Path, args: list[str], base_image: str) -> None:
        env = {**os.environ, "ARENA_CACHE": str(root / ".arena"),
               "ARENA_BASE_IMAGE": base_image, "ARENA_DEBUG_STACKS": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SIGINT_DEFAULT, ARENA, "--root", str(root), *args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
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


class StalledServer:
    """A TCP port that accepts connections and never says a word (a stalled network)."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/calc-fixture.git"

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                self.connections.append(self._socket.accept()[0])

    def close(self) -> None:
        self._socket.close()
        for connection in self.connections:
            connection.close()


def _processes_naming(text: str) -> list[str]:
    """Command lines of running processes that contain ``text``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            argv = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if text in argv and "cmdline" not in argv:
                found.append(argv)
    return found


def _containers(client: docker.DockerClient, run: Run, *, running: bool = False) -> list[str]:
    return [str(c.id) for c in client.containers.list(all=not running, sparse=True,
                                                      filters=run.mine)]


def _build_steps(client: docker.DockerClient, marker: str) -> list[str]:
    """Containers (whoever made them) running a build step that names ``marker``."""
    return [str(c.attrs.get("Command", "")) for c in client.containers.list(all=True, sparse=True)
            if marker in str(c.attrs.get("Command", ""))]


def _prepare(case: Case, root: Path, task: Path, marker: str | None,
             origin: str | None = None) -> list[str]:
    """``root`` with a copy of the fixture task (feature 1's gold patch hanging,
    except for the storing case; a build step that sleeps when ``marker``; its repository
    cloned from ``origin`` when given), the submission the command needs, and the command's
    arguments."""
    task_id = task.name
    folder = root / "dataset" / task_id
    shutil.copytree(task, folder)
    gold = folder / "feature1" / "feature.patch"
    if origin:
        # The image is still built from the bundle (its Dockerfile copies it); the merge's
        # clone comes from the task's source, which now names ``origin``.
        spec = folder / "task.yaml"
        spec.write_text(spec.read_text().replace("bundle: repo.bundle", f"url: {origin}"))
    if case.phase not in ("storing", "clone"):
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
    # Two runs: the two jobs' units start together. The storing case has two submissions;
    # the clone case one coop run (its merge needs the clone).
    coop = case.phase == "clone"
    patches = "[agent1.patch, agent2.patch]" if coop else "[agent1.patch]"
    for number in range(STORED if case.phase == "storing" else 1):
        submission = root / "submissions" / task_id / f"sub{number}"
        submission.mkdir(parents=True)
        shutil.copy(gold, submission / "agent1.patch")
        if coop:
            shutil.copy(folder / "feature2" / "feature.patch", submission / "agent2.patch")
        runs = "".join(f"""
              - id: run{n}
                tokens: {{total: 1000}}
                tool_calls: 3
                execution_time: 10
                estimated_cost: 0.01
                patches: {patches}""" for n in ((1,) if coop else (1, 2)))
        (submission / "submission.yaml").write_text(textwrap.dedent(f"""\
            task: {task_id}
            tool: {{name: Fixture Tool, version: "1.0"}}
            models: [fixture-model]
            contributor: {{name: Tester}}
            date: 2025-01-01
            setting: {"coop" if coop else "single"}
            features: {"[1, 2]" if coop else "[1]"}
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
    """Each thread's name, state and blocked, ignored, caught and pending signal masks
    (/proc/PID/task/TID/status)."""
    lines = []
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")):
        try:
            status = (task / "status").read_text()
            lines.append(f"thread {task.name}: " + " ".join(
                line.replace("\t", "") for line in status.splitlines()
                if line.startswith(("Name", "State", "SigBlk", "SigIgn", "SigCgt", "SigPnd",
                                    "ShdPnd"))))
        except OSError as exc:
            lines.append(f"thread {task.name}: (no signal state: {exc})")
    if os.environ.get("ARENA_DEBUG_GDB"):
        lines.append(subprocess.run(
            ["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 12"],
            capture_output=True, text=True, timeout=120).stdout)
    return "".join(line + "\n" for line in lines)


def run_case(case: Case, root: Path, task: Path, client: docker.DockerClient,
             base_image: str) -> Outcome:
    """Run ``case`` on a copy of the task folder ``task`` under ``root`` (empty)."""
    marker = f"arena-interrupt-{uuid.uuid4().hex}" if case.phase == "build" else None
    server = StalledServer() if case.phase == "clone" else None
    try:
        return _run_case(case, root, task, client, base_image, marker=marker, server=server)
    finally:
        if server is not None:
            server.close()


def _run_case(case: Case, root: Path, task: Path, client: docker.DockerClient,
              base_image: str, *, marker: str | None, server: StalledServer | None) -> Outcome:
    args = _prepare(case, root, task, marker, origin=server.url if server else None)
    expected = root / "dataset" / task.name / "feature1" / "expected_tests.json"
    outcome = Outcome(case=case, root=root,
                      expected_before=expected.read_bytes() if expected.exists() else None)
    run = Run(root, args, base_image)
    started = time.monotonic()
    if case.phase == "build":
        reached = _reach(run, lambda: bool(_build_steps(client, marker or "")))
    elif case.phase == "start":
        reached = _reach(run, lambda: bool(_containers(client, run)))
    elif server is not None:  # clone: git is waiting for the stalled server
        reached = _reach(run, lambda: bool(server.connections))
    elif case.phase == "tests":
        reached = _reach(run, lambda: bool(_containers(client, run, running=True)))
        time.sleep(1.5)  # the tests are hanging by now
    elif case.kind == "merge":  # storing: after the summary's last line, the report next
        reached = _reach(run, lambda: any("both passed:" in line for line in run.lines))
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
    if server is not None:
        outcome.processes = _processes_naming(server.url)
    if marker:
        # The engine gives the build up once its client is gone (its step is killed).
        deadline = time.monotonic() + STOP_WITHIN
        while _build_steps(client, marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        outcome.build_steps = _build_steps(client, marker)
    return outcome


