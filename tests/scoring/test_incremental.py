"""Incremental scoring (``arena score``) gives the bytes of the whole board scored at once.

The board is a synthetic one (support.synthetic_board, as in the scale benchmark: real task
folders, real submission folders, results stored through the real ResultStore), scored through
the CLI as a user runs it, and compared with ``build_leaderboard`` over everything followed by
``to_json`` / ``to_csv``, after every kind of change a board sees.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.synthetic_board import generate

from arena_bot.cli import main
from arena_bot.evaluation.store import ResultStore
from arena_bot.intake.submissions import all_submission_folders, load_submission
from arena_bot.scoring.export import to_csv, to_json
from arena_bot.scoring.inputs import ScoringInputs, ScoringOptions
from arena_bot.scoring.leaderboard import build_leaderboard
from arena_bot.scoring.loader import submission_input
from arena_bot.tasks.dataset import Dataset


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("board")
    generate(root, n_submissions=36, n_tasks=4)
    # Some submissions are not evaluated yet: their entries are pending.
    results = root / ".arena" / "results"
    for pending in sorted(results.glob("synthetic-001/*.json"))[:2]:
        pending.unlink()
    # A leaderboard repository is a git repository; .arena/ (results, memo) is not in it.
    (root / ".gitignore").write_text(".arena/\n", encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "board")
    return root


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                   cwd=root, check=True)


@pytest.fixture()
def board(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "board"
    shutil.copytree(template, root, symlinks=True)
    return root


def _score(root: Path) -> str:
    result = CliRunner().invoke(main, ["--root", str(root), "score"])
    assert result.exit_code == 0, result.output
    return result.output


def _whole_board(root: Path) -> tuple[str, str]:
    """What the task-by-task board must equal: ``build_leaderboard`` over every submission
    at once, each with the result the store holds for its current files."""
    dataset = Dataset(root / "dataset")
    store = ResultStore(root / ".arena" / "results")
    items = []
    for folder in all_submission_folders(root / "submissions"):
        submission = load_submission(folder)
        result = store.lookup(submission, dataset.get(submission.spec.task))
        items.append(submission_input(submission, result))
    inputs = ScoringInputs(tasks={task.id: task.spec for task in dataset.all()},
                           submissions=sorted(items, key=lambda item: item.key))
    board = build_leaderboard(inputs, options=ScoringOptions())
    return to_json(board), to_csv(board)


def _written(root: Path) -> tuple[str, str]:
    out = root / ".arena"
    return (
        (out / "leaderboard.json").read_text(encoding="utf-8"),
        (out / "leaderboard.csv").read_text(encoding="utf-8"),
    )


def _rescored(output: str) -> int:
    line = next(line for line in output.splitlines() if line.startswith("rescored"))
    return int(line.split()[1])


def test_cold_and_warm_runs_write_the_whole_board_bytes(board: Path) -> None:
    first = _score(board)
    assert _rescored(first) == 4
    assert _written(board) == _whole_board(board)
    statuses = {e["status"] for e in json.loads(_written(board)[0])["entries"]}
    assert statuses == {"scored", "pending"}
    second = _score(board)
    assert _rescored(second) == 0
    assert _written(board) == _whole_board(board)


@pytest.mark.skipif(sys.platform != "linux" or (os.cpu_count() or 1) < 2,
                    reason="tasks are scored in parallel on Linux with two cores or more")
def test_tasks_are_scored_in_worker_processes_to_the_same_bytes(
    board: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import arena_bot.app.scoring as scoring

    where = tmp_path / "pids"
    real = scoring.score_task

    def noting_the_process(*args, **kwargs):  # type: ignore[no-untyped-def]
        with where.open("a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(scoring, "score_task", noting_the_process)
    assert _rescored(_score(board)) == 4
    pids = where.read_text(encoding="utf-8").split()
    assert len(pids) == 4 and str(os.getpid()) not in pids
    assert _written(board) == _whole_board(board)


@pytest.mark.skipif(sys.platform != "linux" or (os.cpu_count() or 1) < 2,
                    reason="tasks are scored in parallel on Linux with two cores or more")
def test_scoring_workers_leave_ctrl_c_to_the_parent_and_end_quietly(board: Path) -> None:
    """A worker ignores SIGINT (the parent stops the pool) and ends at the pool's SIGTERM by
    its default action: the command's SIGTERM handler it inherits by forking raised in it
    and printed a traceback on every cold run of a large board. The program itself prints
    none."""
    import arena_bot.app.scoring as scoring
    from arena_bot.cli import _sigterm_as_interrupt

    with _sigterm_as_interrupt():  # as while a command runs
        seen = scoring._scored([partial(signal.getsignal, signal.SIGTERM),
                                partial(signal.getsignal, signal.SIGINT)])
    assert seen == [signal.SIG_DFL, signal.SIG_IGN]
    done = subprocess.run([str(Path(sys.executable).with_name("arena")), "--root", str(board),
                           "score"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and _rescored(done.stdout) == 4, done.stderr
    assert "Traceback" not in done.stderr and "ForkPoolWorker" not in done.stderr, done.stderr


def _fresh_checkout(root: Path, *, git: bool = True) -> None:
    """What a CI runner has: a fresh clone (or, without git, a copy of the files), with
    .arena/ (results, memo) restored where the bot keeps it."""
    copy = root.with_name("checkout")
    if git:
        subprocess.run(["git", "clone", "-q", str(root), str(copy)], check=True)
        shutil.copytree(root / ".arena", copy / ".arena", symlinks=True)
    else:
        shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    shutil.rmtree(root)
    copy.rename(root)


@pytest.mark.parametrize("git", [True, False], ids=["clone", "no-git"])
def test_a_fresh_checkout_with_the_memo_kept_rescores_nothing_it_had(
    board: Path, git: bool
) -> None:
    _score(board)
    _fresh_checkout(board, git=git)
    assert _rescored(_score(board)) == 0  # every id the same, every part found
    assert _written(board) == _whole_board(board)
    assert _rescored(_score(board)) == 0


def test_a_fresh_checkout_with_a_changed_submission_rescores_its_task(board: Path) -> None:
    _score(board)
    _fresh_checkout(board)
    target = sorted((board / "submissions" / "synthetic-003").iterdir())[0]
    spec = target / "submission.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("tool_calls:", "tool_calls: 2 #"),
                    encoding="utf-8")
    assert _rescored(_score(board)) == 1
    assert _written(board) == _whole_board(board)


def test_a_committed_change_is_seen_as_an_uncommitted_one_was(board: Path) -> None:
    _score(board)
    spec = sorted((board / "submissions" / "synthetic-001").iterdir())[-1] / "submission.yaml"
    spec.write_text(spec.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert _rescored(_score(board)) == 1  # uncommitted: hashed here
    _git(board, "commit", "-qam", "edit")
    assert _rescored(_score(board)) == 0  # committed: git's id is the same id
    untracked = board / "submissions" / "synthetic-001" / "2026-999999_new-one"
    shutil.copytree(spec.parent, untracked)
    assert _rescored(_score(board)) == 1  # untracked files count
    (board / ".gitignore").write_text(".arena/\nsubmissions/*/2026-999999_new-one/\n",
                                      encoding="utf-8")
    assert _rescored(_score(board)) == 0  # ignored ones too: the same board
    assert _written(board) == _whole_board(board)


def test_an_edited_submission_rescores_its_task_only(board: Path) -> None:
    _score(board)
    target = sorted((board / "submissions" / "synthetic-002").iterdir())[0]
    spec = target / "submission.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("tool_calls:", "tool_calls: 1 #"),
                    encoding="utf-8")
    # The edit changes the content address: that submission's result no longer counts.
    output = _score(board)
    assert _rescored(output) == 1
    assert _written(board) == _whole_board(board)
    entries = json.loads(_written(board)[0])["entries"]
    edited = next(e for e in entries if e["key"] == f"synthetic-002/{target.name}")
    assert edited["status"] == "pending"


def test_a_new_submission_and_a_removed_result_rescore_their_tasks(board: Path) -> None:
    _score(board)
    source = sorted((board / "submissions" / "synthetic-000").iterdir())[0]
    shutil.copytree(source, board / "submissions" / "synthetic-000" / "2026-999999_new-one")
    sorted((board / ".arena" / "results" / "synthetic-003").iterdir())[0].unlink()
    output = _score(board)
    assert _rescored(output) == 2
    assert _written(board) == _whole_board(board)


def test_a_changed_task_rescores_it(board: Path) -> None:
    _score(board)
    spec = board / "dataset" / "synthetic-001" / "task.yaml"
    spec.write_text(spec.read_text(encoding="utf-8") + "\n# a maintainer's comment\n",
                    encoding="utf-8")
    output = _score(board)
    # The task folder is part of every content address: its results no longer count.
    assert _rescored(output) == 1
    assert _written(board) == _whole_board(board)


def test_a_damaged_memo_costs_time_never_correctness(board: Path) -> None:
    _score(board)
    memo = board / ".arena" / "memo.sqlite"
    memo.write_bytes(b"not a database" * 100)
    assert _rescored(_score(board)) == 4
    assert _written(board) == _whole_board(board)
    memo.unlink()
    assert _rescored(_score(board)) == 4
    assert _written(board) == _whole_board(board)
    # A readable database whose values were damaged (a bit flipped, a row cut short):
    # every damaged value is computed again, none is decoded.
    _score(board)
    db = sqlite3.connect(memo)
    with db:
        rows = db.execute("SELECT key, value FROM memo").fetchall()
        assert any(key.startswith("part:") for key, _ in rows)
        db.executemany("UPDATE memo SET value = ? WHERE key = ?", [
            (bytes(value[:-1]) + bytes([value[-1] ^ 1]) if i % 2 else bytes(value[:3]), key)
            for i, (key, value) in enumerate(rows)])
    db.close()
    assert _rescored(_score(board)) == 4
    assert _written(board) == _whole_board(board)
    assert _rescored(_score(board)) == 0  # what the run computed again was stored again
    # Values of another type (a hand-edited or foreign file): text, a negative number, and
    # a large one that bytes() turned into that many zero bytes.
    for foreign in ("abc", -1, 10**9):
        db = sqlite3.connect(memo)
        with db:
            db.execute("UPDATE memo SET value = ? WHERE key LIKE 'part:%'", (foreign,))
        db.close()
        assert _rescored(_score(board)) == 4, foreign
        assert _written(board) == _whole_board(board)


def test_task_files_hold_each_tasks_entries_and_are_rewritten_only_when_changed(
    board: Path,
) -> None:
    _score(board)
    out = board / ".arena"
    full = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    summary = json.loads((out / "board.json").read_text(encoding="utf-8"))
    assert "entries" not in summary
    assert summary["tasks"] == full["tasks"] and summary["tools"] == full["tools"]
    for task in full["tasks"]:
        data = json.loads((out / "tasks" / f"{task['task_id']}.json").read_text("utf-8"))
        assert data["task"] == task
        assert data["entries"] == [e for e in full["entries"] if e["task_id"] == task["task_id"]]
    before = {p.name: p.stat().st_mtime_ns for p in (out / "tasks").glob("synthetic-*.json")}
    spec = sorted((board / "submissions" / "synthetic-002").iterdir())[0] / "submission.yaml"
    spec.write_text(spec.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    _score(board)
    after = {p.name: p.stat().st_mtime_ns for p in (out / "tasks").glob("synthetic-*.json")}
    changed = sorted(name for name in before if before[name] != after[name])
    assert changed == ["synthetic-002.json"]


def test_a_task_that_left_the_dataset_loses_its_file_and_nothing_else_goes(
        board: Path) -> None:
    """Every *.json in tasks/ that was not a task of this run was deleted: a file of the
    user's there was lost, and a folder named so stopped the run."""
    _score(board)
    tasks = board / ".arena" / "tasks"
    (tasks / "notes.json").write_text("{}", encoding="utf-8")
    (tasks / "kept.json").mkdir()
    gone = sorted((board / "dataset").iterdir())[-1].name
    shutil.rmtree(board / "dataset" / gone)
    shutil.rmtree(board / "submissions" / gone, ignore_errors=True)
    assert (tasks / f"{gone}.json").is_file()
    _score(board)
    assert not (tasks / f"{gone}.json").exists()
    assert (tasks / "notes.json").read_text(encoding="utf-8") == "{}"
    assert (tasks / "kept.json").is_dir()
    assert _written(board) == _whole_board(board)


