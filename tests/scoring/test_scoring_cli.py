"""``arena score``, ``arena compare`` and ``arena calibrate`` through click's CliRunner."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from support.chat_server import ChatServer, Reply
from support.scoring_builders import make_result, make_run, make_submission, make_task

from arena_bot.cli import main
from arena_bot.core.settings import DEFAULT_BASE_IMAGE
from arena_bot.evaluation.store import ResultStore, input_key
from arena_bot.intake.submissions import load_submission
from arena_bot.tasks.dataset import load_task

PATCH = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"


def write_task(root: Path, task_id: str = "demo") -> Path:
    folder = root / "dataset" / task_id
    (folder / "feature1").mkdir(parents=True)
    (folder / "feature2").mkdir()
    task = make_task(task_id)
    (folder / "task.yaml").write_text(yaml.safe_dump(task.model_dump(mode="json")))
    (folder / "Dockerfile").write_text("ARG BASE_IMAGE\nFROM $BASE_IMAGE\n")
    for feature in ("feature1", "feature2"):
        for name in ("feature.md", "feature.patch", "tests.patch"):
            (folder / feature / name).write_text("x\n")
        (folder / feature / "expected_tests.json").write_text(
            '{"fail_to_pass": ["tests.test_x::test_x"]}\n')
    return folder


def write_submission(root: Path, sid: str, *, tool: str, model: str, scale: int,
                     runs: int = 3, patch: str = PATCH) -> Path:
    folder = root / "submissions" / "demo" / sid
    folder.mkdir(parents=True)
    spec = make_submission(tool=tool, model=model, runs=[
        make_run(f"r{j}", tokens={"total": scale * (10 + j)}, tool_calls=5 + j + scale,
                 execution_time=float(60 + 10 * j + scale)) for j in range(runs)
    ])
    data = spec.model_dump(exclude_none=True)
    (folder / "submission.yaml").write_text(yaml.safe_dump(data))
    (folder / "patch.diff").write_text(patch)
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_task(tmp_path)
    specs = [("a-aider", "Aider", "gpt-5", 1000), ("b-cursor", "Cursor", "gpt-5", 1500),
             ("c-codex", "Codex", "claude-sonnet-4-5", 2000),
             ("d-aider", "Aider", "gpt-5", 1100), ("e-cline", "Cline", "gpt-4.1", 3000)]
    for k, (sid, tool, model, scale) in enumerate(specs):
        write_submission(tmp_path, sid, tool=tool, model=model, scale=scale,
                         patch=PATCH + f"# {k}\n")
    write_submission(tmp_path, "f-pending", tool="Aider", model="o3", scale=500)
    store = ResultStore(tmp_path / ".arena" / "results")
    task = load_task(tmp_path / "dataset" / "demo")
    for sid, *_ in specs:
        folder = load_submission(tmp_path / "submissions" / "demo" / sid)
        passed = {"r0": True, "r1": sid != "e-cline", "r2": True}
        store.save(folder, input_key(folder, task, DEFAULT_BASE_IMAGE),
                   make_result(folder.spec, sid, passed=passed))
    return tmp_path


def invoke(root: Path, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, ["--root", str(root), *args], env=env or {},
                              catch_exceptions=False)


def test_score_writes_byte_identical_outputs(repo: Path, tmp_path: Path) -> None:
    first = invoke(repo, "score", "--output", str(tmp_path / "one"))
    assert first.exit_code == 0, first.output
    assert "5 scored, 1 pending" in first.output
    second = invoke(repo, "score", "--output", str(tmp_path / "two"))
    assert second.exit_code == 0
    for name in ("leaderboard.json", "leaderboard.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    data = json.loads((tmp_path / "one" / "leaderboard.json").read_text())
    statuses = {e["key"]: e["status"] for e in data["entries"]}
    assert statuses["demo/f-pending"] == "pending"
    # Under the default (solved) policy the baseline is made of the submissions that solved
    # all their work: four of the five (e-cline fails a run), fewer than the five a dynamic
    # baseline needs.
    assert data["tasks"][0]["baseline"]["source"] == "default"
    cline = next(e for e in data["entries"] if e["key"] == "demo/e-cline")["scores"]
    assert cline["resolve_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert cline["overall_unadjusted"] == pytest.approx(
        cline["composite"] * cline["resolve_rate"], abs=0.01
    )
    csv_lines = (tmp_path / "one" / "leaderboard.csv").read_text().splitlines()
    assert csv_lines[0].startswith("task_id,rank,rank_shared,key") and len(csv_lines) == 7


def test_score_default_output_folder_and_stale_results(repo: Path) -> None:
    # Editing a submission makes its stored result stale: it becomes pending.
    (repo / "submissions/demo/a-aider/patch.diff").write_text(PATCH + "# edited\n")
    result = invoke(repo, "score")
    assert result.exit_code == 0
    data = json.loads((repo / ".arena" / "leaderboard.json").read_text())
    statuses = {e["key"]: e["status"] for e in data["entries"]}
    assert statuses["demo/a-aider"] == "pending"


def test_score_latest_mode_reads_loose_result_files(repo: Path, tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    folder = load_submission(repo / "submissions/demo/f-pending")
    (loose / "one.json").write_text(make_result(folder.spec, "f-pending").model_dump_json())
    result = invoke(repo, "score", "--results", str(loose), "--match", "latest",
                    "--output", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "1 scored, 5 pending" in result.output


def _statuses(out: Path) -> dict[str, str]:
    data = json.loads((out / "leaderboard.json").read_text())
    return {e["key"]: e["status"] for e in data["entries"]}


def test_one_output_folder_and_memo_never_serve_another_modes_board(
    repo: Path, tmp_path: Path
) -> None:
    """The same inputs scored by the store, then by the newest result files, then as the
    verified view, into one folder with one memo: every run writes its own mode's board,
    and a result file rewritten in place is seen."""
    # An edit makes a-aider's stored result stale: the store has none for its current
    # files, while the newest result file for it is still there to be found.
    (repo / "submissions/demo/a-aider/patch.diff").write_text(PATCH + "# edited\n")
    out = tmp_path / "out"
    store_mode = invoke(repo, "score", "--output", str(out))
    assert "4 scored, 2 pending" in store_mode.output
    assert _statuses(out)["demo/a-aider"] == "pending"
    by_store = (out / "leaderboard.json").read_bytes()
    latest = invoke(repo, "score", "--output", str(out), "--match", "latest")
    assert latest.exit_code == 0, latest.output
    assert "5 scored, 1 pending" in latest.output and "rescored 1 task(s)" in latest.output
    assert _statuses(out)["demo/a-aider"] == "scored"
    verified = invoke(repo, "score", "--output", str(out), "--verified-only")
    assert "0 scored, 0 pending" in verified.output  # no entry here has a transcript
    assert "rescored 0 task(s)" in verified.output  # the store's parts outlived `latest`
    assert _statuses(out) == {}
    again = invoke(repo, "score", "--output", str(out))
    assert "4 scored, 2 pending" in again.output and "rescored 0 task(s)" in again.output
    assert (out / "leaderboard.json").read_bytes() == by_store
    # Loose result files: the same file passed, then failed (rewritten in place).
    loose = tmp_path / "loose"
    loose.mkdir()
    spec = load_submission(repo / "submissions/demo/f-pending").spec
    for passed, resolve_rate in ((True, 1.0), (False, 0.0)):
        (loose / "one.json").write_text(
            make_result(spec, "f-pending", passed=passed).model_dump_json())
        run = invoke(repo, "score", "--output", str(out), "--match", "latest",
                     "--results", str(loose))
        assert "1 scored, 5 pending" in run.output and "rescored 1 task(s)" in run.output
        entries = json.loads((out / "leaderboard.json").read_text())["entries"]
        scored = [e for e in entries if e["status"] == "scored"]
        assert [e["key"] for e in scored] == ["demo/f-pending"]
        assert scored[0]["scores"]["resolve_rate"] == resolve_rate


def test_score_reports_a_bad_result_file_by_name(repo: Path, tmp_path: Path) -> None:
    loose = tmp_path / "bad"
    loose.mkdir()
    (loose / "broken.json").write_text('{"task_id": "demo"}')
    result = invoke(repo, "score", "--results", str(loose), "--match", "latest")
    assert result.exit_code == 1
    assert "broken.json" in result.output and "not a valid EvaluationResult" in result.output
    assert "Traceback" not in result.output


def test_score_missing_results_folder(repo: Path, tmp_path: Path) -> None:
    result = invoke(repo, "score", "--results", str(tmp_path / "absent"))
    assert result.exit_code == 1 and "results folder does not exist" in result.output


def test_score_unknown_task_and_no_dataset(repo: Path, tmp_path: Path) -> None:
    folder = repo / "submissions" / "ghost" / "x"
    folder.mkdir(parents=True)
    spec = make_submission("ghost")
    (folder / "submission.yaml").write_text(yaml.safe_dump(spec.model_dump(exclude_none=True)))
    result = invoke(repo, "score")
    assert result.exit_code == 1 and "'ghost'" in result.output
    empty = invoke(tmp_path / "nowhere", "score")
    assert empty.exit_code == 1 and "no tasks found" in empty.output


def test_compare_table_and_json(repo: Path) -> None:
    table = invoke(repo, "compare", "Aider", "demo/e-cline")
    assert table.exit_code == 0, table.output
    assert "Welch t" in table.output and "Cohen's d" in table.output
    assert "paired test needs 2+ tasks" in table.output
    as_json = invoke(repo, "compare", "demo/a-aider", "demo/b-cursor", "--format", "json")
    data = json.loads(as_json.output)
    assert data["a"]["unit"] == "runs" and len(data["a"]["values"]) == 3
    assert 0.0 <= data["welch"]["p_value"] <= 1.0
    assert data["welch"]["effect"] in {"negligible", "small", "medium", "large"}


def test_compare_from_a_written_leaderboard(repo: Path, tmp_path: Path) -> None:
    invoke(repo, "score", "--output", str(tmp_path / "lb"))
    result = invoke(repo, "compare", "gpt-5", "claude-sonnet-4-5", "--leaderboard",
                    str(tmp_path / "lb" / "leaderboard.json"))
    assert result.exit_code == 0 and "3 submissions" in result.output


def test_compare_unknown_selector_is_a_clear_error(repo: Path) -> None:
    result = invoke(repo, "compare", "Nobody", "Aider")
    assert result.exit_code == 1
    assert "'Nobody' matches no scored submission" in result.output
    assert "Aider / gpt-5" in result.output
    same = invoke(repo, "compare", "Aider", "gpt-5")
    assert same.exit_code == 1 and "share submissions" in same.output


def test_calibrate_without_judge_exits_1(repo: Path) -> None:
    result = invoke(repo, "calibrate")
    assert result.exit_code == 1
    assert "no LLM judge configured" in result.output and "ARENA_JUDGE_URL" in result.output


def test_calibrate_against_a_local_judge(repo: Path, chat_server: ChatServer) -> None:
    from arena_bot.scoring.calibration import REFERENCE_SET

    expected = {s.response: s.expected for s in REFERENCE_SET}

    def oracle(payload: dict) -> Reply:
        content = payload["messages"][1]["content"]
        response = content.split("RESPONSE:\n", 1)[1]
        return Reply(content=f"SCORE: {expected[response] / 10:g}")

    chat_server.responder = oracle
    env = {"ARENA_JUDGE_URL": chat_server.url, "ARENA_JUDGE_MODEL": "perfect-judge"}
    result = invoke(repo, "calibrate", env=env)
    assert result.exit_code == 0, result.output
    assert "rating      Excellent" in result.output
    assert "pass rate   100.0%" in result.output
    asked = len(chat_server.requests)
    again = invoke(repo, "calibrate", "--format", "json", env=env)
    assert json.loads(again.output)["summary"]["rating"] == "Excellent"
    assert len(chat_server.requests) == asked  # answered from the cache


def test_calibrate_checks_the_judge_arena_yaml_names(repo: Path, chat_server: ChatServer) -> None:
    """`arena calibrate` asks the judge scoring would ask: arena.yaml's judge section names
    the endpoint's variable and the model (the default variables are not consulted)."""
    chat_server.replies = [Reply(content="SCORE: 5")]
    (repo / "arena.yaml").write_text("judge:\n  model: yaml-judge\n  url_env: BOARD_JUDGE\n")
    result = invoke(repo, "calibrate", "--format", "json",
                    env={"BOARD_JUDGE": chat_server.url, "ARENA_JUDGE_URL": "http://127.0.0.1:9"})
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["judge_model"] == "yaml-judge"
    assert {request["model"] for request in chat_server.requests} == {"yaml-judge"}


