"""Readers that recompute an agent run's metrics, and read its activity, from its transcript.

One module per transcript format, each reading its file once for both: the figures
(:class:`TranscriptMetrics`) and, where the format shows edit tool calls, the
:class:`~arena_bot.intake.transcripts.edits.Activity` that :mod:`.edits` replays and checks.
:func:`read_transcript` dispatches on the format name.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.aider import read_aider_analytics, read_aider_history
from arena_bot.intake.transcripts.atif import read_atif
from arena_bot.intake.transcripts.claude_code import read_claude_code
from arena_bot.intake.transcripts.claude_code import subagent_files as claude_subagent_files
from arena_bot.intake.transcripts.codex import read_codex
from arena_bot.intake.transcripts.gemini_cli import read_gemini_cli
from arena_bot.intake.transcripts.gemini_cli import subagent_files as gemini_subagent_files
from arena_bot.intake.transcripts.generic import read_generic
from arena_bot.intake.transcripts.metrics import TranscriptMetrics
from arena_bot.intake.transcripts.openhands import read_openhands
from arena_bot.intake.transcripts.swe_agent import read_swe_agent

READERS: dict[str, Callable[[Path], TranscriptMetrics]] = {
    "aider": read_aider_analytics,
    "aider-history": read_aider_history,
    "atif": read_atif,
    "claude-code": read_claude_code,
    "codex": read_codex,
    "gemini-cli": read_gemini_cli,
    "generic": read_generic,
    "openhands": read_openhands,
    "swe-agent": read_swe_agent,
}


#: Where a format's sub-agent files are, for a contributor whose copy lacks them.
SUBAGENT_FILES_HINT = {
    "claude-code": "their agent-<id>.jsonl files were not found beside the session: copy the "
    "session's folder too",
    "gemini-cli": "their <id>.jsonl files were not found in the folder named by the session's "
    "id beside it (chats/<session id>/): copy that folder too",
}


def subagent_files(path: Path, format_name: str) -> list[Path]:
    """The sub-agent session files read with ``path`` (Claude Code 2.x, Gemini CLI 0.39+),
    which ``arena submit`` stores appended to it; none for the other formats."""
    if format_name == "claude-code":
        return claude_subagent_files(path)
    if format_name == "gemini-cli":
        return gemini_subagent_files(path)
    return []


def read_transcript(*, path: Path, format_name: str) -> TranscriptMetrics:
    """Read ``path`` as a transcript of ``format_name`` and return the recomputed metrics."""
    reader = READERS.get(format_name)
    if reader is None:
        known = ", ".join(sorted(READERS))
        raise InputError(
            f"unknown transcript format {format_name!r}", path=path, hint=f"use one of: {known}"
        )
    try:
        return reader(path)
    except RecursionError as exc:  # JSON nested thousands deep: a crafted file
        raise InputError("the transcript nests JSON too deeply to read", path=path,
                         hint=f"check --format: no {format_name} transcript nests so deep") from exc


__all__ = ["READERS", "SUBAGENT_FILES_HINT", "TranscriptMetrics", "read_transcript",
           "subagent_files"]
