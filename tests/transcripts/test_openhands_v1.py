"""OpenHands V1 conversations (software-agent-sdk) read right, on the real files of ``corpus/``.

The figures each test expects were counted by hand over the files (commands in the
comments), apart from the reader. ``corpus/README.md`` says where each file came from.
"""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts import read_transcript
from arena_bot.intake.transcripts.edits import iter_edits, replay, usage_problems
from arena_bot.intake.transcripts.metrics import TranscriptMetrics

CORPUS = Path(__file__).parent / "corpus" / "openhands-v1"
#: Agent-server events of a PR-review run, one per line (software-agent-sdk's fixture).
STREAM = CORPUS / "events.jsonl"
#: A SWE-bench run through the agent server: base_state.json, then its 91 events.
SWE = CORPUS / "swebench-matplotlib-2fede959.jsonl.gz"
#: A LocalConversation (stubbed model), as one JSON array.
PROBE = CORPUS / "sdk-restore-probe-3fdb3160.json"


def lines_of(path: Path) -> list[str]:
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return data.decode().splitlines()


def read(path: Path) -> TranscriptMetrics:
    return read_transcript(path=path, format_name="openhands")


def tokens(metrics: TranscriptMetrics) -> tuple[int, int, int, int]:
    return (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.cache_write_tokens,
            metrics.completion_tokens)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_agent_server_running_totals_count_once_and_each_growth_is_its_call() -> None:
    # jq -c 'select(.key=="stats")|.value.usage_to_metrics.default.accumulated_token_usage
    #   |[.prompt_tokens,.cache_read_tokens,.completion_tokens]' events.jsonl
    # -> [596,0,775] [35895,1115,960] [71474,34536,1155] [107458,68193,1347]; condenser all 0.
    metrics = read(STREAM)
    assert tokens(metrics) == (107458 - 68193, 68193, 0, 1347)
    assert metrics.usage_by_model == {"litellm_proxy/minimax-m2.7": (39265, 68193, 0, 1347)}
    # jq -r 'select(.kind=="ActionEvent")|.tool_call_id, .llm_response_id': 2 and 2 distinct
    assert (metrics.tool_calls, metrics.iterations) == (2, 2)
    # first and last timestamp: 05:39:18.809928 and 05:40:01.175476
    assert metrics.wall_clock_seconds == pytest.approx(42.365548)
    assert (metrics.first_line, metrics.last_line) == (1, 10)
    activity = metrics.activity
    assert activity is not None and activity.edits == [] and activity.unanswered == []
    # Each action (lines 4 and 9) takes the growth of the total written just before it
    # (lines 3 and 7); the growth on line 6 belongs to an action the excerpt does not hold.
    assert [(r.where, r.input_tokens, r.cache_read, r.output_tokens)
            for r in activity.requests] == [(4, 35895 - 596, 1115, 960 - 775),
                                            (9, 107458 - 71474, 68193 - 34536, 1347 - 1155)]
    assert usage_problems(activity) == []


def test_a_swe_bench_run_with_base_state_reads_usage_edits_and_requests() -> None:
    # zcat … | jq -c 'select(.kind==null)|.stats.service_to_metrics|map_values(
    #   .accumulated_token_usage|[.prompt_tokens,.cache_read_tokens,.cache_write_tokens,
    #   .completion_tokens])'
    # -> default [1169668,1169466,62819,19639], condenser [4,0,5111,382]: the prompt holds
    # the reads, not the writes (reads + writes > prompt), so uncached = prompt - reads.
    metrics = read(SWE)
    assert tokens(metrics) == ((1169668 - 1169466) + 4, 1169466, 62819 + 5111, 19639 + 382)
    assert metrics.models == ["litellm_proxy/anthropic/claude-sonnet-4-20250514"]
    # 44 distinct tool_call_id and llm_response_id (jq … | sort -u | wc -l)
    assert (metrics.tool_calls, metrics.iterations) == (44, 44)
    # 18:58:52.309324 to 19:07:23.130531
    assert metrics.wall_clock_seconds == pytest.approx(510.821207)
    activity = metrics.activity
    assert activity is not None
    # jq -c 'select(.kind=="ActionEvent" and .action.kind=="StrReplaceEditorAction" and
    #   (.action.command|IN("create","str_replace","insert","undo_edit")))|.action.command'
    # -> 6 create, 1 str_replace (lib/matplotlib/offsetbox.py, line 62); no error observation
    root = "/tmp/tmpwumv_0e1/matplotlib/"
    assert [(e.where, e.kind) for e in activity.edits] == [
        (52, "write"), (56, "write"), (62, "replace"), (64, "write"), (68, "write"),
        (72, "write"), (82, "write")]
    assert activity.edits[2].path == root + "lib/matplotlib/offsetbox.py"
    assert metrics.edited_files == {e.path for e in activity.edits}
    assert activity.failed == [] and activity.unanswered == []
    assert len(activity.shell_writes) > 0
    # Every response id of the events has its own call in token_usages (44 of 45: the 45th
    # is the condenser's call); the first: prompt 7064, reads 7060, writes 1549, output 410.
    assert len(activity.requests) == 44
    first = activity.requests[0]
    assert (first.where, first.input_tokens, first.cache_read, first.output_tokens) == (
        4, 4 + 7060 + 1549, 7060, 410)
    assert usage_problems(activity) == []


