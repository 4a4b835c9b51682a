"""Importing a CooperBench-shaped task folder (tests/data/cooperbench) and running it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.cooperbench_tasks import DATA
from support.cooperbench_tasks import OLD_SHA as BASE_SHA
from support.cooperbench_tasks import TASK7 as TASK_DIR
from support.gitrepo import commit_folder
from support.gitrepo import git as _git_run_in

from arena_bot.cli import main
from arena_bot.core.errors import DatasetError
from arena_bot.evaluation.engine import make_test_runner
from arena_bot.evaluation.harness import run_feature
from arena_bot.sandbox.base import SandboxLimits
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.tasks.cooperbench import read_dockerfile, read_task
from arena_bot.tasks.cooperbench_runner import read_test_step
from arena_bot.tasks.dataset import load_task


def git(*args: str, cwd: Path) -> str:
    return _git_run_in(*args, cwd=cwd, env=_UPSTREAM_ENV)

_UPSTREAM_ENV = {
    "GIT_AUTHOR_NAME": "Upstream", "GIT_AUTHOR_EMAIL": "upstream@example.org",
    "GIT_COMMITTER_NAME": "Upstream", "GIT_COMMITTER_EMAIL": "upstream@example.org",
    "GIT_AUTHOR_DATE": "2024-02-02T00:00:00Z", "GIT_COMMITTER_DATE": "2024-02-02T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}




@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local clone of the fixture's 'upstream' repository (what --source takes offline),
    with one later commit the imported bundle must not carry."""
    repo = tmp_path_factory.mktemp("upstream") / "textkit"
    shutil.copytree(DATA / "upstream", repo)
    git("init", "--quiet", "--initial-branch=main", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "--quiet", "-m", "upstream base", cwd=repo)
    assert git("rev-parse", "HEAD", cwd=repo).strip() == BASE_SHA
    (repo / "FUTURE.md").write_text("a later commit\n")
    git("add", "-A", cwd=repo)
    git("commit", "--quiet", "-m", "future", cwd=repo)
    return repo


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_reads_url_commit_command_and_features() -> None:
    assert read_dockerfile(TASK_DIR / "Dockerfile") == (
        "https://github.com/example/textkit.git", BASE_SHA
    )
    assert read_test_step(TASK_DIR / "runner.sh").command == (
        'python3 -m pytest -p no:cacheprovider --junitxml="$ARENA_JUNIT" tests/ -v --tb=short'
    )
    task = read_task(TASK_DIR)
    assert task.features == {1: "whisper()", 2: "count_words()"}
    assert task.suggested_id() == "textkit-task7"


def test_unreadable_folders_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text("FROM python:3.11\nRUN echo hi\n")
    with pytest.raises(DatasetError, match="git clone"):
        read_dockerfile(tmp_path / "Dockerfile")
    (tmp_path / "runner.sh").write_text('#!/bin/bash\necho "Running tests..."\nmake check\n')
    with pytest.raises(DatasetError, match="no pytest test step"):
        read_test_step(tmp_path / "runner.sh")
    (tmp_path / "runner.sh").write_text('python -m pytest "${TEST_FILES[@]}"\n')
    with pytest.raises(DatasetError, match="--test-command"):
        read_test_step(tmp_path / "runner.sh")
    result = invoke("dataset", "import-cooperbench", str(tmp_path), "--dest",
                    str(tmp_path / "out"))
    assert result.exit_code == 1 and "git clone" in result.output
    assert "Traceback" not in result.output


#: The test lines of CooperBench's tasks in other languages (cooperbench/CooperBench @
#: 44b4a7a, dataset/go_chi_task/task26, react_hook_form_task/task153, typst_task/task6554).
@pytest.mark.parametrize(("line", "said"), [
    ('    timeout 300 go test -run "$TEST_PATTERN" ./...', "`go test` (line 3): a Go task"),
    ('npx pnpm@8 test "src/__tests__/useForm/handleSubmit.test.tsx" 2>&1',
     "`pnpm@8 test` (line 3): a JavaScript task"),
    ("cargo test -p typst-tests -- string-first", "`cargo test` (line 3): a Rust task"),
])
def test_a_task_in_another_language_is_refused_naming_its_test_runner(
        tmp_path: Path, line: str, said: str) -> None:
    (tmp_path / "runner.sh").write_text(f'#!/bin/bash\necho "Running tests..."\n{line}\n')
    with pytest.raises(DatasetError, match="task images here hold Python and pytest only") as err:
        read_test_step(tmp_path / "runner.sh")
    assert said in err.value.message


