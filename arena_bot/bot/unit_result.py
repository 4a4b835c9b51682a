"""The unit result a matrix job uploads per planned unit (models only: its JSON Schema is
generated without importing the evaluation engine)."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field

from arena_bot.models.evaluation import (
    CriterionObservation,
    FeatureResult,
    ImageRef,
    MergeResult,
)


class FeatureOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str
    result: FeatureResult


class MergeOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str
    result: MergeResult


class RunObservations(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str
    observations: list[CriterionObservation] = Field(default_factory=list)


class UnitResult(BaseModel):
    """One unit's outcome, as a matrix job uploads it (``{"unit": id, ...}``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unit: str
    submission: str  # task/submission key
    #: The content address of the whole submission's evaluation (all units must agree).
    content: str
    image_digest: str
    image: ImageRef | None = None
    features: list[FeatureOutcome] = Field(default_factory=list)
    merges: list[MergeOutcome] = Field(default_factory=list)
    observations: list[RunObservations] = Field(default_factory=list)
    error: str | None = None
    evaluated_at: dt.datetime
    duration: float = 0.0
