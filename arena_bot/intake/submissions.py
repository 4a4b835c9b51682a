"""Finding and loading submission folders under ``submissions/``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from arena_bot.errors import InputError
from arena_bot.index import Index, cached_model, code_fingerprint
from arena_bot.models.submission import Submission
from arena_bot.scoring.witness import Witnesses
from arena_bot.yamlio import LoadedYaml, load_yaml, validate_model

SUBMISSION_FILE = "submission.yaml"


@dataclass(frozen=True)
class SubmissionFolder:
    """A loaded submission: its spec and its folder (and, on demand, its YAML's lines)."""

    root: Path
    spec: Submission

    @cached_property
    def source(self) -> LoadedYaml:
        """The parsed YAML with line numbers, for messages that point at a line.

        Read again on demand: a spec served from the index carries no line numbers, and
        most runs never need them.
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


def _parse(path: Path) -> Submission:
    return validate_model(Submission, load_yaml(path))


def _parse_bytes(path: Path, data: bytes) -> Submission:
    return validate_model(Submission, load_yaml(path, data=data))


def load_submission(root: Path, index: Index | None = None) -> SubmissionFolder:
    """Parse and type-check one submission folder (cross-checks live in validation).

    With an ``index``, a ``submission.yaml`` whose bytes an earlier run already parsed is
    not parsed again.
    """
    spec = cached_model(root / SUBMISSION_FILE, Submission, index, _parse, _parse_bytes)
    return SubmissionFolder(root=root, spec=spec)


def submission_folders(root: Path, index: Index | None = None) -> list[Path]:
    """Every folder under ``root`` holding a ``submission.yaml``, sorted.

    Symlinked folders are not followed: a link must not lead the bot elsewhere on disk. With
    an ``index``, folders are listed through it (an unchanged folder costs one ``stat``
    instead of reading its entries: a board has tens of thousands), and what was found under
    each top folder is remembered with a witness (:mod:`arena_bot.scoring.witness`): the
    signature of every folder listed under it. While those hold, the top folder's
    submission folders are the ones found before, and no listing is decoded.
    """
    if index is None:
        found = []
        for here, dirs, files in os.walk(root):
            dirs.sort()
            if SUBMISSION_FILE in files:
                found.append(Path(here))
        return sorted(found)
    if not root.is_dir():
        return []
    absolute = os.path.abspath(root)
    # An absolute root's folders are returned normalised, a relative root's below it as given.
    base = Path(absolute) if root.is_absolute() else root
    found = []
    witnesses = Witnesses(index, _WALK, code_fingerprint(index))
    slow = 0
    for name, kind in index.listing(absolute):
        if _marks(name, kind):
            found.append(base)
        if kind != "d":
            continue
        top = f"{absolute}/{name}"
        witness = witnesses.holding(top)
        if witness is not None and all(f == top or f.startswith(f"{top}/")
                                       for f in witness.folders):
            under = witness.folders
        else:
            slow += 1
            if slow == _SLOW_TOPS:  # many to walk: the stored listings in one scan
                index.preload_listings(root)
            with index.recording() as seen:
                under = _walk(top, index)
            witnesses.remember(top, key="", folders=under, seen=seen)
        # Made from the top folder's Path: parsing only what is below it.
        top_path = base / name
        found += (top_path / folder[len(top) + 1:] if folder != top else top_path
                  for folder in under)
    witnesses.retain()
    return sorted(found)


#: Whose witnesses (:mod:`arena_bot.scoring.witness`) vouch for the submission folders found
#: under one top folder of the board (a task's): the memo namespace.
_WALK = "walk-witness"
#: After this many top folders walked entry by entry, the stored listings are read at once.
_SLOW_TOPS = 4


def _marks(name: str, kind: str) -> bool:
    """Whether an entry marks its folder as a submission: a symlinked submission.yaml does
    too (validation refuses the link)."""
    return name == SUBMISSION_FILE and kind in ("f", "l")


def _walk(top: str, index: Index) -> list[str]:
    """The submission folders under ``top`` (absolute, itself included), sorted."""
    found = []
    stack = [top]
    while stack:
        folder = stack.pop()
        entries = index.listing(folder)
        if any(_marks(name, kind) for name, kind in entries):
            found.append(folder)
        stack.extend(f"{folder}/{name}" for name, kind in entries if kind == "d")
    return sorted(found)


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
        matches = submission_folders(path)
        if not matches:
            raise InputError(f"no {SUBMISSION_FILE} found under this folder", path=path)
        for match in matches:
            found[match] = None
    return list(found)
