"""The evaluation engine: submissions in, EvaluationResults out.

Work is cut into *units*, run in a thread pool (``jobs``), each in fresh sandboxes:
``feature`` (one run's patch against one feature's tests; ``solo`` runs every listed feature
separately against the same patch) and ``coop`` (one run's two patches through merge
analysis, which tests the merged code against both features through
:func:`make_test_runner`). A task's observed success criteria (``file:``, ``command:``,
``file_exists``) run in a sandbox of their own per run. Unchanged inputs are not evaluated
again unless ``force`` (:mod:`.store`). The sandbox engine and image provider are passed in.
"""

from __future__ import annotations

import datetime as dt
import functools
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from arena_bot import HARNESS_VERSION
from arena_bot.core.errors import ArenaError, SandboxError
from arena_bot.core.signals import deferred_signals
from arena_bot.evaluation.criteria import (
    observe_criteria,
    observed_criteria,
    unobserved,
)
from arena_bot.evaluation.harness import run_feature
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.evaluation.store import InputKey, ResultStore, input_key
from arena_bot.intake.patches import (
    MAX_PATCH_BYTES,
    ProtectedPaths,
    protected_paths_for,
    read_patch_text,
)
from arena_bot.intake.submissions import SubmissionFolder
from arena_bot.models.evaluation import (
    CriterionObservation,
    EvaluationResult,
    FeatureResult,
    ImageRef,
    MergeResult,
    RunResult,
    TestRunner,
)
from arena_bot.sandbox.base import SandboxEngine, SandboxLimits
from arena_bot.tasks.dataset import TaskFolder

Progress = Callable[[str], None]
#: MergeResult.error when merge analysis itself could not run (never cached; re-run).
MERGE_UNAVAILABLE = "merge analysis could not run (see the log); re-run the evaluation"


class BuiltImage(Protocol):
    """A task image: its tag and id (read-only)."""

    @property
    def tag(self) -> str: ...

    @property
    def id(self) -> str: ...


class ImageProvider(Protocol):
    """Builds (or reuses) task images; :class:`~arena_bot.sandbox.images.TaskImages` is one."""

    base_image: str

    def ensure(self, task: TaskFolder) -> BuiltImage:
        """The task's image, built if needed (thread-safe, once per content)."""
        ...

    def stop(self) -> None:
        """Stop waiting for builds (Ctrl-C): ``ensure`` then raises SandboxError at once."""
        ...


def _quiet(_: str) -> None:
    pass


def make_test_runner(
    task: TaskFolder,
    *,
    engine: SandboxEngine,
    image: str,
    limits: SandboxLimits | None = None,
    protected: ProtectedPaths | None = None,
) -> TestRunner:
    """``run_tests(diff_text, feature_id) -> FeatureResult`` for ``task`` in ``image``.

    Each call opens a FRESH sandbox, applies ``diff_text`` as the submission's patch, then the
    feature's tests patch, and runs the tests. Engine failures become a FeatureResult with
    status ``error`` (not the submission's fault; such results are never cached).
    """
    limits = limits or SandboxLimits.from_task(task.spec.limits)
    protected = protected if protected is not None else protected_paths_for(task)

    def run_tests(diff_text: str, feature_id: int) -> FeatureResult:
        started = time.monotonic()
        try:
            with engine.open(image, limits=limits) as sandbox:
                return run_feature(sandbox, task=task, feature_id=feature_id,
                                   patch_text=diff_text, protected=protected)
        except SandboxError as exc:
            return FeatureResult(feature=feature_id, status="error", passed=False,
                                 apply_status="missing",
                                 duration=round(time.monotonic() - started, 3),
                                 reason=f"the harness failed (re-run): {exc.message}")

    return run_tests


# -- planning ---------------------------------------------------------------------------


UnitKind = Literal["feature", "coop"]


@dataclass(frozen=True)
class Unit:
    """One piece of sandbox work for one run of one submission."""

    index: int  # position of the submission in the batch
    kind: UnitKind
    run_id: str
    patches: tuple[str, ...]
    feature_id: int = 0
    #: For coop units: the two features (agent 1's, agent 2's).
    features: tuple[int, ...] = ()
    #: Whether this unit also observes the run's criteria (the first feature of a run).
    observe: bool = False
    #: Why the run's patch could not be read (the unit then records a failure without Docker).
    patch_error: str | None = None


