"""Running one feature's tests against one patch inside a sandbox.

The harness owns its own script (``harness.sh``, package data; never the task's
``runner.sh``): as the owner of the repository it resets it to the base commit, applies the
submission's patch (``git apply``, else ``git apply --3way``), then the feature's tests patch
and the canaries, and prints a structured status (:mod:`.harness_status`). The task's setup
and test commands then run as the tester, another uid, which can read the repository but not
change it (so no code under test rewrites a test file), with ``$ARENA_JUNIT`` pointing into a
private folder and pytest locked down (:data:`LOCKED_DOWN_ENV`). The JUnit report is read
in the same exec, once every process of the tester is killed (:func:`reaped`), and always
judged with the canaries and the expected ids. The test command is run directly (never
piped), so its exit status survives.

Before anything runs, the patch is checked in pure Python against the task's protected paths
(its ``protected_paths``, every file a tests patch touches, ``conftest.py`` and friends):
a patch touching one is ``rejected``, which also covers a patch pre-creating a test file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import re
import secrets
import shlex
import time
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from pydantic import ValidationError

from arena_bot.core.errors import DatasetError
from arena_bot.evaluation.applied import applied_flags, static_flags, task_literals
from arena_bot.evaluation.flags import merged, stands_in_for_processes, starts_processes
from arena_bot.evaluation.harness_status import HarnessStatus, parse_status
from arena_bot.evaluation.junit import MAX_JUNIT_BYTES, JUnitReport, parse_junit
from arena_bot.evaluation.pytest_config import CONFIG_FILES, changed_settings, collect_command
from arena_bot.evaluation.stream import (
    STREAM_LOST,
    Stream,
    gate_source,
    junit_id,
    packaged,
    parse_stream,
    stream_problem,
)
from arena_bot.evaluation.verdict import Canaries, Verdict, decide, without_canaries
from arena_bot.intake.patches import (
    ALWAYS_PROTECTED_NAMES,
    ALWAYS_PROTECTED_SUFFIXES,
    CONFUSABLES,
    DATASET_PATCH_BYTES,
    DATASET_PATCH_LINES,
    ProtectedPaths,
    fold_path,
    parse_patch,
    protected_paths_for,
)
from arena_bot.models.evaluation import ApplyStatus, FeatureResult, FeatureStatus, ReviewFlag
from arena_bot.models.task import ExpectedTests, Task
from arena_bot.sandbox.base import ExecResult, Sandbox
from arena_bot.tasks.dataset import TaskFolder, collected_paths, collects

#: The harness's files: a root-owned mount neither sandbox user can change.
HARNESS_DIR = "/arena"
REPO_DIR = "/workspace/repo"
#: Git operations on a small repository take well under a second; this bounds a hostile one.
GIT_TIMEOUT = 120.0
#: Tests patches up to this size travel as a command argument (Linux caps one at 128 KiB).
_INLINE_PATCH_BYTES = 96 * 1024

#: Environment of every test run: no user site (a planted ``usercustomize.py`` or ``.pth``
#: in ``~/.local`` never loads), no bytecode left behind for a later run to trust, and pytest
#: locked down whatever version the image has: no plugin loads from an entry point (a
#: ``[pytest11]`` in any ``*.dist-info`` on the path), no cache provider (``--lf`` state), and
#: the harness sets rootdir and confcutdir (no ``conftest.py`` above the repository counts).
#: ``PYTEST_ADDOPTS`` comes after the ini file's ``addopts``, so it has the last word. A test
#: command that sets ``PYTHONPATH`` itself must keep ``$PYTHONPATH`` in it.
LOCKED_DOWN_ENV = {
    "PYTHONNOUSERSITE": "1",
    # Python 3.11+: `python -m pytest` does not put the repository first on sys.path, so no
    # file of the patch can shadow pytest, a module it imports or the harness's plugin; the
    # plugin puts the repository back once it is loaded (older Pythons ignore this, and the
    # plugin reports repository modules loaded before it instead).
    "PYTHONSAFEPATH": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    "PYTEST_ADDOPTS": f"-p no:cacheprovider --rootdir={REPO_DIR} --confcutdir={REPO_DIR} "
                      "-p arena_stream",
    # Where the harness's plugin (arena_stream, streaming outcomes as tests run) is found.
    "PYTHONPATH": HARNESS_DIR,
}

_TEST_FILE = re.compile(r"^(test_.*|.*_test)\.py$")


@dataclass(frozen=True)
class CanaryPlan:
    """Where this run's canary tests go (their names are chosen in the sandbox from the
    target file's own tests: :mod:`.canary_place`, reported in the harness's status)."""

    #: Repository-relative test files the canaries may go into (the sandbox picks one).
    targets: tuple[str, ...]
    seed: int
    #: Stems of every Python test file of the tests patch (the feature's own tests).
    modules: frozenset[str] = frozenset()

    def canaries(self, placed: dict[str, str] | None) -> Canaries | None:
        """The two canaries' JUnit ids from what the placement reported (``None``: none)."""
        if (not placed or not placed.get("pass") or not placed.get("fail")
                or placed.get("target") not in self.targets):
            return None
        target = placed["target"]

        def case_id(role: str) -> str:
            cls = placed.get(f"{role}_class") or ""
            return junit_id("::".join(part for part in (target, cls, placed[role])
                                      if part))

        return Canaries(must_pass=case_id("pass"), must_fail=case_id("fail"))


