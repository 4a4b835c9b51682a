"""The git part of merge analysis: two agents' patches, one throwaway repository, one merge.

The only module of :mod:`arena_bot.merge` that runs git. It follows CooperBench (seed 003):
one commit per agent on the base commit (test files dropped, ``git apply``, then with
``--ignore-whitespace``, then ``--3way``),
agent 1's commit merged into agent 2's ("ours", as CooperBench's ``git merge agent1
--no-commit --no-ff`` on agent 2's branch), conflicts counted over the first (ort) attempt,
then the merge retried with ``* merge=union``.

Difference from CooperBench, on purpose: nothing is checked out. Patches go to the index
(``git apply --cached``), commits are ``write-tree``/``commit-tree`` and the merge is ``git
merge-tree --write-tree`` (git >= 2.38): merge-ort's very machinery (same renames, markers
and attributes) writing a tree instead of a work tree. The counts are identical; a
1,000-file checkout no longer costs a second, and no file an agent wrote lands on disk (no
symlink or path tricks against the host). The throwaway repository borrows the base's
objects (``clone --shared``), so the base is never modified. Git runs without the user's and
the system's configuration and with ``merge.conflictStyle=merge``, so a personal ``diff3``
cannot change the counts; the number of git processes is constant (at most 17).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from arena_bot.core.errors import MergeError
from arena_bot.core.gitcmd import NOT_STARTED, GitResult, run_git
from arena_bot.merge.conflicts import (
    DEFAULT_COUNTING,
    Counting,
    count_conflicts,
    count_diff_conflicts,
)
from arena_bot.merge.patchfilter import FilteredPatch, drop_test_files
from arena_bot.models.evaluation import (
    ApplyStatus,
    ConflictDetails,
    MergeStatus,
    MergeStrategy,
)

#: Seconds any single git command may take before it is killed.
GIT_TIMEOUT = 300.0
AGENT_BRANCHES = ("agent1", "agent2")

# Fixed identity and dates make the throwaway commits reproducible; the configuration
# overrides make the merge independent of whoever runs it (no personal diff3 style, no
# system or personal attributes file declaring merge drivers, no hooks).
_CONFIG = {"merge.conflictStyle": "merge", "core.autocrlf": "false",
           "core.hooksPath": os.devnull, "merge.renames": "true",
           "core.attributesFile": os.devnull}
_FIXED_ENVIRONMENT: Mapping[str, str] = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_PARAMETERS": "",  # `git -c` settings of a parent git process (hooks)
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_AUTHOR_NAME": "arena",
    "GIT_AUTHOR_EMAIL": "arena@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000",
    "GIT_COMMITTER_NAME": "arena",
    "GIT_COMMITTER_EMAIL": "arena@localhost",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES": "",
    "GIT_NAMESPACE": "",
    "LC_ALL": "C",
    "GIT_CONFIG_COUNT": str(len(_CONFIG)),
    **{f"GIT_CONFIG_KEY_{i}": key for i, key in enumerate(_CONFIG)},
    **{f"GIT_CONFIG_VALUE_{i}": value for i, value in enumerate(_CONFIG.values())},
}


@dataclass(frozen=True)
class AgentApply:
    """How one agent's patch went onto the base commit."""

    agent: Literal["agent1", "agent2"]
    status: ApplyStatus
    #: Test files removed from the patch before applying it.
    dropped_test_files: tuple[str, ...] = ()
    #: Git's complaint when the patch did not apply (or why it is ``missing``).
    message: str | None = None

    @property
    def applied(self) -> bool:
        return self.status in ("clean", "whitespace", "three_way")


@dataclass(frozen=True)
class GitMerge:
    """What the git part of merge analysis found (no tests run yet)."""

    status: MergeStatus
    #: The strategy whose result is in ``merged_diff``; ``none`` when there is none.
    strategy: MergeStrategy
    #: Counts of the first (ort) merge attempt.
    details: ConflictDetails
    agent1: AgentApply
    agent2: AgentApply
    #: Files git left conflicted by the ort attempt.
    conflicted_files: tuple[str, ...] = ()
    #: Files still conflicted after the union retry (binary files, modify/delete, ...).
    unresolved_files: tuple[str, ...] = ()
    #: The merged code as a unified diff against the base commit (uncapped); ``""`` when
    #: nothing could be merged.
    merged_diff: str = ""

    @property
    def testable(self) -> bool:
        """Whether there is merged code to run tests on."""
        return self.strategy != "none"

    def failure_reason(self) -> str | None:
        """Why the merged code could not be built, in words, or None when it was."""
        if self.status == "apply_failed":
            failed = [a for a in (self.agent1, self.agent2) if not a.applied]
            return "; ".join(
                f"{a.agent}'s patch {'is empty' if a.status == 'missing' else 'did not apply'}"
                + (f": {a.message}" if a.message else "")
                for a in failed
            )
        if self.strategy == "none":
            return (
                "the merge left conflicts that the union strategy cannot resolve in "
                + ", ".join(self.unresolved_files)
            )
        return None


