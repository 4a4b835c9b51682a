"""Shadowing pytest through the task's own ``PYTHONPATH`` (real Docker).

Real runner scripts put the repository on the path (``PYTHONPATH=src:$PYTHONPATH``, or
``.``). PYTHONSAFEPATH only keeps the working directory off it, so a patch adding a
``pytest/`` package there was imported by ``python -m pytest`` before the harness's plugin,
and could adjust pytest before the plugin's snapshot. The harness's start-up gate
(``/arena/sitecustomize.py``) holds those entries back until the plugin is loaded.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.workbench import Workbench

from arena_bot.evaluation.engine import make_test_runner
from arena_bot.models.evaluation import TestRunner
from arena_bot.tasks.dataset import TaskFolder, load_task

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
SHADOW = Path(__file__).parent / "shadow"
TASK = "slugkit-options"


def _variant(tmp: Path, prefix: str) -> TaskFolder:
    """The sample task with its test command run as ``prefix python3 -m pytest ...``."""
    folder = tmp / TASK
    shutil.copytree(ROOT / "dataset" / TASK, folder)
    spec = folder / "task.yaml"
    text = spec.read_text()
    assert "command: 'python3 -m pytest" in text
    spec.write_text(text.replace("command: 'python3 -m pytest", f"command: '{prefix}", 1))
    return load_task(folder)


@pytest.fixture(scope="module")
def on_path(tmp_path_factory: pytest.TempPathFactory, engine, task_images
            ) -> tuple[TaskFolder, TestRunner]:
    task = _variant(tmp_path_factory.mktemp("on-path"),
                    "PYTHONPATH=.:$PYTHONPATH python3 -m pytest")
    return task, make_test_runner(task, engine=engine, image=task_images.ensure(task).tag)


def test_a_pytest_package_on_the_tasks_pythonpath_is_never_imported(
    on_path: tuple[TaskFolder, TestRunner], tmp_path: Path
) -> None:
    task, run = on_path
    attack = Workbench(task, tmp_path).diff({
        "pytest/__init__.py": (SHADOW / "pytest_on_pythonpath.py").read_text()})
    for feature_id in task.spec.feature_ids():
        result = run(attack, feature_id)
        assert result.status == "failed", (feature_id, result.status, result.reason)
        # the real pytest ran the real tests: the feature's tests fail as they should
        assert result.tests_failed + result.tests_errored > 0
        assert result.review_flags  # and the patch text is flagged for what it reaches into


def test_the_gold_patch_still_sees_its_pythonpath(
    on_path: tuple[TaskFolder, TestRunner],
) -> None:
    # The held entries go back once the plugin is loaded: `import slugkit` works through
    # PYTHONPATH=. (the safe path keeps the working directory off sys.path on its own).
    task, run = on_path
    for feature_id in task.spec.feature_ids():
        gold = task.feature(feature_id).gold_patch.read_text()
        result = run(gold, feature_id)
        assert result.status == "passed", (feature_id, result.status, result.reason)


def test_a_run_without_the_gate_is_tampered(
    tmp_path_factory: pytest.TempPathFactory, engine, task_images,
) -> None:
    # Another sitecustomize ahead of the harness's on the path (here planted by the test
    # command itself) means the gate never ran: nothing held the path back, so the verdict
    # cannot be trusted even for the gold patch.
    task = _variant(tmp_path_factory.mktemp("no-gate"),
                    "mkdir -p /tmp/sc && : > /tmp/sc/sitecustomize.py && "
                    "PYTHONPATH=/tmp/sc:$PYTHONPATH python3 -m pytest")
    run = make_test_runner(task, engine=engine, image=task_images.ensure(task).tag)
    result = run(task.feature(1).gold_patch.read_text(), 1)
    assert result.status == "tampered", (result.status, result.reason)
    assert "start-up gate did not run" in (result.reason or "")
