"""The sample dataset and sample submissions are product material: check they really work.

Everything here runs on the host with git, without Docker: the folders follow the task
contract, bundles hold the base commit, gold patches merge as documented and submission
patches apply. Whether gold patches pass and bare bases fail is `arena dataset check`'s to
say (tests/evaluation/test_dataset_in_docker.py runs its code).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.gitrepo import git, git_run

from arena_bot.cli import main
from arena_bot.core.errors import DatasetError
from arena_bot.intake.submissions import SubmissionFolder, find_submission_folders, load_submission
from arena_bot.tasks.dataset import Dataset, TaskFolder, load_task

ROOT = Path(__file__).resolve().parent.parent
DATASET = Dataset(ROOT / "dataset")
TASKS = DATASET.all()
SUBMISSIONS = [
    load_submission(folder) for folder in find_submission_folders([ROOT / "submissions"])
]

#: The one sample submission made on a stale checkout: its patch must not apply on the base
#: (documented in its notes and in submissions/README.md).
NOT_APPLYING = {"csvstat-summaries/2026-11-08_aider_deepseek-v3"}

#: Which tasks' gold patches conflict when two agents' branches are merged (CooperBench style).
GOLD_MERGE_CONFLICTS = {"slugkit-options": True, "csvstat-summaries": False, "ttlcache-bugs": False}

def clone(task: TaskFolder, target: Path) -> Path:
    assert task.bundle is not None
    git("clone", "--quiet", str(task.bundle), str(target), cwd=target.parent)
    git("checkout", "--quiet", task.spec.source.commit, cwd=target)
    return target


def apply(repo: Path, patch: Path, *extra: str) -> bool:
    return git_run("apply", *extra, str(patch), cwd=repo).returncode == 0


def patched_paths(patch: Path) -> set[str]:
    text = patch.read_text(encoding="utf-8")
    return set(re.findall(r"^\+\+\+ b/(\S+)$", text, re.M)) | set(
        re.findall(r"^--- a/(\S+)$", text, re.M)
    )


def is_protected(task: TaskFolder, path: str) -> bool:
    return any(fnmatch.fnmatch(path, pattern) for pattern in task.spec.protected_paths)


FEATURES = [(task, feature) for task in TASKS for feature in task.spec.feature_ids()]


def test_the_sample_dataset_is_varied():
    assert len(TASKS) >= 3
    assert len({task.spec.category for task in TASKS}) >= 2
    assert len({task.spec.difficulty for task in TASKS}) >= 2
    assert all(len(task.spec.feature_ids()) >= 2 for task in TASKS)
    criteria = {c.type for task in TASKS for c in task.spec.success_criteria}
    assert criteria & {"file_exists", "regex", "exact_match"}


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.id)
def test_task_folder_follows_the_contract(task: TaskFolder, tmp_path: Path):
    spec = task.spec
    assert spec.tests.command == (
        'python3 -m pytest -q -p no:cacheprovider --junitxml="$ARENA_JUNIT" tests'
    )
    dockerfile = task.dockerfile.read_text(encoding="utf-8")
    assert dockerfile.startswith("ARG BASE_IMAGE=python:3.11-slim-bookworm\nFROM ${BASE_IMAGE}\n")
    assert f"checkout --quiet {spec.source.commit} " in dockerfile
    assert "ENTRYPOINT" not in dockerfile and "CMD" not in dockerfile
    runner = task.root / "runner.sh"
    assert os.access(runner, os.X_OK)
    assert "/patches/" in runner.read_text(encoding="utf-8")
    # The bundle holds the history up to the base commit and nothing after it.
    repo = clone(task, tmp_path / "repo")
    heads = set(git("for-each-ref", "--format=%(objectname)", cwd=repo).split())
    assert heads == {spec.source.commit}
    assert len(git("rev-list", "--all", cwd=repo).split()) >= 3
    assert task.bundle is not None and task.bundle.stat().st_size < 64 * 1024


@pytest.mark.parametrize(("task", "feature"), FEATURES, ids=[f"{t.id}-f{f}" for t, f in FEATURES])
def test_feature_files_follow_the_contract(task: TaskFolder, feature: int) -> None:
    """Whether the gold patch passes and the bare base fails is `arena dataset check`'s to
    say, in Docker (tests/evaluation/test_dataset_in_docker.py): one implementation."""
    files = task.feature(feature)
    assert files.description.read_text(encoding="utf-8").startswith("# ")
    assert all(path.startswith("tests/") for path in patched_paths(files.tests_patch))
    assert not any(is_protected(task, path) for path in patched_paths(files.gold_patch))
    assert files.expected_tests.is_file(), f"run `arena dataset check {task.id}`"


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.id)
def test_gold_patches_merge_as_documented(task: TaskFolder, tmp_path: Path):
    """Feature 1 and 2's gold patches on two branches: conflict only where the task says so."""
    repo = clone(task, tmp_path / "repo")
    for branch, feature in (("agent1", 1), ("agent2", 2)):
        git("checkout", "--quiet", "-B", branch, task.spec.source.commit, cwd=repo)
        assert apply(repo, task.feature(feature).gold_patch)
        git("add", "--all", cwd=repo)
        git("commit", "--quiet", "-m", branch, cwd=repo)
    merged = git_run("merge", "--no-commit", "--no-ff", "agent1", cwd=repo)
    assert (merged.returncode != 0) == GOLD_MERGE_CONFLICTS[task.id]


