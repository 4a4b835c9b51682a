"""Metrics levels against real git checkouts: the honest sample transcript reaches
``transcript-consistent``; forged ones (usage cut, a fabricated five-line session, edits
through the shell, models swapped, figures shaved under the tolerance) do not, each with
its reason; the edit formats of Codex, OpenHands and SWE-agent replay on a real repository.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from support.gitrepo import git

from arena_bot.cli import main
from arena_bot.core.prices import load_price_table
from arena_bot.intake.patches import parse_patch
from arena_bot.intake.submissions import load_submission
from arena_bot.intake.transcripts import read_transcript
from arena_bot.intake.transcripts.edits import (
    Activity,
    Request,
    differences,
    iter_edits,
    patched_files,
    replay,
    usage_problems,
)
from arena_bot.intake.verification import checkout_files, run_level, transcript_cost

REPO = Path(__file__).resolve().parent.parent


def read_activity(path: Path, fmt: str) -> Activity | None:
    return read_transcript(path=path, format_name=fmt).activity

TASK = "csvstat-summaries"
SAMPLE = REPO / "submissions" / TASK / "2026-11-04_claude-code_claude-sonnet-4-5"
CWD = "/home/maya/csvstat"


def clone_task(task: str, where: Path) -> Path:
    """A real clone of the task's bundle at its base commit."""
    spec = yaml.safe_load((REPO / "dataset" / task / "task.yaml").read_text())
    git("clone", "-q", str(REPO / "dataset" / task / "repo.bundle"), str(where), cwd=REPO)
    git("checkout", "-q", spec["source"]["commit"], cwd=where)
    return where


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clone_task(TASK, tmp_path_factory.mktemp("base") / "csvstat")


def level_of(folder: Path, base: Path) -> tuple[str, tuple[str, ...]]:
    submission = load_submission(folder)
    (run,) = submission.spec.runs
    return run_level(run=run, folder=folder, models=submission.spec.models,
                     base_checkout=lambda: base, prices=load_price_table())


def copy_sample(tmp_path: Path, name: str = "sample") -> Path:
    folder = tmp_path / name
    shutil.copytree(SAMPLE, folder)
    return folder


def records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "session.jsonl").read_text().splitlines()]