def reaped(command: str, *, report: ReportTrailer | None = None) -> str:
    """``command``, then every other process of its uid killed before the shell exits.

    Code under test may leave processes behind (a fork bomb's sleeping children, a
    background rewriter). Killed here, they can neither hold the container's pid limit
    nor touch anything afterwards. On Linux ``kill(-1)`` spares the caller, and the
    shell's ``kill`` needs no new process. With ``report``, the shell then prints the JUnit
    report last (:meth:`ReportTrailer.script`): nothing of the tester is left to change it.
    Standard error goes into standard output first: Docker carries the two as separate pipes
    whose chunks may arrive out of order, and nothing written before the trailer may land
    after it. The command runs in a subshell, so an ``exit`` in it (``pytest; rc=$?; ...;
    exit $rc``) ends only the command, never the kill or the trailer after it.
    """
    trailer = report.script() if report is not None else ""
    return (f"exec 2>&1\n(\n{command}\n)\narena_rc=$?\nkill -KILL -1 2>/dev/null\n"
            f"{trailer}exit $arena_rc")


#: Room for the report and its marker line at the end of the tests' output.
_TRAILER_BYTES = MAX_JUNIT_BYTES + 256


@dataclass(frozen=True)
class ReportTrailer:
    """The JUnit report printed at the end of the tests' own exec, after a marker line with
    a per-run nonce and the report's size (``-`` when there is none).

    One exec fewer than reading it with a command of its own, and no weaker: the report is
    the tester's file either way (the tests write it), it is read after every process of the
    tester is killed, and it is always cross-checked with the stream, the canaries and the
    expected ids. Lines the code under test printed earlier cannot pose as the trailer: the
    shell prints it last, and only the last marker counts.
    """

    path: str
    nonce: str

    @property
    def marker(self) -> str:
        return f"arena-junit {self.nonce} "

    def script(self) -> str:
        path = shlex.quote(self.path)
        return (f"if [ -f {path} ]; then printf '\\n{self.marker}%s\\n' \"$(wc -c < {path})\"; "
                f"cat {path}; else printf '\\n{self.marker}-\\n'; fi\n")

    def split(self, output: str) -> tuple[str, JUnitReport]:
        """The tests' output without the trailer, and the report it carries. Only the last
        marker counts: a report that does not match its size is an error (fail closed)."""
        head, found, rest = output.rpartition(self.marker)
        if not found:
            return output, JUnitReport(error="the JUnit report could not be read (the test "
                                             "process printed no report trailer)")
        head = head.removesuffix("\n")
        size, _, report = rest.partition("\n")
        if size == "-" and not report:
            return head, JUnitReport(error=_NO_REPORT)
        data = report.encode("utf-8")
        if size.isdigit() and int(size) > MAX_JUNIT_BYTES:
            return head, parse_junit(data, truncated=True)  # "larger than ..."
        if not size.isdigit() or len(data) != int(size):
            return head, JUnitReport(error="the JUnit report could not be read (it does not "
                                           "match its announced size)")
        return head, parse_junit(data)


