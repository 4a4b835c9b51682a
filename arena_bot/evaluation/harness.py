"""Running one feature's tests against one patch inside a sandbox.

The harness owns its own script (never the task's ``runner.sh``): it resets the repository to
the base commit, applies the submission's patch (``git apply``, else ``git apply --3way``),
then the feature's tests patch, runs the task's setup and test command with ``$ARENA_JUNIT``
pointing into a private folder, and reads the JUnit report back. The test command is run
directly (never piped), so its exit status survives.

Before anything runs, the patch is checked in pure Python against the task's protected paths
(its ``protected_paths``, every file a tests patch touches, ``conftest.py`` and friends):
a patch touching one is ``rejected``, which also covers a patch pre-creating a test file.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from pydantic import ValidationError

from arena_bot.dataset import TaskFolder
from arena_bot.errors import DatasetError
from arena_bot.evaluation.flags import review_flags
from arena_bot.evaluation.junit import MAX_JUNIT_BYTES, JUnitReport, parse_junit
from arena_bot.evaluation.verdict import Canaries, decide, without_canaries
from arena_bot.models.evaluation import ApplyStatus, FeatureResult, ReviewFlag
from arena_bot.models.task import ExpectedTests
from arena_bot.patches import (
    DATASET_PATCH_BYTES,
    DATASET_PATCH_LINES,
    ProtectedPaths,
    parse_patch,
    protected_paths_for,
)
from arena_bot.sandbox.base import ExecResult, Sandbox, SandboxLimits

HARNESS_DIR = "/workspace/.arena"
REPO_DIR = "/workspace/repo"
#: Git operations on a small repository take well under a second; this bounds a hostile one.
GIT_TIMEOUT = 120.0
#: Tests patches up to this size travel as a command argument (Linux caps one at 128 KiB).
_INLINE_PATCH_BYTES = 96 * 1024
#: Seconds added to the task's test timeout when git's work shares the test's exec.
_GIT_ALLOWANCE = 10

#: Environment of every test run: no user site (a planted ``usercustomize.py`` or ``.pth``
#: in ``~/.local`` never loads) and no bytecode left behind for a later run to trust.
LOCKED_DOWN_ENV = {"PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1"}

#: Exit statuses of ``harness.sh setup``: (submission apply status, tests patch applied).
_SETUP_STATUS: dict[int, tuple[ApplyStatus, bool]] = {
    10: ("clean", True),
    11: ("three_way", True),
    12: ("missing", True),
    20: ("clean", False),
    21: ("three_way", False),
    22: ("missing", False),
    30: ("failed", False),
}

HARNESS_SCRIPT = r"""#!/bin/sh
# Agentic Arena evaluation harness (owned by arena_bot.evaluation.harness; not the task's
# runner.sh). Usage:
#   harness.sh setup BASE_SHA RESULTS_DIR SUBMISSION_PATCH|- TESTS_PATCH|- [TARGET SNIPPET]
#   harness.sh tests TESTS_PATCH [TARGET SNIPPET]
#   harness.sh run NONCE BASE_SHA RESULTS_DIR SUBMISSION_PATCH|- TESTS_PATCH [TARGET SNIPPET]
#   harness.sh canary TARGET|- SNIPPET_TEXT
#   harness.sh prepare BASE_SHA RESULTS_DIR | apply PATCH
set -u
case "$1" in
  setup)
    # One call for reset + both patches: every `docker exec` costs a round trip.
    # `clean -fd`, not `-fdx`: ignored files are what the image build made (egg-info of an
    # editable install, compiled extensions); the sandbox is fresh, so none are stale.
    rm -f .git/index.lock
    { git reset --quiet --hard "$2" && git clean -fdq && mkdir -p "$3"; } || exit 40
    applied=12
    if [ "$4" != "-" ]; then
      if git apply --whitespace=nowarn "$4" 2>&1; then
        applied=10
      else
        echo "plain git apply failed; trying a 3-way merge"
        if git apply --3way --whitespace=nowarn "$4" 2>&1; then
          applied=11
        else
          git reset --quiet --hard HEAD
          exit 30
        fi
      fi
    fi
    # The tests patch must apply as written (no 3-way): anything else means the
    # submission changed the files the tests bring. "-": applied later with `tests`.
    if [ "$5" != "-" ]; then
      sh "$0" apply-tests "$5" || exit $((applied + 10))
      sh "$0" canary "${6:--}" "${7:--}" "${8:-0}" || exit $((applied + 10))
    fi
    exit $applied
    ;;
  tests)
    sh "$0" apply-tests "$2" || exit 1
    sh "$0" canary "${3:--}" "${4:--}" "${5:-0}" || exit 1
    ;;
  apply-tests)
    # "inline:<patch text>": the tests patch comes as an argument, never as a file the code
    # under test could read later to tell the canaries from the feature's tests.
    case "$2" in
      inline:*) printf '%s' "${2#inline:}" | git apply --whitespace=nowarn 2>&1 ;;
      *) git apply --whitespace=nowarn "$2" 2>&1 ;;
    esac
    ;;
  canary)
    # Append the canary tests (random names, one passing, one failing) to the feature's
    # test file. The snippet comes as an argument, never a file: no later process can read
    # the names anywhere but in the test file itself.
    [ "$2" = "-" ] && exit 0
    [ -f "$2" ] && [ ! -L "$2" ] || { echo "the canary target $2 is not a regular file"; exit 1; }
    # Placed before a random top-level test (not always last, where a forger would look);
    # appended when there is no python3 or no such spot.
    if command -v python3 >/dev/null 2>&1; then
      python3 -I -S -c '
