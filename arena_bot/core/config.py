"""``arena.yaml``: the one configuration file of a leaderboard repository.

Every weight, threshold and limit a maintainer may tune is a field here, with seed 002's
value (or this project's, where it departs and says why) as the default. The file is
optional; a repository without it gets exactly the defaults. It is read once at the command
line boundary, type-checked like the other formats (unknown keys are errors with file, line
and a "did you mean"), and passed down: modules take their numbers from this model, never
from constants of their own.

    # arena.yaml
    scoring:
      policy: solved          # or seed002
      min_submissions: 5
    outliers:
      robust_z_threshold: 3.5
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from arena_bot.core.errors import InputError
from arena_bot.core.prices import PriceTable, load_price_table
from arena_bot.core.yamlio import LoadedYaml, load_yaml, validate_model
from arena_bot.models.common import StrictModel

CONFIG_FILE = "arena.yaml"

Weight = Annotated[float, Field(ge=0, le=1)]


class _Settings(StrictModel):
    """Base of every section: a number must be finite (YAML's ``.inf`` and ``.nan`` are
    floats, which the unbounded settings took and the board then wrote as ``null``)."""

    model_config = ConfigDict(**StrictModel.model_config, allow_inf_nan=False)


class CategoryWeights(_Settings):
    """The four category weights of the composite; they must add up to 1."""

    efficiency: Weight
    speed: Weight
    cost: Weight
    correctness: Weight

    @model_validator(mode="after")
    def _sum_to_one(self) -> CategoryWeights:
        total = self.efficiency + self.speed + self.cost + self.correctness
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"the four weights must add up to 1 (they add up to {total:g})")
        return self

    def as_dict(self) -> dict[str, float]:
        return {
            "efficiency": self.efficiency, "speed": self.speed, "cost": self.cost,
            "correctness": self.correctness,
        }


class EfficiencyParts(_Settings):
    """How the efficiency score splits between tokens, tool calls and iterations."""

    token: Weight = 0.5
    tool_call: Weight = 0.3
    iteration: Weight = 0.2

    @model_validator(mode="after")
    def _sum_to_one(self) -> EfficiencyParts:
        total = self.token + self.tool_call + self.iteration
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"the three parts must add up to 1 (they add up to {total:g})")
        return self

    def as_dict(self) -> dict[str, float]:
        return {"token": self.token, "tool_call": self.tool_call, "iteration": self.iteration}


def _seed_category_weights() -> dict[str, CategoryWeights]:
    table = {
        "frontend_development": (0.30, 0.25, 0.15, 0.30),
        "backend_development": (0.35, 0.30, 0.20, 0.15),
        "data_analysis": (0.40, 0.20, 0.25, 0.15),
        "debugging": (0.25, 0.35, 0.15, 0.25),
        "refactoring": (0.45, 0.20, 0.20, 0.15),
    }
    return {
        name: CategoryWeights(efficiency=e, speed=s, cost=c, correctness=k)
        for name, (e, s, c, k) in table.items()
    }


#: Seed 002, ``apply_difficulty_adjustment``.
_SEED_MULTIPLIERS = {"beginner": 1.0, "intermediate": 1.1, "advanced": 1.2}


class ScoringConfig(_Settings):
    """How scores are made (seed 002, except the policy: see the methodology page)."""

    #: ``solved``: composite × the share of the work solved, baselines from the runs that
    #: solved the task. ``seed002``: the specification's composite, unchanged.
    policy: Literal["solved", "seed002"] = "solved"
    #: ``category``: each task's category weights; ``default``: ``default_weights`` for all.
    weights: Literal["category", "default"] = "category"
    default_weights: CategoryWeights = CategoryWeights(
        efficiency=0.35, speed=0.25, cost=0.20, correctness=0.20
    )
    category_weights: dict[str, CategoryWeights] = Field(
        default_factory=_seed_category_weights
    )
    efficiency_parts: EfficiencyParts = EfficiencyParts()
    difficulty_multipliers: dict[str, Annotated[float, Field(gt=0, le=10)]] = Field(
        default_factory=lambda: dict(_SEED_MULTIPLIERS)
    )
    #: Fewer scored submissions than this: the task's default baseline is used.
    min_submissions: Annotated[int, Field(ge=1, le=1000)] = 5
    #: Confidence level of every interval.
    confidence: Annotated[float, Field(gt=0.5, lt=1)] = 0.95
    #: pass@k is reported for these k.
    pass_k: list[Annotated[int, Field(ge=1, le=100)]] = Field(
        default_factory=lambda: [1, 5, 10]
    )

    @model_validator(mode="before")
    @classmethod
    def _merge_tables(cls, data: Any) -> Any:
        """A table given in arena.yaml changes the entries it names; the others keep their
        defaults (giving ``debugging:`` alone must not drop the other categories)."""
        if not isinstance(data, dict):
            return data
        merged = dict(data)
        tables: dict[str, dict[str, Any]] = {
            "category_weights": {
                name: weights.as_dict() for name, weights in _seed_category_weights().items()
            },
            "difficulty_multipliers": dict(_SEED_MULTIPLIERS),
        }
        for name, defaults in tables.items():
            given = data.get(name)
            if isinstance(given, dict):
                merged[name] = {**defaults, **given}
        return merged


class OutlierConfig(_Settings):
    """When an entry is flagged for review."""

    #: Robust z-score (median / MAD of log values) beyond which a metric is flagged.
    robust_z_threshold: Annotated[float, Field(gt=0, le=100)] = 3.5
    #: A reported cost more than this factor away from the price table's is flagged.
    cost_tolerance: Annotated[float, Field(ge=1, le=1000)] = 3.0
    #: Seed 002: fewer tokens than this share of the task median is "extremely efficient".
    token_fraction: Annotated[float, Field(gt=0, lt=1)] = 0.1
    #: Seed 002: an execution time under this many seconds is "extremely fast".
    fast_seconds: Annotated[float, Field(ge=0, le=3600)] = 5.0
    #: Seed 002: efficiency and speed both above this are "suspicious".
    suspicious_high: Annotated[float, Field(ge=0, le=100)] = 95.0
    #: Seed 002: fewer total tokens than this is "suspiciously low".
    min_plausible_tokens: Annotated[int, Field(ge=0)] = 10
    #: Validation warns above this throughput (tokens per second of wall-clock time):
    #: 50k tokens/s is ~100 calls of 500k tokens in 1000 s, even with large cached prompts.
    max_tokens_per_second: Annotated[float, Field(gt=0)] = 50_000
    #: Validation warns when dollars per 1,000 tokens fall outside this band (the cheapest
    #: cached input costs ~$0.00001/1k; the dearest output ~$0.15/1k).
    cost_per_1k_tokens: Annotated[
        list[Annotated[float, Field(ge=0)]], Field(min_length=2, max_length=2)
    ] = Field(default_factory=lambda: [0.000_002, 0.5])

    @model_validator(mode="after")
    def _band_in_order(self) -> OutlierConfig:
        low, high = self.cost_per_1k_tokens
        if not low < high:
            raise ValueError("cost_per_1k_tokens is [low, high] with low < high")
        return self


class LimitsConfig(_Settings):
    """Sizes a submission may not exceed (validation refuses bigger ones)."""

    patch_bytes: Annotated[int, Field(ge=1024, le=64 * 1024 * 1024)] = 2 * 1024 * 1024
    patch_lines: Annotated[int, Field(ge=10, le=1_000_000)] = 20_000
    #: A trajectory file, and everything a submission folder holds, at most.
    trajectory_bytes: Annotated[int, Field(ge=1024, le=1024 * 1024 * 1024)] = 20 * 1024 * 1024
    folder_bytes: Annotated[int, Field(ge=1024, le=1024 * 1024 * 1024)] = 25 * 1024 * 1024


class VerificationConfig(_Settings):
    """How closely reported figures must match the ones recomputed from a run's transcript."""

    #: Relative difference allowed (rounding, a tool's own counter including a final
    #: summary call, ...).
    tolerance: Annotated[float, Field(ge=0, lt=1)] = 0.05
    #: Extra seconds of slack on wall-clock time (start-up before the first event).
    time_slack_seconds: Annotated[float, Field(ge=0, le=3600)] = 30.0
    #: Tool calls and iterations may differ by this many (a final summary call or not).
    count_slack: Annotated[float, Field(ge=0, le=100)] = 1.0
    #: A reported cost this far (relative) from the transcript's priced figure is a warning:
    #: providers round, discount and bill by tier, so cost is checked loosely, never blocks.
    cost_tolerance: Annotated[float, Field(ge=0, le=100)] = 0.25


