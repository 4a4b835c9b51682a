"""Files written by real Codex CLI (0.39.0, 0.80.0, 0.169.0, from npm) against the scripted
model server ``scripts/capture/codex.py``, read against that server's log: every billed reply
is in ``ground-truth.jsonl`` beside the files (``corpus/codex/codex-<version>-<what>/``).

Every file's figures are in the manifest, held to this log by ``test_corpus.py`` (what the
server billed, and why a file differs); the tests here check what that cannot: which reply a
file lacks, the outputs refused and what they say, sub-agents' rollouts, and ``arena submit``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from support.gitrepo import git
from test_corpus import codex_log
from test_submit import TASK, metrics_levels, project, validate  # noqa: F401

from arena_bot.cli import main
from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts import read_transcript, subagent_files
from arena_bot.intake.transcripts.codex import subagent_files as codex_subagent_files

CODEX = Path(__file__).parent / "corpus" / "codex"


def truth(folder: str, *, replies: slice = slice(None)) -> dict[str, int]:
    """The server's billed replies (``replies`` of them) summed by the corpus test's reader
    of its log: uncached (input less cache read and write), cache read, cache write, output,
    tool calls."""
    records = [json.loads(line) for line in (CODEX / folder / "ground-truth.jsonl")
               .read_text().splitlines()]
    billed = [r for r in records if r.get("status") == "billed"][replies]
    summed = codex_log(billed, {})
    return {key: summed[key]
            for key in ("uncached", "cache_read", "cache_write", "output", "tool_calls")}


#: The session's rollout in the capture with a sub-agent (its sub-agent's rollout beside it).
SPAWN_MAIN = "rollout-2026-11-27T03-15-11-01a21aff-f453-78b0-abc2-fe6f50a4c568.jsonl"
SPAWN_SUB = "rollout-2026-11-27T03-15-11-01a21aff-f4d3-7dd0-bc84-b2285290a3a6.jsonl"


def read(folder: str, pattern: str) -> dict[str, Any]:
    if folder.endswith("-spawn") and pattern.startswith("rollout"):
        pattern = SPAWN_MAIN
    (path,) = (CODEX / folder).glob(pattern)
    metrics = read_transcript(path=path, format_name="codex")
    return {"uncached": metrics.prompt_tokens, "cache_read": metrics.cache_read_tokens,
            "cache_write": metrics.cache_write_tokens, "output": metrics.completion_tokens,
            "tool_calls": metrics.tool_calls}


def test_the_exec_json_of_codex_039_is_read_not_refused() -> None:
    # Events wrapped in `msg`, running totals in `token_count`: refused before.
    metrics = read_transcript(path=CODEX / "codex-0.39.0-json" / "exec-json.jsonl",
                              format_name="codex")
    assert metrics.models == ["gpt-5-codex"] and metrics.iterations == 5
    assert read("codex-0.39.0-json", "exec-json.jsonl") == truth("codex-0.39.0-json")
    # after a resume, its count is the resumed run's own (replies 6 and 7)
    assert read("codex-0.39.0-resume", "resume-json.jsonl") == truth(
        "codex-0.39.0-resume", replies=slice(5, None))


def test_legacy_exec_output_without_running_totals_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (
        {"model": "codex-mini-latest", "provider": "openai"},
        {"prompt": "hello"},
        {"id": "0", "msg": {"type": "task_started"}},
        {"id": "0", "msg": {"type": "token_count", "input_tokens": 10, "output_tokens": 2}},
    )) + "\n")
    with pytest.raises(InputError, match="no running total") as caught:
        read_transcript(path=path, format_name="codex")
    assert "rollout" in str(caught.value.hint)


@pytest.mark.parametrize("what", ["cut", "sigint", "sigkill"])
def test_a_cut_or_killed_run_the_rollout_counts_what_was_billed_exec_output_is_refused(
    what: str,
) -> None:
    # cut: the second reply's stream closed before response.completed (then the retry too);
    # sigint/sigkill: Codex interrupted while the third reply streamed. The rollout holds
    # the billed replies; the --json output has no turn.completed and names the rollout.
    folder = f"codex-0.169.0-{what}"
    assert read(folder, "rollout-*.jsonl") == truth(folder)
    (rollout,) = (CODEX / folder).glob("rollout-*.jsonl")
    with pytest.raises(InputError, match=r"no `turn\.completed`") as caught:
        read_transcript(path=CODEX / folder / "exec-json.jsonl", format_name="codex")
    assert "-".join(rollout.stem.split("-")[-5:]) in str(caught.value.hint)


FINISHED = sorted(path.relative_to(CODEX).as_posix() for path in CODEX.glob("codex-*/*.jsonl")
                  if path.name != "ground-truth.jsonl"
                  and not any(what in path.parent.name for what in ("cut", "sig", "chat")))


@pytest.mark.parametrize(("name", "said"), [
    ("codex-0.169.0-cut/rollout-*.jsonl", "Codex's task_complete: stream disconnected"),
    ("codex-0.169.0-sigint/rollout-*.jsonl", "Codex's turn_aborted: interrupted"),
    ("codex-0.169.0-sigkill/rollout-*.jsonl", "Codex's last turn has no task_complete"),
    ("codex-0.39.0-cut/exec-json.jsonl", "Codex's error: stream disconnected"),
    *[(name, "") for name in FINISHED],
])
def test_how_a_real_run_ended_is_read(name: str, said: str) -> None:
    """A run cut off, interrupted or killed ended in an error (its last turn failed, was
    aborted or never completed: so it is no success); every run that finished did not."""
    (path,) = CODEX.glob(name)
    ended = read_transcript(path=path, format_name="codex").error_end
    assert ended.startswith(said) and bool(ended) == bool(said)


@pytest.mark.parametrize(("what", "said"), [
    ("sigint", ""), ("sigkill", ""), ("cut", "Codex's task_complete: stream disconnected")])
def test_in_a_persons_session_only_a_failed_last_turn_is_an_error_end(
        tmp_path: Path, what: str, said: str) -> None:
    """The same real rollouts as a person's session (``source`` ``cli``, the terminal UI;
    ``vscode``, the editor and desktop apps): a last turn aborted (Esc) or left open (the
    window closed) is how a person ends a session once the work is done as often as not;
    a turn that failed is still the run's error end."""
    (rollout,) = (CODEX / f"codex-0.169.0-{what}").glob("rollout-*.jsonl")
    lines = [json.loads(line) for line in rollout.read_text().splitlines()]
    assert lines[0]["type"] == "session_meta" and lines[0]["payload"]["source"] == "exec"
    for source in ("cli", "vscode"):
        lines[0]["payload"]["source"] = source
        by_hand = tmp_path / f"{source}-{rollout.name}"
        by_hand.write_text("".join(json.dumps(line) + "\n" for line in lines))
        ended = read_transcript(path=by_hand, format_name="codex").error_end
        assert ended.startswith(said) and bool(ended) == bool(said), (source, ended)