import re, sys
path, snippet, spot = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path, encoding="utf-8") as handle:
    lines = handle.read().splitlines(keepends=True)
spots = [i for i, line in enumerate(lines) if re.match(r"(def test|class Test)", line)
         and (i == 0 or not lines[i - 1].startswith("@"))]
if spots:
    lines.insert(spots[spot % len(spots)], snippet.strip("\n") + "\n\n\n")
else:
    lines.append(snippet)
with open(path, "w", encoding="utf-8") as handle:
    handle.write("".join(lines))
' "$2" "$3" "${4:-0}" && exit 0
    fi
    printf '%s' "$3" >> "$2" || exit 1
    ;;
  run)
    # Fast path, one exec: setup, then the test command replaces this shell (its exit
    # status is the exec's). The status line is printed before any submitted code runs and
    # carries a nonce that code never sees, so it cannot be forged by later output.
    sh "$0" setup "$3" "$4" "$5" "$6" "${7:--}" "${8:--}" "${9:-0}"
    status=$?
    echo "arena-status $2 $status"
    case "$status" in 10|11|12) ;; *) exit 0 ;; esac
    exec sh -c "$ARENA_TEST_COMMAND"
    ;;
  prepare)
    # A stale index.lock (a killed git) would make every later git command fail.
    rm -f .git/index.lock
    git reset --quiet --hard "$2" && git clean -fdq || exit 2
    mkdir -p "$3" || exit 2
    ;;
  apply)
    [ -s "$2" ] || { echo "empty patch"; exit 4; }
    git apply --whitespace=nowarn "$2" 2>&1 && exit 0
    echo "plain git apply failed; trying a 3-way merge"
    git apply --3way --whitespace=nowarn "$2" 2>&1 && exit 3
    # Leave no half-merged state behind for anything that might still look at the tree.
    git reset --quiet --hard HEAD
    exit 4
    ;;
  *)
    echo "unknown harness step: $1"; exit 2
    ;;
esac
"""


_TEST_FILE = re.compile(r"^(test_.*|.*_test)\.py$")


@dataclass(frozen=True)
class CanaryPlan:
    """Where this run's canary tests go and what they are called."""

    canaries: Canaries
    target: str  # repository-relative test file the snippet is appended to
    snippet: str
    #: Stems of every Python test file of the tests patch (the feature's own tests).
    modules: frozenset[str] = frozenset()


def plan_canaries(tests_patch: str) -> CanaryPlan | None:
    """Two canary tests with fresh random names, appended to the first Python test file the
    feature's tests patch creates or changes (``None`` when it has none: no canaries)."""
    patch = parse_patch(tests_patch, max_bytes=DATASET_PATCH_BYTES, max_lines=DATASET_PATCH_LINES)
    targets = [
        f.new_path for f in patch.files
        if f.new_path is not None and _TEST_FILE.match(PurePosixPath(f.new_path).name)
    ]
    if not targets:
        return None
    # Names look like any other test: nothing marks them as the harness's.
    canaries = Canaries(must_pass=f"test_{secrets.token_hex(6)}",
                        must_fail=f"test_{secrets.token_hex(6)}")
    snippet = (
        f"\n\ndef {canaries.must_pass}():\n    assert {secrets.randbelow(1000) + 1}\n"
        f"\n\ndef {canaries.must_fail}():\n    assert {secrets.randbelow(1000) + 1} < 0\n"
    )
    return CanaryPlan(canaries=canaries, target=targets[0], snippet=snippet,
                      modules=frozenset(PurePosixPath(t).stem for t in targets))


