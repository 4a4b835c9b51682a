"""``arena submit``: turn finished agent runs into a submission folder that validates as is.

For each run: the patch is the working tree's ``git diff`` against the task's base commit
(untracked files included, the task's test files left out), and the metrics are recomputed
from the agent's own transcript, which is stored (redacted, compressed when large) beside it.
Everything is built in a staging folder under ``submissions/``, validated there, and only then
moved into place with one rename, so an error leaves nothing half-written. Submitting again
for the same task, tool and model adds runs to the existing folder (a multi-run submission).
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import TypeAdapter, ValidationError

from arena_bot.core.config import DEFAULT_CONFIG, ArenaConfig
from arena_bot.core.errors import InputError, first_problem
from arena_bot.core.gitcmd import has_commit, is_work_tree_top, run_git, scratch_index
from arena_bot.core.prices import PriceTable
from arena_bot.intake.diagnostics import Diagnostic
from arena_bot.intake.patches import ProtectedPaths, protected_paths_for
from arena_bot.intake.submissions import SUBMISSION_FILE, load_submission
from arena_bot.intake.transcripts import (
    SUBAGENTS,
    TranscriptMetrics,
    read_transcript,
    subagent_files,
)
from arena_bot.intake.transcripts.redact import secret_file_reason, secrets_in_patch, store_redacted
from arena_bot.intake.validation import Validator
from arena_bot.intake.verification import transcript_cost
from arena_bot.models.common import Name
from arena_bot.models.submission import (
    Contributor,
    Run,
    Submission,
    Tokens,
    Tool,
    Transcript,
    TranscriptFormat,
)
from arena_bot.tasks.dataset import Dataset, TaskFolder


@dataclass(frozen=True)
class RunSource:
    """One finished run: the agent's working tree and its transcript."""

    workdir: Path
    transcript: Path


@dataclass(frozen=True, kw_only=True)
class SubmitRequest:
    """What the contributor told ``arena submit``."""

    task_id: str
    tool: Tool
    contributor: Contributor
    transcript_format: TranscriptFormat
    runs: list[RunSource]
    features: list[int]
    model: str | None = None
    success: bool = True
    date: dt.date = field(default_factory=dt.date.today)


@dataclass
class SubmitOutcome:
    """Where the submission went and what was (and was not) read, for the CLI to print."""

    folder: Path
    added_runs: list[str]
    read: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    #: Secret-bearing files of the work directories left out of the patches (with why).
    left_out: list[str] = field(default_factory=list)


#: A model name as a submission's ``models`` holds it.
MODEL_NAME: TypeAdapter[str] = TypeAdapter(Name)
#: The longest submission id (``intake.submissions.SUBMISSION_ID``: a folder name).
_ID_LENGTH = 80
#: What a tool's slug keeps at least when a folder name has to be cut.
_TOOL_SLUG_LENGTH = 32


def slug(text: str) -> str:
    """A folder-name-safe lower-case slug (``Claude Code`` → ``claude-code``)."""
    return re.sub(r"[^a-z0-9.]+", "-", text.lower().rsplit("/", 1)[-1]).strip("-.") or "x"


def folder_name(date: dt.date, tool: str, model: str) -> str:
    """``<date>_<tool>_<model>``, a submission id: when the slugs are too long for one (80
    characters), the tool's is cut to 32 characters (fewer when the model's leaves room),
    the model's to what is left, so no name the file system or validation refuses is made."""
    tool_slug, model_slug = slug(tool), slug(model)
    room = _ID_LENGTH - len(date.isoformat()) - 2
    if len(tool_slug) + len(model_slug) > room:
        keep = min(len(tool_slug), max(_TOOL_SLUG_LENGTH, room - len(model_slug)))
        tool_slug = tool_slug[:keep].rstrip("-.") or "x"
        model_slug = model_slug[:room - len(tool_slug)].rstrip("-.") or "x"
    return f"{date.isoformat()}_{tool_slug}_{model_slug}"


