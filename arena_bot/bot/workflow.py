"""The Actions runner: which event started the job (each mode runs on its own), step
outputs, the job summary, safe log output."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from arena_bot.bot.events import BranchEvent, load_event
from arena_bot.core.errors import UsageError

#: GitHub's cap on one step summary.
SUMMARY_LIMIT = 1024 * 1024


def stop_commands(text: str) -> str:
    """``text`` wrapped so no line of it can issue a workflow command.

    Between ``::stop-commands::TOKEN`` and ``::TOKEN::`` the runner treats ``::`` lines as
    plain text; the token is random, so untrusted text cannot guess it and end the block.
    """
    token = secrets.token_hex(16)
    while token in text:  # astronomically unlikely, but then the block could be closed
        token = secrets.token_hex(16)
    return f"::stop-commands::{token}\n{text.rstrip()}\n::{token}::"


@contextmanager
def commands_stopped(env: Mapping[str, str], echo: Callable[[str], None]) -> Iterator[None]:
    """Inside GitHub Actions, everything printed in the block is plain text to the runner
    (for output that mixes our lines with a submission's text). Outside Actions: nothing."""
    if env.get("GITHUB_ACTIONS") != "true":
        yield
        return
    token = secrets.token_hex(16)
    echo(f"::stop-commands::{token}")
    try:
        yield
    finally:
        echo(f"::{token}::")


def set_outputs(env: Mapping[str, str], values: Mapping[str, str]) -> None:
    """Append ``values`` to ``$GITHUB_OUTPUT`` when it is set (single-line values only)."""
    target = env.get("GITHUB_OUTPUT")
    if not target:
        return
    with Path(target).open("a", encoding="utf-8") as handle:
        for key, value in values.items():
            handle.write(f"{key}={value.replace(chr(10), ' ').replace(chr(13), ' ')}\n")


def write_summary(env: Mapping[str, str], markdown: str) -> None:
    """Append ``markdown`` to ``$GITHUB_STEP_SUMMARY`` when it is set (capped at 1 MiB)."""
    target = env.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    with Path(target).open("a", encoding="utf-8") as handle:
        handle.write(markdown[: SUMMARY_LIMIT - 1] + "\n")


#: The events each mode runs on, as the workflows trigger it. ``pull_request_target`` is
#: not one: it runs with a write token and secrets, never the place for a PR's own code.
_PUBLISHING = ("push", "workflow_dispatch", "schedule")
TRIGGERS: dict[str, tuple[str, ...]] = {
    "evaluate-pr": ("pull_request",),
    "comment": ("workflow_run",),
    "publish": _PUBLISHING,
    # the publish workflow's other jobs: planning its matrix, the matrix jobs, and gathering
    # their results into the store the publish job saves
    "plan": _PUBLISHING,
    "evaluate-unit": _PUBLISHING,
    "aggregate": _PUBLISHING,
}


def check_trigger(mode: str, env: Mapping[str, str]) -> None:
    """Inside Actions, refuse to run ``mode`` on an event it is not made for (a UsageError,
    raised before the command does anything). Publishing, and each of its steps (plan,
    evaluate-unit, aggregate), also needs the default branch: a push of a tag, of another
    branch or a branch deletion publishes nothing."""
    name = env.get("GITHUB_EVENT_NAME")
    if not name:
        return
    allowed = TRIGGERS[mode]
    hint = ("run each mode from the workflows in the README: evaluate-pr on pull_request, "
            "comment on workflow_run, plan / evaluate-units / publish on a push to the "
            "default branch")
    if name not in allowed:
        raise UsageError(f"`arena bot {mode}` runs on {' or '.join(allowed)} events; this "
                         f"job was triggered by {name}: nothing done", hint=hint)
    path = env.get("GITHUB_EVENT_PATH")
    if allowed != _PUBLISHING or name == "schedule" or not path:
        return
    event = load_event(Path(path), BranchEvent)
    default = event.repository.default_branch if event.repository else None
    if default is None:  # GitHub always names it: a payload without it proves nothing
        raise UsageError(f"`arena bot {mode}` needs the default branch, and this {name} "
                         "event does not name the repository's default branch: nothing done",
                         hint=hint)
    if event.deleted or event.ref != f"refs/heads/{default}":
        what, done = (("publishes", "nothing published") if mode == "publish"
                      else ("is a step of publishing", "nothing done"))
        raise UsageError(
            f"`arena bot {mode}` {what} the default branch ({default}); this {name} "
            f"{'deleted' if event.deleted else 'is for'} {event.ref}: {done}",
            hint=hint)