class ReviewConfig(_Settings):
    """What a review flag does to an entry (see the methodology page)."""

    #: ``true``: a flagged entry is shown "under review" and takes no rank until a review
    #: file clears it. ``false``: seed 002's behaviour (flags shown, the entry still ranked).
    hold: bool = True
    #: Robust z-score outliers (unusual among the task's peers, e.g. a cheap model) are review
    #: flags too (``true``), or only shown as outliers (``false``: a cheap or slow honest run
    #: is not held; seed 002's rule, consistency and duplicate flags still hold).
    robust: bool = False


class JudgeConfig(_Settings):
    """The LLM judge of ``llm_judge`` / ``code_judge`` criteria (an OpenAI-style endpoint)."""

    #: The model asked; ``ARENA_JUDGE_MODEL`` overrides it.
    model: str | None = None
    #: Environment variables holding the endpoint and the key (never the values here).
    url_env: str = "ARENA_JUDGE_URL"
    api_key_env: str = "ARENA_JUDGE_API_KEY"


class ArenaConfig(_Settings):
    """Everything a leaderboard repository can tune; every field has a default."""

    schema_version: Literal[1] = 1
    scoring: ScoringConfig = ScoringConfig()
    outliers: OutlierConfig = OutlierConfig()
    limits: LimitsConfig = LimitsConfig()
    verification: VerificationConfig = VerificationConfig()
    review: ReviewConfig = ReviewConfig()
    judge: JudgeConfig = JudgeConfig()
    #: A price table file (relative to the repository root) instead of the shipped one.
    prices: str | None = None
    #: The file ``prices`` names, found inside the repository by :func:`load_config`.
    _prices_file: Path | None = PrivateAttr(default=None)

    def digest(self) -> str:
        """SHA-256 of the effective configuration (part of every cached value's key): its
        settings and the bytes of the price table file ``prices`` names (validation checks
        a transcript's cost against it: a changed table must not keep an old verdict)."""
        text = self.model_dump_json()
        if self._prices_file is not None:
            try:
                text += f"\nprices {hashlib.sha256(self._prices_file.read_bytes()).hexdigest()}"
            except OSError as exc:
                text += f"\nprices unreadable: {exc.strerror}"
        return hashlib.sha256(text.encode()).hexdigest()

    def price_table(self) -> PriceTable:
        """The price table ``prices`` names (the file :func:`load_config` found inside the
        repository), else the shipped one. Errors name the file and line."""
        if self.prices is None:
            return load_price_table()
        if self._prices_file is None:
            raise InputError(
                f"prices: {self.prices!r} was not looked up in a repository",
                hint="read the configuration with load_config(root)",
            )
        return load_price_table(self._prices_file)

    def weights_for(self, category: str) -> dict[str, float]:
        """The four category weights of a task of ``category``."""
        scoring = self.scoring
        if scoring.weights == "category" and category in scoring.category_weights:
            return scoring.category_weights[category].as_dict()
        return scoring.default_weights.as_dict()

    def difficulty_multiplier(self, difficulty: str) -> float:
        """Seed 002's multiplier; unknown difficulties are not adjusted."""
        return self.scoring.difficulty_multipliers.get(difficulty, 1.0)