def write_records(folder: Path, lines: list[dict[str, Any]]) -> None:
    (folder / "session.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def report_transcript_figures(folder: Path, change: Callable[[dict[str, Any]], None] | None = None
                              ) -> None:
    """Rewrite the yaml's figures to the transcript's own (as `arena submit` would), so the
    forgery passes validation; ``change`` then edits the run further."""
    spec = yaml.safe_load((folder / "submission.yaml").read_text())
    metrics = read_transcript(path=folder / "session.jsonl", format_name="claude-code")
    run = spec["runs"][0]
    run["tokens"] = {
        "total": metrics.prompt_total + metrics.completion_tokens,
        "prompt": metrics.prompt_total, "completion": metrics.completion_tokens,
        "cached": metrics.cache_read_tokens,
    }
    run["tool_calls"], run["iterations"] = metrics.tool_calls, metrics.iterations
    run["execution_time"] = round(metrics.wall_clock_seconds, 1)
    cost = transcript_cost(metrics=metrics, prices=load_price_table())
    run["estimated_cost"] = round(cost or 0.0, 4) or 0.0001
    if change is not None:
        change(spec)
    (folder / "submission.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))


def validates(folder: Path, tmp_path: Path) -> bool:
    """`arena validate` on the folder placed in a repository with the task."""
    root = tmp_path / f"repo-{folder.name}"
    if not (root / "dataset" / TASK).exists():
        shutil.copytree(REPO / "dataset" / TASK, root / "dataset" / TASK)
    target = root / "submissions" / TASK / SAMPLE.name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(folder, target)
    result = CliRunner().invoke(main, ["--root", str(root), "validate", str(target)])
    return result.exit_code == 0


# --- the honest sample and the forgeries ---------------------------------------------


#: Every sample submission whose transcript format shows replayable edits.
HONEST = sorted(
    folder for folder in (REPO / "submissions").glob("*/*")
    if (folder / "submission.yaml").is_file() and any(
        run.get("transcript", {}).get("format") in ("claude-code", "codex", "openhands",
                                                    "swe-agent", "aider-history")
        for run in yaml.safe_load((folder / "submission.yaml").read_text())["runs"])
)


def test_there_are_honest_samples_of_two_formats() -> None:
    formats = {run["transcript"]["format"] for folder in HONEST
               for run in yaml.safe_load((folder / "submission.yaml").read_text())["runs"]}
    assert {"claude-code", "openhands", "aider-history"} <= formats


@pytest.mark.parametrize("folder", HONEST, ids=lambda f: f.name)
def test_the_honest_samples_are_consistent_with_their_transcripts(folder: Path,
                                                                   tmp_path: Path) -> None:
    checkout = clone_task(folder.parent.name, tmp_path / "base")
    assert level_of(folder, checkout) == ("transcript-consistent", ())


def test_the_level_reads_the_transcript_once(base: Path, monkeypatch: pytest.MonkeyPatch
                                             ) -> None:
    """The figures, the activity and the exact comparison all come from one reading."""
    import arena_bot.intake.verification as verification

    reads: list[Path] = []

    def counted(*, path: Path, format_name: str) -> Any:
        reads.append(path)
        return read_transcript(path=path, format_name=format_name)

    monkeypatch.setattr(verification, "read_transcript", counted)
    assert level_of(SAMPLE, base) == ("transcript-consistent", ())
    assert reads == [SAMPLE / "session.jsonl"]


def forge_usage_cut(folder: Path) -> None:
    """Every usage figure cut to a tenth, and the yaml made to agree."""
    lines = records(folder)
    for line in lines:
        usage = line.get("message", {}).get("usage")
        if isinstance(usage, dict):
            for key, value in usage.items():
                usage[key] = value // 10
    write_records(folder, lines)
    report_transcript_figures(folder)


def forge_five_lines(folder: Path) -> None:
    """A fabricated five-line session: three edit calls that reproduce both patches
    exactly, plausible usage, no reads and no tool results."""
    calls: dict[str, list[dict[str, str]]] = {}
    for line in records(folder):
        for block in line.get("message", {}).get("content", []) or []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and \
                    block["name"] == "Edit":
                calls.setdefault(block["input"]["file_path"], []).append(block["input"])
    failed = 'summary["min"]'  # the sample's one failed edit is left out
    usage = {"input_tokens": 2400, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0, "output_tokens": 900}

    def assistant(k: int, content: list[dict[str, Any]]) -> dict[str, Any]:
        return {"type": "assistant", "uuid": f"a{k}", "cwd": CWD,
                "timestamp": f"2026-11-04T14:0{k}:00.000Z",
                "message": {"id": f"msg_{k}", "role": "assistant",
                            "model": "claude-sonnet-4-5", "content": content, "usage": usage}}

    lines: list[dict[str, Any]] = [{"type": "user", "uuid": "u0", "cwd": CWD,
                                    "timestamp": "2026-11-04T14:00:00.000Z",
                                    "message": {"role": "user", "content": "do both features"}}]
    for k, (path, edits) in enumerate(sorted(calls.items()), start=1):
        kept = [{"old_string": e["old_string"], "new_string": e["new_string"]}
                for e in edits if failed not in e["old_string"]]
        lines.append(assistant(k, [{"type": "tool_use", "id": f"t{k}", "name": "MultiEdit",
                                    "input": {"file_path": path, "edits": kept}}]))
    lines.append(assistant(9, [{"type": "text", "text": "Done."}]))
    assert len(lines) == 5
    write_records(folder, lines)
    report_transcript_figures(folder, lambda spec: spec.update(models=["claude-sonnet-4-5"]))


def forge_shell_edits(folder: Path) -> None:
    """The same session with every Edit done through Bash instead (python -c rewriting the
    file): the patch is the same, the transcript's figures the same."""
    lines = records(folder)
    for line in lines:
        for block in line.get("message", {}).get("content", []) or []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and \
                    block["name"] == "Edit":
                data = block["input"]
                script = (f"import pathlib; p = pathlib.Path({data['file_path']!r}); "
                          f"p.write_text(p.read_text().replace({data['old_string']!r}, "
                          f"{data['new_string']!r}, 1))")
                block["name"] = "Bash"
                block["input"] = {"command": f"python3 -c {json.dumps(script)}"}
    write_records(folder, lines)
    report_transcript_figures(folder)


def forge_models_swapped(folder: Path) -> None:
    """The yaml names a stronger model than the transcript's."""
    report_transcript_figures(folder, lambda spec: spec.update(models=["claude-opus-4-1"]))


def forge_shaved(folder: Path) -> None:
    """The yaml 4.9% under its transcript with one tool call fewer (inside validation's
    tolerance and slack)."""
    def shave(spec: dict[str, Any]) -> None:
        run = spec["runs"][0]
        tokens = run["tokens"]
        tokens["prompt"] = int(tokens["prompt"] * 0.951)
        tokens["cached"] = int(tokens["cached"] * 0.951)
        tokens["total"] = tokens["prompt"] + tokens["completion"]
        run["tool_calls"] -= 1

    report_transcript_figures(folder, shave)


FORGERIES: dict[str, tuple[Callable[[Path], None], str]] = {
    "usage cut to a tenth": (forge_usage_cut, "cannot carry"),
    "fabricated five-line session": (forge_five_lines, "no result"),
    "edits through the shell": (forge_shell_edits, "through the shell"),
    "models swapped": (forge_models_swapped, "names model(s) claude-opus-4-1"),
    "yaml 4.9% under, one tool call fewer": (forge_shaved, "the level needs the transcript's"),
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forged_transcript_does_not_get_the_level(name: str, base: Path, tmp_path: Path
                                                    ) -> None:
    forge, expected = FORGERIES[name]
    folder = copy_sample(tmp_path)
    forge(folder)
    # Every forgery passes validation (figures within tolerance, no error)...
    assert validates(folder, tmp_path), name
    level, reasons = level_of(folder, base)
    # ...but none is consistent with its transcript, and the reason says why.
    assert level == "self-reported", name
    assert any(expected in reason for reason in reasons), reasons


def test_the_fabricated_session_with_results_still_fails_on_reads(base: Path, tmp_path: Path
                                                                  ) -> None:
    """Answering each fabricated edit is not enough: Claude Code edits no file its session
    has not read, and reading them puts their text in the conversation the usage must
    carry."""
    folder = copy_sample(tmp_path)
    forge_five_lines(folder)
    lines = records(folder)
    answered = []
    for line in lines:
        answered.append(line)
        for block in line["message"].get("content", []) if line["type"] == "assistant" else []:
            if block.get("type") == "tool_use":
                answered.append({"type": "user", "uuid": f"r{block['id']}", "cwd": CWD,
                                 "timestamp": line["timestamp"],
                                 "message": {"role": "user", "content": [
                                     {"type": "tool_result", "tool_use_id": block["id"],
                                      "content": "ok"}]}})
    write_records(folder, answered)
    report_transcript_figures(folder, lambda spec: spec.update(models=["claude-sonnet-4-5"]))
    level, reasons = level_of(folder, base)
    assert level == "self-reported"
    assert any("never read" in reason for reason in reasons), reasons


def test_a_patch_the_transcript_does_not_make_is_named(base: Path, tmp_path: Path) -> None:
    folder = copy_sample(tmp_path)
    patch = folder / "agent2-missing.patch"
    patch.write_text(patch.read_text().replace('"n/a", "nan"', '"n/a"'))
    level, reasons = level_of(folder, base)
    assert level == "self-reported"
    assert any("csvstat/reader.py differs between the replayed edits and the patch" in r
               for r in reasons), reasons


def test_no_base_checkout_is_no_level_with_the_reason(tmp_path: Path) -> None:
    submission = load_submission(SAMPLE)
    (run,) = submission.spec.runs
    level, reasons = run_level(run=run, folder=SAMPLE, models=submission.spec.models,
                               base_checkout=None, prices=load_price_table())
    assert level == "self-reported"
    assert reasons == ("the task's base commit is not available here to replay the edits",)


# --- a real scoring run --------------------------------------------------------------


def test_score_shows_levels_and_verified_only_keeps_the_consistent(tmp_path: Path) -> None:
    """`arena score` on a repository with the honest sample, two forgeries and a sample
    without transcript: the base checkout is cloned by the app layer (real git)."""
    root = tmp_path / "board"
    shutil.copytree(REPO / "dataset" / TASK, root / "dataset" / TASK)
    submissions = root / "submissions" / TASK
    shutil.copytree(SAMPLE, submissions / SAMPLE.name)
    for name, forge in (("2026-11-04_claude-code_forged-cut", forge_usage_cut),
                        ("2026-11-04_claude-code_forged-shell", forge_shell_edits)):
        forge(copy_sample(tmp_path, name))
        shutil.copytree(tmp_path / name, submissions / name)
    plain = REPO / "submissions" / TASK / "2026-11-05_cursor_gemini-2.5-pro"
    shutil.copytree(plain, submissions / plain.name)
    out = root / "out"
    result = CliRunner().invoke(main, ["--root", str(root), "score", "--output", str(out)])
    assert result.exit_code == 0, result.output
    board = json.loads((out / "leaderboard.json").read_text())
    levels = {e["submission_id"]: e["metrics_level"] for e in board["entries"]}
    assert levels == {
        SAMPLE.name: "transcript-consistent",
        "2026-11-04_claude-code_forged-cut": "self-reported",
        "2026-11-04_claude-code_forged-shell": "self-reported",
        plain.name: "self-reported",
    }
    reasons = {e["submission_id"]: e["metrics_reasons"] for e in board["entries"]}
    assert reasons[plain.name] and all(r.endswith(": no transcript") for r in reasons[plain.name])
    assert reasons[SAMPLE.name] == []
    only = root / "only"
    result = CliRunner().invoke(
        main, ["--root", str(root), "score", "--verified-only", "--output", str(only)])
    assert result.exit_code == 0, result.output
    kept = json.loads((only / "leaderboard.json").read_text())["entries"]
    assert [e["submission_id"] for e in kept] == [SAMPLE.name]
    header, row = (only / "leaderboard.csv").read_text().splitlines()
    assert row.split(",")[header.split(",").index("metrics_level")] == "transcript-consistent"


# --- the other tools' edit formats on a real repository ---------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    where = tmp_path / "proj"
    (where / "pkg").mkdir(parents=True)
    (where / "pkg" / "core.py").write_text(
        "def slug(text):\n    return text.lower()\n\n\ndef join(parts):\n"
        "    return '-'.join(parts)\n")
    (where / "README.md").write_text("# proj\n")
    git("init", "-q", cwd=where)
    git("add", ".", cwd=where)
    git("commit", "-qm", "base", cwd=where)
    return where


def real_patch(repo: Path, change: Callable[[Path], None]) -> str:
    """Make the change in the working tree, take `git diff` as the patch, then restore."""
    change(repo)
    git("add", "-A", cwd=repo)
    text = git("diff", "--cached", cwd=repo)
    git("reset", "-q", "--hard", cwd=repo)
    git("clean", "-qfd", cwd=repo)
    return text


def agrees(activity: Activity, repo: Path, patch: str) -> list[str]:
    base = checkout_files(repo)
    submitted = patched_files(parse_patch(patch), base=base)
    replayed = replay(list(iter_edits(activity)), base=base, cwd=activity.cwd,
                      known=lambda name: name in submitted)
    return differences(replayed, submitted, base=base)


def the_change(repo: Path) -> None:
    core = repo / "pkg" / "core.py"
    core.write_text(core.read_text().replace("    return text.lower()\n",
                                             "    return text.strip().lower()\n"))
    (repo / "pkg" / "extra.py").write_text("EXTRA = 1\n")


def test_codex_apply_patch_in_all_three_spellings(repo: Path, tmp_path: Path) -> None:
    patch = real_patch(repo, the_change)
    envelope = ("*** Begin Patch\n*** Update File: pkg/core.py\n@@ def slug(text):\n"
                "-    return text.lower()\n+    return text.strip().lower()\n"
                "*** Add File: pkg/extra.py\n+EXTRA = 1\n*** End Patch\n")
    spellings = {
        "custom": {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1",
                   "input": envelope},
        "argv": {"type": "function_call", "name": "shell", "call_id": "c1",
                 "arguments": json.dumps({"command": ["apply_patch", envelope]})},
        "heredoc": {"type": "function_call", "name": "shell", "call_id": "c1",
                    "arguments": json.dumps({"command": [
                        "bash", "-lc", f"apply_patch <<'EOF'\n{envelope}EOF\n"]})},
    }
    for name, call in spellings.items():
        path = tmp_path / f"{name}.jsonl"
        lines = [
            {"type": "session_meta", "payload": {"cwd": str(repo)}},
            {"type": "turn_context", "payload": {"model": "gpt-5-codex", "cwd": str(repo)}},
            {"type": "response_item", "payload": call},
            # as Codex writes it: the call's usage and the running total
            {"type": "event_msg", "payload": {"type": "token_count", "info": {
                "last_token_usage": {"input_tokens": 9000, "cached_input_tokens": 0,
                                     "output_tokens": 300},
                "total_token_usage": {"input_tokens": 9000, "cached_input_tokens": 0,
                                      "output_tokens": 300}}}},
        ]
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        activity = read_activity(path, "codex")
        assert activity is not None and len(activity.edits) == 2, name
        assert agrees(activity, repo, patch) == [], name
        assert usage_problems(activity) == [], name


def test_openhands_editor_and_undo(repo: Path, tmp_path: Path) -> None:
    patch = real_patch(repo, the_change)
    core = f"{repo}/pkg/core.py"

    def action(k: int, args: dict[str, Any]) -> dict[str, Any]:
        return {"id": k, "source": "agent", "action": "edit", "args": {"path": core, **args},
                "tool_call_metadata": {"function_name": "str_replace_editor",
                                       "tool_call_id": f"call_{k}",
                                       "model_response": {"id": f"resp-{k}", "model": "gpt-5"}},
                "llm_metrics": {"accumulated_token_usage": {
                    "prompt_tokens": 3000 * k, "completion_tokens": 100 * k,
                    "cache_read_tokens": 0}}}

    events = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "strip it"}},
        action(1, {"command": "str_replace", "old_str": "text.lower()",
                   "new_str": "text.upper()"}),
        {"id": 2, "source": "environment", "observation": "edit", "cause": 1,
         "content": "The file has been edited."},
        action(3, {"command": "undo_edit"}),
        action(5, {"command": "str_replace", "old_str": "return text.lower()",
                   "new_str": "return text.strip().lower()"}),
        action(7, {"command": "str_replace", "old_str": "nothing like this",
                   "new_str": "x"}),
        {"id": 8, "source": "environment", "observation": "edit", "cause": 7,
         "content": "ERROR:\nNo replacement was performed, old_str did not appear verbatim."},
        {**action(9, {"command": "create", "file_text": "EXTRA = 1\n"}),
         "args": {"path": f"{repo}/pkg/extra.py", "command": "create",
                  "file_text": "EXTRA = 1\n"}},
    ]
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(events))
    activity = read_activity(path, "openhands")
    assert activity is not None and activity.failed == [3]
    assert agrees(activity, repo, patch) == []
    assert usage_problems(activity) == []


