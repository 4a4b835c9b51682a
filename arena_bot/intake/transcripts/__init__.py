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
from arena_bot.intake.transcripts.codex import subagent_files as codex_subagent_files
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


#: Formats whose sub-agents write session files of their own (Claude Code 2.x, Gemini CLI
#: 0.39+, Codex 0.16x ``multi_agent``), read with the session and stored appended to it by
#: ``arena submit``: how to find them beside the session, and where a contributor whose copy
#: lacks them should look.
SUBAGENTS: dict[str, tuple[Callable[[Path], list[Path]], str]] = {
    "claude-code": (claude_subagent_files, "their agent-<id>.jsonl files were not found "
                    "beside the session: copy the session's folder too"),
    "codex": (codex_subagent_files, "their rollout-*-<id>.jsonl files were not found in "
              "the session's folder (sessions/YYYY/MM/DD/): copy them beside it (the "
              "`codex exec --json` output holds none of their usage: pass the rollout)"),
    "gemini-cli": (gemini_subagent_files, "their <id>.jsonl files were not found in the "
                   "folder named by the session's id beside it (chats/<session id>/): copy "
                   "that folder too"),
}


def subagent_files(path: Path, format_name: str) -> list[Path]:
    """The sub-agent session files read with ``path`` (:data:`SUBAGENTS`); none for the
    other formats."""
    found = SUBAGENTS.get(format_name)
    return found[0](path) if found is not None else []


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


__all__ = ["READERS", "SUBAGENTS", "TranscriptMetrics", "read_transcript", "subagent_files"]
