"""View-models: what each page template shows, computed in Python (one class per template).

Every number a reader sees is computed in tested code, and a page holds only its own slice
of the board: the home page one row per tool / model, each task page only its entries.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from arena_bot.models.leaderboard import (
    LEVEL_NAMES,
    Entry,
    Leaderboard,
    ReviewFlag,
    TaskBoard,
    ToolModelAggregate,
)
from arena_bot.site.history import Change, Snapshot

#: How many tool / model labels the compare page's matrix holds (it grows quadratically).
COMPARE_TOP = 10
#: Flag reasons shown per row of the home board; the rest are on the Changes page.
HOME_FLAGS = 2
#: Submissions listed on a tool or model page (best first); the rest are on task pages and in
#: the data download, so these pages do not grow with the whole board.
GROUP_ROWS = 100


def slug(text: str) -> str:
    """A URL-safe, stable page name for a task id, tool or model."""
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return cleaned or "unnamed"


def unique_slugs(names: Iterable[str]) -> dict[str, str]:
    """A distinct page name for every name, even when two slug alike ("GPT-4o", "gpt 4o").

    Among names sharing a slug, the one spelt as the slug keeps it and every other gets a
    suffix from its own hash: its URL does not depend on which other names exist.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for name in sorted(set(names)):
        groups[slug(name)].append(name)
    out: dict[str, str] = {}
    for base, members in groups.items():
        for name in members:
            keep = len(members) == 1 or name == base
            digest = hashlib.sha256(name.encode()).hexdigest()[:6]
            out[name] = base if keep else f"{base}-{digest}"
    return out


@dataclass(frozen=True)
class Slugs:
    tasks: dict[str, str]
    tools: dict[str, str]
    models: dict[str, str]
    #: Entry key -> its submission page's folder (under ``board/s/``).
    entries: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, board: Leaderboard) -> Slugs:
        return cls(
            tasks=unique_slugs([t.task_id for t in board.tasks]
                               + [e.task_id for e in board.entries]),
            tools=unique_slugs(e.tool for e in board.entries),
            models=unique_slugs(e.model for e in board.entries),
            entries=unique_slugs(e.key for e in board.entries),
        )

    def entry_href(self, key: str, prefix: str) -> str:
        return f"{prefix}s/{self.entries.get(key, slug(key))}/"

    def task_href(self, task_id: str, prefix: str) -> str:
        return f"{prefix}tasks/{self.tasks.get(task_id, slug(task_id))}/"


def fmt(value: float | None, digits: int = 1) -> str:
    """A number as shown in a table cell; ``–`` when missing."""
    return "–" if value is None else f"{value:.{digits}f}"


@dataclass(frozen=True)
class Flag:
    code: str
    reason: str


@dataclass(frozen=True)
class BoardRow:
    rank: int
    tied: bool
    label: str
    tool: str
    tool_href: str
    model: str
    model_href: str
    overall: float
    low: float | None
    high: float | None
    resolve_rate: float
    efficiency: float | None
    speed: float | None
    cost: float | None
    correctness: float | None
    tasks: int
    runs: int
    flags: tuple[Flag, ...]
    #: Flagged entries of this label beyond the ones shown in ``flags``.
    more_flags: int
    #: Submissions of this label whose metrics were verified against transcripts.
    verified: int = 0
    submissions: int = 0
    #: Seed 002's rank (mean overall score); ``rank`` is the Bradley-Terry order.
    seed_rank: int = 0
    #: Bradley-Terry score (expected win rate against the others) and bootstrap interval.
    bt: float = 0.0
    bt_low: float = 0.0
    bt_high: float = 0.0
    #: Tasks attempted of the board's task set.
    of_tasks: int = 0


@dataclass(frozen=True)
class ChartPoint:
    label: str
    score: float
    cost: float
    pareto: bool
    #: Mean tokens per run, and whether the label is on the score-vs-tokens front.
    tokens: float = 0.0
    pareto_tokens: bool = False


