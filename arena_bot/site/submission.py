"""A page per submission: metrics against the baseline, runs and features with the failing
tests, the merge report of coop runs, the patch as a diff, review flags and the transcript.

Thousands of submissions would make ``mkdocs build`` (its theme renders every page, about
10 ms each) the slowest part of the build, so these pages do not go through it: MkDocs
renders one page, ``board/s/shell/``, whose article holds :data:`SLOT`; after the build
each submission's HTML (rendered by Jinja2, autoescaped) is put into a copy of that page at
``board/s/<slug>/index.html``, the same depth, so every relative link of the theme works.
The pages are left out of search (their text is on the task pages already).

What a page shows comes from three places: the entry in the board, the submission's folder
(``submissions/<task>/<submission>/``: ``submission.yaml``, its patches and transcripts)
and the stored evaluation result (per-feature tests, merge report, review flags). A part
whose source is missing says so; nothing is fetched.
"""

from __future__ import annotations

import html
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from arena_bot.core.errors import ArenaError
from arena_bot.core.files import read_at_most
from arena_bot.core.yamlio import load_yaml
from arena_bot.evaluation.store import ResultStore
from arena_bot.models.evaluation import EvaluationResult, FeatureResult, MergeResult
from arena_bot.models.leaderboard import Entry, Leaderboard, TaskBoard
from arena_bot.site import views
from arena_bot.site.timeline import Timeline, read_timeline

#: Where a submission's HTML goes in the shell page: a raw HTML block Markdown keeps as it
#: is (with an ``h1``, so the theme adds no title of its own).
SLOT = '<div class="ar-submission-slot"><h1>Submission</h1></div>'
#: The shell page's title, replaced by each submission's wherever the theme shows it.
TITLE = "ARENA-SUBMISSION-TITLE"
#: The shell page's folder under ``board/s/`` (no entry slug can be this: slugs of keys hold
#: a dash between task and submission).
SHELL = "shell"
#: Patch bytes shown per file (the rest is in the submission's folder).
MAX_PATCH = 200_000
#: Failing tests listed per feature.
MAX_FAILING = 30


@dataclass(frozen=True)
class VersusRow:
    metric: str
    value: str
    median: str
    ratio: str
    #: ``better`` / ``worse`` / ``""`` (lower is better for every metric listed).
    verdict: str


@dataclass(frozen=True)
class FailingTest:
    name: str
    outcome: str
    message: str


@dataclass(frozen=True)
class FeatureView:
    feature: int
    status: str
    passed: bool
    counts: str
    reason: str
    failing: tuple[FailingTest, ...]
    more_failing: int


@dataclass(frozen=True)
class RunView:
    run_id: str
    tokens: int
    tool_calls: int
    iterations: int
    time: float
    cost: float
    resolved: bool
    overall: float | None
    features: tuple[FeatureView, ...]
    merge: MergeResult | None
    merged_features: tuple[FeatureView, ...]


@dataclass(frozen=True)
class ReviewItem:
    """One reason to look at the submission by hand; ``source`` is the flag's (``static``,
    ``runtime``, ``outlier``, ``metrics``), ``outlier (noted)`` for an outlier not holding
    the entry, or ``evaluation`` for an evaluation that failed."""

    source: str
    kind: str
    file: str
    line: int | None
    reason: str


@dataclass(frozen=True)
class PatchView:
    name: str
    html: Markup
    truncated: bool
    missing: str = ""


@dataclass(frozen=True)
class TranscriptView:
    run_id: str
    name: str
    format: str
    timeline: Timeline


@dataclass(frozen=True)
class SubmissionView:
    entry: Entry
    row: views.EntryRow
    task: TaskBoard | None
    task_href: str
    versus: tuple[VersusRow, ...]
    runs: tuple[RunView, ...]
    patches: tuple[PatchView, ...]
    review: tuple[ReviewItem, ...]
    transcripts: tuple[TranscriptView, ...]
    notes: str
    command: str
    folder: str
    evaluated: bool
    problems: tuple[str, ...] = field(default_factory=tuple)


def _versus(entry: Entry, task: TaskBoard | None) -> tuple[VersusRow, ...]:
    if task is None:
        return ()
    b = task.baseline
    rows = []
    for name, value, base, digits in (
        ("tokens per run", entry.metrics.tokens, b.tokens.median, 0),
        ("tool calls per run", entry.metrics.tool_calls, b.tool_calls.median, 1),
        ("iterations per run", entry.metrics.iterations, b.iterations.median, 1),
        ("execution time per run (s)", entry.metrics.execution_time, b.execution_time.median,
         1),
        ("cost per run (USD)", entry.metrics.estimated_cost, b.cost.median, 4),
    ):
        if value is None:
            rows.append(VersusRow(name, "not recorded", f"{base:,.{digits}f}", "–", ""))
            continue
        ratio = value / base if base else None
        verdict = "" if ratio is None or abs(ratio - 1) < 0.05 else (
            "better" if ratio < 1 else "worse")
        rows.append(VersusRow(name, f"{value:,.{digits}f}", f"{base:,.{digits}f}",
                              f"{ratio:.2f}×" if ratio is not None else "–", verdict))
    return tuple(rows)