def test_a_forged_manifest_cannot_delete_files_outside_the_output(board: Path) -> None:
    _score(board)
    victim = board / "keep.json"
    victim.write_text("{}", encoding="utf-8")
    manifest = board / ".arena" / "tasks" / "digests.json"
    manifest.write_text(json.dumps({"../../keep": "x", "/etc/passwd": "y"}), encoding="utf-8")
    _score(board)
    assert victim.is_file()


def test_a_submission_filed_under_the_wrong_task_is_a_clear_error(board: Path) -> None:
    source = sorted((board / "submissions" / "synthetic-000").iterdir())[0]
    shutil.move(source, board / "submissions" / "synthetic-001" / source.name)
    result = CliRunner().invoke(main, ["--root", str(board), "score"])
    assert result.exit_code == 1
    assert "does not match the folder" in result.output
    assert "submission.yaml" in result.output
    assert "Traceback" not in result.output


def test_a_submission_outside_the_layout_is_a_clear_error(board: Path) -> None:
    source = sorted((board / "submissions" / "synthetic-000").iterdir())[0]
    nested = board / "submissions" / "synthetic-000" / "deeper"
    nested.mkdir()
    shutil.move(source, nested / source.name)
    result = CliRunner().invoke(main, ["--root", str(board), "score"])
    assert result.exit_code == 1
    assert "submissions/<task>/<submission>/" in result.output


