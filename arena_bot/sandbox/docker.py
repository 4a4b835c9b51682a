"""The Docker implementation of the sandbox interface (docker-py).

Every container is hardened the same way: no network, user 1000:1000, all capabilities
dropped, no-new-privileges, pid / memory (swap = memory) / CPU limits, a read-only root file
system with size-capped tmpfs mounts only: ``/tmp``, ``/workspace`` (filled at start with a
copy of the image's ``/workspace``, owned by uid 1000; its size cap bounds the repository plus
everything written there, so nothing a test writes ever reaches the host's disk) and
``/arena`` (root-owned, for the harness's files: readable by the sandbox users, not theirs to
change). Commands run as uid 1000 (the owner of ``/workspace``) or as uid 1001, the tester,
who can read the repository but write only ``/tmp``.

Fewest round trips per sandbox (each exec costs tens of milliseconds): a sandbox is created
at :meth:`DockerEngine.open` and started by its first command. Files written before that
(:meth:`DockerSandbox.write_files`: the harness's) travel on the container's standard input
and are unpacked by its first process, which runs as root without any capability (so the
files are root-owned) before it sleeps; no command runs before they are in place. The image's
``/workspace`` is unpacked by the first command run as the owner, in the same exec (the
archive on its standard input, a fixed prefix before the command), or by an exec of its own
when a tester's command comes first.

Cleanup: each container carries :data:`SANDBOX_LABEL` plus the host name and process id of
its owner. It is removed when its context ends: at once on an error or Ctrl-C, in a
background thread after normal use (:meth:`DockerEngine.drain` waits; so does interpreter
exit), and :meth:`DockerEngine.sweep` removes leftovers whose owner process is gone.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import tarfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from contextlib import contextmanager
from typing import Any

import docker
import docker.errors
from docker.types import LogConfig, Ulimit
from docker.utils.socket import frames_iter

from arena_bot.core.errors import SandboxError
from arena_bot.core.signals import deferred_signals
from arena_bot.sandbox.base import ExecResult, SandboxLimits, SandboxUser
from arena_bot.sandbox.engine import ENGINE_ERRORS

SANDBOX_LABEL = "org.agentic-arena.sandbox"
OWNER_HOST_LABEL = "org.agentic-arena.owner-host"
OWNER_PID_LABEL = "org.agentic-arena.owner-pid"
SANDBOX_USER = "1000:1000"
#: Runs the tests: not the owner of the repository's files, so it cannot rewrite them.
TEST_USER = "1001:1001"
#: Only :meth:`DockerSandbox.write_files` runs as root (still without any capability).
_ROOT_USER = "0:0"
_USERS = {"owner": SANDBOX_USER, "tester": TEST_USER}
WORKSPACE = "/workspace"
HARNESS_MOUNT = "/arena"
#: Seconds allowed to copy the image's workspace (or the harness's files) in.
_COPY_TIMEOUT = 300.0
#: How often a running command is checked, and how long its output stream may stay open
#: after it exited (background processes holding it).
_POLL = 0.5
_GRACE = 2.0
#: Why a sandbox is refused (or ended at once) after :meth:`DockerEngine.kill_all`.
_STOPPED = "the run was interrupted: no more sandboxes are started"
#: What the container's first process prints once the staged files are unpacked.
_READY = b"arena-sandbox-ready"
#: The container's first process: root without any capability (it can write the root-owned
#: ``/arena`` and nothing the users own), unpacks the files staged before the start (a tar on
#: its standard input, closed after the first attach), then only sleeps under docker-init.
_START_SCRIPT = (
    "tar -x --no-same-owner -C / || exit 1\n"
    f"echo {_READY.decode()}\n"
    "exec sleep 86400"
)
#: Printed by :data:`_UNPACK_SCRIPT` when the workspace could not be unpacked.
_UNPACK_FAILED = "arena-unpack-failed"
#: Prefix of the first owner command: unpack the image's workspace from standard input
#: (silent unless it fails), enter the command's folder, then become the command.
_UNPACK_SCRIPT = (
    'out=$(tar -x --no-same-owner -C / 2>&1) || '
    f'{{ printf "\\n{_UNPACK_FAILED} %s\\n" "$out"; exit 125; }}\n'
    'cd "$1" || exit 126\n'
    "shift\n"
    'exec "$@"'
)


class DockerSandbox:
    """One running hardened container (see the module docstring)."""

    def __init__(self, client: docker.DockerClient, container: Any, limits: SandboxLimits,
                 *, workspace: bytes = b"") -> None:
        self._client = client
        self._container = container
        self.limits = limits
        self.killed = False
        self._oom_kills = 0
        self._started = False
        #: Root-owned files for the first process to unpack: (path from /, content, mode).
        self._staged: list[tuple[str, bytes | None, int]] = []
        #: The image's /workspace, until the first owner command unpacks it.
        self._workspace = workspace

    @property
    def container_id(self) -> str:
        return str(self._container.id)

    def exec(
        self,
        command: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        workdir: str | None = None,
        output_limit: int | None = None,
        user: SandboxUser = "owner",
        keep_tail: int | None = None,
    ) -> ExecResult:
        """See :meth:`arena_bot.sandbox.base.Sandbox.exec`."""
        if self.killed:
            raise SandboxError("the sandbox was killed (timeout) and cannot run more commands")
        self._start()
        argv, stdin = list(command), None
        if self._workspace and user == "owner":
            # The first owner command unpacks the workspace itself: one exec, not two.
            argv = ["sh", "-c", _UNPACK_SCRIPT, "arena-unpack", workdir or "/tmp", *argv]
            stdin, workdir, self._workspace = self._workspace, None, b""
        elif self._workspace:
            workspace, self._workspace = self._workspace, b""
            self.extract(workspace, directory="/", user=SANDBOX_USER)
        limit = self.limits.output_bytes if output_limit is None else output_limit
        started = time.monotonic()
        exec_id, stream = self._start_exec(argv, user=user, env=env, workdir=workdir,
                                           stdin=stdin)
        collector = _OutputCollector(limit=limit, tail=keep_tail)
        # The stream is read in a worker thread so the wall-clock limit holds even when the
        # command writes nothing; past the cap the worker keeps draining (so the command is
        # never blocked on a full pipe) but stores nothing.
        reader = threading.Thread(target=collector.consume, args=(stream,), daemon=True)
        reader.start()
        timed_out = self._wait(reader, exec_id=exec_id, deadline=started + timeout)
        if timed_out:
            self.kill()
            reader.join(10)
        # A stream still open here was left (background process): what it had not delivered
        # yet is lost, so the output counts as truncated.
        abandoned = reader.is_alive()
        duration = time.monotonic() - started
        exit_code: int | None = None
        if not timed_out:
            try:
                exit_code = self._client.api.exec_inspect(exec_id).get("ExitCode")
            except ENGINE_ERRORS as exc:
                raise SandboxError(f"Docker lost the sandbox command: {exc}") from None
        if collector.error is not None and not timed_out:
            raise SandboxError(f"reading the sandbox output failed: {collector.error}")
        if stdin is not None and exit_code == 125 and _UNPACK_FAILED in collector.text():
            raise SandboxError("could not copy the image's workspace into the sandbox: "
                               + collector.text().split(_UNPACK_FAILED, 1)[1].strip()[:500])
        return ExecResult(
            exit_code=exit_code,
            output=collector.text(),
            truncated=collector.truncated or (abandoned and not timed_out),
            timed_out=timed_out,
            oom_killed=self._oom_killed(exit_code),
            duration=duration,
        )

    def _start_exec(
        self, argv: list[str], *, user: SandboxUser, env: Mapping[str, str] | None,
        workdir: str | None, stdin: bytes | None,
    ) -> tuple[str, Iterator[bytes]]:
        """Create and start an exec; its output as a stream of chunks. With ``stdin``, the
        bytes are sent by a thread of their own (a command may write before it reads)."""
        api = self._client.api
        try:
            exec_id = api.exec_create(
                self._container.id, argv, user=_USERS[user], environment=dict(env or {}),
                workdir=workdir, stdout=True, stderr=True, stdin=stdin is not None,
            )["Id"]
            if stdin is None:
                return exec_id, api.exec_start(exec_id, stream=True, demux=False)
            sock = api.exec_start(exec_id, socket=True)
        except ENGINE_ERRORS as exc:
            raise SandboxError(f"Docker could not run a command in the sandbox: {exc}") from None
        raw = getattr(sock, "_sock", sock)
        raw.settimeout(None)  # the wall-clock limit is the caller's (it kills the sandbox)
        threading.Thread(target=_send, args=(raw, stdin), daemon=True).start()
        return exec_id, _frames(sock, raw)

    def _wait(self, reader: threading.Thread, *, exec_id: str, deadline: float) -> bool:
        """Wait for the command; True when the deadline passed first.

        The output stream only ends when every process holding it has exited: a command that
        left a background process behind would otherwise look like a hang. So once the
        command itself has exited, the stream gets a short grace period and is then left.
        """
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            if now >= deadline:
                return True
            reader.join(min(_POLL, deadline - now))
            if not reader.is_alive():
                return False
            if exited_at is None:
                try:
                    running = self._client.api.exec_inspect(exec_id).get("Running", True)
                except ENGINE_ERRORS:
                    running = True
                if not running:
                    exited_at = time.monotonic()
            elif time.monotonic() - exited_at > _GRACE:
                return False

    def _oom_killed(self, exit_code: int | None) -> bool:
        # The OOM killer's victim dies of SIGKILL (137 through a shell, or the command itself).
        # Docker only flags OOMKilled when PID 1 dies, not for an exec'd process, so the
        # container's own memory cgroup counter is read: a rise since the last command means
        # the kernel killed for memory (a plain `kill -9` does not count).
        if exit_code not in (137, -9) or self.killed:
            return False
        count = self._oom_kill_count()
        if count is None:
            try:
                self._container.reload()
            except ENGINE_ERRORS:
                return False
            return bool(self._container.attrs.get("State", {}).get("OOMKilled"))
        risen = count > self._oom_kills
        self._oom_kills = count
        return risen

    def _oom_kill_count(self) -> int | None:
        """The cgroup's ``oom_kill`` counter (cgroup v2 memory.events or v1 oom_control)."""
        try:
            exec_id = self._client.api.exec_create(
                self._container.id,
                ["sh", "-c", "cat /sys/fs/cgroup/memory.events "
                 "/sys/fs/cgroup/memory/memory.oom_control 2>/dev/null"],
                user=SANDBOX_USER,
            )["Id"]
            text = self._client.api.exec_start(exec_id).decode("utf-8", errors="replace")
        except ENGINE_ERRORS:
            return None
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return None

    def write_files(self, files: Mapping[str, bytes], *, directory: str) -> None:
        """Create ``files`` under ``directory`` (root-owned, world-readable: the sandbox users
        can read and run them but not change them). Before the first command they are staged
        for the container's first process (no exec); afterwards a root exec unpacks them."""
        folder = directory.strip("/")
        entries: list[tuple[str, bytes | None, int]] = [(folder, None, 0o755)]
        entries += [(f"{folder}/{name}", content, 0o755 if name.endswith(".sh") else 0o644)
                    for name, content in files.items()]
        if not self._started:
            # Before the start: unpacked by the container's first process, no exec needed.
            self._staged += entries
            return
        self.extract(_archive(entries), directory="/", user=_ROOT_USER)

    def _start(self) -> None:
        """Start the container (once): its first process unpacks the staged files (root-owned)
        from standard input and says so before any command runs."""
        if self._started:
            return
        self._started = True
        api = self._client.api
        try:
            sock = api.attach_socket(self._container.id,
                                     params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            api.start(self._container.id)
        except ENGINE_ERRORS as exc:
            raise SandboxError(f"Docker could not start the sandbox: {exc}") from None
        output = bytearray()
        try:
            raw = _push(sock, _archive(self._staged))
            for _stream, chunk in frames_iter(raw, tty=False):
                output += chunk[: max(0, 4096 - len(output))]
                if _READY in output:
                    break
        except OSError as exc:
            raise SandboxError(f"could not copy files into the sandbox: {exc}") from None
        finally:
            sock.close()
        self._staged = []
        if self.killed:
            # kill() ran while the container was starting (Ctrl-C): it found nothing running.
            with contextlib.suppress(docker.errors.APIError):
                self._container.kill()
            raise SandboxError("the sandbox was killed while it started")
        if _READY not in output:
            text = output.decode("utf-8", errors="replace").strip()
            raise SandboxError(f"the sandbox did not start (its first process said: {text[:500]})")

    def extract(self, archive: bytes, *, directory: str, user: str) -> None:
        """Unpack the tar ``archive`` into ``directory`` with ``tar`` run in the sandbox as
        ``user``. The daemon's own copy (put_archive) cannot write into tmpfs mounts of a
        container whose root file system is read-only, so the archive goes in on stdin."""
        self._start()
        api = self._client.api
        try:
            exec_id = api.exec_create(
                self._container.id, ["tar", "-x", "--no-same-owner", "-C", directory],
                user=user, stdin=True, stdout=True, stderr=True,
            )["Id"]
            sock = api.exec_start(exec_id, socket=True)
        except ENGINE_ERRORS as exc:
            raise SandboxError(f"could not copy files into the sandbox: {exc}") from None
        output = bytearray()
        try:
            raw = _push(sock, archive)
            while chunk := raw.recv(65536):
                output += chunk[: max(0, 4096 - len(output))]
            exit_code = api.exec_inspect(exec_id).get("ExitCode")
        except (OSError, *ENGINE_ERRORS) as exc:  # type: ignore[misc]
            raise SandboxError(f"could not copy files into the sandbox: {exc}") from None
        finally:
            sock.close()
        if exit_code != 0:
            # The stream is multiplexed (8-byte frame headers): keep the printable text.
            text = "".join(ch for ch in output.decode("utf-8", errors="replace")
                           if ch.isprintable() or ch == "\n").strip()
            raise SandboxError(
                f"could not copy files into the sandbox folder {directory} "
                f"(tar exit status {exit_code}): {text[:500]}"
            )

    def kill(self) -> None:
        """Kill every process of the sandbox (timeout, Ctrl-C); before the start, the killed
        flag stops the first command."""
        self.killed = True
        if not self._started:
            return
        with contextlib.suppress(docker.errors.APIError):  # already dead
            self._container.kill()


class DockerEngine:
    """Opens :class:`DockerSandbox` containers from images; see the module docstring."""

    def __init__(self, client: docker.DockerClient) -> None:
        self.client = client
        self._host = socket.gethostname()
        self._open: dict[str, DockerSandbox] = {}
        self._open_lock = threading.Lock()
        #: Set by kill_all (Ctrl-C): no sandbox opens after it.
        self._stopped = threading.Event()
        # Worker threads of an executor are joined at interpreter exit, so a pending removal
        # still happens when the program ends (or is interrupted) right after a sandbox.
        self._reaper = ThreadPoolExecutor(max_workers=2, thread_name_prefix="arena-reaper")
        self._removals: list[Future[None]] = []
        #: Tar of each image's /workspace (by image id): read once, copied into every sandbox.
        self._workspaces: dict[str, bytes] = {}
        self._workspaces_lock = threading.Lock()

    @contextmanager
    def open(self, image: str, *, limits: SandboxLimits) -> Iterator[DockerSandbox]:
        """Start a hardened container from ``image``; remove it (and its volume) on exit."""
        container = None
        try:
            if self._stopped.is_set():
                raise SandboxError(_STOPPED)
            try:
                # A Ctrl-C during the call would leave a container the daemon made but
                # nobody knows of: it takes effect once the container is known (and removed).
                with deferred_signals():
                    container = self.client.containers.create(image, **self._hardening(limits))
            except docker.errors.ImageNotFound:
                raise SandboxError(
                    f"image {image} is not present", hint="run `arena images build`"
                ) from None
            except ENGINE_ERRORS as exc:
                raise SandboxError(
                    f"Docker could not start a sandbox from {image}: {exc}"
                ) from None
            # Started by its first command (see the module docstring). Known to kill_all
            # from the moment it exists: a kill_all that ran while it was being created is
            # seen here, under the same lock.
            sandbox = DockerSandbox(self.client, container, limits)
            with self._open_lock:
                self._open[sandbox.container_id] = sandbox
                if self._stopped.is_set():
                    sandbox.killed = True
            if sandbox.killed:
                raise SandboxError(_STOPPED)
            try:
                sandbox._workspace = self._workspace_archive(container)
            except ENGINE_ERRORS as exc:
                raise SandboxError(
                    f"Docker could not start a sandbox from {image}: {exc}"
                ) from None
            yield sandbox
        except BaseException:
            if container is not None:
                self._forget(container)
                _remove(container)  # on errors and Ctrl-C: synchronously, right now
            raise
        else:
            # The result is ready: the container is removed in the background (a docker
            # round trip off the critical path). drain() and interpreter exit wait for it.
            self._forget(container)
            self._removals.append(self._reaper.submit(_remove, container))

    def _hardening(self, limits: SandboxLimits) -> dict[str, Any]:
        """The container's settings: no network, no capabilities, a read-only root with
        size-capped tmpfs mounts, pid/memory/CPU/file-size limits, and owner labels."""
        return {
            # A long sleep under a reaping init (docker-init): commands run through exec; the
            # sandbox is killed and removed long before it ends. The init reaps orphans, so a
            # fork bomb's killed children do not stay zombies holding the pid limit the
            # harness needs to read the report.
            "init": True,
            "command": ["sh", "-c", _START_SCRIPT],
            "entrypoint": [],
            # The first process reads the staged files from standard input; attached before
            # the start, closed after it (not detached: docker-py then sets StdinOnce).
            "stdin_open": True,
            "detach": False,
            # Not the image's WORKDIR: Docker would create it, root-owned, inside the empty
            # /workspace tmpfs before the image's copy goes in.
            "working_dir": "/tmp",
            # Only the first process: every command names its user (owner or tester).
            "user": _ROOT_USER,
            "network_disabled": True,
            "network_mode": "none",
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "pids_limit": limits.pids,
            "mem_limit": f"{limits.memory_mb}m",
            "memswap_limit": f"{limits.memory_mb}m",
            "nano_cpus": int(limits.cpus * 1e9),
            "read_only": True,
            "tmpfs": {
                "/tmp": f"rw,exec,nosuid,nodev,size={limits.tmpfs_mb}m",
                WORKSPACE: f"rw,exec,nosuid,nodev,size={limits.workspace_mb}m,"
                           "uid=1000,gid=1000,mode=0755",
                HARNESS_MOUNT: "rw,noexec,nosuid,nodev,size=64m,mode=0755",
            },
            "ulimits": [Ulimit(name="fsize", soft=limits.file_mb * 1024 * 1024,
                               hard=limits.file_mb * 1024 * 1024)],
            "environment": {"HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"},
            "labels": {
                SANDBOX_LABEL: "1",
                OWNER_HOST_LABEL: self._host,
                OWNER_PID_LABEL: str(os.getpid()),
            },
            # The daemon keeps its own copy of the output: cap it too.
            "log_config": LogConfig(type="json-file", config={"max-size": "1m", "max-file": "1"}),
        }

    def _workspace_archive(self, container: Any) -> bytes:
        """The image's /workspace as a tar (empty when the image has none). Read from the
        created, not yet started container, where the tmpfs does not hide it yet; cached
        per image id, since every sandbox of an image starts from the same copy."""
        image_id = str(container.attrs.get("Image", ""))
        with self._workspaces_lock:
            if image_id in self._workspaces:
                return self._workspaces[image_id]
        try:
            stream, _stat = container.get_archive(WORKSPACE)
            archive = b"".join(stream)
        except docker.errors.NotFound:
            archive = b""
        with self._workspaces_lock:
            self._workspaces[image_id] = archive
        return archive

    def _forget(self, container: Any) -> None:
        with self._open_lock:
            self._open.pop(str(container.id), None)

    def drain(self) -> None:
        """Wait until every container of this engine is removed; re-raise a failed removal.

        Timed waits, Ctrl-C raised between them (see
        arena_bot.evaluation.engine._wait_for_units)."""
        with deferred_signals() as received:
            while self._removals and not received:
                if wait_for(self._removals[-1:], timeout=_POLL).done:
                    self._removals.pop().result()

    def kill_all(self) -> None:
        """Kill every open sandbox and open no more (see
        :meth:`arena_bot.sandbox.base.SandboxEngine.kill_all`)."""
        with self._open_lock:
            self._stopped.set()
            sandboxes = list(self._open.values())
        for sandbox in sandboxes:
            sandbox.kill()

    def sweep(self) -> int:
        """Remove sandbox containers left by processes of this host that no longer run."""
        removed = 0
        try:
            # Sparse: one listing call, no inspect per container. A full listing inspects
            # each one and fails with NotFound when another process removes one meanwhile
            # (the engine is shared by many sessions).
            containers = self.client.containers.list(
                all=True, sparse=True,
                filters={"label": [SANDBOX_LABEL, f"{OWNER_HOST_LABEL}={self._host}"]},
            )
        except ENGINE_ERRORS as exc:
            raise SandboxError(f"Docker could not list containers: {exc}") from None
        for container in containers:
            labels = container.attrs.get("Labels") or {}
            owner = labels.get(OWNER_PID_LABEL, "")
            if owner.isdigit() and _process_alive(int(owner)):
                continue
            _remove(container)
            removed += 1
        return removed


def _archive(entries: list[tuple[str, bytes | None, int]]) -> bytes:
    """A tar of ``entries`` (path from /, content or ``None`` for a folder, mode)."""
    buffer = io.BytesIO()
    now = int(time.time())
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path, content, mode in entries:
            info = tarfile.TarInfo(path)
            info.mode = mode
            info.mtime = now
            if content is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def _push(sock: Any, data: bytes) -> Any:
    """Send ``data`` whole on an attached socket and close its writing side; the raw socket."""
    raw = getattr(sock, "_sock", sock)
    raw.settimeout(_COPY_TIMEOUT)
    raw.sendall(data)
    raw.shutdown(socket.SHUT_WR)
    return raw


def _send(raw: Any, data: bytes) -> None:
    """Write ``data`` to an exec's standard input, then close it (the command sees EOF)."""
    try:
        raw.sendall(data)
        raw.shutdown(socket.SHUT_WR)
    except OSError:
        # The command ended without reading it all (or the sandbox was killed): what it did
        # is in its exit status and output; there is nobody left to send to.
        return


def _frames(sock: Any, raw: Any) -> Iterator[bytes]:
    """The payloads of an attached exec's multiplexed output (stdout and stderr together)."""
    try:
        for _stream, chunk in frames_iter(raw, tty=False):
            yield chunk
    finally:
        sock.close()


def _remove(container: Any) -> None:
    # A second Ctrl-C must not leave the container half-removed. Removal can race with the
    # daemon still tearing the container down: retried once.
    with deferred_signals():
        for attempt in (1, 2):
            try:
                container.remove(force=True, v=True)
                return
            except docker.errors.NotFound:
                return
            except ENGINE_ERRORS as exc:
                if attempt == 2:
                    raise SandboxError(f"could not remove sandbox container: {exc}") from None
                time.sleep(0.5)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    return True


class _OutputCollector:
    """Keeps at most ``limit`` bytes of a stream: its head and (a quarter of the cap) its tail,
    where test runners print their summary. Everything between is counted, then dropped."""

    def __init__(self, *, limit: int, tail: int | None = None) -> None:
        self.limit = limit
        self.tail_limit = min(limit, limit // 4 if tail is None else tail)
        self.head_limit = limit - self.tail_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.error: str | None = None

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + len(self.tail)

    def consume(self, stream: Any) -> None:
        try:
            for chunk in stream:
                self.total += len(chunk)
                room = self.head_limit - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                if chunk and self.tail_limit:
                    self.tail += chunk[-self.tail_limit :]
                    del self.tail[: max(0, len(self.tail) - self.tail_limit)]
        except Exception as exc:  # reported to the caller through .error
            self.error = str(exc) or type(exc).__name__

    def text(self) -> str:
        if not self.truncated:
            data = bytes(self.head + self.tail)
        else:
            omitted = self.total - len(self.head) - len(self.tail)
            marker = f"\n[... {omitted:,} bytes of output omitted ...]\n".encode()
            data = bytes(self.head) + marker + bytes(self.tail)
        return data.decode("utf-8", errors="replace")
