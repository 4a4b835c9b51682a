"""The Docker sandbox against a real engine: hardening, limits, hostile commands, cleanup."""

from __future__ import annotations

import os
import subprocess
import time

import docker
import pytest

from arena_bot.core.errors import SandboxError
from arena_bot.sandbox.base import SandboxLimits
from arena_bot.sandbox.docker import (
    OWNER_HOST_LABEL,
    OWNER_PID_LABEL,
    SANDBOX_LABEL,
    DockerEngine,
)

pytestmark = pytest.mark.docker

TIGHT = SandboxLimits(memory_mb=128, pids=64, cpus=0.5, output_bytes=64 * 1024, tmpfs_mb=32)


@pytest.fixture(scope="module")
def engine(docker_client: docker.DockerClient) -> DockerEngine:
    return DockerEngine(docker_client)


def _sandbox_ids(client: docker.DockerClient) -> set[str]:
    # Sparse: no inspect per container, which fails with NotFound when another session
    # sharing the engine removes one of its own meanwhile.
    return {c.id for c in client.containers.list(all=True, sparse=True,
                                                 filters={"label": SANDBOX_LABEL})}


def test_container_is_hardened(engine: DockerEngine, base_image: str) -> None:
    with engine.open(base_image, limits=TIGHT) as sandbox:
        result = sandbox.exec(
            [
                "sh",
                "-c",
                "id -u; id -g; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; "
                "touch /etc/arena 2>/dev/null && echo ROOT-WRITABLE; "
                "touch /tmp/ok && echo TMP-WRITABLE; "
                "cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max 2>/dev/null; "
                "ls /sys/class/net",
            ],
            timeout=30,
        )
    lines = result.output.split()
    assert result.exit_code == 0
    assert lines[:2] == ["1000", "1000"]
    assert "0000000000000000" in result.output  # CapEff: no capability at all
    assert "NoNewPrivs:\t1" in result.output
    assert "ROOT-WRITABLE" not in result.output
    # /workspace is writable too, but owned by uid 1000 only in task images (engine tests).
    assert "TMP-WRITABLE" in result.output
    assert str(TIGHT.pids) in lines
    assert "eth0" not in lines and "lo" in lines  # no network interface but loopback


def test_infinite_loop_times_out_and_is_killed(
    engine: DockerEngine, base_image: str, docker_client: docker.DockerClient
) -> None:
    started = time.monotonic()
    with engine.open(base_image, limits=TIGHT) as sandbox:
        result = sandbox.exec(["sh", "-c", "while :; do :; done"], timeout=2)
        assert result.timed_out and result.exit_code is None and not result.ok
        with pytest.raises(SandboxError, match="killed"):
            sandbox.exec(["true"], timeout=5)
        container_id = sandbox.container_id
    engine.drain()
    assert time.monotonic() - started < 20
    assert container_id not in _sandbox_ids(docker_client)


def test_fork_bomb_hits_the_pids_limit(engine: DockerEngine, base_image: str) -> None:
    script = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    while True:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(60); os._exit(0)\n"
        "        n += 1\n"
        "except OSError as exc:\n"
        "    print('forks', n, 'errno', exc.errno)\n"
    )
    with engine.open(base_image, limits=TIGHT) as sandbox:
        result = sandbox.exec(["python3", "-c", script], timeout=30)
    assert not result.timed_out
    words = result.output.split()
    assert words[0] == "forks", result.output
    assert int(words[1]) < TIGHT.pids  # the limit held
    assert words[3] == "11"  # EAGAIN: "Resource temporarily unavailable"
    # The machine is fine: a new sandbox starts and runs normally.
    with engine.open(base_image, limits=TIGHT) as sandbox:
        assert sandbox.exec(["true"], timeout=30).exit_code == 0


def test_killed_orphans_are_reaped_so_the_pid_limit_frees_up(
    engine: DockerEngine, base_image: str
) -> None:
    """A fork bomb's children outlive the test command (orphans); once killed, an init that
    reaps them must free their pids, or the harness cannot start the exec that reads the
    report (seen under load: "OCI runtime exec failed")."""
    fill = (
        "import os, time\n"
        "for _ in range(40):\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(600); os._exit(0)\n"
        "os._exit(0)\n"  # the parent leaves its children behind
    )
    with engine.open(base_image, limits=TIGHT) as sandbox:
        sandbox.exec(["python3", "-c", fill], timeout=30, user="tester")
        sandbox.exec(["sh", "-c", "kill -KILL -1 2>/dev/null; true"], timeout=30,
                     user="tester")
        deadline = time.monotonic() + 10
        while True:
            count = sandbox.exec(["sh", "-c", "ls /proc | grep -c '^[0-9]'"], timeout=30)
            if int(count.output.strip()) < 10 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert int(count.output.strip()) < 10, count.output  # no zombie left behind
        # And the sandbox still runs the next command, however many forks came before.
        assert sandbox.exec(["true"], timeout=30).exit_code == 0