@dataclass(frozen=True)
class HomeView:
    rows: tuple[BoardRow, ...]
    categories: tuple[str, ...]
    difficulties: tuple[str, ...]
    #: filter key ("category|difficulty", "*" for any; "|verified" appended for verified
    #: entries only) -> label -> [mean overall, tasks]
    filtered: dict[str, dict[str, list[float]]]
    #: slug, title, category, difficulty, submissions, task id
    tasks: tuple[tuple[str, str, str, str, int, str], ...]
    built_from: str
    updated: str
    points: tuple[ChartPoint, ...]
    pending: int
    errors: int
    #: filter key ("category|difficulty") -> tasks on the board that match it (coverage's
    #: denominator under a filter).
    task_counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class EntryRow:
    rank: int | None
    tied: bool
    key: str
    task_id: str
    task_href: str
    label: str
    tool: str
    model: str
    contributor: str
    status: str
    status_reason: str | None
    overall: float | None
    low: float | None
    high: float | None
    efficiency: float | None
    speed: float | None
    cost_score: float | None
    correctness: float | None
    runs: int
    features: str
    resolved: str
    flags: tuple[Flag, ...]
    needs_review: bool
    #: ``metrics_level`` is ``transcript-consistent`` or ``maintainer-repeated``.
    verified: bool = False
    metrics_level: str = "self-reported"
    metrics_reasons: tuple[str, ...] = ()
    review_status: str = "none"
    review: str = ""
    #: Per-feature and merge results from the stored evaluation, when the build has them.
    detail: EvaluationDetail | None = None
    href: str = ""

    @property
    def level_name(self) -> str:
        return LEVEL_NAMES.get(self.metrics_level, self.metrics_level)

    @property
    def level_title(self) -> str:
        """What the level means, and why it is not higher."""
        meaning = {
            "self-reported": "self-reported: the figures are taken on trust",
            "transcript-consistent": "consistent with its transcript: the transcript's edits "
            "replay to the patch, its usage is internally consistent and its figures and "
            "models are the submission's",
            "maintainer-repeated": "repeated by a maintainer, who saw figures in line",
        }.get(self.metrics_level, self.metrics_level)
        return "; ".join((meaning, *self.metrics_reasons[:3]))


@dataclass(frozen=True)
class FeatureCell:
    feature: int
    passed: int
    runs: int
    status: str  # the worst run's status (``passed`` when all passed)


@dataclass(frozen=True)
class MergeCell:
    status: str
    strategy: str
    conflict_score: int
    severity: str
    sections: int
    lines: int
    both_passed: int
    runs: int


@dataclass(frozen=True)
class EvaluationDetail:
    features: tuple[FeatureCell, ...]
    merge: MergeCell | None


@dataclass(frozen=True)
class TaskView:
    task: TaskBoard
    slug: str
    rows: tuple[EntryRow, ...]
    baseline: tuple[tuple[str, str, str, str, str], ...]  # metric, min, median, max, source
    scores: tuple[float, ...] = ()  # of the scored entries (the distribution chart)
    coop: int = 0  # coop entries among ``rows``


@dataclass(frozen=True)
class GroupView:
    kind: str  # "tool" or "model"
    name: str
    slug: str
    aggregates: tuple[ToolModelAggregate, ...]
    rows: tuple[EntryRow, ...]
    hidden: int  # submissions beyond ``GROUP_ROWS``


@dataclass(frozen=True)
class MatrixCell:
    """Row against column: ``verdict`` is ``a`` (row ahead), ``b`` (column ahead),
    ``none`` (no significant difference) or ``thin`` (not enough shared tasks)."""

    verdict: str
    text: str
    shared: int
    #: Mean per-task score difference (row − column) and its 95% interval, clustered by
    #: task; "–" without 2+ shared tasks.
    difference: str
    interval: str
    p_value: str
    #: Tasks passed by both / row only / column only / neither, and McNemar's p-value.
    passes: str
    mcnemar_p: str

    @property
    def significant(self) -> bool:
        return self.verdict in ("a", "b")


@dataclass(frozen=True)
class CompareView:
    labels: tuple[str, ...]
    cells: tuple[tuple[MatrixCell | None, ...], ...]
    min_shared: int = 3


