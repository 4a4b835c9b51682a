"""The real CooperBench material committed under tests/data/cooperbench/real (see its
README): task folders of cooperbench/CooperBench and the upstream test folders at each task's
base commit, unpacked once per session into a temporary folder; dirty-equals task 43
imported and checked once per session (:func:`import_dirty_equals`, the
``real_dirty_equals`` fixture of tests/conftest.py)."""

from __future__ import annotations

import re
import tarfile
from dataclasses import dataclass
from pathlib import Path

from arena_bot.tasks.dataset import Dataset, TaskFolder

REAL = Path(__file__).resolve().parent.parent / "data" / "cooperbench" / "real"
TASKS_ARCHIVE = REAL / "cooperbench-tasks.tar.xz"
TREES_ARCHIVE = REAL / "upstream-tests.tar.xz"
DIRTY_EQUALS_BUNDLE = REAL / "dirty-equals.bundle"
DIRTY_EQUALS_TASK = "samuelcolvin_dirty_equals_task/task43"
#: The id dirty-equals task 43 is imported under.
DIRTY_EQUALS_ID = "dirty-equals-task43"


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


@dataclass(frozen=True)
class ImportedTask:
    """A real task imported into a dataset folder and checked (expected ids recorded)."""

    dataset: Path
    task_id: str
    check_output: str

    @property
    def task(self) -> TaskFolder:
        return Dataset(self.dataset).get(self.task_id)

    def board(self, root: Path) -> Path:
        """A fresh board folder at ``root`` whose ``dataset`` is this one (shared, read only
        but for the records ``arena dataset check`` already wrote)."""
        root.mkdir(parents=True)
        (root / "dataset").symlink_to(self.dataset, target_is_directory=True)
        return root


def dataset_of(work: Path) -> Path:
    """The dataset folder :func:`import_dirty_equals` imports into under ``work``."""
    return work / "board" / "dataset"


def import_dirty_equals(work: Path, base_image: str) -> ImportedTask:
    """dirty-equals task 43, every feature, imported as ``DIRTY_EQUALS_ID`` with its wheels
    (``arena dataset import-cooperbench``) and checked (``arena dataset check``), as a user
    runs them. The tests share one per session (the ``real_dirty_equals`` fixture)."""
    from click.testing import CliRunner

    from arena_bot.cli import main

    source = unpack(TASKS_ARCHIVE, work / "cooperbench") / DIRTY_EQUALS_TASK
    dataset = dataset_of(work)
    dataset.mkdir(parents=True)
    env = {"ARENA_CACHE": str(work / "board" / ".arena"), "ARENA_BASE_IMAGE": base_image}

    def arena(*args: str) -> str:
        result = CliRunner().invoke(main, ["--root", str(work / "board"), *args], env=env,
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    arena("dataset", "import-cooperbench", str(source), "--id", DIRTY_EQUALS_ID,
          "--source", str(DIRTY_EQUALS_BUNDLE), "--dest", str(dataset))
    checked = arena("dataset", "check", DIRTY_EQUALS_ID)
    return ImportedTask(dataset, DIRTY_EQUALS_ID, checked)
