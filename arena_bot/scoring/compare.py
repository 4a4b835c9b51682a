"""``arena compare A B``: is the difference between two tools / models / submissions real?

A selector matches, case-insensitively, a submission key (``task/submission``), a label
(``tool / model``), a tool name or a model name; a side is every scored entry it matches.

Only tasks both sides attempted are compared (scores of different tasks are measured
against different baselines, so pooling them says nothing about who is better). Each side
is reduced to one value per shared task (its mean overall score there, and whether at
least half of its runs there resolved the task), and the verdict comes from:

- a paired t-test on the per-task score differences: its interval is clustered by task
  (one difference per task, however many runs or submissions each side has there);
- McNemar's exact test on the per-task pass / fail pairs (only tasks where exactly one
  side passed count).

With fewer than :data:`MIN_SHARED_TASKS` shared tasks the verdict is "not enough overlap".
Two single submissions of the same task are the exception: there the runs are compared
with Welch's t-test (same task, same baseline). Welch's test over the sides' pooled
values is still computed, as a description, and never gives the verdict otherwise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from arena_bot.core.errors import InputError
from arena_bot.models.leaderboard import Entry, Leaderboard
from arena_bot.scoring.stats import ALPHA, PairedResult, WelchResult, paired_test, welch_test

#: Shared tasks needed before a comparison gives a verdict.
MIN_SHARED_TASKS = 3


@dataclass(frozen=True, kw_only=True)
class Side:
    selector: str
    entries: tuple[str, ...]  # keys
    unit: str  # "runs" or "submissions"
    values: tuple[float, ...]


@dataclass(frozen=True, kw_only=True)
class Comparison:
    a: Side
    b: Side
    welch: WelchResult | None
    welch_note: str | None
    paired: PairedResult | None
    paired_tasks: tuple[str, ...]
    paired_note: str | None
    #: McNemar's exact test on per-task pass / fail (``None`` below the overlap needed).
    mcnemar: McNemarResult | None = None
    #: ``a`` / ``b`` (that side is significantly ahead), ``none`` (no significant
    #: difference) or ``thin`` (not enough shared tasks for a verdict).
    verdict: str = "thin"
    verdict_text: str = ""

    @property
    def shared(self) -> int:
        return len(self.paired_tasks)


@dataclass(frozen=True, kw_only=True)
class McNemarResult:
    """McNemar's exact test: tasks only A passed (``only_a``) against only B (``only_b``)."""

    both: int
    only_a: int
    only_b: int
    neither: int
    p_value: float
    significant: bool


def mcnemar(pairs: Sequence[tuple[bool, bool]]) -> McNemarResult:
    """Exact (binomial) McNemar test on paired pass / fail outcomes.

    Known values: 0 vs 6 discordant pairs gives p = 2 · 0.5⁶ = 0.03125; no discordant pair
    gives p = 1.
    """
    only_a = sum(1 for x, y in pairs if x and not y)
    only_b = sum(1 for x, y in pairs if y and not x)
    n = only_a + only_b
    if n == 0:
        p_value = 1.0
    else:
        from scipy import stats

        p_value = float(min(1.0, 2 * stats.binom.cdf(min(only_a, only_b), n, 0.5)))
    return McNemarResult(
        both=sum(1 for x, y in pairs if x and y), only_a=only_a, only_b=only_b,
        neither=sum(1 for x, y in pairs if not x and not y), p_value=p_value,
        significant=p_value < ALPHA,
    )


def select(leaderboard: Leaderboard, selector: str) -> list[Entry]:
    """Scored entries matching ``selector`` (see the module docstring). A tool, model or
    label stands for its entries that are not held for review; a submission key names
    its entry whatever its review status (a maintainer comparing a held entry)."""
    wanted = selector.strip().lower()
    scored = [e for e in leaderboard.entries if e.status == "scored" and e.scores is not None]
    found = [e for e in scored if e.key.lower() == wanted]
    if found:
        return found
    ranked = [e for e in scored if e.review_status != "under-review"]
    for field in ("label", "tool", "model"):
        found = [e for e in ranked if getattr(e, field).lower() == wanted]
        if found:
            return found
    labels = sorted({e.label for e in scored})
    known = "; ".join(labels[:20]) or "none (nothing is scored yet)"
    raise InputError(
        f"{selector!r} matches no scored submission",
        hint=f"use a submission key (task/submission), a tool, a model or a label: {known}",
    )


def _side(selector: str, entries: Sequence[Entry]) -> Side:
    if len(entries) == 1:
        runs = [r.overall for r in entries[0].runs if r.overall is not None]
        return Side(selector=selector, entries=(entries[0].key,), unit="runs", values=tuple(runs))
    values = tuple(e.scores.overall for e in entries if e.scores is not None)
    return Side(
        selector=selector, entries=tuple(e.key for e in entries), unit="submissions",
        values=values,
    )


def _per_task(entries: Sequence[Entry]) -> tuple[dict[str, float], dict[str, bool]]:
    """Per task: the side's mean overall score there, and whether at least half of its runs
    there resolved it."""
    scores: dict[str, list[float]] = defaultdict(list)
    runs: dict[str, list[bool]] = defaultdict(list)
    for e in entries:
        if e.scores is not None:
            scores[e.task_id].append(e.scores.overall)
            runs[e.task_id].extend(r.resolved for r in e.runs)
    return ({task: sum(v) / len(v) for task, v in scores.items()},
            {task: bool(v) and 2 * sum(v) >= len(v) for task, v in runs.items()})