_NO_REPORT = "the test command wrote no JUnit report to $ARENA_JUNIT"


def plan_canaries(tests_patch: str, command: str = "") -> CanaryPlan | None:
    """Where the two canary tests may go: the Python test files the tests patch creates or
    changes and the test command collects (else the test files the command names; the
    sandbox picks one at random that does not skip its whole module), or ``None`` when there
    is none (no canaries)."""
    patch = parse_patch(tests_patch, max_bytes=DATASET_PATCH_BYTES, max_lines=DATASET_PATCH_LINES)
    targets = [
        f.new_path for f in patch.files
        if f.new_path is not None and _TEST_FILE.match(PurePosixPath(f.new_path).name)
    ]
    if not targets:
        return None
    named = collected_paths(command)
    collected = [t for t in targets if collects(t, named)]
    if not collected and named is not None:
        collected = [p for p in named if _TEST_FILE.match(PurePosixPath(p).name)
                     and not any(c in p for c in "*?[")]
    if not collected:
        collected = targets
    return CanaryPlan(targets=tuple(collected), seed=secrets.randbelow(2**62),
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
    judge_expected: bool = True,
    with_tests: bool = True,
) -> FeatureResult:
    """Run feature ``feature_id``'s tests against ``patch_text`` in a fresh ``sandbox`` (see
    the module docstring). ``judge_expected=False`` ignores the recorded expected ids
    (``arena dataset check``, which records them, reads raw outcomes). ``tests_only`` (dataset
    checks) runs the tests on the bare base commit, ignoring ``patch_text``; with
    ``with_tests=False`` as well, without the feature's tests patch (to classify ids of a
    module the base cannot collect).
    """
    started = time.monotonic()
    spec = task.spec
    protected = protected if protected is not None else protected_paths_for(task)
    patch_text = "" if tests_only else patch_text
    refusal = None if tests_only else _refusal(patch_text, protected)
    if refusal is not None:
        refused, reason = refusal
        return _result(feature_id, status=refused, apply_status="missing", reason=reason,
                       started=started)
    tests_patch = task.feature(feature_id).tests_patch.read_bytes()
    tests_text = tests_patch.decode("utf-8", errors="replace")
    # Whether the feature's own tests stand in for the process API (then starting a
    # process is the feature, not a finding): asked of the patch text and of git's result.
    processes = not tests_only and stands_in_for_processes(tests_text)
    flags = [] if tests_only else static_flags(patch_text, task=task, protected=protected,
                                               processes=processes)
    if tests_only and not with_tests:
        tests_patch = b""
    expected = load_expected_tests(task, feature_id) if judge_expected else None
    # The bare base run (tests_only) is a clean run: no canaries, so a collection error
    # there is the tests' own, and ids are classified from what the tests did.
    plan = None if tests_only else plan_canaries(tests_text, spec.tests.command)
    junit_path = f"/tmp/arena-results-{secrets.token_hex(8)}/junit.xml"
    status, setup_output, timed_out = _prepare(
        sandbox, spec=spec, patch_text=patch_text, tests_patch=tests_patch, plan=plan,
        junit_path=junit_path, tests_only=tests_only, protected=protected,
        processes=processes)
    if status is None or status.error:
        return _result(feature_id, status="timeout" if timed_out else "error",
                       apply_status="missing", started=started,
                       reason=_setup_failure(status, timed_out=timed_out),
                       output=setup_output)
    if not tests_only and status.apply != "failed":
        # What git apply wrote that the patch does not show (renames, declared encodings).
        flags = merged(flags, applied_flags(
            sandbox, patch_text, protected=protected, literals=task_literals(task),
            repo_dir=REPO_DIR, processes=processes))
    if not tests_only and _touches_config(patch_text):
        config_refusal = _config_refusal(sandbox, base_commit=spec.source.commit)
        if config_refusal is not None:
            return _with_flags(_result(feature_id, status="rejected", apply_status=status.apply,
                                       reason=config_refusal, started=started), flags)
    tests = _TestsRun(outputs=[setup_output.strip()] if setup_output.strip() else [])
    if status.tests_applied and status.apply != "failed":
        closed = _hand_over(sandbox)
        if closed is not None:
            return _result(feature_id, status="error", apply_status=status.apply,
                           started=started, reason=closed, output=setup_output)
        tests = _run_tests(sandbox, spec=spec, junit_path=junit_path, outputs=tests.outputs)
    result = _feature_result(
        sandbox, feature_id=feature_id, apply_status=status.apply,
        tests_applied=status.tests_applied, tests_only=tests_only, setup_exit=tests.setup_exit,
        run=tests.run, report=tests.report, started=started, plan=plan, expected=expected,
        canaries=plan.canaries(status.canaries) if plan is not None else None,
        skips_fail=judge_expected,
        output="\n".join(part for part in tests.outputs if part),
        pytest_command="pytest" in spec.tests.command,
    )
    if judge_expected and not tests_only and expected is None:
        flags.append(ReviewFlag(
            file="", line=None, source="static", kind="unchecked_task",
            reason="the task has no recorded expected test ids (run `arena dataset check "
            f"{task.id}`): the verdict rests on the exit status, the report and the canaries"))
    return _with_flags(result, flags)


