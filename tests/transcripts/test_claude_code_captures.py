"""Files written by real Claude Code (2.1.328, 2.0.77, 1.0.128) read against what was billed.

``corpus/claude-code/claude-code-<version>-<what>/`` holds what each version wrote when run
against the scripted Messages API server of ``scripts/capture/claude_code.py``, with that
server's log (``ground_truth.json``: every billed call) and the run's patch. Here: what a file
can hold equals the bill, the cost is Claude Code's own, the outputs that cannot be read
whole are refused naming what to pass, and ``arena submit`` turns a real session into a
submission consistent with its transcript.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from support.gitrepo import git
from support.transcript_reference import read as reference_read
from test_submit import TASK, metrics_levels, project, validate  # noqa: F401

from arena_bot.cli import main
from arena_bot.core.errors import InputError
from arena_bot.core.prices import load_price_table
from arena_bot.intake.transcripts import read_transcript
from arena_bot.intake.verification import transcript_cost

CORPUS = Path(__file__).parent / "corpus"
CAPTURES = CORPUS / "claude-code"
MANIFEST: list[dict[str, Any]] = [
    entry for entry in json.loads((CORPUS / "manifest.json").read_text())
    if entry["origin"].get("captured") == "scripts/capture/claude_code.py"]
IDS = [entry["file"] for entry in MANIFEST]


def entry_of(folder: str, mode: str | None = None) -> dict[str, Any]:
    return next(e for e in MANIFEST if e["file"].split("/")[1] == folder and (
        mode is None or Path(e["file"]).name.startswith(mode)))


def bill(entry: dict[str, Any], which: str) -> tuple[int, int, int]:
    """The input side of the calls the server's log sums as ``which``: ``all_calls``, or
    ``session_calls`` (those a session file is written for: main agent, sub-agents, 2.0's
    warm-ups)."""
    calls = json.loads((CORPUS / entry["origin"]["ground_truth"]).read_text())[which]
    return calls["uncached"], calls["cache_read"], calls["cache_write"]


@pytest.mark.parametrize("entry", [e for e in MANIFEST if "interrupt" not in e["file"]],
                         ids=[i for i in IDS if "interrupt" not in i])
def test_the_input_tokens_read_are_the_servers_bill(entry: dict[str, Any]) -> None:
    """A session file holds the calls Claude Code writes (main agent, sub-agents, 2.0's
    warm-ups), its printed result every call; input-side figures are final from a reply's
    first event, so they are the bill exactly."""
    metrics = read_transcript(path=CORPUS / entry["file"], format_name="claude-code")
    read = (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.cache_write_tokens)
    headless = not entry["file"].endswith((".jsonl", ".jsonl.gz")) or "stream" in entry["file"]
    assert read == bill(entry, "all_calls" if headless else "session_calls")


def test_json_output_of_the_turn_a_background_sub_agent_started_is_refused() -> None:
    """2.1.328 printed only its second result (``result_index`` 1: the turn the background
    sub-agent's notification started), 1 turn in 1 s of a run of 11 calls in 15 s."""
    path = CAPTURES / "claude-code-2.1.328-json-background/result.json"
    result = json.loads(path.read_text())
    assert (result["result_index"], result["num_turns"], result["duration_ms"]) == (1, 1, 983)
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name="claude-code")
    assert "holds result 2 of the run" in caught.value.message
    assert str(path) in str(caught.value)
    assert f"~/.claude/projects/<dir>/{result['session_id']}.jsonl" in (caught.value.hint or "")
    with pytest.raises(AssertionError, match="later result"):
        reference_read("claude-code", [path])


@pytest.mark.parametrize("folder", [
    "claude-code-2.0.77-stream-json", "claude-code-2.1.328-stream-json-foreground"])
def test_a_stream_counts_the_sub_agents_last_reply_from_its_task_result(folder: str) -> None:
    """2.0.77, and 2.1.328 with a foreground sub-agent, print no sub-agent's last reply; its
    Task result carries that reply's usage, from which it is counted (once: the replies are
    the main agent's and the sub-agent's calls; 2.0's warm-ups and side calls are not
    printed)."""
    entry = entry_of(folder)
    metrics = read_transcript(path=CORPUS / entry["file"], format_name="claude-code")
    calls = json.loads((CAPTURES / folder / "ground_truth.json").read_text())["calls"]
    assert metrics.iterations == sum(c["kind"] in ("main", "subagent") for c in calls) == 10