def test_memory_exhaustion_is_killed_and_reported(engine: DockerEngine, base_image: str) -> None:
    with engine.open(base_image, limits=TIGHT) as sandbox:
        result = sandbox.exec(
            ["python3", "-c", "b = b'x' * (512 * 1024 * 1024); print(len(b))"], timeout=60
        )
    assert result.exit_code == 137
    assert result.oom_killed
    assert not result.timed_out


def test_network_is_unreachable(engine: DockerEngine, base_image: str) -> None:
    script = (
        "import socket\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 80), timeout=5)\n"
        "    print('CONNECTED')\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"
        "    raise SystemExit(3)\n"
    )
    with engine.open(base_image, limits=TIGHT) as sandbox:
        result = sandbox.exec(["python3", "-c", script], timeout=30)
    assert result.exit_code == 3
    assert "CONNECTED" not in result.output


def test_huge_output_is_truncated_without_blocking(engine: DockerEngine, base_image: str) -> None:
    with engine.open(base_image, limits=TIGHT) as sandbox:
        result = sandbox.exec(
            ["sh", "-c", "head -c 50000000 /dev/zero | tr '\\0' x; echo done; exit 7"],
            timeout=120,
        )
    assert result.truncated
    assert len(result.output.encode()) <= TIGHT.output_bytes + 100
    assert result.output.startswith("x" * 1000)
    assert "bytes of output omitted" in result.output
    assert result.output.endswith("xdone\n")  # the tail, where summaries are, is kept
    assert result.exit_code == 7  # the command ran to its end: its status survives


def test_write_files_are_readonly_for_the_sandbox_user(
    engine: DockerEngine, base_image: str
) -> None:
    with engine.open(base_image, limits=TIGHT) as sandbox:
        sandbox.write_files({"a.txt": b"hello\n", "run.sh": b"echo ran"}, directory="/arena/h")
        read = sandbox.exec(["sh", "-c", "cat /arena/h/a.txt; sh /arena/h/run.sh"],
                            timeout=30)
        write = sandbox.exec(["sh", "-c", "echo x > /arena/h/a.txt"], timeout=30)
    assert read.output.split() == ["hello", "ran"]
    assert write.exit_code != 0


def test_containers_are_removed_on_error_and_interrupt(
    engine: DockerEngine, base_image: str, docker_client: docker.DockerClient
) -> None:
    seen: list[str] = []
    for exc_type in (RuntimeError, KeyboardInterrupt):
        with pytest.raises(exc_type), engine.open(base_image, limits=TIGHT) as sandbox:
            seen.append(sandbox.container_id)
            raise exc_type()
    assert not set(seen) & _sandbox_ids(docker_client)


def test_sweep_removes_leftovers_of_dead_processes_only(
    engine: DockerEngine, base_image: str, docker_client: docker.DockerClient
) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    labels = {SANDBOX_LABEL: "1", OWNER_HOST_LABEL: engine._host}
    orphan = docker_client.containers.create(
        base_image, ["sleep", "60"], labels={**labels, OWNER_PID_LABEL: str(dead.pid)}
    )
    alive = docker_client.containers.create(
        base_image, ["sleep", "60"], labels={**labels, OWNER_PID_LABEL: str(os.getpid())}
    )
    try:
        assert engine.sweep() >= 1
        remaining = _sandbox_ids(docker_client)
        assert orphan.id not in remaining
        assert alive.id in remaining
    finally:
        alive.remove(force=True)


def test_missing_image_is_a_clear_error(engine: DockerEngine) -> None:
    with pytest.raises(SandboxError, match="not present"), engine.open(
        "arena-no-such-image:missing", limits=TIGHT
    ):
        pass


def test_background_process_does_not_hang_the_command(
    engine: DockerEngine, base_image: str
) -> None:
    with engine.open(base_image, limits=TIGHT) as sandbox:
        result = sandbox.exec(["sh", "-c", "sleep 300 & echo started; exit 4"], timeout=60)
    assert (result.exit_code, result.timed_out) == (4, False)
    assert result.output == "started\n" and result.duration < 10


