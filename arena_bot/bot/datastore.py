"""Trusted evaluation results kept between publish runs, on a data branch of the repository.

The publish workflow is the branch's only writer (``arena-data`` by default): :func:`save`
commits the result store to it after evaluating, :func:`restore` copies its results into
the local store before, so a merge re-evaluates only what changed. Nothing here reads a PR's
artifact: a lost branch means an empty store (slow, never wrong). Restoring never overwrites
or deletes a local file (names are content addresses), and saving takes the union of the
branch and the local store, so no stored result is ever lost.

The branch holds ``results/<task>/<submission>.<content>-<image>.json`` (the store's
layout; results saved before 2026-11-27 sit in ``<submission>/`` folders), a README and
``snapshot.json``, the published site's last change snapshot (so a fresh runner's Changes
page continues what readers last saw). Commits are built with git plumbing on a private
index file: the work tree and git's staging area are never touched.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena_bot.core.errors import ArenaError
from arena_bot.core.files import write_atomically
from arena_bot.core.gitcmd import NOT_STARTED, read_blobs, run_git, scratch_index
from arena_bot.evaluation.store import KEY_NAME

DEFAULT_BRANCH = "arena-data"
DEFAULT_REMOTE = "origin"
#: The folder of the branch holding the result files.
TREE_FOLDER = "results"
#: The site's change snapshot at the branch's root (the last published board/snapshot.json).
SNAPSHOT_FILE = "snapshot.json"
#: A stored result (or the snapshot) is never this large (the store refuses bigger files too).
MAX_FILE_BYTES = 50_000_000
#: Pushes retried when another writer moved the branch in between (fetch, merge, push).
PUSH_ATTEMPTS = 3
#: The committer of the data branch (GitHub shows it as the Actions bot).
IDENTITY = {
    "GIT_AUTHOR_NAME": "github-actions[bot]",
    "GIT_AUTHOR_EMAIL": "41898282+github-actions[bot]@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "github-actions[bot]",
    "GIT_COMMITTER_EMAIL": "41898282+github-actions[bot]@users.noreply.github.com",
}
_README = (
    "# Agentic Arena data branch\n\n"
    "Written only by the publish workflow (`arena bot store save`): the trusted evaluation\n"
    "results of the default branch's submissions, `results/<task>/<submission>.*.json`,\n"
    "and `snapshot.json`, the published site's last change snapshot (its Changes page).\n"
    "Do not push to it by hand; delete it to have every submission re-evaluated.\n"
)
#: ``results/<task>/<submission>.<key>.json`` (the store's layout, see
#: :mod:`arena_bot.evaluation.store`) or the earlier ``results/<task>/<submission>/<name>.json``,
#: with plain names only.
_RESULT_PATH = re.compile(
    rf"^[^/\x00]+/(?:[^/\x00]+/[^/\x00]+\.json|[^/\x00]+\.{KEY_NAME.pattern})$")


class DataBranchError(ArenaError):
    """git failed to read or write the data branch."""


@dataclass(frozen=True)
class RestoreOutcome:
    found: bool  # whether the branch exists on the remote
    restored: int  # files copied into the local store
    present: int  # files the local store already had
    skipped: list[str]  # branch entries refused (bad path, too large), by path
    snapshot: bool = False  # the branch's site snapshot was written to ``snapshot_to``


@dataclass(frozen=True)
class SaveOutcome:
    pushed: bool  # False: the branch already held exactly these files
    commit: str | None
    files: int  # result files on the branch after the save
    added: int  # of which new with this save


def restore(
    *, repo: Path, results_dir: Path, remote: str = DEFAULT_REMOTE,
    branch: str = DEFAULT_BRANCH, snapshot_to: Path | None = None,
) -> RestoreOutcome:
    """Copy the data branch's result files missing from ``results_dir`` into it, and its
    site snapshot to ``snapshot_to`` (replacing a local copy: the branch is the record)."""
    commit = _fetch(repo, remote=remote, branch=branch)
    if commit is None:
        return RestoreOutcome(found=False, restored=0, present=0, skipped=[])
    snapshot = snapshot_to is not None and _restore_snapshot(repo, commit, snapshot_to)
    wanted: list[tuple[str, Path]] = []
    present = 0
    skipped: list[str] = []
    for entry in _tree_entries(repo, commit, f"{TREE_FOLDER}/", what=f"list {branch}"):
        relative = entry.name.removeprefix(f"{TREE_FOLDER}/")
        # regular files of the store's layout only: no symlinks, odd names or giant files
        if (not entry.plain_file or not _RESULT_PATH.match(relative)
                or ".." in relative.split("/")):
            skipped.append(entry.name)
        elif (results_dir / relative).exists():
            present += 1
        else:
            wanted.append((entry.blob, results_dir / relative))
    for data, (_, target) in zip(_blobs(repo, [b for b, _ in wanted]), wanted, strict=True):
        _copy(target, data)
    return RestoreOutcome(found=True, restored=len(wanted), present=present, skipped=skipped,
                          snapshot=snapshot)


def _copy(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, data, durable=False)


def _restore_snapshot(repo: Path, commit: str, target: Path) -> bool:
    """Write the branch's ``snapshot.json`` (a plain file of sane size only) to ``target``."""
    found = [entry for entry in _tree_entries(repo, commit, SNAPSHOT_FILE, recursive=False,
                                              what="list the data branch's snapshot")
             if entry.plain_file]
    if not found:
        return False
    for data in _blobs(repo, [found[0].blob]):
        _copy(target, data)
    return True


