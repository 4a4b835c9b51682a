"""Content-addressed result storage (no Docker)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from arena_bot.core.files import write_atomically
from arena_bot.evaluation.store import ResultStore, input_key, result_owner
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.tasks.dataset import TaskFolder

KEY = f"{'0a' * 16}-{'b' * 12}.json"


def make_result(key_hash: str) -> EvaluationResult:
    return EvaluationResult(
        task_id="calc-fixture", submission_id="s", input_hash=key_hash, harness_version="1",
        evaluated_at=dt.datetime(2025, 1, 1, tzinfo=dt.UTC), runs=[],
    )


def test_same_inputs_same_key_and_any_change_a_new_one(
    fixture_task: TaskFolder, write_submission, tmp_path: Path
) -> None:
    submission = write_submission("s", patches=["diff\n"])
    key = input_key(submission, fixture_task, "img:a")
    assert input_key(submission, fixture_task, "img:a") == key
    assert input_key(submission, fixture_task, "img:b").input_hash != key.input_hash
    assert input_key(submission, fixture_task, "img:a", harness_version="x") != key
    (submission.root / "agent1.patch").write_text("diff 2\n")
    assert input_key(submission, fixture_task, "img:a") != key


def test_save_and_lookup_round_trip(
    fixture_task: TaskFolder, write_submission, store: ResultStore
) -> None:
    submission = write_submission("s", patches=["diff\n"])
    assert store.lookup(submission, fixture_task, "img:a") is None
    key = input_key(submission, fixture_task, "img:a")
    path = store.save(submission, key, make_result(key.input_hash))
    # One folder per task: <task>/<submission>.<content>-<image>.json
    assert path == store.root / "calc-fixture" / f"s.{key.content[:32]}-{key.image[:12]}.json"
    assert store.lookup(submission, fixture_task, "img:a") == make_result(key.input_hash)
    assert store.lookup(submission, fixture_task, "img:b") is None
    assert store.lookup(submission, fixture_task) == make_result(key.input_hash)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left


def test_corrupt_file_counts_as_absent(
    fixture_task: TaskFolder, write_submission, store: ResultStore
) -> None:
    submission = write_submission("s", patches=["diff\n"])
    key = input_key(submission, fixture_task, "img:a")
    path = store.save(submission, key, make_result(key.input_hash))
    path.write_text('{"half": ')
    assert store.lookup(submission, fixture_task, "img:a") is None


def test_interrupted_write_keeps_the_old_result(
    fixture_task: TaskFolder, write_submission, store: ResultStore, monkeypatch
) -> None:
    submission = write_submission("s", patches=["diff\n"])
    key = input_key(submission, fixture_task, "img:a")
    store.save(submission, key, make_result(key.input_hash))

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.save(submission, key, make_result("other"))
    monkeypatch.undo()
    assert store.lookup(submission, fixture_task, "img:a") == make_result(key.input_hash)
    assert len(list((store.root / "calc-fixture").iterdir())) == 1


def test_any_image_lookup_picks_the_newest_evaluation_not_the_newest_file(
    fixture_task: TaskFolder, write_submission, store: ResultStore
) -> None:
    submission = write_submission("s", patches=["diff\n"])
    old_key = input_key(submission, fixture_task, "img:old")
    new_key = input_key(submission, fixture_task, "img:new")
    newer = make_result(new_key.input_hash).model_copy(
        update={"evaluated_at": dt.datetime(2025, 6, 1, tzinfo=dt.UTC)}
    )
    store.save(submission, new_key, newer)
    older_path = store.save(submission, old_key, make_result(old_key.input_hash))
    os.utime(older_path, (2_000_000_000, 2_000_000_000))  # the older result's file is newest
    assert ResultStore(store.root).lookup(submission, fixture_task) == newer


def test_results_of_the_earlier_layout_are_read_beside_the_new_ones(
    fixture_task: TaskFolder, write_submission, store: ResultStore
) -> None:
    """Results stored before the store kept one folder per task sit in
    ``<task>/<submission>/<key>.json``: every reader still finds them, and the newest of
    both layouts wins."""
    submission = write_submission("s", patches=["diff\n"])
    old_key = input_key(submission, fixture_task, "img:old")
    earlier = store.root / "calc-fixture" / "s" / old_key.file_name
    earlier.parent.mkdir(parents=True)
    earlier.write_text(make_result(old_key.input_hash).model_dump_json(), encoding="utf-8")
    (earlier.parent / "notes.json").write_text("{}", encoding="utf-8")  # not a result
    assert store.get(submission, old_key) == make_result(old_key.input_hash)
    assert store.lookup(submission, fixture_task) == make_result(old_key.input_hash)
    new_key = input_key(submission, fixture_task, "img:new")
    newer = make_result(new_key.input_hash).model_copy(
        update={"evaluated_at": dt.datetime(2025, 6, 1, tzinfo=dt.UTC)})
    store.save(submission, new_key, newer)
    assert store.lookup(submission, fixture_task) == newer  # the save is seen at once
    assert store.stored("calc-fixture", "s") == sorted(
        [earlier, store.path_for(submission, new_key)])


@pytest.mark.parametrize(("name", "owner"), [
    (f"s.{KEY}", "s"),
    (f"2026-01-01_tool_m.v2.{KEY}", "2026-01-01_tool_m.v2"),
    (f"s/{KEY}", "s"),
    (KEY, None),
    (f".{KEY}", None),
    (f"s-{KEY}", None),
    (f"s/x/{KEY}", None),
    (f"s.{KEY[:-1]}", None),
    (f"s.{KEY.upper()}", None),
    ("s/.tmp-k2j3l4m5.json", None),
    ("notes.json", None),
])
def test_a_stored_file_names_its_submission(name: str, owner: str | None) -> None:
    assert result_owner(name) == owner


def test_atomic_writes_keep_the_mode_and_leave_no_part(tmp_path: Path, monkeypatch) -> None:
    """write_atomically (results, expected test ids, merge reports): readable as a plain
    write's file is, the replaced file's mode kept, nothing left when interrupted."""
    new = tmp_path / "new.json"
    write_atomically(new, b"{}")
    assert (new.read_bytes(), new.stat().st_mode & 0o777) == (b"{}", 0o644)
    new.chmod(0o640)
    write_atomically(new, b"[]")
    assert (new.read_bytes(), new.stat().st_mode & 0o777) == (b"[]", 0o640)

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(new, b"[1]")
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["new.json"] and new.read_bytes() == b"[]"


def test_a_result_copied_to_another_submissions_path_counts_as_absent(
    fixture_task: TaskFolder, write_submission, store: ResultStore
) -> None:
    """A stored result is credited to the submission it names, not to whichever path it
    sits at: submission A's result copied to B's file name (either layout) is not B's."""
    a = write_submission("a", patches=["diff a\n"])
    b = write_submission("b", patches=["diff b\n"])
    key_a, key_b = (input_key(s, fixture_task, "img:a") for s in (a, b))
    result_a = make_result(key_a.input_hash).model_copy(update={"submission_id": "a"})
    path_a = store.save(a, key_a, result_a)
    copied = store.path_for(b, key_b)
    copied.write_bytes(path_a.read_bytes())
    earlier = store.root / "calc-fixture" / "b" / key_b.file_name
    earlier.parent.mkdir()
    earlier.write_bytes(path_a.read_bytes())
    fresh = ResultStore(store.root)
    assert fresh.lookup(b, fixture_task, "img:a") is None
    assert fresh.lookup(b, fixture_task) is None
    assert fresh.newest("calc-fixture", "b") is None
    assert fresh.lookup(a, fixture_task) == result_a  # the owner still finds its own
    # A result naming another task is not this task's either.
    other_task = result_a.model_copy(update={"task_id": "other-task", "submission_id": "b"})
    copied.write_text(other_task.model_dump_json(), encoding="utf-8")
    assert ResultStore(store.root).lookup(b, fixture_task, "img:a") is None
