"""Files written by the real Gemini CLI (0.61.0, and 0.28.2's one-document session) against
the scripted Gemini API server of ``scripts/capture/gemini_cli.py``, read as `arena submit`
reads them and compared with what the server billed (its log, ``ground_truth.json``).

``gemini -p --output-format json`` and ``stream-json`` output is told from a session file by
its content; output that cannot carry a figure is refused, naming the session file to pass.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from test_submit import TASK, metrics_levels, project  # noqa: F401

from arena_bot.cli import main
from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts import read_transcript, subagent_files

CORPUS = Path(__file__).parent / "corpus" / "gemini-cli"
ROOT = Path(__file__).parents[2]
JSON_OUT = CORPUS / "gemini-cli-0.61.0-json" / "stdout.json"
STREAM = CORPUS / "gemini-cli-0.61.0-stream-json" / "stdout.jsonl"
PLAIN = CORPUS / "gemini-cli-0.61.0-stream-json-plain" / "stdout.jsonl"
KILLED = CORPUS / "gemini-cli-0.61.0-killed" / "stdout.jsonl"
FAILED = CORPUS / "gemini-cli-0.61.0-error" / "failed-400-stderr.txt"
SESSION = next((CORPUS / "gemini-cli-0.61.0-session").glob("session-*.jsonl"))
OLD_SESSION = next((CORPUS / "gemini-cli-0.28.2-session").glob("session-*.json"))


def billed(folder: str, name: str = "ground_truth.json") -> dict[str, Any]:
    """What the scripted server billed in that capture (its log's totals)."""
    log = json.loads((CORPUS / folder / name).read_text())
    return {**log["totals"]["all"], "tool_calls": log["totals"]["tool_calls"]}


def refusal(path: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name="gemini-cli")
    return caught.value


def test_json_output_gives_every_billed_token_and_leaves_time_unchecked() -> None:
    truth = billed("gemini-cli-0.61.0-json")
    metrics = read_transcript(path=JSON_OUT, format_name="gemini-cli")
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.cache_write_tokens,
            metrics.completion_tokens) == (truth["uncached"], truth["cache_read"], 0,
                                           truth["output"])
    assert (metrics.tool_calls, metrics.iterations) == (truth["tool_calls"], truth["replies"])
    assert metrics.models == ["gemini-2.5-pro"] and metrics.unverifiable == {"execution_time"}
    assert metrics.activity is not None and not metrics.activity.edits
    assert metrics.usage_by_model == {"gemini-2.5-pro": (truth["uncached"], truth["cache_read"],
                                                         0, truth["output"])}


def test_json_output_of_a_retried_server_error_counts_the_failed_request_out() -> None:
    truth = billed("gemini-cli-0.61.0-error", "retried-500-ground_truth.json")
    path = CORPUS / "gemini-cli-0.61.0-error" / "retried-500-stdout.json"
    stats = json.loads(path.read_text())["stats"]["models"]["gemini-2.5-pro"]["api"]
    assert (stats["totalRequests"], stats["totalErrors"]) == (truth["replies"] + 1, 1)
    metrics = read_transcript(path=path, format_name="gemini-cli")
    assert (metrics.iterations, metrics.completion_tokens) == (truth["replies"], truth["output"])


def test_json_output_after_captured_stderr_lines_reads_the_same(tmp_path: Path) -> None:
    """Harnesses often keep stdout and stderr together (``2>&1``): the real warnings Gemini
    CLI printed before its JSON are passed over."""
    warnings = [line for line in FAILED.read_text().splitlines() if not line.startswith(
        ("{", " ", "}"))][:5]
    assert any(line.startswith("YOLO mode") for line in warnings)
    mixed = tmp_path / "agent.log"
    mixed.write_text("\n".join(warnings) + "\n" + JSON_OUT.read_text() + "\n")
    assert read_transcript(path=mixed, format_name="gemini-cli").completion_tokens == billed(
        "gemini-cli-0.61.0-json")["output"]


def test_stream_json_of_a_thinking_model_is_refused_naming_the_files_that_split_it() -> None:
    error = refusal(STREAM)
    log = json.loads((CORPUS / "gemini-cli-0.61.0-stream-json" / "ground_truth.json").read_text())
    hidden = sum(row["usage"].get("thoughtsTokenCount", 0) + row["usage"].get(
        "toolUsePromptTokenCount", 0) for row in log["billed"])
    assert f"bills {hidden:,} tokens" in str(error) and "cannot be told apart" in str(error)
    session = next(STREAM.parent.glob("session-*.jsonl")).name
    assert error.hint is not None and session.removeprefix("session-")[-14:] in error.hint
    assert "--output-format json" in error.hint