def _feature(f: FeatureResult) -> FeatureView:
    failing = [t for t in f.tests if t.outcome not in ("passed", "skipped")]
    counts = (f"{f.tests_passed} passed, {f.tests_failed} failed"
              + (f", {f.tests_errored} errors" if f.tests_errored else "")
              + (f", {f.tests_skipped} skipped" if f.tests_skipped else ""))
    return FeatureView(
        feature=f.feature, status=f.status, passed=f.passed, counts=counts,
        reason=f.reason or "",
        failing=tuple(FailingTest(t.name, t.outcome, (t.message or "")[:2000])
                      for t in failing[:MAX_FAILING]),
        more_failing=max(0, len(failing) - MAX_FAILING),
    )


def _runs(entry: Entry, result: EvaluationResult | None) -> tuple[RunView, ...]:
    stored = {r.run_id: r for r in result.runs} if result is not None else {}
    out = []
    for run in entry.runs:
        r = stored.get(run.run_id)
        out.append(RunView(
            run_id=run.run_id, tokens=run.tokens, tool_calls=run.tool_calls,
            iterations=run.iterations, time=run.execution_time, cost=run.estimated_cost,
            resolved=run.resolved, overall=run.overall,
            features=tuple(_feature(f) for f in r.features) if r else (),
            merge=r.merge if r else None,
            merged_features=tuple(_feature(f) for f in r.merge.features)
            if r and r.merge else (),
        ))
    return tuple(out)


def _review(entry: Entry) -> tuple[ReviewItem, ...]:
    """The entry's review flags (they carry the stored result's), then outliers that were
    only noted and an evaluation error."""
    items = [ReviewItem(f.source, f.kind, f.file or "", f.line, f.reason)
             for f in entry.review_flags]
    held = {(f.kind, f.reason) for f in entry.review_flags}
    items += [ReviewItem("outlier (noted)", o.code, "", None, o.reason)
              for o in entry.outliers if (o.code, o.reason) not in held]
    if entry.status == "error":
        items.append(ReviewItem("evaluation", "evaluation-error", "", None,
                                entry.status_reason or "the evaluation failed"))
    return tuple(items)


def _line_class(line: str) -> str:
    head = line[:1]
    if head == "+":
        return "file" if line.startswith("+++ ") else "add"
    if head == "-":
        return "file" if line.startswith("--- ") else "del"
    if head == "@":
        return "hunk" if line.startswith("@@ ") else ""
    if head in ("d", "i") and line.startswith(("diff --git", "index ")):
        return "file"
    return ""


def diff_html(text: str) -> Markup:
    """A unified diff as HTML lines, each with the class that colours it (escaped once as a
    whole: a patch has thousands of lines)."""
    out = []
    for line in str(escape(text)).splitlines():
        cls = _line_class(line)
        out.append(f'<span class="{cls}">{line}</span>' if cls else line)
    return Markup("\n".join(out))


def _inside(folder: Path, name: str) -> Path | None:
    """``folder / name`` when it stays inside the folder (a submission names its files)."""
    try:
        path = (folder / name).resolve()
        base = folder.resolve()
    except (OSError, RuntimeError):
        return None
    return path if path.is_relative_to(base) and path.is_file() else None


def _patch(folder: Path, name: str) -> PatchView:
    path = _inside(folder, name)
    if path is None:
        return PatchView(name, Markup(), False, missing="not in the submission's folder")
    try:
        with path.open("rb") as handle:
            raw = read_at_most(handle, MAX_PATCH)
    except OSError as exc:
        return PatchView(name, Markup(), False, missing=f"unreadable ({exc.strerror})")
    text = raw[:MAX_PATCH].decode("utf-8", "replace")
    return PatchView(name, diff_html(text), len(raw) > MAX_PATCH)


def _spec(folder: Path) -> tuple[dict[str, Any], str]:
    path = folder / "submission.yaml"
    if not path.is_file():
        return {}, "its submission.yaml is not in this checkout"
    try:
        data = load_yaml(path).data
    except ArenaError as exc:
        return {}, f"its submission.yaml could not be read: {exc}"
    return (data if isinstance(data, dict) else {}), ""


