"""Remembered verdicts (``arena validate`` of a whole board, ``.arena/memo.sqlite``) are
never stale.

A verdict is reused only when nothing it depends on changed. Each test validates once to
fill the memo, changes one thing a cheater or a maintainer could change, and checks the
second verdict equals a fresh validation without any memo. Every test runs on a plain
folder (files hashed) and on a git repository (git's ids, the changes hashed).
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from support.demo_task import INVALID, demo_root, valid_data, write_demo_task, write_submission

from arena_bot.app.memo import blob_id, content_ids, open_memo
from arena_bot.app.validation import verdict_memo
from arena_bot.core.config import DEFAULT_CONFIG
from arena_bot.core.settings import Settings
from arena_bot.intake.diagnostics import Diagnostic
from arena_bot.intake.submissions import all_submission_folders
from arena_bot.intake.validation import validate_paths
from arena_bot.tasks.dataset import Dataset

TODAY = dt.date(2026, 11, 23)


@pytest.fixture(scope="module")
def task_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo_task(tmp_path_factory.mktemp("task-src"))


@pytest.fixture(params=["plain", "git"])
def root(tmp_path: Path, task_template: Path, request: pytest.FixtureRequest) -> Path:
    found = demo_root(tmp_path, task_template)
    if request.param == "git":
        (found / ".gitignore").write_text(".arena/\n", encoding="utf-8")
        subprocess.run(["git", "init", "-q"], cwd=found, check=True)
    return found


def _commit(root: Path) -> None:
    if (root / ".git").is_dir():
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit",
                        "-qm", "board"], cwd=root, check=True)


def _verdict(root: Path, *, cached: bool, today: dt.date = TODAY) -> list[Diagnostic]:
    paths = all_submission_folders(root / "submissions")
    if not cached:
        report = validate_paths(
            paths, dataset=Dataset(root / "dataset"), submissions_root=root / "submissions",
            today=today, whole_board=True,
        )
        return report.diagnostics
    settings = Settings.from_env(root=root, env={})
    with open_memo(root / ".arena") as memo:
        report = validate_paths(
            paths, dataset=Dataset(root / "dataset"), submissions_root=root / "submissions",
            today=today, whole_board=True,
            remembered=verdict_memo(settings, DEFAULT_CONFIG, memo),
        )
    return report.diagnostics


def _agree(root: Path, *, today: dt.date = TODAY) -> list[Diagnostic]:
    fresh = _verdict(root, cached=False, today=today)
    assert _verdict(root, cached=True, today=today) == fresh
    return fresh


@pytest.fixture()
def filled(root: Path) -> Path:
    write_submission(root, "good")
    for name in ("unknown-key", "patch-symlink", "malformed-yaml", "missing-patch"):
        shutil.copytree(INVALID / name, root / "submissions" / "demo" / name)
    _commit(root)  # (each test then changes one thing, uncommitted)
    first = _verdict(root, cached=True)
    assert _verdict(root, cached=True) == first == _verdict(root, cached=False)
    assert (root / ".arena" / "memo.sqlite").is_file()
    return root


def _codes(found: list[Diagnostic], folder: str) -> set[str]:
    return {d.code for d in found if d.path is not None and folder in d.path.parts}


def test_remembered_verdicts_equal_fresh_ones(filled: Path) -> None:
    found = _agree(filled)
    assert _codes(found, "good") == set()
    assert {"schema", "yaml"} <= {d.code for d in found}


def test_folders_with_the_same_verdict_each_get_their_own(filled: Path) -> None:
    """Verdicts that found nothing are decoded once and shared (they name no path); one
    that found problems names its own folder's files, however alike the stored bytes."""
    demo = filled / "submissions" / "demo"
    for name in ("good", "unknown-key", "missing-patch"):
        shutil.copytree(demo / name, demo / f"{name}-again")
    _agree(filled)  # remembered
    found = _agree(filled)  # served from memory
    assert _codes(found, "good") == _codes(found, "good-again") == set()
    for name in ("unknown-key", "missing-patch"):
        assert _codes(found, name) == _codes(found, f"{name}-again") != set()