class _Git:
    """A git command runner bound to the throwaway repository, with its own environment."""

    def __init__(self, work_tree: Path) -> None:
        self.folder = work_tree
        self.git_dir = work_tree / ".git"
        # GitPython starts from os.environ: every variable that could point git at another
        # repository (GIT_DIR, GIT_INDEX_FILE, ... set in a hook or a CI step) is set here.
        self._environment = {
            **_FIXED_ENVIRONMENT,
            "GIT_DIR": str(self.git_dir),
            "GIT_COMMON_DIR": str(self.git_dir),
            "GIT_WORK_TREE": str(work_tree),
            "GIT_INDEX_FILE": str(self.git_dir / "index"),
            "GIT_OBJECT_DIRECTORY": str(self.git_dir / "objects"),
            "GIT_SHALLOW_FILE": str(self.git_dir / "shallow"),
        }

    def run(self, *args: str, check: bool = True, stdin: BinaryIO | None = None) -> GitResult:
        completed = run_git(args, cwd=self.folder, timeout=GIT_TIMEOUT, env=self._environment,
                            stdin=stdin)
        if completed.status == NOT_STARTED:
            raise MergeError(completed.stderr, hint="install git (2.38 or newer)")
        if check and completed.status != 0:
            raise MergeError(
                f"git {args[0]} failed (exit status {completed.status}): "
                f"{_first_lines(completed.stderr)}",
                path=self.folder,
            )
        return completed


def merge_patches(
    *,
    base_repo: Path,
    base_commit: str,
    patch1: str,
    patch2: str,
    counting: Counting = DEFAULT_COUNTING,
) -> GitMerge:
    """Merge agent 1's and agent 2's patches on ``base_commit`` of ``base_repo``.

    ``base_repo`` is only read; ``base_commit`` is a commit id (full or abbreviated: the
    throwaway repository has no branches). Raises MergeError when git itself cannot do its
    part (no such repository or commit); conflicts and patches that do not apply are
    results. ``counting`` picks the text conflicts are counted over: ``cooperbench`` (the
    ``git diff`` of the conflicted work tree, as CooperBench v0.1) or ``files`` (the seed's
    count over the conflicted files).
    """
    objects = _object_directory(base_repo)
    patches = (drop_test_files(patch1), drop_test_files(patch2))
    with tempfile.TemporaryDirectory(prefix="arena-merge-") as folder:
        temp = Path(folder)
        repo = _shared_repository(work_tree=temp / "repo", base_objects=objects)
        base = _resolve_base(repo, base_commit=base_commit, base_repo=base_repo)
        (agent1, agent2), commits = _apply_both(repo, temp=temp, base=base, patches=patches)
        if not (agent1.applied and agent2.applied):
            return GitMerge(status="apply_failed", strategy="none",
                            details=ConflictDetails(), agent1=agent1, agent2=agent2)
        ours, theirs = commits[1], commits[0]  # agent 2's branch merges agent 1's
        first = _merge_tree(repo=repo, ours=ours, theirs=theirs)
        if not first.conflicted:
            return GitMerge(
                status="clean", strategy="ort", details=ConflictDetails(), agent1=agent1,
                agent2=agent2, merged_diff=_merged_diff(repo=repo, base=base, tree=first.tree),
            )
        details = _count(repo=repo, temp=temp, ours=ours, theirs=theirs, first=first,
                         counting=counting)
        # Seed 003's retry after conflicts: the same merge with git's union driver.
        attributes = repo.git_dir / "info" / "attributes"
        attributes.parent.mkdir(parents=True, exist_ok=True)
        attributes.write_text("* merge=union\n", encoding="utf-8")
        second = _merge_tree(repo=repo, ours=ours, theirs=theirs)
        if not second.conflicted:
            return GitMerge(
                status="conflicts", strategy="union", details=details, agent1=agent1,
                agent2=agent2, conflicted_files=first.conflicted,
                merged_diff=_merged_diff(repo=repo, base=base, tree=second.tree),
            )
        return GitMerge(
            status="conflicts", strategy="none", details=details, agent1=agent1,
            agent2=agent2, conflicted_files=first.conflicted,
            unresolved_files=second.conflicted,
        )