def test_import_from_a_clone_and_from_a_bundle(upstream: Path, tmp_path: Path) -> None:
    dest = tmp_path / "dataset"
    result = invoke("dataset", "import-cooperbench", str(TASK_DIR), "--source", str(upstream),
                    "--dest", str(dest))
    assert result.exit_code == 0, result.output
    task = load_task(dest / "textkit-task7")
    assert task.spec.source.commit == BASE_SHA
    assert [f.title for f in task.spec.features] == ["whisper()",
                                                     "count_words()"]
    assert (task.root / "feature2" / "tests.patch").read_bytes() == (
        TASK_DIR / "feature2" / "tests.patch"
    ).read_bytes()
    dockerfile = task.dockerfile.read_text()
    assert "ARG BASE_IMAGE" in dockerfile and "ENTRYPOINT" not in dockerfile
    # The bundle stops at the base commit: no "future" history for tests to read.
    refs = subprocess.run(["git", "bundle", "list-heads", str(task.bundle)],
                          capture_output=True, text=True, check=True).stdout
    assert BASE_SHA in refs and git("rev-parse", "HEAD", cwd=upstream).strip() not in refs
    # A git bundle works as --source too; an existing target is refused.
    again = invoke("dataset", "import-cooperbench", str(TASK_DIR), "--source",
                   str(task.bundle), "--dest", str(dest), "--id", "textkit-copy")
    assert again.exit_code == 0, again.output
    clash = invoke("dataset", "import-cooperbench", str(TASK_DIR), "--source",
                   str(task.bundle), "--dest", str(dest), "--id", "textkit-copy")
    assert clash.exit_code == 2 and "already exists" in clash.output


def test_source_without_the_base_commit_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "x").write_text("x")
    commit_folder(other, message="x")
    result = invoke("dataset", "import-cooperbench", str(TASK_DIR), "--source", str(other),
                    "--dest", str(tmp_path / "dataset"))
    assert result.exit_code == 1 and "base commit" in result.output
    assert not (tmp_path / "dataset" / "textkit-task7").exists()


def _task_at(tmp_path: Path, commit: str) -> Path:
    """TASK_DIR with ``commit`` as its base commit."""
    task = tmp_path / "cb" / "textkit_task" / "task7"
    shutil.copytree(TASK_DIR, task)
    dockerfile = task / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text().replace(BASE_SHA, commit))
    return task


def test_a_shallow_or_incomplete_source_is_named_with_what_to_do(
        upstream: Path, tmp_path: Path) -> None:
    """A shallow clone (`git clone --depth`) made a bundle that does not clone (git's "Failed
    to traverse parents" at the dependency step); a clone lacking an object (a partial clone,
    a mirror without its large files: CooperBench's Pillow and dspy upstreams here) failed
    with "git could not bundle: fatal: unable to read <sha>" and a hint to pass a clone with
    the base commit, which it had."""
    full = tmp_path / "full"
    shutil.copytree(upstream, full)
    (full / "LATER.md").write_text("a second commit, so the base has a parent\n")
    git("add", "-A", cwd=full)
    git("commit", "--quiet", "-m", "base with a parent", cwd=full)
    base = git("rev-parse", "HEAD", cwd=full).strip()
    task = _task_at(tmp_path, base)
    shallow = tmp_path / "shallow"
    git("clone", "--quiet", "--depth", "1", f"file://{full}", str(shallow), cwd=tmp_path)
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(shallow),
                    "--dest", str(tmp_path / "dataset"))
    assert result.exit_code == 1, result.output
    assert f"{shallow} is a shallow clone" in result.output
    assert f"git -C {shallow} fetch --unshallow" in result.output

    blob = git("rev-parse", f"{base}:textkit/core.py", cwd=full).strip()
    (full / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # the clone lost that file
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(full),
                    "--dest", str(tmp_path / "dataset"))
    assert result.exit_code == 1, result.output
    assert (f"{full} lacks git object {blob} (textkit/core.py at the base commit): an "
            "incomplete clone") in result.output
    assert "complete clone of the upstream repository" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "dataset" / "textkit-task7").exists()


@pytest.mark.docker
def test_imported_task_evaluates_offline(
    upstream: Path, tmp_path: Path, docker_client, base_image: str
) -> None:
    from arena_bot.sandbox.images import TaskImages

    result = invoke("dataset", "import-cooperbench", str(TASK_DIR), "--source", str(upstream),
                    "--dest", str(tmp_path))
    assert result.exit_code == 0, result.output
    task = load_task(tmp_path / "textkit-task7")
    engine = DockerEngine(docker_client)
    image = TaskImages(docker_client, base_image=base_image).ensure(task).tag
    run_tests = make_test_runner(task, engine=engine, image=image)
    for fid in task.features:
        gold = run_tests(task.feature(fid).gold_patch.read_text(), fid)
        assert gold.status == "passed", gold.output
        with engine.open(image, limits=SandboxLimits.from_task(task.spec.limits)) as sandbox:
            bare = run_feature(sandbox, task=task, feature_id=fid, patch_text="",
                               tests_only=True)
        assert bare.status == "failed" and bare.tests_errored + bare.tests_failed > 0
