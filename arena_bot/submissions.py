"""Finding and loading submission folders under ``submissions/``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena_bot.errors import InputError
from arena_bot.models.submission import Submission
from arena_bot.yamlio import LoadedYaml, load_yaml, validate_model

SUBMISSION_FILE = "submission.yaml"


@dataclass(frozen=True)
class SubmissionFolder:
    """A loaded submission: its spec, its folder and where its YAML lines are."""

    root: Path
    spec: Submission
    source: LoadedYaml

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
    """Parse and type-check one submission folder (cross-checks live in validation)."""
    loaded = load_yaml(root / SUBMISSION_FILE)
    spec = validate_model(Submission, loaded)
    return SubmissionFolder(root=root, spec=spec, source=loaded)


def find_submission_folders(paths: list[Path]) -> list[Path]:
    """Submission folders named by ``paths``: a folder, a file inside one, or a tree of them.

    Raises InputError for a path that does not exist or holds no submission.
    """
    found: dict[Path, None] = {}
    for path in paths:
        if not path.exists():
            raise InputError("path does not exist", path=path)
        if path.is_file():
            folder = path.parent
            if not (folder / SUBMISSION_FILE).is_file():
                raise InputError(
                    f"file is not inside a submission folder (no {SUBMISSION_FILE} beside it)",
                    path=path,
                )
            found[folder] = None
            continue
        if (path / SUBMISSION_FILE).is_file():
            found[path] = None
            continue
        matches = sorted(p.parent for p in path.rglob(SUBMISSION_FILE))
        if not matches:
            raise InputError(f"no {SUBMISSION_FILE} found under this folder", path=path)
        for match in matches:
            found[match] = None
    return list(found)