def test_image_entrypoint_is_overridden(
    engine: DockerEngine, base_image: str, docker_client: docker.DockerClient
) -> None:
    dockerfile = f'FROM {base_image}\nENTRYPOINT ["/bin/false"]\n'.encode()
    import io

    docker_client.images.build(fileobj=io.BytesIO(dockerfile), tag="arena-test-entrypoint:1",
                               rm=True)
    with engine.open("arena-test-entrypoint:1", limits=TIGHT) as sandbox:
        assert sandbox.exec(["echo", "ok"], timeout=30).output == "ok\n"


def test_a_file_larger_than_the_cap_cannot_be_written(
    engine: DockerEngine, base_image: str
) -> None:
    """Attack class 6 (a test filling the host disk through /workspace): one file stops at
    the file-size cap with EFBIG (a process limit: every file system alike; the base image's
    /workspace is not the sandbox user's, so /tmp shows it)."""
    limits = SandboxLimits(file_mb=8)
    with engine.open(base_image, limits=limits) as sandbox:
        for folder in ("/tmp",):
            result = sandbox.exec(
                ["sh", "-c", f"dd if=/dev/zero of={folder}/fill bs=1M count=32 2>&1; "
                 f"echo size=$(stat -c %s {folder}/fill)"],
                timeout=60,
            )
            assert f"size={8 * 1024 * 1024}" in result.output, result.output
            # SIGXFSZ kills dd ("File size limit exceeded"); a process ignoring it gets EFBIG.
            assert "File size limit exceeded" in result.output or "File too large" in (
                result.output), result.output


def test_the_workspace_is_capped_in_total_and_never_reaches_the_host(
    engine: DockerEngine, base_image: str
) -> None:
    """Attack class 6 in total: 3 GiB across 48 files of 64 MiB (each under the per-file cap)
    stop at the workspace's size with ENOSPC; the host's disk does not move."""
    import shutil

    limits = SandboxLimits(workspace_mb=128)
    host = "/var/lib/docker" if os.path.exists("/var/lib/docker") else "/"
    before = shutil.disk_usage(host).free
    with engine.open(base_image, limits=limits) as sandbox:
        result = sandbox.exec(
            ["sh", "-c", "for i in $(seq 1 48); do "
             "dd if=/dev/zero of=/workspace/fill-$i bs=1M count=64 2>&1 | grep -i 'space'; done; "
             "du -sm /workspace | cut -f1"],
            timeout=120,
        )
        during = shutil.disk_usage(host).free
    assert result.exit_code == 0 and not result.timed_out, result.output
    assert "No space left on device" in result.output
    assert int(result.output.split()[-1]) <= 128
    assert before - during < 100 * 1024 * 1024, (before, during)


def test_files_written_before_the_start_are_root_owned_and_unchangeable(
    engine: DockerEngine, base_image: str
) -> None:
    """The harness's files are unpacked by the container's first process (root without any
    capability) before any command runs: neither sandbox user can change, replace or add to
    them, exactly as files written by a root exec after the start."""
    # One pipe for both streams (Docker copies stdout and stderr separately: across two pipes
    # their order is not kept, CI once saw the shell's error before stat's line).
    attempts = ("exec 2>&1; echo x > /arena/h/a.txt; rm -f /arena/h/a.txt; "
                "mv /arena/h/run.sh /tmp/x; "
                "touch /arena/h/new; chmod 777 /arena/h/a.txt; ls /arena/h")
    with engine.open(base_image, limits=TIGHT) as sandbox:
        sandbox.write_files({"a.txt": b"hello\n", "run.sh": b"echo ran"}, directory="/arena/h")
        first = sandbox.exec(["sh", "-c", "stat -c '%u %a %n' /arena/h /arena/h/* /proc/1; "
                              "grep -h CapEff /proc/[0-9]*/status 2>/dev/null | sort -u"],
                             timeout=30)
        owner = sandbox.exec(["sh", "-c", attempts], timeout=30)
        tester = sandbox.exec(["sh", "-c", attempts], timeout=30, user="tester")
        sandbox.write_files({"b.txt": b"later\n"}, directory="/arena/later")
        later = sandbox.exec(["sh", "-c", "exec 2>&1; stat -c '%u %a' /arena/later/b.txt; "
                              "echo x > /arena/later/b.txt || echo refused"], timeout=30)
    assert first.output.splitlines() == [
        "0 755 /arena/h", "0 644 /arena/h/a.txt", "0 755 /arena/h/run.sh", "0 555 /proc/1",
        "CapEff:\t0000000000000000",  # no process of the container holds a capability
    ], first.output
    for attempt in (owner, tester):
        assert attempt.output.split()[-2:] == ["a.txt", "run.sh"], attempt.output
        assert "new" not in attempt.output.split()
    assert later.output.split()[:2] == ["0", "644"] and "refused" in later.output