DEFAULT_CONFIG = ArenaConfig()

#: What each setting means, by its last key (for `arena config show` and the site's
#: methodology figures). A setting missing here is shown without a meaning.
MEANINGS = {
    "schema_version": "version of this file's format",
    "policy": "solved: composite x share of the work solved (baselines from solvers); "
    "seed002: the specification's composite",
    "weights": "category: each task category's weights; default: default_weights for all",
    "efficiency": "weight of the efficiency score", "speed": "weight of the speed score",
    "cost": "weight of the cost score", "correctness": "weight of correctness",
    "token": "share of token efficiency in the efficiency score",
    "tool_call": "share of tool-call efficiency in the efficiency score",
    "iteration": "share of iteration efficiency in the efficiency score",
    "beginner": "difficulty multiplier", "intermediate": "difficulty multiplier",
    "advanced": "difficulty multiplier",
    "min_submissions": "scored (under 'solved': solving) submissions a task needs before its "
    "baseline is computed from them",
    "confidence": "level of every t interval",
    "pass_k": "k of the reported pass@k",
    "robust_z_threshold": "modified z-score (median / MAD of logs) above which a metric is "
    "flagged",
    "cost_tolerance": "factor between reported cost and the price table's that is flagged",
    "token_fraction": "tokens under this share of the task median are flagged (seed 002)",
    "fast_seconds": "runs faster than this many seconds are flagged (seed 002)",
    "suspicious_high": "efficiency and speed both above this are suspicious (seed 002)",
    "min_plausible_tokens": "fewer total tokens are implausible (seed 002)",
    "max_tokens_per_second": "validation warns above this throughput",
    "cost_per_1k_tokens": "validation warns when $ per 1,000 tokens falls outside this band",
    "patch_bytes": "largest patch file accepted", "patch_lines": "most patch lines accepted",
    "trajectory_bytes": "largest trajectory file accepted",
    "folder_bytes": "most bytes a submission folder may hold",
    "model": "LLM judge model", "url_env": "variable holding the judge's endpoint",
    "api_key_env": "variable holding the judge's key",
    "prices": "price table file (none: the shipped one)",
    "tolerance": "relative difference allowed between a reported figure and the transcript's",
    "time_slack_seconds": "extra seconds allowed on wall-clock time against the transcript",
    "count_slack": "tool calls / iterations may differ from the transcript's by this many",
    "hold": "a flagged entry takes no rank until a review file clears it (false: seed 002, "
    "flags shown, still ranked)",
    "robust": "robust z-score outliers are review flags too (false: shown as outliers only)",
}