def test_an_edited_file_is_checked_again(filled: Path) -> None:
    data = valid_data()
    data["runs"][0]["tool_calls"] = "many"
    write_submission(filled, "good", data=data)
    assert "schema" in _codes(_agree(filled), "good")


def test_a_new_symlink_or_extra_file_is_seen(filled: Path) -> None:
    folder = filled / "submissions" / "demo" / "good"
    os.symlink("/etc/passwd", folder / "notes.txt")
    assert _codes(_agree(filled), "good")
    (folder / "notes.txt").unlink()
    (folder / "extra.bin").write_bytes(b"\0" * 10)
    assert _codes(_agree(filled), "good")


def test_permission_bits_are_part_of_the_key(filled: Path) -> None:
    patch = filled / "submissions" / "demo" / "good" / "run-1.patch"
    before = _agree(filled)
    patch.chmod(0o755)
    after = _agree(filled)
    assert _codes(before, "good") == set()
    # Whatever validation says of an executable patch, the remembered verdict agrees.
    assert _verdict(filled, cached=True) == after


def test_a_changed_dataset_is_checked_again(filled: Path) -> None:
    data = valid_data()
    data["features"] = [2]
    data["runs"][0]["patches"] = ["run-1.patch"]
    write_submission(filled, "good", data=data)
    assert _codes(_agree(filled), "good") == set()
    spec = filled / "dataset" / "demo" / "task.yaml"
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text[: text.index("  - id: 2")], encoding="utf-8")
    shutil.rmtree(filled / "dataset" / "demo" / "feature2")
    assert _codes(_agree(filled), "good")


