"""Remembered verdicts (``arena validate`` with ``.arena/index.sqlite``) are never stale.

A verdict is reused only when nothing it depends on changed. Each test validates once to
fill the index, changes one thing a cheater or a maintainer could change, and checks the
second verdict equals a fresh validation without any index.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from support.demo_task import INVALID, demo_root, valid_data, write_demo_task, write_submission
from support.settle import settle

from arena_bot.index import Index, open_index
from arena_bot.intake.validation import Diagnostic, all_submission_folders, validate_paths
from arena_bot.tasks.dataset import Dataset

TODAY = dt.date(2026, 11, 23)


@pytest.fixture(scope="module")
def task_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo_task(tmp_path_factory.mktemp("task-src"))


@pytest.fixture()
def root(tmp_path: Path, task_template: Path) -> Path:
    return demo_root(tmp_path, task_template)


@pytest.fixture(autouse=True)
def remember_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """These boards are small; verdicts are remembered from a board's size up (see
    validation._BULK), so the tests lower that size to exercise the memory."""
    import arena_bot.intake.validation as validation

    monkeypatch.setattr(validation, "_BULK", 0)


#: How the remembering runs ask: for paths (verdicts by memo key alone), or for the whole
#: board (task folders vouched for by witness: see validation._by_witness). Every test runs
#: both ways.
_MODE = {"whole_board": False}


@pytest.fixture(autouse=True, params=["paths", "whole board"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(_MODE, "whole_board", request.param == "whole board")


def _verdict(root: Path, *, cached: bool, today: dt.date = TODAY) -> list[Diagnostic]:
    paths = [root / "submissions"]
    if not cached:
        report = validate_paths(
            paths, dataset=Dataset(root / "dataset"), submissions_root=root / "submissions",
            today=today,
        )
        return report.diagnostics
    with open_index(root / ".arena") as index:
        whole_board = _MODE["whole_board"]
        if whole_board:
            paths = all_submission_folders(root / "submissions", index)
        report = validate_paths(
            paths, dataset=Dataset(root / "dataset", index),
            submissions_root=root / "submissions", today=today, index=index,
            whole_board=whole_board,
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
    settle(root)  # old enough to be remembered, as a board is (each test then changes one)
    first = _verdict(root, cached=True)
    assert _verdict(root, cached=True) == first == _verdict(root, cached=False)
    assert (root / ".arena" / "index.sqlite").is_file()
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
    settle(filled)
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

    def whole_board() -> int:
        with open_index(filled / ".arena") as index:
            validate_paths(
                all_submission_folders(filled / "submissions", index),
                dataset=Dataset(filled / "dataset", index),
                submissions_root=filled / "submissions", today=TODAY, index=index,
                whole_board=True,
            )
        return int(sqlite3.connect(filled / ".arena" / "index.sqlite").execute(
            "SELECT COUNT(*) FROM memo WHERE namespace = 'validation'").fetchone()[0])

    folders = len(list((filled / "submissions" / "demo").iterdir()))
    _agree(filled)  # a run over some paths adds, never drops
    data = valid_data()
    data["runs"][0]["iterations"] = 4
    write_submission(filled, "good", data=data)  # the old verdict is now unreachable
    _agree(filled)
    assert whole_board() == folders
    shutil.rmtree(filled / "submissions" / "demo" / "unknown-key")
    assert whole_board() == folders - 1


def test_a_moved_folder_is_checked_again(filled: Path) -> None:
    source = filled / "submissions" / "demo" / "good"
    nested = filled / "submissions" / "demo" / "deeper"
    nested.mkdir()
    shutil.move(source, nested / "good")
    assert "layout" in _codes(_agree(filled), "good")


def test_bulk_reads_of_the_index_give_the_same_verdicts(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena_bot.intake.validation as validation

    monkeypatch.setattr(validation, "_BULK", 0)  # every run reads the index in bulk
    assert _agree(filled) == _verdict(filled, cached=True)
    data = valid_data()
    data["runs"][0]["iterations"] = -1
    write_submission(filled, "good", data=data)
    assert "schema" in _codes(_agree(filled), "good")


def test_a_prs_few_submissions_are_checked_directly(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    import arena_bot.intake.validation as validation

    monkeypatch.setattr(validation, "_BULK", 100)
    (filled / ".arena" / "index.sqlite").unlink()
    assert _agree(filled)
    rows = sqlite3.connect(filled / ".arena" / "index.sqlite").execute(
        "SELECT COUNT(*) FROM memo WHERE namespace = 'validation'"
    ).fetchone()[0]
    assert rows == 0  # nothing remembered, so no digest of the whole dataset was needed


def test_an_unchanged_board_is_vouched_for_without_keying_a_folder(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole board whose task folders' witnesses hold computes no verdict key (nothing is
    digested) and gives the verdicts a fresh validation gives; one edited file, and its
    task folder is keyed again."""
    import arena_bot.intake.validation as validation

    monkeypatch.setitem(_MODE, "whole_board", True)
    fresh = _verdict(filled, cached=False)
    assert _verdict(filled, cached=True) == fresh  # witnesses stored (if not yet)
    keyed: list[Path] = []
    memo_key = validation.Validator._memo_key

    def counting(self: validation.Validator, folder: Path, index: object) -> str:
        keyed.append(folder)
        return memo_key(self, folder, index)  # type: ignore[arg-type]

    monkeypatch.setattr(validation.Validator, "_memo_key", counting)
    real_lookup = Index.lookup

    def no_verdict(index: Index, namespace: str, key: str) -> bytes | None:
        assert namespace != "validation", "a verdict was looked up"
        return real_lookup(index, namespace, key)

    with monkeypatch.context() as patched:  # the witness carries the verdicts themselves
        patched.setattr(Index, "lookup", no_verdict)
        assert _verdict(filled, cached=True) == fresh and keyed == []
    data = valid_data()
    data["runs"][0]["tool_calls"] = "many"
    write_submission(filled, "good", data=data)
    assert "schema" in _codes(_verdict(filled, cached=True), "good")
    assert len(keyed) == len(all_submission_folders(filled / "submissions"))  # one task



#: Damaged contents of a task folder's witness, for ``n`` submission folders.
_DAMAGED = {
    "not json": lambda n: "not json",
    "too few": lambda n: json.dumps([[], []]),
    "not text": lambda n: json.dumps([["k"] * n, [5] * n]),
    "not a verdict": lambda n: json.dumps([["k"] * n, ['{"found": 1}'] * n]),
}


@pytest.mark.parametrize("damage", sorted(_DAMAGED))
def test_a_damaged_witness_is_keyed_again(
    filled: Path, damage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a task folder's witness carries is checked: a damaged one costs the folder's
    keys (the verdicts are still right), never a crash."""
    from arena_bot.scoring.witness import Witness

    monkeypatch.setitem(_MODE, "whole_board", True)
    fresh = _verdict(filled, cached=False)
    assert _verdict(filled, cached=True) == fresh  # witnesses stored
    db = sqlite3.connect(filled / ".arena" / "index.sqlite")
    with db:
        rows = db.execute(
            "SELECT key, value FROM memo WHERE namespace = 'validation-witness'"
        ).fetchall()
        assert rows
        for key, value in rows:
            witness = Witness.decode(value)
            damaged = Witness(key=_DAMAGED[damage](len(witness.folders)),
                              folders=witness.folders, checks=witness.checks)
            db.execute("UPDATE memo SET value = ? WHERE namespace = 'validation-witness' "
                       "AND key = ?", (damaged.encode(), key))
    db.close()
    assert _verdict(filled, cached=True) == fresh