def _resolve_base(repo: _Git, *, base_commit: str, base_repo: Path) -> str:
    resolved = repo.run("rev-parse", "--verify", "--quiet", f"{base_commit}^{{commit}}",
                        check=False)
    if resolved.status != 0:
        raise MergeError(
            f"cannot check out base commit {base_commit}: not in the repository",
            path=base_repo,
            hint="the task's source.commit must exist in its repository",
        )
    return resolved.text.strip()


def _apply_both(
    repo: _Git, *, temp: Path, base: str, patches: tuple[FilteredPatch, FilteredPatch]
) -> tuple[tuple[AgentApply, AgentApply], list[str]]:
    """Each agent's patch on its own branch from ``base``: how it applied, and the commits
    of those that did."""
    applies: list[AgentApply] = []
    commits: list[str] = []
    for branch, patch in zip(AGENT_BRANCHES, patches, strict=True):
        patch_file = temp / f"{branch}.patch"
        patch_file.write_text(patch.text, encoding="utf-8")
        applied = _apply(repo=repo, base=base, branch=branch, patch=patch, patch_file=patch_file)
        applies.append(applied)
        if applied.applied:
            tree = repo.run("write-tree").text.strip()
            commits.append(repo.run("commit-tree", tree, "-p", base, "-m", branch).text.strip())
    return (applies[0], applies[1]), commits


def _count(
    *, repo: _Git, temp: Path, ours: str, theirs: str, first: _TreeMerge, counting: Counting
) -> ConflictDetails:
    """Conflict sections and lines by the chosen counting (CooperBench's by default)."""
    files = _read_texts(repo=repo, temp=temp, tree=first.tree, paths=first.conflicted)
    if counting == "files":
        return count_conflicts(files)
    diff = _conflicted_worktree_diff(repo=repo, ours=ours, theirs=theirs)
    # CooperBench falls back to the conflicted files when `git diff` prints nothing.
    return count_diff_conflicts(diff) if diff.strip() else count_conflicts(files)


def _conflicted_worktree_diff(*, repo: _Git, ours: str, theirs: str) -> str:
    """``git diff`` of the work tree after CooperBench's ``git merge --no-commit --no-ff``.

    merge-tree cannot give this text (a combined diff against the index stages), so the
    conflicted pair is merged once more in the throwaway work tree, the way CooperBench does:
    agent 2's branch checked out, agent 1's merged in. Only conflicted pairs pay for it.
    """
    repo.run("update-ref", "refs/heads/agent1", theirs)
    repo.run("update-ref", "refs/heads/agent2", ours)
    repo.run("checkout", "--quiet", "--force", "agent2")
    repo.run("merge", "--no-commit", "--no-ff", "--quiet", "agent1", check=False)
    return repo.run("diff", "--no-color", "--no-ext-diff").text


def _object_directory(base_repo: Path) -> Path:
    """The object store of ``base_repo`` (work tree, linked work tree or bare repository).

    Found without running git, so that no inherited ``GIT_DIR`` can redirect the lookup.
    """
    dot_git = base_repo / ".git"
    if dot_git.is_dir():
        git_dir = dot_git
    elif dot_git.is_file():  # linked work tree or submodule: "gitdir: <path>"
        pointer = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if not pointer.startswith("gitdir:"):
            raise MergeError("not a git repository (unreadable .git file)", path=dot_git)
        git_dir = (base_repo / pointer.removeprefix("gitdir:").strip()).resolve()
    elif (base_repo / "HEAD").is_file() and (base_repo / "objects").is_dir():
        git_dir = base_repo  # bare repository
    else:
        raise MergeError("not a git repository", path=base_repo)
    common = git_dir
    if (git_dir / "commondir").is_file():
        common = (git_dir / (git_dir / "commondir").read_text().strip()).resolve()
    objects = common / "objects"
    if not objects.is_dir():
        raise MergeError("git repository without an object store", path=base_repo)
    return objects.resolve()