@dataclass(frozen=True)
class _TreeEntry:
    name: str
    blob: str
    #: A regular file (no symlink, no submodule) no larger than MAX_FILE_BYTES.
    plain_file: bool


def _tree_entries(
    repo: Path, commit: str, path: str, *, what: str, recursive: bool = True
) -> Iterator[_TreeEntry]:
    """The entries of ``commit``'s tree at ``path`` (``git ls-tree -l``)."""
    listed = _git(repo, "ls-tree", *(["-r"] if recursive else []), "-z", "-l", commit, "--",
                  path, what=what)
    for line in listed.decode().split("\0"):
        if not line:
            continue
        meta, name = line.split("\t", 1)
        mode, kind, blob, size = meta.split()
        yield _TreeEntry(name=name, blob=blob, plain_file=mode == "100644" and kind == "blob"
                         and int(size) <= MAX_FILE_BYTES)


def _blobs(repo: Path, ids: list[str]) -> Iterator[bytes]:
    """The contents of blobs ``ids``, one at a time (one ``git cat-file --batch``): a store
    of thousands of results is never held in memory at once."""
    try:
        for kind, data in read_blobs(repo, ids):
            if kind != "blob":
                raise ValueError(kind)
            yield data
    except ValueError:
        raise DataBranchError("git could not read a blob of the data branch", path=repo,
                              hint="fetch the branch again") from None


def save(
    *, repo: Path, results_dir: Path, remote: str = DEFAULT_REMOTE,
    branch: str = DEFAULT_BRANCH, message: str = "Update trusted evaluation results",
    snapshot: Path | None = None,
) -> SaveOutcome:
    """Commit the union of the branch and the local store (and ``snapshot``, the site's
    board/snapshot.json) to the branch and push it; retried from a fresh fetch when the
    push is refused because the branch moved."""
    local = _local_files(results_dir)
    if snapshot is not None and (not snapshot.is_file() or snapshot.is_symlink()
                                 or snapshot.stat().st_size > MAX_FILE_BYTES):
        raise DataBranchError("not a site snapshot to save", path=snapshot,
                              hint="pass the board/snapshot.json `arena site build` wrote")
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        parent = _fetch(repo, remote=remote, branch=branch)
        tree, files, added = _build_tree(repo, parent=parent, local=local,
                                         results_dir=results_dir, snapshot=snapshot)
        if parent is not None and tree == _git(repo, "rev-parse", f"{parent}^{{tree}}",
                                               what="read the data branch's tree"
                                               ).decode().strip():
            return SaveOutcome(pushed=False, commit=parent, files=files, added=0)
        commit = _commit(repo, tree=tree, parent=parent, message=message)
        try:
            _git(repo, "push", "--quiet", remote, f"{commit}:refs/heads/{branch}",
                 what=f"push {branch} to {remote}", env=remote_auth(repo, os.environ))
        except DataBranchError:
            if attempt == PUSH_ATTEMPTS:
                raise
            continue
        return SaveOutcome(pushed=True, commit=commit, files=files, added=added)
    raise AssertionError("unreachable: the last attempt raises")  # pragma: no cover


# -- git plumbing -----------------------------------------------------------------------


def _fetch(repo: Path, *, remote: str, branch: str) -> str | None:
    """The branch's commit on ``remote`` (fetched), or ``None`` when it does not exist."""
    auth = remote_auth(repo, os.environ)
    listed = _git(repo, "ls-remote", "--heads", remote, f"refs/heads/{branch}",
                  what=f"list the branches of {remote}", env=auth)
    if not listed.strip():
        return None
    local_ref = f"refs/arena/{branch}"
    # depth 1: only the current tree is ever needed, not the branch's history
    _git(repo, "fetch", "--quiet", "--no-tags", "--depth=1", remote,
         f"+refs/heads/{branch}:{local_ref}",
         what=f"fetch {branch} from {remote}", env=auth)
    commit = _git(repo, "rev-parse", "--verify", f"{local_ref}^{{commit}}",
                  what=f"read {branch}")
    return commit.decode().strip()