@pytest.fixture(scope="module")
def workspace_image(base_image: str, docker_client: docker.DockerClient) -> str:
    """The base image with a small repository in /workspace, as task images have one."""
    import io

    dockerfile = (f"FROM {base_image}\nRUN mkdir -p /workspace/repo && echo hello > "
                  "/workspace/repo/file.txt && head -c 3000000 /dev/zero > /workspace/big "
                  "&& chown -R 1000:1000 /workspace\nWORKDIR /workspace/repo\n").encode()
    tag = "arena-test-workspace:1"
    docker_client.images.build(fileobj=io.BytesIO(dockerfile), tag=tag, rm=True)
    return tag


def test_the_workspace_arrives_with_the_first_command_whoever_runs_it(
    engine: DockerEngine, workspace_image: str
) -> None:
    """The image's /workspace is unpacked by the first owner command in its own exec (the
    archive on its stdin): the command sees it from its folder, prints nothing of the unpack,
    keeps its exit status, and later commands see the same tree. A tester's first command
    gets it unpacked by the owner beforehand, and still cannot write there."""
    with engine.open(workspace_image, limits=TIGHT) as sandbox:
        first = sandbox.exec(["sh", "-c", "pwd; cat file.txt; stat -c %u file.txt; "
                              "echo more >> file.txt; exit 7"],
                             timeout=30, workdir="/workspace/repo")
        second = sandbox.exec(["cat", "/workspace/repo/file.txt"], timeout=30)
    assert (first.exit_code, first.output) == (7, "/workspace/repo\nhello\n1000\n")
    assert second.output == "hello\nmore\n"
    with engine.open(workspace_image, limits=TIGHT) as sandbox:
        # One pipe for both streams: their order is kept.
        tester = sandbox.exec(["sh", "-c", "exec 2>&1; cat file.txt; "
                               "echo x > file.txt || echo refused"],
                              timeout=30, workdir="/workspace/repo", user="tester")
        owner = sandbox.exec(["stat", "-c", "%u", "/workspace/repo/file.txt"], timeout=30)
    assert tester.output.splitlines()[0] == "hello" and "refused" in tester.output
    assert owner.output == "1000\n"


def test_a_workspace_that_does_not_fit_is_a_clear_error(
    engine: DockerEngine, workspace_image: str
) -> None:
    """A workspace larger than its cap stops the sandbox with an engine error (never a
    half-unpacked repository the harness would go on with), whoever's command comes first."""
    small = SandboxLimits(workspace_mb=1)
    for user in ("owner", "tester"):
        with pytest.raises(SandboxError, match="could not copy") as caught, engine.open(
            workspace_image, limits=small
        ) as sandbox:
            sandbox.exec(["true"], timeout=30, user=user)  # type: ignore[arg-type]
        assert "No space left on device" in caught.value.message


def test_the_kept_tail_holds_a_trailer_whole(engine: DockerEngine, base_image: str) -> None:
    """``keep_tail``: past the cap, the last bytes asked for are kept whole (the report the
    tests' shell prints last), the head as usual, what lies between is counted and dropped."""
    with engine.open(base_image, limits=TIGHT) as sandbox:
        result = sandbox.exec(
            ["sh", "-c", "head -c 50000 /dev/zero | tr '\\0' x; printf 'END%.0s' $(seq 1 200)"],
            timeout=30, output_limit=2000, keep_tail=600,
        )
    assert result.truncated and result.output.startswith("x" * 1400)
    assert result.output.endswith("END" * 200)
    assert "bytes of output omitted" in result.output


def test_a_sandbox_killed_before_its_first_command_runs_nothing(
    engine: DockerEngine, base_image: str, docker_client: docker.DockerClient
) -> None:
    """Ctrl-C can reach a sandbox that is created but not started yet (it starts with its
    first command): nothing runs in it afterwards, and it is removed like any other."""
    with engine.open(base_image, limits=TIGHT) as sandbox:
        sandbox.kill()
        with pytest.raises(SandboxError, match="killed"):
            sandbox.exec(["true"], timeout=30)
        seen = sandbox.container_id
    engine.drain()
    assert seen not in _sandbox_ids(docker_client)
