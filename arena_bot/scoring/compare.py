"""``arena compare A B``: is the difference between two tools / models / submissions real?

A selector matches, case-insensitively, a submission key (``task/submission``), a label
(``tool / model``), a tool name or a model name; a side is every scored entry it matches.
A side of exactly one entry is compared on its runs' overall scores (multi-run spread);
a side of several entries on one overall score per entry. When both sides ran 2+ common
tasks, a paired t-test on the per-task differences (each side's mean per task) is added.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from arena_bot.errors import InputError
from arena_bot.models.leaderboard import Entry, Leaderboard
from arena_bot.scoring.stats import PairedResult, WelchResult, paired_test, welch_test


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


def select(leaderboard: Leaderboard, selector: str) -> list[Entry]:
    """Scored entries matching ``selector`` (see the module docstring)."""
    wanted = selector.strip().lower()
    scored = [e for e in leaderboard.entries if e.status == "scored" and e.scores is not None]
    for field in ("key", "label", "tool", "model"):
        found = [e for e in scored if getattr(e, field).lower() == wanted]
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


def _per_task(entries: Sequence[Entry]) -> dict[str, float]:
    by_task: dict[str, list[float]] = defaultdict(list)
    for e in entries:
        if e.scores is not None:
            by_task[e.task_id].append(e.scores.overall)
    return {task: sum(v) / len(v) for task, v in by_task.items()}


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
    per_a, per_b = _per_task(entries_a), _per_task(entries_b)
    common = tuple(sorted(set(per_a) & set(per_b)))
    paired = paired_note = None
    if len(common) >= 2:
        paired = paired_test([per_a[t] - per_b[t] for t in common])
        paired_note = paired.note
    else:
        paired_note = f"paired test needs 2+ tasks run by both sides ({len(common)} in common)"
    return Comparison(
        a=side_a, b=side_b, welch=welch, welch_note=welch_note, paired=paired,
        paired_tasks=common, paired_note=paired_note,
    )


def _f(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def render_table(comparison: Comparison) -> str:
    """The comparison as a plain-text table."""
    a, b, w = comparison.a, comparison.b, comparison.welch
    rows: list[tuple[str, str]] = [
        ("A", f"{a.selector} ({len(a.values)} {a.unit})"),
        ("B", f"{b.selector} ({len(b.values)} {b.unit})"),
    ]
    if w is not None:
        rows += [
            ("mean A", _f(w.mean_a)),
            ("mean B", _f(w.mean_b)),
            ("difference (A − B)", _f(w.difference)),
            ("Welch t", _f(w.t, 3)),
            ("Welch df", _f(w.df, 1)),
            ("p-value", _f(w.p_value, 4)),
            ("significant (p < 0.05)", "yes" if w.significant else "no"),
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
