"""Content-addressed storage of EvaluationResult JSON files.

A result is stored under ``<results_dir>/<task_id>/<submission_id>/<content>-<image>.json``:

* ``content`` = sha256 over the harness version, every file of the task folder and every file
  of the submission folder (paths and bytes);
* ``image`` = sha256 of the base image reference the task image was built on.

``input_hash`` (stored in the result) is the sha256 of both. Same inputs → the stored result
is reused; any changed input → a different name → re-run. Writes go to a temporary file in
the same folder and are renamed into place, so an interrupted run never leaves a partial or
corrupt result behind (a reader sees the old file or the new one).
"""

from __future__ import annotations

import hashlib
import os
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

    def folder(self, submission: SubmissionFolder) -> Path:
        return self.root / submission.spec.task / submission.id

    def path_for(self, submission: SubmissionFolder, key: InputKey) -> Path:
        return self.folder(submission) / key.file_name

    def lookup(
        self, submission: SubmissionFolder, task: TaskFolder, base_image: str | None = None
    ) -> EvaluationResult | None:
        """The stored result for these exact inputs, or ``None``.

        With ``base_image=None`` any base image counts: what scoring wants when it does not
        know which base image evaluation used. Of several, the newest ``evaluated_at`` wins
        (ties: the greater input hash), so the choice depends on the data, not on file times.
        """
        if base_image is not None:
            return self.get(submission, input_key(submission, task, base_image))
        content = content_hash(
            submission.root, task.root, harness_version=HARNESS_VERSION,
            task_digest=self.task_digest(task),
        )
        folder = self.folder(submission)
        try:
            names = sorted(entry.name for entry in os.scandir(folder))
        except OSError:  # nothing stored for this submission yet
            names = []
        results = [
            result for name in names
            if name.startswith(f"{content[:32]}-") and name.endswith(".json")
            and (result := self._read(folder / name)) is not None
        ]
        return max(results, key=lambda r: (r.evaluated_at, r.input_hash), default=None)

    def task_digest(self, task: TaskFolder) -> str:
        """The task folder's digest, computed once per store."""
        if task.root not in self._task_digests:
            self._task_digests[task.root] = folder_digest(task.root)
        return self._task_digests[task.root]

    def get(self, submission: SubmissionFolder, key: InputKey) -> EvaluationResult | None:
        """The result stored under ``key``, or ``None``."""
        return self._read(self.path_for(submission, key))

    def save(self, submission: SubmissionFolder, key: InputKey, result: EvaluationResult) -> Path:
        """Write ``result`` atomically; return its path."""
        target = self.path_for(submission, key)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, result.model_dump_json(indent=2).encode("utf-8"))
        return target

    def _read(self, path: Path) -> EvaluationResult | None:
        # A file that cannot be read as a result is treated as absent (and overwritten on
        # the next run) rather than trusted.
        try:
            if path.stat().st_size > MAX_RESULT_BYTES:
                return None
            return EvaluationResult.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