@pytest.mark.parametrize("name", ["2026-01-01_x\n", "2026-01-01_\udcff", "2026-01-01_<b>x"])
def test_a_folder_name_that_is_not_a_submission_id_is_a_clear_error(
        board: Path, name: str) -> None:
    """Validation refuses such a name; scoring took it into the board (a newline or markup
    in an id) or stopped with a traceback (a name that is not UTF-8)."""
    source = sorted((board / "submissions" / "synthetic-000").iterdir())[0]
    shutil.copytree(source, board / "submissions" / "synthetic-000" / name)
    result = CliRunner().invoke(main, ["--root", str(board), "score"])
    assert result.exit_code == 1, result.output
    assert f"folder name {name!r} is not a valid submission id" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_symlinked_submission_yaml_is_refused_by_scoring_as_by_validation(
        board: Path, tmp_path: Path) -> None:
    """Validation refuses a submission.yaml that is a link; scoring followed it, and its
    message about the linked file showed that file's first line (a token, on a runner)."""
    folder = sorted((board / "submissions" / "synthetic-000").iterdir())[0]
    elsewhere = tmp_path / "environ"
    elsewhere.write_text("GITHUB_TOKEN=ghs_not_for_the_log\n", encoding="utf-8")
    (folder / "submission.yaml").unlink()
    (folder / "submission.yaml").symlink_to(elsewhere)
    result = CliRunner().invoke(main, ["--root", str(board), "score"])
    assert result.exit_code == 1, result.output
    assert "the submission folder or its submission.yaml is a symbolic link" in result.output
    assert folder.name in result.output
    assert "ghs_not_for_the_log" not in result.output
    assert "Traceback" not in result.output