@pytest.mark.parametrize("folder", [
    "claude-code-2.1.328-stream-json", "claude-code-2.1.328-json", "claude-code-2.0.77-stream-json",
    "claude-code-1.0.128-stream-json", "claude-code-1.0.128-json",
])
def test_the_cost_is_the_one_claude_code_priced_its_calls_at(folder: str) -> None:
    """Each model's tokens at the price table's rates give the result's ``total_cost_usd``
    (1.0's side calls ran on claude-3-5-haiku, which the table lacked)."""
    entry = entry_of(folder)
    path = CORPUS / entry["file"]
    result = [json.loads(line) for line in path.read_text().splitlines()
              if '"type":"result"' in line.replace(" ", "")][-1]
    cost = transcript_cost(metrics=read_transcript(path=path, format_name="claude-code"),
                           prices=load_price_table())
    assert cost == pytest.approx(result["total_cost_usd"], rel=1e-9)


def test_the_json_output_names_the_main_agents_model_first() -> None:
    """1.0.128's result lists claude-3-5-haiku (its side calls) first: the run's model is
    the one billed most."""
    entry = entry_of("claude-code-1.0.128-json")
    metrics = read_transcript(path=CORPUS / entry["file"], format_name="claude-code")
    result = json.loads((CORPUS / entry["file"]).read_text())
    assert next(iter(result["modelUsage"])) == "claude-3-5-haiku-20241022"
    assert metrics.models[0] == "claude-sonnet-4-20250514"
    assert metrics.helper_models == {"claude-3-5-haiku-20241022"}


def test_an_interrupted_run_gives_the_finished_replies_or_names_the_session_file() -> None:
    """SIGINT while the 4th reply streamed: 2.1.328 prints a result (aborted_streaming) with
    every call's input; 2.0.77 prints none, and its stream is refused for the session file,
    which holds the replies finished before."""
    stream = entry_of("claude-code-2.1.328-interrupt", "stream")
    metrics = read_transcript(path=CORPUS / stream["file"], format_name="claude-code")
    assert (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.cache_write_tokens
            ) == bill(stream, "all_calls")
    assert metrics.iterations == stream["ground_truth"]["iterations"] - 1
    cut = CAPTURES / "claude-code-2.0.77-interrupt/stream.jsonl"
    with pytest.raises(InputError) as caught:
        read_transcript(path=cut, format_name="claude-code")
    session = entry_of("claude-code-2.0.77-interrupt")
    assert Path(session["file"]).name in (caught.value.hint or "")
    assert read_transcript(path=CORPUS / session["file"], format_name="claude-code"
                           ).iterations == session["expected"]["iterations"] > 0


def test_an_interrupted_session_file_says_the_run_ended_in_an_error(tmp_path: Path) -> None:
    """2.1.328's (and 2.1.332's) session file of the SIGINT run ends with the user line
    ``[Request interrupted by user]`` and no reply after it: an error end, as its stream's
    aborted result is (it read as a run that finished: ``arena submit`` wrote success: true).
    A reply after the interruption (the user went on) is a run that went on; a finished
    session has no error end."""
    (session,) = (CAPTURES / "claude-code-2.1.328-interrupt").glob("*.jsonl.gz")
    ended = read_transcript(path=session, format_name="claude-code").error_end
    assert ended == ("Claude Code's session ends with `[Request interrupted by user]` "
                     "(line 47): no reply after it")
    stream = CAPTURES / "claude-code-2.1.328-interrupt/stream.jsonl"
    assert read_transcript(path=stream, format_name="claude-code").error_end
    for folder in ("claude-code-2.1.328-session", "claude-code-2.0.77-session",
                   "claude-code-1.0.128-session"):
        finished = CORPUS / entry_of(folder)["file"]
        assert read_transcript(path=finished, format_name="claude-code").error_end == ""
    # The same session going on: a new prompt after the interruption, and its answer.
    lines = [json.loads(line) for line in gzip.decompress(session.read_bytes()).splitlines()]
    reply = next(line for line in reversed(lines) if line["type"] == "assistant")
    went_on = tmp_path / "went-on.jsonl"
    went_on.write_text("".join(json.dumps(line) + "\n" for line in [
        *lines,
        {**lines[-1], "uuid": "u-next", "message": {"role": "user", "content": "go on"}},
        {**reply, "uuid": "a-next", "message": {**reply["message"], "id": "msg_next"}}]))
    assert read_transcript(path=went_on, format_name="claude-code").error_end == ""
    # An interactive session (entrypoint cli, not claude -p's sdk-cli) whose person ended
    # the last request with Esc: the file does not say the work was unfinished.
    assert any(line.get("entrypoint") == "sdk-cli" for line in lines)
    by_hand = tmp_path / "interactive.jsonl"
    by_hand.write_text("".join(json.dumps(
        {**line, "entrypoint": "cli"} if "entrypoint" in line else line) + "\n"
        for line in lines))
    assert read_transcript(path=by_hand, format_name="claude-code").error_end == ""


