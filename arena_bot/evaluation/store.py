"""Content-addressed storage of EvaluationResult JSON files.

A result is stored as ``<results_dir>/<task_id>/<submission_id>.<content>-<image>.json``:

* ``content`` = sha256 over the harness version, every file of the task folder and every file
  of the submission folder (paths and bytes);
* ``image`` = sha256 of the base image reference the task image was built on.

``input_hash`` (stored in the result) is the sha256 of both (the file name holds their first
32 and 12 hex digits). Same inputs → the stored result is reused; any changed input → a
different name → re-run. Writes go to a temporary file in the same folder and are renamed
into place, so an interrupted run never leaves a partial or corrupt result behind (a reader
sees the old file or the new one).

One folder per task: a board of 50,000 submissions over 200 tasks is 200 folders to list
(git's or this module's listing: 0.07 s), not 50,000 (0.55 s, nearly all of it the kernel's,
on every run that hashes the store). Results stored before 2026-11-27 sit one folder deeper,
``<task_id>/<submission_id>/<content>-<image>.json``: they are read as ever, never moved.
"""

from __future__ import annotations

import hashlib
import os
import re
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from arena_bot import HARNESS_VERSION
from arena_bot.core.digest import folder_digest
from arena_bot.core.files import write_atomically
from arena_bot.intake.submissions import SubmissionFolder
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.tasks.dataset import TaskFolder

#: Result files bigger than this are refused (they are never that large).
MAX_RESULT_BYTES = 50_000_000
#: A stored result's file name ends with its key's (:attr:`InputKey.file_name`).
KEY_NAME = re.compile(r"[0-9a-f]{32}-[0-9a-f]{12}\.json")
_KEY_LENGTH = 50


@dataclass(frozen=True)
class InputKey:
    """The content address of one evaluation."""

    content: str
    image: str

    @property
    def input_hash(self) -> str:
        return hashlib.sha256(f"{self.content}\n{self.image}".encode()).hexdigest()

    @property
    def file_name(self) -> str:
        return f"{self.content[:32]}-{self.image[:12]}.json"


def content_hash(
    submission_root: Path, task_root: Path, *, harness_version: str,
    task_digest: str | None = None,
) -> str:
    """sha256 over the harness version, the task folder's files (``task_digest`` when the
    caller has it) and the submission's files."""
    digest = hashlib.sha256()
    digest.update(f"harness {harness_version}\n".encode())
    digest.update(f"task {task_digest or folder_digest(task_root)}\n".encode())
    digest.update(f"submission {folder_digest(submission_root)}\n".encode())
    return digest.hexdigest()


def input_key(
    submission: SubmissionFolder,
    task: TaskFolder,
    base_image: str,
    *,
    harness_version: str = HARNESS_VERSION,
) -> InputKey:
    """The content address of evaluating ``submission`` on ``task`` over ``base_image``."""
    return InputKey(
        content=content_hash(submission.root, task.root, harness_version=harness_version),
        image=hashlib.sha256(base_image.encode()).hexdigest(),
    )