def test_patches_are_read_for_scoring_as_validation_and_evaluation_read_them(
        board: Path) -> None:
    """A patch the one patch reader refuses (a symbolic link, text that is not UTF-8) has no
    digest to compare: validation reports it and evaluation fails the run. Scoring once
    followed the link (digesting another submission's patch) and stopped the whole board at
    the first non-UTF-8 patch."""
    first, second, third = sorted((board / "submissions" / "synthetic-000").iterdir())[:3]
    (second / "change.patch").unlink()
    (second / "change.patch").symlink_to(first / "change.patch")
    (third / "change.patch").write_bytes(b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-caf\xe9\n+tea\n")
    _score(board)
    assert _written(board) == _whole_board(board)
    for folder in (second, third):
        refused = submission_input(load_submission(folder), None)
        assert refused.patch_digests and not any(refused.patch_digests.values()), folder
    assert any(submission_input(load_submission(first), None).patch_digests.values())


def test_scoring_where_there_is_no_submissions_folder_keeps_the_board_written(
        board: Path) -> None:
    """Without submissions/ (a wrong --root, a moved folder) `arena score` wrote an empty
    board over the one there and said so with exit status 0."""
    _score(board)
    before = _written(board)
    shutil.move(board / "submissions", board / "elsewhere")
    result = CliRunner().invoke(main, ["--root", str(board), "score"])
    assert result.exit_code == 2, result.output
    assert "no submissions/ folder here" in result.output
    assert _written(board) == before


def test_a_write_that_fails_half_way_leaves_no_part_behind(tmp_path: Path) -> None:
    """The export is written through a temporary file; a failing write (a full disk) left
    it beside the board."""
    import errno

    from arena_bot.app.scoring import _write_if_changed
    from arena_bot.core.errors import InputError

    target = tmp_path / "leaderboard.json"
    target.write_text("old", encoding="utf-8")

    def chunks():  # type: ignore[no-untyped-def]
        yield "new, first part"
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(InputError, match="cannot write: No space left on device"):
        _write_if_changed(target, chunks())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["leaderboard.json"]
    assert target.read_text(encoding="utf-8") == "old"


def test_a_board_without_submissions_matches_too(board: Path) -> None:
    shutil.rmtree(board / "submissions")
    (board / "submissions").mkdir()
    _score(board)
    assert _written(board) == _whole_board(board)
    assert json.loads(_written(board)[0])["entries"] == []


def test_the_pipelines_ranking_prints_each_interval_beside_the_score_it_is_about(
    board: Path,
) -> None:
    """The multi-run interval is over adjusted scores: it sits beside the adjusted score."""
    from arena_bot.app.memo import Memo
    from arena_bot.app.scoring import score_board
    from arena_bot.cli.pipeline import render_ranking
    from arena_bot.core.settings import Settings
    from arena_bot.models.leaderboard import Entry

    # The synthetic tasks are "beginner": weigh that difficulty like seed 002's "advanced".
    (board / "arena.yaml").write_text(
        "scoring:\n  difficulty_multipliers:\n    beginner: 1.2\n", encoding="utf-8")
    scored = score_board(Settings.from_env(root=board, env={}), memo=Memo(None))
    text = render_ranking(scored)
    ranked = [
        Entry.model_validate(data)
        for part in scored.parts for data in part.entries()[: part.counts["ranked"]]
    ]
    with_interval = [e for e in ranked if e.interval is not None and e.interval.low is not None]
    assert with_interval, "the board has multi-run entries"
    for entry in with_interval:
        assert entry.scores is not None and entry.interval is not None
        assert entry.interval.high is not None and entry.interval.low is not None
        # The adjusted score is the unadjusted one × 1.2, capped at 100.
        # Both are rounded to 2 decimals after the product: at most 0.005 + 1.2 x 0.005 apart.
        assert entry.scores.overall == pytest.approx(
            min(100.0, entry.scores.overall_unadjusted * 1.2), abs=0.0111)
        shown = (f"{entry.scores.overall_unadjusted:5.1f} (adjusted {entry.scores.overall:5.1f} "
                 f"[{entry.interval.low:.1f}, {entry.interval.high:.1f}], solved")
        assert shown in text, text
        assert entry.interval.low <= entry.scores.overall <= entry.interval.high


def _in_process(root: Path) -> tuple[int, int]:
    """Score ``root`` with its memo; (hits, misses) of the memo during the run."""
    from arena_bot.app.memo import open_memo
    from arena_bot.app.scoring import score_board
    from arena_bot.core.settings import Settings

    with open_memo(root / ".arena") as memo:
        score_board(Settings.from_env(root=root, env={}), memo=memo)
        return memo.hits, memo.misses


def test_an_unchanged_board_is_one_memo_read_per_task(board: Path) -> None:
    _score(board)
    hits, misses = _in_process(board)
    # Per task its part, plus the board's summary: no submission is loaded or hashed.
    assert (hits, misses) == (4 + 1, 0)


def _same_size_edit(path: Path, old: str, new: str) -> None:
    """Edit ``path`` in place to the same size, then give it back its modification time."""
    assert len(old) == len(new)
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text
    time.sleep(0.01)
    with path.open("r+", encoding="utf-8") as handle:  # in place: same inode
        handle.write(text.replace(old, new, 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size, before.st_mtime_ns, before.st_ino)


def test_an_edit_keeping_size_and_time_never_publishes_a_wrong_number(board: Path) -> None:
    """Files edited in place to the same size with their modification time restored (their
    folders' times do not move): the next board is still the whole-board path's. A tracked
    file is git's to tell: its status-change time moved (to a later second than when git
    last looked: within that same second git's own stat check cannot tell, which is git's
    racy-clean rule); a stored result is hashed every run."""
    _score(board)
    _score(board)
    time.sleep(1.1)
    folder = sorted((board / "submissions" / "synthetic-002").iterdir())[1]
    _same_size_edit(folder / "change.patch", "+NOTE = ", "+NOTA = ")
    result = next((board / ".arena" / "results" / "synthetic-003").glob("*.json"))
    text = result.read_text(encoding="utf-8")
    flipped = ('"passed": true', '"passed": fals') if '"passed": true' in text else (
        '"tests_failed": 2', '"tests_failed": 3')
    _same_size_edit(result, *flipped)
    output = _score(board)
    assert _rescored(output) == 2
    assert _written(board) == _whole_board(board)


def test_files_are_written_only_when_what_they_hold_changed(board: Path) -> None:
    _score(board)
    out = board / ".arena"
    names = ("leaderboard.json", "leaderboard.csv", "board.json", "methodology.md")

    def times() -> dict[str, int]:
        found = {name: (out / name).stat().st_mtime_ns for name in names}
        found.update({p.name: p.stat().st_mtime_ns for p in (out / "tasks").glob("*.json")})
        return found

    first = times()
    assert "are up to date" in _score(board)
    assert times() == first
    # A hand-edited export is written again; the rest stays.
    (out / "leaderboard.csv").write_text("edited\n", encoding="utf-8")
    _score(board)
    assert _written(board) == _whole_board(board)
    again = times()
    assert [n for n in first if first[n] != again[n]] == ["leaderboard.csv"]
    # One new submission: the board-wide files and that task's file, nothing else.
    source = sorted((board / "submissions" / "synthetic-000").iterdir())[0]
    shutil.copytree(source, board / "submissions" / "synthetic-000" / "2026-999999_new-one")
    output = _score(board)
    assert _rescored(output) == 1 and "rewrote 1 task file(s)" in output
    assert _written(board) == _whole_board(board)
    last = times()
    changed = sorted(n for n in again if again[n] != last[n])
    assert changed == sorted([*names, "digests.json", "synthetic-000.json"])


def test_an_output_file_edited_to_the_same_size_is_written_again(board: Path) -> None:
    """The memo knows which board the output folder holds, but a file edited in place to
    the same size with its modification time set back (two digits swapped in the export,
    or one planted) is compared byte by byte again and repaired."""
    _score(board)
    assert "are up to date" in _score(board)
    time.sleep(0.2)
    out = board / ".arena"
    names = ("leaderboard.json", "board.json", "tasks/synthetic-002.json")
    written = {name: (out / name).read_text(encoding="utf-8") for name in names}
    for name, text in written.items():
        digits = next(text[i:i + 2] for i in range(len(text) - 1)
                      if text[i:i + 2].isdigit() and text[i] != text[i + 1])
        _same_size_edit(out / name, digits, digits[::-1])
        assert (out / name).read_text(encoding="utf-8") != text
    output = _score(board)
    assert "are up to date" not in output
    assert {name: (out / name).read_text(encoding="utf-8") for name in names} == written
    assert _written(board) == _whole_board(board)
    assert "are up to date" in _score(board)


def test_parts_of_earlier_boards_leave_the_memo(board: Path) -> None:
    _score(board)
    gone = sorted((board / "submissions" / "synthetic-001").iterdir())[-1]
    shutil.rmtree(gone)
    for result in (board / ".arena" / "results" / "synthetic-001").glob(f"{gone.name}.*"):
        result.unlink()
    _score(board)
    assert _written(board) == _whole_board(board)
    db = sqlite3.connect(board / ".arena" / "memo.sqlite")
    try:
        kinds = dict(db.execute("SELECT substr(key, 1, instr(key, ':') - 1) AS kind, COUNT(*) "
                                "FROM memo GROUP BY kind"))
    finally:
        db.close()
    # The parts and summary of the board before the removal are gone; the output folder
    # has one record (the board it holds).
    assert kinds == {"part": 4, "board": 1, "written": 1}


def test_a_file_changed_while_its_task_is_scored_is_never_remembered_wrongly(
    board: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A submission edited between the moment its task is keyed and the moment it is
    scored: the part (made from the new bytes) must not be stored under the old bytes' key,
    or putting the old bytes back would publish the edited numbers."""
    import arena_bot.app.scoring as incremental

    spec = sorted((board / "submissions" / "synthetic-002").iterdir())[0] / "submission.yaml"
    original = spec.read_text(encoding="utf-8")
    edited = original.replace("tool_calls:", "tool_calls: 1 #", 1)
    real = incremental.score_task

    def edit_then_score(task, *args, **kwargs):  # type: ignore[no-untyped-def]
        if task.id == "synthetic-002":
            spec.write_text(edited, encoding="utf-8")
        return real(task, *args, **kwargs)

    monkeypatch.setattr(incremental, "score_task", edit_then_score)
    _score(board)
    monkeypatch.setattr(incremental, "score_task", real)
    spec.write_text(original, encoding="utf-8")  # the bytes the first run was keyed on
    _score(board)
    assert _written(board) == _whole_board(board)


@pytest.mark.parametrize("preview", [1, 10])
def test_a_slice_of_a_tasks_entries_decodes_to_the_same_entries(
    board: Path, preview: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pipeline's first look decodes only the entries it shows: any slice equals the
    slice of the whole list (entries holding nested objects, lists and multi-line text),
    whether it lies in the part's preview or past it; a slice within the preview is
    answered without decoding the entries."""
    from arena_bot.app.memo import Memo
    from arena_bot.app.scoring import score_board
    from arena_bot.core.settings import Settings
    from arena_bot.scoring import incremental
    from arena_bot.scoring.incremental import TaskPart

    monkeypatch.setattr(incremental, "PREVIEW", preview)
    scored = score_board(Settings.from_env(root=board, env={}), memo=Memo(None))
    for part in scored.parts:
        entries = part.entries()
        assert part.counts["entries"] == len(entries) > 2
        ranges = [(0, 1), (0, 10), (1, 3), (2, len(entries)),
                  (len(entries) - 1, len(entries) + 5), (0, 10**6), (3, 3), (5, 2)]
        assert part.entries_between(*ranges) == [entries[a:b] for a, b in ranges]
        assert part.entries_between((1, 2)) == [entries[1:2]]
        ranked = part.counts["ranked"]
        first_look = [(0, min(preview, ranked)), (ranked, ranked + preview)]
        expected = [entries[a:b] for a, b in first_look]
        with monkeypatch.context() as patched:
            patched.setattr(TaskPart, "entries_data", property(_not_decoded))
            assert part.entries_between(*first_look) == expected
            outside = [i for i in range(len(entries))
                       if not (i < min(preview, ranked) or ranked <= i < ranked + preview)]
            assert outside or preview > 1  # three or more entries: one past a preview of 1
            for i in outside[:1]:  # past the preview: the entries are decoded
                with pytest.raises(AssertionError, match="entries decoded"):
                    part.entries_between((i, i + 1))


def _not_decoded(_part: object) -> bytes:
    raise AssertionError("entries decoded")