@pytest.mark.parametrize("version", ["0.39.0", "0.80.0"])
@pytest.mark.parametrize("name", ["exec-json.jsonl", "rollout-*.jsonl"])
def test_a_chat_wire_run_records_no_usage_and_is_refused_clearly(version: str, name: str
                                                                 ) -> None:
    # A provider with wire_api = "chat": the server billed 5-6 replies with usage in the
    # last chunk, Codex wrote `token_count` with `info` null and turn.completed usage 0. The
    # --json output was read as 0 tokens (and `arena submit` wrote a 0-token run); the
    # rollout was refused as "no model calls found".
    (path,) = (CODEX / f"codex-{version}-chat").glob(name)
    assert truth(f"codex-{version}-chat")["uncached"] > 0
    with pytest.raises(InputError, match="Codex recorded no token usage") as caught:
        read_transcript(path=path, format_name="codex")
    assert 'wire_api = "chat"' in str(caught.value)


#: What Codex 0.171.0 printed for the `exec` capture without --json: stdout (the last
#: message) and the start and end of stderr (the header with the thread's id; the run as a
#: person reads it, elided here; ``tokens used``).
TEXT_STDOUT = "Fixed `add` in calc.py (it subtracted); `calc.add(2, 3)` now prints 5.\n"
TEXT_STDERR = """Reading additional input from stdin...
OpenAI Codex v0.171.0
--------
workdir: /tmp/cap5/codex-scratch/codex-0.171.0-exec/repo
model: gpt-5.5
provider: scripted
approval: never
sandbox: danger-full-access
reasoning effort: none
reasoning summaries: none
session id: 01a21c54-554d-7470-9577-cfe25abbd59a
--------
user
calc.add is wrong: fix it in calc.py and check it.
codex
Fixed `add` in calc.py (it subtracted); `calc.add(2, 3)` now prints 5.
tokens used
21,820
"""


