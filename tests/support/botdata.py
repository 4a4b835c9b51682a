"""Real-shaped records for the bot's tests: leaderboard entries, task boards, validation
reports, bundles, evaluation results (each validated by its model) and pull requests on the
local GitHub server (support.fakegithub)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena_bot.bot.bundle import Bundle
from arena_bot.intake.diagnostics import DiagnosticOut, ReportOut, SubmissionOut, SummaryOut
from arena_bot.models.leaderboard import Entry
from support.fakegithub import FakeGitHub, FakePull

#: The bot tests' data files (events, artifacts).
DATA = Path(__file__).resolve().parents[1] / "bot" / "data"
FORK_SHA = "c0ffee0000000000000000000000000000000001"
SAME_REPO_SHA = "c0ffee0000000000000000000000000000000002"


def make_entry(key: str = "slugkit-options/2026-11-02_claude-code_x", **changes: Any) -> dict:
    """A leaderboard entry in the scorer's real format (validated by its model)."""
    task, submission = key.split("/")
    weights = {"efficiency": 0.3, "speed": 0.2, "cost": 0.2, "correctness": 0.3}
    data: dict[str, Any] = {
        "key": key, "task_id": task, "submission_id": submission, "tool": "claude-code",
        "tool_version": "1.0", "model": "claude-sonnet-4-5", "label": "claude-code / sonnet",
        "contributor": "alice", "setting": "solo", "status": "scored", "run_count": 2,
        "metrics": {"tokens": 1000.0, "tool_calls": 10.0, "iterations": 3.0,
                    "execution_time": 60.0, "estimated_cost": 0.5},
        "runs": [],
        "scores": {
            "overall": 71.5, "overall_unadjusted": 65.0, "composite": 65.0,
            "resolve_rate": 1.0, "efficiency": 70.0,
            "efficiency_parts": {"token": 80.0, "tool_call": 60.0, "iteration": 55.0},
            "speed": 50.0, "cost": 40.0, "correctness": 90.0, "weights": weights,
            "difficulty_multiplier": 1.1,
        },
        "correctness": [{"index": 1, "type": "tests", "weight": 1.0,
                         "description": "feature tests pass", "score": 90.0,
                         "scored_runs": 2}],
        "rank": 2, "percentile": 62.5, "statistically_tied": True,
    }
    data.update(changes)
    return Entry.model_validate(data).model_dump(mode="json")


def make_task_board(task_id: str = "slugkit-options", **changes: Any) -> dict:
    """A task board in the scorer's real format (validated by its model): its baseline."""
    from arena_bot.models.leaderboard import TaskBoard

    def metric(low: float, median: float, high: float) -> dict[str, Any]:
        return {"min": low, "median": median, "max": high, "q25": low, "q75": high,
                "source": "dynamic", "count": 4}

    data: dict[str, Any] = {
        "task_id": task_id, "title": "Slug options", "category": "backend_development",
        "difficulty": "intermediate", "difficulty_multiplier": 1.1,
        "weights": {"efficiency": 0.3, "speed": 0.2, "cost": 0.2, "correctness": 0.3},
        "baseline": {
            "source": "dynamic", "submission_count": 4, "min_submissions": 3,
            "tokens": metric(500, 1000, 4000), "tool_calls": metric(5, 10, 40),
            "execution_time": metric(20, 60, 300), "cost": metric(0.05, 0.5, 2.5),
            "iterations": metric(1, 3, 9),
        },
        "scored": 4, "pending": 0, "errors": 0,
    }
    data.update(changes)
    return TaskBoard.model_validate(data).model_dump(mode="json")


def make_report(*items: tuple[str, bool, list[DiagnosticOut]]) -> ReportOut:
    subs = [
        SubmissionOut(path=f"submissions/{key}", key=key, valid=valid, diagnostics=diags)
        for key, valid, diags in items
    ]
    valid = sum(1 for s in subs if s.valid)
    return ReportOut(
        valid=valid == len(subs),
        summary=SummaryOut(submissions=len(subs), valid=valid, invalid=len(subs) - valid,
                           errors=sum(len(s.diagnostics) for s in subs), warnings=0),
        submissions=subs, diagnostics=[],
    )


def make_bundle(
    *, pr: int = 7, sha: str = FORK_SHA, entries: list[dict] | None = None,
    report: ReportOut | None = None,
) -> Bundle:
    key = "slugkit-options/2026-11-02_claude-code_x"
    return Bundle(
        bot_version="0.1.0", pr_number=pr, head_sha=sha,
        changed_files=[f"submissions/{key}/submission.yaml"],
        validation=report or make_report((key, True, [])),
        entries=[make_entry(key)] if entries is None else entries,
        tasks=[make_task_board()],
    )


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def add_pull(github: FakeGitHub, number: int = 7, sha: str = FORK_SHA,
             files: list[str] | None = None, head_repo: str | None = None) -> FakePull:
    """A PR; its head repository is the fork of the fork fixtures unless given (the same
    repository for ``SAME_REPO_SHA``)."""
    if head_repo is None:
        head_repo = "arena/board" if sha == SAME_REPO_SHA else "contributor/board"
    pull = FakePull(number=number, head_sha=sha, head_repo=head_repo,
                    files=files or ["submissions/slugkit-options/x/submission.yaml"])
    github.pulls[number] = pull
    return pull


