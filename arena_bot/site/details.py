"""Per-feature test results and coop merge analysis for task pages, from stored results.

``leaderboard.json`` counts the features each run passed but not which ones, and holds no
merge analysis; the stored EvaluationResults do. Task pages show them when the results
folder is there. Of several stored results of one submission the newest is shown.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from arena_bot.models.evaluation import EvaluationResult, FeatureResult, RunResult
from arena_bot.site.views import EvaluationDetail, FeatureCell, MergeCell

#: Best to worst, so a feature's cell shows its worst run.
_ORDER = ("passed", "failed", "no_tests", "timeout", "apply_failed", "rejected", "error",
          "tampered")


def evaluation_details(results: Mapping[str, EvaluationResult]) -> dict[str, EvaluationDetail]:
    """Entry key -> its per-feature / merge detail (``results``: the newest stored result
    per entry key)."""
    return {key: detail_of(result.runs) for key, result in results.items() if result.runs}


def detail_of(runs: list[RunResult]) -> EvaluationDetail:
    """Features passed per feature over the runs (the merged code's for coop runs) and the
    merge analysis of the worst-conflicting run."""
    by_feature: dict[int, list[FeatureResult]] = defaultdict(list)
    for run in runs:
        for feature in run.tested_features:
            by_feature[feature.feature].append(feature)
    features = tuple(
        FeatureCell(
            feature=number,
            passed=sum(1 for f in results if f.passed),
            runs=len(results),
            status=max((f.status for f in results), key=_rank),
        )
        for number, results in sorted(by_feature.items())
    )
    merges = [run.merge for run in runs if run.merge is not None]
    if not merges:
        return EvaluationDetail(features=features, merge=None)
    worst = max(merges, key=lambda m: (m.conflict_score, m.status != "clean"))
    return EvaluationDetail(features=features, merge=MergeCell(
        status=worst.status,
        strategy=worst.strategy,
        conflict_score=worst.conflict_score,
        severity=worst.severity,
        sections=worst.conflict_details.conflict_sections,
        lines=worst.conflict_details.conflict_lines,
        both_passed=sum(1 for m in merges if m.both_passed),
        runs=len(merges),
    ))


def _rank(status: str) -> int:
    return _ORDER.index(status) if status in _ORDER else len(_ORDER)
