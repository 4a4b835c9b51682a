"""``bundle.json``: what the untrusted PR workflow uploads and the trusted one reads.

It crosses a trust boundary (the PR may have changed the code that wrote it), so it is
parsed as data only: a size cap before reading, a strict schema, a numeric PR number, a
40-hex head SHA and caps on every list. Its leaderboard entries are read through tolerant
view models (:mod:`arena_bot.bot.view`) so a newer scorer's fields do not break the comment.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from arena_bot.bot.events import PullNumber, Sha
from arena_bot.core.errors import InputError, first_problem
from arena_bot.core.files import read_at_most, write_atomically
from arena_bot.intake.diagnostics import ReportOut

#: Largest bundle file read (bytes). A real PR's bundle is a few kilobytes per submission.
MAX_BUNDLE_BYTES = 2 * 1024 * 1024
MAX_CHANGED_FILES = 3000
MAX_ENTRIES = 200
#: Per feature: test output kept in the bundle, and test cases listed.
MAX_OUTPUT_CHARS = 4000
MAX_TESTS_PER_FEATURE = 200

RepoPath = Annotated[str, StringConstraints(min_length=1, max_length=1000)]
Records = Annotated[list[dict[str, Any]], Field(max_length=MAX_ENTRIES)]


class Bundle(BaseModel):
    """Everything the comment is rendered from (``bundle.json`` in the PR artifact)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = 1
    bot_version: Annotated[str, StringConstraints(max_length=64)]
    #: The PR the untrusted run says it evaluated; checked against the API before use.
    pr_number: PullNumber
    head_sha: Sha
    changed_files: Annotated[list[RepoPath], Field(max_length=MAX_CHANGED_FILES)]
    #: ``arena validate --format json`` of the changed files.
    validation: ReportOut
    #: Leaderboard entries (``leaderboard.json``) of the changed submissions, as scored
    #: against the board of the PR's base.
    entries: Records = Field(default_factory=list)
    #: Evaluation results (``arena evaluate`` output) of the changed submissions, trimmed by
    #: :func:`trim_result`: per-feature test results, merge analysis, review flags.
    results: Records = Field(default_factory=list)
    #: Task boards (``leaderboard.json`` ``tasks``) of the changed submissions' tasks: the
    #: weights and the baseline each score was measured against.
    tasks: Records = Field(default_factory=list)


def load_bundle(path: Path) -> Bundle:
    """Read and check ``path``; every failure is an InputError naming the file.

    The artifact is the untrusted run's, so only a plain file is read (never a symbolic
    link to a file of the trusted runner, nor a device or pipe that reads forever), and
    never more than the cap.
    """
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise InputError(
            f"cannot read the bundle: {exc.strerror}", path=path,
            hint="download the PR evaluation's artifact first (bundle.json)",
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(
            "bundle is not a regular file (a symbolic link, folder or special file)",
            path=path,
            hint="a genuine PR evaluation artifact holds bundle.json as a plain file; treat "
            "this one as forged",
        )
    if info.st_size > MAX_BUNDLE_BYTES:
        raise _oversized(path, info.st_size)
    try:
        with path.open("rb") as handle:
            raw = read_at_most(handle, MAX_BUNDLE_BYTES)
    except OSError as exc:
        raise InputError(f"cannot read the bundle: {exc.strerror}", path=path) from None
    if len(raw) > MAX_BUNDLE_BYTES:  # grew since it was measured
        raise _oversized(path, len(raw))
    try:
        data = json.loads(raw)
    except RecursionError:
        raise InputError(
            "bundle is not valid JSON (nested too deep)", path=path,
            hint="a genuine PR evaluation bundle is a few levels deep; treat this one as forged",
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"bundle is not valid JSON ({exc})", path=path) from None
    try:
        return Bundle.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            f"bundle does not match the schema at {first_problem(exc)} "
            f"({exc.error_count()} problem(s))",
            path=path,
            hint="the bundle must come from `arena bot evaluate-pr`; see bot-bundle.schema.json",
        ) from None


def _oversized(path: Path, size: int) -> InputError:
    return InputError(
        f"bundle is {size} bytes, over the {MAX_BUNDLE_BYTES}-byte cap", path=path,
        hint="a genuine PR evaluation bundle is far smaller; treat this one as forged",
    )


def board_parts(
    path: Path, keys: set[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The leaderboard entries of ``keys`` and the task boards of their tasks (missing
    file: none scored yet)."""
    if not path.is_file():
        return [], []
    try:
        board = json.loads(path.read_text(encoding="utf-8"))
        entries = [e for e in board["entries"] if isinstance(e, dict) and e.get("key") in keys]
        task_ids = {e.get("task_id") for e in entries}
        tasks = [t for t in board.get("tasks", []) if isinstance(t, dict)
                 and t.get("task_id") in task_ids]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise InputError(
            "cannot read the leaderboard's entries", path=path,
            hint="regenerate it with `arena score`",
        ) from None
    return entries, tasks


def write_bundle(bundle: Bundle, folder: Path) -> Path:
    """Write ``folder/bundle.json`` (the folder created)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bundle.json"
    write_atomically(path, (bundle.model_dump_json(indent=1) + "\n").encode())
    return path


def trim_result(result: dict[str, Any]) -> dict[str, Any]:
    """An EvaluationResult dump with each feature's output and test list capped.

    The tail of the output is kept (where failures are reported); merged diffs are dropped.
    """
    trimmed = dict(result)
    runs = []
    for run in result.get("runs", []):
        run = dict(run)
        run["features"] = [_trim_feature(f) for f in run.get("features", [])]
        if isinstance(run.get("merge"), dict):
            merge = dict(run["merge"])
            merge["diff"] = ""
            merge["features"] = [_trim_feature(f) for f in merge.get("features", [])]
            run["merge"] = merge
        runs.append(run)
    trimmed["runs"] = runs
    return trimmed


def _trim_feature(feature: dict[str, Any]) -> dict[str, Any]:
    feature = dict(feature)
    output = str(feature.get("output", ""))
    if len(output) > MAX_OUTPUT_CHARS:
        feature["output"] = output[-MAX_OUTPUT_CHARS:]
        feature["output_truncated"] = True
    tests = list(feature.get("tests", []))
    # failures first, so capping never hides one
    tests.sort(key=lambda t: t.get("outcome") == "passed")
    feature["tests"] = tests[:MAX_TESTS_PER_FEATURE]
    return feature