def working_tree_patch(
    *, workdir: Path, base: str, protected: ProtectedPaths, left_out: list[str]
) -> str:
    """The working tree's changes against ``base`` (untracked files included), tests left out.

    Secret-bearing files (``.env``, key files, credential stores) and binary files (which
    no patch may carry) are left out too and their paths appended to ``left_out`` with the
    reason, so the contributor is told. A throw-away
    index is used so the contributor's own staging area is never touched.
    """
    if not is_work_tree_top(workdir):
        raise InputError(
            "not a git working tree", path=workdir,
            hint="pass the folder the agent worked in (a clone of the task's repository)",
        )
    if not has_commit(workdir, base):
        raise InputError(
            f"the task's base commit {base[:12]} is not in this repository", path=workdir,
            hint="run the agent in a clone of the task's repository at its base commit",
        )
    with scratch_index() as index:
        _work_tree_git(workdir, "read-tree", base, env=index)
        _work_tree_git(workdir, "add", "--all", "--", ".", env=index)
        names = _work_tree_git(workdir, "diff", "--cached", "--name-only", "--no-renames",
                               base, "-z", env=index)
        kept = [n for n in os.fsdecode(names).split("\0") if n and protected.rule_for(n) is None]
        secret = {name: secret_file_reason(name) for name in kept}
        left_out += [f"{name} ({reason})" for name, reason in secret.items() if reason]
        kept = [name for name in kept if secret[name] is None]
        nested = _gitlinks(workdir, kept, env=index)
        left_out += [f"{name} (a git repository inside the working tree: a patch carries "
                     "files, not another repository)" for name in kept if name in nested]
        kept = [name for name in kept if name not in nested]
        binary = _binary_files(workdir, base, kept, env=index)
        left_out += [f"{name} (a binary file: a patch carries text only)"
                     for name in kept if name in binary]
        kept = [name for name in kept if name not in binary]
        if not kept:
            return ""
        # The contributor's git config must not shape the patch: diff.context=0 would give
        # hunks without context, which git apply refuses; a textconv driver, text that is
        # not the file's.
        diff = _work_tree_git(workdir, "diff", "--cached", "--no-color", "--no-ext-diff",
                              "--no-textconv", "--unified=3", "--src-prefix=a/",
                              "--dst-prefix=b/", base, "--", *kept, env=index)
    try:
        return diff.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(
            "the working tree's changes are not UTF-8 text (a patch must be)", path=workdir,
            hint="re-encode the changed files as UTF-8, or leave binary files out of the run",
        ) from None


def _gitlinks(workdir: Path, names: list[str], *, env: dict[str, str]) -> set[str]:
    """Which of ``names`` are git repositories (mode 160000 in the index): a clone the agent
    made inside the working tree, or a submodule moved to another commit. Validation
    refuses them, so they are left out and named instead."""
    if not names:
        return set()
    staged = _work_tree_git(workdir, "ls-files", "--stage", "-z", "--", *names, env=env)
    found = set()
    for record in os.fsdecode(staged).split("\0"):
        info, _, name = record.partition("\t")
        if info.startswith("160000 ") and name:
            found.add(name)
    return found


def _binary_files(workdir: Path, base: str, names: list[str], *, env: dict[str, str]) -> set[str]:
    """Which of ``names`` git sees as binary (``--numstat`` counts no lines for them):
    validation refuses binary patches, so they are left out and named instead."""
    if not names:
        return set()
    stats = _work_tree_git(workdir, "diff", "--cached", "--numstat", "--no-renames",
                           "--no-textconv", "-z", base, "--", *names, env=env)
    found = set()
    for record in os.fsdecode(stats).split("\0"):
        added, _, rest = record.partition("\t")
        removed, _, name = rest.partition("\t")
        if added == "-" and removed == "-" and name:
            found.add(name)
    return found


def _work_tree_git(workdir: Path, *args: str, env: dict[str, str]) -> bytes:
    """``git ARGS`` in the agent's working tree; a failure is an InputError in git's words."""
    done = run_git(args, cwd=workdir, env=env)
    if not done.ok:
        raise InputError(
            f"git {args[0]} failed in the working tree: {done.last_error_line()}", path=workdir,
            hint="check that the folder is a healthy clone of the task's repository",
        )
    return done.stdout


def _missing(
    metrics: TranscriptMetrics, cost: float | None, *, name: str, prices: PriceTable,
    format_name: str,
) -> list[str]:
    gaps = [f"{name}: {figure} (the format does not record it)" for figure in
            sorted(metrics.unverifiable)]
    gaps += [f"{name}: {note}" for note in metrics.notes]
    if metrics.wall_clock_seconds <= 0 and "execution_time" not in metrics.unverifiable:
        gaps.append(f"{name}: execution_time (no timestamps; recorded as 0 = not recorded)")
    if metrics.unread_subagents:
        shown = ", ".join(sorted(metrics.unread_subagents)[:5])
        where = (SUBAGENTS[format_name][1] if format_name in SUBAGENTS
                 else "their files were not found")
        gaps.append(f"{name}: the usage of sub-agent(s) {shown} ({where}, then submit again)")
    if cost is None:
        unpriced = [model for model in metrics.models if prices.lookup(model) is None]
        why = (f"not in the price table: {', '.join(unpriced)}" if unpriced
               else "usage not split by model")
        gaps.append(f"{name}: estimated_cost ({why}; recorded as 0 = not recorded)")
    return gaps


