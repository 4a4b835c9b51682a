"""The embedded index under .arena/: a cache of file digests and content-keyed values."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.settle import settle

from arena_bot.core.digest import folder_digest as reference_digest
from arena_bot.index import INDEX_FILE, Index, folder_digest, open_index, source_digest


def _tree(root: Path) -> Path:
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "a.txt").write_text("alpha")
    (root / "sub" / "b.patch").write_text("beta")
    (root / "sub" / "deeper" / "c").write_bytes(b"\x00\x01")
    (root / "link").symlink_to(root / "a.txt")
    return settle(root)


def test_folder_digest_equals_the_evaluation_digest(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    assert folder_digest(root, Index(None)) == reference_digest(root)


def test_unchanged_files_are_not_read_again_and_changes_are_seen(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    cache = tmp_path / ".arena"
    with open_index(cache) as index:
        first = folder_digest(root, index)
        assert (index.hits, index.misses) == (0, 3)
    with open_index(cache) as index:
        assert folder_digest(root, index) == first
        assert (index.hits, index.misses) == (3, 0)
        # Same size, new content: the modification time (ns) and so the signature change.
        (root / "a.txt").write_text("ALPHA")
        assert folder_digest(root, index) == reference_digest(root) != first


def test_memo_values_survive_a_run_and_an_error_stores_nothing(tmp_path: Path) -> None:
    cache = tmp_path / ".arena"
    with open_index(cache) as index:
        assert index.memo("ns", "k1", lambda: b"one") == b"one"
    try:
        with open_index(cache) as index:
            index.memo("ns", "k2", lambda: b"two")
            raise RuntimeError("the command failed")
    except RuntimeError:
        pass
    with open_index(cache) as index:
        assert index.memo("ns", "k1", lambda: b"recomputed") == b"one"
        assert index.memo("ns", "k2", lambda: b"recomputed") == b"recomputed"


def test_a_corrupt_index_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / ".arena"
    cache.mkdir()
    (cache / INDEX_FILE).write_bytes(b"this is not a database" * 100)
    root = _tree(tmp_path / "t")
    with open_index(cache) as index:
        assert folder_digest(root, index) == reference_digest(root)
    with open_index(cache) as index:
        folder_digest(root, index)
        assert index.misses == 0


def test_a_kill_in_the_middle_of_writing_leaves_the_old_index(tmp_path: Path) -> None:
    cache = tmp_path / ".arena"
    with open_index(cache) as index:
        index.memo("ns", "old", lambda: b"kept")
    script = textwrap.dedent(
        f"""
        import os, signal, sqlite3
        from pathlib import Path
        import arena_bot.index as mod

        real = mod._connect
        class Killing:
            def __init__(self, db): self.db = db
            def __getattr__(self, name): return getattr(self.db, name)
            def __enter__(self): self.db.__enter__(); return self
            def __exit__(self, *a): return self.db.__exit__(*a)
            def executemany(self, *a):
                self.db.executemany(*a)
                os.kill(os.getpid(), signal.SIGKILL)  # after a write, before the commit
        mod._connect = lambda path: Killing(real(path))
        with mod.open_index(Path({str(cache)!r})) as index:
            index.memo("ns", "new", lambda: b"lost")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], check=False)
    assert done.returncode == -9
    with open_index(cache) as index:
        assert index.memo("ns", "old", lambda: b"recomputed") == b"kept"
        assert index.memo("ns", "new", lambda: b"recomputed") == b"recomputed"
    assert not [p for p in os.listdir(cache) if p.endswith("-journal")]


REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("kind", ["task", "submission"])
def test_models_served_from_the_index_equal_parsed_ones(tmp_path: Path, kind: str) -> None:
    from arena_bot.intake.submissions import load_submission
    from arena_bot.tasks.dataset import load_task

    if kind == "task":
        folders = sorted(p.parent for p in (REPO / "dataset").glob("*/task.yaml"))
        load = lambda folder, index: load_task(folder, index).spec  # noqa: E731
    else:
        folders = sorted(p.parent for p in (REPO / "submissions").glob("*/*/submission.yaml"))
        load = lambda folder, index: load_submission(folder, index).spec  # noqa: E731
    assert folders
    parsed = [load(folder, None) for folder in folders]
    with open_index(tmp_path) as index:
        first = [load(folder, index) for folder in folders]
    with open_index(tmp_path) as index:
        served = [load(folder, index) for folder in folders]
        assert index.hits >= len(folders)  # really served from the index this time
    assert served == first == parsed
    assert [m.model_dump_json() for m in served] == [m.model_dump_json() for m in parsed]


