"""Seed 002's weights: categories, efficiency parts, task categories, difficulty."""

from __future__ import annotations

from types import MappingProxyType
from typing import Literal

#: Seed 002, ``calculate_overall_score``: the default category weights.
DEFAULT_WEIGHTS = MappingProxyType(
    {"efficiency": 0.35, "speed": 0.25, "cost": 0.20, "correctness": 0.20}
)

#: Seed 002, ``calculate_efficiency_score``: token / tool-call / iteration parts.
EFFICIENCY_PARTS = MappingProxyType({"token": 0.5, "tool_call": 0.3, "iteration": 0.2})

#: Seed 002, ``TASK_CATEGORY_WEIGHTS``.
TASK_CATEGORY_WEIGHTS = MappingProxyType(
    {
        "frontend_development": MappingProxyType(
            {"efficiency": 0.30, "speed": 0.25, "cost": 0.15, "correctness": 0.30}
        ),
        "backend_development": MappingProxyType(
            {"efficiency": 0.35, "speed": 0.30, "cost": 0.20, "correctness": 0.15}
        ),
        "data_analysis": MappingProxyType(
            {"efficiency": 0.40, "speed": 0.20, "cost": 0.25, "correctness": 0.15}
        ),
        "debugging": MappingProxyType(
            {"efficiency": 0.25, "speed": 0.35, "cost": 0.15, "correctness": 0.25}
        ),
        "refactoring": MappingProxyType(
            {"efficiency": 0.45, "speed": 0.20, "cost": 0.20, "correctness": 0.15}
        ),
    }
)

#: Seed 002, ``apply_difficulty_adjustment``.
DIFFICULTY_MULTIPLIERS = MappingProxyType(
    {"beginner": 1.0, "intermediate": 1.1, "advanced": 1.2}
)

CATEGORY_ORDER: tuple[str, ...] = ("efficiency", "speed", "cost", "correctness")

WeightsMode = Literal["category", "default"]


def weights_for(category: str, *, mode: WeightsMode) -> dict[str, float]:
    """The four category weights for a task: seed 002's per-category table, or its defaults.

    Categories missing from the table fall back to the defaults (seed 002 has no rule for
    them; every category the task format accepts is in the table today).
    """
    if mode == "category" and category in TASK_CATEGORY_WEIGHTS:
        return dict(TASK_CATEGORY_WEIGHTS[category])
    return dict(DEFAULT_WEIGHTS)


def difficulty_multiplier(difficulty: str) -> float:
    """Seed 002's multiplier; unknown difficulties are not adjusted (seed: ``.get(d, 1.0)``)."""
    return DIFFICULTY_MULTIPLIERS.get(difficulty, 1.0)