def test_swe_agent_editor_calls_as_actions(repo: Path, tmp_path: Path) -> None:
    patch = real_patch(repo, the_change)
    steps = [
        {"action": f"str_replace_editor view {repo}/pkg/core.py", "observation": "..."},
        {"action": (f"str_replace_editor str_replace {repo}/pkg/core.py --old_str "
                    "'    return text.lower()' --new_str '    return text.strip().lower()'"),
         "observation": "edited"},
        {"action": f"str_replace_editor create {repo}/pkg/extra.py --file_text 'EXTRA = 1\n'",
         "observation": "created"},
        {"action": "submit", "observation": patch},
    ]
    history = [{"role": "system", "content": "You are a helpful assistant"}] + [
        {"role": "assistant", "content": step["action"]} for step in steps]
    document = {"trajectory": steps, "history": history,
                "info": {"model_stats": {"tokens_sent": 12_000, "tokens_received": 400,
                                         "api_calls": 4}}}
    path = tmp_path / "run.traj"
    path.write_text(json.dumps(document))
    activity = read_activity(path, "swe-agent")
    assert activity is not None
    assert agrees(activity, repo, patch) == []
    assert usage_problems(activity) == []


def test_usage_rules_each_catch_their_contradiction() -> None:
    def request(k: int, *, input_tokens: int, cache_read: int = 0, context: int = 0,
                output: int = 200, wrote: int = 100) -> Request:
        return Request(where=k, input_tokens=input_tokens,
                       cache_read=cache_read, output_tokens=output, context_chars=context,
                       output_chars=wrote)

    def problems(*requests: Request) -> list[str]:
        return usage_problems(Activity(requests=list(requests), format_name="claude-code"))

    honest = [request(1, input_tokens=16_000, cache_read=15_000),
              request(2, input_tokens=19_000, cache_read=16_000, context=40_000)]
    assert problems(*honest) == []
    # input under half the estimate of the 200k characters sent before
    assert "cannot carry the conversation" in problems(
        honest[0], request(2, input_tokens=20_000, context=200_000))[0]
    # a first request too small for any system prompt
    assert "system prompt" in problems(request(1, input_tokens=300))[0]
    # output that cannot hold what the model wrote
    assert "output tokens" in problems(request(1, input_tokens=16_000, output=10,
                                               wrote=4000))[0]
    # cache reads beyond every context sent before
    assert "exceed every context" in problems(
        honest[0], request(2, input_tokens=60_000, cache_read=50_000, context=40_000))[0]
    # ...by more than the slack for a prefix cached elsewhere (sub-agent, earlier session)
    assert problems(honest[0], request(2, input_tokens=18_000, cache_read=17_500,
                                       context=40_000)) == []


