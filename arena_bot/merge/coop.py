"""Merge analysis of one run of a ``coop`` submission: git merge, then both features' tests.

The evaluation engine passes its Docker test runner in as ``run_tests``; this module never
touches Docker.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena_bot.merge.conflicts import conflict_score, severity
from arena_bot.merge.gitmerge import GitMerge, merge_patches
from arena_bot.models.evaluation import FeatureResult, MergeResult

#: The merged diff stored in a MergeResult is cut after this many characters (the tests
#: always get the whole diff).
MAX_STORED_DIFF = 200_000
TRUNCATION_NOTE = "\n[... merged diff truncated by arena: {omitted} more characters ...]\n"


def evaluate_coop_run(
    *,
    base_repo: Path,
    base_commit: str,
    patch1: str,
    patch2: str,
    feature_ids: tuple[int, int],
    run_tests: Callable[[str, int], FeatureResult] | None,
) -> MergeResult:
    """Merge agent 1's patch (feature i) with agent 2's (feature j) and test the result.

    Both features' tests run on the merged code, each through ``run_tests`` (one fresh
    container each; ``None``: no tests). When the merged code cannot be built — a patch does
    not apply, or the union retry still leaves conflicts — no tests run and both features
    get a failing FeatureResult that says why, so scoring counts the run as failed.
    """
    merged = merge_patches(
        base_repo=base_repo, base_commit=base_commit, patch1=patch1, patch2=patch2
    )
    if not merged.testable:
        features = _untested(merged, feature_ids)
    elif run_tests is not None:
        features = [run_tests(merged.merged_diff, feature_id) for feature_id in feature_ids]
    else:
        features = []
    score = conflict_score(merged.details)
    return MergeResult(
        status=merged.status,
        strategy=merged.strategy,
        conflict_score=score,
        severity=severity(score),
        conflict_details=merged.details,
        apply_status={merged.agent1.agent: merged.agent1.status,
                      merged.agent2.agent: merged.agent2.status},
        diff=cap_diff(merged.merged_diff),
        features=features,
        both_passed=len(features) == 2 and all(feature.passed for feature in features),
        error=merged.failure_reason(),
    )


def _untested(merged: GitMerge, feature_ids: tuple[int, int]) -> list[FeatureResult]:
    """Failing results for both features when there is no merged code to test."""
    reason = merged.failure_reason() or "the merged code could not be built"
    return [
        FeatureResult(
            feature=feature_id,
            status="apply_failed" if merged.status == "apply_failed" else "failed",
            passed=False,
            # This feature's agent's patch; the reason says what kept the tests from running.
            apply_status=agent.status,
            reason=f"tests not run: {reason}",
        )
        for agent, feature_id in zip((merged.agent1, merged.agent2), feature_ids, strict=True)
    ]


def cap_diff(diff: str, *, limit: int = MAX_STORED_DIFF) -> str:
    """``diff`` cut to ``limit`` characters, with a note saying how much was left out."""
    if len(diff) <= limit:
        return diff
    return diff[:limit] + TRUNCATION_NOTE.format(omitted=len(diff) - limit)
