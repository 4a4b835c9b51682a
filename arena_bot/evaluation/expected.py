"""``arena dataset check``: run each feature's gold patch and the bare base commit in Docker
and record the test ids a passing submission must reproduce (SWE-bench's FAIL_TO_PASS and
PASS_TO_PASS), with the problems a maintainer must fix.

The gold patch runs ``repeats`` times, each in a fresh sandbox; an id whose outcome differs
between those runs is flaky: reported and left out, never silently required.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from arena_bot.core.files import write_atomically
from arena_bot.evaluation.harness import run_feature
from arena_bot.intake.patches import protected_paths_for
from arena_bot.models.evaluation import FeatureResult
from arena_bot.models.task import ExpectedTests
from arena_bot.sandbox.base import SandboxEngine, SandboxLimits
from arena_bot.tasks.dataset import TaskFolder

#: Lines of test output shown with a problem: enough to see the first assertion.
_OUTPUT_TAIL = 1500


@dataclass
class FeatureCheck:
    """What ``arena dataset check`` learned about one feature."""

    feature: int
    expected: ExpectedTests
    problems: list[str] = field(default_factory=list)
    #: Said but not a problem: ids left out as flaky (the rest is recorded).
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_feature(
    task: TaskFolder, *, feature_id: int, engine: SandboxEngine, image: str, repeats: int = 2
) -> FeatureCheck:
    """Run gold ``repeats`` times and the bare base commit once; derive the expected ids."""
    gold_patch = task.feature(feature_id).gold_patch.read_text(encoding="utf-8")
    limits = SandboxLimits.from_task(task.spec.limits)
    protected = protected_paths_for(task)

    def run(*, patch: str, tests_only: bool, with_tests: bool = True) -> FeatureResult:
        # Recorded ids must not judge the runs that record them: raw outcomes only.
        with engine.open(image, limits=limits) as sandbox:
            return run_feature(sandbox, task=task, feature_id=feature_id, patch_text=patch,
                               protected=protected, tests_only=tests_only,
                               judge_expected=False, with_tests=with_tests)

    golds = [run(patch=gold_patch, tests_only=False) for _ in range(max(1, repeats))]
    # Ids are classified from clean runs only (no canaries in either base run). A module of
    # the tests patch that cannot even be collected on the base commit (it imports what the
    # feature adds) says nothing about its tests, and pytest then runs no test at all
    # ("Interrupted: 1 error during collection"): the ids the bare run lacks are classified
    # from the base commit's own tests (no tests patch), where a test that passed keeps
    # passing (before, only the broken module's: the other files' tests that pass on the
    # base were recorded as fail-to-pass).
    bare = run(patch="", tests_only=True)
    pristine: FeatureResult | None = None  # the base commit's own tests, nothing applied

    def untouched() -> FeatureResult:
        nonlocal pristine
        if pristine is None:
            pristine = run(patch="", tests_only=True, with_tests=False)
        return pristine

    always_failing = _always_failing(golds, untouched)
    problems: list[str] = []
    for number, gold in enumerate(golds, start=1):
        if gold.status != "passed" and not _fails_only(gold, always_failing):
            problems.append(_describe(f"gold patch run {number} did not pass", gold))
    if bare.status == "passed":
        problems.append(_describe("the feature's tests already pass on the bare base commit "
                                  "(they do not test the feature)", bare))
    outcomes = [{case.name: case.outcome for case in gold.tests} for gold in golds]
    names = sorted(set().union(*outcomes))
    flaky = [n for n in names if len({o.get(n, "missing") for o in outcomes}) > 1]
    stable_pass = [n for n in names if n not in flaky and outcomes[0].get(n) == "passed"]
    bare_outcomes = {case.name: case.outcome for case in bare.tests}
    broken = {case.name for case in bare.tests if case.outcome == "error" and "::" not in case.name}
    if broken:
        for case in untouched().tests:
            bare_outcomes.setdefault(case.name, case.outcome)
    expected = ExpectedTests(
        fail_to_pass=[n for n in stable_pass if bare_outcomes.get(n) != "passed"],
        pass_to_pass=[n for n in stable_pass if bare_outcomes.get(n) == "passed"],
        flaky=flaky,
        always_failing=always_failing,
    )
    notes = []
    if always_failing:
        notes.append(f"{len(always_failing)} test id(s) fail on the untouched base commit and in "
                     "every gold run (they cannot pass here: a download the sandbox's missing "
                     "network stops, a tool the image lacks), left out; their failure counts "
                     "against no run: " + ", ".join(always_failing[:10]))
    if flaky:
        # Per id: an id that differs between runs (a parametrize id made from uuid1(), a
        # test that fails now and then) is left out and said; the rest is recorded.
        notes.append(f"{len(flaky)} flaky test id(s) left out of the expected ids: "
                     + ", ".join(flaky[:10]))
    if not expected.fail_to_pass and not problems:
        problems.append("no test goes from failing to passing with the gold patch")
    return FeatureCheck(feature=feature_id, expected=expected, problems=problems, notes=notes)


_FAILING = ("failed", "error")
#: The verdict's reason when failing tests are all that is wrong (verdict._outcome_problem).
_ONLY_FAILURES = re.compile(r"^\d+ test\(s\) failed and \d+ errored$")


def _always_failing(golds: list[FeatureResult],
                    untouched: Callable[[], FeatureResult]) -> list[str]:
    """Ids failing in every gold run that fail on the untouched base commit as well (run
    only when a gold run has failures): they fail whatever anyone changes."""
    failing = [{case.name for case in gold.tests if case.outcome in _FAILING} for gold in golds]
    common = set.intersection(*failing) if failing else set()
    if not common:
        return []
    before = {case.name for case in untouched().tests if case.outcome in _FAILING}
    return sorted(common & before)


def _fails_only(gold: FeatureResult, always_failing: list[str]) -> bool:
    """Whether the gold run's only fault is failures of ``always_failing`` ids."""
    failing = {case.name for case in gold.tests if case.outcome in _FAILING}
    return (gold.status == "failed" and bool(failing) and failing <= set(always_failing)
            and _ONLY_FAILURES.match(gold.reason or "") is not None)


def write_expected(task: TaskFolder, check: FeatureCheck) -> None:
    """Record ``check.expected`` in ``feature<N>/expected_tests.json`` (stable, sorted)."""
    path = task.feature(check.feature).expected_tests
    document = check.expected.model_dump(mode="json")
    # Whole or not at all: a check interrupted while recording leaves the old file.
    write_atomically(path, (json.dumps(document, indent=2, sort_keys=True) + "\n").encode())


def _describe(what: str, result: FeatureResult) -> str:
    failing = [case for case in result.tests if case.outcome in ("failed", "error")]
    lines = [f"{what}: {result.status} ({result.reason or 'no reason'})"]
    for case in failing[:10]:
        first = (case.message or "").strip().splitlines()[:1]
        lines.append(f"    {case.name}: {case.outcome}" + (f" — {first[0]}" if first else ""))
    collection = [line for line in result.output.splitlines()
                  if line.startswith(("E   ", "ERROR ")) or "ERROR collecting" in line]
    if collection:
        # pytest's own lines for a collection failure (the cause, not "collection failure").
        lines.append("    pytest said:\n" + "\n".join(f"      {line}"
                                                        for line in collection[:30]))
    elif not failing and result.output:
        lines.append("    output (end):\n" + result.output[-_OUTPUT_TAIL:])
    return "\n".join(lines)
