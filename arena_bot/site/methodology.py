"""The methodology's numbers as Markdown, from the configuration a board was computed with.

The numbers (weights, multipliers, thresholds, limits) and the policy live in ``arena.yaml``;
rendered from :class:`~arena_bot.core.config.ArenaConfig` with a worked example from the
board's own entries, they cannot drift. ``arena score`` writes the result as
``methodology.md``; ``arena config show --format methodology`` prints it. Deterministic
(sorted tables, fixed rounding): ``arena score`` stays byte-identical across runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from arena_bot.core.config import ArenaConfig

#: Entries shown in the worked example (one task's board; enough to show the order).
EXAMPLE_ENTRIES = 8


def render_methodology(
    config: ArenaConfig, entries: Iterable[Mapping[str, Any]] = ()
) -> str:
    """Markdown for the configuration-dependent part of the methodology page; the first task
    of ``entries`` (leaderboard.json's) with two scored entries is the worked example."""
    sections = [
        "# Scoring configuration\n\n"
        "Generated from the effective `arena.yaml` (defaults where it says nothing); "
        "every number below is the one the board was computed with.\n",
        _policy_section(config),
        _example_section(config, _example_entries(entries)),
        _weights_section(config),
        _difficulty_section(config),
        _baseline_section(config),
        _flags_section(config),
        _limits_section(config),
    ]
    return "\n".join(sections)


def _fmt(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e15 else str(value)


def _policy_section(config: ArenaConfig) -> str:
    if config.scoring.policy == "solved":
        body = (
            "Policy: **`solved`** (the default) — scores are earned for solved work.\n\n"
            "A run's overall score within its task is seed 002's composite (Σ category "
            "weight × category score) **times the share of the work it solved**: the share of "
            "its features whose tests pass or, for a task judged without tests, its "
            "correctness / 100. A run that solves nothing scores 0 whatever it cost; a run "
            "that solves everything scores exactly seed 002's composite; a cooperative run "
            "that solves one feature of two earns half. The component scores (efficiency, "
            "speed, cost, correctness) are shown unscaled. The share solved is the "
            "**resolve rate** shown beside every composite.\n"
        )
    else:
        body = (
            "Policy: **`seed002`** — the overall score is seed 002's composite exactly "
            "(Σ category weight × category score), whether or not the tests pass. The "
            "resolve rate is still shown beside it.\n"
        )
    ranking = (
        "Entries are ranked within a task on the unadjusted overall score (every entry of a "
        "task has the same difficulty multiplier, so the capped, adjusted score would only "
        "merge distinct scores at 100). The difficulty-adjusted score is used across tasks. "
        "The tool + model board is the mean of its task scores, with the tasks covered and "
        f"the resolve rate; entries whose {_fmt(config.scoring.confidence * 100)}% "
        "intervals overlap are marked as a statistical tie.\n"
    )
    return f"## Scoring policy\n\n{body}\n{ranking}"


def _example_entries(entries: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The scored entries of the first task (in board order) that has at least two."""
    by_task: dict[str, list[Mapping[str, Any]]] = {}
    for entry in entries:
        if entry.get("status") == "scored" and entry.get("scores"):
            by_task.setdefault(str(entry["task_id"]), []).append(entry)
    for task_id in sorted(by_task):
        if len(by_task[task_id]) >= 2:
            return by_task[task_id][:EXAMPLE_ENTRIES]
    return []


def _example_section(config: ArenaConfig, example: list[Mapping[str, Any]]) -> str:
    if not example:
        return "## Worked example\n\nNo task has two scored entries yet.\n"
    task = example[0]["task_id"]
    rows = [
        "| rank | tool / model | composite | resolve rate | overall (task) | "
        "overall (adjusted) |",
        "| ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for entry in example:
        scores = entry["scores"]
        rank = entry.get("rank")
        rows.append(
            f"| {rank if rank is not None else '—'} | {entry['label']} | "
            f"{scores['composite']:.1f} | {scores['resolve_rate'] * 100:.0f}% | "
            f"{scores['overall_unadjusted']:.1f} | {scores['overall']:.1f} |"
        )
    how = (
        "overall (task) = composite × resolve rate"
        if config.scoring.policy == "solved"
        else "overall (task) = composite"
    )
    return (
        f"## Worked example\n\nTask `{task}` on this board ({how}; adjusted = overall × "
        "the difficulty multiplier, capped at 100):\n\n" + "\n".join(rows) + "\n"
    )


def _weights_section(config: ArenaConfig) -> str:
    scoring = config.scoring
    rows = [
        "| category | efficiency | speed | cost | correctness |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    tables = ({k: v.as_dict() for k, v in sorted(scoring.category_weights.items())}
              if scoring.weights == "category" else {})
    tables["(any other)" if tables else "(all tasks)"] = scoring.default_weights.as_dict()
    for name, weights in tables.items():
        rows.append(
            f"| {name} | {_fmt(weights['efficiency'])} | {_fmt(weights['speed'])} | "
            f"{_fmt(weights['cost'])} | {_fmt(weights['correctness'])} |"
        )
    parts = scoring.efficiency_parts
    return (
        f"## Category weights\n\nWeights: `{scoring.weights}`.\n\n" + "\n".join(rows) + "\n\n"
        f"Efficiency = {_fmt(parts.token)} × token score + {_fmt(parts.tool_call)} × "
        f"tool-call score + {_fmt(parts.iteration)} × iteration score.\n"
    )


def _difficulty_section(config: ArenaConfig) -> str:
    rows = ["| difficulty | multiplier |", "| --- | ---: |"]
    for name, value in sorted(config.scoring.difficulty_multipliers.items()):
        rows.append(f"| {name} | {_fmt(value)} |")
    return "## Difficulty multipliers\n\n" + "\n".join(rows) + "\n"


def _baseline_section(config: ArenaConfig) -> str:
    scoring = config.scoring
    source = (
        "the runs that solved the task (how efficient solutions are), so cheap failures "
        "do not set the bar"
        if scoring.policy == "solved"
        else "every evaluated submission of the task"
    )
    return (
        "## Baselines and statistics\n\n"
        f"A task's dynamic baseline is computed from {source} once there are at least "
        f"**{scoring.min_submissions}** of them; below that, the task's default baseline "
        f"is used. Intervals are at the **{_fmt(scoring.confidence * 100)}%** confidence "
        f"level; pass@k is reported for k = {', '.join(str(k) for k in scoring.pass_k)}.\n"
    )


def _flags_section(config: ArenaConfig) -> str:
    o = config.outliers
    low, high = o.cost_per_1k_tokens
    return (
        "## Outlier and plausibility thresholds\n\n"
        f"- extremely efficient: fewer tokens than {_fmt(o.token_fraction * 100)}% of the "
        "task median\n"
        f"- extremely fast: under {_fmt(o.fast_seconds)} s\n"
        f"- suspicious: efficiency and speed both above {_fmt(o.suspicious_high)}\n"
        f"- suspiciously low: fewer than {o.min_plausible_tokens} tokens\n"
        f"- robust outlier: |robust z| above {_fmt(o.robust_z_threshold)} (median / MAD of "
        "log values)\n"
        f"- cost: more than {_fmt(o.cost_tolerance)}× away from the price table's\n"
        f"- throughput: above {_fmt(o.max_tokens_per_second)} tokens per second\n"
        f"- dollars per 1,000 tokens outside {_fmt(low)} … {_fmt(high)}\n"
    )


def _limits_section(config: ArenaConfig) -> str:
    judge = config.judge
    prices = f"`{config.prices}`" if config.prices else "the shipped table"
    return (
        "## Limits, judge and prices\n\n"
        f"- patch size: at most {config.limits.patch_bytes} bytes and "
        f"{config.limits.patch_lines} lines\n"
        f"- LLM judge model: {json.dumps(judge.model) if judge.model else 'not set'} "
        f"(endpoint from `{judge.url_env}`, key from `{judge.api_key_env}`)\n"
        f"- price table: {prices}\n"
    )


def methodology_from_board(
    board: Mapping[str, Any], entries: Iterable[Mapping[str, Any]] = ()
) -> str:
    """The page for a written board (its JSON without entries): the configuration it
    recorded in ``options.configuration``, not arena.yaml, and its own entries."""
    recorded = board.get("options", {}).get("configuration") or {}
    return render_methodology(ArenaConfig.model_validate(recorded, strict=False), entries)
