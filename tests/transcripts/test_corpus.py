"""Real transcripts (from public repositories, or written here by the tools against a scripted
model server) read right, field by field.

``corpus/manifest.json`` names each file's origin and its expected figures, computed by the
reference reader in ``tests/support/transcript_reference.py`` (written apart from the
importers). Each test compares all three: the importer, the reference reader and the manifest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.transcript_reference import read as reference_read

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts import TranscriptMetrics, read_transcript
from arena_bot.intake.transcripts.claude_code import read_claude_code_files, subagent_files
from arena_bot.intake.transcripts.redact import find_secrets, store_redacted

CORPUS = Path(__file__).parent / "corpus"
ROOT = Path(__file__).parents[2]
MANIFEST: list[dict[str, Any]] = json.loads((CORPUS / "manifest.json").read_text())
IDS = [entry["file"] for entry in MANIFEST]


def figures(metrics: TranscriptMetrics) -> dict[str, Any]:
    """The importer's metrics in the reference reader's terms."""
    return {
        "uncached": metrics.prompt_tokens,
        "cache_read": metrics.cache_read_tokens,
        "cache_write": metrics.cache_write_tokens,
        "output": metrics.completion_tokens,
        "tool_calls": metrics.tool_calls,
        "iterations": metrics.iterations,
        "seconds": round(metrics.wall_clock_seconds, 3),
        "models": sorted(metrics.models),
    }


def files_of(entry: dict[str, Any]) -> list[Path]:
    return [CORPUS / entry["file"], *(CORPUS / name for name in entry["subagent_files"])]


@pytest.mark.parametrize("entry", MANIFEST, ids=IDS)
def test_importer_and_reference_reader_give_the_recorded_figures(entry: dict[str, Any]) -> None:
    expected = entry["expected"]
    assert reference_read(entry["format"], files_of(entry)) == expected
    metrics = read_transcript(path=CORPUS / entry["file"], format_name=entry["format"])
    assert figures(metrics) == expected


@pytest.mark.parametrize("entry", MANIFEST, ids=IDS)
def test_every_entry_has_its_origin_and_at_least_two_per_format(entry: dict[str, Any]) -> None:
    """Each file names where it comes from: a public repository at a commit, or (written on
    this machine by the tool itself) the capture script, the tool's version and command,
    with the server's ground truth."""
    origin = entry["origin"]
    readme = (CORPUS / "README.md").read_text()
    # Written here by the real tool against a scripted model server: the Claude Code
    # captures name the script, version, command and ground truth; the Gemini CLI ones the
    # script and the server's log; the Codex ones the script, the driver and the commands.
    if "captured_with" in origin:
        assert (ROOT / origin["captured_with"]).is_file()
        assert origin["version"] and origin["command"] and entry["ground_truth"]["all_calls"]
        assert origin["captured_with"] in readme
        assert f"{origin['tool']} {origin['version']}" in readme
    elif "captured" in origin:
        script = ROOT / origin["captured"]
        assert script.is_file() and (CORPUS / origin["ground_truth"]).is_file()
        assert origin["captured"] in readme and origin["tool"] in readme
    elif "capture" in origin:
        assert (ROOT / origin["capture"]).is_file() and origin["tool"] and origin["commands"]
        assert origin["driver"] in readme
    else:
        assert "/" in origin["repo"] and len(origin["commit"]) == 40 and origin["paths"]
        assert origin["repo"] in readme and origin["commit"] in readme
    assert all(path.is_file() for path in files_of(entry))
    same_format = [other for other in MANIFEST if other["format"] == entry["format"]]
    assert len(same_format) >= 2
    assert entry["file"] in readme


CAPTURED = [e for e in MANIFEST
            if e["origin"].get("captured") == "scripts/capture/gemini_cli.py"]