def load_expected_tests(task: TaskFolder, feature_id: int) -> ExpectedTests | None:
    """The recorded expected test ids of a feature (``None`` until ``arena dataset check``
    has recorded them). A damaged file is the maintainer's to fix: a clear error."""
    path = task.feature(feature_id).expected_tests
    if not path.is_file():
        return None
    try:
        return ExpectedTests.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as exc:
        raise DatasetError(
            f"the expected test ids cannot be read ({str(exc).splitlines()[0]}); "
            "run `arena dataset check` to record them again", path=path,
        ) from None


def check_protected(patch_text: str, protected: ProtectedPaths) -> str | None:
    """Why ``patch_text`` must be rejected before running (protected paths), or ``None``."""
    patch = parse_patch(patch_text)
    if patch.problems:
        # Whatever `arena validate` refuses is never run either (a symlink, a path outside
        # the repository, a malformed hunk): one parser, one rule.
        problem = patch.problems[0]
        where = f" (line {problem.line})" if problem.line is not None else ""
        more = f" and {len(patch.problems) - 1} more problem(s)" if len(patch.problems) > 1 else ""
        return f"the patch is refused: {problem.message}{where}{more}"
    violations = protected.violations(patch)
    if not violations:
        return None
    shown = ", ".join(f"{v.path} ({v.rule})" for v in violations[:5])
    more = f" and {len(violations) - 5} more" if len(violations) > 5 else ""
    return f"the patch touches protected paths: {shown}{more}"


def run_feature(
    sandbox: Sandbox,
    *,
    task: TaskFolder,
    feature_id: int,
    patch_text: str,
    protected: ProtectedPaths | None = None,
    tests_only: bool = False,
    before_tests: Callable[[Sandbox], None] | None = None,
    judge_expected: bool = True,
) -> FeatureResult:
    """Run feature ``feature_id``'s tests against ``patch_text`` in a fresh ``sandbox``.

    ``judge_expected=False`` ignores the recorded expected ids (``arena dataset check``,
    which records them, reads raw outcomes).

    ``tests_only`` (dataset checks) runs the tests on the bare base commit: ``patch_text`` is
    ignored and the apply status is ``missing``. ``before_tests`` is called with the sandbox
    once the submission's patch is applied and before the tests patch is (criteria
    observations share the sandbox that way instead of needing their own).
    """
    started = time.monotonic()
    spec = task.spec
    protected = protected if protected is not None else protected_paths_for(task)
    if tests_only:
        patch_text = ""
    elif not patch_text.strip():
        return _result(feature_id, status="apply_failed", apply_status="missing",
                       reason="the submission's patch is empty", started=started)
    rejection = None if tests_only else check_protected(patch_text, protected)
    if rejection is not None:
        return _result(feature_id, status="rejected", apply_status="missing",
                       reason=rejection, started=started)
    flags = [] if tests_only else review_flags(parse_patch(patch_text), protected=protected)
    tests_patch = task.feature(feature_id).tests_patch.read_bytes()
    expected = load_expected_tests(task, feature_id) if judge_expected else None
    plan = plan_canaries(tests_patch.decode("utf-8", errors="replace"))
    canary_args = (["-", "-", "0"] if plan is None
                   else [plan.target, plan.snippet, str(secrets.randbelow(1_000_000))])
    tests_arg = f"{HARNESS_DIR}/tests.patch"
    if len(tests_patch) <= _INLINE_PATCH_BYTES and b"\0" not in tests_patch:
        with contextlib.suppress(UnicodeDecodeError):  # binary: stays a file
            tests_arg = "inline:" + tests_patch.decode("utf-8")
    results_dir = f"/tmp/arena-results-{secrets.token_hex(8)}"
    junit_path = f"{results_dir}/junit.xml"
    files = {
        "harness.sh": HARNESS_SCRIPT.encode(),
        "submission.patch": patch_text.encode("utf-8"),
    }
    if not tests_arg.startswith("inline:"):
        files["tests.patch"] = tests_patch
    sandbox.write_files(files, directory=HARNESS_DIR)
    outputs: list[str] = []
    split = before_tests is not None and not tests_only
    if not split and not spec.tests.setup:
        fast = _run_fast(sandbox, task=task, feature_id=feature_id, results_dir=results_dir,
                         tests_only=tests_only, started=started, canary_args=canary_args,
                         tests_arg=tests_arg,
                         plan=plan, expected=expected)
        return _with_flags(fast, flags)
    prepared = sandbox.exec(
        [
            "sh", f"{HARNESS_DIR}/harness.sh", "setup", spec.source.commit, results_dir,
            "-" if tests_only else f"{HARNESS_DIR}/submission.patch",
            "-" if split else tests_arg, *canary_args,
        ],
        timeout=GIT_TIMEOUT,
        workdir=REPO_DIR,
    )
    if prepared.output.strip():
        outputs.append(prepared.output.strip())
    if prepared.exit_code not in _SETUP_STATUS:
        return _result(feature_id, status="error", apply_status="missing", started=started,
                       reason="the harness could not reset the repository to the base commit "
                       f"(exit status {prepared.exit_code})",
                       output="\n".join(outputs))
    apply_status, tests_applied = _SETUP_STATUS[prepared.exit_code]  # type: ignore[index]
    if split and before_tests is not None and apply_status != "failed":
        before_tests(sandbox)
        applied_tests = sandbox.exec(
            ["sh", f"{HARNESS_DIR}/harness.sh", "tests", tests_arg, *canary_args],
            timeout=GIT_TIMEOUT, workdir=REPO_DIR,
        )
        if applied_tests.output.strip():
            outputs.append(applied_tests.output.strip())
        tests_applied = applied_tests.exit_code == 0
    setup_exit: int | None = None
    run: ExecResult | None = None
    report: JUnitReport | None = None
    if tests_applied:
        env = {"ARENA_JUNIT": junit_path, **LOCKED_DOWN_ENV}
        deadline = time.monotonic() + spec.tests.timeout
        if spec.tests.setup:
            setup = sandbox.exec(["sh", "-c", spec.tests.setup], timeout=spec.tests.timeout,
                                 env=env, workdir=REPO_DIR)
            setup_exit = setup.exit_code
            outputs.append(setup.output)
            run = setup if setup.timed_out or setup.oom_killed else None
        if run is None and setup_exit in (None, 0):
            remaining = max(1.0, deadline - time.monotonic())
            run = sandbox.exec(["sh", "-c", spec.tests.command], timeout=remaining,
                               env=env, workdir=REPO_DIR)
            outputs.append(run.output)
        if run is not None and not run.timed_out:
            report = _read_report(sandbox, junit_path)
    result = _feature_result(
        sandbox,
        feature_id=feature_id,
        apply_status=apply_status,
        tests_applied=tests_applied,
        tests_only=tests_only,
        setup_exit=setup_exit,
        run=run,
        report=report,
        output="\n".join(part for part in outputs if part),
        started=started,
        plan=plan,
        expected=expected,
    )
    return _with_flags(result, flags)


