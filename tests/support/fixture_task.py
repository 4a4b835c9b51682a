"""The calculator fixture task: a tiny, complete task folder (task.yaml, Dockerfile,
repo.bundle, two features) built from scratch with real git, byte-identical for the same
arguments, so its content-addressed image is built once and reused across sessions."""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Sequence
from pathlib import Path

from arena_bot.models.evaluation import EvaluationResult
from arena_bot.tasks.dataset import task_dockerfile
from support.gitrepo import git as support_git

#: Fixed dates make the fixture repository's commit ids (and so image hashes) reproducible.
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Arena Fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.org",
    "GIT_COMMITTER_NAME": "Arena Fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.org",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
}

TEST_COMMAND = 'python3 -m pytest -q -p no:cacheprovider --junitxml="$ARENA_JUNIT" tests'


#: The base commit's files. The commit before it had ``VERSION = 1``: a patch written against
#: that older version applies only with a 3-way merge.
BASE_FILES = {
    "calc.py": "VERSION = 2\n\n\ndef add(a, b):\n    return a + b\n",
    "tests/__init__.py": "",
    "tests/test_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}

#: feature id -> (title, gold code change, test file added by tests.patch)
FEATURES = {
    1: (
        "Multiply",
        {"calc.py": BASE_FILES["calc.py"] + "\n\ndef mul(a, b):\n    return a * b\n"},
        {"tests/test_mul.py": "from calc import mul\n\n\ndef test_mul():\n"
                              "    assert mul(3, 4) == 12\n"},
    ),
    2: (
        "Subtract",
        {"stats.py": "def sub(a, b):\n    return a - b\n"},
        {"tests/test_sub.py": "from stats import sub\n\n\ndef test_sub():\n"
                              "    assert sub(5, 3) == 2\n"},
    ),
}


def git(*args: str, cwd: Path) -> str:
    """Run git with a fixed identity and dates (the sample bundles' hashes depend on them)."""
    return support_git(*args, cwd=cwd, env=_GIT_ENV)


def diff_of(repo: Path, changes: dict[str, str]) -> str:
    """The ``git diff`` that writes ``changes`` (path -> new content) onto ``repo``'s HEAD."""
    for path, content in changes.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    git("add", "-A", cwd=repo)
    diff = git("diff", "--cached", "HEAD", cwd=repo)
    git("reset", "--quiet", "--hard", "HEAD", cwd=repo)
    git("clean", "-fdxq", cwd=repo)
    return diff


def write_fixture_task(
    root: Path,
    *,
    task_id: str = "calc-fixture",
    extra_yaml: str = "",
    test_command: str = TEST_COMMAND,
    timeout: int = 60,
    setup: str | None = None,
    base_files: dict[str, str] | None = None,
) -> Path:
    """Write a complete task folder (task.yaml, Dockerfile, repo.bundle, two features) under
    ``root/<task_id>`` and return it (``base_files``: more files of the base commit). Same
    arguments → byte-identical folder."""
    work = root / f".{task_id}-src"
    work.mkdir(parents=True)
    git("init", "--quiet", "--initial-branch=main", cwd=work)
    for path, content in {**BASE_FILES, **(base_files or {})}.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(content)
    (work / "calc.py").write_text(BASE_FILES["calc.py"].replace("VERSION = 2", "VERSION = 1"))
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "initial", cwd=work)
    (work / "calc.py").write_text(BASE_FILES["calc.py"])
    git("commit", "--quiet", "-am", "base", cwd=work)
    sha = git("rev-parse", "HEAD", cwd=work).strip()
    task = root / task_id
    task.mkdir()
    git("bundle", "create", "--quiet", str(task / "repo.bundle"), "main", cwd=work)
    (task / "Dockerfile").write_text(task_dockerfile(sha))
    features_yaml = ""
    for fid, (title, code, tests) in FEATURES.items():
        folder = task / f"feature{fid}"
        folder.mkdir()
        (folder / "feature.md").write_text(f"# {title}\n")
        (folder / "feature.patch").write_text(diff_of(work, code))
        (folder / "tests.patch").write_text(diff_of(work, tests))
        features_yaml += f"  - id: {fid}\n    title: {title}\n"
    document = (
        textwrap.dedent(
            f"""\
            id: {task_id}
            title: Calculator fixture
            description: A tiny task used by the tests.
            category: backend_development
            difficulty: beginner
            language: Python
            source:
              bundle: repo.bundle
              commit: {sha}
            tests:
              command: '{test_command}'
              timeout: {timeout}
            features:
            """
        )
        + features_yaml
        + extra_yaml
    )
    if setup:
        document = document.replace("\nfeatures:", f"\n  setup: '{setup}'\nfeatures:", 1)
    (task / "task.yaml").write_text(document)
    return task


def record_expected_tests(task: Path) -> None:
    """What `arena dataset check` records for the calc-fixture task (above):
    feature 1 adds tests/test_mul.py, feature 2 tests/test_sub.py; the base's test_add must
    keep passing. Tasks without these files are left off the board."""
    added = {1: "tests.test_mul::test_mul", 2: "tests.test_sub::test_sub"}
    for feature, test_id in added.items():
        document = {"fail_to_pass": [test_id], "flaky": [],
                    "pass_to_pass": ["tests.test_add::test_add"], "schema_version": 1}
        (task / f"feature{feature}" / "expected_tests.json").write_text(
            json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def copy_fixture_task(task_root: Path, root: Path) -> Path:
    """The fixture task (from the session's ``fixture_task_root``) copied into
    ``root/dataset/``, with the expected test ids ``arena dataset check`` would record."""
    task = root / "dataset" / "calc-fixture"
    shutil.copytree(task_root / "calc-fixture", task)
    record_expected_tests(task)
    return task


def write_fixture_submission(
    root: Path, name: str, *, setting: str = "single", features: Sequence[int] = (1,),
    gold_of: Sequence[int] = (1,), tool: str = "Fixture Tool",
) -> Path:
    """``root/submissions/calc-fixture/<name>/`` with one run whose agent N's patch is the
    gold patch of feature ``gold_of[N-1]`` of the task in ``root/dataset`` (so it passes)."""
    task = root / "dataset" / "calc-fixture"
    folder = root / "submissions" / "calc-fixture" / name
    folder.mkdir(parents=True)
    patches = []
    for agent, feature in enumerate(gold_of, start=1):
        gold = (task / f"feature{feature}" / "feature.patch").read_text()
        (folder / f"agent{agent}.patch").write_text(gold)
        patches.append(f"agent{agent}.patch")
    (folder / "submission.yaml").write_text(textwrap.dedent(f"""\
        task: calc-fixture
        tool: {{name: {tool}, version: "1.0"}}
        models: [fixture-model]
        contributor: {{name: Tester}}
        date: 2025-01-01
        setting: {setting}
        features: [{", ".join(map(str, features))}]
        runs:
          - id: run1
            tokens: {{total: 1000}}
            tool_calls: 3
            execution_time: 10
            estimated_cost: 0.01
            patches: [{", ".join(patches)}]
        """))
    return folder


def runtime_flags(result: EvaluationResult) -> set[tuple[str, str, int | None]]:
    """The runtime review flags of ``result`` as (kind, file, line)."""
    return {(flag.kind, flag.file, flag.line) for flag in result.review_flags
            if flag.source == "runtime"}


def line_of(code: str, text: str) -> int:
    """The number of the first line of ``code`` holding ``text``."""
    return next(number for number, line in enumerate(code.split("\n"), 1) if text in line)
