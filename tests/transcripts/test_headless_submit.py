"""``arena submit --format claude-code`` of a headless run's printed output (what CooperBench
keeps as ``<agent>_stream.jsonl``), then ``arena validate`` and the metrics level, on a real
git working tree of the shipped task.

The stream is built here (synthetic) in the shape of Claude Code 2.1's real stream-json
(``corpus/claude-code/headless-2.1`` and ``data/claude_code_stream_partial_messages.jsonl``):
an ``init`` event naming the working directory, one line per content block repeating the
message's usage with a partial output count, the tool results, and a final ``result`` with
``modelUsage``; its ``Write`` calls write exactly the files the working tree changed, so its
replay is the patch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from test_submit import TASK, agent_workdir, metrics_levels, project, validate  # noqa: F401

from arena_bot.cli import main

MODEL = "claude-sonnet-4-5-20250929"
SESSION = "5b0c2f4e-7d1a-4c3b-9e2f-1a2b3c4d5e6f"
CHANGED = ("slugkit/__main__.py", "slugkit/core.py", "slugkit/notes_helper.py")


def stream(path: Path, workdir: Path) -> Path:
    """stdout and stderr of `claude -p --output-format stream-json --verbose`, one Write per
    changed file."""
    def event(**fields: Any) -> dict[str, Any]:
        return {**fields, "session_id": SESSION}

    events: list[dict[str, Any]] = [event(
        type="system", subtype="init", cwd="/workspace/repo", model=MODEL,
        tools=["Bash", "Read", "Edit", "Write"], permissionMode="bypassPermissions",
        claude_code_version="2.1.7")]
    for number, name in enumerate(CHANGED, 1):
        usage = {"input_tokens": 3, "cache_creation_input_tokens": 2000,
                 "cache_read_input_tokens": 14000 + 2000 * number, "output_tokens": 2}
        message = {"model": MODEL, "id": f"msg_0{number}", "type": "message",
                   "role": "assistant", "stop_reason": None, "usage": usage}
        events.append(event(type="assistant", parent_tool_use_id=None, message={
            **message, "content": [{"type": "text", "text": f"Writing {name}."}]}))
        events.append(event(type="assistant", parent_tool_use_id=None, message={
            **message, "content": [{"type": "tool_use", "id": f"toolu_0{number}",
                                    "name": "Write", "input": {
                                        "file_path": f"/workspace/repo/{name}",
                                        "content": (workdir / name).read_text()}}]}))
        events.append(event(type="user", parent_tool_use_id=None, message={
            "role": "user", "content": [{"tool_use_id": f"toolu_0{number}",
                                         "type": "tool_result",
                                         "content": f"File created successfully at: {name}"}]}))
    events.append(event(
        type="result", subtype="success", is_error=False, duration_ms=95_400,
        duration_api_ms=61_000, num_turns=4, result="Done.", total_cost_usd=0.1,
        usage={"input_tokens": 9, "cache_creation_input_tokens": 6000,
               "cache_read_input_tokens": 54000, "output_tokens": 2400},
        modelUsage={MODEL: {"inputTokens": 9, "outputTokens": 2400,
                            "cacheReadInputTokens": 54000,
                            "cacheCreationInputTokens": 6000}}))
    lines = [json.dumps(e) for e in events]
    lines.insert(1, "(node:23) Warning: an npm warning printed on stderr")  # 2>&1 | tee
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_headless_stream_is_submitted_validated_and_consistent(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:

    workdir = agent_workdir(project, tmp_path / "work")
    result = CliRunner().invoke(main, [
        "--root", str(project), "submit", "--task", TASK, "--format", "claude-code",
        "--tool", "Claude Code", "--tool-version", "2.1.7", "--contributor", "Test Person",
        "--date", "2026-11-20", "--workdir", str(workdir),
        "--transcript", str(stream(tmp_path / "agent1_stream.jsonl", workdir))])
    assert result.exit_code == 0, result.output
    folder = next((project / "submissions" / TASK).iterdir())
    run = yaml.safe_load((folder / "submission.yaml").read_text())["runs"][0]
    # The result's figures, not the 2 output tokens each reply's lines carry.
    assert run["tokens"] == {"total": 60009 + 2400, "prompt": 60009, "completion": 2400,
                             "cached": 54000}
    assert (run["tool_calls"], run["iterations"], run["execution_time"]) == (3, 3, 95.4)
    assert validate(project, folder)[0] == 0
    marks = metrics_levels(project, [folder], tmp_path)
    assert marks[folder.name] == ("transcript-consistent", []), marks