def test_the_text_claude_p_prints_is_refused_naming_what_to_pass(tmp_path: Path) -> None:
    """What 2.1.332 printed on stdout for the session capture (``claude -p PROMPT``, text
    output: the final answer, twice: the background sub-agent's turn answered again) was
    refused as a hand-edited file's invalid JSON, with no word of what to pass."""
    path = tmp_path / "stdout.txt"
    answer = ("slugify takes max_length (cut at the last word boundary that fits), the "
              "command line --max-length; NOTES.md says so.\n")
    path.write_text(answer + "\n" + answer)
    with pytest.raises(InputError) as caught:
        read_transcript(path=path, format_name="claude-code")
    assert "the text `claude -p` prints" in caught.value.message
    assert str(path) in str(caught.value)
    assert "--output-format stream-json --verbose" in (caught.value.hint or "")
    assert "~/.claude/projects/<dir>/<session>.jsonl" in (caught.value.hint or "")


def workdir_of(project: Path, folder: str, where: Path) -> Path:  # noqa: F811
    """The task's repository at its base commit with the captured run's changes."""
    spec = yaml.safe_load((project / "dataset" / TASK / "task.yaml").read_text())
    git("clone", "-q", str(project / "dataset" / TASK / "repo.bundle"), str(where), cwd=project)
    git("checkout", "-q", spec["source"]["commit"], cwd=where)
    git("apply", str(CAPTURES / folder / "workdir.patch"), cwd=where)
    return where


@pytest.mark.parametrize("folder", [
    "claude-code-2.1.328-session", "claude-code-2.0.77-session", "claude-code-1.0.128-session",
])
def test_a_real_session_is_submitted_consistent_with_its_transcript(
    folder: str, project: Path, tmp_path: Path  # noqa: F811
) -> None:
    """2.0.77's session holds three warm-up calls, one on claude-haiku-4-5 (the Explore
    agent's): the submission is named after the main agent's model and is still
    consistent, a helper model being one it may leave out."""
    entry = entry_of(folder)
    result = CliRunner().invoke(main, [
        "--root", str(project), "submit", "--task", TASK, "--format", "claude-code",
        "--tool", "Claude Code", "--tool-version", folder.split("-")[2],
        "--contributor", "Test Person", "--date", "2026-11-27",
        "--workdir", str(workdir_of(project, folder, tmp_path / "work")),
        "--transcript", str(CORPUS / entry["file"])])
    assert result.exit_code == 0, result.output
    # 2.0 and 1.0 write most replies before their final output count, and say nothing of it.
    partial = folder != "claude-code-2.1.328-session"
    assert ("tokens.completion is a lower bound" in result.output) == partial, result.output
    written = next((project / "submissions" / TASK).iterdir())
    spec = yaml.safe_load((written / "submission.yaml").read_text())
    main_models = {c["model"] for c in json.loads(
        (CAPTURES / folder / "ground_truth.json").read_text())["calls"] if c["kind"] == "main"}
    assert spec["models"] == sorted(main_models)
    run = spec["runs"][0]
    assert (run["tool_calls"], run["iterations"]) == (
        entry["expected"]["tool_calls"], entry["expected"]["iterations"])
    assert validate(project, written)[0] == 0
    assert metrics_levels(project, [written], tmp_path)[written.name] == (
        "transcript-consistent", [])