def test_calibrate_with_a_judge_that_never_scores_exits_1(
    repo: Path, chat_server: ChatServer
) -> None:
    chat_server.replies = [Reply(content="I will not give a number.")]
    env = {"ARENA_JUDGE_URL": chat_server.url, "ARENA_JUDGE_MODEL": "mute"}
    result = invoke(repo, "calibrate", env=env)
    assert result.exit_code == 1
    assert "scored none of the 9 samples" in result.output and "SCORE" in result.output


def test_calibrate_reports_a_poor_judge(repo: Path, chat_server: ChatServer) -> None:
    chat_server.replies = [Reply(content="SCORE: 5")]  # the same score for everything
    env = {"ARENA_JUDGE_URL": chat_server.url, "ARENA_JUDGE_MODEL": "lazy"}
    result = invoke(repo, "calibrate", "--format", "json", env=env)
    assert result.exit_code == 0
    summary = json.loads(result.output)["summary"]
    assert summary["rating"] == "Poor" and summary["correlation"] is None
    assert summary["passed"] == 2  # 'partial' (expected 50) and 'explanation-thin' (40)


@pytest.mark.parametrize("mode", [[], ["--match", "latest"], ["--verified-only"]])
def test_a_task_without_recorded_expected_ids_is_not_scored(
    repo: Path, tmp_path: Path, mode: list[str]
) -> None:
    # Issue 8: without expected ids a verdict rests on the exit status and the canaries only,
    # so the task stays off the board (whatever path scores it) and a note says what to do.
    (repo / "dataset/demo/feature2/expected_tests.json").unlink()
    out = tmp_path / "out"
    result = invoke(repo, "score", "--output", str(out), *mode)
    assert result.exit_code == 0, result.output
    assert "Task demo is not scored: feature(s) 2 have no recorded expected test ids" in (
        result.output)
    assert "arena dataset check demo" in result.output
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["entries"] == [] and data["tasks"] == []
    assert any("demo is not scored" in note for note in data["notes"])
    # Recording the ids puts the task back (the memo must not keep the empty board).
    (repo / "dataset/demo/feature2/expected_tests.json").write_text(
        '{"fail_to_pass": ["tests.test_x::test_x"]}\n')
    again = invoke(repo, "score", "--output", str(out), *mode)
    assert again.exit_code == 0, again.output
    data = json.loads((out / "leaderboard.json").read_text())
    assert [task["task_id"] for task in data["tasks"]] == ["demo"]
    # (no run of the fixture has a transcript, so the verified view keeps no entry)
    assert bool(data["entries"]) is ("--verified-only" not in mode)
    assert not any("not scored" in note for note in data["notes"])


