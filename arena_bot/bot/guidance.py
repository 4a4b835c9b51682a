"""What a maintainer should check for each flag the comment shows: by the flag's ``code``,
then its ``kind``, then a generic text (a newer scorer's flag still gets guidance)."""

from __future__ import annotations

#: Per flag code (``OutlierFlag.code`` in leaderboard.json).
BY_CODE: dict[str, str] = {
    "extremely_efficient_tokens": (
        "open a run's transcript and recount its tokens; a partial transcript or a cached "
        "prompt counted as zero explains most of these"
    ),
    "extremely_fast": (
        "compare the transcript's first and last timestamps with the reported time; an "
        "agent that copied a known fix finishes in seconds"
    ),
    "minimal_tool_usage": (
        "read the transcript: one tool call that writes the whole patch means the answer was "
        "prepared outside the recorded run"
    ),
    "token_totals": (
        "the run's prompt + completion tokens must add up to its total (cached tokens are "
        "part of the prompt); ask the contributor for the tool's own usage report"
    ),
    "cost_vs_price_table": (
        "check the model named in submission.yaml is the one billed, and whether the "
        "contributor used a discount or a different price table"
    ),
    "identical_patch": (
        "diff this patch against the other submission named; the same work submitted twice "
        "under different tools or models should be merged or rejected"
    ),
}

#: Per flag kind, for codes not listed above.
BY_KIND: dict[str, str] = {
    "seed": "compare the run's figures with its transcript (seed 002's heuristics)",
    "robust": (
        "compare the figure with the task's other submissions; check the transcript "
        "recomputes it (median/MAD outlier)"
    ),
    "consistency": "the submitted numbers contradict each other: ask for the raw usage report",
    "duplicate": "diff the patch against the other submissions of the task",
}

GENERIC = "read the flag's reason and the run's transcript before merging"

#: For integrity flags of the evaluation (a patch reaching into the test machinery).
INTEGRITY = (
    "read these lines of the patch: code that imports, patches or replaces the test runner "
    "can make failing tests pass; reject the submission if it does"
)


def outlier_check(code: str, kind: str) -> str:
    """What a maintainer should check for an outlier flag (never empty)."""
    if code in BY_CODE:
        return BY_CODE[code]
    if code.startswith("robust_"):
        metric = code.removeprefix("robust_").replace("_", " ")
        return f"compare its {metric} with the task's other submissions and the transcript"
    return BY_KIND.get(kind, GENERIC)
