"""Seed 002's weights as the configuration gives them (``arena.yaml``, see
:mod:`arena_bot.core.config`).

The numbers themselves live in the configuration model, once; this module only looks them up.
"""

from __future__ import annotations

from typing import Literal

from arena_bot.core.config import DEFAULT_CONFIG, ArenaConfig

CATEGORY_ORDER: tuple[str, ...] = ("efficiency", "speed", "cost", "correctness")

WeightsMode = Literal["category", "default"]


def weights_for(
    category: str, *, mode: WeightsMode, config: ArenaConfig = DEFAULT_CONFIG
) -> dict[str, float]:
    """The four category weights for a task: seed 002's per-category table, or its defaults.

    Categories missing from the table fall back to the defaults (seed 002 has no rule for
    them; every category the task format accepts is in the table by default).
    """
    scoring = config.scoring
    if mode == "category" and category in scoring.category_weights:
        return scoring.category_weights[category].as_dict()
    return scoring.default_weights.as_dict()


def difficulty_multiplier(difficulty: str, config: ArenaConfig = DEFAULT_CONFIG) -> float:
    """Seed 002's multiplier; unknown difficulties are not adjusted (seed: ``.get(d, 1.0)``)."""
    return config.difficulty_multiplier(difficulty)


def efficiency_parts(config: ArenaConfig = DEFAULT_CONFIG) -> dict[str, float]:
    """Seed 002, ``calculate_efficiency_score``: token / tool-call / iteration parts."""
    return config.scoring.efficiency_parts.as_dict()
