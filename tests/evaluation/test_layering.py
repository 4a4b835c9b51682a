"""The evaluation package stays free of Docker: sandboxes and images are passed in."""

from __future__ import annotations

import subprocess
import sys


def test_evaluation_modules_do_not_import_docker() -> None:
    code = (
        "import sys\n"
        "import arena_bot.evaluation.engine, arena_bot.evaluation.store\n"
        "print(sorted(m for m in sys.modules if m == 'docker' or m.startswith('docker.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"


def test_the_engine_loads_gitpython_only_for_merge_analysis() -> None:
    """GitPython costs tens of milliseconds at every `arena evaluate`: the engine imports it
    only when a coop run clones a task's base repository."""
    code = (
        "import sys\n"
        "import arena_bot.evaluation.engine, arena_bot.evaluation.repos\n"
        "print(sorted(m for m in sys.modules if m == 'git' or m.startswith('git.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