class ResultStore:
    """EvaluationResult files under one folder (``settings.results_dir``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        # Scoring looks up every submission of a task: hash each task folder once per store.
        self._task_digests: dict[Path, str] = {}
        self._listed: dict[str, dict[str, list[Path]]] = {}

    def path_for(self, submission: SubmissionFolder, key: InputKey) -> Path:
        return self.root / submission.spec.task / f"{submission.id}.{key.file_name}"

    def stored(self, task_id: str, submission_id: str) -> list[Path]:
        """Every result file stored for the submission, of either layout. The task's folder
        is listed once per store (a store lives for one command)."""
        if task_id not in self._listed:
            self._listed[task_id] = stored_by_submission(self.root / task_id)
        return self._listed[task_id].get(submission_id, [])

    def lookup(
        self, submission: SubmissionFolder, task: TaskFolder, base_image: str | None = None
    ) -> EvaluationResult | None:
        """The stored result for these exact inputs, or ``None``.

        With ``base_image=None`` any base image counts: what scoring wants when it does not
        know which base image evaluation used; of several, the :meth:`newest`.
        """
        if base_image is not None:
            return self.get(submission, input_key(submission, task, base_image))
        content = content_hash(
            submission.root, task.root, harness_version=HARNESS_VERSION,
            task_digest=self.task_digest(task),
        )
        return self.newest(submission.spec.task, submission.id, content=content[:32])

    def newest(self, task_id: str, submission_id: str, *, content: str = ""
               ) -> EvaluationResult | None:
        """The newest readable result stored for the submission (whose content hash starts
        with ``content``): the greatest ``evaluated_at`` (ties: the greater input hash), so
        the choice depends on the data, not on file times."""
        results = [result for path in self.stored(task_id, submission_id)
                   if path.name[-_KEY_LENGTH:].startswith(content)
                   and (result := self._read(path, task_id, submission_id)) is not None]
        return max(results, key=lambda r: (r.evaluated_at, r.input_hash), default=None)

    def task_digest(self, task: TaskFolder) -> str:
        """The task folder's digest, computed once per store."""
        if task.root not in self._task_digests:
            self._task_digests[task.root] = folder_digest(task.root)
        return self._task_digests[task.root]

    def get(self, submission: SubmissionFolder, key: InputKey) -> EvaluationResult | None:
        """The result stored under ``key``, or ``None``."""
        task_id, submission_id = submission.spec.task, submission.id
        found = self._read(self.path_for(submission, key), task_id, submission_id)
        if found is None:  # stored in the earlier layout
            found = self._read(self.root / task_id / submission_id / key.file_name,
                               task_id, submission_id)
        return found

    def save(self, submission: SubmissionFolder, key: InputKey, result: EvaluationResult) -> Path:
        """Write ``result`` atomically; return its path."""
        target = self.path_for(submission, key)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, result.model_dump_json(indent=2).encode("utf-8"))
        self._listed.pop(submission.spec.task, None)
        return target

    def _read(self, path: Path, task_id: str, submission_id: str) -> EvaluationResult | None:
        """The result at ``path``, stored for ``task_id`` / ``submission_id``.

        A file that cannot be read as a result is treated as absent (and overwritten on the
        next run) rather than trusted; so is one whose own task or submission id is not the
        one its path names (another submission's result copied there: the file name alone
        must not credit a submission with a result it never had)."""
        try:
            if path.stat().st_size > MAX_RESULT_BYTES:
                return None
            result = EvaluationResult.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            return None
        if result.task_id != task_id or result.submission_id != submission_id:
            return None
        return result


def result_owner(name: str) -> str | None:
    """The submission id a stored result's path under its task's folder names (``<id>.<key>``
    or, in the earlier layout, ``<id>/<key>``); ``None`` for any other file."""
    folder, slash, inner = name.partition("/")
    if slash:
        return folder if "/" not in inner and KEY_NAME.fullmatch(inner) else None
    owner = name[:-_KEY_LENGTH - 1]
    return owner if (len(name) > _KEY_LENGTH + 1 and name[-_KEY_LENGTH - 1] == "."
                     and KEY_NAME.fullmatch(name, len(owner) + 1)) else None


def stored_by_submission(folder: Path) -> dict[str, list[Path]]:
    """The result files under one task's folder, by submission id, sorted by name: its
    ``<id>.<key>`` files and, of the earlier layout, the ``<key>`` files in ``<id>/``."""
    found: dict[str, list[Path]] = {}
    try:
        with os.scandir(folder) as entries:
            listed = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    except OSError:  # nothing stored for this task yet
        return found
    for name, is_folder in sorted(listed):
        inner: list[str] = []
        if is_folder:
            with suppress(OSError):
                inner = sorted(f"{name}/{file}" for file in os.listdir(folder / name))
        for path in inner if is_folder else [name]:
            owner = result_owner(path)
            if owner is not None:
                found.setdefault(owner, []).append(folder / path)
    return found
