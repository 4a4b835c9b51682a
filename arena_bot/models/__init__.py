"""Typed records that cross a file or JSON boundary.

* :mod:`.task` — ``dataset/<task>/task.yaml``
* :mod:`.submission` — ``submissions/<task>/<submission>/submission.yaml``
* :mod:`.evaluation` — the EvaluationResult JSON written by ``arena evaluate``

Changing a field here changes a public format: bump ``schema_version``, regenerate the
JSON Schemas (``arena schema --write``) and update ``site/docs/formats.md``.
"""

from __future__ import annotations

from arena_bot.models.evaluation import (
    ApplyStatus,
    ConflictDetails,
    CriterionObservation,
    EvaluationResult,
    FeatureResult,
    FeatureStatus,
    MergeResult,
    RunResult,
    TestCaseResult,
)
from arena_bot.models.submission import Contributor, Run, Submission, Tokens, Tool
from arena_bot.models.task import (
    CATEGORIES,
    DIFFICULTIES,
    Baseline,
    Criterion,
    FeatureSpec,
    Limits,
    Source,
    Task,
    TestSpec,
)

__all__ = [
    "CATEGORIES",
    "DIFFICULTIES",
    "ApplyStatus",
    "Baseline",
    "ConflictDetails",
    "Contributor",
    "Criterion",
    "CriterionObservation",
    "EvaluationResult",
    "FeatureResult",
    "FeatureSpec",
    "FeatureStatus",
    "Limits",
    "MergeResult",
    "Run",
    "RunResult",
    "Source",
    "Submission",
    "Task",
    "TestCaseResult",
    "TestSpec",
    "Tokens",
    "Tool",
]
