"""Loading task folders from ``dataset/``."""

from __future__ import annotations

import fnmatch
import os
import shlex
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from arena_bot.core.errors import DatasetError
from arena_bot.core.yamlio import load_yaml, validate_model
from arena_bot.models.common import Identifier
from arena_bot.models.task import Task

TASK_FILE = "task.yaml"

#: A task's id (``Task.id``, a submission's ``task``): the name of its folder of dataset/.
_TASK_ID: TypeAdapter[str] = TypeAdapter(Identifier)

#: The Dockerfile shape every task image follows: ``ARG BASE_IMAGE``, git + pytest, a user
#: with uid 1000, the repository cloned from ``repo.bundle`` at the base commit into
#: ``/workspace/repo`` (no later history), no ENTRYPOINT (the harness runs its own command).
_DOCKERFILE = """\
{header}ARG BASE_IMAGE=python:3.11-slim-bookworm
FROM ${{BASE_IMAGE}}
# git and pytest: the offline base image (`arena images base`) has them; others install them.
RUN (command -v git >/dev/null && python3 -c "import pytest") \\
    || (apt-get update && apt-get install -y --no-install-recommends git \\
        && pip install --no-cache-dir pytest && rm -rf /var/lib/apt/lists/*)
RUN id -u arena >/dev/null 2>&1 || useradd --create-home --uid 1000 arena
COPY repo.bundle /opt/arena/repo.bundle
RUN git clone --quiet /opt/arena/repo.bundle /workspace/repo \\
    && git -C /workspace/repo checkout --quiet {sha} \\
    && git -C /workspace/repo remote remove origin \\
    && chown -R 1000:1000 /workspace
WORKDIR /workspace/repo
"""


def task_dockerfile(base_commit: str, *, comment: str | None = None) -> str:
    """The Dockerfile of a task whose source is ``repo.bundle`` at ``base_commit``."""
    header = f"# {comment}\n" if comment else ""
    return _DOCKERFILE.format(header=header, sha=base_commit)


@dataclass(frozen=True)
class FeatureFiles:
    """The three files of ``feature<N>/``."""

    id: int
    root: Path

    @property
    def description(self) -> Path:
        return self.root / "feature.md"

    @property
    def gold_patch(self) -> Path:
        return self.root / "feature.patch"

    @property
    def tests_patch(self) -> Path:
        return self.root / "tests.patch"

    @property
    def expected_tests(self) -> Path:
        """Recorded by ``arena dataset check`` (may not exist yet)."""
        return self.root / "expected_tests.json"


@dataclass(frozen=True)
class TaskFolder:
    """A loaded, checked task: its spec plus where its files are."""

    root: Path
    spec: Task

    @property
    def id(self) -> str:
        return self.spec.id

    def feature(self, feature_id: int) -> FeatureFiles:
        return FeatureFiles(id=feature_id, root=self.root / f"feature{feature_id}")

    @cached_property
    def features(self) -> dict[int, FeatureFiles]:
        return {fid: self.feature(fid) for fid in self.spec.feature_ids()}

    def unchecked_features(self) -> list[int]:
        """Features without recorded expected test ids (``arena dataset check`` not run):
        their verdicts would rest on the exit status and the canaries alone, so the task is
        left out of the board until a maintainer records them."""
        return [fid for fid, files in self.features.items() if not files.expected_tests.is_file()]

    @property
    def dockerfile(self) -> Path:
        return self.root / "Dockerfile"

    @property
    def bundle(self) -> Path | None:
        return self.root / self.spec.source.bundle if self.spec.source.bundle else None


def _refuse_links(root: Path) -> None:
    """Raise DatasetError naming the first symbolic link (or other file that is neither a
    folder nor a regular file) under ``root``. The task's digest hashes regular files only
    (:func:`arena_bot.core.digest.folder_digest`) while the harness would read a link's
    target: a result keyed by the digest would outlive a change of the target."""
    for here, folders, files in os.walk(root):
        for name in sorted([*folders, *files]):
            path = Path(here, name)
            if path.is_symlink():
                raise DatasetError(
                    f"{path.relative_to(root).as_posix()} is a symbolic link; a task folder "
                    "holds regular files and folders only", path=path,
                    hint="replace the link with a copy of what it points to",
                )
            if not (path.is_dir() or path.is_file()):
                raise DatasetError(
                    f"{path.relative_to(root).as_posix()} is not a regular file; a task "
                    "folder holds regular files and folders only", path=path,
                    hint="remove it",
                )