@pytest.mark.parametrize(("text", "names"), [
    (TEXT_STDOUT, "rollout-*<thread id>.jsonl"),
    (TEXT_STDERR + TEXT_STDOUT, "rollout-*01a21c54-554d-7470-9577-cfe25abbd59a.jsonl"),
])
def test_the_text_codex_exec_prints_is_refused_naming_the_rollout(
    tmp_path: Path, text: str, names: str,
) -> None:
    # It was refused as a hand-edited file's invalid JSON, with no word of what to pass.
    path = tmp_path / "codex-exec.txt"
    path.write_text(text)
    with pytest.raises(InputError, match="the text `codex exec` prints without --json"
                       ) as caught:
        read_transcript(path=path, format_name="codex")
    assert str(path) in str(caught.value)
    assert f"$CODEX_HOME/sessions/YYYY/MM/DD/{names}" in (caught.value.hint or "")


def task_workdir(board: Path, where: Path) -> Path:
    """The slugkit working tree as Codex left it in the `-task` captures (TASK_PATCH of
    scripts/capture/codex.py applied to the base commit)."""
    spec = yaml.safe_load((board / "dataset" / TASK / "task.yaml").read_text())
    git("clone", "-q", str(board / "dataset" / TASK / "repo.bundle"), str(where), cwd=board)
    git("checkout", "-q", spec["source"]["commit"], cwd=where)
    core = where / "slugkit" / "core.py"
    core.write_text(core.read_text().replace(
        "words joined by hyphens.", "words joined by single hyphens.", 1))
    (where / "slugkit" / "notes_helper.py").write_text("HELPER = True\n")
    return where


@pytest.mark.parametrize(("version", "name", "level"), [
    ("0.169.0", "rollout-*.jsonl", "transcript-consistent"),
    ("0.39.0", "rollout-*.jsonl", "transcript-consistent"),
    ("0.39.0", "exec-json.jsonl", "self-reported"),
])
def test_a_real_codex_run_in_the_task_is_submitted_with_the_servers_figures(
    project: Path, tmp_path: Path, version: str, name: str, level: str,  # noqa: F811
) -> None:
    folder = f"codex-{version}-task"
    (path,) = (CODEX / folder).glob(name)
    result = CliRunner().invoke(main, [
        "--root", str(project), "submit", "--task", TASK, "--format", "codex",
        "--tool", "Codex", "--tool-version", version, "--contributor", "Test Person",
        "--date", "2026-11-27", "--workdir", str(task_workdir(project, tmp_path / "work")),
        "--transcript", str(path)])
    assert result.exit_code == 0, result.output
    (written,) = (project / "submissions" / TASK).iterdir()
    run = yaml.safe_load((written / "submission.yaml").read_text())["runs"][0]
    expected = truth(folder)
    assert run["tokens"]["prompt"] == expected["uncached"] + expected["cache_read"]
    assert run["tokens"]["cached"] == expected["cache_read"]
    assert run["tokens"]["completion"] == expected["output"]
    assert run["tool_calls"] == expected["tool_calls"]
    assert run["iterations"] == 5
    assert validate(project, written)[0] == 0
    levels = metrics_levels(project, [written], tmp_path)
    assert levels[written.name][0] == level, levels