def remote_auth(repo: Path, env: Mapping[str, str]) -> dict[str, str]:
    """Git environment that authenticates one command to the GitHub server with
    ``GITHUB_TOKEN``, as actions/checkout would.

    The workflows check out with ``persist-credentials: false``, so no token sits in
    ``.git/config`` for a later step to read; it is handed to these git commands alone, in
    the environment, never on a command line. Nothing is added without a token, or when the
    checkout already keeps one (two Authorization headers would be refused).
    """
    import base64

    token = env.get("GITHUB_TOKEN", "")
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    if not token or "GIT_CONFIG_COUNT" in env:
        return {}
    key = f"http.{server}/.extraheader"
    if run_git(["config", "--get-all", key], cwd=repo).ok:
        return {}
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": key,
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}


def _local_files(results_dir: Path) -> list[str]:
    """The store's result files, relative, sorted (temporary files of a write skipped)."""
    if not results_dir.is_dir():
        return []
    found = []
    for path in results_dir.rglob("*.json"):
        relative = path.relative_to(results_dir).as_posix()
        if path.is_file() and not path.is_symlink() and _RESULT_PATH.match(relative) \
                and not path.name.startswith(".tmp-"):
            found.append(relative)
    return sorted(found)


def _build_tree(
    repo: Path, *, parent: str | None, local: Sequence[str], results_dir: Path,
    snapshot: Path | None = None,
) -> tuple[str, int, int]:
    """The tree of ``parent`` plus the local files not in it (and ``snapshot`` replacing the
    branch's): (tree id, files, added)."""
    with scratch_index(prefix="arena-data-") as env:
        existing: set[str] = set()
        if parent is not None:
            _git(repo, "read-tree", parent, env=env, what="read the data branch")
            listed = _git(repo, "ls-files", "-z", "--", TREE_FOLDER, env=env,
                          what="list the data branch")
            existing = {
                name.removeprefix(f"{TREE_FOLDER}/")
                for name in listed.decode().split("\0") if name
            }
        new = [name for name in local if name not in existing]
        if new:
            paths = "".join(f"{results_dir / name}\n" for name in new).encode()
            blobs = _git(repo, "hash-object", "-w", "--stdin-paths", stdin=paths,
                         what="store the result files")
            entries = "".join(
                f"100644 blob {blob}\t{TREE_FOLDER}/{name}\n"
                for blob, name in zip(blobs.decode().split(), new, strict=True)
            )
            _git(repo, "update-index", "--add", "--index-info", stdin=entries.encode(),
                 env=env, what="stage the result files")
        _stage(repo, "README.md", _README.encode(), env=env)
        if snapshot is not None:
            _stage(repo, SNAPSHOT_FILE, snapshot.read_bytes(), env=env)
        tree = _git(repo, "write-tree", env=env, what="write the data branch's tree")
        return tree.decode().strip(), len(existing) + len(new), len(new)


def _stage(repo: Path, name: str, data: bytes, *, env: Mapping[str, str]) -> None:
    """Store ``data`` as a blob and stage it at ``name`` in the private index ``env`` names."""
    blob = _git(repo, "hash-object", "-w", "--stdin", stdin=data, what=f"store {name}")
    _git(repo, "update-index", "--add", "--cacheinfo",
         f"100644,{blob.decode().strip()},{name}", env=env, what=f"stage {name}")


def _commit(repo: Path, *, tree: str, parent: str | None, message: str) -> str:
    args = ["commit-tree", tree, "-m", message]
    if parent is not None:
        args += ["-p", parent]
    out = _git(repo, *args, env=IDENTITY, what="commit to the data branch")
    return out.decode().strip()


def _git(
    repo: Path, *args: str, what: str, stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """Run git in ``repo``; its failure is a DataBranchError saying what was being done."""
    done = run_git(args, cwd=repo, env=env, stdin=stdin)
    if done.status == NOT_STARTED:
        raise DataBranchError(f"cannot run git in {repo} ({done.stderr})", path=repo,
                              hint="run from the repository's checkout, with git installed")
    if done.ok:
        return done.stdout
    detail = done.stderr.strip().splitlines()
    raise DataBranchError(
        f"git could not {what}: {detail[-1] if detail else f'exit {done.status}'}",
        path=repo,
        hint="check the remote is reachable; to save, the publish job needs "
        "`contents: write` and the token in GITHUB_TOKEN (the action passes its `token`)",
    )
