"""Checking submissions before anything runs: ``arena validate``.

Every problem becomes a :class:`Diagnostic` that names the file and line and says what to do;
nothing here raises for bad input. Cross-submission checks (duplicates, outliers against
other runs) belong to scoring.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar, cast

from arena_bot.core.config import DEFAULT_CONFIG, ArenaConfig
from arena_bot.core.errors import ArenaError
from arena_bot.core.prices import PriceTable
from arena_bot.core.yamlio import LoadedYaml, ModelValidationError, load_yaml, validate_model
from arena_bot.intake.diagnostics import (
    Diagnostic,
    DiagnosticCode,
    PatchDiagnosticCode,
    ValidationCode,
)
from arena_bot.intake.patches import (
    DATASET_PATCH_BYTES,
    DATASET_PATCH_LINES,
    Patch,
    PatchProblemCode,
    ProtectedViolation,
    load_patch,
    protected_paths_for,
    unquote_git_name,
)
from arena_bot.intake.submissions import SUBMISSION_FILE, SUBMISSION_ID, all_submission_folders
from arena_bot.intake.transcripts.redact import secret_file_reason, secrets_in_patch
from arena_bot.intake.verification import verify_run
from arena_bot.models.common import Level
from arena_bot.models.submission import Run, Submission
from arena_bot.tasks.dataset import Dataset, TaskFolder

_T = TypeVar("_T")


def patch_diagnostic_code(code: PatchProblemCode) -> PatchDiagnosticCode:
    return PatchDiagnosticCode(f"patch-{code}")


#: Protected files listed per patch (the rest are counted).
MAX_PROTECTED_REPORTED = 20
#: Files a submission folder may hold besides what its runs reference.
ALLOWED_EXTRA_FILES = frozenset({"README.md"})

#: The folder name is the submission id (same rule as ``Identifier`` in the models).

#: Transcript formats written by one tool only: the tool's name, and what ``tool.name``
#: contains when it names that tool (lower case, letters and digits only: "Claude Code",
#: "claude-code" and "Claude Code CLI" all hold "claude"); ``atif`` and ``generic`` are any
#: tool's.
_TOOL_OF_FORMAT: dict[str, tuple[str, tuple[str, ...]]] = {
    "claude-code": ("Claude Code", ("claude",)), "codex": ("Codex CLI", ("codex",)),
    "aider": ("Aider", ("aider",)), "aider-history": ("Aider", ("aider",)),
    "gemini-cli": ("Gemini CLI", ("gemini",)),
    "openhands": ("OpenHands", ("openhands", "opendevin")),
    "swe-agent": ("SWE-agent or mini-swe-agent", ("sweagent",)),
}

#: File names pytest collects as test modules by default.
_TEST_FILE = re.compile(r"^(test_.*|.*_test)\.py$")
#: pytest's default ``--doctest-glob``: such a text file's ``>>>`` examples run as tests.
_DOCTEST_FILE = re.compile(r"^test.*\.txt$")

@dataclass(frozen=True)
class SubmissionReport:
    """The diagnostics of one submission folder."""

    folder: Path
    diagnostics: tuple[Diagnostic, ...]

    @property
    def key(self) -> str:
        """``<task>/<id>`` as given by the folder."""
        return f"{self.folder.parent.name}/{self.folder.name}"

    @property
    def valid(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)


@dataclass(frozen=True)
class ValidationReport:
    """All submissions checked, plus problems not tied to one (PR mode, bad paths)."""

    submissions: tuple[SubmissionReport, ...] = ()
    other: tuple[Diagnostic, ...] = ()

    @property
    def valid(self) -> bool:
        return all(s.valid for s in self.submissions) and not any(
            d.is_error for d in self.other
        )

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [*self.other, *(d for s in self.submissions for d in s.diagnostics)]

    @property
    def warning_count(self) -> int:
        return sum(1 for d in self.diagnostics if not d.is_error)

    @property
    def error_count(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)


@dataclass
class Validator:
    """Validation against one dataset; caches each task's protected paths across submissions.

    ``remembered`` (the application's memo, see :mod:`arena_bot.app.validation`) may give a
    folder the verdict an earlier run stored for the same contents: it is called with the
    folder and the function computing the verdict's bytes. The one check that depends on
    the day it runs (a date in the future) is applied to every verdict afresh, so a
    remembered verdict survives midnight.
    """

    dataset: Dataset
    submissions_root: Path
    today: dt.date = field(default_factory=dt.date.today)
    config: ArenaConfig = DEFAULT_CONFIG
    #: The price table transcripts' costs are checked against (default: the shipped one).
    prices: PriceTable | None = None
    remembered: Callable[[Path, Callable[[], bytes]], bytes] | None = None
    #: Stored verdicts that found nothing, decoded: they do not depend on the folder (most
    #: of a board's are, and many are the same bytes: a date and its line).
    _clean: dict[bytes, _Verdict] = field(default_factory=dict)
    #: What every submission of a task asks again (a board has thousands per task), by
    #: question and task: see :meth:`once`.
    _known: dict[tuple[str, str, int], Any] = field(default_factory=dict)

    def once(self, key: tuple[str, str, int], compute: Callable[[], _T]) -> _T:
        """``compute()``, computed once per validator for ``key``."""
        if key not in self._known:
            self._known[key] = compute()
        return cast(_T, self._known[key])

    def task_outcome(self, task_id: str) -> TaskFolder | ArenaError | None:
        """The task ``task_id`` of the dataset, the error loading it, or ``None`` when the
        dataset has no such task."""

        def load() -> TaskFolder | ArenaError | None:
            try:
                return self.dataset.get(task_id) if self.dataset.has(task_id) else None
            except ArenaError as exc:
                return exc

        return self.once(("task", task_id, 0), load)

    @functools.cached_property
    def resolved_root(self) -> Path:
        return self.submissions_root.resolve()

    def gold_changes(
        self, *, task: TaskFolder, feature: int
    ) -> frozenset[tuple[str, tuple[str, ...]]] | None:
        """The changes of a feature's gold patch (``None`` when it cannot be read)."""

        def read() -> frozenset[tuple[str, tuple[str, ...]]] | None:
            gold = load_patch(task.feature(feature).gold_patch, max_bytes=DATASET_PATCH_BYTES,
                              max_lines=DATASET_PATCH_LINES)
            return _changes(gold) if gold.ok else None

        return self.once(("gold", task.id, feature), read)


    def submission(self, folder: Path) -> list[Diagnostic]:
        """Every problem of one submission folder (see :func:`validate_submission`)."""
        if self.remembered is None:
            verdict = self._check(folder)
        else:
            stored = self.remembered(folder, lambda: _encode_verdict(self._check(folder), folder))
            verdict = self._clean.get(stored) or _decode_verdict(stored, folder)
            if not verdict.found:
                self._clean[stored] = verdict
        return [*verdict.found, *self._future_date(folder, verdict.dated)]

    def report(self, folders: Iterable[Path], other: list[Diagnostic]) -> ValidationReport:
        return ValidationReport(other=tuple(other), submissions=tuple(
            SubmissionReport(folder=folder, diagnostics=tuple(self.submission(folder)))
            for folder in folders))

    def _check(self, folder: Path) -> _Verdict:
        check = _SubmissionCheck(validator=self, folder=folder)
        check.run()
        return _Verdict(found=check.found, dated=check.dated)

    def _future_date(
        self, folder: Path, dated: tuple[dt.date, int | None] | None
    ) -> list[Diagnostic]:
        """The check that depends on the day it runs: never part of a remembered verdict."""
        if dated is None or dated[0] <= self.today + dt.timedelta(days=1):
            return []
        date, line = dated
        return [Diagnostic(
            severity="error", code="future-date",
            message=f"date {date.isoformat()} is in the future",
            path=folder / SUBMISSION_FILE, line=line, hint="use the date the runs were made",
        )]

@dataclass(frozen=True)
class _Verdict:
    """What checking one folder found, and the date the day-dependent check compares."""

    found: list[Diagnostic]
    dated: tuple[dt.date, int | None] | None


def _encode_verdict(verdict: _Verdict, folder: Path) -> bytes:
    """A verdict as JSON, paths inside ``folder`` stored relative to it (the same folder may
    sit elsewhere in another checkout)."""

    def where(path: Path | None) -> str | None:
        if path is None:
            return None
        return f"@/{path.relative_to(folder)}" if path.is_relative_to(folder) else str(path)

    dated = None if verdict.dated is None else [verdict.dated[0].isoformat(), verdict.dated[1]]
    found = [[d.severity, d.code, d.message, where(d.path), d.line, d.hint]
             for d in verdict.found]
    return json.dumps({"dated": dated, "found": found}).encode()


def _decode_verdict(stored: bytes, folder: Path) -> _Verdict:
    def path_of(text: str | None) -> Path | None:
        if text is None:
            return None
        return folder / text[2:] if text.startswith("@/") else Path(text)

    value = json.loads(stored)
    dated = value["dated"]
    return _Verdict(
        found=[Diagnostic(severity, code, message, path_of(path), line, hint)
               for severity, code, message, path, line, hint in value["found"]],
        dated=None if dated is None else (dt.date.fromisoformat(dated[0]), dated[1]),
    )


def validate_submission(
    folder: Path, dataset: Dataset, *, submissions_root: Path | None = None,
    today: dt.date | None = None,
) -> list[Diagnostic]:
    """Check one ``submissions/<task>/<id>/`` folder; never raises for bad input.

    ``submissions_root`` (default: the folder's grandparent) is where submission folders must
    live; ``today`` is for the future-date check.
    """
    validator = Validator(
        dataset=dataset, submissions_root=submissions_root or folder.parent.parent,
        today=today or dt.date.today(),
    )
    return validator.submission(folder)


def validate_paths(
    paths: Iterable[Path], *, dataset: Dataset, submissions_root: Path,
    today: dt.date | None = None, config: ArenaConfig = DEFAULT_CONFIG, whole_board: bool = False,
    remembered: Callable[[Path, Callable[[], bytes]], bytes] | None = None,
) -> ValidationReport:
    """Validate the submission folders named by ``paths`` (folders, files in them, trees).

    ``whole_board``: ``paths`` are every submission folder, as :func:`all_submission_folders`
    returns them (not searched again). ``remembered``: see :class:`Validator`.
    """
    validator = Validator(
        dataset=dataset, submissions_root=submissions_root, today=today or dt.date.today(),
        config=config, remembered=remembered,
    )
    folders: dict[Path, None] = {}
    other: list[Diagnostic] = []
    if whole_board:
        folders, paths = dict.fromkeys(paths), ()
    for path in paths:
        found = all_submission_folders(path)
        if not found:
            other.append(
                Diagnostic(
                    severity="error", code="no-submission",
                    message=f"no {SUBMISSION_FILE} here or in any folder below", path=path,
                    hint="pass a submission folder, a file inside one, or submissions/",
                )
            )
        folders.update(dict.fromkeys(found))
    return validator.report(folders, other)


@dataclass(frozen=True)
class ChangedFile:
    """One line of a pull request's file list: a path and, when known, git's status letter."""

    path: str
    #: ``A`` added, ``M`` modified, ``D`` deleted, ``T`` type changed (``git diff
    #: --name-status``; renames and copies are split into a ``D``/``A`` pair), or ``None``
    #: when only names were given (``git diff --name-only``).
    status: str | None = None


def parse_changed_files(lines: Iterable[str]) -> list[ChangedFile]:
    """Read ``git diff --name-only`` or ``--name-status`` output (the two can be mixed).

    A rename ``R100<TAB>old<TAB>new`` becomes a deletion of ``old`` plus an addition of
    ``new``; a copy ``C..`` becomes an addition of ``new``.
    """
    changed: list[ChangedFile] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        fields = line.split("\t")
        code = fields[0]
        is_status = code[:1] in set("AMDTRCUX") and (code[1:] == "" or code[1:].isdigit())
        if len(fields) >= 2 and is_status:
            names = [_git_name(f) for f in fields[1:]]
            letter = code[0]
            if letter == "R" and len(names) >= 2:
                changed += [ChangedFile(path=names[0], status="D"),
                            ChangedFile(path=names[1], status="A")]
            elif letter == "C" and len(names) >= 2:
                changed.append(ChangedFile(path=names[1], status="A"))
            else:
                changed.append(ChangedFile(path=names[0], status=letter))
        else:
            changed.append(ChangedFile(path=_git_name(line.strip())))
    return changed


def _git_name(name: str) -> str:
    # git quotes names with unusual characters ("submissions/x/\303\251.patch"); a name
    # that is not UTF-8 is decoded as Python names that file in the checkout.
    if name.startswith('"'):
        try:
            return unquote_git_name(name, errors="surrogateescape")
        except ValueError:
            return name
    return name


def validate_changed_files(
    lines: Iterable[str], *, root: Path, dataset: Dataset, submissions_root: Path,
    config: ArenaConfig = DEFAULT_CONFIG,
) -> ValidationReport:
    """PR mode: validate the submissions a pull request's changed files belong to.

    ``lines`` is the output of ``git diff --name-only base...head`` (or ``--name-status``,
    see :func:`parse_changed_files`). These need a maintainer's review, reported as errors so
    the PR is not scored automatically:

    * ``outside-submissions`` — a changed path outside a ``submissions/<task>/<id>/`` folder;
    * ``deletes-submission`` — a changed path whose submission folder no longer exists, or a
      file deleted from a submission (``D``);
    * ``modifies-submission`` — with ``--name-status`` only: a file of a submission that
      already existed on the base branch was modified (``M``/``T``); a PR only adds
      submissions. (From names alone a modification cannot be told from an addition; the
      trusted workflow checks file statuses through the API.)
    """
    validator = Validator(dataset=dataset, submissions_root=submissions_root, config=config)
    try:
        prefix = submissions_root.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        prefix = submissions_root.name
    folders: dict[Path, None] = {}
    other: list[Diagnostic] = []
    for change in parse_changed_files(lines):
        folder, reviews = _review_change(change, root=root, prefix=prefix)
        other.extend(reviews)
        if folder is not None:
            folders[folder] = None
    return validator.report(folders, other)


def _review_change(
    change: ChangedFile, *, root: Path, prefix: str
) -> tuple[Path | None, list[Diagnostic]]:
    """The submission folder ``change`` belongs to (to validate; ``None`` when there is none
    left) and what about it needs a maintainer."""
    name = change.path
    parts = PurePosixPath(name).parts
    prefix_parts = PurePosixPath(prefix).parts

    def review(code: ValidationCode, message: str, hint: str) -> Diagnostic:
        # Names are relative to the repository root, whatever the working directory is.
        return Diagnostic(severity="error", code=code, message=message, path=root / name,
                          hint=hint)

    inside = parts[: len(prefix_parts)] == prefix_parts and len(parts) >= len(prefix_parts) + 3
    if not inside or ".." in parts or name.startswith("/"):
        return None, [review(
            "outside-submissions",
            f"this pull request changes a file outside a {prefix}/<task>/<submission>/ "
            "folder: it needs maintainer review",
            "contributors change only their own submission folder; a maintainer will "
            "review other changes",
        )]
    folder = root.joinpath(*parts[: len(prefix_parts) + 2])
    if change.status in {"A", "M", "T"} and not (root / name).exists():
        return None, [review(
            "not-in-checkout",
            "the file list says this file was added or changed, but it is not in the checkout",
            "run validation on a checkout of the pull request's head commit",
        )]
    exists = (folder / SUBMISSION_FILE).is_file()
    if change.status == "D" or not exists:
        return (folder if exists else None), [review(
            "deletes-submission",
            "this pull request removes a submission or a file of one: it needs maintainer "
            "review",
            "to replace your own submission, add a new folder; a maintainer reviews deletions",
        )]
    if change.status in {"M", "T"}:
        return folder, [review(
            "modifies-submission",
            "this pull request changes a submission that is already on the base branch: it "
            "needs maintainer review",
            "add a new submission folder instead of editing a merged one",
        )]
    return folder, []


@dataclass
class _SubmissionCheck:
    """The checks of one submission folder, collecting diagnostics as they go."""

    validator: Validator
    folder: Path
    found: list[Diagnostic] = field(default_factory=list)
    source: LoadedYaml | None = None
    #: Patch files already read, by name, with the protected paths they touch.
    patches: dict[str, tuple[Patch, list[ProtectedViolation]]] = field(default_factory=dict)
    #: The submission's date and its line, once the whole file has been checked.
    dated: tuple[dt.date, int | None] | None = None

    @functools.cached_property
    def yaml_path(self) -> Path:
        return self.folder / SUBMISSION_FILE

    def add(
        self, code: DiagnosticCode, message: str, *, severity: Level = "error",
        path: Path | None = None, line: int | None = None, hint: str | None = None,
    ) -> None:
        diagnostic = Diagnostic(severity=severity, code=code, message=message,
                                path=path if path is not None else self.yaml_path, line=line,
                                hint=hint)
        # Runs may share a patch file: its problems are reported once, not once per run.
        if diagnostic not in self.found:
            self.found.append(diagnostic)

    def line(self, *loc: str | int) -> int | None:
        return self.source.line_of(loc) if self.source is not None else None

    def run(self) -> None:
        if self.folder.is_symlink() or self.yaml_path.is_symlink():
            self.add(
                "symlink", "the submission folder or its submission.yaml is a symbolic link",
                path=self.folder, hint="commit real files, not links",
            )
            return
        self.check_layout()
        spec = self.load()
        referenced = {SUBMISSION_FILE}
        if spec is not None:
            for run in spec.runs:
                referenced.update(run.patches)
                if run.trajectory:
                    referenced.add(run.trajectory)
                if run.transcript:
                    referenced.add(run.transcript.file)
        self.check_folder_contents(referenced=referenced, spec_loaded=spec is not None)
        if spec is None:
            return
        if spec.task != self.folder.parent.name:
            self.add(
                "task-mismatch",
                f"task {spec.task!r} does not match the folder it is in "
                f"({self.folder.parent.name!r})",
                line=self.line("task"),
                hint=f"move the folder to submissions/{spec.task}/ or fix 'task'",
            )
        task = self.task(spec)
        if task is not None:
            self.check_features(spec=spec, task=task)
        for index, run in enumerate(spec.runs):
            self.check_run(run=run, index=index, task=task)
            self.check_transcript_tool(spec=spec, run=run, index=index)
        # Compared with today by the validator, after the verdict is remembered.
        self.dated = (spec.date, self.line("date"))

    def check_layout(self) -> None:
        root = self.validator.submissions_root
        try:
            at_home = self.folder.resolve().parent.parent == self.validator.resolved_root
        except OSError:
            at_home = False
        if not at_home:
            self.add(
                "layout",
                f"submission folders live at {root.name}/<task>/<submission>/; "
                f"this one is at {self.folder}",
                path=self.folder, hint="move the folder so its parent is named after the task",
            )
        if not SUBMISSION_ID.fullmatch(self.folder.name):
            self.add(
                "layout", f"folder name {self.folder.name!r} is not a valid submission id",
                path=self.folder,
                hint="use lower case letters, digits, '.', '_' and '-', e.g. "
                "2025-01-15_aider_gpt-4o",
            )

    def load(self) -> Submission | None:
        try:
            self.source = load_yaml(self.yaml_path)
        except ArenaError as exc:
            self.add("yaml", exc.message, line=exc.line, hint=exc.hint)
            return None
        try:
            return validate_model(Submission, self.source)
        except ModelValidationError as exc:
            for problem in exc.problems:
                self.add(
                    "schema", f"{problem.field}: {problem.message}", line=problem.line,
                    hint="see the submission format in site/docs/formats.md",
                )
        return None

    def task(self, spec: Submission) -> TaskFolder | None:
        dataset = self.validator.dataset
        outcome = self.validator.task_outcome(spec.task)
        if outcome is None:
            known = ", ".join(dataset.task_ids()) or "none"
            self.add(
                "unknown-task", f"task {spec.task!r} is not in the dataset (known tasks: {known})",
                line=self.line("task"), hint="use the id of a folder under dataset/",
            )
            return None
        if isinstance(outcome, ArenaError):
            self.add(
                "broken-task",
                f"task {spec.task!r} cannot be loaded ({outcome.location()}: {outcome.message})",
                line=self.line("task"),
                hint="this is a problem of the dataset, not of the submission: tell a maintainer",
            )
            return None
        return outcome

    def check_features(self, *, spec: Submission, task: TaskFolder) -> None:
        known = task.spec.feature_ids()
        for index, feature in enumerate(spec.features):
            if feature not in known:
                self.add(
                    "unknown-feature",
                    f"task {task.id!r} has no feature {feature} (it has {known})",
                    line=self.line("features", index),
                    hint="list feature ids from the task's task.yaml",
                )
            elif not self.validator.once(("recorded", task.id, feature),
                                         task.feature(feature).expected_tests.is_file):
                # Without recorded ids the verdict would rest on the exit status, the report
                # and the canaries only: the task stays off the board until they exist.
                self.add(
                    "no-expected-tests",
                    f"task {task.id!r} feature {feature} has no recorded expected test ids "
                    f"({task.feature(feature).expected_tests.relative_to(task.root)}): the "
                    "submission is evaluated (its result flagged for review) but the task is "
                    "not scored until they are recorded",
                    severity="warning", path=task.feature(feature).expected_tests,
                    line=self.line("features", index),
                    hint=f"a maintainer records them with `arena dataset check {task.id}`",
                )

    def check_run(self, *, run: Run, index: int, task: TaskFolder | None) -> None:
        created_by_patches: set[str] = set()
        all_parsed = True
        for number, name in enumerate(run.patches):
            # The line is looked up only for a message: finding lines means composing the
            # YAML again, and a valid submission never needs one.
            loc = ("runs", index, "patches", number)
            patch = self.check_patch(name=name, loc=loc, task=task)
            if patch is None or not patch.ok:
                all_parsed = False
                continue
            created_by_patches.update(
                f.new_path for f in patch.files if f.status == "added" and f.new_path
            )
            if task is not None:
                self.check_not_gold(patch=patch, name=name, loc=loc, task=task)
            self.check_new_test_files(patch=patch, name=name)
        if run.trajectory:
            self.check_trajectory(
                name=run.trajectory, line=self.line("runs", index, "trajectory")
            )
        for number, created in enumerate(run.files_created):
            # Only judged when every patch parsed: otherwise the patch problems come first.
            if all_parsed and created not in created_by_patches:
                self.add(
                    "files-created",
                    f"run {run.id!r} lists {created!r} in files_created, "
                    "but its patch does not create it",
                    severity="warning", line=self.line("runs", index, "files_created", number),
                    hint="list only files the patch adds",
                )
        self.check_plausibility(run=run, index=index)
        if run.transcript:
            if self.validator.prices is None:
                self.validator.prices = self.validator.config.price_table()
            found, _ = verify_run(run=run, folder=self.folder, prices=self.validator.prices,
                                  tolerances=self.validator.config.verification)
            for problem in found:
                self.add(
                    problem.code, problem.message, severity=problem.severity, path=problem.path,
                    line=problem.line or self.line("runs", index, "transcript"), hint=problem.hint,
                )

    def check_transcript_tool(self, *, spec: Submission, run: Run, index: int) -> None:
        """Warn when a run's transcript is of one tool's own format and ``tool.name`` names
        another: the entry would credit a tool with a run another tool made."""
        if run.transcript is None:
            return
        known = _TOOL_OF_FORMAT.get(run.transcript.format)
        if known is None:
            return
        tool, words = known
        said = re.sub(r"[^a-z0-9]", "", spec.tool.name.casefold())
        if any(word in said for word in words):
            return
        self.add(
            "tool-mismatch",
            f"run {run.id!r}'s transcript is a {run.transcript.format} session "
            f"({tool}'s own format), but tool.name says {spec.tool.name!r}",
            severity="warning", line=self.line("runs", index, "transcript", "format"),
            hint=f"name the tool that made the run ({tool}), "
            "or use the generic format for a tool of its own",
        )

    def check_new_test_files(self, *, patch: Patch, name: str) -> None:
        """Warn about new files pytest would collect: importing them can patch the code
        under test, so the harness should run only the task's own test files."""
        for file in patch.files:
            if file.status in {"added", "renamed", "copied"} and file.new_path:
                base = PurePosixPath(file.new_path).name
                if _TEST_FILE.match(base) or _DOCTEST_FILE.match(base):
                    what = ("as a test module" if base.endswith(".py")
                            else "as doctests (its `>>>` examples run as tests)")
                    self.add(
                        "adds-test-file",
                        f"patch {name!r} adds {file.new_path!r}, which pytest would collect "
                        f"{what} (flagged for review)",
                        severity="warning", path=self.folder / name, line=file.line,
                        hint="the task's own tests decide; leave your own tests out of the "
                        "patch unless they matter to the reviewer",
                    )

    def check_not_gold(
        self, *, patch: Patch, name: str, loc: tuple[str | int, ...], task: TaskFolder
    ) -> None:
        """Warn when a patch makes exactly the changes of a feature's public gold patch."""
        mine = _changes(patch)
        for feature in task.features.values():
            if mine == self.validator.gold_changes(task=task, feature=feature.id):
                self.add(
                    "copies-gold-patch",
                    f"patch {name!r} makes exactly the changes of feature {feature.id}'s "
                    "gold patch (feature.patch) in the dataset",
                    severity="warning", line=self.line(*loc),
                    hint="submit the tool's own work; a maintainer reviews copies",
                )
                return

    def check_patch(
        self, *, name: str, loc: tuple[str | int, ...], task: TaskFolder | None
    ) -> Patch | None:
        path = self.folder / name
        if not path.exists() and not path.is_symlink():
            self.add(
                "missing-patch", f"patch file {name!r} is not in the submission folder",
                line=self.line(*loc),
                hint="add the file (git diff against the task's base commit) or fix the name",
            )
            return None
        # Runs often share a patch file: it is read and checked (secrets, protection) once.
        if name not in self.patches:
            limits = self.validator.config.limits
            patch = load_patch(path, max_bytes=limits.patch_bytes, max_lines=limits.patch_lines)
            violations: list[ProtectedViolation] = []
            if task is not None and patch.files:
                protected = self.validator.once(("protected", task.id, 0),
                                                functools.partial(protected_paths_for, task))
                violations = protected.violations(patch)
            self.patches[name] = (patch, violations)
            self.check_patch_secrets(patch=patch, path=path)
        patch, violations = self.patches[name]
        for problem in patch.problems:
            # name the repository file when the message does not (a symbolic link, a binary
            # file): `arena submit` shows no patch lines to look at
            named = (f"{problem.message}: {problem.path!r}"
                     if problem.path and repr(problem.path) not in problem.message
                     else problem.message)
            self.add(
                patch_diagnostic_code(problem.code), named, path=path, line=problem.line,
                hint=_PATCH_HINTS.get(problem.code),
            )
        if violations:
            if len(violations) > MAX_PROTECTED_REPORTED:
                self.add(
                    "protected-path",
                    f"the patch changes {len(violations)} protected files; the first "
                    f"{MAX_PROTECTED_REPORTED} are listed",
                    path=path, line=violations[0].line,
                )
            for violation in violations[:MAX_PROTECTED_REPORTED]:
                self.add(
                    "protected-path",
                    f"the patch changes {violation.path!r}, protected by {violation.rule}",
                    path=path, line=violation.line,
                    hint="submissions may not change the task's tests or test configuration; "
                    "remove that file from the patch",
                )
        return patch

    def check_patch_secrets(self, *, patch: Patch, path: Path) -> None:
        """A patch may not add secret-bearing files (.env, keys, credentials) nor secrets."""
        for file in patch.files:
            reason = secret_file_reason(file.path) if file.status != "deleted" else None
            if reason is not None:
                self.add(
                    "secret-file", f"the patch adds or changes {file.path!r}: {reason}",
                    path=path, line=file.line,
                    hint="remove that file from the patch (`arena submit` leaves such files "
                    "out) and rotate any secret it held: a pushed branch is public",
                )
        if not patch.files:
            return
        for file_name, line, kinds in secrets_in_patch(patch.text):
            self.add(
                "secret-in-patch", f"an added line of {file_name!r} holds what looks like "
                f"a secret ({kinds})", path=path, line=line,
                hint="remove the secret (read it from the environment) and rotate it: a "
                "pushed branch is public",
            )

    def check_trajectory(self, *, name: str, line: int | None) -> None:
        path = self.folder / name
        if path.is_symlink() or not path.is_file():
            what = "a symbolic link" if path.is_symlink() else "missing or not a regular file"
            self.add(
                "missing-trajectory", f"trajectory file {name!r} is {what}", line=line,
                hint="add the trajectory file to the folder or remove 'trajectory'",
            )
            return
        size = path.stat().st_size
        limit = self.validator.config.limits.trajectory_bytes
        if size > limit:
            self.add(
                "too-large", f"trajectory is {size:,} bytes, over the limit of {limit:,}",
                path=path,
                hint="compress or trim the trajectory (keep the agent's messages and tool calls)",
            )

    def check_folder_contents(self, *, referenced: set[str], spec_loaded: bool) -> None:
        total = 0
        top = os.fspath(self.folder)
        for name in sorted(os.listdir(top)):
            try:
                info = os.lstat(f"{top}/{name}")
            except OSError:
                continue
            entry = self.folder / name
            if stat.S_ISLNK(info.st_mode):
                if name not in referenced:  # referenced links get a precise message
                    self.add("symlink", "symbolic links are not allowed in a submission",
                             path=entry, hint="commit the file itself")
                continue
            if stat.S_ISDIR(info.st_mode):
                self.add(
                    "unexpected-file", "sub-folders are not allowed in a submission folder",
                    path=entry, hint="keep all files of the submission directly in its folder",
                )
                continue
            total += info.st_size
            if not stat.S_ISREG(info.st_mode):
                self.add("unexpected-file", "not a regular file", path=entry)
                continue
            if info.st_mode & 0o111:
                self.add(
                    "executable-file", "file is executable", path=entry,
                    hint="submissions hold data only: `chmod -x` the file",
                )
            if spec_loaded and name not in referenced | ALLOWED_EXTRA_FILES:
                self.add(
                    "unexpected-file", "file is not referenced by submission.yaml", path=entry,
                    hint="remove it, or name it under a run's 'patches' or 'trajectory'",
                )
        folder_limit = self.validator.config.limits.folder_bytes
        if total > folder_limit:
            self.add(
                "too-large",
                f"the submission folder holds {total:,} bytes, over the limit of "
                f"{folder_limit:,}",
                path=self.folder, hint="trim trajectories; patches and metadata are small",
            )

    def check_plausibility(self, *, run: Run, index: int) -> None:
        """Seed 002's validation rule and per-run outlier flags, plus cost/time sanity."""

        def warn(
            code: ValidationCode, message: str, *loc: str, hint: str | None = None
        ) -> None:
            self.add(code, f"run {run.id!r}: {message}", severity="warning",
                     line=self.line("runs", index, *loc), hint=hint)

        tokens = run.tokens.total
        outliers = self.validator.config.outliers
        if tokens < outliers.min_plausible_tokens:
            warn("low-tokens", f"Suspiciously low token count ({tokens})", "tokens",
                 hint="report the tool's total token usage for the whole run")
        if 0 < run.execution_time < outliers.fast_seconds:
            warn("extremely-fast", f"execution_time {run.execution_time:g} s is under "
                 f"{outliers.fast_seconds:g} s (flagged for review)", "execution_time")
        if run.tool_calls == 1:
            warn("minimal-tool-usage", "a single tool call (flagged for review)", "tool_calls")
        if run.execution_time == 0:
            warn("not-recorded", "execution_time 0 means 'not recorded' and scores 50",
                 "execution_time", hint="give the wall-clock seconds if you have them")
        elif tokens / run.execution_time > outliers.max_tokens_per_second:
            warn("implausible-speed", f"{tokens:,} tokens in {run.execution_time:g} s is "
                 f"over {outliers.max_tokens_per_second:,.0f} tokens per second", "execution_time",
                 hint="check the units: execution_time is in seconds")
        if run.estimated_cost == 0:
            warn("not-recorded", "estimated_cost 0 means 'not recorded' and scores 50",
                 "estimated_cost", hint="give the cost in US dollars if you have it")
        elif tokens > 0:
            per_1k = run.estimated_cost / (tokens / 1000)
            low, high = outliers.cost_per_1k_tokens
            if not low <= per_1k <= high:
                warn("implausible-cost", f"${run.estimated_cost:g} for {tokens:,} tokens is "
                     f"${per_1k:.6f} per 1k tokens, outside the plausible "
                     f"${low:g}–${high:g}", "estimated_cost",
                     hint="check the units: estimated_cost is in US dollars")


def _changes(patch: Patch) -> frozenset[tuple[str, tuple[str, ...]]]:
    """What a patch changes, ignoring line numbers, context and file order."""
    return frozenset(
        (file.path, tuple(line for hunk in file.hunks for line in hunk.lines
                          if line[:1] in {"+", "-"}))
        for file in patch.files
    )


_PATCH_HINTS: dict[str, str] = {
    "empty-patch": "create the patch with `git diff <base-commit> > my.patch`",
    "not-a-diff": "create the patch with `git diff <base-commit> > my.patch`; do not edit it "
    "by hand",
    "bad-hunk": "re-create the patch with git instead of editing it by hand",
    "too-large": "patches are source edits: leave generated files and data out",
    "not-utf8": "leave binary files out of the patch",
    "not-a-file": "commit the patch file itself into the submission folder",
    "unsafe-path": "patch paths must be relative paths inside the repository (a/..., b/...)",
    "symlink": "replace the symbolic link by a regular file, or leave it out",
    "submodule": "submodules cannot be submitted; leave them out of the patch",
    "binary": "leave binary files out of the patch",
}