@dataclass(frozen=True)
class ChangeRow:
    key: str
    task_href: str
    label: str
    what: str
    why: str
    href: str = ""


@dataclass(frozen=True)
class ChangeSetView:
    updated: str
    built_from: str
    from_digest: str
    to_digest: str
    changes: tuple[Change, ...]
    hrefs: dict[str, str]  # task id -> task page (from the Changes page)
    counts: dict[str, int]
    #: entry key -> its submission page, for entries still on the board.
    pages: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ChangesView:
    rows: tuple[ChangeRow, ...]
    #: No earlier build to compare with (the first published board).
    first: bool = True
    sets: tuple[ChangeSetView, ...] = ()


@dataclass(frozen=True)
class IndexView:
    tasks: tuple[tuple[str, str, str], ...]
    tools: tuple[tuple[str, str], ...]
    models: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class DataView:
    json_bytes: int
    csv_bytes: int
    entries: int
    digest: str


@dataclass(frozen=True)
class MethodologyView:
    rows: tuple[tuple[str, str, str], ...]  # name, value, meaning
    weights: tuple[tuple[str, str, str, str, str, str], ...]  # task, eff, speed, cost, corr, mult


def flags_of(entry: Entry) -> tuple[Flag, ...]:
    """Every reason to look at an entry by hand, for the flag marker and its tooltip."""
    flags = [Flag(_flag_code(f), f.reason) for f in entry.review_flags]
    shown = {f.kind for f in entry.review_flags}
    flags += [Flag(o.code, o.reason) for o in entry.outliers if o.code not in shown]
    if entry.status == "error":
        flags.append(Flag("evaluation-error", entry.status_reason or "the evaluation failed"))
    return tuple(flags)


def _flag_code(flag: ReviewFlag) -> str:
    """``kind at file:line`` (or the kind alone)."""
    where = f"{flag.file}:{flag.line}" if flag.file and flag.line else (flag.file or "")
    return f"{flag.kind} at {where}" if where else flag.kind


def _review_note(entry: Entry) -> str:
    review = entry.review
    if entry.review_status == "under-review":
        return "under review: not ranked until a maintainer clears the flags"
    if entry.review_status == "cleared" and review is not None:
        return f"cleared by @{review.by} on {review.date}: {review.reason}"
    return ""


def entry_row(entry: Entry, *, prefix: str, slugs: Slugs,
              detail: EvaluationDetail | None = None) -> EntryRow:
    """One table row; ``prefix`` is the relative path from the page up to ``board/``."""
    scores = entry.scores
    tested = sum(r.features_tested for r in entry.runs)
    passed = sum(r.features_passed for r in entry.runs)
    resolved = sum(1 for r in entry.runs if r.resolved)
    return EntryRow(
        rank=entry.rank,
        tied=bool(entry.statistically_tied),
        key=entry.key,
        task_id=entry.task_id,
        task_href=slugs.task_href(entry.task_id, prefix),
        label=entry.label,
        tool=entry.tool,
        model=entry.model,
        contributor=entry.contributor,
        status=entry.status,
        status_reason=entry.status_reason,
        overall=scores.overall if scores else None,
        low=entry.interval.low if entry.interval else None,
        high=entry.interval.high if entry.interval else None,
        efficiency=scores.efficiency if scores else None,
        speed=scores.speed if scores else None,
        cost_score=scores.cost if scores else None,
        correctness=scores.correctness if scores else None,
        runs=entry.run_count,
        features=f"{passed}/{tested}" if tested else "–",
        resolved=f"{resolved}/{len(entry.runs)}" if entry.runs else "–",
        flags=flags_of(entry),
        needs_review=entry.review_status == "under-review",
        verified=entry.metrics_level != "self-reported",
        metrics_level=entry.metrics_level,
        metrics_reasons=tuple(entry.metrics_reasons),
        review_status=entry.review_status,
        review=_review_note(entry),
        detail=detail,
        href=slugs.entry_href(entry.key, prefix),
    )


