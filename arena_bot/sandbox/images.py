"""Docker images: the offline base image (for machines that cannot pull from a registry;
GitHub's runners pull the public default instead) and the content-addressed task images."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path

import docker
import docker.errors
from docker.models.images import Image

from arena_bot.core.digest import folder_digest
from arena_bot.core.errors import SandboxError
from arena_bot.core.settings import DEFAULT_BASE_IMAGE, OFFLINE_BASE_IMAGE
from arena_bot.core.signals import deferred_signals
from arena_bot.sandbox.engine import ENGINE_ERRORS
from arena_bot.tasks.dataset import TaskFolder
from arena_bot.tasks.wheels import BASE_WHEELS, PYTEST_PIN, WHEELS_FILE, fetch_wheels, wheel_files


def wheel_cache() -> Path:
    """Where task wheels are kept on the host (``$ARENA_WHEELS``, else the user's cache)."""
    return Path(os.environ.get("ARENA_WHEELS") or Path.home() / ".cache" / "arena" / "wheels")

Progress = Callable[[str], None]

#: Debian packages of the offline base image: what a Python task's Dockerfile expects to find,
#: so that its "install git and pytest" fallback (which needs a network) never runs. pytest
#: itself comes from the package index at a pinned version (:data:`BASE_WHEELS`), not Debian's.
BASE_PACKAGES = (
    "python3",
    "python-is-python3",  # `python`, as the public image has; real test suites call it
    "python3-venv",
    "git",
    "ca-certificates",
    "passwd",
    "procps",
)
BASE_SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
_APT_SOURCES = Path("/etc/apt/sources.list.d/debian.sources")
DEBIAN_KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
_LOG_TAIL_LINES = 40
#: How often a thread waiting for a build checks whether the run was stopped (Ctrl-C).
_STOP_POLL = 0.2
_STOPPED = "the run was interrupted: no image is built"
#: Label on every image this module builds, so they can be listed and pruned.
IMAGE_LABEL = "org.agentic-arena.image"
#: Label of the offline base image naming the wheels installed in it (:data:`BASE_WHEELS`):
#: an image built before a pin changed (or with Debian's pytest) is rebuilt, not reused.
BASE_WHEELS_LABEL = "org.agentic-arena.base-wheels"
_BASE_WHEELS_VALUE = ",".join(BASE_WHEELS)


def _quiet(_: str) -> None:
    """Default progress sink."""


def apt_mirror(sources: Path = _APT_SOURCES) -> str:
    """The first Debian mirror URI of the machine's deb822 apt sources (``URIs:`` line).

    The security archive is skipped: debootstrap needs the main archive. Falls back to
    deb.debian.org when the file is absent.
    """
    if not sources.is_file():
        return DEFAULT_MIRROR
    for line in sources.read_text(encoding="utf-8", errors="replace").splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "URIs":
            for uri in value.split():
                if "security" not in uri:
                    return uri
    return DEFAULT_MIRROR


def get_image(client: docker.DockerClient, reference: str) -> Image | None:
    """The local image ``reference``, or ``None``; engine failures become SandboxError."""
    try:
        return client.images.get(reference)
    except docker.errors.ImageNotFound:
        return None
    except ENGINE_ERRORS as exc:
        raise SandboxError(f"Docker could not look up image {reference}: {exc}") from None


def image_exists(client: docker.DockerClient, reference: str) -> bool:
    """Whether ``reference`` is present in the local image store."""
    return get_image(client, reference) is not None


def build_base_image(
    client: docker.DockerClient,
    *,
    tag: str = OFFLINE_BASE_IMAGE,
    force: bool = False,
    mirror: str | None = None,
    progress: Progress = _quiet,
) -> str:
    """Build the offline base image with debootstrap (Debian's :data:`BASE_PACKAGES` from the
    apt mirror, pytest's pinned wheels installed ``--no-index``) and ``docker import``; return
    its id. An existing image labelled with the same wheels is kept unless ``force``. Needs
    root and ``debootstrap`` (``scripts/ensure_docker.sh`` installs it).
    """
    image = None if force else get_image(client, tag)
    if image is not None:
        if (image.labels or {}).get(BASE_WHEELS_LABEL) == _BASE_WHEELS_VALUE:
            progress(f"{tag} already exists ({image.short_id}); use --force to rebuild")
            return str(image.id)
        progress(f"{tag} ({image.short_id}) was built with other Python packages than "
                 f"{', '.join(BASE_WHEELS)}: rebuilding it")
    debootstrap = _debootstrap_program()
    mirror = mirror or apt_mirror()
    with tempfile.TemporaryDirectory(prefix="arena-base-") as temp:
        rootfs = Path(temp) / "rootfs"
        progress(f"debootstrap {BASE_SUITE} (minbase) from {mirror} into {rootfs} ...")
        command = [
            debootstrap,
            "--variant=minbase",
            f"--include={','.join(BASE_PACKAGES)}",
            # Debian's keyring, named explicitly: on other distributions (an Ubuntu runner)
            # debootstrap would check Debian's Release file against their own keys.
            *([f"--keyring={DEBIAN_KEYRING}"] if DEBIAN_KEYRING.is_file() else []),
            BASE_SUITE,
            str(rootfs),
            mirror,
        ]
        _run_logged(command, progress=progress, what="debootstrap")
        _install_base_wheels(rootfs, requirements=Path(temp) / WHEELS_FILE, progress=progress)
        _trim_rootfs(rootfs)
        _import_rootfs(client, rootfs, archive=Path(temp) / "rootfs.tar", tag=tag,
                       progress=progress)
    built = get_image(client, tag)
    if built is None:
        raise SandboxError(f"docker import did not create {tag}")
    progress(f"built {tag} ({built.short_id})")
    return str(built.id)


def _debootstrap_program() -> str:
    """The debootstrap program, once it is known this process may run it (root)."""
    debootstrap = shutil.which("debootstrap") or (
        "/usr/sbin/debootstrap" if Path("/usr/sbin/debootstrap").is_file() else None
    )
    if debootstrap is None:
        raise SandboxError(
            "debootstrap is not installed",
            hint="run scripts/ensure_docker.sh (or: apt-get install -y debootstrap)",
        )
    if os.geteuid() != 0:
        raise SandboxError(
            "building the base image needs root (debootstrap creates device files and chroots)",
            hint="run `sudo arena images base`, or pull the public base image instead",
        )
    return debootstrap


def _install_base_wheels(rootfs: Path, *, requirements: Path, progress: Progress) -> None:
    """Install :data:`BASE_WHEELS` into ``rootfs`` with its own ``python3`` running the pinned
    pip wheel, chrooted, ``--no-index``: the files land where the image's Python installs
    packages, with a ``pytest`` console script naming the image's interpreter."""
    requirements.write_text("\n".join(BASE_WHEELS) + "\n", encoding="utf-8")
    progress(f"fetching {', '.join(BASE_WHEELS)} on the host ...")
    inside = "/tmp/arena-wheels"
    house = rootfs / inside.lstrip("/")
    wheels = _copy_wheels(requirements, house)
    pip = next((w.name for w in wheels if w.name.startswith("pip-")), None)
    if pip is None or len(wheels) != len(BASE_WHEELS):
        raise SandboxError(f"the wheel cache {wheel_cache()} lacks some of "
                           f"{', '.join(BASE_WHEELS)}")
    progress(f"installing {PYTEST_PIN} into the root file system (pip --no-index) ...")
    try:
        _run_logged(
            ["chroot", str(rootfs), "/usr/bin/env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin",
             "LANG=C.UTF-8", "HOME=/root", "python3", f"{inside}/{pip}/pip", "install",
             "--quiet", "--no-index", "--no-cache-dir", "--find-links", inside,
             "--break-system-packages", "--root-user-action=ignore", "--no-warn-script-location",
             "-r", f"{inside}/{WHEELS_FILE}"],
            progress=progress, what="installing the base image's pytest",
        )
    finally:
        shutil.rmtree(house, ignore_errors=True)


def _copy_wheels(requirements: Path, folder: Path) -> list[Path]:
    """Fetch ``requirements``' wheels on the host (never in a build) and copy them with the
    requirements file into ``folder``; the wheels copied."""
    cache = fetch_wheels(requirements, cache=wheel_cache())
    folder.mkdir(parents=True, exist_ok=True)
    wheels = wheel_files(requirements, cache)
    for wheel in wheels:
        shutil.copy2(wheel, folder / wheel.name)
    shutil.copy2(requirements, folder / WHEELS_FILE)
    return wheels


def _import_rootfs(
    client: docker.DockerClient, rootfs: Path, *, archive: Path, tag: str, progress: Progress
) -> None:
    """Pack ``rootfs`` into ``archive`` and ``docker import`` it as ``tag``."""
    progress("packing the root file system ...")
    with tarfile.open(archive, "w") as tar:
        # numeric owners as they are on disk: the image must keep root-owned system files.
        for entry in sorted(rootfs.iterdir()):
            tar.add(entry, arcname=entry.name)
    repository, _, image_tag = tag.partition(":")
    progress(f"docker import as {tag} ...")
    try:
        client.api.import_image_from_file(
            str(archive),
            repository=repository,
            tag=image_tag or "latest",
            changes=[
                "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "ENV LANG=C.UTF-8",
                "ENV PYTHONDONTWRITEBYTECODE=1",
                f"LABEL {IMAGE_LABEL}=base",
                f"LABEL {BASE_WHEELS_LABEL}={_BASE_WHEELS_VALUE}",
                'CMD ["/bin/bash"]',
            ],
        )
    except ENGINE_ERRORS as exc:
        raise SandboxError(f"docker import of the base image failed: {exc}") from None


def _run_logged(command: list[str], *, progress: Progress, what: str) -> None:
    """Run ``command``, forwarding its output lines as progress; keep a tail for errors."""
    tail: deque[str] = deque(maxlen=_LOG_TAIL_LINES)
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            line = line.rstrip()
            tail.append(line)
            if line.startswith(("I: Retrieving", "I: Validating", "W:", "E:")):
                continue  # hundreds of lines per package; the others show progress well enough
            progress(f"  {line}")
    if process.returncode != 0:
        raise SandboxError(
            f"{what} failed (exit status {process.returncode}):\n" + "\n".join(tail),
            hint="check that the apt mirror in /etc/apt/sources.list.d is reachable",
        )


def _trim_rootfs(rootfs: Path) -> None:
    """Drop package caches and lists: they only make the image bigger."""
    for folder in (rootfs / "var/cache/apt/archives", rootfs / "var/lib/apt/lists"):
        if folder.is_dir():
            for entry in folder.iterdir():
                if entry.is_file():
                    entry.unlink()


def resolve_base_image(
    client: docker.DockerClient,
    requested: str,
    *,
    explicit: bool = False,
    progress: Progress = _quiet,
) -> str:
    """The base image to build task images on: ``requested`` when present locally or
    pullable. When it is the public default (not chosen ``explicit``-ly) and no registry can be
    reached, the offline image if present: the normal state of an offline machine, said
    plainly rather than as a failed pull. A line saying which image (unless ``requested`` was
    stored locally) goes to ``progress``: call this once per command, never per unit.
    """
    if image_exists(client, requested):
        return requested
    try:
        client.images.pull(requested)
        progress(f"base image: pulled {requested} (first use; later runs reuse it)")
        return requested
    except ENGINE_ERRORS as exc:
        pull_error = str(exc).splitlines()[0][:300]
    fallback = not explicit and requested == DEFAULT_BASE_IMAGE
    if fallback and image_exists(client, OFFLINE_BASE_IMAGE):
        progress(f"base image: {OFFLINE_BASE_IMAGE} (built offline by `arena images base`): "
                 f"no registry is reachable here and {requested} is not stored locally; "
                 f"--base-image {OFFLINE_BASE_IMAGE} skips this check")
        return OFFLINE_BASE_IMAGE
    raise SandboxError(
        f"base image {requested} is not present and cannot be pulled ({pull_error})",
        hint=(
            f"on a machine without registry access run `arena images base` and pass "
            f"--base-image {OFFLINE_BASE_IMAGE} (or set ARENA_BASE_IMAGE)"
        ),
    )


def local_base_image(client: docker.DockerClient, requested: str) -> str:
    """The base image :func:`resolve_base_image` would pick, judged without pulling: what
    `arena bot plan --pending` needs to find results stored by an offline evaluation
    (stored under the offline image's name when the public default was not available)."""
    if (requested == DEFAULT_BASE_IMAGE and not image_exists(client, requested)
            and image_exists(client, OFFLINE_BASE_IMAGE)):
        return OFFLINE_BASE_IMAGE
    return requested


@dataclass(frozen=True)
class TaskImage:
    """A built task image."""

    tag: str
    id: str
    built: bool  # False when an existing image was reused


class TaskImages:
    """Builds and reuses task images; thread-safe, each image built at most once."""

    def __init__(
        self, client: docker.DockerClient, *, base_image: str, progress: Progress = _quiet
    ) -> None:
        self.client = client
        self.base_image = base_image
        self.progress = progress
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._base_id: str | None = None
        #: Failed builds, so the other units of the same task fail at once instead of
        #: rebuilding (the failure is not stored: the next command retries).
        self._failed: dict[str, SandboxError] = {}
        self._stopped = threading.Event()

    def base_image_id(self) -> str:
        """Id of the base image (part of every task image's hash)."""
        if self._base_id is None:
            base = get_image(self.client, self.base_image)
            if base is None:
                raise SandboxError(
                    f"base image {self.base_image} is not present",
                    hint="run `arena images base` (offline) or `docker pull` it",
                )
            self._base_id = str(base.id)
        return self._base_id

    def tag_for(self, task: TaskFolder) -> str:
        """``arena-task-<id>:<hash>``, the hash covering the task folder and the base image id."""
        digest = hashlib.sha256(
            f"{folder_digest(task.root)}\n{self.base_image_id()}".encode()
        ).hexdigest()
        return f"arena-task-{task.id}:{digest[:20]}"

    def ensure(self, task: TaskFolder) -> TaskImage:
        """The task's image, built if no image with its content hash exists."""
        tag = self.tag_for(task)
        with self._guard:
            lock = self._locks.setdefault(tag, threading.Lock())
        with lock:
            if tag in self._failed:
                raise self._failed[tag]
            existing = get_image(self.client, tag)
            if existing is not None:
                return TaskImage(tag=tag, id=str(existing.id), built=False)
            self.progress(f"building image {tag} ...")
            try:
                image_id = self._build_unless_stopped(task, tag=tag)
            except SandboxError as exc:
                self._failed[tag] = exc
                raise
            self.progress(f"built {tag}")
            return TaskImage(tag=tag, id=image_id, built=True)

    def stop(self) -> None:
        """Stop waiting for builds (Ctrl-C): :meth:`ensure` raises SandboxError at once,
        in every thread. A build under way is abandoned, and the engine cancels it when
        this process exits and its connection closes."""
        self._stopped.set()

    def _build_unless_stopped(self, task: TaskFolder, *, tag: str) -> str:
        """:meth:`_build` in a thread of its own, waited for until it ends or :meth:`stop`
        is called (a thread cannot be interrupted while it reads the build's stream)."""
        if self._stopped.is_set():
            raise SandboxError(_STOPPED)
        done: Future[str] = Future()

        def build() -> None:
            try:
                done.set_result(self._build(task, tag=tag))
            except BaseException as exc:  # handed to the waiting thread
                done.set_exception(exc)

        threading.Thread(target=build, name=f"arena-build-{task.id}", daemon=True).start()
        # Ctrl-C in the main thread is raised between two waits, never inside one.
        with deferred_signals() as received:
            while not received:
                try:
                    return done.result(timeout=_STOP_POLL)
                except FutureTimeout:
                    if self._stopped.is_set():
                        raise SandboxError(_STOPPED) from None
        raise SandboxError(_STOPPED)  # not reached: the signal is raised as the block ends

    def _build(self, task: TaskFolder, *, tag: str) -> str:
        requirements = task.root / WHEELS_FILE
        if not requirements.is_file():
            return self._build_from(task, tag=tag, context=task.root)
        # The build context: the task folder plus wheels/ (installed --no-index).
        with tempfile.TemporaryDirectory(prefix="arena-context-") as temp:
            context = Path(temp) / "context"
            shutil.copytree(task.root, context)
            _copy_wheels(requirements, context / "wheels")
            return self._build_from(task, tag=tag, context=context)

    def _build_from(self, task: TaskFolder, *, tag: str, context: Path) -> str:
        tail: deque[str] = deque(maxlen=_LOG_TAIL_LINES)
        image_id: str | None = None
        try:
            stream = self.client.api.build(
                path=str(context),
                dockerfile="Dockerfile",
                tag=tag,
                buildargs={"BASE_IMAGE": self.base_image},
                labels={IMAGE_LABEL: f"task:{task.id}"},
                rm=True,
                forcerm=True,
                decode=True,
            )
            for chunk in stream:
                if "stream" in chunk:
                    for line in str(chunk["stream"]).splitlines():
                        if line.strip():
                            tail.append(line)
                if "error" in chunk:
                    tail.append(str(chunk["error"]).strip())
                    raise SandboxError(
                        f"building the image of task {task.id} failed:\n" + "\n".join(tail),
                        path=task.dockerfile,
                        hint="fix the Dockerfile; it must build offline from BASE_IMAGE",
                    )
                aux = chunk.get("aux")
                if isinstance(aux, dict) and "ID" in aux:
                    image_id = str(aux["ID"])
        except ENGINE_ERRORS as exc:
            raise SandboxError(
                f"Docker refused to build the image of task {task.id}: {exc}",
                path=task.dockerfile,
            ) from None
        if image_id is None:
            built = get_image(self.client, tag)
            if built is None:
                raise SandboxError(f"the build of {tag} left no image", path=task.dockerfile)
            image_id = str(built.id)
        return image_id