def test_stream_json_without_thinking_is_read_with_its_edits() -> None:
    truth = billed("gemini-cli-0.61.0-stream-json-plain")
    metrics = read_transcript(path=PLAIN, format_name="gemini-cli")
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.completion_tokens,
            metrics.tool_calls) == (truth["uncached"], truth["cache_read"], truth["output"],
                                    truth["tool_calls"])
    assert metrics.unverifiable == {"iterations"} and metrics.wall_clock_seconds > 0
    assert metrics.activity is not None
    assert [(e.tool, e.path, e.kind) for e in metrics.activity.edits] == [
        ("write_file", "calc.py", "write"), ("replace", "calc.py", "replace"),
        ("write_file", "calc_check.py", "write")]
    assert metrics.activity.failed == [] and metrics.edited_files == {"calc.py", "calc_check.py"}


def test_a_killed_run_stream_is_refused_and_its_session_file_has_the_billed_replies() -> None:
    error = refusal(KILLED)
    session = next(KILLED.parent.glob("session-*.jsonl"))
    assert "no final `result`" in str(error) and error.hint is not None
    assert session.name[-14:] in error.hint
    truth = billed("gemini-cli-0.61.0-killed")
    metrics = read_transcript(path=session, format_name="gemini-cli")
    assert (metrics.iterations, metrics.completion_tokens, metrics.tool_calls) == (
        truth["replies"], truth["output"], truth["tool_calls"])


def test_the_error_json_of_a_failed_run_is_refused_naming_the_error_and_the_session() -> None:
    error = refusal(FAILED)
    assert "no `stats`" in str(error) and "INVALID_ARGUMENT" in str(error)
    session = next(FAILED.parent.glob("session-*.jsonl"))
    assert error.hint is not None and session.name[-14:] in error.hint


# --- arena submit, from a working tree the run's edits replay to -------------------------