def test_a_sub_agents_rollout_is_read_with_the_session(tmp_path: Path) -> None:
    # Codex 0.169's spawn_agent runs the sub-agent as a thread of its own, in a rollout of
    # its own beside the session's (session_meta parent_thread_id): its 2 replies (8,657
    # uncached, 5,120 read, 171 output, 1 tool call) were in no figure.
    folder = "codex-0.169.0-spawn"
    assert read(folder, "rollout-*.jsonl") == truth(folder)
    main = CODEX / folder / SPAWN_MAIN
    assert codex_subagent_files(main) == [CODEX / folder / SPAWN_SUB]
    assert subagent_files(main, "codex") == [CODEX / folder / SPAWN_SUB]
    # copied alone, the session names the sub-agent it could not read
    alone = tmp_path / SPAWN_MAIN
    alone.write_bytes(main.read_bytes())
    metrics = read_transcript(path=alone, format_name="codex")
    assert metrics.unread_subagents == {"01a21aff-f4d3-7dd0-bc84-b2285290a3a6"}
    assert metrics.completion_tokens == truth(folder, replies=slice(0, 2))["output"] + \
        truth(folder, replies=slice(4, 5))["output"]


def test_the_exec_output_of_a_run_with_a_sub_agent_names_it_as_unread() -> None:
    metrics = read_transcript(path=CODEX / "codex-0.169.0-spawn" / "exec-json.jsonl",
                              format_name="codex")
    assert metrics.unread_subagents == {"01a21aff-f4d3-7dd0-bc84-b2285290a3a6"}
    assert metrics.tool_calls == 2  # spawn_agent and wait, the session's own


def test_arena_submit_stores_the_sub_agents_rollout_with_the_session(
    project: Path, tmp_path: Path,  # noqa: F811
) -> None:
    # the working tree is the task's, untouched but for one file: the run is read, stored
    # with its sub-agent, and the stored copy gives the same figures
    work = task_workdir(project, tmp_path / "work")
    result = CliRunner().invoke(main, [
        "--root", str(project), "submit", "--task", TASK, "--format", "codex",
        "--tool", "Codex", "--tool-version", "0.169.0", "--contributor", "Test Person",
        "--date", "2026-11-27", "--workdir", str(work),
        "--transcript", str(CODEX / "codex-0.169.0-spawn" / SPAWN_MAIN)])
    assert result.exit_code == 0, result.output
    assert "1 sub-agent file stored with the session" in result.output
    (written,) = (project / "submissions" / TASK).iterdir()
    run = yaml.safe_load((written / "submission.yaml").read_text())["runs"][0]
    expected = truth("codex-0.169.0-spawn")
    assert run["tokens"]["completion"] == expected["output"]
    assert run["tool_calls"] == expected["tool_calls"]
    stored = read_transcript(path=written / run["transcript"]["file"], format_name="codex")
    assert stored.completion_tokens == expected["output"]
    assert stored.unread_subagents == set()


@pytest.mark.parametrize("name", ["exec-json.jsonl", "rollout-*.jsonl"])
def test_codex_039_records_no_usage_for_its_summarization_call(name: str) -> None:
    # Codex 0.39 compacting ("Start Summarization", reply 6 of 7) writes a `compacted` line
    # and no token_count for that call: the files carry every billed reply but that one
    # (Codex 0.169 records its compaction call like any other: see the parametrized test).
    billed = truth("codex-0.39.0-compact")
    summarization = truth("codex-0.39.0-compact", replies=slice(5, 6))
    assert read("codex-0.39.0-compact", name) == {
        key: billed[key] - (summarization[key] if key != "tool_calls" else 0)
        for key in billed}
