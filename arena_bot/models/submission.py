"""The submission format: ``submissions/<task_id>/<submission_id>/submission.yaml``.

The submission id is the folder name. Patch and trajectory files named by the runs live in
the same folder.

Settings (CooperBench's vocabulary):

* ``single`` — one agent, one feature, one patch per run;
* ``solo`` — one agent implements several features in one patch per run;
* ``coop`` — two agents each implement one feature (``features: [i, j]``, ``i < j``); each
  run has two patches, agent 1's for feature i then agent 2's for feature j, and the bot
  analyses how they merge.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field, PositiveInt, StringConstraints, model_validator

from arena_bot.models.common import (
    Identifier,
    LocalFile,
    Name,
    RepoPath,
    StrictModel,
    Text,
)

Setting = Literal["single", "solo", "coop"]
SETTINGS: tuple[str, ...] = Setting.__args__  # type: ignore[attr-defined]
Count = Annotated[int, Field(ge=0, le=10**12)]


class Tool(StrictModel):
    """The AI coding tool that produced the run (Claude Code, Cursor, Aider, ...)."""

    name: Name
    version: Name


class Contributor(StrictModel):
    """Who ran it. ``github`` is a GitHub login, shown as a link on the site."""

    name: Name
    github: Annotated[
        str, StringConstraints(pattern=r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
    ] | None = None


class Tokens(StrictModel):
    """Token usage of one run. ``cached`` is the part of ``prompt`` served from a cache."""

    total: Count
    prompt: Count | None = None
    completion: Count | None = None
    cached: Count | None = None

    @model_validator(mode="after")
    def _adds_up(self) -> Tokens:
        if (
            self.prompt is not None
            and self.completion is not None
            and self.prompt + self.completion != self.total
        ):
            raise ValueError(
                f"total ({self.total}) must equal prompt + completion "
                f"({self.prompt} + {self.completion} = {self.prompt + self.completion})"
            )
        if self.cached is not None and self.prompt is not None and self.cached > self.prompt:
            raise ValueError(f"cached ({self.cached}) cannot exceed prompt ({self.prompt})")
        if self.cached is not None and self.cached > self.total:
            raise ValueError(f"cached ({self.cached}) cannot exceed total ({self.total})")
        return self


TranscriptFormat = Literal[
    "aider", "aider-history", "atif", "claude-code", "codex", "gemini-cli", "generic",
    "openhands", "swe-agent",
]


class Transcript(StrictModel):
    """The agent's own session log, stored in the folder; validation recomputes metrics from it."""

    file: LocalFile
    format: TranscriptFormat


class Run(StrictModel):
    """One attempt of the tool on the task, with its metrics and its patch(es)."""

    id: Identifier
    tokens: Tokens
    tool_calls: Count
    iterations: Annotated[int, Field(ge=1, le=100_000)] = 1
    #: Wall-clock seconds the tool worked; 0 means "not recorded" (scored 50 by seed 002).
    execution_time: Annotated[float, Field(ge=0, le=7 * 24 * 3600, allow_inf_nan=False)]
    #: US dollars; 0 means "not recorded" (scored 50 by seed 002).
    estimated_cost: Annotated[float, Field(ge=0, le=10_000, allow_inf_nan=False)]
    success: bool = True
    files_created: Annotated[list[RepoPath], Field(max_length=1000)] = Field(default_factory=list)
    #: Patch files in the submission folder: one for single/solo, two for coop.
    patches: Annotated[list[LocalFile], Field(min_length=1, max_length=2)]
    final_answer: Annotated[str, StringConstraints(max_length=20_000)] | None = None
    trajectory: LocalFile | None = None
    #: When given, the run's figures are checked against the transcript, and its edits and
    #: usage decide the entry's metrics level (see the methodology).
    transcript: Transcript | None = None


class Submission(StrictModel):
    """A tool + model's runs on one task."""

    schema_version: Literal[1] = 1
    task: Identifier
    tool: Tool
    #: Model names; coop submissions may name one model per agent.
    models: Annotated[list[Name], Field(min_length=1, max_length=2)]
    contributor: Contributor
    date: dt.date
    setting: Setting
    features: Annotated[list[PositiveInt], Field(min_length=1, max_length=50)]
    runs: Annotated[list[Run], Field(min_length=1, max_length=50)]
    notes: Text | None = None
    #: Price-table overrides are not accepted here: cost plausibility is checked against the
    #: project's own table. ``cost_source`` says where the contributor's figure came from.
    cost_source: Literal["provider_invoice", "tool_report", "estimate"] = "tool_report"

    @model_validator(mode="after")
    def _setting_shape(self) -> Submission:
        features = self.features
        if len(set(features)) != len(features):
            raise ValueError(f"features must not repeat, got {features}")
        expected_patches = 2 if self.setting == "coop" else 1
        if self.setting == "single" and len(features) != 1:
            raise ValueError("setting 'single' takes exactly one feature")
        if self.setting == "solo" and len(features) < 2:
            raise ValueError("setting 'solo' takes two or more features (use 'single' for one)")
        if self.setting == "coop":
            if len(features) != 2 or features[0] >= features[1]:
                raise ValueError("setting 'coop' takes exactly two features [i, j] with i < j")
        elif len(self.models) != 1:
            raise ValueError(f"setting {self.setting!r} takes exactly one model")
        run_ids = [run.id for run in self.runs]
        if len(set(run_ids)) != len(run_ids):
            raise ValueError(f"run ids must be unique, got {run_ids}")
        for run in self.runs:
            if len(run.patches) != expected_patches:
                raise ValueError(
                    f"run {run.id!r}: setting {self.setting!r} needs {expected_patches} "
                    f"patch file(s), got {len(run.patches)}"
                )
        return self

    @property
    def model_label(self) -> str:
        """Models as one display string (``a + b`` for two agents)."""
        return " + ".join(dict.fromkeys(self.models))