@pytest.mark.parametrize("entry", CAPTURED, ids=[e["file"] for e in CAPTURED])
def test_a_capture_gives_what_the_scripted_server_billed(entry: dict[str, Any]) -> None:
    """The server's log (ground truth) and the entry's figures agree, but where the file
    itself lacks a reply Gemini CLI did not record (the note says which). A session file
    holds the agent's conversation, not the CLI's side calls (scope ``conversation``)."""
    truth = entry["ground_truth"]
    log = json.loads((CORPUS / entry["origin"]["ground_truth"]).read_text())
    sums = log["totals"][truth["scope"]]
    assert (truth["uncached"], truth["cache_read"], truth["output"], truth["replies"],
            truth["tool_calls"]) == (sums["uncached"], sums["cache_read"], sums["output"],
                                     sums["replies"], log["totals"]["tool_calls"])
    expected = entry["expected"]
    found = (expected["uncached"], expected["cache_read"], expected["cache_write"],
             expected["output"], expected["tool_calls"], expected["iterations"],
             expected["models"])
    billed = (truth["uncached"], truth["cache_read"], truth["cache_write"], truth["output"],
              truth["tool_calls"], truth["replies"], truth["models"])
    if "0.28.2" in entry["file"]:  # one reply's usage was not kept (one per message < 0.32)
        assert found != billed and expected["iterations"] == truth["replies"] - 1
    elif "stream-json" in entry["file"]:  # model calls not shown one by one: unchecked
        assert found[:5] + found[6:] == billed[:5] + billed[6:] and found[5] == 0
    else:
        assert found == billed


OPENAI_CHAT = [e for e in MANIFEST
               if e["origin"].get("captured") == "scripts/capture/openai_chat.py"]
TOKENS = ("uncached", "cache_read", "cache_write", "output")


@pytest.mark.parametrize("entry", OPENAI_CHAT, ids=[e["file"] for e in OPENAI_CHAT])
def test_a_python_agent_capture_gives_what_the_scripted_server_billed(
    entry: dict[str, Any],
) -> None:
    """Aider, mini-swe-agent and the OpenHands SDK run against scripts/capture/openai_chat.py:
    the entry's ground truth is the server's log, and the figures read from the file are that
    truth but where ``differs`` says why the file cannot carry it. Aider's history rounds
    each line's figures (``rounded``: at most that far from the truth per line)."""
    truth = entry["ground_truth"]
    log = json.loads((CORPUS / entry["origin"]["ground_truth"]).read_text())["totals"]
    assert {key: truth[key] for key in TOKENS} == {key: log[key] for key in TOKENS}
    assert (truth["tool_calls"], truth["iterations"]) == (
        log[entry["tool_calls_are"]], log["replies"])
    assert [name.split("/")[-1] for name in truth["models"]] == log["models"]
    expected, differs = entry["expected"], entry["differs"]
    for key in (*TOKENS, "tool_calls", "iterations", "models"):
        if key in differs:
            assert expected[key] != truth[key], key
        elif key in TOKENS and entry.get("rounded"):  # each line's figure, 0.1k apart
            assert abs(expected[key] - truth[key]) <= entry["rounded"] * truth["iterations"], key
        else:
            assert expected[key] == truth[key], key


@pytest.mark.parametrize(
    "entry", [e for e in MANIFEST if e["format"] == "claude-code"],
    ids=[e["file"] for e in MANIFEST if e["format"] == "claude-code"],
)
def test_claude_code_finds_exactly_the_sub_agent_files_of_its_layout(
    entry: dict[str, Any],
) -> None:
    assert subagent_files(CORPUS / entry["file"]) == [
        CORPUS / name for name in entry["subagent_files"]
    ]


def test_sub_agent_files_are_counted_not_left_out() -> None:
    entry = next(e for e in MANIFEST if "codemie-2.1" in e["file"])
    alone = read_claude_code_files([CORPUS / entry["file"]])
    together = read_transcript(path=CORPUS / entry["file"], format_name="claude-code")
    assert together.iterations > alone.iterations
    assert together.completion_tokens > alone.completion_tokens
    assert together.span_label.endswith("and 1 sub-agent file")