def test_a_remembered_verdict_is_dated_afresh_each_day(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The day is not part of the key (a board would be validated cold every midnight): the
    future-date check is applied to the remembered verdict, with the file's line."""
    data = valid_data()
    data["date"] = TODAY + dt.timedelta(days=3)
    write_submission(filled, "good", data=data)
    today = _agree(filled)
    assert "future-date" in _codes(today, "good")
    (flag,) = [d for d in today if d.code == "future-date"]
    assert flag.line is not None and flag.path is not None and flag.path.name == "submission.yaml"

    import arena_bot.intake.validation as validation

    def never(self: object) -> None:
        raise AssertionError("checked again although nothing changed but the day")

    monkeypatch.setattr(validation._SubmissionCheck, "run", never)
    later = _verdict(filled, cached=True, today=TODAY + dt.timedelta(days=5))
    assert "future-date" not in _codes(later, "good")
    assert _verdict(filled, cached=True, today=TODAY) == today
    monkeypatch.undo()
    assert later == _verdict(filled, cached=False, today=TODAY + dt.timedelta(days=5))


def test_a_whole_board_run_keeps_only_the_verdicts_of_the_board(filled: Path) -> None:

    def stored() -> int:
        _verdict(filled, cached=True)
        return int(sqlite3.connect(filled / ".arena" / "memo.sqlite").execute(
            "SELECT COUNT(*) FROM memo WHERE key LIKE 'verdict:%'").fetchone()[0])

    folders = len(list((filled / "submissions" / "demo").iterdir()))
    data = valid_data()
    data["runs"][0]["iterations"] = 4
    write_submission(filled, "good", data=data)  # the old verdict is now unreachable
    assert stored() == folders
    shutil.rmtree(filled / "submissions" / "demo" / "unknown-key")
    assert stored() == folders - 1


def test_a_moved_folder_is_checked_again(filled: Path) -> None:
    source = filled / "submissions" / "demo" / "good"
    nested = filled / "submissions" / "demo" / "deeper"
    nested.mkdir()
    shutil.move(source, nested / "good")
    assert "layout" in _codes(_agree(filled), "good")


def test_an_unchanged_board_checks_no_folder(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every verdict of an unchanged board is the memo's; one changed folder is checked."""
    import arena_bot.intake.validation as validation

    fresh = _verdict(filled, cached=False)
    checked: list[Path] = []
    real = validation.Validator._check

    def counting(self: validation.Validator, folder: Path) -> object:
        checked.append(folder)
        return real(self, folder)

    monkeypatch.setattr(validation.Validator, "_check", counting)
    assert _verdict(filled, cached=True) == fresh
    assert checked == []
    (filled / "submissions" / "demo" / "good" / "notes.md").write_text("hi\n", "utf-8")
    _verdict(filled, cached=True)
    assert [folder.name for folder in checked] == ["good"]


def test_a_validate_of_named_paths_keeps_nothing(filled: Path) -> None:
    """`arena validate PATH` (a PR's few submissions) is checked directly, never stored."""
    from arena_bot.app.validation import validate_submissions

    (filled / ".arena" / "memo.sqlite").unlink()
    settings = Settings.from_env(root=filled, env={})
    with open_memo(filled / ".arena") as memo:
        validate_submissions(settings, memo=memo,
                             paths=[filled / "submissions" / "demo" / "good"])
    assert not (filled / ".arena" / "memo.sqlite").exists()


def test_files_outside_git_get_the_ids_git_gives_them(tmp_path: Path) -> None:
    """Files git does not hold are read by one ``git hash-object``; a name it cannot take on
    its standard input (a line break), a link and an executable file keep their own ids."""
    (tmp_path / "plain.json").write_bytes(b"{}\n")
    (tmp_path / "odd\nname").write_bytes(b"x")
    (tmp_path / "run.sh").write_bytes(b"#!/bin/sh\n")
    (tmp_path / "run.sh").chmod(0o755)
    os.symlink("plain.json", tmp_path / "link")
    ids = content_ids(tmp_path, [tmp_path])

    def git_id(data: bytes) -> str:
        return subprocess.run(["git", "hash-object", "--stdin"], input=data,
                              capture_output=True, check=True).stdout.decode().strip()

    assert ids == {"plain.json": git_id(b"{}\n"), "odd\nname": git_id(b"x"),
                   "run.sh": "x:" + git_id(b"#!/bin/sh\n"), "link": "link:" + git_id(b"plain.json")}


def test_a_store_kept_elsewhere_behind_a_symbolic_link_is_hashed(tmp_path: Path) -> None:
    """``.arena/results`` as a symbolic link to a folder on another disk: its results get
    their ids (git lists the link as one file: no result had an id, so a result stored later,
    a pending submission's, left its task's memo key as it was and the board kept it
    pending)."""
    board, store = tmp_path / "board", tmp_path / "elsewhere"
    (store / "t").mkdir(parents=True)
    (store / "t" / "s.json").write_bytes(b"{}\n")
    (board / ".arena").mkdir(parents=True)
    (board / ".arena" / "results").symlink_to(store)
    (board / "dataset").mkdir()
    (board / "dataset" / "task.yaml").write_bytes(b"id: t\n")
    subprocess.run(["git", "init", "-q"], cwd=board, check=True)
    results = board / ".arena" / "results"
    ids = content_ids(board, [board / "dataset"], hashed=[results])
    assert ids == {".arena/results/t/s.json": blob_id(b"{}\n"),
                   "dataset/task.yaml": blob_id(b"id: t\n")}
    (store / "t" / "new.json").write_bytes(b"[]\n")
    assert content_ids(board, [board / "dataset"], hashed=[results]) == {
        **ids, ".arena/results/t/new.json": blob_id(b"[]\n")}


def test_links_inside_the_store_are_read_as_the_store_reads_them(tmp_path: Path) -> None:
    """A task's folder or a result file inside the store as a symbolic link: the store reads
    through it, so its ids are those of what it points to (the link's own text as the id
    left a result stored behind it unseen: its task stayed pending). A link back up the
    store is walked once, not forever."""
    board, elsewhere = tmp_path / "board", tmp_path / "elsewhere"
    results = board / ".arena" / "results"
    (elsewhere / "t").mkdir(parents=True)
    (elsewhere / "t" / "s.json").write_bytes(b"{}\n")
    (elsewhere / "kept.json").write_bytes(b"1\n")
    (results / "u").mkdir(parents=True)
    (results / "t").symlink_to(elsewhere / "t")
    (results / "u" / "r.json").symlink_to(elsewhere / "kept.json")
    (results / "u" / "loop").symlink_to(results)
    (board / "dataset").mkdir()
    (board / "dataset" / "task.yaml").write_bytes(b"id: t\n")
    subprocess.run(["git", "init", "-q"], cwd=board, check=True)

    def stored() -> dict[str, str]:
        ids = content_ids(board, [board / "dataset"], hashed=[results])
        assert ids.pop("dataset/task.yaml") == blob_id(b"id: t\n")
        return ids

    assert stored() == {".arena/results/t/s.json": blob_id(b"{}\n"),
                        ".arena/results/u/r.json": blob_id(b"1\n")}
    (elsewhere / "t" / "new.json").write_bytes(b"[]\n")
    (elsewhere / "kept.json").write_bytes(b"2\n")
    assert stored() == {".arena/results/t/s.json": blob_id(b"{}\n"),
                        ".arena/results/t/new.json": blob_id(b"[]\n"),
                        ".arena/results/u/r.json": blob_id(b"2\n")}


def test_many_files_get_their_ids_in_their_order(tmp_path: Path) -> None:
    """One ``git hash-object`` reads thousands of files: every file gets its own id, each
    the id of its own bytes."""
    count = 5001
    for index in range(count):
        (tmp_path / f"{index:05d}.json").write_bytes(b"%d\n" % index)
    ids = content_ids(tmp_path, [tmp_path])
    assert ids == {f"{index:05d}.json": blob_id(b"%d\n" % index) for index in range(count)}


def test_stored_results_are_all_hashed_whatever_git_knows_of_them(tmp_path: Path) -> None:
    """In a work tree every stored result gets an id, git's own: an ignored file, a tracked
    one, an untracked one, one in a repository of its own inside; the same ids as outside
    any work tree, and an edit to any of them is seen."""
    def git(*args: str, cwd: Path = tmp_path) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                       cwd=cwd, check=True, capture_output=True)

    results = tmp_path / ".arena" / "results"
    files = {"t/a/ignored.json": b"{}\n", "t/b/tracked.json": b"[]\n",
             "t/c/untracked.json": b"1\n", "t/d/inner.json": b"2\n"}
    for name, data in files.items():
        (results / name).parent.mkdir(parents=True, exist_ok=True)
        (results / name).write_bytes(data)
    (tmp_path / ".gitignore").write_text(".arena/results/t/a/\n", encoding="utf-8")
    git("init", "-q")
    git("init", "-q", cwd=results / "t" / "d")
    git("add", ".gitignore", ".arena/results/t/b/tracked.json")
    git("commit", "-qm", "board")
    ids = content_ids(tmp_path, [], hashed=[results])
    assert {name: ids[f".arena/results/{name}"] for name in files} == {
        name: blob_id(data) for name, data in files.items()}
    outside = tmp_path.parent / f"{tmp_path.name}-copy"  # no work tree there: walked
    shutil.copytree(results, outside)
    assert content_ids(outside, [], hashed=[outside]) == {
        name.removeprefix(".arena/results/"): value for name, value in ids.items()}
    for name in files:
        (results / name).write_bytes(b"edited\n")
        again = content_ids(tmp_path, [], hashed=[results])
        assert again[f".arena/results/{name}"] != ids[f".arena/results/{name}"]
        assert {k: v for k, v in again.items() if not k.endswith(name)} == {
            k: v for k, v in ids.items() if not k.endswith(name)}
        (results / name).write_bytes(files[name])
