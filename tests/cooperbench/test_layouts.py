"""Real CooperBench-shaped tasks in src/ and flat layouts, with setuptools, hatchling or
flit_core as build backend or with no packaging at all, import unchanged, and through the real
``arena dataset check`` in Docker, offline, each feature's tests fail on the bare base and pass
with its gold patch; without the import's install step they cannot
(the ModuleNotFoundError that used to end every evaluation as ``no_tests``)."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from support.cooperbench_tasks import (
    BACKENDS,
    TASK7,
    assert_gold_checked,
    invoke,
    make_task,
)

from arena_bot.tasks.cooperbench import read_features


def test_titles_lose_cooperbench_markdown(tmp_path: Path) -> None:
    task = tmp_path / "t"
    shutil.copytree(TASK7, task)
    (task / "feature1" / "feature.md").write_text("**Title**: Add whisper()\n\nbody\n")
    (task / "feature2" / "feature.md").write_text("# **Feature**: count_words()\n")
    assert read_features(task) == {1: "Add whisper()", 2: "count_words()"}


def test_id_said_permissions_and_force(tmp_path: Path) -> None:
    """(Dependencies are not resolved: the package index is not what this is about.)"""
    upstream, task = make_task(tmp_path, layout="src", backend="setuptools")
    dest = tmp_path / "dataset"
    dest.mkdir(mode=0o755)
    first = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                   "--dest", str(dest), "--no-wheels")
    assert first.exit_code == 0, first.output
    assert "task id textkit-task3" in first.output and "--id" in first.output
    imported = dest / "textkit-task3"
    assert stat.S_IMODE(imported.stat().st_mode) == 0o755
    assert stat.S_IMODE((imported / "task.yaml").stat().st_mode) == 0o644
    again = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                   "--dest", str(dest), "--no-wheels")
    assert again.exit_code == 2 and "already exists" in again.output
    assert "--force" in again.output
    forced = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest), "--force", "--no-wheels")
    assert forced.exit_code == 0 and "replaced the existing task" in forced.output
    assert sorted(p.name for p in dest.iterdir()) == ["textkit-task3"]


@pytest.mark.docker
@pytest.mark.full
@pytest.mark.parametrize(("layout", "backend"),
                         [(layout, backend) for layout in ("src", "flat")
                          for backend in (*BACKENDS, "none")])
def test_layouts_pass_gold_offline(layout: str, backend: str, tmp_path: Path,
                                   base_image: str) -> None:
    upstream, task = make_task(tmp_path, layout=layout, backend=backend)
    dest = tmp_path / "root" / "dataset"
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest), "--id", f"tk-{layout}-{backend.replace('_', '')}")
    assert result.exit_code == 0, result.output
    check = invoke("--root", str(dest.parent), "dataset", "check", "--repeat", "1",
                   "--base-image", base_image)
    assert check.exit_code == 0, check.output
    assert "ModuleNotFoundError" not in check.output
    assert_gold_checked(check.output, dest / f"tk-{layout}-{backend.replace('_', '')}")


@pytest.mark.docker
@pytest.mark.full
def test_src_layout_without_the_install_step_fails(tmp_path: Path, base_image: str) -> None:
    """The same task with the import's install step cut from its Dockerfile: gold fails."""
    from arena_bot.tasks.cooperbench import install_steps

    upstream, task = make_task(tmp_path, layout="src", backend="setuptools")
    dest = tmp_path / "root" / "dataset"
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest), "--id", "tk-bare")
    assert result.exit_code == 0, result.output
    dockerfile = dest / "tk-bare" / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text().replace(install_steps(), ""))
    check = invoke("--root", str(dest.parent), "dataset", "check", "--repeat", "1",
                   "--base-image", base_image)
    assert check.exit_code == 1, check.output
    assert "did not pass" in check.output
    assert "ModuleNotFoundError: No module named 'textkit'" in check.output
