"""Host-side clones of task repositories at their base commit (for merge analysis).

Cloned once per task source into ``<cache>/repos/`` from the task's bundle (offline) or URL,
into a temporary folder renamed into place, so an interrupted clone is never reused. Merge
analysis only reads these clones. A clone runs in an evaluation worker, where Ctrl-C does not
reach it: :meth:`BaseRepoCache.stop` kills it (and refuses new ones).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import threading
from pathlib import Path

from arena_bot.core.errors import DatasetError, SandboxError
from arena_bot.tasks.dataset import TaskFolder

_GIT_TIMEOUT = 600
_STOPPED = "the run was interrupted: no task repository is cloned"


class BaseRepoCache:
    """Clones of task sources under ``root``, one per (task, source, commit)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        #: Set by :meth:`stop` (Ctrl-C): the clone under way is killed, no other starts.
        self._stopped = threading.Event()

    def stop(self) -> None:
        """Kill the clone under way (its temporary folder is removed) and clone no more:
        :meth:`get` raises SandboxError, in every thread."""
        self._stopped.set()

    def path_for(self, task: TaskFolder) -> Path:
        source = task.spec.source
        origin = str(task.bundle.stat().st_size) + ":" + _digest(task.bundle) if task.bundle \
            else str(source.url)
        key = hashlib.sha256(f"{origin}\n{source.commit}".encode()).hexdigest()[:16]
        return self.root / f"{task.id}-{key}"

    def get(self, task: TaskFolder) -> Path:
        """A clone of ``task``'s source checked out at its base commit."""
        with self._lock:
            target = self.path_for(task)
            if (target / ".git").is_dir():
                return target
            if self._stopped.is_set():
                raise SandboxError(_STOPPED)
            self.root.mkdir(parents=True, exist_ok=True)
            origin = str(task.bundle) if task.bundle else str(task.spec.source.url)
            temp = Path(tempfile.mkdtemp(prefix=".clone-", dir=self.root))
            try:
                _git("clone", "--quiet", "--no-checkout", origin, str(temp / "repo"), task=task,
                     stop=self._stopped)
                _git("-C", str(temp / "repo"), "checkout", "--quiet", task.spec.source.commit,
                     task=task, stop=self._stopped)
                (temp / "repo").rename(target)
            finally:
                shutil.rmtree(temp, ignore_errors=True)
            return target


def _digest(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _git(*args: str, task: TaskFolder, stop: threading.Event) -> None:
    # Imported here: GitPython (tens of milliseconds) loads only when a clone is made (coop
    # runs), not with every `arena evaluate`.
    from arena_bot.core.gitcmd import NOT_STARTED, run_git

    done = run_git(args, timeout=_GIT_TIMEOUT, stop=stop)
    if stop.is_set():
        raise SandboxError(_STOPPED)
    if done.status == NOT_STARTED:
        raise DatasetError(done.stderr, path=task.root)
    if not done.ok:
        raise DatasetError(
            f"cannot check out the task source at {task.spec.source.commit}: "
            f"{done.stderr.strip()[-500:]}",
            path=task.root / "task.yaml",
            hint="the bundle (or URL) must contain the base commit",
        )
