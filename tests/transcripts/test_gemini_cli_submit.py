"""``arena submit --format gemini-cli``, then ``arena validate`` and the metrics level, on a
real git working tree of the shipped task.

The first test submits a real Gemini CLI session (``corpus/gemini-cli``, see its README) from
a working tree that holds the file that session wrote; the second a session built here
(synthetic, in Gemini CLI's JSON Lines shape) whose ``write_file`` calls write exactly the
files the working tree changed, so its replay is the patch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from test_submit import TASK, agent_workdir, edit_spec, metrics_levels, project, validate  # noqa: F401

from arena_bot.cli import main

CORPUS = Path(__file__).parent / "corpus"
HELLO = CORPUS / "gemini-cli" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
MODEL = "gemini-3-pro-preview"
CHANGED = ("slugkit/__main__.py", "slugkit/core.py", "slugkit/notes_helper.py")


def submit(board: Path, workdir: Path, session: Path) -> tuple[int, str]:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, [
        "--root", str(board), "submit", "--task", TASK, "--format", "gemini-cli",
        "--tool", "Gemini CLI", "--tool-version", "0.40.0", "--contributor", "Test Person",
        "--date", "2026-11-20", "--workdir", str(workdir), "--transcript", str(session)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def the_folder(board: Path) -> Path:
    folders = sorted((board / "submissions" / TASK).iterdir())
    assert len(folders) == 1
    return folders[0]


def test_a_real_gemini_cli_session_is_submitted_with_its_own_figures(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:
    """The session wrote hello.md three times; the working tree holds its last version."""
    entry = next(e for e in json.loads((CORPUS / "manifest.json").read_text())
                 if e["file"] == "gemini-cli/" + HELLO.name)
    expected = entry["expected"]
    workdir = agent_workdir(project, tmp_path / "work")
    writes = [call for message in json.loads(HELLO.read_text())["messages"]
              for call in message.get("toolCalls", []) if call["name"] == "write_file"]
    (workdir / "hello.md").write_text(writes[-1]["args"]["content"])
    code, output = submit(project, workdir, HELLO)
    assert code == 0, output
    folder = the_folder(project)
    run = yaml.safe_load((folder / "submission.yaml").read_text())["runs"][0]
    prompt = expected["uncached"] + expected["cache_read"]
    assert run["tokens"] == {"total": prompt + expected["output"], "prompt": prompt,
                             "completion": expected["output"],
                             "cached": expected["cache_read"]}
    assert (run["tool_calls"], run["iterations"], run["execution_time"]) == (
        expected["tool_calls"], expected["iterations"], round(expected["seconds"], 1))
    assert run["transcript"]["format"] == "gemini-cli" and run["estimated_cost"] > 0
    assert validate(project, folder)[0] == 0
    edit_spec(folder, lambda spec: spec["tool"].update(name="gemini-cli"))
    code, output = validate(project, folder)
    assert code == 0 and "tool-mismatch" not in output, output
    edit_spec(folder, lambda spec: spec["tool"].update(name="Claude Code"))
    code, output = validate(project, folder)
    assert code == 0 and "warning [tool-mismatch]" in output and "(Gemini CLI's own" in output


def session(path: Path, workdir: Path) -> Path:
    """A Gemini CLI 0.39+ session (synthetic) whose write_file calls write CHANGED."""
    stamp = "2026-11-20T10:{:02d}:{:02d}.000Z"
    records: list[dict[str, Any]] = [
        {"sessionId": "0f3c6a52-1111-4222-8333-944455556666", "projectHash": "ab" * 32,
         "startTime": stamp.format(0, 0), "lastUpdated": stamp.format(0, 0), "kind": "main"},
        {"id": "u1", "timestamp": stamp.format(0, 1), "type": "user",
         "content": [{"text": "Add --max-length to the slug command."}]},
        {"$set": {"lastUpdated": stamp.format(0, 1)}},
    ]
    for number, name in enumerate(CHANGED, 1):
        text = (workdir / name).read_text()
        prompt = 6000 + 2000 * number
        message = {"id": f"g{number}", "timestamp": stamp.format(number, 0), "type": "gemini",
                   "content": "", "thoughts": [{"subject": "Writing", "description": name,
                                                "timestamp": stamp.format(number, 0)}],
                   "model": MODEL,
                   "tokens": {"input": prompt, "output": 900, "cached": prompt - 3000,
                              "thoughts": 100, "tool": 0, "total": prompt + 1000}}
        call = {"id": f"write_file-{number}", "name": "write_file",
                "args": {"file_path": f"/home/dev/project/{name}", "content": text},
                "status": "success", "timestamp": stamp.format(number, 5),
                "result": [{"functionResponse": {
                    "id": f"write_file-{number}", "name": "write_file",
                    "response": {"output": f"Successfully wrote {name}."}}}]}
        records += [message, {**message, "toolCalls": [call]},
                    {"$set": {"lastUpdated": stamp.format(number, 5)}}]
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def test_a_gemini_cli_session_is_submitted_validated_and_consistent(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:

    workdir = agent_workdir(project, tmp_path / "work")
    code, output = submit(project, workdir,
                          session(tmp_path / "session-2026-11-20T10-00-0f3c6a52.jsonl", workdir))
    assert code == 0, output
    folder = the_folder(project)
    run = yaml.safe_load((folder / "submission.yaml").read_text())["runs"][0]
    # Three responses: prompts 8000, 10000, 12000 (3000 uncached each), 900 output and 100
    # thought tokens each; from 10:00:01 to 10:03:05.
    assert run["tokens"] == {"total": 30000 + 3000, "prompt": 30000, "completion": 3000,
                             "cached": 5000 + 7000 + 9000}
    assert (run["tool_calls"], run["iterations"], run["execution_time"]) == (3, 3, 184.0)
    assert validate(project, folder)[0] == 0
    marks = metrics_levels(project, [folder], tmp_path)
    assert marks[folder.name] == ("transcript-consistent", []), marks


def test_a_gemini_cli_session_of_other_files_is_refused(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:
    workdir = agent_workdir(project, tmp_path / "work")
    code, output = submit(project, workdir, HELLO)  # hello.md is not in this working tree
    assert code == 1 and "transcript-mismatch" in output and "hello.md" in output


def test_a_sub_agent_file_is_stored_with_the_session_and_a_missing_one_named(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:
    """Synthetic: the session's last response ran sub-agent "a7c2" (agentId, Gemini CLI
    0.39+), whose own session is chats/<session id>/a7c2.jsonl beside it."""
    workdir = agent_workdir(project, tmp_path / "work")
    chats = tmp_path / "chats"
    chats.mkdir()
    main = session(chats / "session-2026-11-20T10-00-0f3c6a52.jsonl", workdir)
    records = [json.loads(line) for line in main.read_text().splitlines()]
    records[-2]["toolCalls"].append({
        "id": "invoke_agent-7", "name": "invoke_agent", "agentId": "a7c2", "status": "success",
        "args": {"agent_name": "codebase_investigator"}, "timestamp": "2026-11-20T10:03:05Z"})
    main.write_text("".join(json.dumps(record) + "\n" for record in records))
    code, output = submit(project, workdir, main)
    assert code == 0 and "sub-agent(s) a7c2" in output and "chats/<session id>/" in output
    for folder in (project / "submissions" / TASK).iterdir():  # submit again, with the file
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    (chats / "0f3c6a52-1111-4222-8333-944455556666").mkdir()
    (chats / "0f3c6a52-1111-4222-8333-944455556666" / "a7c2.jsonl").write_text("".join(
        json.dumps(record) + "\n" for record in [
            {"sessionId": "a7c2", "projectHash": "ab" * 32, "kind": "subagent"},
            {"id": "s1", "timestamp": "2026-11-20T10:03:02.000Z", "type": "gemini",
             "content": "Found it.", "model": MODEL,
             "tokens": {"input": 4000, "output": 90, "cached": 0, "thoughts": 10, "tool": 0,
                        "total": 4100}}]))
    code, output = submit(project, workdir, main)
    assert code == 0 and "1 sub-agent file stored with the session: a7c2.jsonl" in output
    assert "sub-agent(s)" not in output
    folder = the_folder(project)
    run = yaml.safe_load((folder / "submission.yaml").read_text())["runs"][0]
    assert run["tokens"]["prompt"] == 30000 + 4000 and run["iterations"] == 4
    assert validate(project, folder)[0] == 0