def _claude_response(message_id: str, blocks: list[tuple[str, int, str | None]],
                     input_tokens: int = 20_000) -> list[dict[str, Any]]:
    """Claude Code's lines for one response: one per content block ``(text, output
    tokens written with it, stop_reason)``."""
    return [{"type": "assistant", "uuid": f"{message_id}-{k}", "cwd": CWD,
             "timestamp": "2026-11-04T14:00:00.000Z",
             "message": {"id": message_id, "role": "assistant", "model": "claude-sonnet-4-5",
                         "content": [{"type": "text", "text": text}], "stop_reason": stop,
                         "usage": {"input_tokens": 3, "cache_read_input_tokens": 0,
                                   "cache_creation_input_tokens": input_tokens,
                                   "output_tokens": output}}}
            for k, (text, output, stop) in enumerate(blocks)]


def test_claude_code_output_is_checked_where_the_transcript_has_the_final_count(
        tmp_path: Path) -> None:
    """Claude Code writes a line per content block with the usage known so far: early
    lines show 1-8 output tokens, the line with the stop_reason the final count."""
    path = tmp_path / "s.jsonl"

    def problems_of(*responses: list[dict[str, Any]]) -> list[str]:
        path.write_text("".join(json.dumps(line) + "\n" for r in responses for line in r))
        activity = read_activity(path, "claude-code")
        assert activity is not None
        return usage_problems(activity)

    essay = "x" * 4000  # ~1,000 tokens
    # streamed: early lines 4 tokens, the last (with stop_reason) the whole 1,100
    assert problems_of(_claude_response("m1", [(essay, 4, None), (essay, 1100, "end_turn")
                                               ])) == []
    # a final count that cannot hold the reply is caught...
    assert "output tokens cannot hold" in problems_of(
        _claude_response("m1", [(essay, 4, None), (essay, 40, "end_turn")]))[0]
    # ...a count written mid-stream, never finalised, is only a lower bound
    assert problems_of(_claude_response("m1", [(essay, 4, None), (essay, 4, None)])) == []
    # the input of every request must still carry the conversation so far
    assert "cannot carry the conversation" in problems_of(
        _claude_response("m1", [(essay * 20, 12_000, "end_turn")]),
        _claude_response("m2", [("ok", 5, "end_turn")], input_tokens=9_000))[0]


