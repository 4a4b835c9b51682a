"""The layer contracts in pyproject.toml ([tool.importlinter]) hold, and would catch a breach.

No import points up the layers (cli, app, site | bot, scoring, evaluation, merge, sandbox,
intake, tasks, core, models) and every top-level module has its layer; validation, scoring
and rendering never drive Docker, git or GitHub. `lint-imports` (import-linter) checks direct
and indirect imports, including imports inside functions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = str(Path(sys.executable).with_name("lint-imports"))


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([LINT, "--no-cache"], cwd=root, capture_output=True, text=True,
                          env=env, check=False)


def _copy_package(dest: Path) -> None:
    """The package and its contracts, to plant a breach in."""
    shutil.copytree(ROOT / "arena_bot", dest / "arena_bot",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")


def test_the_package_keeps_its_layers() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_an_indirect_import_of_docker_from_scoring_is_caught(tmp_path: Path) -> None:
    _copy_package(tmp_path)
    # Scoring reaches the sandbox through a helper, inside a function: still a breach.
    (tmp_path / "arena_bot" / "scoring" / "sneaky.py").write_text(
        "def helper():\n    from arena_bot.sandbox import docker as engine\n    return engine\n"
    )
    result = _lint(tmp_path)
    assert result.returncode == 1, result.stdout
    assert "Scoring imports no Docker, git or GitHub BROKEN" in result.stdout
    assert "arena_bot.scoring.sneaky" in result.stdout



def test_an_import_up_the_layers_a_module_without_a_layer_and_docker_outside_sandbox_are_caught(
    tmp_path: Path,
) -> None:
    _copy_package(tmp_path)
    # Task handling reaches up into intake, inside a function: a breach of the layers.
    (tmp_path / "arena_bot" / "tasks" / "sneaky.py").write_text(
        "def helper():\n    from arena_bot.intake import patches\n    return patches\n"
    )
    # A module dropped at the top of the package, in no layer.
    (tmp_path / "arena_bot" / "loose.py").write_text("X = 1\n")
    # A use case driving Docker itself instead of through sandbox/.
    (tmp_path / "arena_bot" / "app" / "sneaky.py").write_text("import docker\n")
    result = _lint(tmp_path)
    assert result.returncode == 1, result.stdout
    assert "No import points up the layers BROKEN" in result.stdout
    assert "arena_bot.tasks.sneaky -> arena_bot.intake.patches" in result.stdout
    assert "- arena_bot.loose" in result.stdout
    assert "Only sandbox imports docker-py BROKEN" in result.stdout
    assert "arena_bot.app.sneaky -> docker" in result.stdout


def test_a_command_reaching_past_app_into_the_bot_is_caught(tmp_path: Path) -> None:
    _copy_package(tmp_path)
    # A command doing a use case's work itself: the bot's unit planning, inside a function.
    (tmp_path / "arena_bot" / "cli" / "sneaky.py").write_text(
        "def helper():\n    from arena_bot.bot.plan import units_for\n    return units_for\n"
    )
    result = _lint(tmp_path)
    assert result.returncode == 1, result.stdout
    assert "Commands reach the bot and the merge analysis through app/ BROKEN" in result.stdout
    assert "arena_bot.cli.sneaky -> arena_bot.bot.plan" in result.stdout