@dataclass
class _Pending:
    """A submission being evaluated: its inputs and the unit outcomes gathered so far."""

    submission: SubmissionFolder
    task: TaskFolder
    key: InputKey
    started: float
    features: dict[tuple[str, int], FeatureResult] = field(default_factory=dict)
    merges: dict[str, MergeResult] = field(default_factory=dict)
    observations: dict[str, list[CriterionObservation]] = field(default_factory=dict)
    image: ImageRef | None = None
    error: str | None = None


@dataclass(frozen=True)
class Outcome:
    """One submission's result and whether it came from the store."""

    submission: SubmissionFolder
    result: EvaluationResult
    cached: bool
    path: Path | None = None


def read_patch(
    submission: SubmissionFolder, name: str, *, max_bytes: int = MAX_PATCH_BYTES
) -> tuple[str, str | None]:
    """The text of patch file ``name`` of the submission, or ``("", why not)``.

    ``max_bytes`` is arena.yaml's ``limits.patch_bytes`` (the limit validation applies).
    """
    text, problem = read_patch_text(submission.file(name), max_bytes=max_bytes)
    return text, (f"{name}: {problem.message}" if problem is not None else None)


def plan_units(
    index: int, submission: SubmissionFolder, task: TaskFolder, *,
    patch_bytes: int = MAX_PATCH_BYTES,
) -> list[Unit]:
    """The units evaluating every run of ``submission`` (see the module docstring)."""
    spec = submission.spec
    units: list[Unit] = []
    observe = bool(observed_criteria(task.spec))
    for run in spec.runs:
        texts: list[str] = []
        errors: list[str] = []
        for name in run.patches:
            text, error = read_patch(submission, name, max_bytes=patch_bytes)
            texts.append(text)
            if error:
                errors.append(error)
        patch_error = "; ".join(errors) or None
        if spec.setting == "coop":
            units.append(Unit(index=index, kind="coop", run_id=run.id, patches=tuple(texts),
                              features=tuple(spec.features), patch_error=patch_error))
        else:
            for position, feature_id in enumerate(spec.features):
                units.append(Unit(index=index, kind="feature", run_id=run.id,
                                  patches=tuple(texts), feature_id=feature_id,
                                  patch_error=patch_error, observe=observe and position == 0))
    return units


# -- running ----------------------------------------------------------------------------