def _refusal(patch_text: str, protected: ProtectedPaths) -> tuple[FeatureStatus, str] | None:
    """Why the patch is not run at all (empty, or touching a protected path), or ``None``."""
    if not patch_text.strip():
        return "apply_failed", "the submission's patch is empty"
    rejection = check_protected(patch_text, protected)
    return ("rejected", rejection) if rejection is not None else None


#: The list of files handed to the tester (written by the owner; /tmp is sticky, so the
#: tester can neither change nor replace it).
_HANDOVER_LIST = "/tmp/arena-handover.list"


def protected_rules(protected: ProtectedPaths) -> bytes:
    """``protected`` as data for ``workspace.py`` (folded as the host folds)."""
    return json.dumps({
        "exact": sorted(fold_path(p) for p in protected.exact),
        "names": sorted(ALWAYS_PROTECTED_NAMES),
        "suffixes": list(ALWAYS_PROTECTED_SUFFIXES),
        "confusables": {str(k): v for k, v in CONFUSABLES.items()},
    }).encode()


def _hand_over(sandbox: Sandbox) -> str | None:
    """Give the tests a writable workspace (:mod:`.workspace`): every file no rule protects
    becomes the tester's, the folders stay closed. ``None``, or why the repository could not
    be closed again (then no test runs)."""
    script = f"python3 -I -S {HARNESS_DIR}/workspace.py"
    args = f"{HARNESS_DIR}/protected.json {_HANDOVER_LIST}"
    opened = sandbox.exec(["sh", "-c", f"command -v python3 >/dev/null || exit 0; "
                           f"{script} open {args}"], timeout=GIT_TIMEOUT, workdir=REPO_DIR)
    if opened.exit_code == 0 and not opened.timed_out:
        # No submitted code has run yet; the tester's leftovers are killed (reaped).
        sandbox.exec(["sh", "-c", reaped(f"[ -f {_HANDOVER_LIST} ] && {script} adopt {args}")],
                     timeout=GIT_TIMEOUT, workdir=REPO_DIR, user="tester")
    # Whatever happened above, every folder the list names is closed again (a failed
    # `open` leaves the files the owner's: read-only, as without the hand-over).
    closed = sandbox.exec(["sh", "-c", f"[ ! -f {_HANDOVER_LIST} ] || {script} close {args}"],
                          timeout=GIT_TIMEOUT, workdir=REPO_DIR)
    if closed.exit_code != 0 or closed.timed_out:
        return "the harness could not close the repository's folders before the tests"
    return None