def submit(
    request: SubmitRequest, *, dataset: Dataset, submissions_dir: Path, prices: PriceTable,
    config: ArenaConfig = DEFAULT_CONFIG,
) -> SubmitOutcome:
    """Build (or extend) the submission folder for ``request``; see the module docstring.

    The folder is validated against ``config`` (the repository's arena.yaml) with the
    costs checked against ``prices``, the table the costs were estimated with."""
    task = dataset.get(request.task_id)
    known = {f.id for f in task.spec.features}
    for feature in request.features:
        if feature not in known:
            raise InputError(
                f"task {task.id!r} has no feature {feature}", path=task.root,
                hint=f"use one of {sorted(known)}",
            )
    protected = protected_paths_for(task)
    built = [
        _read_run(number, source, request=request, task=task, protected=protected,
                  prices=prices)
        for number, source in enumerate(request.runs, start=1)
    ]
    read = [run.described for run in built]
    missing = [item for run in built for item in run.missing]
    models = list(dict.fromkeys(m for run in built for m in run.metrics.models))
    model = request.model or (models[0] if models else None)
    if model is None:
        raise InputError(
            "the transcripts name no model", path=request.runs[0].transcript, hint="pass --model",
        )
    try:
        model = MODEL_NAME.validate_python(model)
    except ValidationError as exc:
        raise InputError(
            f"the model name {model[:100]!r} is not a model name a submission can hold: "
            f"{first_problem(exc, top='')}",
            path=None if request.model else request.runs[0].transcript,
            hint="pass --model with the model's name (one line, at most 100 characters)",
        ) from None
    name = folder_name(request.date, request.tool.name, model)
    final = submissions_dir / request.task_id / name
    existing = load_submission(final) if (final / SUBMISSION_FILE).is_file() else None
    # Runs are only added to a submission of the same tool, model and features.
    if existing is not None and (
        existing.spec.tool.name != request.tool.name
        or existing.spec.models != [model]
        or existing.spec.features != request.features
    ):
        raise InputError(
            "a submission with this name exists for another tool, model or features",
            path=final / SUBMISSION_FILE,
            hint="pass --date to start a new submission, or match its features",
        )
    submissions_dir.mkdir(parents=True, exist_ok=True)
    # Staged beside the final folder (same file system, so the move is one rename).
    with tempfile.TemporaryDirectory(prefix=".arena-submit-", dir=submissions_dir,
                                     ignore_cleanup_errors=True) as scratch_name:
        scratch = Path(scratch_name)
        staged = scratch / request.task_id / name
        if existing is not None:
            shutil.copytree(final, staged, symlinks=True)
        else:
            staged.mkdir(parents=True)
        runs = list(existing.spec.runs) if existing is not None else []
        added = _stage_runs(built, staged=staged, runs=runs, request=request, read=read)
        try:
            spec = existing.spec.model_copy(update={"runs": runs}) if existing else Submission(
                task=request.task_id, tool=request.tool, models=[model],
                contributor=request.contributor, date=request.date,
                setting="single" if len(request.features) == 1 else "solo",
                features=request.features, runs=runs, cost_source="estimate",
            )  # an existing submission keeps the contributor's own edits (notes, name)
        except ValidationError as exc:
            raise InputError(
                f"the submission would not be valid ({first_problem(exc)}); nothing was written",
                path=final, hint="see the submission format on the formats page",
            ) from None
        dump = spec.model_dump(mode="json", exclude_none=True)
        dump["date"] = spec.date  # a YAML date, not a quoted string
        text = yaml.safe_dump(dump, sort_keys=False, allow_unicode=True)
        (staged / SUBMISSION_FILE).write_text(text, encoding="utf-8")
        # Validated as `arena validate` would: any error stops before anything is moved.
        diagnostics = Validator(dataset=dataset, submissions_root=scratch, today=request.date,
                                config=config, prices=prices).submission(staged)
        errors = [d for d in diagnostics if d.is_error]
        if errors:
            raise InputError(
                "the generated submission does not validate; nothing was written:\n  "
                + "\n  ".join(f"{d.code}: {d.message}" for d in errors),
                path=final,
                hint="fix the run (or report the problem) and submit again",
            )
        _move_into_place(staged=staged, final=final)
    return SubmitOutcome(
        folder=final, added_runs=added, read=read, missing=missing,
        warnings=[d for d in diagnostics if not d.is_error],
        left_out=[item for run in built for item in run.left_out],
    )


@dataclass(frozen=True)
class _ReadRun:
    """One finished run, read: its transcript's figures and its working tree's patch."""

    patch: str
    metrics: TranscriptMetrics
    cost: float | None
    source: RunSource
    described: str
    missing: list[str]
    #: Claude Code 2.x sub-agent files stored with the session file.
    subagents: list[Path] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)


