"""arena_bot.core.gitcmd: the one way the package runs git (real git, real folders)."""

from __future__ import annotations

import threading
from pathlib import Path

from support.gitrepo import git

from arena_bot.core.gitcmd import NOT_STARTED, has_commit, is_work_tree_top, run_git, scratch_index


def test_git_runs_in_the_folder_named_and_reports_failures(tmp_path: Path) -> None:
    git("init", "--quiet", cwd=tmp_path)
    done = run_git(["rev-parse", "--show-toplevel"], cwd=tmp_path, timeout=10)
    assert done.ok and Path(done.text.strip()).resolve() == tmp_path.resolve()
    failed = run_git(["rev-parse", "--verify", "no-such-ref"], cwd=tmp_path, timeout=10)
    assert not failed.ok and failed.last_error_line()
    fed = run_git(["hash-object", "--stdin"], cwd=tmp_path, timeout=10, stdin=b"x\n")
    assert fed.ok and len(fed.text.strip()) == 40


def test_git_never_runs_in_another_folder_than_the_one_named(tmp_path: Path) -> None:
    """GitPython falls back to the process's own folder when the one named does not exist:
    the adapter refuses instead (a data-branch push meant for a throwaway clone once went to
    the checkout the tests ran from)."""
    missing = tmp_path / "not-a-repo-at-all"
    done = run_git(["rev-parse", "--show-toplevel"], cwd=missing, timeout=10)
    assert done.status == NOT_STARTED and "no such folder" in done.stderr
    assert not done.stdout


def test_only_the_top_of_a_working_tree_is_one(tmp_path: Path) -> None:
    """``arena submit`` takes the diff of a whole working tree: a folder inside one, a bare
    repository, a plain folder and a missing one are not working trees."""
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git("init", "--quiet", cwd=repo)
    git("init", "--quiet", "--bare", str(tmp_path / "bare.git"), cwd=tmp_path)
    (tmp_path / "plain").mkdir()
    assert is_work_tree_top(repo)
    assert not is_work_tree_top(repo / "sub")
    assert not is_work_tree_top(tmp_path / "bare.git")
    assert not is_work_tree_top(tmp_path / "plain")
    assert not is_work_tree_top(tmp_path / "missing")


def test_has_commit_knows_ids_branches_and_tags_but_not_trees_or_strangers(
    tmp_path: Path,
) -> None:
    git("init", "--quiet", "--initial-branch=main", cwd=tmp_path)
    (tmp_path / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=tmp_path)
    git("commit", "--quiet", "-m", "one", cwd=tmp_path)
    git("tag", "v1", cwd=tmp_path)
    commit = git("rev-parse", "HEAD", cwd=tmp_path).strip()
    tree = git("rev-parse", "HEAD^{tree}", cwd=tmp_path).strip()
    assert all(has_commit(tmp_path, name) for name in (commit, commit[:12], "main", "v1"))
    assert not has_commit(tmp_path, tree)
    assert not has_commit(tmp_path, "0" * 40)
    assert not has_commit(tmp_path / "missing", commit)


def test_a_scratch_index_leaves_the_repositorys_own_index_alone(tmp_path: Path) -> None:
    git("init", "--quiet", cwd=tmp_path)
    (tmp_path / "staged.txt").write_text("staged\n")
    git("add", "staged.txt", cwd=tmp_path)
    (tmp_path / "other.txt").write_text("other\n")
    index_before = (tmp_path / ".git" / "index").read_bytes()
    with scratch_index() as env:
        assert run_git(["add", "--all"], cwd=tmp_path, env=env).ok
        listed = run_git(["ls-files"], cwd=tmp_path, env=env).text.split()
        scratch = Path(env["GIT_INDEX_FILE"])
        assert scratch.is_file()
    assert listed == ["other.txt", "staged.txt"]
    assert not scratch.exists() and not scratch.parent.exists()
    assert (tmp_path / ".git" / "index").read_bytes() == index_before
    assert git("ls-files", cwd=tmp_path).split() == ["staged.txt"]


def test_a_stopped_or_timed_out_clone_is_killed_with_its_helpers(tmp_path: Path) -> None:
    """A clone from a server that never answers (git-remote-https waits for ever) ends as soon
    as ``stop`` is set, or when its timeout passes: git and its helper are gone, so nothing
    keeps the clone's folder or the output pipes (the wait would hang on them)."""
    from support.interrupt import StalledServer, _processes_naming

    server = StalledServer()
    try:
        stop = threading.Event()
        threading.Timer(1.0, stop.set).start()
        stopped = run_git(["clone", "--quiet", server.url, str(tmp_path / "a")], stop=stop,
                          timeout=120)
        assert not stopped.ok and stopped.stderr.startswith("stopped")
        assert server.connections and _processes_naming(server.url) == []
        timed_out = run_git(["clone", "--quiet", server.url, str(tmp_path / "b")], timeout=1)
        assert not timed_out.ok and timed_out.stderr.startswith("Timeout")
        assert _processes_naming(server.url) == []
    finally:
        server.close()