def load_task(root: Path) -> TaskFolder:
    """Load and check one task folder; raise DatasetError naming the missing piece."""
    _refuse_links(root)
    spec_path = root / TASK_FILE
    if not spec_path.is_file():
        raise DatasetError(f"no {TASK_FILE} in task folder", path=root)
    spec = validate_model(Task, load_yaml(spec_path))
    if spec.id != root.name:
        raise DatasetError(
            f"task id {spec.id!r} does not match its folder name {root.name!r}",
            path=spec_path,
            hint="rename the folder or the id so they agree",
        )
    task = TaskFolder(root=root, spec=spec)
    if not task.dockerfile.is_file():
        raise DatasetError("task folder has no Dockerfile", path=root)
    if task.bundle is not None and not task.bundle.is_file():
        raise DatasetError(f"source bundle {spec.source.bundle} is missing", path=spec_path)
    for feature in task.features.values():
        for required in (feature.description, feature.gold_patch, feature.tests_patch):
            if not required.is_file():
                raise DatasetError(
                    f"feature {feature.id} is missing {required.name}",
                    path=required,
                    hint="every feature folder needs feature.md, feature.patch and tests.patch",
                )
    extra = sorted(
        p.name
        for p in root.glob("feature*")
        if p.is_dir() and p.name.removeprefix("feature").isdigit()
        and int(p.name.removeprefix("feature")) not in task.features
    )
    if extra:
        raise DatasetError(
            f"feature folders {', '.join(extra)} are not listed under 'features' in {TASK_FILE}",
            path=spec_path,
        )
    return task


class Dataset:
    """All tasks under one ``dataset/`` folder, loaded lazily by id."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[str, TaskFolder] = {}

    def task_ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / TASK_FILE).is_file())

    def has(self, task_id: str) -> bool:
        """Whether ``task_id`` is a task of this dataset; DatasetError when it is not a
        task id at all (a path, a name too long): never a folder outside the dataset."""
        self._check_id(task_id)
        return (self.root / task_id / TASK_FILE).is_file()

    def _check_id(self, task_id: str) -> None:
        try:
            _TASK_ID.validate_python(task_id)
        except ValidationError:
            shown = repr(task_id) if len(task_id) <= 100 else f"{task_id[:100]!r}..."
            raise DatasetError(
                f"{shown} is not a task id: a task id names a folder of {self.root.name}/ "
                "(lower-case letters, digits, '.', '_' and '-', at most 80 characters), "
                "never a path",
                path=self.root,
                hint=f"give the task's id alone; known tasks: "
                f"{', '.join(self.task_ids()) or 'none'}",
            ) from None

    def get(self, task_id: str) -> TaskFolder:
        if task_id not in self._cache:
            if not self.has(task_id):
                known = ", ".join(self.task_ids()) or "none"
                raise DatasetError(
                    f"unknown task {task_id!r} (known tasks: {known})",
                    path=self.root / task_id,
                )
            self._cache[task_id] = load_task(self.root / task_id)
        return self._cache[task_id]

    def all(self) -> list[TaskFolder]:
        return [self.get(task_id) for task_id in self.task_ids()]


def collected_paths(command: str) -> list[str] | None:
    """The repository paths (or glob patterns) a pytest command names, files and folders,
    ``::`` selectors dropped and a ``cd DIR`` before them prefixed; ``None`` when it names
    none (pytest then collects its configured ``testpaths`` or the whole tree: every test
    file counts)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    paths = []
    folder = ""
    for index, word in enumerate(words):
        if index and words[index - 1] == "cd":
            folder = "" if word.startswith("/") else word.removeprefix("./").rstrip("/")
            continue
        if word.startswith("-") or "=" in word or word in ("&&", "||", ";", "|", "cd"):
            continue
        path = word.split("::", 1)[0].removeprefix("./").rstrip("/")
        if path.endswith(".py") or (("/" in path or path in ("tests", "test", "testing"))
                                    and not path.startswith(("/", "$"))):
            paths.append(f"{folder}/{path}" if folder else path)
    return paths or None


def collects(path: str, named: list[str] | None) -> bool:
    """Whether a command naming ``named`` (:func:`collected_paths`) collects ``path``."""
    if named is None:
        return True
    return any(path == item or path.startswith(item + "/")
               or (any(c in item for c in "*?[") and fnmatch.fnmatchcase(path, item))
               for item in named)
