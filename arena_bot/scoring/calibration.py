"""Judge calibration (seed 004 §7): the judge against a reference set with known scores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from arena_bot.core.errors import JudgeError
from arena_bot.scoring.judge import Judge
from arena_bot.scoring.stats import pearson

Rating = Literal["Excellent", "Good", "Fair", "Poor"]
#: A sample passes when the judge is within this many points (0..100) of the reference.
DEFAULT_TOLERANCE = 15.0


@dataclass(frozen=True, kw_only=True)
class CalibrationSample:
    id: str
    kind: Literal["factual", "empty", "irrelevant", "explanation", "partial", "wrong"]
    rubric: str
    response: str
    expected: float  # 0..100


_FRANCE = "Question: What is the capital of France? Expected answer: Paris."
_COLOURS = "Question: Name the three primary colours of light. Expected: red, green, blue."
_DICT = (
    "Explain why a Python dict lookup is O(1) on average. A full answer mentions hashing the "
    "key to find a slot, and that collisions make the worst case O(n)."
)
#: The shipped reference set: every kind seed 004 names, across the whole score range.
REFERENCE_SET: tuple[CalibrationSample, ...] = (
    CalibrationSample(
        id="factual-correct", kind="factual",
        rubric=_FRANCE,
        response="The capital of France is Paris.", expected=100,
    ),
    CalibrationSample(
        id="factual-wrong", kind="wrong",
        rubric=_FRANCE,
        response="The capital of France is Lyon.", expected=0,
    ),
    CalibrationSample(
        id="arithmetic-correct", kind="factual",
        rubric="Question: What is 17 × 23? Expected answer: 391.",
        response="17 × 23 = 391.", expected=100,
    ),
    CalibrationSample(
        id="empty", kind="empty",
        rubric=_COLOURS,
        response="", expected=0,
    ),
    CalibrationSample(
        id="irrelevant", kind="irrelevant",
        rubric=_COLOURS,
        response="I enjoy long walks on the beach and a good cup of coffee.", expected=0,
    ),
    CalibrationSample(
        id="partial", kind="partial",
        rubric=_COLOURS,
        response="Red and green.", expected=50,
    ),
    CalibrationSample(
        id="explanation-good", kind="explanation",
        rubric=_DICT,
        response=(
            "A dict hashes the key to compute a slot index in an array, so finding the "
            "entry takes constant time on average. When many keys collide, probing can "
            "degrade a lookup to O(n) in the worst case."
        ),
        expected=100,
    ),
    CalibrationSample(
        id="explanation-thin", kind="explanation",
        rubric=_DICT,
        response="Because dicts use hashing.", expected=40,
    ),
    CalibrationSample(
        id="explanation-wrong", kind="wrong",
        rubric=_DICT,
        response="Dicts keep keys sorted and use binary search, so lookups are O(log n).",
        expected=10,
    ),
)


@dataclass(frozen=True, kw_only=True)
class SampleResult:
    sample: CalibrationSample
    judged: float | None  # 0..100; None when the judge failed on this sample
    error: float | None  # judged − expected
    passed: bool
    problem: str | None = None


@dataclass(frozen=True, kw_only=True)
class CalibrationSummary:
    total: int
    judged: int
    passed: int
    pass_rate: float  # percent of all samples
    mean_absolute_error: float | None
    max_error: float | None
    bias: float | None  # mean(judged − expected): positive = overscoring
    correlation: float | None
    rating: Rating


@dataclass(frozen=True, kw_only=True)
class CalibrationReport:
    judge_model: str
    tolerance: float
    samples: tuple[SampleResult, ...]
    summary: CalibrationSummary


def rate(*, pass_rate: float, mae: float | None, correlation: float | None) -> Rating:
    """Seed 004 §7's table: every threshold of a row must hold (pass rate and MAE in %).

    An undefined MAE or correlation (no sample judged, or constant scores) fails the
    thresholds that need it, so the rating can only be Poor.
    """
    rows: tuple[tuple[Rating, float, float, float], ...] = (
        ("Excellent", 90.0, 10.0, 0.9),
        ("Good", 75.0, 15.0, 0.8),
        ("Fair", 50.0, 25.0, 0.6),
    )
    for rating, min_pass, max_mae, min_corr in rows:
        if (
            pass_rate >= min_pass
            and mae is not None and mae <= max_mae
            and correlation is not None and correlation >= min_corr
        ):
            return rating
    return "Poor"


def summarize_samples(results: Sequence[SampleResult]) -> CalibrationSummary:
    judged = [r for r in results if r.judged is not None and r.error is not None]
    errors = [r.error for r in judged if r.error is not None]
    passed = sum(1 for r in results if r.passed)
    total = len(results)
    pass_rate = 100.0 * passed / total if total else 0.0
    mae = sum(abs(e) for e in errors) / len(errors) if errors else None
    correlation = pearson(
        [r.sample.expected for r in judged], [r.judged for r in judged if r.judged is not None]
    )
    return CalibrationSummary(
        total=total,
        judged=len(judged),
        passed=passed,
        pass_rate=pass_rate,
        mean_absolute_error=mae,
        max_error=max((abs(e) for e in errors), default=None),
        bias=sum(errors) / len(errors) if errors else None,
        correlation=correlation,
        rating=rate(pass_rate=pass_rate, mae=mae, correlation=correlation),
    )


def calibrate(
    judge: Judge,
    *,
    samples: Sequence[CalibrationSample] = REFERENCE_SET,
    tolerance: float = DEFAULT_TOLERANCE,
) -> CalibrationReport:
    """Judge every sample with the LLM judge; a failed sample counts as not passed."""
    results = []
    for sample in samples:
        try:
            verdict = judge.llm(rubric=sample.rubric, text=sample.response)
        except JudgeError as exc:
            results.append(
                SampleResult(sample=sample, judged=None, error=None, passed=False,
                             problem=exc.message)
            )
            continue
        judged = 100.0 * verdict.score
        error = judged - sample.expected
        results.append(
            SampleResult(sample=sample, judged=judged, error=error,
                         passed=abs(error) <= tolerance)
        )
    return CalibrationReport(
        judge_model=judge.model,
        tolerance=tolerance,
        samples=tuple(results),
        summary=summarize_samples(results),
    )


def render_report(report: CalibrationReport) -> str:
    """Plain-text calibration report."""
    lines = [f"Judge calibration: {report.judge_model} (tolerance ±{report.tolerance:g})", ""]
    lines.append(f"{'sample':<22} {'kind':<12} {'expected':>8} {'judged':>7} {'error':>7}  ok")
    for r in report.samples:
        judged = "—" if r.judged is None else f"{r.judged:.1f}"
        error = "—" if r.error is None else f"{r.error:+.1f}"
        mark = "yes" if r.passed else "no"
        if r.problem:
            mark += f" ({r.problem})"
        lines.append(
            f"{r.sample.id:<22} {r.sample.kind:<12} {r.sample.expected:>8.1f} "
            f"{judged:>7} {error:>7}  {mark}"
        )
    s = report.summary

    def f(value: float | None, fmt: str) -> str:
        return "—" if value is None else format(value, fmt)

    lines += [
        "",
        f"pass rate   {s.pass_rate:.1f}% ({s.passed}/{s.total} within ±{report.tolerance:g})",
        f"MAE         {f(s.mean_absolute_error, '.1f')}",
        f"max error   {f(s.max_error, '.1f')}",
        f"bias        {f(s.bias, '+.1f')} (positive = overscoring)",
        f"Pearson r   {f(s.correlation, '.3f')}",
        f"rating      {s.rating}",
    ]
    return "\n".join(lines) + "\n"
