"""Scoring and statistics (seeds 002 and 004).

* :mod:`.weights` — seed 002's weight tables;
* :mod:`.components` — the component score formulas (vectorised);
* :mod:`.grouped` — per-task order statistics, ranks and percentiles by sorting;
* :mod:`.core` — the whole rescoring over columns of numbers (baselines → scores → ranks,
  percentiles, intervals, outlier evidence);
* :mod:`.methods`, :mod:`.judge`, :mod:`.correctness` — success criteria (seed 004);
* :mod:`.stats` — multi-run statistics, comparisons, pass@k;
* :mod:`.outliers` — duplicate patches, flag wording (the price table is
  :mod:`arena_bot.core.prices`);
* :mod:`.leaderboard` — typed inputs → the Leaderboard model;
* :mod:`.results`, :mod:`.export`, :mod:`.compare`, :mod:`.calibration` — the commands' logic.

Nothing here imports Docker, git or GitHub.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions, SubmissionInput
    from arena_bot.scoring.leaderboard import build_leaderboard

__all__ = ["ScoringInputs", "ScoringOptions", "SubmissionInput", "build_leaderboard"]


def __getattr__(name: str) -> Any:
    """Load the scoring engine (numpy, scipy) only when it is asked for: importing one light
    module of this package must not import them, and a PR's validation must start fast."""
    if name == "build_leaderboard":
        from arena_bot.scoring.leaderboard import build_leaderboard

        return build_leaderboard
    if name in ("ScoringInputs", "ScoringOptions", "SubmissionInput"):
        from arena_bot.scoring import inputs

        return getattr(inputs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
