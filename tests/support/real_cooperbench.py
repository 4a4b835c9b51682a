"""The real CooperBench material committed under tests/data/cooperbench/real (see its
README): task folders of cooperbench/CooperBench and the upstream test folders at each task's
base commit, unpacked once per session into a temporary folder."""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

REAL = Path(__file__).resolve().parent.parent / "data" / "cooperbench" / "real"
TASKS_ARCHIVE = REAL / "cooperbench-tasks.tar.xz"
TREES_ARCHIVE = REAL / "upstream-tests.tar.xz"
DIRTY_EQUALS_BUNDLE = REAL / "dirty-equals.bundle"
DIRTY_EQUALS_TASK = "samuelcolvin_dirty_equals_task/task43"


def unpack(archive: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    return dest


def task_folders(root: Path) -> list[Path]:
    """Every ``<repo>_task/task<N>`` folder under ``root``."""
    return sorted(p for p in root.glob("*_task/task*") if p.is_dir())


def base_commit(task: Path) -> str:
    match = re.search(r"git checkout ([0-9a-f]{40})", (task / "Dockerfile").read_text())
    assert match, task
    return match.group(1)