def _read_run(
    number: int, source: RunSource, *, request: SubmitRequest, task: TaskFolder,
    protected: ProtectedPaths, prices: PriceTable,
) -> _ReadRun:
    if not source.transcript.is_file():
        raise InputError("transcript file not found", path=source.transcript)
    metrics = read_transcript(path=source.transcript, format_name=request.transcript_format)
    if metrics.iterations == 0 and metrics.prompt_tokens == 0:
        raise InputError(
            f"no model calls found in this {request.transcript_format} transcript",
            path=source.transcript, hint="check --format, or that this is the session of the run",
        )
    left_out: list[str] = []
    patch = working_tree_patch(
        workdir=source.workdir, base=task.spec.source.commit, protected=protected,
        left_out=left_out,
    )
    leaks = secrets_in_patch(patch)
    if leaks:
        shown = "; ".join(f"{name} ({kinds}, patch line {line})" for name, line, kinds in
                          leaks[:5])
        raise InputError(
            f"the working tree's changes hold what looks like a secret: {shown}",
            path=source.workdir,
            hint="remove the secret from those files (read it from the environment instead) "
            "and submit again; nothing was written",
        )
    if not patch.strip():
        raise InputError(
            "the working tree has no changes against the task's base commit "
            "(test files left out)",
            path=source.workdir, hint="pass the folder the agent worked in, after the run",
        )
    cost = transcript_cost(metrics=metrics, prices=prices)
    label = f"run {number} ({source.transcript.name})"
    subagents = subagent_files(source.transcript, request.transcript_format)
    return _ReadRun(
        patch=patch, metrics=metrics, cost=cost, source=source,
        subagents=subagents, left_out=[f"{label}: {item}" for item in left_out],
        described=(
            f"{label}: {metrics.prompt_total:,} prompt tokens ({metrics.cache_read_tokens:,} "
            f"cached read, {metrics.cache_write_tokens:,} cache write), "
            f"{metrics.completion_tokens:,} completion, {metrics.tool_calls} tool calls, "
            f"{metrics.iterations} iterations, {metrics.wall_clock_seconds:,.0f} s"
            + (f", ${cost:,.4f} (price table {prices.version})" if cost is not None else "")
        ),
        missing=_missing(metrics, cost, name=label, prices=prices,
                         format_name=request.transcript_format),
    )


def _stage_runs(
    built: list[_ReadRun], *, staged: Path, runs: list[Run], request: SubmitRequest,
    read: list[str],
) -> list[str]:
    """Write each run's patch and redacted transcript into ``staged`` and append its
    :class:`Run` to ``runs`` under the next free id; the ids added, in order."""
    taken = {run.id for run in runs}
    added: list[str] = []
    for run in built:
        run_id = next(f"run-{n}" for n in itertools.count(1) if f"run-{n}" not in taken)
        taken.add(run_id)
        (staged / f"{run_id}.patch").write_text(run.patch, encoding="utf-8")
        stored, redacted = store_redacted(
            source=run.source.transcript, folder=staged, stem=f"{run_id}-transcript",
            extra=run.subagents,
        )
        if run.subagents:
            read.append(f"{run_id}: {len(run.subagents)} sub-agent file"
                        f"{'s' if len(run.subagents) > 1 else ''} stored with the session: "
                        + ", ".join(p.name for p in run.subagents))
        if redacted.changed:
            read.append(f"{run_id}: redacted {redacted.describe()} in {stored.name}")
        metrics, prompt = run.metrics, run.metrics.prompt_total
        if request.success and metrics.error_end:
            read.append(f"{run_id}: recorded as success: false: the transcript says the run "
                        f"ended in an error ({metrics.error_end})")
        runs.append(Run(  # every figure from the transcript, none typed in
            id=run_id,
            tokens=Tokens(
                total=prompt + metrics.completion_tokens, prompt=prompt,
                completion=metrics.completion_tokens, cached=metrics.cache_read_tokens,
            ),
            tool_calls=metrics.tool_calls,
            iterations=max(metrics.iterations, 1),
            execution_time=round(metrics.wall_clock_seconds, 1),
            estimated_cost=round(run.cost, 4) if run.cost is not None else 0.0,
            success=request.success and not metrics.error_end,
            patches=[f"{run_id}.patch"],
            transcript=Transcript(file=stored.name, format=request.transcript_format),
        ))
        added.append(run_id)
    return added


def _move_into_place(*, staged: Path, final: Path) -> None:
    """Swap the validated folder in: a new one is one rename; a replaced one two."""
    final.parent.mkdir(parents=True, exist_ok=True)
    if not final.exists():
        os.rename(staged, final)
        return
    backup = staged.with_name(staged.name + ".old")
    os.rename(final, backup)
    try:
        os.rename(staged, final)
    except OSError:
        os.rename(backup, final)
        raise
    shutil.rmtree(backup)