def _with_flags(result: FeatureResult, flags: list[ReviewFlag]) -> FeatureResult:
    """``result`` with the patch's review flags, plus one for a tampered report."""
    extra = list(flags)
    if result.status == "tampered":
        extra.append(ReviewFlag(file="", line=None,
                                reason=f"tampered test results: {result.reason}"))
    if not extra:
        return result
    return result.model_copy(update={"review_flags": [*result.review_flags, *extra]})


def _feature_result(
    sandbox: Sandbox,
    *,
    feature_id: int,
    apply_status: ApplyStatus,
    tests_applied: bool,
    tests_only: bool,
    setup_exit: int | None,
    run: ExecResult | None,
    report: JUnitReport | None,
    output: str,
    started: float,
    plan: CanaryPlan | None = None,
    expected: ExpectedTests | None = None,
) -> FeatureResult:
    """The FeatureResult of what happened, with the verdict of :func:`decide`."""
    canaries = plan.canaries if plan is not None else None
    verdict = decide(
        expected=None if tests_only else expected,
        canaries=canaries,
        feature_modules=plan.modules if plan is not None else frozenset(),
        apply_status="clean" if tests_only else apply_status,
        tests_patch_applied=tests_applied,
        setup_exit=setup_exit,
        exit_code=run.exit_code if run is not None else None,
        timed_out=run is not None and run.timed_out,
        oom_killed=run is not None and run.oom_killed,
        report=report,
    )
    if report is not None and canaries is not None:
        report = without_canaries(report, canaries)
    cases = report.cases if report is not None else []
    limit = sandbox_limit(sandbox)
    truncated = (run is not None and run.truncated) or len(output.encode()) > limit
    return FeatureResult(
        feature=feature_id,
        status=verdict.status,
        passed=verdict.passed,
        apply_status=apply_status,
        exit_code=run.exit_code if run is not None else None,
        tests_passed=sum(1 for c in cases if c.outcome == "passed"),
        tests_failed=sum(1 for c in cases if c.outcome == "failed"),
        tests_errored=sum(1 for c in cases if c.outcome == "error"),
        tests_skipped=sum(1 for c in cases if c.outcome == "skipped"),
        tests=cases,
        duration=round(time.monotonic() - started, 3),
        output=cap_text(output, limit=limit),
        output_truncated=truncated,
        reason=verdict.reason,
    )