def compare(leaderboard: Leaderboard, a: str, b: str) -> Comparison:
    """Welch's t-test + Cohen's d between the sides, and the paired test when possible."""
    entries_a, entries_b = select(leaderboard, a), select(leaderboard, b)
    overlap = {e.key for e in entries_a} & {e.key for e in entries_b}
    if overlap:
        raise InputError(
            f"{a!r} and {b!r} share submissions ({', '.join(sorted(overlap))})",
            hint="compare two different tools, models or submissions",
        )
    side_a, side_b = _side(a, entries_a), _side(b, entries_b)
    welch = welch_note = None
    if len(side_a.values) >= 2 and len(side_b.values) >= 2:
        welch = welch_test(side_a.values, side_b.values)
        welch_note = welch.note
    else:
        welch_note = "Welch's t-test needs at least 2 values per side (seed 004: 2 runs)"
    (per_a, pass_a), (per_b, pass_b) = _per_task(entries_a), _per_task(entries_b)
    common = tuple(sorted(set(per_a) & set(per_b)))
    paired = paired_note = None
    if len(common) >= 2:
        paired = paired_test([per_a[t] - per_b[t] for t in common])
        paired_note = paired.note
    else:
        paired_note = f"paired test needs 2+ tasks run by both sides ({len(common)} in common)"
    test = mcnemar([(pass_a[t], pass_b[t]) for t in common]) if common else None
    verdict, text = _verdict(a, b, common, paired, test,
                             welch if _same_task_runs(side_a, side_b, common) else None)
    return Comparison(
        a=side_a, b=side_b, welch=welch, welch_note=welch_note, paired=paired,
        paired_tasks=common, paired_note=paired_note, mcnemar=test, verdict=verdict,
        verdict_text=text,
    )


def _same_task_runs(a: Side, b: Side, common: tuple[str, ...]) -> bool:
    """Two single submissions of one task: their runs compare on the same baseline."""
    return a.unit == b.unit == "runs" and len(common) == 1


def _verdict(a: str, b: str, common: tuple[str, ...], paired: PairedResult | None,
             test: McNemarResult | None, runs: WelchResult | None) -> tuple[str, str]:
    """The one-line answer: who is ahead, and whether the shared tasks can tell."""
    if runs is not None:
        if not runs.significant or runs.difference == 0:
            return "none", f"no significant difference over the runs of {common[0]}"
        leader = a if runs.difference > 0 else b
        return ("a" if runs.difference > 0 else "b",
                f"{leader} ahead over the runs of {common[0]} (Welch p = {runs.p_value:.3f})")
    if len(common) < MIN_SHARED_TASKS or paired is None:
        return "thin", (f"not enough overlap: {len(common)} shared task"
                        f"{'' if len(common) == 1 else 's'} (a verdict needs "
                        f"{MIN_SHARED_TASKS})")
    score_sig = paired.significant and paired.mean_difference != 0
    pass_sig = test is not None and test.significant
    if not score_sig and not pass_sig:
        return "none", f"no significant difference over {len(common)} shared tasks"
    if score_sig:
        ahead = paired.mean_difference > 0
    else:
        assert test is not None
        ahead = test.only_a > test.only_b
    leader = a if ahead else b
    which = " and ".join(n for n, ok in (("scores", score_sig), ("pass / fail", pass_sig)) if ok)
    return ("a" if ahead else "b",
            f"{leader} ahead on {which} over {len(common)} shared tasks")


def _f(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def render_table(comparison: Comparison) -> str:
    """The comparison as a plain-text table."""
    a, b, w = comparison.a, comparison.b, comparison.welch
    rows: list[tuple[str, str]] = [
        ("A", f"{a.selector} ({len(a.values)} {a.unit})"),
        ("B", f"{b.selector} ({len(b.values)} {b.unit})"),
        ("shared tasks", str(comparison.shared)),
        ("verdict", comparison.verdict_text),
    ]
    m = comparison.mcnemar
    if m is not None:
        rows += [
            ("tasks passed by both / A only / B only / neither",
             f"{m.both} / {m.only_a} / {m.only_b} / {m.neither}"),
            ("McNemar exact p-value", _f(m.p_value, 4)),
        ]
    if w is not None:
        rows.append(("Welch (all values pooled, descriptive)", "not a verdict unless both "
                     "sides are one submission of the same task"))
        rows += [
            ("mean A", _f(w.mean_a)),
            ("mean B", _f(w.mean_b)),
            ("difference (A − B)", _f(w.difference)),
            ("Welch t", _f(w.t, 3)),
            ("Welch df", _f(w.df, 1)),
            ("p-value", _f(w.p_value, 4)),
            ("Welch significant (p < 0.05)", "yes" if w.significant else "no"),
            ("Cohen's d", _f(w.cohens_d, 3)),
            ("effect size", w.effect or "—"),
        ]
    if comparison.welch_note:
        rows.append(("note", comparison.welch_note))
    p = comparison.paired
    if p is not None:
        rows += [
            ("paired tasks", str(p.n)),
            ("mean paired difference", _f(p.mean_difference)),
            ("paired t", _f(p.t, 3)),
            ("paired df", str(p.df)),
            ("paired p-value", _f(p.p_value, 4)),
            ("paired 95% CI", f"[{_f(p.low, 3)}, {_f(p.high, 3)}]"),
            ("paired significant", "yes" if p.significant else "no"),
        ]
    if comparison.paired_note:
        rows.append(("paired note", comparison.paired_note))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name.ljust(width)}  {value}" for name, value in rows) + "\n"