def _shared_repository(*, work_tree: Path, base_objects: Path) -> _Git:
    """An empty repository borrowing the base repository's objects (``clone --shared``).

    ``git init`` plus an alternates file: no refs, no checkout, nothing copied; objects the
    analysis writes (blobs, trees, commits) go to the throwaway repository only.
    """
    work_tree.mkdir()
    repo = _Git(work_tree)
    repo.run("init", "--quiet")
    (repo.git_dir / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (repo.git_dir / "objects" / "info" / "alternates").write_text(
        f"{base_objects}\n", encoding="utf-8"
    )
    shallow = base_objects.parent / "shallow"
    if shallow.is_file():  # a shallow base: its cut-off commits must stay cut off here too
        (repo.git_dir / "shallow").write_bytes(shallow.read_bytes())
    return repo


def _apply(
    *, repo: _Git, base: str, branch: str, patch: FilteredPatch, patch_file: Path
) -> AgentApply:
    """Apply one agent's patch to an index holding the base commit's tree."""
    agent: Literal["agent1", "agent2"] = "agent1" if branch == "agent1" else "agent2"
    if patch.is_empty:
        message = (
            "only test files, which are dropped before merging"
            if patch.dropped
            else "no changes"
        )
        return AgentApply(
            agent=agent, status="missing", dropped_test_files=patch.dropped, message=message
        )
    repo.run("read-tree", base)
    plain = repo.run("apply", "--cached", "--whitespace=nowarn", str(patch_file), check=False)
    if plain.status == 0:
        return AgentApply(agent=agent, status="clean", dropped_test_files=patch.dropped)
    # Context that differs only in whitespace, as the evaluation harness applies it.
    loose = repo.run("apply", "--cached", "--ignore-whitespace", "--whitespace=nowarn",
                     str(patch_file), check=False)
    if loose.status == 0:
        return AgentApply(agent=agent, status="whitespace", dropped_test_files=patch.dropped)
    # A failed plain apply leaves the index untouched; --3way may leave conflicted entries,
    # but then the patch has failed and the index is read afresh for the other agent.
    three_way = repo.run(
        "apply", "--cached", "--3way", "--whitespace=nowarn", str(patch_file), check=False
    )
    if three_way.status == 0:
        return AgentApply(agent=agent, status="three_way", dropped_test_files=patch.dropped)
    return AgentApply(
        agent=agent,
        status="failed",
        dropped_test_files=patch.dropped,
        message=_first_lines(plain.stderr.replace(str(patch_file), f"{branch}.patch")),
    )


@dataclass(frozen=True)
class _TreeMerge:
    tree: str
    conflicted: tuple[str, ...]


def _merge_tree(*, repo: _Git, ours: str, theirs: str) -> _TreeMerge:
    """``git merge-tree --write-tree``: the merged tree and the conflicted paths.

    Exit status 0 means clean, 1 means conflicts; anything else is git failing.
    """
    done = repo.run(
        "merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", ours, theirs,
        check=False,
    )
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    if done.status not in (0, 1) or not fields[0]:
        raise MergeError(
            "git merge-tree failed (git 2.38 or newer is needed): "
            + _first_lines(done.stderr)
        )
    conflicted = tuple(dict.fromkeys(name for name in fields[1:] if name))
    if done.status == 1 and not conflicted:
        raise MergeError(f"git merge-tree reported conflicts but no files: {done.stderr}")
    return _TreeMerge(tree=fields[0], conflicted=conflicted if done.status == 1 else ())


def _read_texts(*, repo: _Git, temp: Path, tree: str, paths: Sequence[str]) -> list[str]:
    """The conflicted files' contents in the merged tree, markers included.

    Two git processes for any number of files: ``ls-tree`` names the blobs, one
    ``cat-file --batch`` reads them (in tree order). Paths absent from the tree (a deleted side) and
    symlinks have nothing to count.
    """
    # The whole tree is listed and filtered here: no pathspec magic ("*", ":(") in agents'
    # file names, and no command-line length limit for thousands of conflicted paths.
    listing = repo.run("ls-tree", "-r", "-z", "--full-tree", tree)
    wanted = set(paths)
    blobs: list[str] = []
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, oid = meta.decode("ascii").split()
        path = raw_path.decode("utf-8", "surrogateescape")
        if path in wanted and kind == "blob" and mode != "120000":
            blobs.append(oid)
    if not blobs:
        return []
    requests = temp / "blobs.txt"
    requests.write_text("".join(f"{oid}\n" for oid in blobs), encoding="ascii")
    with requests.open("rb") as stdin:
        batch = repo.run("cat-file", "--batch", stdin=stdin)
    return [blob.decode("utf-8", "replace") for blob in _parse_batch(batch.stdout)]


def _parse_batch(output: bytes) -> list[bytes]:
    """Contents from ``git cat-file --batch`` output (``<oid> <type> <size>\\n<data>\\n``)."""
    contents: list[bytes] = []
    position = 0
    while position < len(output):
        header_end = output.index(b"\n", position)
        header = output[position:header_end].split()
        if len(header) != 3:
            raise MergeError(f"unexpected git cat-file output: {header!r}")
        size = int(header[2])
        start = header_end + 1
        contents.append(output[start : start + size])
        position = start + size + 1
    return contents


def _merged_diff(*, repo: _Git, base: str, tree: str) -> str:
    diff = repo.run("diff", "--binary", "--no-color", "--no-ext-diff", base, tree, "--")
    return diff.text


def _first_lines(text: str, *, limit: int = 3) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    shown = "; ".join(lines[:limit])
    return shown + (" ..." if len(lines) > limit else "") if shown else "(no message)"
