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


#: The figures a scripted server bills (an entry's ``ground_truth``): ``expected`` but time.
BILLED = ("uncached", "cache_read", "cache_write", "output", "tool_calls", "iterations",
          "models")


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
    this machine by the tool itself) the capture script, the tool and its version, the
    command and the server's log, with what the server billed and the figures the file
    cannot carry (the shape the corpus README gives)."""
    origin = entry["origin"]
    readme = (CORPUS / "README.md").read_text()
    if "captured" in origin:
        assert (ROOT / origin["captured"]).is_file() and (CORPUS / origin["ground_truth"]).is_file()
        assert origin["command"] and origin["captured"] in readme
        assert origin["tool"].split(" (")[0] in readme
        assert set(entry["ground_truth"]) == set(BILLED)
        assert set(entry["differs"]) <= set(entry["ground_truth"])
        assert all(isinstance(why, str) and why for why in entry["differs"].values())
    else:
        assert "/" in origin["repo"] and len(origin["commit"]) == 40 and origin["paths"]
        assert origin["repo"] in readme and origin["commit"] in readme
    assert all(path.is_file() for path in files_of(entry))
    same_format = [other for other in MANIFEST if other["format"] == entry["format"]]
    assert len(same_format) >= 2
    assert entry["file"] in readme


def claude_code_log(log: Any, origin: dict[str, Any]) -> dict[str, Any]:
    """scripts/capture/claude_code.py's ``ground_truth.json`` sums every billed call."""
    return dict(log["all_calls"])


def codex_log(log: Any, origin: dict[str, Any]) -> dict[str, Any]:
    """scripts/capture/codex.py's ``ground-truth.jsonl``: a line per request, ``billed`` or
    not (a 500, a cut stream); ``input_tokens`` holds the cache read and written."""
    billed = [line for line in log if line.get("status") == "billed"]
    usage = [line["usage"] for line in billed]
    return {
        "uncached": sum(u["input_tokens"] - u["cached_tokens"] - u.get("cache_write_tokens", 0)
                        for u in usage),
        "cache_read": sum(u["cached_tokens"] for u in usage),
        "cache_write": sum(u.get("cache_write_tokens", 0) for u in usage),
        "output": sum(u["output_tokens"] for u in usage),
        "tool_calls": sum(line["item"]["kind"] != "message" for line in billed),
        "iterations": len(billed),
        "models": sorted({line["model"] for line in billed}),
    }


def gemini_cli_log(log: Any, origin: dict[str, Any]) -> dict[str, Any]:
    """scripts/capture/gemini_cli.py's ``ground_truth.json``: totals of the conversation, of
    the CLI's side calls and of ``all``; a reply that failed names no model."""
    sums = log["totals"]["all"]
    return {
        "uncached": sums["uncached"], "cache_read": sums["cache_read"],
        "cache_write": sums["cache_write"], "output": sums["output"],
        "tool_calls": log["totals"]["tool_calls"], "iterations": sums["replies"],
        "models": sorted({reply["model"] for reply in log["billed"] if reply.get("model")}),
    }


def openai_chat_log(log: Any, origin: dict[str, Any]) -> dict[str, Any]:
    """scripts/capture/openai_chat.py's ``ground_truth.json``: its totals count tool calls,
    edit blocks (search/replace, fenced) and replies of one bash block alike;
    ``origin.tool_calls_are`` names the count that is the tool's actions."""
    totals = log["totals"]
    return {
        **{key: totals[key] for key in ("uncached", "cache_read", "cache_write", "output")},
        "tool_calls": totals[origin["tool_calls_are"]], "iterations": totals["replies"],
        "models": totals["models"],
    }


#: What each capture script's server log bills, in the manifest's terms.
SERVER_LOGS = {
    "scripts/capture/claude_code.py": claude_code_log,
    "scripts/capture/codex.py": codex_log,
    "scripts/capture/gemini_cli.py": gemini_cli_log,
    "scripts/capture/openai_chat.py": openai_chat_log,
}
CAPTURED = [entry for entry in MANIFEST if "captured" in entry["origin"]]


def server_log(path: Path) -> Any:
    text = path.read_text()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


@pytest.mark.parametrize("entry", CAPTURED, ids=[entry["file"] for entry in CAPTURED])
def test_a_capture_gives_what_the_scripted_server_billed(entry: dict[str, Any]) -> None:
    """Every file written here by a real tool: the entry's ``ground_truth`` is what its
    server's log says was billed (models as the tool names them: ``openai/gpt-4o`` for the
    server's ``gpt-4o``), and the figures read from the file (``expected``, which the
    importer and the reference reader give) are that bill but for the figures ``differs``
    names, with the reason the file cannot carry them; those must differ. A figure rounded
    as the file prints it (reason ``rounded: ...``) is at most ``rounded`` a reply off."""
    origin, truth, differs = entry["origin"], entry["ground_truth"], entry["differs"]
    billed = SERVER_LOGS[origin["captured"]](server_log(CORPUS / origin["ground_truth"]), origin)
    assert {**truth, "models": [name.split("/")[-1] for name in truth["models"]]} == billed
    expected = entry["expected"]
    for key, value in truth.items():
        if key not in differs:
            assert expected[key] == value, key
            continue
        assert expected[key] != value, (key, differs[key])
        if differs[key].startswith("rounded"):
            assert abs(expected[key] - value) <= entry["rounded"] * truth["iterations"], key


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
