"""The data branch that keeps trusted results between publish runs, on real git repositories
(a bare repository plays the remote, clones play publish runs on fresh runners)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.gitrepo import clone_main, git, new_remote, push_main

from arena_bot.bot.datastore import DataBranchError, restore, save
from arena_bot.cli import main

RESULT = "slugkit-options/2026-11-02_claude-code_x.{name}-0123456789ab.json"




@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare repository with one commit on main (the leaderboard repository)."""
    bare, seed = new_remote(tmp_path)
    (seed / "README.md").write_text("board\n")
    (seed / ".gitignore").write_text(".arena/\n")
    push_main(seed, "init")
    return bare


checkout = clone_main  # a fresh runner's checkout of main


def put(results: Path, name: str, text: str) -> Path:
    path = results / RESULT.format(name=name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_lost_or_new_store_starts_empty_and_a_saved_one_comes_back(
    remote: Path, tmp_path: Path
) -> None:
    run1 = checkout(remote, tmp_path / "run1")
    results1 = run1 / ".arena" / "results"
    first = restore(repo=run1, results_dir=results1)
    assert not first.found and not results1.exists()  # nothing to trust: re-evaluate
    put(results1, "a" * 32, '{"result": "a"}')
    put(results1, "b" * 32, '{"result": "b"}')
    (results1 / "slugkit-options" / ".tmp-x.json").write_text("")  # a write in progress
    saved = save(repo=run1, results_dir=results1, message="results for abc")
    assert saved.pushed and saved.files == 2 and saved.added == 2
    # the checkout's own branch, work tree and index are untouched
    assert git("status", "--porcelain", cwd=run1) == ""
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=run1).strip() == "main"
    listed = git("ls-tree", "-r", "--name-only", "arena-data", cwd=remote).split()
    assert listed == ["README.md", f"results/{RESULT.format(name='a' * 32)}",
                      f"results/{RESULT.format(name='b' * 32)}"]
    assert git("log", "-1", "--format=%an %s", "arena-data", cwd=remote).strip() == (
        "github-actions[bot] results for abc")

    run2 = checkout(remote, tmp_path / "run2")
    results2 = run2 / ".arena" / "results"
    back = restore(repo=run2, results_dir=results2)
    assert back.found and back.restored == 2 and back.present == 0 and back.skipped == []
    assert (results2 / RESULT.format(name="a" * 32)).read_text() == '{"result": "a"}'
    again = save(repo=run2, results_dir=results2)
    assert not again.pushed and again.commit == saved.commit  # nothing new: no commit


def test_restore_never_overwrites_and_save_keeps_the_union(remote: Path, tmp_path: Path) -> None:
    run1 = checkout(remote, tmp_path / "run1")
    put(run1 / ".arena" / "results", "a" * 32, "from run 1")
    save(repo=run1, results_dir=run1 / ".arena" / "results")
    # another run that never restored saves its own result: run 1's stays on the branch
    run2 = checkout(remote, tmp_path / "run2")
    results2 = run2 / ".arena" / "results"
    put(results2, "c" * 32, "from run 2")
    local = put(results2, "a" * 32, "local copy")
    outcome = save(repo=run2, results_dir=results2)
    assert outcome.pushed and outcome.files == 2 and outcome.added == 1
    assert git("show", f"arena-data:results/{RESULT.format(name='a' * 32)}",
               cwd=remote) == "from run 1"
    restored = restore(repo=run2, results_dir=results2)
    assert restored.present == 2 and restored.restored == 0
    assert local.read_text() == "local copy"  # a stored file is never replaced
    history = git("log", "--format=%s", "arena-data", cwd=remote).splitlines()
    assert len(history) == 2  # the second save built on the first


def test_entries_outside_the_store_layout_are_not_restored(remote: Path, tmp_path: Path) -> None:
    # someone pushed odd files to the data branch by hand
    hand = checkout(remote, tmp_path / "hand")
    git("checkout", "--quiet", "--orphan", "arena-data", cwd=hand)
    git("rm", "-rq", "--cached", ".", cwd=hand)
    (hand / "results" / "t").mkdir(parents=True)
    (hand / "results" / "t" / "shallow.json").write_text("{}")
    flat = f"s.{'0' * 32}-{'1' * 12}.json"  # the store's layout: one folder per task
    (hand / "results" / "t" / flat).write_text("{}")
    (hand / "results" / "t" / "s").mkdir()
    (hand / "results" / "t" / "s" / "ok.json").write_text("{}")
    (hand / "results" / "t" / "s" / "notes.txt").write_text("x")
    os.symlink("/etc/passwd", hand / "results" / "t" / "s" / "link.json")
    git("add", "results", cwd=hand)
    git("commit", "--quiet", "-m", "by hand", cwd=hand)
    git("push", "--quiet", "origin", "arena-data", cwd=hand)
    run = checkout(remote, tmp_path / "run")
    results = run / ".arena" / "results"
    outcome = restore(repo=run, results_dir=results)
    assert outcome.restored == 2 and (results / "t" / "s" / "ok.json").is_file()
    assert (results / "t" / flat).is_file()
    assert sorted(outcome.skipped) == ["results/t/s/link.json", "results/t/s/notes.txt",
                                       "results/t/shallow.json"]
    assert not (results / "t" / "s" / "link.json").exists()