# --- review flags, the hold and review files ---------------------------------------------


def flag_result(repo: Path, sid: str) -> None:
    """Store b-cursor's result again with a static flag on a patch line and a runtime one."""
    from arena_bot.models.evaluation import ReviewFlag

    store = ResultStore(repo / ".arena" / "results")
    task = load_task(repo / "dataset" / "demo")
    folder = load_submission(repo / "submissions" / "demo" / sid)
    result = make_result(folder.spec, sid, passed=True)
    flags = [ReviewFlag(file="x.py", line=3, reason="reads the calling test's frame",
                        source="static", kind="stack_inspection"),
             ReviewFlag(file="", reason="canary test passed: the report was forged",
                        source="runtime", kind="tampered")]
    runs = [run.model_copy(update={"features": [
        feature.model_copy(update={"review_flags": flags}) for feature in run.features]})
        for run in result.runs]
    store.save(folder, input_key(folder, task, DEFAULT_BASE_IMAGE),
               result.model_copy(update={"runs": runs}))


def write_review(repo: Path, sid: str, **fields: object) -> Path:
    path = repo / "reviews" / "demo" / f"{sid}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"schema_version": 1, "task": "demo", "submission": sid, "reviewed_by": "maint-1",
            "date": dt.date(2026, 11, 20),
            "reason": "The frame walk is the logging helper's; the canary was a flaky run.",
            "clears": [{"kind": "stack_inspection", "file": "x.py", "line": 3},
                       {"kind": "tampered"}]}
    data.update(fields)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def entries(out: Path) -> dict[str, dict]:
    data = json.loads((out / "leaderboard.json").read_text())
    return {e["submission_id"]: e for e in data["entries"]}