class Evaluator:
    """Evaluates submissions with one sandbox engine, image provider and result store."""

    def __init__(
        self,
        *,
        engine: SandboxEngine,
        images: ImageProvider,
        store: ResultStore | None,
        repos: BaseRepoCache,
        progress: Progress = _quiet,
        patch_bytes: int = MAX_PATCH_BYTES,
    ) -> None:
        self.engine = engine
        self.patch_bytes = patch_bytes
        self.images = images
        self.store = store
        self.repos = repos
        self.progress = progress
        self._protected: dict[str, ProtectedPaths] = {}
        self._lock = threading.Lock()

    def evaluate(
        self,
        pairs: Sequence[tuple[SubmissionFolder, TaskFolder]],
        *,
        jobs: int = 1,
        force: bool = False,
    ) -> list[Outcome]:
        """Evaluate every (submission, task) pair; stored results are reused unless ``force``."""
        outcomes: dict[int, Outcome] = {}
        pending: dict[int, _Pending] = {}
        units: list[Unit] = []
        for index, (submission, task) in enumerate(pairs):
            key = self._key(submission, task)
            if not force:
                cached = self._cached(submission, key)
                if cached is not None:
                    self.progress(f"{submission.key}: cached")
                    outcomes[index] = cached
                    continue
            pending[index] = _Pending(submission=submission, task=task, key=key,
                                      started=time.monotonic())
            units.extend(plan_units(index, submission, task, patch_bytes=self.patch_bytes))
        if units:
            self._run_all(units, pending=pending, jobs=jobs)
        for index, state in pending.items():
            result = self._assemble(state)
            path = None
            if self.store is not None and _cacheable(result):
                path = self.store.save(state.submission, state.key, result)
            outcomes[index] = Outcome(submission=state.submission, result=result, cached=False,
                                      path=path)
        return [outcomes[index] for index in sorted(outcomes)]

    def stored(self, submission: SubmissionFolder, task: TaskFolder) -> Outcome | None:
        """The stored result of evaluating ``submission`` on ``task`` as things are now (the
        same inputs, base image and harness), as a cached outcome; ``None`` when absent."""
        return self._cached(submission, self._key(submission, task))

    def _key(self, submission: SubmissionFolder, task: TaskFolder) -> InputKey:
        return input_key(submission, task, self.images.base_image)

    def _cached(self, submission: SubmissionFolder, key: InputKey) -> Outcome | None:
        if self.store is None:
            return None
        stored = self.store.get(submission, key)
        if stored is None:
            return None
        return Outcome(submission=submission, result=stored, cached=True,
                       path=self.store.path_for(submission, key))

    def _run_all(self, units: list[Unit], *, pending: dict[int, _Pending], jobs: int) -> None:
        workers = max(1, min(jobs, len(units)))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="arena-eval")
        try:
            futures = [pool.submit(self._run_unit, unit, pending[unit.index]) for unit in units]
            _wait_for_units(futures)
        except BaseException:
            # Ctrl-C or a bug: start nothing new (no unit, sandbox, image build or clone),
            # kill what runs (each unit's sandbox context then removes its container), and
            # wait for the workers to finish cleaning up. Every wait of a worker ends at once
            # once its sandbox is killed, its image's build given up or its clone killed.
            pool.shutdown(wait=False, cancel_futures=True)
            self.engine.kill_all()
            self.images.stop()
            self.repos.stop()
            _wait_through_interrupts(pool)
            raise
        pool.shutdown(wait=True)

    def _protected_for(self, task: TaskFolder) -> ProtectedPaths:
        with self._lock:
            if task.id not in self._protected:
                self._protected[task.id] = protected_paths_for(task)
            return self._protected[task.id]

    def _run_unit(self, unit: Unit, state: _Pending) -> None:
        task = state.task
        label = f"{state.submission.key} run {unit.run_id}"
        try:
            image = self.images.ensure(task)
        except ArenaError as exc:
            with self._lock:
                state.error = f"the task image could not be built: {exc.message}"
            return
        with self._lock:
            state.image = ImageRef(tag=image.tag, id=image.id)
        protected = self._protected_for(task)
        runner = make_test_runner(task, engine=self.engine, image=image.tag, protected=protected)
        observe = functools.partial(observe_criteria, task, engine=self.engine, image=image.tag,
                                    protected=protected)
        if unit.kind == "feature":
            observed: list[CriterionObservation] = []
            if unit.patch_error:
                result = _unrunnable(unit.feature_id, unit.patch_error)
            else:
                # Criteria run submitted code (a `command:` target): never in the sandbox
                # the tests run in, which no submitted code may have touched before (a
                # planted conftest.py, usercustomize.py or background process). Their own
                # sandbox, thrown away after.
                if unit.observe:
                    observed = observe(patch_text=unit.patches[0], patch_error=None)
                result = runner(unit.patches[0], unit.feature_id)
            self.progress(f"{label} feature {unit.feature_id}: {result.status}")
            if unit.observe and not observed:
                observed = unobserved(task, reason=result.reason or "the patch was not applied")
            with self._lock:
                state.features[(unit.run_id, unit.feature_id)] = result
                if unit.observe:
                    state.observations[unit.run_id] = observed
        else:
            merge = self._coop(unit, task=task, runner=runner)
            self.progress(f"{label} merge: {merge.status}, both passed: {merge.both_passed}")
            observations: list[CriterionObservation] = []
            if observed_criteria(task.spec):
                observations = observe(patch_text=merge.diff, patch_error=None if merge.diff
                                       else "the merged code could not be built")
            with self._lock:
                state.merges[unit.run_id] = merge
                state.observations[unit.run_id] = observations

    def _coop(self, unit: Unit, *, task: TaskFolder, runner: TestRunner) -> MergeResult:
        features = unit.features
        if unit.patch_error or len(unit.patches) != 2:
            return MergeResult(
                status="apply_failed", strategy="none",
                error=unit.patch_error or "a coop run needs two patches",
                features=[_unrunnable(fid, unit.patch_error or "missing patch")
                          for fid in features],
            )
        # Imported here: GitPython loads only when a coop run is evaluated.
        from arena_bot.merge.coop import evaluate_coop_run

        try:
            base_repo = self.repos.get(task)
            return evaluate_coop_run(
                base_repo=base_repo,
                base_commit=task.spec.source.commit,
                patch1=unit.patches[0],
                patch2=unit.patches[1],
                feature_ids=(features[0], features[1]),
                run_tests=runner,
            )
        except ArenaError as exc:
            self.progress(f"merge analysis failed: {exc}")
            return MergeResult(status="apply_failed", strategy="none", error=MERGE_UNAVAILABLE)

    def _assemble(self, state: _Pending) -> EvaluationResult:
        spec = state.submission.spec
        runs: list[RunResult] = []
        for run in spec.runs:
            features = [
                state.features[(run.id, fid)]
                for fid in spec.features
                if (run.id, fid) in state.features
            ]
            runs.append(RunResult(
                run_id=run.id,
                features=[] if spec.setting == "coop" else features,
                merge=state.merges.get(run.id),
                observations=state.observations.get(run.id, []),
            ))
        return EvaluationResult(
            task_id=state.task.id,
            submission_id=state.submission.id,
            input_hash=state.key.input_hash,
            harness_version=HARNESS_VERSION,
            image=state.image,
            evaluated_at=dt.datetime.now(dt.UTC).replace(microsecond=0),
            duration=round(time.monotonic() - state.started, 3),
            runs=[] if state.error else runs,
            error=state.error,
        )


