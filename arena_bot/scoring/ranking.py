"""The overall order across tasks: a Bradley-Terry model over per-task pairwise outcomes.

Seed 002 orders tools / models by their mean overall score over whatever tasks each one
attempted, so an entry with one easy task can outrank one that solved many hard ones.
Here, on every task, each pair of labels that both attempted it meets once: the one with
the higher mean overall score there wins (equal scores: half a win each). A Bradley-Terry
model (strength ``p``, P(i beats j) = p_i / (p_i + p_j)) is fitted to all those meetings by
Hunter's MM algorithm, so a label is only ever measured against the others on tasks they
shared. A small prior (:data:`PRIOR` of a win each way between every pair) keeps the
strengths finite when a label won or lost every meeting, and ties labels that never met
to the middle.

A label's **BT score** is its expected win rate (0–100) against every other label on the
board. Its interval is a bootstrap over tasks (:data:`BOOTSTRAP` resamples of the task set
with replacement, refitted each time; the 2.5th and 97.5th percentiles): the uncertainty
comes from which tasks happen to be on the board, not from runs. The resampling is seeded
from the board's input digest, so the same board gives the same figures.

Seed 002's order (mean overall score) stays available as the ``seed002`` order.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena_bot.models.leaderboard import Leaderboard

#: Pseudo-wins each way between every pair of labels (keeps strengths finite).
PRIOR = 0.1
#: Bootstrap resamples of the task set.
BOOTSTRAP = 200
#: MM iterations at most, and the relative change that counts as converged.
MAX_ITERATIONS = 500
TOLERANCE = 1e-7


@dataclass(frozen=True)
class Strength:
    label: str
    #: Expected win rate (0–100) against the other labels, from the fitted model.
    score: float
    low: float
    high: float
    rank: int
    #: Tasks this label attempted (with a scored entry) and the board's task count.
    tasks: int
    of_tasks: int
    #: Pairwise meetings (task, opponent) behind the fit.
    meetings: int


def per_task_means(board: Leaderboard) -> dict[str, dict[str, float]]:
    """task -> label -> mean overall score of the label's scored entries on that task.

    An entry held for review counts in no order until a maintainer clears it (as in the
    scorer's aggregates)."""
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for e in board.entries:
        if e.status == "scored" and e.scores is not None and e.review_status != "under-review":
            sums[e.task_id][e.label].append(e.scores.overall)
    return {task: {label: sum(v) / len(v) for label, v in by.items()}
            for task, by in sums.items()}


def win_matrices(means: dict[str, dict[str, float]],
                 labels: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Per task, wins[i, j] = 1 when label i beat label j there (0.5 each for a tie)."""
    index = {label: i for i, label in enumerate(labels)}
    tasks = sorted(means)
    wins = np.zeros((len(tasks), len(labels), len(labels)))
    for t, task in enumerate(tasks):
        items = [(index[label], score) for label, score in means[task].items()]
        idx = np.array([i for i, _ in items], dtype=int)
        scores = np.array([s for _, s in items])
        beat = (scores[:, None] > scores[None, :]) + 0.5 * (scores[:, None] == scores[None, :])
        np.fill_diagonal(beat, 0.0)
        wins[t][np.ix_(idx, idx)] = beat
    return tasks, wins


def fit(wins: np.ndarray, prior: float = PRIOR) -> np.ndarray:
    """Bradley-Terry strengths (geometric mean 1) from a label × label win matrix, or from
    a stack of them (``… × n × n``: every matrix fitted at once)."""
    n = wins.shape[-1]
    w = wins + prior * (1 - np.eye(n))
    games = w + np.swapaxes(w, -1, -2)
    total = w.sum(axis=-1)
    p = np.ones(wins.shape[:-1])
    for _ in range(MAX_ITERATIONS):
        denom = (games / (p[..., :, None] + p[..., None, :])).sum(axis=-1)
        new = total / denom
        new /= np.exp(np.log(new).mean(axis=-1, keepdims=True))
        done = np.max(np.abs(new - p) / p) < TOLERANCE
        p = new
        if done:
            break
    return p


def win_rates(p: np.ndarray) -> np.ndarray:
    """Expected win rate (0–100) of each label against each other label (last axis)."""
    n = p.shape[-1]
    if n < 2:
        return np.full(p.shape, 50.0)
    chance = p[..., :, None] / (p[..., :, None] + p[..., None, :])
    chance = chance * (1 - np.eye(n))
    rates: np.ndarray = 100.0 * chance.sum(axis=-1) / (n - 1)
    return rates


def bradley_terry(board: Leaderboard, *, resamples: int = BOOTSTRAP) -> list[Strength]:
    """Every scored label's BT score, bootstrap interval and rank (best first)."""
    means = per_task_means(board)
    labels = sorted({label for by in means.values() for label in by})
    if not labels:
        return []
    tasks, wins = win_matrices(means, labels)
    scores = win_rates(fit(wins.sum(axis=0)))
    seed = int(hashlib.sha256(board.input_digest.encode()).hexdigest()[:8], 16)
    low = high = scores
    if resamples:
        draws = np.random.default_rng(seed).integers(0, len(tasks), (resamples, len(tasks)))
        counts = np.stack([np.bincount(d, minlength=len(tasks)) for d in draws])
        samples = win_rates(fit(np.tensordot(counts, wins, axes=1)))
        low, high = (np.percentile(samples, q, axis=0) for q in (2.5, 97.5))
    attempted = {label: sum(1 for by in means.values() if label in by) for label in labels}
    meetings = (wins + wins.transpose(0, 2, 1)).sum(axis=(0, 2))
    order = sorted(range(len(labels)), key=lambda i: (-scores[i], labels[i]))
    of_tasks = max(len(board.tasks), len(tasks))
    return [
        Strength(label=labels[i], score=round(float(scores[i]), 2),
                 low=round(float(low[i]), 2), high=round(float(high[i]), 2), rank=rank,
                 tasks=attempted[labels[i]], of_tasks=of_tasks,
                 meetings=round(float(meetings[i])))
        for rank, i in enumerate(order, start=1)
    ]