def make_result(key: str = "slugkit-options/2026-11-02_claude-code_x", *, coop: bool = False,
                **changes: Any) -> dict:
    """An evaluation result in ``arena evaluate``'s real format (validated by its model)."""
    from arena_bot.models.evaluation import EvaluationResult

    task, submission = key.split("/")
    failing = {
        "feature": 2, "status": "failed", "passed": False, "apply_status": "clean",
        "exit_code": 1, "tests_passed": 3, "tests_failed": 1,
        "tests": [{"name": "tests/test_slug.py::test_unicode", "outcome": "failed",
                   "message": "AssertionError: 'caf' != 'cafe'\nmore detail"},
                  {"name": "tests/test_slug.py::test_ascii", "outcome": "passed"}],
        "output": "FAILED tests/test_slug.py::test_unicode\n```\n1 failed, 3 passed",
        "review_flags": [{"file": "src/conftest_helper.py", "line": 12,
                          "reason": "imports pytest internals"}],
    }
    passing = {"feature": 1, "status": "passed", "passed": True, "apply_status": "clean",
               "exit_code": 0, "tests_passed": 4, "tests": []}
    run: dict[str, Any] = {"run_id": "r1", "features": [passing, failing]}
    if coop:
        run["features"] = [passing, {**passing, "feature": 2}]
        run["merge"] = {"status": "conflicts", "strategy": "union", "conflict_score": 46,
                        "severity": "MEDIUM", "both_passed": False, "diff": "x" * 100,
                        "features": [passing, {**failing, "review_flags": []}]}
    data: dict[str, Any] = {
        "task_id": task, "submission_id": submission, "input_hash": "a" * 64,
        "harness_version": "1", "evaluated_at": "2026-11-20T10:00:00Z", "runs": [run],
    }
    data.update(changes)
    return EvaluationResult.model_validate(data).model_dump(mode="json")


#: Real webhook payloads, verbatim: octokit/webhooks (github.com/octokit/webhooks, commit
#: 3a58428aa5c399cf5aa12c8663aea1fb1f515254, payload-examples/api.github.com/). The event
#: fixtures in DATA are these with only the fields below set (events_match_their_origin in
#: tests/bot/test_bot_events.py keeps it so); ``make_events`` writes them.
OCTOKIT = DATA / "octokit"


def _fork_repo(full_name: str) -> dict[str, Any]:
    owner, name = full_name.split("/")
    return {"workflow_run.head_repository.full_name": full_name,
            "workflow_run.head_repository.name": name,
            "workflow_run.head_repository.owner.login": owner}


#: fixture name -> (octokit payload, fields set on it)
EVENT_CHANGES: dict[str, tuple[str, dict[str, Any]]] = {
    "workflow_run_fork.json": ("workflow_run_completed.payload.json", {
        "workflow_run.name": "PR evaluation", "workflow_run.event": "pull_request",
        "workflow_run.head_sha": FORK_SHA, "workflow_run.head_branch": "add-my-run",
        "workflow_run.repository.full_name": "arena/board", "repository.full_name":
        "arena/board", "workflow_run.pull_requests": [], **_fork_repo("contributor/board")}),
    "workflow_run_same_repo.json": ("workflow_run_completed.with-pull-requests.payload.json", {
        "workflow_run.name": "PR evaluation", "workflow_run.event": "pull_request",
        "workflow_run.head_sha": SAME_REPO_SHA, "workflow_run.head_branch": "add-my-run",
        "workflow_run.repository.full_name": "arena/board", "repository.full_name":
        "arena/board", "workflow_run.pull_requests.0.number": 8,
        "workflow_run.pull_requests.0.head.sha": SAME_REPO_SHA,
        "workflow_run.pull_requests.0.head.ref": "add-my-run", **_fork_repo("arena/board")}),
    "pull_request_fork.json": ("pull_request_synchronize.payload.json", {
        "number": 7, "pull_request.number": 7, "pull_request.head.sha": FORK_SHA,
        "pull_request.head.ref": "add-my-run",
        "pull_request.head.repo.full_name": "contributor/board",
        "pull_request.base.repo.full_name": "arena/board",
        "repository.full_name": "arena/board"}),
}


def adapted_event(name: str) -> dict[str, Any]:
    """The real payload behind fixture ``name`` with its listed fields set."""
    source, changes = EVENT_CHANGES[name]
    data = json.loads((OCTOKIT / source).read_text(encoding="utf-8"))
    for dotted, value in changes.items():
        parts = dotted.split(".")
        target: Any = data
        for part in parts[:-1]:
            target = target[int(part)] if part.isdigit() else target[part]
        target[parts[-1]] = value
    return data


def workflow_run_event(path: Path, *, head_sha: str, head_repo: str = "contributor/board",
                       branch: str = "add-my-run") -> Path:
    """A real workflow_run payload (the fork fixture's) for another head, written to path."""
    data = adapted_event("workflow_run_fork.json")
    run = data["workflow_run"]
    run["head_sha"], run["head_branch"] = head_sha, branch
    run["head_repository"]["full_name"] = head_repo
    run["head_repository"]["owner"]["login"] = head_repo.split("/")[0]
    return write_json(path, data)


def make_events() -> None:
    """Write the event fixtures of EVENT_CHANGES into DATA."""
    for name in EVENT_CHANGES:
        (DATA / name).write_text(json.dumps(adapted_event(name), indent=2) + "\n",
                                 encoding="utf-8")