def capture_script() -> Any:
    spec = importlib.util.spec_from_file_location(
        "capture_gemini_cli", ROOT / "scripts" / "capture" / "gemini_cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def workdir_as_the_run_left_it(board: Path, where: Path) -> Path:
    """A clone of the task at its base commit holding the two files the scripted run
    wrote (calc.py fixed, calc_check.py)."""
    script = capture_script()
    commit = yaml.safe_load((board / "dataset" / TASK / "task.yaml").read_text())[
        "source"]["commit"]
    subprocess.run(["git", "clone", "-q", str(board / "dataset" / TASK / "repo.bundle"),
                    str(where)], check=True)
    subprocess.run(["git", "checkout", "-q", commit], cwd=where, check=True)
    (where / "calc.py").write_text(script.CALC.replace("a - b", "a + b"))
    (where / "calc_check.py").write_text(script.CHECK)
    return where


def submit(board: Path, workdir: Path, transcript: Path, day: int) -> tuple[int, str]:
    result = CliRunner().invoke(main, [
        "--root", str(board), "submit", "--task", TASK, "--format", "gemini-cli",
        "--tool", "Gemini CLI", "--tool-version", "0.61.0", "--contributor", "Test Person",
        "--date", f"2026-11-{day:02d}", "--workdir", str(workdir), "--transcript",
        str(transcript)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_submit_takes_real_sessions_and_json_output_and_refuses_the_rest_with_a_message(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:
    workdir = workdir_as_the_run_left_it(project, tmp_path / "work")
    for day, path in enumerate((SESSION, OLD_SESSION, JSON_OUT), start=20):
        code, output = submit(project, workdir, path, day)
        assert code == 0 and "passes `arena validate`" in output, output
    assert "execution_time (the format does not record it)" in output
    folders = sorted((project / "submissions" / TASK).iterdir())
    runs = [yaml.safe_load((f / "submission.yaml").read_text())["runs"][0] for f in folders]
    truth = billed("gemini-cli-0.61.0-session")
    assert runs[0]["tokens"]["completion"] == truth["output"]
    assert runs[0]["tokens"]["cached"] == truth["cache_read"]
    assert runs[2]["tokens"] == runs[0]["tokens"] and runs[2]["execution_time"] == 0
    levels = metrics_levels(project, folders[:2], tmp_path)
    assert {level for level, _reasons in levels.values()} == {"transcript-consistent"}, levels
    for day, path in enumerate((STREAM, KILLED, FAILED), start=25):
        code, output = submit(project, workdir, path, day)
        assert code == 1 and "Traceback" not in output and path.name in output, output
        assert re.search(r"session-<time>-[0-9a-f]{8}\.jsonl", output), output


AUTO_JSON = CORPUS / "gemini-cli-0.61.0-auto-json" / "stdout.json"
AUTO_STREAM = CORPUS / "gemini-cli-0.61.0-auto-stream-json" / "stdout.jsonl"


@pytest.mark.parametrize("path", [AUTO_JSON, AUTO_STREAM], ids=["json", "stream-json"])
def test_the_agents_model_is_named_first_not_the_routers(path: Path) -> None:
    """Run with no -m, Gemini CLI's model router asks a flash-lite model first (a side call
    the output's stats list first): the run is the model the router picked."""
    log = json.loads((path.parent / "ground_truth.json").read_text())
    router, *agent = [row["model"] for row in log["billed"]]
    assert set(agent) == {"gemini-3.8-flash"} and router == "gemini-3.5-flash-lite"
    printed = [json.loads(line) for line in path.read_text().splitlines()][-1] if (
        path.suffix == ".jsonl") else json.loads(path.read_text())
    assert list(printed["stats"]["models"]) == [router, "gemini-3.8-flash"]
    metrics = read_transcript(path=path, format_name="gemini-cli")
    assert metrics.models == ["gemini-3.8-flash", router]
    assert metrics.usage_by_model[router][3] == log["totals"]["side_calls"]["output"]


def test_submit_names_a_routed_run_after_the_agents_model(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:
    workdir = workdir_as_the_run_left_it(project, tmp_path / "work")
    code, output = submit(project, workdir, AUTO_JSON, 20)
    assert code == 0, output
    (folder,) = (project / "submissions" / TASK).iterdir()
    assert folder.name == "2026-11-20_gemini-cli_gemini-3.8-flash"


#: Real stderr of Gemini CLI 0.61.0 (--model auto) when its model router's classifier got an
#: answer without the fields it needs: warnings, then a ZodError dump of brackets and braces.
ROUTER_STDERR = CORPUS / "gemini-cli-0.61.0-auto-json" / "stderr-router-failed.txt"


@pytest.mark.parametrize("path", [JSON_OUT, PLAIN], ids=["json", "stream-json"])
def test_output_captured_with_an_error_dump_on_stderr_reads_the_same(
    path: Path, tmp_path: Path
) -> None:
    """``2>&1``: the dump's lone ``{`` and ``[`` lines come before the output, and in a
    stream between its events."""
    dump = ROUTER_STDERR.read_text()
    assert "\n  {\n" in dump and "_ZodError: [" in dump
    before = tmp_path / "before.log"
    before.write_text(dump + path.read_text())
    clean = read_transcript(path=path, format_name="gemini-cli")
    expected = (clean.prompt_tokens, clean.cache_read_tokens, clean.completion_tokens,
                clean.tool_calls, clean.models)
    for mixed in [before, *([tmp_path / "between.log"] if path == PLAIN else [])]:
        if mixed.name == "between.log":
            lines = path.read_text().splitlines(keepends=True)
            mixed.write_text("".join(lines[:3]) + dump + "".join(lines[3:]))
        metrics = read_transcript(path=mixed, format_name="gemini-cli")
        assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.completion_tokens,
                metrics.tool_calls, metrics.models) == expected


OLD_SUBAGENT = next((CORPUS / "gemini-cli-0.38.2-subagent").glob("session-*.json"))
NEW_SUBAGENT = next((CORPUS / "gemini-cli-0.61.0-subagent").glob("session-*.jsonl"))


@pytest.mark.parametrize("session", [OLD_SUBAGENT, NEW_SUBAGENT], ids=["0.38.2", "0.61.0"])
def test_a_sessions_sub_agent_file_is_found_and_counted_as_the_server_billed_it(
    session: Path,
) -> None:
    """0.38.2 wrote the sub-agent's session as a `.json` document beside the session's own
    (left out before: the run's figures lacked its 2 replies and 3 tool calls); 0.61.0 as
    `.jsonl`."""
    folder = session.parent / session.stem.split("-")[-1]
    (own,) = [p for p in session.parent.iterdir() if p.is_dir()]
    assert own.name.startswith(folder.name)
    assert subagent_files(session, "gemini-cli") == sorted(own.iterdir())
    truth = billed(session.parent.name)
    metrics = read_transcript(path=session, format_name="gemini-cli")
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.completion_tokens,
            metrics.tool_calls, metrics.iterations) == (
        truth["uncached"], truth["cache_read"], truth["output"], truth["tool_calls"],
        truth["replies"])


def test_submit_stores_a_one_document_session_with_its_sub_agent_document(
    project: Path, tmp_path: Path  # noqa: F811
) -> None:
    workdir = workdir_as_the_run_left_it(project, tmp_path / "work")
    code, output = submit(project, workdir, OLD_SUBAGENT, 20)
    assert code == 0 and "1 sub-agent file stored with the session: gskkrp.json" in output
    (folder,) = (project / "submissions" / TASK).iterdir()
    stored = read_transcript(path=folder / "run-1-transcript.json", format_name="gemini-cli")
    truth = billed("gemini-cli-0.38.2-subagent")
    assert (stored.completion_tokens, stored.tool_calls, stored.iterations) == (
        truth["output"], truth["tool_calls"], truth["replies"])
    assert stored.span_label.endswith("and 1 sub-agent document")
    levels = metrics_levels(project, [folder], tmp_path)
    assert [level for level, _reasons in levels.values()] == ["transcript-consistent"]
