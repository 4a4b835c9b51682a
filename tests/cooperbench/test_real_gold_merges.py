"""The merge analysis on real agents' work, against CooperBench's own verdicts: every pair of
gold feature patches of five real tasks (click 2800 and 2956, jinja 1559 and 1621,
dirty-equals 43: 175 pairs, 91 that conflict and 84 that merge cleanly) merged by
:func:`merge_patches` must conflict exactly where CooperBench's ``scripts/
check_gold_conflicts.py`` found a conflict (its ``dataset/gold_conflict_report.json``,
``gold-conflicts.json`` here; see tests/data/cooperbench/real/README.md).

The base of each click and jinja task is the upstream files its gold patches touch, at the
task's base commit (``gold-merge-bases.tar.xz``): a merge reads no other file. dirty-equals
merges on its committed bundle, whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.gitrepo import commit_folder, git
from support.real_cooperbench import (
    DIRTY_EQUALS_BUNDLE,
    REAL,
    TASKS_ARCHIVE,
    base_commit,
    unpack,
)

from arena_bot.merge.gitmerge import merge_patches

#: CooperBench's verdict on each gold pair: {"repo", "task_id", "f1", "f2", "has_conflict"}.
PAIRS = json.loads((REAL / "gold-conflicts.json").read_text(encoding="utf-8"))
BASES_ARCHIVE = REAL / "gold-merge-bases.tar.xz"

pytestmark = pytest.mark.full  # 175 merges, about 40 s here: CI's --tier rest


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """``<repo>/task<N>`` -> (a git repository, the commit the patches apply to)."""
    root = tmp_path_factory.mktemp("gold")
    tasks = unpack(TASKS_ARCHIVE, root / "tasks")
    trees = unpack(BASES_ARCHIVE, root / "trees")
    found: dict[str, tuple[Path, str]] = {}
    for tree in sorted(trees.glob("*_task/task*")):
        found[f"{tree.parent.name}/{tree.name}"] = (tree, commit_folder(tree))
    clone = root / "dirty-equals"
    git("clone", "-q", str(DIRTY_EQUALS_BUNDLE), str(clone), cwd=root)
    dirty = "samuelcolvin_dirty_equals_task/task43"
    found[dirty] = (clone, base_commit(tasks / dirty))
    found["tasks"] = (tasks, "")
    return found


@pytest.mark.parametrize("task", sorted({f"{p['repo']}/task{p['task_id']}" for p in PAIRS}))
def test_gold_pairs_conflict_where_cooperbench_found_a_conflict(
        task: str, bases: dict[str, tuple[Path, str]]) -> None:
    repo, commit = bases[task]
    folder = bases["tasks"][0] / task
    pairs = [p for p in PAIRS if f"{p['repo']}/task{p['task_id']}" == task]
    assert pairs
    differ = []
    for pair in pairs:
        merged = merge_patches(
            base_repo=repo, base_commit=commit,
            patch1=(folder / f"feature{pair['f1']}" / "feature.patch").read_text(),
            patch2=(folder / f"feature{pair['f2']}" / "feature.patch").read_text())
        assert merged.agent1.applied and merged.agent2.applied, (pair, merged)
        expected = "conflicts" if pair["has_conflict"] else "clean"
        if merged.status != expected:
            differ.append((pair["f1"], pair["f2"], merged.status, expected))
        elif expected == "conflicts":
            assert merged.details.conflict_sections > 0 and merged.conflicted_files
    assert differ == [], f"{task}: (f1, f2, ours, CooperBench's) {differ}"