def test_a_bad_file_is_never_remembered(tmp_path: Path) -> None:
    from arena_bot.errors import InputError
    from arena_bot.intake.submissions import load_submission

    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "submission.yaml").write_text("task: [unclosed\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(InputError), open_index(tmp_path / "cache") as index:
            load_submission(folder, index)
    with pytest.raises(InputError, match="not found"):
        load_submission(tmp_path / "missing", Index(None))


def test_folder_listings_follow_every_change_of_the_tree(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    cache = tmp_path / ".arena"
    changes = [
        lambda: (root / "new.txt").write_text("new"),
        lambda: (root / "new.txt").rename(root / "renamed.txt"),
        lambda: (root / "renamed.txt").unlink(),
        lambda: (root / "deep" / "er").mkdir(parents=True),
        lambda: (root / "deep" / "er" / "file.py").write_text("x = 1\n"),
        lambda: os.symlink("/etc/hostname", root / "deep" / "link"),
        lambda: (root / "deep" / "er" / "file.py").write_text("x = 2\n"),
        # Path order puts sub/... before sub.x/...; plain string order would not.
        lambda: (root / "sub.x").mkdir(),
        lambda: (root / "sub.x" / "z").write_text("z"),
    ]
    for change in changes:
        with open_index(cache) as index:
            assert folder_digest(root, index) == reference_digest(root)
        change()
        with open_index(cache) as index:
            assert folder_digest(root, index) == reference_digest(root)


def test_submission_folders_found_through_the_index_equal_a_plain_walk(tmp_path: Path) -> None:
    from arena_bot.intake.submissions import submission_folders

    root = tmp_path / "submissions"
    for folder in ("t1/a", "t1/b", "t2/c", "t2/deeper/d", "t3/e"):
        (root / folder).mkdir(parents=True)
        (root / folder / "submission.yaml").write_text("task: x\n")
    (root / "t3" / "e" / "submission.yaml").unlink()
    os.symlink("/etc/hostname", root / "t3" / "e" / "submission.yaml")  # still a folder
    os.symlink(root / "t1", root / "t9")  # a linked folder is not followed
    (root / "t1" / "empty").mkdir()
    settle(root)  # stored, then read back in one scan (Index.preload_listings)
    with open_index(tmp_path / "cache") as index:
        assert submission_folders(root, index) == submission_folders(root)
    expected = submission_folders(root)
    with pytest.MonkeyPatch.context() as patch, open_index(tmp_path / "cache") as index:
        patch.setattr("arena_bot.index.os.scandir", None)  # every listing is a stored one
        assert submission_folders(root, index) == expected
    (root / "t2" / "new").mkdir()
    (root / "t2" / "new" / "submission.yaml").write_text("task: x\n")
    with open_index(tmp_path / "cache") as index:
        found = submission_folders(root, index)
    assert found == submission_folders(root) and root / "t2" / "new" in found
    assert root / "t9" not in found and root / "t3" / "e" in found


def test_the_walk_of_an_unchanged_board_lists_nothing_and_every_change_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a walk found under each top folder is vouched for by a witness: the next walk
    stats the folders and decodes no listing; any change a plain walk would see (a
    submission.yaml added to a folder that had none, one removed, a deeper folder, a top
    folder replaced by a file or added) is seen by the next walk through the index."""
    from arena_bot.intake.submissions import submission_folders

    root = tmp_path / "submissions"
    for folder in ("t1/a", "t1/b", "t2/c", "t2/deeper/d", "t3/e", "t4/f", "t5/g"):
        (root / folder).mkdir(parents=True)
        (root / folder / "submission.yaml").write_text("task: x\n")
    (root / "t1" / "empty").mkdir()
    (root / "t2" / "c" / "notes").mkdir()
    cache = tmp_path / "cache"
    with open_index(cache) as index:  # five top folders: the slow walk preloads listings
        assert submission_folders(root, index) == submission_folders(root)
    settle(root)
    with open_index(cache) as index:
        assert submission_folders(root, index) == submission_folders(root)
    real_listing = Index.listing

    def only_the_root(index: Index, folder: str) -> list[tuple[str, str]]:
        assert not folder.startswith(f"{root}/"), f"listed {folder}"
        return real_listing(index, folder)

    with pytest.MonkeyPatch.context() as patch, open_index(cache) as index:
        patch.setattr(Index, "listing", only_the_root)
        assert submission_folders(root, index) == submission_folders(root)
        assert len(index.verified) >= 7  # what the witnesses found, for the next stage

    changes = [  # (change, whether a plain walk finds other folders after it)
        (lambda: (root / "t1" / "empty" / "submission.yaml").write_text("task: x\n"), True),
        (lambda: (root / "t1" / "a" / "submission.yaml").unlink(), True),
        (lambda: (root / "t2" / "c" / "notes" / "submission.yaml").write_text("x: 1\n"), True),
        (lambda: (root / "t2" / "deeper" / "h").mkdir(), False),
        (lambda: (root / "t2" / "deeper" / "h" / "submission.yaml").write_text("x: 1\n"), True),
        (lambda: shutil.rmtree(root / "t4"), True),
        (lambda: (root / "t4").write_text("a file now"), False),
        (lambda: shutil.copytree(root / "t5", root / "t6"), True),
        (lambda: os.symlink(root / "t5", root / "t5" / "g" / "loop"), False),  # not followed
    ]
    for change, differs in changes:
        settle(root)
        with open_index(cache) as index:  # a witness for every top folder is stored
            before = submission_folders(root, index)
        assert before == submission_folders(root)
        change()
        with open_index(cache) as index:
            after = submission_folders(root, index)
        assert after == submission_folders(root)
        assert (after != before) == differs
    monkeypatch.chdir(tmp_path)  # a relative root: the folders below it as given
    relative = Path("submissions")
    for _ in range(2):  # walked, then vouched for
        with open_index(cache) as index:
            assert submission_folders(relative, index) == submission_folders(relative)
        assert not submission_folders(relative)[0].is_absolute()


def _arena(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``arena`` as a user runs it (a separate process: what it prints and its exit code)."""
    env = {k: v for k, v in os.environ.items() if k != "ARENA_CACHE"}
    return subprocess.run(
        [str(Path(sys.executable).with_name("arena")), "--root", str(root), *args],
        capture_output=True, text=True, check=False, env=env,
    )


def test_arena_index_show_and_clear(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    cache = tmp_path / "repo" / ".arena"
    (cache / "results").mkdir(parents=True)
    (cache / "results" / "kept.json").write_text("{}")
    shown = _arena(tmp_path / "repo", "index", "show")
    assert shown.returncode == 0, shown.stderr
    assert "no index yet" in shown.stdout

    with open_index(cache) as index:
        folder_digest(root, index)  # 3 file digests and 3 folder listings
        index.store("validation", "k1", b"v")
        index.store("validation", "k2", b"v")
    shown = _arena(tmp_path / "repo", "index", "show")
    assert shown.returncode == 0, shown.stderr
    assert "3 file digest(s), 3 folder listing(s)" in shown.stdout
    assert "2 remembered value(s) in validation" in shown.stdout

    cleared = _arena(tmp_path / "repo", "index", "clear")
    assert cleared.returncode == 0 and "deleted" in cleared.stdout
    assert not (cache / INDEX_FILE).exists()
    assert (cache / "results" / "kept.json").read_text() == "{}"  # the store is not a cache
    again = _arena(tmp_path / "repo", "index", "clear")
    assert again.returncode == 0 and "no index to delete" in again.stdout


def test_arena_index_show_names_a_corrupt_index_without_repairing_it(tmp_path: Path) -> None:
    cache = tmp_path / ".arena"
    cache.mkdir()
    (cache / INDEX_FILE).write_bytes(b"not sqlite at all" * 100)
    shown = _arena(tmp_path, "index", "show")
    assert shown.returncode == 0, shown.stderr
    assert "not a readable index" in shown.stdout and "Traceback" not in shown.stderr
    assert (cache / INDEX_FILE).read_bytes().startswith(b"not sqlite")


def test_an_index_of_an_older_version_is_rebuilt_with_the_new_columns(tmp_path: Path) -> None:
    import sqlite3

    cache = tmp_path / ".arena"
    cache.mkdir()
    db = sqlite3.connect(cache / INDEX_FILE)
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('version', '1');"
        "CREATE TABLE files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER"
        " NOT NULL, inode INTEGER NOT NULL, sha256 TEXT NOT NULL);"
        "CREATE TABLE memo (namespace TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,"
        " PRIMARY KEY (namespace, key));"
    )
    db.commit()
    db.close()
    root = _tree(tmp_path / "t")
    with open_index(cache) as index:
        assert folder_digest(root, index) == reference_digest(root)
    with open_index(cache) as index:  # what the first run learnt was stored
        folder_digest(root, index)
        assert (index.hits, index.misses) == (3, 0)


def test_a_fresh_signature_is_used_but_never_stored(tmp_path: Path) -> None:
    """A file changed twice within one timestamp tick keeps its signature; so a signature
    younger than RACY_NS is not trusted by a later run (git's racy-clean rule)."""
    root = tmp_path / "t"
    root.mkdir()
    (root / "fresh.txt").write_text("one")
    cache = tmp_path / ".arena"
    with open_index(cache) as index:
        first = folder_digest(root, index)
        assert folder_digest(root, index) == first and index.hits == 1  # used in the run
    with open_index(cache) as index:
        folder_digest(root, index)
        assert index.misses == 1  # hashed again: it was not stored
    settle(root)
    with open_index(cache) as index:
        folder_digest(root, index)
    with open_index(cache) as index:
        folder_digest(root, index)
        assert (index.hits, index.misses) == (1, 0)


def test_a_file_restored_to_its_old_size_and_time_is_read_again(tmp_path: Path) -> None:
    """``cp -p`` / ``touch -d`` can give new bytes the old size and modification time; the
    change time, which no program can set, is part of the signature."""
    root = _tree(tmp_path / "t")
    cache = tmp_path / ".arena"
    with open_index(cache) as index:
        first = folder_digest(root, index)
    target = root / "a.txt"
    before = target.stat()
    time.sleep(0.01)
    target.write_text("ALPHA")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (target.stat().st_size, target.stat().st_mtime_ns, target.stat().st_ino) == (
        before.st_size, before.st_mtime_ns, before.st_ino)
    with open_index(cache) as index:
        assert folder_digest(root, index) == reference_digest(root) != first


def test_rows_of_files_that_are_gone_are_pruned(tmp_path: Path) -> None:
    import sqlite3

    root = _tree(tmp_path / "t")
    cache = tmp_path / ".arena"
    with open_index(cache) as index:
        folder_digest(root, index)
    (root / "sub" / "b.patch").unlink()
    with open_index(cache) as index, index.recording() as seen:
        folder_digest(root, index)
        index.prune(str(root), seen)

    def rows() -> set[str]:
        db = sqlite3.connect(cache / INDEX_FILE)
        try:
            return {path for (path,) in db.execute("SELECT path FROM files")}
        finally:
            db.close()

    stored = rows()
    assert str(root / "sub" / "b.patch") not in stored
    assert str(root / "a.txt") in stored and str(root / "sub" / "deeper" / "c") in stored


def test_the_bots_fingerprint_ignores_bytecode_and_sees_every_source_edit(tmp_path: Path) -> None:
    """pip compiles the package at install and Python writes more bytecode as a run imports
    modules; neither is a new version of the bot (each CI runner would start cold)."""
    import compileall

    import arena_bot

    package = tmp_path / "arena_bot"
    shutil.copytree(Path(arena_bot.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = source_digest(package, Index(None))
    assert compileall.compile_dir(package, quiet=1, force=True)
    assert list(package.rglob("__pycache__/*.pyc"))  # bytecode is really there
    assert source_digest(package, Index(None)) == before
    (package / "scoring" / "core.py").write_text(
        (package / "scoring" / "core.py").read_text(encoding="utf-8") + "\n# edited\n",
        encoding="utf-8")
    assert source_digest(package, Index(None)) != before


def test_a_witness_trusts_what_another_verified_in_the_run_never_what_the_run_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pipeline's three stages check mostly the same paths: a signature one witness
    found is not looked up again by the next, except for what the run itself wrote (a result
    stored by the evaluation stage) and paths that were absent."""
    from arena_bot.scoring.witness import Witness

    (tmp_path / "a.txt").write_text("a")
    results = tmp_path / "results"
    results.mkdir()
    (results / "r.json").write_text("{}")
    index = Index(None)
    with index.recording() as seen:
        index.file_digest(tmp_path / "a.txt")
        index.listing(str(results))
        index.note(results / "r.json")
        index.note(results / "later.json")  # absent
    witness = Witness.of(key="k", folders=[], seen=seen, index=index)
    assert witness.holds(index.verified)
    assert set(index.verified) == {str(tmp_path / "a.txt"), f"{results}/", str(results / "r.json")}

    def no_stat(path: str) -> os.stat_result:
        raise AssertionError(f"{path} looked at again")

    with monkeypatch.context() as patch:
        patch.setattr(os, "stat", no_stat)
        patch.setattr(os, "lstat", no_stat)
        with pytest.raises(AssertionError, match=r"later\.json"):  # absent: always looked at
            witness.holds(index.verified)
    (results / "later.json").write_text("{}")
    assert not witness.holds(index.verified)  # an absent path that appeared is seen
    (results / "later.json").unlink()
    time.sleep(0.01)
    (results / "r.json").write_text('{"new": 1}')  # the run stores a result...
    index.forget(results, written=results / "r.json")  # ...as ResultStore.save does
    assert not witness.holds(index.verified)
    assert not witness.holds()
