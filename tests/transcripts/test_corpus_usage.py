"""The usage rules of the ``transcript-consistent`` level hold on real transcripts.

Every transcript of ``corpus/`` (real sessions committed to public repositories, see its
README) that shows per-request usage, and every sub-agent file beside it, must have no
usage problem (:func:`arena_bot.intake.transcripts.edits.usage_problems`): a rule that rejects
what a tool really writes would deny the level to honest work. The files left out are
named below with the reason, and each is checked to be left out for that reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena_bot.intake.transcripts import read_transcript
from arena_bot.intake.transcripts.edits import Activity, usage_problems

CORPUS = Path(__file__).parent / "corpus"
MANIFEST: list[dict[str, Any]] = json.loads((CORPUS / "manifest.json").read_text())

#: Corpus files the usage rules cannot be asked to pass, with the problem they give.
EXCLUDED: dict[str, tuple[str, str]] = {
    # Hand-written test data of a transcript viewer, not a session: sessionId
    # "test_session", uuids and message ids "msg_001".."msg_010", whole-minute timestamps,
    # version "1.0.0", cwd /tmp, a model Claude Code never ran (claude-3-sonnet-20240229)
    # and a first request of 25 input tokens (no system prompt, no tool definitions).
    "claude-code/claude-code-log-representative.jsonl": (
        "hand-made fixture", "cannot carry the tool's system prompt"),
    # A real Codex Desktop 0.128 rollout, but it has no token_count event at all: no usage
    # to be consistent with (`arena submit` refuses it too).
    "codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl.gz": (
        "no usage", "shows no model request with usage"),
    # Claude Code's `result` event alone (what `--output-format json` prints): the run's
    # totals, no reply one by one.
    "claude-code/headless-2.1/result_success.json": (
        "totals only", "shows no model request with usage"),
    "claude-code/claude-code-2.1.328-json/result.json": (
        "totals only", "shows no model request with usage"),
    "claude-code/claude-code-1.0.128-json/result.json": (
        "totals only", "shows no model request with usage"),
    # `codex exec --json` prints the turn's usage total, never a model call's own.
    "codex/exec/01_simple_text.jsonl": ("turn totals only", "shows no model request with usage"),
    "codex/exec/02_read_file.jsonl": ("turn totals only", "shows no model request with usage"),
    "codex/exec/04_resume.jsonl": ("turn totals only", "shows no model request with usage"),
    "codex/exec/03_write_schema.jsonl": (
        "turn totals only", "shows no model request with usage"),
    # `gemini -p --output-format json` prints the CLI's running totals; `stream-json` its
    # result's totals: neither shows a model call's own usage.
    "gemini-cli/gemini-cli-0.61.0-json/stdout.json": (
        "run totals only", "shows no model request with usage"),
    "gemini-cli/gemini-cli-0.61.0-error/retried-500-stdout.json": (
        "run totals only", "shows no model request with usage"),
    "gemini-cli/gemini-cli-0.61.0-stream-json-plain/stdout.jsonl": (
        "run totals only", "shows no model request with usage"),
    "gemini-cli/gemini-cli-0.61.0-auto-json/stdout.json": (
        "run totals only", "shows no model request with usage"),
    "gemini-cli/gemini-cli-0.61.0-auto-stream-json/stdout.jsonl": (
        "run totals only", "shows no model request with usage"),
    "gemini-cli/gemini-cli-0.61.0-subagent/stdout.json": (
        "run totals only", "shows no model request with usage"),
    # A Gemini CLI sub-agent's own session (metadata `kind` `subagent`): read alone, its
    # usage counts as a sub-agent's, with no activity of its own (the session has that).
    "gemini-cli/gemini-cli-0.61.0-subagent/f8eb93d9-5280-4af8-9497-4cbf99028b18/"
    "554a0c2c-1486-4e7a-a9e0-80988293b171.jsonl": (
        "sub-agent file", "shows no model request with usage"),
    # The same, printed by real Codex CLI 0.80.0 and 0.169.0 against scripts/capture/codex.py.
    **{f"codex/codex-{name}.jsonl": ("turn totals only", "shows no model request with usage")
       for name in ("0.169.0-cachewrite/exec-json", "0.169.0-fail500/exec-json",
                    "0.169.0-json/exec-json", "0.169.0-resume/resume-json",
                    "0.169.0-task/exec-json", "0.169.0-spawn/exec-json",
                    "0.169.0-compact/exec-json",
                    "0.80.0-json/exec-json", "0.80.0-resume/resume-json")},
    # Codex 0.39's `--json` output has each call's usage (`last_token_usage`) but none of the
    # conversation's text to hold it against (its rollout has): no request is recorded.
    **{f"codex/codex-0.39.0-{name}.jsonl": (
        "no conversation text", "shows no model request with usage")
       for name in ("json/exec-json", "resume/resume-json", "task/exec-json",
                    "compact/exec-json", "fail500/exec-json", "cut/exec-json",
                    "sigint/exec-json", "sigkill/exec-json")},
    # A real OpenHands V1 conversation the SDK persisted, but for a probe whose model was
    # stubbed ("ok (stubbed LLM response)"): its one recorded call has 10 input tokens.
    "openhands-v1/sdk-restore-probe-3fdb3160.json": (
        "stubbed model", "cannot carry the conversation so far"),
}


#: The formats whose reader gives an activity (edit tool calls and per-request usage).
ACTIVITY_FORMATS = {"aider-history", "claude-code", "codex", "gemini-cli", "openhands", "swe-agent"}


def read_activity(path: Path, fmt: str) -> Activity | None:
    return read_transcript(path=path, format_name=fmt).activity


def _files() -> list[tuple[str, str]]:
    """``(path in corpus, format)`` of every file with an activity reader."""
    out = []
    for entry in MANIFEST:
        if entry["format"] not in ACTIVITY_FORMATS:
            continue  # ATIF: no edit activity reader, so no level to give (checked below)
        for name in (entry["file"], *entry["subagent_files"]):
            out.append((name, entry["format"]))
    return out


FILES = _files()


def test_the_corpus_has_real_usage_of_every_format_with_a_reader() -> None:
    checked = {fmt for name, fmt in FILES if name not in EXCLUDED}
    assert checked == ACTIVITY_FORMATS
    assert len([name for name, _ in FILES if name not in EXCLUDED]) >= 12


@pytest.mark.parametrize("entry", MANIFEST, ids=[entry["file"] for entry in MANIFEST])
def test_exactly_the_formats_with_edit_tool_calls_give_an_activity(
    entry: dict[str, Any],
) -> None:
    activity = read_activity(CORPUS / entry["file"], entry["format"])
    assert (activity is not None) == (entry["format"] in ACTIVITY_FORMATS)


@pytest.mark.parametrize(("name", "fmt"), FILES, ids=[name for name, _ in FILES])
def test_real_transcripts_have_no_usage_problem(name: str, fmt: str) -> None:
    activity = read_activity(CORPUS / name, fmt)
    assert activity is not None
    problems = usage_problems(activity)
    if name in EXCLUDED:
        assert any(EXCLUDED[name][1] in problem for problem in problems), problems
        return
    assert activity.requests, name
    assert problems == [], problems


def test_the_real_claude_code_sessions_include_responses_without_a_final_output_count(
) -> None:
    """The reason per-request output is not checked everywhere: real 2.0 and 2.1 sessions
    leave responses whose usage was written mid-stream (no stop_reason), one of them 3
    output tokens for a 20 kB reply."""
    activity = read_activity(CORPUS / "claude-code/codemie-2.0/agent-36541525.jsonl",
                             "claude-code")
    assert activity is not None
    (request,) = activity.requests
    assert not request.output_final
    assert request.output_tokens == 3 and request.output_chars > 15_000
    session = read_activity(
        CORPUS / "claude-code/codemie-2.1/e9fb405b-169f-40eb-9396-7e75076f045d.jsonl.gz",
        "claude-code")
    assert session is not None
    finals = [r.output_final for r in session.requests]
    assert any(finals) and not all(finals)