def _prepare(
    sandbox: Sandbox, *, spec: Task, patch_text: str, tests_patch: bytes,
    plan: CanaryPlan | None, junit_path: str, tests_only: bool, protected: ProtectedPaths,
    processes: bool = False,
) -> tuple[HarnessStatus | None, str, bool]:
    """Write the harness's files and run ``harness.sh setup`` as the owner, before any
    submitted code: reset, both patches, the canaries, the results folder. Its status
    (``None``: none printed), its other output, and whether it timed out."""
    canary_args = ["-", "0"] if plan is None else ["\n".join(plan.targets), str(plan.seed)]
    tests_arg = f"{HARNESS_DIR}/tests.patch"
    if not tests_patch:
        tests_arg = "-"
    elif len(tests_patch) <= _INLINE_PATCH_BYTES and b"\0" not in tests_patch:
        with contextlib.suppress(UnicodeDecodeError):  # binary: stays a file
            tests_arg = "inline:" + tests_patch.decode("utf-8")
    files = {name: packaged(name) for name in
             ("harness.sh", "arena_stream.py", "canary_place.py", "workspace.py")}
    files |= {"submission.patch": patch_text.encode("utf-8"),
              "protected.json": protected_rules(protected),
              # Imported by `site` at start-up: holds the repository's path entries back
              # until the plugin is loaded (a patch cannot shadow pytest from PYTHONPATH).
              "sitecustomize.py": gate_source(REPO_DIR),
              # The plugin's guard attributes what it sees to the submission's own files,
              # named from the repository's root (pytest may start in a sub-project).
              "changed.json": json.dumps({**changed_files(patch_text, processes=processes),
                                          "root": REPO_DIR}).encode()}
    if tests_arg != "-" and not tests_arg.startswith("inline:"):
        files["tests.patch"] = tests_patch
    sandbox.write_files(files, directory=HARNESS_DIR)
    nonce = secrets.token_hex(12)
    prepared = sandbox.exec(
        [
            "sh", f"{HARNESS_DIR}/harness.sh", "setup", nonce, spec.source.commit,
            junit_path.rsplit("/", 1)[0],
            "-" if tests_only else f"{HARNESS_DIR}/submission.patch", tests_arg, *canary_args,
        ],
        timeout=GIT_TIMEOUT,
        workdir=REPO_DIR,
    )
    status, output = parse_status(prepared.output, nonce=nonce)
    return status, output, prepared.timed_out


@dataclass
class _TestsRun:
    """The task's setup and test commands as the tester: exit of setup, the run, its report."""

    outputs: list[str]
    setup_exit: int | None = None
    run: ExecResult | None = None
    report: JUnitReport | None = None


