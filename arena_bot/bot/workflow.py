"""Writing to the Actions runner: step outputs, the job summary, safe log output."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

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