def test_the_swe_bench_run_costs_what_openhands_recorded() -> None:
    """base_state.json records accumulated_cost 0.88160205 (default) + 0.02490825
    (condenser); priced at Claude Sonnet 4's rates the figures read give the same."""
    from arena_bot.core.prices import load_price_table
    from arena_bot.intake.verification import transcript_cost

    cost = transcript_cost(metrics=read(SWE), prices=load_price_table())
    assert cost == pytest.approx(0.88160205 + 0.02490825, abs=1e-9)


def test_the_replay_rebuilds_the_files_the_run_edited() -> None:
    activity = read(SWE).activity
    assert activity is not None
    edit = activity.edits[2]
    base_text = f"header\n{edit.old}\nfooter\n"
    files = replay(list(iter_edits(activity)), cwd="/tmp/tmpwumv_0e1/matplotlib",
                   base=lambda name: base_text if name == "lib/matplotlib/offsetbox.py"
                   else None, known=lambda name: False)
    assert files["lib/matplotlib/offsetbox.py"] == f"header\n{edit.new}\nfooter\n"
    assert set(files) == {
        "lib/matplotlib/offsetbox.py", "reproduce_issue.py", "test_alignment_logic.py",
        "test_fix.py", "test_fix_standalone.py", "test_edge_cases.py",
        "test_original_issue.py"}


def test_a_local_conversation_as_a_json_array_takes_usage_from_base_state() -> None:
    # jq '.[]|select(.kind==null)|.stats.usage_to_metrics' -> probe: prompt 10, output 5;
    # 3 FinishAction calls (3 tool_call_id, 3 llm_response_id); 22:37:55.687967-56.854865
    metrics = read(PROBE)
    assert tokens(metrics) == (10, 0, 0, 5)
    assert (metrics.tool_calls, metrics.iterations) == (3, 3)
    assert metrics.wall_clock_seconds == pytest.approx(1.166898)
    assert metrics.span_label == "events 1-12"
    activity = metrics.activity
    assert activity is not None and len(activity.requests) == 1  # one call's usage recorded
    # The stubbed model's 10 input tokens cannot have carried the system prompt and tools.
    assert any("cannot carry" in problem for problem in usage_problems(activity))


@pytest.mark.parametrize("path", [STREAM, SWE], ids=["stream", "swe"])
def test_one_per_line_and_a_json_array_read_the_same(path: Path, tmp_path: Path) -> None:
    events = [json.loads(line) for line in lines_of(path)]
    array = tmp_path / "conversation.json"
    array.write_text(json.dumps(events, indent=1))
    by_line, as_array = read(path), read(array)
    assert as_array.span_label == f"events 1-{len(events)}"
    as_array.span_label, as_array.first_line, as_array.last_line = "", 1, len(events)
    assert as_array == by_line


def test_repeated_running_totals_and_the_final_state_add_nothing(tmp_path: Path) -> None:
    lines = lines_of(STREAM)
    stats = [line for line in lines if json.loads(line).get("key") == "stats"]
    last = json.loads(stats[-1])
    full_state = {**last, "id": "full", "key": "full_state",
                  "value": {"execution_status": "finished", "stats": last["value"]}}
    base_state = {"id": "conversation", "agent": {}, "stats": last["value"]}
    doubled = [line for line in lines for _ in range(2 if line in stats else 1)]
    path = write_lines(tmp_path / "t.jsonl", [json.dumps(base_state), *doubled,
                                              json.dumps(full_state), *stats])
    metrics = read(path)
    assert tokens(metrics) == tokens(read(STREAM)) and metrics.iterations == 2