def _run_tests(sandbox: Sandbox, *, spec: Task, junit_path: str, outputs: list[str]) -> _TestsRun:
    """Run the task's setup then test command as the tester (who cannot change a file the
    owner wrote), within the task's time limit, and read the JUnit report."""
    tests = _TestsRun(outputs=outputs)
    env = {"ARENA_JUNIT": junit_path, **LOCKED_DOWN_ENV}
    deadline = time.monotonic() + spec.tests.timeout
    if spec.tests.setup:
        setup = sandbox.exec(["sh", "-c", reaped(spec.tests.setup)], timeout=spec.tests.timeout,
                             env=env, workdir=REPO_DIR, user="tester")
        tests.setup_exit = setup.exit_code
        tests.outputs.append(setup.output)
        tests.run = setup if setup.timed_out or setup.oom_killed else None
    if tests.run is None and tests.setup_exit in (None, 0):
        remaining = max(1.0, deadline - time.monotonic())
        trailer = ReportTrailer(path=junit_path, nonce=secrets.token_hex(12))
        limit = sandbox.limits.output_bytes
        run = sandbox.exec(["sh", "-c", reaped(spec.tests.command, report=trailer)],
                           timeout=remaining, env=env, workdir=REPO_DIR, user="tester",
                           output_limit=limit + _TRAILER_BYTES,
                           keep_tail=limit // 4 + _TRAILER_BYTES)
        output, report = trailer.split(run.output)
        tests.run = dataclasses.replace(run, output=output)
        tests.outputs.append(output)
        if not run.timed_out:
            tests.report = report
    elif tests.run is not None and not tests.run.timed_out:
        # The setup command was killed for memory: the tests never ran.
        tests.report = JUnitReport(error=_NO_REPORT)
    return tests


def changed_files(patch_text: str, *, processes: bool = False) -> dict[str, Any]:
    """Repository paths the patch creates or changes (what the plugin's guard attributes
    stack frames to), those of them that are new (renamed and copied files too: a module
    the patch adds can shadow one of the standard library), the lines each changed file
    gains with a digest of each (``lines``: the guard's review flags name only code the
    patch added, never the upstream code of a file it touches; it checks the digests, and a
    file whose lines moved counts whole), and the files whose starting of other programs is
    the feature's business (``processes``: every one when the feature's tests stand in for
    the process API, else those whose kept or removed lines start processes already, as
    :func:`arena_bot.evaluation.flags.review_flags` has it)."""
    files = parse_patch(patch_text).files if patch_text.strip() else ()
    lines: dict[str, list[tuple[int, str]]] = {}
    for file in files:
        if file.new_path is None or file.status != "modified":
            continue
        added = lines.setdefault(file.new_path, [])
        for hunk in file.hunks:
            number = hunk.new_start
            for body in hunk.lines:
                if body[:1] == "+":
                    text = body[1:].rstrip("\r").encode("utf-8", "surrogateescape")
                    added.append((number, hashlib.sha1(text).hexdigest()[:12]))
                if body[:1] in ("+", " "):
                    number += 1
    return {"changed": sorted({f.new_path for f in files if f.new_path}),
            "added": sorted({f.new_path for f in files
                             if f.new_path and f.status in ("added", "renamed", "copied")}),
            "lines": lines,
            "processes": sorted({f.new_path for f in files
                                 if f.new_path and (processes or starts_processes(f))})}


def _touches_config(patch_text: str) -> bool:
    """Whether the patch changes a root config file that may hold pytest settings."""
    return any(path in CONFIG_FILES for f in parse_patch(patch_text).files for path in f.paths)


def _config_refusal(sandbox: Sandbox, *, base_commit: str) -> str | None:
    """Why the patched tree's pytest settings are refused (they differ from the base
    commit's, parsed), or ``None``. Read by the owner before any submitted code runs."""
    collected = sandbox.exec(collect_command(base_commit), timeout=GIT_TIMEOUT,
                             workdir=REPO_DIR)
    if collected.exit_code != 0:
        return "the patch changes a config file the harness could not compare"
    changes = changed_settings(collected.output)
    if not changes:
        return None
    shown = "; ".join(f"{c.file}: {c.detail}" for c in changes)
    return f"the patch changes pytest settings ({shown})"


def _setup_failure(status: HarnessStatus | None, *, timed_out: bool) -> str:
    """Why the harness could not prepare the repository (a harness problem, not the
    submission's)."""
    if timed_out:
        return "the harness did not finish preparing the repository within the time limit"
    if status is None:
        return "the harness printed no status (killed, or an unexpected harness version)"
    if status.error == "results":
        return "the harness could not create the folder for the test results"
    return "the harness could not reset the repository to the base commit"


def _with_flags(result: FeatureResult, flags: list[ReviewFlag]) -> FeatureResult:
    """``result`` with the patch's review flags, plus one for a tampered report. A static
    ``subprocess`` finding at a line whose start the guard saw is left out: the guard's says
    what ran."""
    seen = {(f.file, f.line) for f in result.review_flags if f.kind == "subprocess"}
    extra = [f for f in flags if f.kind != "subprocess" or (f.file, f.line) not in seen]
    if result.status == "tampered":
        extra.append(ReviewFlag(file="", line=None,
                                reason=f"tampered test results: {result.reason}",
                                source="runtime", kind="tampered"))
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
    pytest_command: bool = False,
    canaries: Canaries | None = None,
    skips_fail: bool = True,
) -> FeatureResult:
    """The FeatureResult of what happened, with the verdict of :func:`decide`, overruled
    by what the plugin streamed (:func:`_stream_verdict`)."""
    if plan is not None and canaries is None and tests_applied:
        return _result(feature_id, status="error", apply_status=apply_status, started=started,
                       reason="the harness placed no canary tests (its status names none)",
                       output=output)
    verdict = decide(
        skips_fail=skips_fail,
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
    stream, output = parse_stream(output)
    verdict = _stream_verdict(verdict, stream=stream, report=report, run=run,
                              pytest_command=pytest_command)
    if report is not None and canaries is not None:
        report = without_canaries(report, canaries)
    cases = report.cases if report is not None else []
    limit = sandbox.limits.output_bytes
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
        reason=_with_disk_note(verdict.reason, output=output, sandbox=sandbox),
        review_flags=[ReviewFlag(file=r.file, line=r.line,
                                 reason=f"while the tests ran: {r.reason}",
                                 source="runtime", kind=r.kind)
                      for r in stream.reviews],
        # Published only now, after the run: names and places are drawn afresh for every
        # run, so naming this run's canaries tells the next run's code under test nothing.
        canaries=[canaries.must_pass, canaries.must_fail] if canaries is not None else [],
    )


