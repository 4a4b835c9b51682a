"""The task model: sources, criteria, baselines and feature numbering."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from arena_bot.models.task import Task

VALID: dict[str, Any] = {
    "id": "textkit",
    "title": "Text kit",
    "description": "Small text utilities.",
    "category": "backend_development",
    "difficulty": "beginner",
    "language": "python",
    "source": {"bundle": "repo.bundle", "commit": "a" * 40},
    "tests": {"command": "python3 -m pytest --junitxml=$ARENA_JUNIT tests"},
    "features": [{"id": 1, "title": "Slugify"}, {"id": 2, "title": "Truncate"}],
    "success_criteria": [
        {"type": "tests_pass", "weight": 3},
        {"type": "regex", "pattern": "^1\\.", "target": "command:python3 -m textkit --version"},
    ],
}


def make(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(VALID)
    data.update(changes)
    return data


def test_valid_task_gets_safe_defaults() -> None:
    task = Task.model_validate(VALID)
    assert task.tests.timeout == 600
    assert task.limits.pids == 256
    assert "conftest.py" in task.protected_paths
    assert task.baseline.median_cost == 0.05
    assert task.success_criteria[1].type == "regex"


def test_source_needs_exactly_one_origin() -> None:
    with pytest.raises(ValidationError, match="exactly one of"):
        Task.model_validate(make(source={"commit": "a" * 40}))
    with pytest.raises(ValidationError, match="exactly one of"):
        Task.model_validate(
            make(source={"bundle": "r.bundle", "url": "https://x/y.git", "commit": "a" * 40})
        )


def test_features_are_numbered_from_one() -> None:
    with pytest.raises(ValidationError, match=r"1\.\.N"):
        Task.model_validate(make(features=[{"id": 2, "title": "x"}]))


def test_unknown_criterion_type_is_rejected() -> None:
    with pytest.raises(ValidationError, match="tag"):
        Task.model_validate(make(success_criteria=[{"type": "always_true"}]))


def test_baseline_must_be_ordered() -> None:
    with pytest.raises(ValidationError, match="min_cost <= median_cost <= max_cost"):
        Task.model_validate(make(baseline={"min_cost": 1.0}))


def test_criterion_target_syntax() -> None:
    bad = [{"type": "regex", "pattern": "x", "target": "stdout"}]
    with pytest.raises(ValidationError, match="target"):
        Task.model_validate(make(success_criteria=bad))