def test_base_state_at_the_end_still_gives_each_request_its_usage(tmp_path: Path) -> None:
    lines = lines_of(SWE)
    path = write_lines(tmp_path / "t.jsonl", [*lines[1:], lines[0]])
    moved, first = read(path), read(SWE)
    assert tokens(moved) == tokens(first)
    assert moved.activity is not None and first.activity is not None
    assert [(r.input_tokens, r.cache_read, r.output_tokens) for r in moved.activity.requests] \
        == [(r.input_tokens, r.cache_read, r.output_tokens) for r in first.activity.requests]


def test_a_failed_or_rejected_edit_is_not_replayed(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = [json.loads(line) for line in lines_of(SWE)]
    edit_ids = [e["id"] for e in events if e.get("kind") == "ActionEvent"
                and e["action"].get("command") in ("create", "str_replace")]
    for event in events:
        if event.get("action_id") == edit_ids[0]:
            event["observation"]["error"] = True  # before the SDK named it is_error
        if event.get("action_id") == edit_ids[1]:
            event["observation"]["is_error"] = True
        if event.get("action_id") == edit_ids[2]:
            event.update(kind="UserRejectObservation", rejection_reason="no")
        if event.get("action_id") == edit_ids[3]:  # an error names the tool call only
            event.update(kind="AgentErrorEvent", source="agent", error="boom")
            del event["action_id"], event["observation"]
    path = write_lines(tmp_path / "t.jsonl", [json.dumps(e) for e in events])
    activity = read(path).activity
    assert activity is not None and activity.failed == [0, 1, 2, 3]
    assert len(list(iter_edits(activity))) == 3 and activity.unanswered == []


def test_an_action_never_answered_is_named(tmp_path: Path) -> None:
    lines = lines_of(SWE)
    answer = next(n for n, line in enumerate(lines) if '"ObservationEvent"' in line)
    path = write_lines(tmp_path / "t.jsonl", lines[:answer] + lines[answer + 1:])
    activity = read(path).activity
    assert activity is not None and activity.unanswered == [answer]  # its action's line


def test_a_new_edit_tool_and_apply_patch_are_edits(tmp_path: Path) -> None:
    base = {"kind": "ActionEvent", "source": "agent", "timestamp": "2026-01-01T00:00:00",
            "thought": [], "llm_response_id": "r1"}
    events = [
        {**base, "id": "a1", "tool_call_id": "c1", "tool_name": "file_editor",
         "action": {"kind": "FileEditorAction", "command": "create", "path": "/w/a.py",
                    "file_text": "x = 1\n"}},
        {**base, "id": "a2", "tool_call_id": "c2", "tool_name": "file_editor",
         "action": {"kind": "FileEditorAction", "command": "view", "path": "/w/b.py"}},
        {**base, "id": "a3", "tool_call_id": "c3", "tool_name": "apply_patch",
         "llm_response_id": "r2", "action": {"kind": "ApplyPatchAction", "patch":
                                             "*** Begin Patch\n*** Add File: c.py\n+y\n"
                                             "*** End Patch"}},
        {**base, "id": "a4", "tool_call_id": "c4", "tool_name": "write_file",
         "llm_response_id": "r3", "action": {"kind": "WriteFileAction", "file_path": "d.py",
                                             "content": "z"}},
        {**base, "id": "a5", "tool_call_id": "c5", "tool_name": "terminal",
         "llm_response_id": "r3", "action": {"kind": "TerminalAction",
                                             "command": "sed -i s/a/b/ e.py"}},
    ]
    usage = {"kind": "ConversationStateUpdateEvent", "id": "s1", "source": "environment",
             "key": "stats", "value": {"usage_to_metrics": {"default": {
                 "model_name": "gpt-5", "accumulated_token_usage": {"prompt_tokens": 9000,
                                                                    "completion_tokens": 300}}}}}
    path = write_lines(tmp_path / "t.jsonl", [json.dumps(e) for e in [usage, *events]])
    metrics = read(path)
    assert tokens(metrics) == (9000, 0, 0, 300) and metrics.models == ["gpt-5"]
    assert metrics.edited_files == {"/w/a.py", "c.py", "d.py"}
    assert (metrics.tool_calls, metrics.iterations) == (5, 3)
    assert metrics.activity is not None and len(metrics.activity.shell_writes) == 1


# --- bad input -----------------------------------------------------------------------


def test_a_cut_off_last_line_names_the_file_and_line(tmp_path: Path) -> None:
    lines = lines_of(STREAM)
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines)[:-40])
    with pytest.raises(InputError, match="truncated") as caught:
        read(path)
    assert caught.value.line == 10 and caught.value.path == path