def test_a_flagged_entry_is_held_until_a_review_file_clears_it(repo: Path,
                                                               tmp_path: Path) -> None:
    flag_result(repo, "b-cursor")
    held = invoke(repo, "score", "--output", str(tmp_path / "held"))
    assert held.exit_code == 0, held.output
    board = entries(tmp_path / "held")
    cursor = board["b-cursor"]
    assert cursor["review_status"] == "under-review" and cursor["rank"] is None
    assert cursor["percentile"] is None and cursor["scores"] is not None
    assert cursor["review_flags"] == [
        {"source": "static", "kind": "stack_inspection", "file": "x.py", "line": 3,
         "reason": "reads the calling test's frame"},
        {"source": "runtime", "kind": "tampered", "file": None, "line": None,
         "reason": "canary test passed: the report was forged"},
    ]
    ranks = sorted(e["rank"] for e in board.values() if e["rank"] is not None)
    assert ranks == [1, 2, 3, 4]  # the others close ranks; no gap for the held entry
    # The task file carries the same entry (what a task page loads).
    part = json.loads((tmp_path / "held" / "tasks" / "demo.json").read_text())
    shown = next(e for e in part["entries"] if e["submission_id"] == "b-cursor")
    assert shown["review_status"] == "under-review" and shown["review_flags"]
    labels = {t["label"] for t in json.loads(
        (tmp_path / "held" / "leaderboard.json").read_text())["tools"]}
    assert "Cursor / gpt-5" not in labels  # no aggregate while held

    # A review that names only one flag clears nothing: still held, the review shown.
    write_review(repo, "b-cursor", clears=[{"kind": "tampered"}])
    partial = invoke(repo, "score", "--output", str(tmp_path / "partial"))
    assert partial.exit_code == 0, partial.output
    cursor = entries(tmp_path / "partial")["b-cursor"]
    assert cursor["review_status"] == "under-review" and cursor["rank"] is None
    assert [f["kind"] for f in cursor["review"]["flags_cleared"]] == ["tampered"]

    # Naming every flag (kind, file, line) clears the entry: ranked, the review shown.
    write_review(repo, "b-cursor")
    cleared = invoke(repo, "score", "--output", str(tmp_path / "cleared"))
    assert cleared.exit_code == 0, cleared.output
    cursor = entries(tmp_path / "cleared")["b-cursor"]
    assert cursor["review_status"] == "cleared" and cursor["rank"] is not None
    assert cursor["review"]["by"] == "maint-1"
    assert cursor["review"]["file"] == "reviews/demo/b-cursor.yaml"
    assert len(cursor["review"]["flags_cleared"]) == 2