def test_codex_instructions_are_input_not_output(tmp_path: Path) -> None:
    """The developer and user messages of a rollout (permissions, AGENTS.md) are sent to
    the model, not written by it."""
    path = tmp_path / "rollout.jsonl"
    instructions = "sandbox rules " * 2000  # ~7,000 tokens
    lines = [
        {"type": "turn_context", "payload": {"model": "gpt-5-codex", "cwd": "/w"}},
        {"type": "response_item", "payload": {"type": "message", "role": "developer",
                                              "content": [{"text": instructions}]}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"text": "fix it"}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                                              "arguments": '{"command": ["ls"]}'}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": {
            "last_token_usage": {"input_tokens": 12_000, "cached_input_tokens": 0,
                                 "output_tokens": 40},
            "total_token_usage": {"input_tokens": 12_000, "cached_input_tokens": 0,
                                  "output_tokens": 40}}}},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    activity = read_activity(path, "codex")
    assert activity is not None
    assert usage_problems(activity) == []
    # the instructions still count as the conversation the input must carry
    lines[-1]["payload"]["info"]["last_token_usage"]["input_tokens"] = 2_500
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    activity = read_activity(path, "codex")
    assert activity is not None
    assert "cannot carry the conversation" in usage_problems(activity)[0]


def test_aider_requests_carry_the_current_exchange_and_the_system_prompt(
        tmp_path: Path) -> None:
    """Aider summarises earlier exchanges, so only the current one is judged; every
    request (not only the first) carries Aider's system prompt."""
    path = tmp_path / ".aider.chat.history.md"
    long_reply = "word " * 8000  # ~10,000 tokens

    def history(first: str, second: str) -> list[str]:
        path.write_text(
            "# aider chat started at 2025-05-04 17:02:36\n\n"
            f"#### explain the repo\n\n{long_reply}\n\n> Tokens: {first}.\n\n"
            f"#### now fix the bug\n\nDone.\n\n> Tokens: {second}.\n")
        activity = read_activity(path, "aider-history")
        assert activity is not None
        return usage_problems(activity)

    # the second request need not resend the long first exchange (it may be summarised)
    assert history("3.2k sent, 10k received", "1.6k sent, 20 received") == []
    # but it carries the system prompt, as does the first
    assert "system prompt" in history("3.2k sent, 10k received", "300 sent, 20 received")[0]
    # and the output must hold the reply
    assert "output tokens cannot hold" in history("3.2k sent, 900 received",
                                                  "1.6k sent, 20 received")[0]
    # a request inside one exchange carries that exchange, replies included
    path.write_text(
        "#### fix the bug\n\n" + long_reply + "\n\n> Tokens: 3.2k sent, 10k received.\n"
        "> Applied edit to a.py\n\nDone.\n\n> Tokens: 3.4k sent, 20 received.\n")
    activity = read_activity(path, "aider-history")
    assert activity is not None
    assert "cannot carry the conversation" in usage_problems(activity)[0]