def _label_means(board: Leaderboard) -> dict[str, dict[str, float]]:
    """Per label, over its scored entries: the mean of each category score, of the cost
    (``cost_usd``, where recorded) and of the tokens."""
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for e in board.entries:
        if e.scores is None:
            continue
        found = {name: getattr(e.scores, name)
                 for name in ("efficiency", "speed", "cost", "correctness")}
        found.update(cost_usd=e.metrics.estimated_cost, tokens=e.metrics.tokens)
        for name, value in found.items():
            if value is not None:
                values[e.label][name].append(value)
    return {label: {n: sum(v) / len(v) for n, v in parts.items()}
            for label, parts in values.items()}


def _filter_keys(category: str, difficulty: str) -> list[str]:
    return [f"{category}|{difficulty}", f"{category}|*", f"*|{difficulty}", "*|*"]


def _filtered(board: Leaderboard) -> dict[str, dict[str, list[float]]]:
    """Mean overall and task count per label for every filter key (``category|difficulty``,
    ``*`` for any; ``|verified`` appended for verified entries only): small enough that the
    home page filters without loading any per-task data."""
    meta = {t.task_id: (t.category, t.difficulty) for t in board.tasks}
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    tasks: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for e in board.entries:
        if e.scores is None:
            continue
        keys = _filter_keys(*meta.get(e.task_id, ("", "")))
        if e.metrics_level != "self-reported":
            keys += [f"{key}|verified" for key in keys]
        for key in keys:
            scores[key][e.label].append(e.scores.overall)
            tasks[key][e.label].add(e.task_id)
    return {
        key: {label: [round(sum(v) / len(v), 2), len(tasks[key][label])]
              for label, v in sorted(by.items())}
        for key, by in sorted(scores.items())
    }


def pareto(points: Sequence[tuple[str, float, float]]) -> set[str]:
    """Labels on the score-vs-cost Pareto frontier: nobody is cheaper *and* better."""
    frontier: set[str] = set()
    best = float("-inf")
    for label, score, _cost in sorted(points, key=lambda p: (p[2], -p[1])):
        if score > best:
            frontier.add(label)
            best = score
    return frontier


def home_view(board: Leaderboard, *, built_from: str, updated: str, slugs: Slugs) -> HomeView:
    """The overall board by tool / model, its filters and the score-vs-cost chart."""
    from arena_bot.scoring.ranking import bradley_terry

    means = _label_means(board)
    flags: dict[str, list[Flag]] = defaultdict(list)
    verified: dict[str, int] = defaultdict(int)
    submissions: dict[str, int] = defaultdict(int)
    for e in board.entries:
        if e.scores is not None:
            submissions[e.label] += 1
            verified[e.label] += e.metrics_level != "self-reported"
        if e.review_status == "under-review":
            flags[e.label].extend(Flag(f"{e.task_id}: {f.code}", f.reason) for f in flags_of(e))
    strengths = {st.label: st for st in bradley_terry(board)}
    leader = min(strengths.values(), key=lambda st: st.rank, default=None)
    rows = []
    for a in sorted(board.tools, key=lambda a: (strengths[a.label].rank if a.label in strengths
                                                else len(strengths) + a.rank)):
        st, mean, flagged = strengths.get(a.label), means.get(a.label, {}), flags[a.label]
        rows.append(BoardRow(
            rank=st.rank if st else a.rank,
            tied=st is not None and leader is not None and st.high >= leader.low,
            label=a.label, tool=a.tool,
            tool_href=f"tools/{slugs.tools.get(a.tool, slug(a.tool))}/", model=a.model,
            model_href=f"models/{slugs.models.get(a.model, slug(a.model))}/",
            overall=a.overall.mean,
            low=a.overall.low, high=a.overall.high, resolve_rate=a.resolve_rate,
            efficiency=mean.get("efficiency"), speed=mean.get("speed"), cost=mean.get("cost"),
            correctness=a.mean_correctness, tasks=a.tasks, runs=a.runs,
            flags=tuple(flagged[:HOME_FLAGS]), more_flags=max(0, len(flagged) - HOME_FLAGS),
            verified=verified[a.label], submissions=submissions[a.label], seed_rank=a.rank,
            bt=st.score if st else 0.0, bt_low=st.low if st else 0.0,
            bt_high=st.high if st else 0.0, of_tasks=len(board.tasks),
        ))
    raw = [(a.label, a.overall.mean, means[a.label]["cost_usd"]) for a in board.tools
           if "cost_usd" in means.get(a.label, {})]
    tokens = {label: means[label].get("tokens", 0.0) for label, _, _ in raw}
    front = pareto(raw)
    front_tokens = pareto([(label, score, tokens[label]) for label, score, _ in raw])
    counts: dict[str, int] = defaultdict(int)
    for e in board.entries:
        counts[e.task_id] += 1
    task_counts: dict[str, int] = defaultdict(int)
    for t in board.tasks:
        for key in _filter_keys(t.category, t.difficulty):
            task_counts[key] += 1
    return HomeView(
        rows=tuple(rows),
        categories=tuple(sorted({t.category for t in board.tasks})),
        difficulties=tuple(sorted({t.difficulty for t in board.tasks})),
        filtered=_filtered(board),
        task_counts=dict(sorted(task_counts.items())),
        tasks=tuple(
            (slugs.tasks[t.task_id], t.title, t.category, t.difficulty, counts[t.task_id],
             t.task_id)
            for t in board.tasks
        ),
        built_from=built_from,
        updated=updated,
        points=tuple(ChartPoint(label, s, c, label in front, tokens[label],
                                label in front_tokens) for label, s, c in raw),
        pending=sum(1 for e in board.entries if e.status == "pending"),
        errors=sum(1 for e in board.entries if e.status == "error"),
    )