def _stream_verdict(verdict: Verdict, *, stream: Stream, report: JUnitReport | None,
                    run: ExecResult | None, pytest_command: bool) -> Verdict:
    """``verdict`` checked against the plugin's stream: a forgery it shows is ``tampered``;
    a pytest run that streamed nothing (the plugin was shadowed or never loaded) or whose
    output was cut at the cap (its end is lost) cannot pass."""
    if verdict.status == "tampered" or run is None:
        return verdict
    if run.exit_code == STREAM_LOST and stream.started and not stream.ended:
        return Verdict("tampered", False,
                       "the descriptor the harness's plugin streams outcomes through was "
                       "closed or replaced while the tests ran (only code in the test process "
                       "can do that): the plugin ended the run")
    if report is None:
        return verdict
    if stream.tampered:
        # The guard's own events are evidence even when the output was cut after them.
        return Verdict("tampered", False, "the harness's guard saw the test run tampered "
                       f"with: {stream.tampered[0]}")
    if run.truncated:
        if verdict.passed:
            return Verdict("failed", False,
                           "the test output passed the sandbox's output cap, so the outcomes "
                           "streamed while the tests ran could not be checked")
        return verdict
    if pytest_command and not stream.started and report.cases:
        return Verdict("tampered", False,
                       "the harness's pytest plugin never reported although the tests ran: "
                       "pytest or the plugin was replaced by code of the submission")
    forged = stream_problem(report, stream)
    return Verdict("tampered", False, forged) if forged is not None else verdict


#: What a process prints when a capped file system (or the per-file cap) stopped a write.
_DISK_FULL = ("No space left on device", "File too large", "File size limit exceeded")


def _with_disk_note(reason: str | None, *, output: str, sandbox: Sandbox) -> str | None:
    """``reason`` plus a plain statement when the run hit the sandbox's disk caps, so a
    failure caused by filling the disk is not mistaken for a plain test failure."""
    if reason is None or not any(marker in output for marker in _DISK_FULL):
        return reason
    limits = sandbox.limits
    return (f"{reason}; the run filled the sandbox's disk (/workspace {limits.workspace_mb} "
            f"MiB in all, /tmp {limits.tmpfs_mb} MiB, {limits.file_mb} MiB per file)")


def cap_text(text: str, *, limit: int) -> str:
    """``text`` cut to about ``limit`` bytes, keeping its head and its last quarter."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    tail = limit // 4
    head = data[: limit - tail].decode("utf-8", errors="ignore")
    end = data[-tail:].decode("utf-8", errors="ignore") if tail else ""
    return f"{head}\n[... output cut to {limit:,} bytes ...]\n{end}"


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

