"""Pytest runs locked down (issue 8, "what to build"): plugin autoload off, no cache provider,
rootdir and confcutdir set by the harness. Checked in a real sandbox of a sample task, with
the hostile files put in place directly (the patch checks would refuse them first), and
each time a control run without the lock-down showing the attack works there."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_bot.evaluation.harness import HARNESS_DIR, LOCKED_DOWN_ENV, REPO_DIR
from arena_bot.evaluation.stream import packaged
from arena_bot.sandbox.base import SandboxLimits
from arena_bot.tasks.dataset import Dataset

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
TASK = Dataset(ROOT / "dataset").all()[0]

_CLEAR_ITEMS = "def pytest_collection_modifyitems(items):\n    items.clear()\n"
#: A plugin a pip-installed package would register, found because the repository is on the
#: path of `python -m pytest`; and a conftest.py above the repository.
_PLANT = {
    f"{REPO_DIR}/evil-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
    f"{REPO_DIR}/evil-1.0.dist-info/entry_points.txt": "[pytest11]\nevil = evilplugin\n",
    f"{REPO_DIR}/evilplugin.py": _CLEAR_ITEMS,
}
_ABOVE = {"/workspace/conftest.py": _CLEAR_ITEMS}


def _run(sandbox, *, env: dict[str, str], args: str = "") -> str:
    result = sandbox.exec(["sh", "-c", f"python3 -m pytest -q {args} tests 2>&1; echo exit=$?"],
                          timeout=120, env=env, workdir=REPO_DIR, user="tester")
    return result.output


def _plant(sandbox, files: dict[str, str]) -> None:
    for path, text in files.items():
        made = sandbox.exec(["sh", "-c", 'mkdir -p "$(dirname "$0")" && printf %s "$1" > "$0"',
                             path, text], timeout=30)
        assert made.exit_code == 0, made.output


#: pytest < 8 looked for conftest.py files up to the file system's root when the repository
#: has no ini file; pytest 8 (the pinned one) stops at the rootdir by itself. The control run
#: asks for the old search so that it shows the planted file acting on any pytest version a
#: task may install; the locked run keeps the task's own command line.
_OLD_SEARCH = "--confcutdir=/"


@pytest.mark.parametrize(("planted", "control_args"), [(_PLANT, ""), (_ABOVE, _OLD_SEARCH)],
                         ids=["pytest11-plugin", "conftest-above"])
def test_planted_plugins_do_not_load_under_the_lock_down(planted, control_args, engine,
                                                         task_images) -> None:
    image = task_images.ensure(TASK).tag
    with engine.open(image, limits=SandboxLimits()) as sandbox:
        _plant(sandbox, planted)
        sandbox.write_files({"arena_stream.py": packaged("arena_stream.py")}, directory=HARNESS_DIR)
        control = _run(sandbox, env={"PYTHONDONTWRITEBYTECODE": "1"}, args=control_args)
        locked = _run(sandbox, env=dict(LOCKED_DOWN_ENV))
    assert "exit=5" in control and " passed" not in control, control  # the attack works
    assert " passed" in locked, locked
    assert "arena-result" in locked  # the harness's own plugin is the one that loads
    assert "exit=5" not in locked


def test_the_tester_cannot_write_the_repository(engine, task_images) -> None:
    image = task_images.ensure(TASK).tag
    with engine.open(image, limits=SandboxLimits()) as sandbox:
        attempt = sandbox.exec(
            ["sh", "-c", "for f in tests/*.py conftest.py /workspace/x; do "
             "(echo x >> \"$f\") 2>/dev/null && echo WROTE $f; done; echo done"],
            timeout=30, workdir=REPO_DIR, user="tester",
        )
    assert "WROTE" not in attempt.output and "done" in attempt.output, attempt.output


def test_pytest_settings_are_compared_on_the_patched_tree(engine, task_images) -> None:
    """The in-sandbox collection of before/after texts feeds the parsed comparison: a
    pytest section written into the patched tree is found; a harmless edit is not."""
    from arena_bot.evaluation.pytest_config import changed_settings, collect_command

    image = task_images.ensure(TASK).tag
    command = collect_command(TASK.spec.source.commit)
    with engine.open(image, limits=SandboxLimits()) as sandbox:
        untouched = sandbox.exec(command, timeout=60, workdir=REPO_DIR)
        harmless = sandbox.exec(["sh", "-c", "printf '\\n# a comment\\n' >> pyproject.toml"],
                                timeout=30, workdir=REPO_DIR)
        assert harmless.exit_code == 0, harmless.output
        commented = sandbox.exec(command, timeout=60, workdir=REPO_DIR)
        hostile = sandbox.exec(
            ["sh", "-c", "printf '[tool.\"\\\\u0070ytest\".ini_options]\\npythonpath = [\"x\"]\\n'"
             " >> pyproject.toml"], timeout=30, workdir=REPO_DIR)
        assert hostile.exit_code == 0, hostile.output
        changed = sandbox.exec(command, timeout=60, workdir=REPO_DIR)
    assert untouched.output.strip() == "{}"
    assert '"pyproject.toml"' in commented.output
    assert changed_settings(commented.output) == []
    (change,) = changed_settings(changed.output)
    assert change.file == "pyproject.toml" and change.detail == "adds pytest settings"
