"""The demo task of the validation tests: a task folder with a real git bundle and two
features, a repository holding it, and writers of (valid or broken) submissions of it."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import yaml

from support.gitrepo import git

#: Invalid submission folders, one a diagnostic (tests/data/invalid).
INVALID = Path(__file__).resolve().parents[1] / "data" / "invalid"

TASK_YAML = """\
id: demo
title: Demo calculator
description: Add features to a tiny calculator.
category: backend_development
difficulty: beginner
language: Python
source:
  bundle: repo.bundle
  commit: "{commit}"
tests:
  command: pytest -q --junitxml=$ARENA_JUNIT
features:
  - id: 1
    title: Subtraction
  - id: 2
    title: Multiplication
"""

GOOD_PATCH = """\
diff --git a/src/calc.py b/src/calc.py
--- a/src/calc.py
+++ b/src/calc.py
@@ -1,2 +1,5 @@
 def add(a, b):
     return a + b
+
+def sub(a, b):
+    return a - b
"""

#: The gold patch in the dataset differs from the submissions' (a copy of it is flagged).
GOLD_PATCH = GOOD_PATCH.replace("return a - b", "return a + -b")


def write_demo_task(work: Path) -> Path:
    """A task folder ``work/demo`` with a real git bundle of a two-file project and two
    features whose expected test ids are recorded; returns it."""
    repo = work / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    (repo / "src").mkdir()
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_calc.py").write_text(
        "def test_add():\n    assert add(1, 2) == 3\n"
    )
    git("add", ".", cwd=repo)
    git("commit", "-qm", "base", cwd=repo)
    commit = git("rev-parse", "HEAD", cwd=repo).strip()
    task = work / "demo"
    task.mkdir()
    git("bundle", "create", str(task / "repo.bundle"), "HEAD", cwd=repo)
    (task / "task.yaml").write_text(TASK_YAML.format(commit=commit))
    (task / "Dockerfile").write_text("ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n")
    (task / "runner.sh").write_text("#!/bin/sh\n")
    for feature, test_file in ((1, "tests/test_sub.py"), (2, "tests/test_mul.py")):
        folder = task / f"feature{feature}"
        folder.mkdir()
        (folder / "feature.md").write_text(f"Feature {feature}.\n")
        (folder / "feature.patch").write_text(GOLD_PATCH)
        (folder / "tests.patch").write_text(
            f"diff --git a/{test_file} b/{test_file}\nnew file mode 100644\n--- /dev/null\n"
            f"+++ b/{test_file}\n@@ -0,0 +1 @@\n+def test_x(): pass\n"
        )
        module = test_file.removesuffix(".py").replace("/", ".")
        (folder / "expected_tests.json").write_text(
            f'{{"fail_to_pass": ["{module}::test_x"], "pass_to_pass": []}}\n'
        )
    return task


def demo_root(root: Path, template: Path) -> Path:
    """``root`` made a repository with ``dataset/demo`` (a copy of ``template``) and an empty
    ``submissions/demo``; returns it."""
    shutil.copytree(template, root / "dataset" / "demo")
    (root / "submissions" / "demo").mkdir(parents=True)
    return root


def valid_data() -> dict:
    """A valid single-setting submission of the demo task, as YAML data."""
    return {
        "task": "demo",
        "tool": {"name": "Aider", "version": "0.50.1"},
        "models": ["gpt-4o"],
        "contributor": {"name": "Ada Example", "github": "ada-example"},
        "date": dt.date(2025, 1, 15),
        "setting": "single",
        "features": [1],
        "runs": [
            {
                "id": "run-1",
                "tokens": {"total": 52000, "prompt": 40000, "completion": 12000, "cached": 1000},
                "tool_calls": 25,
                "iterations": 3,
                "execution_time": 240.0,
                "estimated_cost": 0.21,
                "success": True,
                "patches": ["run-1.patch"],
            }
        ],
    }


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data: object) -> bool:
        return True


def submission_yaml(data: object | None = None) -> str:
    """``data`` (by default :func:`valid_data`) as submission.yaml text, written out in full
    (no YAML anchors or aliases, which the loader refuses)."""
    return yaml.dump(valid_data() if data is None else data, Dumper=_NoAliases)


def write_submission(
    root: Path,
    name: str = "good",
    *,
    data: object | None = None,
    text: str | None = None,
    patches: dict[str, str] | None = None,
) -> Path:
    """Write ``submissions/demo/<name>/`` with YAML from ``data`` (or raw ``text``)."""
    folder = root / "submissions" / "demo" / name
    folder.mkdir(parents=True, exist_ok=True)
    if text is None:
        text = submission_yaml(data)
    (folder / "submission.yaml").write_text(text, encoding="utf-8")
    for patch_name, patch_text in (patches if patches is not None else {
        "run-1.patch": GOOD_PATCH
    }).items():
        (folder / patch_name).write_text(patch_text)
    return folder