def test_review_hold_off_is_seed_002_flags_shown_and_ranked(repo: Path, tmp_path: Path
                                                            ) -> None:
    flag_result(repo, "b-cursor")
    (repo / "arena.yaml").write_text("schema_version: 1\nreview:\n  hold: false\n")
    result = invoke(repo, "score", "--output", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    cursor = entries(tmp_path / "out")["b-cursor"]
    assert cursor["review_status"] == "under-review" and cursor["rank"] is not None


@pytest.mark.parametrize(("fields", "message"), [
    ({"reason": None}, "reason"),
    ({"reviewed_by": "not a login!"}, "reviewed_by"),
    ({"clears": [{"kind": "x", "line": 0}]}, "clears.0.line"),
    ({"submission": "a-aider"}, "the review names demo/a-aider but is stored as the review "
                                "of demo/b-cursor"),
])
def test_a_malformed_review_file_is_a_clear_error(repo: Path, tmp_path: Path,
                                                  fields: dict, message: str) -> None:
    path = write_review(repo, "b-cursor", **fields)
    if fields.get("reason", "") is None:
        data = yaml.safe_load(path.read_text())
        del data["reason"]
        path.write_text(yaml.safe_dump(data))
    result = invoke(repo, "score", "--output", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "reviews/demo/b-cursor.yaml" in result.output and message in result.output
    assert "Traceback" not in result.output


def test_a_review_naming_every_run_as_repeated_is_the_maintainer_level(repo: Path,
                                                                      tmp_path: Path) -> None:
    write_review(repo, "a-aider", submission="a-aider", clears=[],
                 metrics_repeated={"runs": ["r0", "r1"], "note": "within 3%"})
    partial = invoke(repo, "score", "--output", str(tmp_path / "partial"))
    assert partial.exit_code == 0, partial.output
    aider = entries(tmp_path / "partial")["a-aider"]
    assert aider["metrics_level"] == "self-reported"  # run r2 was not repeated
    write_review(repo, "a-aider", submission="a-aider", clears=[],
                 metrics_repeated={"runs": ["r0", "r1", "r2"], "note": "within 3%"})
    result = invoke(repo, "score", "--output", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    aider = entries(tmp_path / "out")["a-aider"]
    assert aider["metrics_level"] == "maintainer-repeated" and aider["metrics_reasons"] == []
    assert aider["review_status"] == "none" and aider["review"]["by"] == "maint-1"
    assert aider["rank"] is not None


def test_compare_refuses_a_leaderboard_that_is_no_file_unread(repo: Path, tmp_path: Path) -> None:
    """A FIFO given as --leaderboard hung the command, and /dev/zero took all memory."""
    import os

    fifo = tmp_path / "board.fifo"
    os.mkfifo(fifo)
    for given in (fifo, Path("/dev/zero")):  # a folder: click refuses it (exit 2)
        result = invoke(repo, "compare", "a", "b", "--leaderboard", str(given))
        assert result.exit_code == 1, result.output
        assert f"{given}: leaderboard is not a regular file" in result.output