OPENHANDS = REPO / "submissions" / "slugkit-options" / "2026-11-05_openhands_deepseek-v3"


def _openhands_forgery(tmp_path: Path, change: Callable[[list[dict[str, Any]]], None]) -> Path:
    folder = tmp_path / "oh"
    shutil.copytree(OPENHANDS, folder)
    events = json.loads((folder / "trajectory.json").read_text())
    change(events)
    (folder / "trajectory.json").write_text(json.dumps(events))
    metrics = read_transcript(path=folder / "trajectory.json", format_name="openhands")
    spec = yaml.safe_load((folder / "submission.yaml").read_text())
    run = spec["runs"][0]
    run["tokens"] = {"total": metrics.prompt_total + metrics.completion_tokens,
                     "prompt": metrics.prompt_total, "completion": metrics.completion_tokens,
                     "cached": metrics.cache_read_tokens}
    run["tool_calls"], run["iterations"] = metrics.tool_calls, metrics.iterations
    (folder / "submission.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return folder


def _cut(events: list[dict[str, Any]]) -> None:
    for event in events:
        usage = event.get("llm_metrics", {}).get("accumulated_token_usage")
        if usage:
            for key in ("prompt_tokens", "completion_tokens", "cache_read_tokens"):
                usage[key] //= 10


def _through_the_shell(events: list[dict[str, Any]]) -> None:
    for event in events:
        if event.get("action") == "edit":
            args = event["args"]
            event["action"] = "run"
            event["tool_call_metadata"]["function_name"] = "execute_bash"
            event["args"] = {"command": f"sed -i 's/{args['old_str'][:20]}/.../' {args['path']}"}


@pytest.mark.parametrize(("change", "expected"), [
    (_cut, "cannot carry"), (_through_the_shell, "through the shell")])
def test_openhands_forgeries_do_not_get_the_level(change: Callable[[list[dict[str, Any]]], None],
                                                  expected: str, tmp_path: Path) -> None:
    checkout = clone_task("slugkit-options", tmp_path / "base")
    folder = _openhands_forgery(tmp_path, change)
    level, reasons = level_of(folder, checkout)
    assert level == "self-reported"
    assert any(expected in reason for reason in reasons), reasons


def test_the_aider_sample_with_its_usage_cut_to_a_tenth_has_usage_problems(
        tmp_path: Path) -> None:
    """Aider's check is judged on the current exchange only, but a cut to a tenth still
    leaves replies the output cannot hold."""
    sample = REPO / "submissions" / "ttlcache-bugs" / "2026-11-08_aider_gemini-2.5-pro"
    history = (sample / "aider.chat.history.md").read_text()

    def tenth(found: re.Match[str]) -> str:
        value = float(found.group(1)) * (1000 if found.group(2) else 1) / 10
        return f"{value / 1000:.1f}k" if value >= 1000 else str(int(value))

    forged = "\n".join(
        re.sub(r"([0-9.]+)(k?)(?= (?:sent|received))", tenth, line)
        if line.startswith("> Tokens:") else line for line in history.split("\n"))
    assert forged != history
    honest = read_activity(sample / "aider.chat.history.md", "aider-history")
    assert honest is not None and usage_problems(honest) == []
    path = tmp_path / "aider.chat.history.md"
    path.write_text(forged)
    activity = read_activity(path, "aider-history")
    assert activity is not None
    problems = usage_problems(activity)
    assert len(problems) == len(activity.requests) == 3
    assert all("output tokens cannot hold" in problem for problem in problems)


def test_tool_call_arguments_given_as_an_object_are_read_like_their_json_text(
    tmp_path: Path,
) -> None:
    """SWE-agent's history may hold a call's arguments as an object rather than JSON text:
    both spellings give the same edit (the object form once raised a TypeError)."""
    arguments = {"command": "create", "path": "/repo/a.py", "file_text": "x = 1\n"}
    found = []
    for spelt in (arguments, json.dumps(arguments)):
        call = {"function": {"name": "str_replace_editor", "arguments": spelt}}
        trajectory = {"history": [{"role": "assistant", "content": "create it",
                                   "tool_calls": [call]}],
                      "trajectory": [], "info": {"model_stats": {"tokens_sent": 900}}}
        path = tmp_path / "run.traj"
        path.write_text(json.dumps(trajectory))
        activity = read_activity(path, "swe-agent")
        assert activity is not None
        found.append([(edit.path, edit.kind, edit.new) for edit in activity.edits])
    assert found[0] == found[1] == [("/repo/a.py", "write", "x = 1\n")]