@dataclass(frozen=True)
class LoadedConfig:
    """The effective configuration and the file it came from (``None``: defaults only)."""

    config: ArenaConfig
    path: Path | None
    source: LoadedYaml | None

    def origins(self) -> Iterator[tuple[str, Any, str]]:
        """``(dotted key, value, where it came from)`` for every setting."""
        data = self.config.model_dump(mode="json")
        given = self.source.data if self.source is not None else {}
        yield from _walk(data, given, (), self)

    def origin(self, loc: tuple[str, ...]) -> str:
        if self.source is None or self.path is None:
            return "default"
        line = self.source.lines.get(loc)
        return f"{self.path.name}:{line}" if line is not None else "default"


def _walk(
    value: Any, given: Any, loc: tuple[str, ...], loaded: LoadedConfig
) -> Iterator[tuple[str, Any, str]]:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            inner = given.get(key) if isinstance(given, dict) else None
            yield from _walk(item, inner, (*loc, key), loaded)
        return
    yield ".".join(loc), value, loaded.origin(loc)


def flat_settings(config: ArenaConfig) -> list[tuple[str, object]]:
    """Every setting as ``(dotted key, value)``, in the model's order."""
    return [(key, value) for key, value, _ in LoadedConfig(config, None, None).origins()]


def load_config(root: Path) -> LoadedConfig:
    """The configuration of the repository at ``root``: its ``arena.yaml``, or the defaults.

    A file with unknown keys, wrong types or out-of-range values, or a ``prices`` file that
    is not one of the repository's (absolute, ``..``, a link leading out, missing), raises
    InputError naming the file and line.
    """
    path = root / CONFIG_FILE
    if not path.exists():
        return LoadedConfig(config=DEFAULT_CONFIG, path=None, source=None)
    loaded = load_yaml(path)
    if loaded.data is None:  # an empty file: the defaults
        return LoadedConfig(config=DEFAULT_CONFIG, path=path, source=loaded)
    config = validate_model(ArenaConfig, loaded)
    if config.prices is not None:
        config._prices_file = _repository_file(root, config.prices, path=path,
                                               line=loaded.lines.get(("prices",)))
    return LoadedConfig(config=config, path=path, source=loaded)


def _repository_file(root: Path, name: str, *, path: Path, line: int | None) -> Path:
    """The file ``name`` (relative to ``root``) names, resolved, when it is one of the
    repository's; else InputError naming arena.yaml's line (a table read from anywhere
    showed a line of any file the process can read in its error)."""

    def refused(why: str) -> InputError:
        return InputError(
            f"prices: {name!r} {why}", path=path, line=line,
            hint="name a price table file of the repository relative to its root, e.g. "
            "prices.yaml (or remove 'prices' for the shipped table)",
        )

    parts = PurePosixPath(name).parts
    if (not name.strip() or name.startswith(("/", "~")) or "\\" in name or ".." in parts
            or "\0" in name):
        raise refused("must be a path relative to the repository root, without '..'")
    top = root.resolve()
    try:
        found = (top / name).resolve(strict=True)
    except (OSError, RuntimeError):
        raise refused("names no file of the repository (not found)") from None
    if not found.is_relative_to(top):
        raise refused("leads out of the repository (a symbolic link)")
    if not found.is_file():
        raise refused("is not a file")
    return found