def test_sample_submissions_are_varied():
    assert len(SUBMISSIONS) >= 8
    specs = [submission.spec for submission in SUBMISSIONS]
    assert len({spec.tool.name for spec in specs}) >= 3
    assert len({model for spec in specs for model in spec.models}) >= 3
    assert {spec.setting for spec in specs} == {"single", "solo", "coop"}
    assert any(len(spec.runs) == 3 for spec in specs)
    assert any(len(spec.runs) == 1 for spec in specs)
    assert any(run.trajectory for spec in specs for run in spec.runs)
    assert {spec.task for spec in specs} == {task.id for task in TASKS}


@pytest.mark.parametrize("submission", SUBMISSIONS, ids=lambda s: s.key)
def test_submission_patches_apply_on_the_base_commit(submission: SubmissionFolder, tmp_path: Path):
    task = DATASET.get(submission.spec.task)
    assert submission.id == submission.root.name
    assert set(submission.spec.features) <= set(task.spec.feature_ids())
    repo = clone(task, tmp_path / "repo")
    for run in submission.spec.runs:
        assert run.tokens.cached is not None and run.tokens.cached <= (run.tokens.prompt or 0)
        assert run.estimated_cost > 0 and run.execution_time > 0
        if run.trajectory:
            assert submission.file(run.trajectory).is_file()
        for name in run.patches:
            patch = submission.file(name)
            assert patch.is_file()
            golds = {task.feature(f).gold_patch.read_text(encoding="utf-8") for f in task.features}
            assert patch.read_text(encoding="utf-8") not in golds, f"{name} copies a gold patch"
            paths = patched_paths(patch)
            assert paths and not any(is_protected(task, path) for path in paths)
            if submission.key in NOT_APPLYING:
                assert not apply(repo, patch, "--check")
                assert not apply(repo, patch, "--3way")  # a 3-way merge conflicts as well
                git("reset", "--quiet", "--hard", cwd=repo)
            else:
                assert apply(repo, patch, "--check"), f"{name} does not apply"


def test_the_not_applying_submission_is_documented():
    (key,) = NOT_APPLYING
    notes = next(s for s in SUBMISSIONS if s.key == key).spec.notes or ""
    assert "does not apply" in notes
    assert key.split("/")[1] in (ROOT / "submissions" / "README.md").read_text(encoding="utf-8")


# A copy of a sample task, broken on purpose: what loading it says.

def copied_task(tmp_path: Path, task_id: str = "slugkit-options") -> Path:
    dataset = tmp_path / "dataset"
    shutil.copytree(ROOT / "dataset" / task_id, dataset / task_id)
    return dataset


@pytest.mark.parametrize("task_id", [
    "../dataset/slugkit-options", "slugkit-options/", "./slugkit-options", "absolute",
    "x" * 300, "slugkit-options\n", "Slugkit-Options",
])
def test_a_task_id_that_is_a_path_or_no_id_is_refused_naming_it(
    tmp_path: Path, task_id: str
) -> None:
    """Dataset.has/get took any path (a folder outside dataset/, or this one by a detour)
    and a 300-character id was the file system's ENAMETOOLONG."""
    dataset = Dataset(copied_task(tmp_path))
    task_id = str(tmp_path / "dataset" / "slugkit-options") if task_id == "absolute" else task_id
    for call in (dataset.has, dataset.get):
        with pytest.raises(DatasetError, match="is not a task id") as err:
            call(task_id)
        assert repr(task_id)[:60] in str(err.value) and "known tasks: slugkit-options" in str(
            err.value)
    assert dataset.has("slugkit-options") and dataset.get("slugkit-options").id == (
        "slugkit-options")


@pytest.mark.parametrize("command", [["merge", "--no-tests", "--task"], ["dataset", "check"]])
def test_commands_taking_a_task_id_refuse_a_path(tmp_path: Path, command: list[str]) -> None:
    dataset = copied_task(tmp_path)
    if command[0] == "merge":
        command = [*command[:1], *(str(dataset / "slugkit-options" / f"feature{n}" /
                                       "feature.patch") for n in (1, 2)), *command[1:]]
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(dataset / "slugkit-options", elsewhere / "slugkit-options")
    for task in (str(elsewhere / "slugkit-options"), "../elsewhere/slugkit-options"):
        result = CliRunner().invoke(main, ["--root", str(tmp_path), *command, task],
                                    catch_exceptions=False)
        assert result.exit_code == 1, result.output
        assert "is not a task id" in result.output and repr(task)[:60] in result.output


@pytest.mark.parametrize("link", [
    "feature1/tests.patch", "task.yaml", "Dockerfile", "feature1", "feature1/notes.md",
])
def test_a_task_folder_holding_a_symbolic_link_is_refused_naming_it(
    tmp_path: Path, link: str
) -> None:
    """The task's digest skips links while the harness reads their targets: a result
    keyed by the digest would outlive a change of what the link points to."""
    task = copied_task(tmp_path) / "slugkit-options"
    target = tmp_path / "outside" / Path(link).name
    target.parent.mkdir()
    path = task / link
    if path.is_dir():
        shutil.copytree(path, target)
        shutil.rmtree(path)
    elif path.exists():
        shutil.copy2(path, target)
        path.unlink()
    else:
        target.write_text("notes\n")
    path.symlink_to(target)
    with pytest.raises(DatasetError, match="is a symbolic link") as err:
        load_task(task)
    assert f"{link} is a symbolic link" in str(err.value) and str(path) in str(err.value)
    with pytest.raises(DatasetError, match="is a symbolic link"):
        Dataset(task.parent).get("slugkit-options")


def test_a_task_folder_holding_a_fifo_is_refused_naming_it(tmp_path: Path) -> None:
    task = copied_task(tmp_path) / "slugkit-options"
    os.mkfifo(task / "feature1" / "pipe")
    with pytest.raises(DatasetError, match="feature1/pipe is not a regular file"):
        load_task(task)
