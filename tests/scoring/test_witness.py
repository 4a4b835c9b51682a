"""Witnesses (arena_bot.scoring.witness): what holds, what does not, and damaged rows."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import pytest
from support.settle import settle

from arena_bot.index import Index
from arena_bot.scoring.witness import Witness, Witnesses, store_witness, stored_witness


def _witnessed(tmp_path: Path) -> tuple[Index, Witness, Path]:
    folder = settle(_folder(tmp_path))
    index = Index(None)
    with index.recording() as seen:
        index.listing(str(folder))
        index.file_digest(folder / "a.txt")
    witness = Witness.of(key="k", folders=[str(folder)], seen=seen, index=index)
    return index, witness, folder


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "a.txt").write_text("a")
    return folder


def test_a_witness_holds_until_a_path_changes(tmp_path: Path) -> None:
    _, witness, folder = _witnessed(tmp_path)
    assert witness.settled and witness.holds()
    (folder / "b.txt").write_text("b")  # the folder's entries changed
    assert not witness.holds()


def test_an_edit_in_place_is_seen(tmp_path: Path) -> None:
    _, witness, folder = _witnessed(tmp_path)
    (folder / "a.txt").write_text("A")
    assert not witness.holds()


def test_verified_paths_are_not_looked_at_again_and_found_ones_are_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, witness, folder = _witnessed(tmp_path)
    verified: dict[str, str] = {}
    assert witness.holds(verified)
    assert set(verified) == {f"{folder}/", str(folder / "a.txt")}

    def no_stat(*_args: object, **_kwargs: object) -> os.stat_result:
        raise AssertionError("looked at a verified path")

    monkeypatch.setattr(os, "stat", no_stat)
    monkeypatch.setattr(os, "lstat", no_stat)
    assert witness.holds(verified)
    # A verified signature other than the recorded one is not trusted: the path is looked at.
    verified[str(folder / "a.txt")] = "1:2:3:4"
    with pytest.raises(AssertionError, match="looked at"):
        witness.holds(verified)


@pytest.mark.parametrize("payload", [
    b"not zlib at all",
    zlib.compress(b"not json"),
    zlib.compress(b"5"),
    zlib.compress(b'{"key": "k"}'),
    zlib.compress(json.dumps(["k", [], ["/a/path"]]).encode()),  # a path with no signature
    zlib.compress(json.dumps(["k", [], ["", "1:2:3:4"]]).encode()),  # an empty path
    zlib.compress(json.dumps(["k", [], [1, "1:2:3:4"]]).encode()),
    zlib.compress(json.dumps([1, [], []]).encode()),
    zlib.compress(json.dumps(["k", "folders", []]).encode()),
    zlib.compress(b'"k"\x002\x00/a'),  # more folders than items
    zlib.compress(b'"k"\x00-1\x00/a\x001:2:3:4'),
    zlib.compress(b'"k"\x000\x00/a'),  # a path with no signature
    zlib.compress(b'"k"\x000\x00\x001:2:3:4'),  # an empty path
    zlib.compress(b'"k"\x001\x00\x00/a\x00'),  # an empty folder
    zlib.compress(b'5\x000'),  # a key that is not text
    zlib.compress(b'"k"'),
])
def test_a_damaged_witness_row_is_no_witness(payload: bytes) -> None:
    """A damaged row costs a slow key, never a crash and never a witness that holds."""
    index = Index(None)
    index.store("w", "common:task", payload)
    assert stored_witness(index, "common", "task", namespace="w") is None
    assert Witnesses(index, "w", "common").holding("task") is None


def test_remembered_only_when_complete_and_settled(tmp_path: Path) -> None:
    index, witness, folder = _witnessed(tmp_path)
    witnesses = Witnesses(index, "w", "common")
    with index.recording() as seen:
        index.file_digest(folder / "a.txt")
    witnesses.remember("incomplete", key="k", folders=[], seen=seen, complete=False)
    assert stored_witness(index, "common", "incomplete", namespace="w") is None
    (folder / "fresh.txt").write_text("just written")  # not settled: a later tick may hide
    with index.recording() as seen:
        index.file_digest(folder / "fresh.txt")
    witnesses.remember("racy", key="k", folders=[], seen=seen)
    assert stored_witness(index, "common", "racy", namespace="w") is None
    store_witness(index, "common", "kept", witness, namespace="w")
    assert witnesses.holding("kept") == witness
    assert witnesses.holding("kept", [str(folder)]) == witness
    assert witnesses.holding("kept", ["/elsewhere"]) is None  # made for other folders


@pytest.mark.parametrize("witness", [
    Witness(key="", folders=[], checks=[]),
    Witness(key='k "quoted"\n\x00', folders=["/b/f"], checks=["/b/f/", "1:2:3:4", "/b/x", ""]),
    Witness(key="k", folders=["/b/caf\udce9"], checks=["/b/caf\udce9/", "1:2:3:4"]),
])
def test_a_witness_reads_back_as_stored(witness: Witness) -> None:
    """Keys of any text, absent paths ("" signatures), names that are not UTF-8."""
    assert Witness.decode(witness.encode()) == witness