def test_a_sub_agent_file_of_another_session_beside_it_is_not_counted(tmp_path: Path) -> None:
    entry = next(e for e in MANIFEST if "codemie-2.0" in e["file"])
    for path in files_of(entry):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    stranger = tmp_path / "agent-99999999.jsonl"
    line = json.loads((tmp_path / "agent-50243ee8.jsonl").read_text().splitlines()[0])
    line.update(sessionId="another-session", uuid="stranger-1")
    stranger.write_text(json.dumps(line) + "\n")
    main = tmp_path / Path(entry["file"]).name
    assert stranger not in subagent_files(main)
    assert figures(read_transcript(path=main, format_name="claude-code")) == entry["expected"]


@pytest.mark.parametrize("entry", MANIFEST, ids=IDS)
def test_stored_redacted_copy_reads_the_same_figures(
    entry: dict[str, Any], tmp_path: Path
) -> None:
    """What `arena submit` stores (sub-agent files appended) still gives every figure."""
    stored, _report = store_redacted(
        source=CORPUS / entry["file"], folder=tmp_path, stem="run-1-transcript",
        extra=[CORPUS / name for name in entry["subagent_files"]],
    )
    metrics = read_transcript(path=stored, format_name=entry["format"])
    assert figures(metrics) == entry["expected"]
    assert not find_secrets(stored).changed


def test_a_session_copied_without_its_sub_agent_files_says_which_are_missing(
    tmp_path: Path,
) -> None:
    entry = next(e for e in MANIFEST if "codemie-2.1" in e["file"])
    alone = tmp_path / Path(entry["file"]).name
    alone.write_bytes((CORPUS / entry["file"]).read_bytes())
    assert read_transcript(path=alone, format_name="claude-code").unread_subagents == {
        "a485154"}
    assert read_transcript(path=CORPUS / entry["file"],
                           format_name="claude-code").unread_subagents == set()


def test_sub_agent_files_behind_a_symbolic_link_are_not_read(tmp_path: Path) -> None:
    entry = next(e for e in MANIFEST if "codemie-2.1" in e["file"])
    main = tmp_path / Path(entry["file"]).name
    main.write_bytes((CORPUS / entry["file"]).read_bytes())
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "subagents").mkdir(parents=True)
    for name in entry["subagent_files"]:
        (elsewhere / "subagents" / Path(name).name).write_bytes((CORPUS / name).read_bytes())
    (tmp_path / main.name.removesuffix(".jsonl.gz")).symlink_to(elsewhere)
    assert subagent_files(main) == []
    # A sibling of the same session (2.0 layout) would be read; through a link it is not.
    sibling = tmp_path / "agent-a485154.jsonl.gz"
    sibling.write_bytes((CORPUS / entry["subagent_files"][0]).read_bytes())
    assert subagent_files(main) == [sibling]
    sibling.unlink()
    sibling.symlink_to(CORPUS / entry["subagent_files"][0])
    assert subagent_files(main) == []


def test_an_openhands_v1_event_stream_reads_and_a_lone_event_file_is_refused(
    tmp_path: Path,
) -> None:
    """Real OpenHands V1 events (software-agent-sdk): the stream is read as V1, not refused as
    a 0.x trajectory; one event file as V1 stores it holds no usage, and is refused saying to
    pass base_state.json with the events."""
    stream = CORPUS / "openhands-v1/events.jsonl"
    assert read_transcript(path=stream, format_name="openhands").iterations == 2
    one_event = tmp_path / "event-00000-03d5b5c0.json"
    one_event.write_text(stream.read_text().splitlines()[0])
    with pytest.raises(InputError) as caught:
        read_transcript(path=one_event, format_name="openhands")
    assert "without its usage" in str(caught.value) and str(one_event) in str(caught.value)
    assert "jq -c . base_state.json events/event-*.json" in (caught.value.hint or "")