def task_views(board: Leaderboard, *, slugs: Slugs,
               details: Mapping[str, EvaluationDetail]) -> Iterator[TaskView]:
    """One view per task with only that task's entries (pages stay small as the board grows);
    ``details``: entry key -> its stored evaluation's per-feature and merge results."""
    by_task: dict[str, list[Entry]] = defaultdict(list)
    for e in board.entries:
        by_task[e.task_id].append(e)
    for t in board.tasks:
        b = t.baseline
        baseline = tuple(
            (name, fmt(m.min, 2), fmt(m.median, 2), fmt(m.max, 2), m.source)
            for name, m in (
                ("tokens", b.tokens), ("tool calls", b.tool_calls),
                ("execution time (s)", b.execution_time), ("cost (USD)", b.cost),
                ("iterations", b.iterations),
            )
        )
        entries = by_task[t.task_id]
        rows = tuple(entry_row(e, prefix="../../", slugs=slugs, detail=details.get(e.key))
                     for e in entries)
        yield TaskView(
            task=t, slug=slugs.tasks[t.task_id], rows=rows, baseline=baseline,
            scores=tuple(e.scores.overall for e in entries if e.scores is not None),
            coop=sum(1 for e in entries if e.setting == "coop"),
        )


def group_views(board: Leaderboard, kind: str, *, slugs: Slugs) -> list[GroupView]:
    """One view per tool (``kind="tool"``) or per model, with all their submissions."""
    names = slugs.tools if kind == "tool" else slugs.models
    entries: dict[str, list[Entry]] = defaultdict(list)
    for e in board.entries:
        entries[getattr(e, kind)].append(e)
    aggregates: dict[str, list[ToolModelAggregate]] = defaultdict(list)
    for a in board.tools:
        aggregates[getattr(a, kind)].append(a)
    return [
        GroupView(
            kind=kind, name=name, slug=names[name],
            aggregates=tuple(aggregates.get(name, ())),
            rows=tuple(entry_row(e, prefix="../../", slugs=slugs) for e in _best(entries[name])),
            hidden=max(0, len(entries[name]) - GROUP_ROWS),
        )
        for name in sorted(entries)
    ]


def _best(entries: Sequence[Entry]) -> list[Entry]:
    """The ``GROUP_ROWS`` highest-scoring entries (unscored last)."""
    return sorted(entries, key=lambda e: (-e.scores.overall if e.scores else 1.0, e.key)
                  )[:GROUP_ROWS]


