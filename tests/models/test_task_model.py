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


@pytest.mark.parametrize("command", [
    'python3 -m pytest --junitxml="$ARENA_JUNIT" tests/a; '
    'python3 -m pytest --junitxml="$ARENA_JUNIT" tests/b',
    "pytest --junit-xml ${ARENA_JUNIT} a || pytest --junitxml=$ARENA_JUNIT b",
    'export PYTEST_ADDOPTS="--junitxml=$ARENA_JUNIT"; pytest tests/a; pytest tests/b',
    'for d in a b; do python3 -m pytest --junitxml="$ARENA_JUNIT" "tests/$d"; done',
])
def test_a_command_writing_the_report_from_two_runs_is_refused(command: str) -> None:
    """Two pytest runs writing $ARENA_JUNIT: the harness takes a second report-writing run
    for one forged by the code under test, so an honest gold patch was scored tampered;
    the task is refused when loaded instead, saying what to write."""
    with pytest.raises(ValidationError, match=r"writes \$ARENA_JUNIT from 2 pytest runs"):
        Task.model_validate(make(tests={"command": command}))


@pytest.mark.parametrize("command", [
    'cd pkg && PYTHONPATH=src:$PYTHONPATH python3 -m pytest --junitxml="$ARENA_JUNIT" tests/',
    'python3 -m pytest --junitxml="$ARENA_JUNIT" tests/a && python3 -m pytest -q tests/b',
    "python -m pytest tests/test_format.py --junitxml=$ARENA_JUNIT || cat $ARENA_JUNIT",
])
def test_one_report_writing_run_is_accepted(command: str) -> None:
    assert Task.model_validate(make(tests={"command": command})).tests.command == command