#: Longest sleep of the main thread while units run: how late Ctrl-C / SIGTERM can be seen.
_SIGNAL_POLL = 0.2


def _wait_for_units(futures: list[Future[None]]) -> None:
    """Wait until every unit is done; re-raise the first unexpected exception of a unit.

    Never one untimed wait. SIGINT and SIGTERM are sent to the process, and any of its
    threads may take them: the kernel wakes the main thread, but a thread that changes its
    signal mask first (each new thread does as it starts, and every sandbox command starts
    a reader thread) takes the signal off the queue. Python's C handler, run there, only
    flags it for the main thread, whose untimed lock wait the kernel then resumes: Ctrl-C
    would be seen only when a unit ends (a hanging test: its whole timeout). A timed wait
    returns to the interpreter, which runs the handler (here: records the signal, raised as
    the wait ends)."""
    remaining: set[Future[None]] = set(futures)
    # Raised between two waits, never inside one (where it can break the lock code).
    with deferred_signals() as received:
        while remaining and not received:
            done, remaining = wait(remaining, timeout=_SIGNAL_POLL,
                                   return_when=FIRST_EXCEPTION)
            for future in done:
                future.result()


def _wait_through_interrupts(pool: ThreadPoolExecutor) -> None:
    """Wait for the pool's workers; a second Ctrl-C does not cut the cleanup short (the
    workers remove their containers: leaving now would leave those behind)."""
    while True:
        try:
            pool.shutdown(wait=True)
            return
        except KeyboardInterrupt:
            continue


def _unrunnable(feature_id: int, reason: str) -> FeatureResult:
    return FeatureResult(feature=feature_id, status="apply_failed", passed=False,
                         apply_status="missing", reason=reason)


def _cacheable(result: EvaluationResult) -> bool:
    """Harness failures are not the submission's: never store them, so a re-run retries."""
    if result.error is not None:
        return False
    for run in result.runs:
        for feature in run.tested_features:
            if feature.status == "error":
                return False
        if run.merge is not None and run.merge.error == MERGE_UNAVAILABLE:
            return False
    return True


def evaluate_submission(
    submission: SubmissionFolder,
    task: TaskFolder,
    *,
    engine: SandboxEngine,
    images: ImageProvider,
    store: ResultStore | None,
    repos: BaseRepoCache,
    force: bool = False,
    progress: Progress = _quiet,
) -> EvaluationResult:
    """Evaluate one submission over all its runs and features (see :class:`Evaluator`)."""
    evaluator = Evaluator(engine=engine, images=images, store=store, repos=repos,
                          progress=progress)
    return evaluator.evaluate([(submission, task)], force=force)[0].result

