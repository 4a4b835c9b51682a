"""``arena submit --format openhands`` with an OpenHands V1 conversation, then ``arena
validate`` and the metrics level, on a real git working tree of the shipped task.

The conversation is built the way the SDK persists one (``base_state.json`` with the calls'
``token_usages``, then the events) and made one file as the docs say; its ``file_editor``
calls write exactly the files the working tree changed, so its replay is the patch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from test_submit import TASK, agent_workdir, metrics_levels, project, validate  # noqa: F401

from arena_bot.cli import main

MODEL = "litellm_proxy/anthropic/claude-sonnet-4-5-20250929"
CHANGED = ("slugkit/__main__.py", "slugkit/core.py", "slugkit/notes_helper.py")


def conversation(path: Path, workdir: Path) -> Path:
    """base_state.json and events of a V1 run that writes CHANGED, one object per line."""
    stamp = "2026-11-20T10:{:02d}:{:02d}.000000"
    events: list[dict[str, Any]] = [
        {"kind": "SystemPromptEvent", "id": "e0", "timestamp": stamp.format(0, 0),
         "source": "agent", "system_prompt": {"type": "text", "text": "You are OpenHands."},
         "tools": [{"name": "file_editor"}, {"name": "terminal"}]},
        {"kind": "MessageEvent", "id": "e1", "timestamp": stamp.format(0, 1), "source": "user",
         "llm_message": {"role": "user", "content": [
             {"type": "text", "text": "Add --max-length to the slug command."}]}},
    ]
    calls = []
    for number, name in enumerate(CHANGED, 1):
        text = (workdir / name).read_text()
        arguments = {"command": "create", "path": f"/workspace/project/{name}",
                     "file_text": text}
        response = f"chatcmpl-{number}"
        events.append({
            "kind": "ActionEvent", "id": f"a{number}", "timestamp": stamp.format(number, 0),
            "source": "agent", "thought": [{"type": "text", "text": f"Writing {name}."}],
            "action": {"kind": "FileEditorAction", **arguments},
            "tool_name": "file_editor", "tool_call_id": f"call_{number}",
            "tool_call": {"id": f"call_{number}", "name": "file_editor",
                          "arguments": json.dumps(arguments), "origin": "completion"},
            "llm_response_id": response, "security_risk": "LOW"})
        events.append({
            "kind": "ObservationEvent", "id": f"o{number}", "timestamp": stamp.format(number, 5),
            "source": "environment", "tool_name": "file_editor",
            "tool_call_id": f"call_{number}", "action_id": f"a{number}",
            "observation": {"kind": "FileEditorObservation", "is_error": False,
                            "content": [{"type": "text", "text": f"File created: {name}"}]}})
        prompt = 6000 + 2000 * number
        calls.append({"model": MODEL, "prompt_tokens": prompt, "completion_tokens": 900,
                      "cache_read_tokens": prompt - 3000, "cache_write_tokens": 2000,
                      "response_id": response})
    total = {key: sum(call[key] for call in calls) for key in
             ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens")}
    base_state = {"id": "3fdb3160-98bb-48e1-aa02-9ce56805792a",
                  "agent": {"llm": {"model": MODEL, "api_key": "**********"}},
                  "workspace": {"kind": "LocalWorkspace", "working_dir": "/workspace/project"},
                  "execution_status": "finished",
                  "stats": {"usage_to_metrics": {"default": {
                      "model_name": MODEL, "accumulated_token_usage": {"model": MODEL, **total},
                      "token_usages": calls}}}}
    path.write_text("".join(json.dumps(item) + "\n" for item in [base_state, *events]))
    return path


def submit(board: Path, workdir: Path, session: Path) -> tuple[int, str]:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, [
        "--root", str(board), "submit", "--task", TASK, "--format", "openhands",
        "--tool", "OpenHands CLI", "--tool-version", "1.11.0", "--contributor", "Test Person",
        "--date", "2026-11-20", "--workdir", str(workdir), "--transcript", str(session)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_a_v1_conversation_is_submitted_validated_and_consistent(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:

    workdir = agent_workdir(project, tmp_path / "work")
    session = conversation(tmp_path / "transcript.jsonl", workdir)
    code, output = submit(project, workdir, session)
    assert code == 0, output
    folders = sorted((project / "submissions" / TASK).iterdir())
    assert len(folders) == 1
    folder = folders[0]
    spec = yaml.safe_load((folder / "submission.yaml").read_text())
    run = spec["runs"][0]
    # Three calls: prompts 8000, 10000, 12000 (each with its reads and 2000 writes: 1000
    # uncached each), 900 output each; from 10:00:00 to 10:03:05.
    assert run["tokens"] == {"total": 30000 + 2700, "prompt": 30000, "completion": 2700,
                             "cached": 5000 + 7000 + 9000}
    assert (run["tool_calls"], run["iterations"], run["execution_time"]) == (3, 3, 185.0)
    assert run["transcript"]["format"] == "openhands"
    assert validate(project, folder)[0] == 0
    marks = metrics_levels(project, folders, tmp_path)
    assert marks[folder.name] == ("transcript-consistent", []), marks


def test_a_v1_conversation_of_other_files_is_refused(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:
    workdir = agent_workdir(project, tmp_path / "work")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "slugkit").mkdir(parents=True)
    for name in CHANGED:
        (elsewhere / name).write_text("x = 1\n")
    session = conversation(tmp_path / "transcript.jsonl", elsewhere)
    text = session.read_text().replace("slugkit/", "csvstat/")
    session.write_text(text)
    code, output = submit(project, workdir, session)
    assert code == 1 and "transcript-mismatch" in output and "csvstat/" in output
    assert not (project / "submissions" / TASK).exists() or not any(
        (project / "submissions" / TASK).iterdir())