def _cell(a: str, b: str, board: Leaderboard) -> MatrixCell | None:
    """Row ``a`` against column ``b``, on the tasks both attempted only."""
    from arena_bot.core.errors import ArenaError
    from arena_bot.scoring.compare import compare

    try:
        with warnings.catch_warnings():
            # scipy warns on near-identical samples; the p-value it returns is still right
            # for the page, and the warning would only clutter the build output.
            warnings.simplefilter("ignore", RuntimeWarning)
            result = compare(board, a, b)
    except (ArenaError, ValueError):
        return None
    p, m = result.paired, result.mcnemar
    return MatrixCell(
        verdict=result.verdict, text=result.verdict_text, shared=result.shared,
        difference=fmt(p.mean_difference) if p else "–",
        interval=f"{p.low:.1f} to {p.high:.1f}" if p else "–",
        p_value=f"{p.p_value:.3f}" if p else "–",
        passes=f"{m.both} / {m.only_a} / {m.only_b} / {m.neither}" if m else "–",
        mcnemar_p=f"{m.p_value:.3f}" if m else "–",
    )


def compare_view(board: Leaderboard, top: int = COMPARE_TOP) -> CompareView:
    """Pairwise significance of the top labels, each pair on a board holding only its two
    labels' entries (the same result, without scanning the whole board 2·top² times)."""
    from arena_bot.scoring.compare import MIN_SHARED_TASKS
    from arena_bot.scoring.ranking import bradley_terry

    labels = tuple(st.label for st in bradley_terry(board, resamples=0)[:top])
    own: dict[str, list[Entry]] = defaultdict(list)
    for e in board.entries:
        if e.label in labels:
            own[e.label].append(e)
    cells = tuple(
        tuple(None if a == b else
              _cell(a, b, board.model_copy(update={"entries": own[a] + own[b]}))
              for b in labels)
        for a in labels
    )
    return CompareView(labels=labels, cells=cells, min_shared=MIN_SHARED_TASKS)


def changes_view(board: Leaderboard, snapshot: Snapshot | None, *, first: bool,
                 slugs: Slugs) -> ChangesView:
    """The change log between published boards, then every entry flagged or not ranked."""
    def href(task_id: str) -> str:
        return slugs.task_href(task_id, "../")

    rows = []
    for e in board.entries:
        if e.status == "error":
            rows.append(ChangeRow(e.key, href(e.task_id), e.label,
                                  "not ranked: evaluation failed", e.status_reason or "–",
                                  slugs.entry_href(e.key, "../")))
        for flag in flags_of(e):
            if flag.code == "evaluation-error":
                continue
            what = "flagged for review" if e.review_status == "under-review" else "noted"
            rows.append(ChangeRow(e.key, href(e.task_id), e.label, f"{what} ({flag.code})",
                                  flag.reason, slugs.entry_href(e.key, "../")))
    current = {t.task_id for t in board.tasks}
    sets = tuple(
        ChangeSetView(
            updated=c.updated, built_from=c.built_from, from_digest=c.from_digest[:12],
            to_digest=c.to_digest[:12], changes=tuple(c.changes),
            # Removed tasks have no page any more: their rows link nowhere.
            hrefs={x.task_id: href(x.task_id) for x in c.changes if x.task_id in current},
            counts={kind: sum(1 for x in c.changes if x.kind == kind)
                    for kind in ("added", "removed", "rescored", "flagged", "unflagged")},
            pages={x.key: slugs.entry_href(x.key, "../") for x in c.changes
                   if x.key in slugs.entries},
        )
        for c in (snapshot.log if snapshot else [])
    )
    return ChangesView(rows=tuple(rows), first=first, sets=sets)


def index_view(board: Leaderboard, *, slugs: Slugs) -> IndexView:
    return IndexView(
        tasks=tuple((t.task_id, t.title, slugs.tasks[t.task_id]) for t in board.tasks),
        tools=tuple(sorted(slugs.tools.items())),
        models=tuple(sorted(slugs.models.items())),
    )