def test_a_line_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    lines = lines_of(STREAM)
    path = write_lines(tmp_path / "t.jsonl", [*lines[:4], "Agent is working", *lines[4:]])
    with pytest.raises(InputError, match="invalid JSON") as caught:
        read(path)
    assert caught.value.line == 5


def test_a_line_that_is_not_an_object_names_its_line(tmp_path: Path) -> None:
    lines = lines_of(STREAM)
    path = write_lines(tmp_path / "t.jsonl", [*lines[:2], "[1, 2]", *lines[2:]])
    with pytest.raises(InputError, match="JSON object") as caught:
        read(path)
    assert caught.value.line == 3


def test_an_array_item_that_is_not_an_object_is_named(tmp_path: Path) -> None:
    events = json.loads(PROBE.read_text())
    path = tmp_path / "t.json"
    path.write_text(json.dumps([*events[:3], "oops", *events[3:]]))
    with pytest.raises(InputError, match="event 4 of the array is not a JSON object"):
        read(path)


def test_fields_of_the_wrong_type_are_read_without_a_crash(tmp_path: Path) -> None:
    weird: list[dict[str, Any]] = [
        {"kind": "ConversationStateUpdateEvent", "key": "stats", "value": "x", "id": 1},
        {"kind": "ConversationStateUpdateEvent", "key": "stats", "value": {
            "usage_to_metrics": {"default": {"model_name": 7, "accumulated_token_usage": {
                "prompt_tokens": "9", "completion_tokens": -3, "cache_read_tokens": None}}}}},
        {"kind": "ConversationStateUpdateEvent", "key": "full_state", "value": [1]},
        {"kind": "ActionEvent", "source": "agent", "timestamp": ["no"], "action": "run",
         "tool_call": "x", "thought": 5, "llm_response_id": {"a": 1}},
        {"kind": "ActionEvent", "source": "agent", "action": {"kind": "FileEditorAction",
                                                              "command": "create", "path": 3}},
        {"kind": "ObservationEvent", "observation": "fine", "action_id": 4},
        {"kind": "Condensation", "forgotten_event_ids": "all", "summary": 2},
        {"kind": "MessageEvent", "source": "agent", "llm_message": "hi"},
        {"stats": {"usage_to_metrics": []}, "agent": None},
    ]
    path = write_lines(tmp_path / "t.jsonl", [json.dumps(e) for e in weird])
    metrics = read(path)
    assert tokens(metrics) == (0, 0, 0, 0) and metrics.models == []


def test_a_pretty_printed_event_is_refused_saying_how_to_pass_one_per_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "event-00000-03d5b5c0.json"
    path.write_text(json.dumps(json.loads(lines_of(STREAM)[0]), indent=2))
    with pytest.raises(InputError) as caught:
        read(path)
    assert str(path) in str(caught.value)
    assert "jq -c . base_state.json events/event-*.json" in (caught.value.hint or "")


def test_events_without_base_state_are_refused_saying_to_add_it(tmp_path: Path) -> None:
    """The CLI writes usage only into base_state.json: its events alone count no token."""
    path = write_lines(tmp_path / "events.jsonl", lines_of(SWE)[1:])
    with pytest.raises(InputError, match="without its usage") as caught:
        read(path)
    assert str(path) in str(caught.value) and "base_state.json first" in (caught.value.hint or "")


def test_objects_that_are_no_openhands_transcript_are_refused(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "output.jsonl", [json.dumps({"instance_id": "x",
                                                               "history": []})])
    with pytest.raises(InputError, match="neither an OpenHands V1 event") as caught:
        read(path)
    assert str(path) in str(caught.value) and "0.x" in (caught.value.hint or "")


def test_an_enormous_v1_conversation_streams_in_bounded_memory(tmp_path: Path) -> None:
    """A 40 MB event stream is read with a peak far below its size."""
    lines = lines_of(STREAM)
    observation = json.loads(lines[4])
    path = tmp_path / "big.jsonl"
    with path.open("w") as handle:
        for line in lines:
            handle.write(line + "\n")
        for number in range(10_000):
            observation.update(id=f"obs-{number}", action_id=f"act-{number}")
            observation["observation"]["content"][0]["text"] = "x" * 4000
            handle.write(json.dumps(observation) + "\n")
    assert path.stat().st_size > 40_000_000
    tracemalloc.start()
    try:
        metrics = read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert tokens(metrics) == tokens(read(STREAM))
    assert peak < 5_000_000