def test_the_site_snapshot_travels_with_the_branch_and_the_newest_wins(
    remote: Path, tmp_path: Path
) -> None:
    run1 = checkout(remote, tmp_path / "run1")
    results1 = run1 / ".arena" / "results"
    put(results1, "a" * 32, "x")
    first = tmp_path / "first.json"
    first.write_text('{"build": 1}')
    save(repo=run1, results_dir=results1, snapshot=first)
    assert git("show", "arena-data:snapshot.json", cwd=remote) == '{"build": 1}'
    # a later run without a snapshot keeps the branch's; one with a newer snapshot replaces it
    run2 = checkout(remote, tmp_path / "run2")
    kept = run2 / ".arena" / "published-snapshot.json"
    kept.parent.mkdir(parents=True)
    kept.write_text("stale local copy")
    back = restore(repo=run2, results_dir=run2 / ".arena" / "results", snapshot_to=kept)
    assert back.snapshot and kept.read_text() == '{"build": 1}'  # the branch is the record
    put(run2 / ".arena" / "results", "b" * 32, "y")
    save(repo=run2, results_dir=run2 / ".arena" / "results")
    assert git("show", "arena-data:snapshot.json", cwd=remote) == '{"build": 1}'
    kept.write_text('{"build": 2}')
    outcome = save(repo=run2, results_dir=run2 / ".arena" / "results", snapshot=kept)
    assert outcome.pushed and outcome.added == 0
    assert git("show", "arena-data:snapshot.json", cwd=remote) == '{"build": 2}'
    # a symlink is never saved as the snapshot, nor a missing file
    link = tmp_path / "link.json"
    os.symlink("/etc/passwd", link)
    for bad in (link, tmp_path / "missing.json"):
        with pytest.raises(DataBranchError, match="not a site snapshot"):
            save(repo=run2, results_dir=run2 / ".arena" / "results", snapshot=bad)


def test_a_snapshot_that_is_not_a_plain_file_is_not_restored(
    remote: Path, tmp_path: Path
) -> None:
    hand = checkout(remote, tmp_path / "hand")
    git("checkout", "--quiet", "--orphan", "arena-data", cwd=hand)
    git("rm", "-rq", "--cached", ".", cwd=hand)
    os.symlink("/etc/passwd", hand / "snapshot.json")
    git("add", "snapshot.json", cwd=hand)
    git("commit", "--quiet", "-m", "by hand", cwd=hand)
    git("push", "--quiet", "origin", "arena-data", cwd=hand)
    run = checkout(remote, tmp_path / "run")
    target = run / ".arena" / "published-snapshot.json"
    outcome = restore(repo=run, results_dir=run / ".arena" / "results", snapshot_to=target)
    assert outcome.found and not outcome.snapshot and not target.exists()


def test_the_cli_commands_and_a_missing_remote(remote: Path, tmp_path: Path) -> None:
    run = checkout(remote, tmp_path / "run")
    env = {"ARENA_CACHE": str(run / ".arena"), "GITHUB_SHA": "f" * 40}
    put(run / ".arena" / "results", "a" * 32, "x")
    saved = CliRunner().invoke(main, ["--root", str(run), "bot", "store", "save"], env=env)
    assert saved.exit_code == 0, saved.output
    assert "1 result(s), 1 new" in saved.output
    assert "for ffffffffffff" in git("log", "-1", "--format=%s", "arena-data", cwd=remote)
    fresh = checkout(remote, tmp_path / "fresh")
    restored = CliRunner().invoke(main, ["--root", str(fresh), "bot", "store", "restore"],
                                  env={"ARENA_CACHE": str(fresh / ".arena")})
    assert restored.exit_code == 0 and "restored 1 result(s)" in restored.output
    bad = CliRunner().invoke(main, ["--root", str(run), "bot", "store", "restore",
                                    "--remote", "nowhere"], env=env)
    assert bad.exit_code == 1 and "Traceback" not in bad.output
    assert "git could not list the branches of nowhere" in bad.output
    with pytest.raises(DataBranchError):
        save(repo=tmp_path / "not-a-repo-at-all", results_dir=tmp_path)


def test_save_pushes_over_http_with_the_token_handed_to_git_alone(
    remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The publish job checks out with persist-credentials: false; `store save` hands
    GITHUB_TOKEN to its own fetch and push (as an Authorization header through GIT_CONFIG_*,
    the way actions/checkout does), so no token sits in .git/config."""
    from support.githttp import GitServer
    from support.httpserver import serving

    token = "ghs_data_branch_token"
    run = checkout(remote, tmp_path / "run")
    put(run / ".arena" / "results", "a" * 32, "{}")
    server = GitServer(remote.parent, token)
    with serving(server):
        git("remote", "set-url", "origin", f"{server.base}/{remote.name}", cwd=run)
        for name in ("GIT_CONFIG_COUNT", "GITHUB_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        with pytest.raises(DataBranchError, match="list the branches of origin"):
            save(repo=run, results_dir=run / ".arena" / "results")
        monkeypatch.setenv("GITHUB_TOKEN", token)
        monkeypatch.setenv("GITHUB_SERVER_URL", server.base)
        outcome = save(repo=run, results_dir=run / ".arena" / "results")
        assert outcome.pushed and outcome.files == 1
        fresh = checkout(remote, tmp_path / "fresh")
        git("remote", "set-url", "origin", f"{server.base}/{remote.name}", cwd=fresh)
        assert restore(repo=fresh, results_dir=fresh / ".arena" / "results").restored == 1
    assert git("rev-parse", "arena-data", cwd=remote).strip() == outcome.commit
    assert token not in (run / ".git" / "config").read_text()
    assert any(a.lower().startswith("basic ") for a in server.authorizations)
