"""Finding and loading submission folders under ``submissions/``."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from arena_bot.core.errors import InputError
from arena_bot.core.yamlio import LoadedYaml, load_yaml, validate_model
from arena_bot.models.submission import Submission

SUBMISSION_FILE = "submission.yaml"
#: A submission folder's name, its id (matched whole: ``$`` alone would let a trailing
#: newline through, and git stores any bytes in a name).
SUBMISSION_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")


@dataclass(frozen=True)
class SubmissionFolder:
    """A loaded submission: its spec and its folder (and, on demand, its YAML's lines)."""

    root: Path
    spec: Submission

    @cached_property
    def source(self) -> LoadedYaml:
        """The parsed YAML with line numbers, for messages that point at a line.

        Read again on demand: most runs never need them.
        """
        return load_yaml(self.yaml_path)

    @property
    def id(self) -> str:
        return self.root.name

    @property
    def key(self) -> str:
        """``<task>/<submission>``: unique across the repository."""
        return f"{self.spec.task}/{self.id}"

    @property
    def yaml_path(self) -> Path:
        return self.root / SUBMISSION_FILE

    def file(self, name: str) -> Path:
        return self.root / name


def load_submission(root: Path) -> SubmissionFolder:
    """Parse and type-check one submission folder (cross-checks live in validation).

    A folder or ``submission.yaml`` that is a symbolic link is refused, as validation
    refuses it: followed, it would read a file elsewhere on the runner (and a message about
    that file would show its text)."""
    if root.is_symlink() or (root / SUBMISSION_FILE).is_symlink():
        raise InputError("the submission folder or its submission.yaml is a symbolic link",
                         path=root, hint="commit real files, not links")
    return SubmissionFolder(root=root,
                            spec=validate_model(Submission, load_yaml(root / SUBMISSION_FILE)))


def all_submission_folders(path: Path) -> list[Path]:
    """The submission folder ``path`` is or is in, else every folder under ``path`` holding
    a ``submission.yaml`` (sorted; none when there is none).

    Symlinked folders are not followed: a link must not lead the bot elsewhere on disk.
    """
    if path.is_file() or path.is_symlink():
        folder = path.parent
        return [folder] if (folder / SUBMISSION_FILE).exists() else []
    if (path / SUBMISSION_FILE).exists() or (path / SUBMISSION_FILE).is_symlink():
        return [path]
    found = []
    for here, dirs, files in os.walk(path):
        dirs.sort()
        if SUBMISSION_FILE in files:
            found.append(Path(here))
    return sorted(found)


def find_submission_folders(paths: list[Path]) -> list[Path]:
    """Submission folders named by ``paths``: a folder, a file inside one, or a tree of them.

    Raises InputError for a path that does not exist or holds no submission.
    """
    found: dict[Path, None] = {}
    for path in paths:
        if not path.exists():
            raise InputError("path does not exist", path=path)
        folders = all_submission_folders(path)
        if not folders:
            raise InputError(
                f"file is not inside a submission folder (no {SUBMISSION_FILE} beside it)"
                if path.is_file() else f"no {SUBMISSION_FILE} found under this folder",
                path=path,
            )
        found.update(dict.fromkeys(folders))
    return list(found)
