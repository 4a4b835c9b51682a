"""Observations for success criteria that read the patched repository.

Criteria with ``target: file:<path>`` (the file's text), ``target: command:<cmd>`` (the
command's output) and ``file_exists`` (whether the path exists) are observed here, in a
sandbox with the submission's patch applied (no tests patch), under the task's limits.
``answer`` targets are read from the submission by scoring, not here.
"""

from __future__ import annotations

import secrets

from arena_bot.core.errors import SandboxError
from arena_bot.evaluation.harness import (
    GIT_TIMEOUT,
    HARNESS_DIR,
    REPO_DIR,
    check_protected,
)
from arena_bot.evaluation.stream import packaged
from arena_bot.intake.patches import ProtectedPaths
from arena_bot.models.evaluation import CriterionObservation
from arena_bot.models.task import FileExists, Task
from arena_bot.sandbox.base import Sandbox, SandboxEngine, SandboxLimits
from arena_bot.tasks.dataset import TaskFolder

#: The text of one observation is cut here; scoring never needs more.
MAX_OBSERVED_BYTES = 100_000


def observed_criteria(task: Task) -> list[tuple[int, str]]:
    """``(index, target)`` of every criterion observed in a sandbox (``file_exists`` as
    ``exists:<path>``)."""
    found: list[tuple[int, str]] = []
    for index, criterion in enumerate(task.success_criteria):
        if isinstance(criterion, FileExists):
            found.append((index, f"exists:{criterion.path}"))
            continue
        target = getattr(criterion, "target", "answer")
        if target.startswith(("file:", "command:")):
            found.append((index, target))
    return found


def observe_criteria(
    task: TaskFolder,
    *,
    engine: SandboxEngine,
    image: str,
    patch_text: str,
    patch_error: str | None,
    protected: ProtectedPaths,
) -> list[CriterionObservation]:
    """Observe every sandbox criterion of ``task`` on the code ``patch_text`` produces."""
    wanted = observed_criteria(task.spec)
    if not wanted:
        return []
    reason = patch_error or (None if patch_text.strip() else "the patch is empty")
    reason = reason or check_protected(patch_text, protected)
    if reason is not None:
        return [_failed(index, target, reason) for index, target in wanted]
    limits = SandboxLimits.from_task(task.spec.limits)
    try:
        with engine.open(image, limits=limits) as sandbox:
            applied = _apply(sandbox, task=task, patch_text=patch_text)
            if applied is not None:
                return [_failed(index, target, applied) for index, target in wanted]
            return [_observe_one(sandbox, index=index, target=target,
                                 timeout=task.spec.tests.timeout) for index, target in wanted]
    except SandboxError as exc:
        return [_failed(index, target, f"the harness failed: {exc.message}")
                for index, target in wanted]


def unobserved(task: TaskFolder, *, reason: str) -> list[CriterionObservation]:
    """Every sandbox criterion of ``task`` marked as not observable, with ``reason``."""
    return [_failed(index, target, reason) for index, target in observed_criteria(task.spec)]


def _apply(sandbox: Sandbox, *, task: TaskFolder, patch_text: str) -> str | None:
    sandbox.write_files(
        {"harness.sh": packaged("harness.sh"), "submission.patch": patch_text.encode()},
        directory=HARNESS_DIR,
    )
    harness = f"{HARNESS_DIR}/harness.sh"
    scratch = f"/tmp/arena-observe-{secrets.token_hex(6)}"
    prepared = sandbox.exec(["sh", harness, "prepare", task.spec.source.commit, scratch],
                            timeout=GIT_TIMEOUT, workdir=REPO_DIR)
    if prepared.exit_code != 0:
        return "the harness could not reset the repository"
    applied = sandbox.exec(["sh", harness, "apply", f"{HARNESS_DIR}/submission.patch"],
                           timeout=GIT_TIMEOUT, workdir=REPO_DIR)
    if applied.exit_code not in (0, 3):
        return "the patch does not apply to the base commit"
    return None


def _observe_one(
    sandbox: Sandbox, *, index: int, target: str, timeout: int
) -> CriterionObservation:
    kind, _, value = target.partition(":")
    if kind == "exists":
        # -e follows symlinks; -L catches a dangling one the patch created.
        result = sandbox.exec(["sh", "-c", 'test -e "$0" || test -L "$0"', value],
                              timeout=GIT_TIMEOUT, workdir=REPO_DIR)
        return CriterionObservation(criterion=index, target=f"file_exists:{value}",
                                    exists=result.exit_code == 0)
    if kind == "file":
        result = sandbox.exec(
            ["sh", "-c", 'test -f "$0" || exit 66; exec cat "$0"', value],
            timeout=GIT_TIMEOUT, workdir=REPO_DIR, output_limit=MAX_OBSERVED_BYTES,
        )
        if result.exit_code == 66:
            return CriterionObservation(criterion=index, target=target, exists=False,
                                        error=f"{value} does not exist after the patch")
        if result.exit_code != 0:
            return CriterionObservation(criterion=index, target=target,
                                        error=f"could not read {value}")
        return CriterionObservation(criterion=index, target=target, text=result.output,
                                    exists=True)
    result = sandbox.exec(["sh", "-c", value], timeout=timeout, workdir=REPO_DIR,
                          output_limit=MAX_OBSERVED_BYTES)
    if result.timed_out:
        return CriterionObservation(criterion=index, target=target, text=result.output,
                                    error="the command hit the time limit")
    error = None if result.exit_code == 0 else f"the command exited with {result.exit_code}"
    return CriterionObservation(criterion=index, target=target, text=result.output, error=error)


def _failed(index: int, target: str, reason: str) -> CriterionObservation:
    if target.startswith("exists:"):
        target = f"file_exists:{target.removeprefix('exists:')}"
    return CriterionObservation(criterion=index, target=target, error=reason)