def _run_fast(
    sandbox: Sandbox,
    *,
    task: TaskFolder,
    feature_id: int,
    results_dir: str,
    tests_only: bool,
    started: float,
    canary_args: list[str],
    tests_arg: str,
    plan: CanaryPlan | None,
    expected: ExpectedTests | None,
) -> FeatureResult:
    """Setup and tests in one exec (no observations, no setup command): two round trips
    fewer than the step-by-step path, same verdict."""
    spec = task.spec
    nonce = secrets.token_hex(12)
    run = sandbox.exec(
        [
            "sh", f"{HARNESS_DIR}/harness.sh", "run", nonce, spec.source.commit, results_dir,
            "-" if tests_only else f"{HARNESS_DIR}/submission.patch",
            tests_arg, *canary_args,
        ],
        # git's part is bounded separately in the step-by-step path; here it shares the
        # task's limit plus a small allowance.
        timeout=spec.tests.timeout + _GIT_ALLOWANCE,
        env={"ARENA_JUNIT": f"{results_dir}/junit.xml", "ARENA_TEST_COMMAND": spec.tests.command,
             **LOCKED_DOWN_ENV},
        workdir=REPO_DIR,
    )
    marker = f"arena-status {nonce} "
    before, found, after = run.output.partition(marker)
    code_text, _, test_output = after.partition("\n")
    if not found or not code_text.strip().isdigit():
        status = "timeout" if run.timed_out else "error"
        return _result(feature_id, status=status, apply_status="missing", started=started,
                       reason="the harness did not finish preparing the repository"
                       + (" within the time limit" if run.timed_out else ""),
                       output=run.output)
    setup_code = int(code_text)
    if setup_code not in _SETUP_STATUS:
        return _result(feature_id, status="error", apply_status="missing", started=started,
                       reason="the harness could not reset the repository to the base commit "
                       f"(exit status {setup_code})", output=before)
    apply_status, tests_applied = _SETUP_STATUS[setup_code]
    ran = tests_applied and apply_status != "failed"
    report = None
    if ran and not run.timed_out:
        report = _read_report(sandbox, f"{results_dir}/junit.xml")
    return _feature_result(
        sandbox,
        feature_id=feature_id,
        apply_status=apply_status,
        tests_applied=tests_applied,
        tests_only=tests_only,
        setup_exit=None,
        run=run if ran else None,
        report=report,
        output=(before + test_output).strip("\n"),
        started=started,
        plan=plan,
        expected=expected,
    )


def cap_text(text: str, *, limit: int) -> str:
    """``text`` cut to about ``limit`` bytes, keeping its head and its last quarter."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    tail = limit // 4
    head = data[: limit - tail].decode("utf-8", errors="ignore")
    end = data[-tail:].decode("utf-8", errors="ignore") if tail else ""
    return f"{head}\n[... output cut to {limit:,} bytes ...]\n{end}"


def sandbox_limit(sandbox: Sandbox) -> int:
    """The sandbox's output cap (default cap when it does not say)."""
    limits = getattr(sandbox, "limits", None)
    return limits.output_bytes if isinstance(limits, SandboxLimits) else 1_000_000


def _read_report(sandbox: Sandbox, junit_path: str) -> JUnitReport:
    # Read with `cat` as the sandbox user: the file may be anything the tests wrote,
    # so it is size-capped here and parsed defensively.
    read = sandbox.exec(
        ["sh", "-c", 'test -f "$0" || exit 66; exec cat "$0"', junit_path],
        timeout=GIT_TIMEOUT,
        output_limit=MAX_JUNIT_BYTES + 1,
    )
    if read.exit_code == 66:
        return JUnitReport(error="the test command wrote no JUnit report to $ARENA_JUNIT")
    if read.exit_code != 0:
        return JUnitReport(error=f"the JUnit report could not be read ({read.output[:200]})")
    return parse_junit(read.output.encode("utf-8"), truncated=read.truncated)


def _result(
    feature_id: int,
    *,
    status: str,
    apply_status: ApplyStatus,
    reason: str,
    started: float,
    output: str = "",
) -> FeatureResult:
    return FeatureResult(
        feature=feature_id,
        status=status,  # type: ignore[arg-type]
        passed=False,
        apply_status=apply_status,
        duration=round(time.monotonic() - started, 3),
        output=output,
        reason=reason,
    )


#: ``run_tests(diff_text, feature_id) -> FeatureResult``: what merge analysis calls.
TestRunner = Callable[[str, int], FeatureResult]