def submission_view(entry: Entry, *, root: Path, task: TaskBoard | None, slugs: views.Slugs,
                    result: EvaluationResult | None) -> SubmissionView:
    folder = root / "submissions" / entry.task_id / entry.submission_id
    spec, problem = _spec(folder)
    patches: list[PatchView] = []
    transcripts: list[TranscriptView] = []
    found = spec.get("runs")
    runs: list[Any] = found if isinstance(found, list) else []
    for run in runs:
        if not isinstance(run, dict):
            continue
        names = run.get("patches")
        for name in names if isinstance(names, list) else []:
            if isinstance(name, str) and name not in {p.name for p in patches}:
                patches.append(_patch(folder, name))
        transcript = run.get("transcript")
        if isinstance(transcript, dict) and isinstance(transcript.get("file"), str):
            path = _inside(folder, transcript["file"])
            timeline = read_timeline(path) if path is not None else Timeline(
                [], note="the transcript file is not in the submission's folder")
            transcripts.append(TranscriptView(str(run.get("id", "")), transcript["file"],
                                              str(transcript.get("format", "")), timeline))
    found_tool = spec.get("tool")
    tool: dict[str, Any] = found_tool if isinstance(found_tool, dict) else {}
    return SubmissionView(
        entry=entry,
        row=views.entry_row(entry, prefix="../../", slugs=slugs),
        task=task,
        task_href=slugs.task_href(entry.task_id, "../../"),
        versus=_versus(entry, task),
        runs=_runs(entry, result),
        patches=tuple(patches),
        review=_review(entry),
        transcripts=tuple(transcripts),
        notes=str(spec.get("notes") or "").strip(),
        command=str(tool.get("command") or spec.get("command") or "").strip(),
        folder=f"submissions/{entry.task_id}/{entry.submission_id}/",
        evaluated=result is not None,
        problems=(problem,) if problem else (),
    )


@contextmanager
def kept_pages(site_board: Path) -> Iterator[None]:
    """Keep the last build's submission pages out of MkDocs' way while it builds.

    ``mkdocs build`` empties the site folder first, and deleting thousands of files costs
    seconds on a disk that discards freed blocks; the pages are moved aside (one rename)
    and moved back afterwards under the freshly built shell, so :func:`write_pages` only
    touches the pages that changed.
    """
    pages = site_board / "s"
    aside = site_board.parent.parent / f".{site_board.parent.name}-submission-pages"
    if aside.exists():
        shutil.rmtree(aside)  # left by a build that failed half-way
    if pages.is_dir():
        pages.rename(aside)
    yield
    if not aside.is_dir():
        return
    fresh = pages / SHELL
    if not fresh.is_dir():  # MkDocs failed before writing the shell: nothing to keep
        shutil.rmtree(aside)
        return
    shutil.rmtree(aside / SHELL, ignore_errors=True)
    fresh.rename(aside / SHELL)
    pages.rmdir()
    aside.rename(pages)


def write_pages(board: Leaderboard, *, root: Path, site_board: Path, slugs: views.Slugs,
                results: Mapping[str, EvaluationResult]) -> int:
    """Fill a copy of the built shell page for every entry (a page with the same bytes left
    alone, pages of entries gone removed); return how many were written."""
    from arena_bot.site.render import environment

    shell_file = site_board / "s" / SHELL / "index.html"
    shell = shell_file.read_text(encoding="utf-8")
    if SLOT not in shell:
        raise ArenaError(f"the submission shell page has no {SLOT!r} slot: {shell_file}")
    before, after = shell.split(SLOT, 1)
    template = environment(markdown=False).get_template("submission.html.j2")
    tasks = {t.task_id: t for t in board.tasks}
    written = 0
    wanted = {SHELL}
    for entry in board.entries:
        view = submission_view(entry, root=root, task=tasks.get(entry.task_id), slugs=slugs,
                               result=results.get(entry.key))
        body = template.render(v=view)
        title = html.escape(f"{entry.label} on {entry.task_id}")
        page = (before.replace(TITLE, title) + body + after.replace(TITLE, title))
        name = slugs.entries[entry.key]
        wanted.add(name)
        written += _place(site_board / "s" / name / "index.html", page.encode("utf-8"))
    for folder in (site_board / "s").iterdir():
        if folder.name not in wanted:
            shutil.rmtree(folder) if folder.is_dir() else folder.unlink()
    return written


def _place(path: Path, data: bytes) -> int:
    """Write ``path`` unless it already holds ``data``; 1 when written."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return 0
        # A new file, not the old one truncated: ext4 flushes a truncated file to disk
        # before it is written again (auto_da_alloc), ten times the cost of writing it.
        path.unlink()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return 1


def shell_markdown() -> str:
    """The page MkDocs renders once, whose article the submissions fill."""
    return (f"---\ntitle: {TITLE}\nsearch:\n  exclude: true\nhide:\n  - navigation\n"
            f"  - toc\n---\n\n{SLOT}\n")


def stored_results(board: Leaderboard, results: Path | None) -> dict[str, EvaluationResult]:
    """Entry key -> its newest stored evaluation result (none when the folder is absent)."""
    if results is None or not results.is_dir():
        return {}
    store = ResultStore(results)
    out: dict[str, EvaluationResult] = {}
    for entry in board.entries:
        if entry.status == "pending":
            continue
        found = store.newest(entry.task_id, entry.submission_id)
        if found is not None:
            out[entry.key] = found
    return out
