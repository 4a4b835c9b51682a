"""Canary placement proven on every Python test file of every real CooperBench task
imported (click, jinja, dirty-equals): each feature's tests patch is applied to the upstream
tests at the task's base commit, then both canaries are placed at every insertion point of
every Python test file (all pairs of points of the file's shape), and each result must parse,
keep every test of the file with its decorators, and hold the two canaries as undecorated
tests. The file that takes the canaries is one the task's test command collects."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest
from support.real_cooperbench import (
    TASKS_ARCHIVE,
    TREES_ARCHIVE,
    base_commit,
    task_folders,
    unpack,
)

from arena_bot.cooperbench_runner import read_test_step
from arena_bot.evaluation.canary_place import place, place_everywhere, spots
from arena_bot.evaluation.harness import collected_paths, plan_canaries


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("real")
    return unpack(TASKS_ARCHIVE, root / "tasks"), unpack(TREES_ARCHIVE, root / "trees")


def shape(tree: ast.Module, skip: set[str]) -> list[tuple[str, int, int]]:
    """Every def/class of the file: name, decorator count, nesting depth."""
    found: list[tuple[str, int, int]] = []

    def walk(body: list[ast.stmt], depth: int) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name not in skip:
                    found.append((node.name, len(node.decorator_list), depth))
                walk(node.body, depth + 1)

    walk(tree.body, 0)
    return found


def bad_placement(text: str, before: list[tuple[str, int, int]], first: int,
                  second: int) -> str | None:
    """Why placing the canaries at spots ``first`` and ``second`` is wrong, or ``None``."""
    placed, chosen = place(text, first * 1000 + second, at=(first, second))
    try:
        after = ast.parse(placed)
    except SyntaxError as exc:
        return f"does not parse: {exc}"
    names = {chosen["pass"], chosen["fail"]}
    if shape(after, names) != before:
        return "a test of the file lost a decorator or moved"
    for role in ("pass", "fail"):
        cls = chosen[f"{role}_class"]
        body = after.body if not cls else next(
            n.body for n in after.body if isinstance(n, ast.ClassDef) and n.name == cls)
        hits = [n for n in body if isinstance(n, ast.FunctionDef) and n.name == chosen[role]]
        if len(hits) != 1 or hits[0].decorator_list:
            return f"the {role} canary is not one undecorated test"
    return None


def bad_everywhere(text: str, before: list[tuple[str, int, int]]) -> str | None:
    """Why a canary at every insertion point of ``text`` at once is wrong, or ``None``."""
    placed, canaries = place_everywhere(text)
    try:
        after = ast.parse(placed)
    except SyntaxError as exc:
        return f"does not parse: {exc}"
    names = {name for _, name in canaries}
    if shape(after, names) != before:
        return "a test of the file lost a decorator or moved"
    for cls, name in canaries:
        body = after.body if not cls else next(
            n.body for n in after.body if isinstance(n, ast.ClassDef) and n.name == cls)
        hits = [n for n in body if isinstance(n, ast.FunctionDef) and n.name == name]
        if len(hits) != 1 or hits[0].decorator_list:
            return f"the canary {name} is not one undecorated test of {cls or 'the module'}"
    return None


def test_canary_placement_on_every_real_test_file(real: tuple[Path, Path],
                                                  tmp_path: Path) -> None:
    tasks_root, trees = real
    tasks = task_folders(tasks_root)
    assert len(tasks) == 7
    files = points = placements = 0
    bad: list[str] = []
    seen: set[str] = set()  # features share most files: each distinct content once
    for task in tasks:
        command = read_test_step(task / "runner.sh").command
        named = collected_paths(command)
        assert named, command
        for feature in sorted(task.glob("feature*")):
            work = tmp_path / f"{task.parent.name}-{task.name}-{feature.name}"
            shutil.copytree(trees / base_commit(task), work)
            subprocess.run(["git", "apply", str(feature / "tests.patch")], cwd=work,
                           check=True, capture_output=True)
            # The canaries go into a file the command collects.
            plan = plan_canaries((feature / "tests.patch").read_text(), command)
            assert plan is not None and set(plan.targets) <= set(named), (feature, plan)
            for path in sorted(work.rglob("*.py")):
                if not (path.name.startswith("test_") or path.name.endswith("_test.py")):
                    continue
                text = path.read_text(encoding="utf-8")
                if text in seen:
                    continue
                seen.add(text)
                tree = ast.parse(text)
                before = shape(tree, set())
                count = len(spots(tree))
                # Every point at once (one parse proves them all), then the harness's own
                # two-canary placement at a few drawn points.
                files += 1
                points += count
                placements += 1
                why = bad_everywhere(text, before)
                if why:
                    bad.append(f"{path.relative_to(work)}: {why}")
                for first, second in {(0, count - 1), (count // 2, count // 3)} if count else ():
                    placements += 1
                    why = bad_placement(text, before, first, second)
                    if why:
                        bad.append(f"{path.relative_to(work)} spots {first},{second}: {why}")
    print(f"canary placement: {len(tasks)} tasks, {files} test files, {points} insertion "
          f"points, {placements} placements checked, {len(bad)} bad")
    assert files > 50 and points > 1000
    assert not bad, bad[:5]


def test_the_target_is_collected_even_when_the_patch_starts_with_another_file() -> None:
    # click task 2956 feature 7's shape: the patch's first file is not collected.
    patch = "".join(
        f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-x\n+y\n"
        for p in ("tests/test_basic.py", "tests/test_options.py"))
    command = "python -m pytest tests/test_arguments.py tests/test_options.py -v"
    plan = plan_canaries(patch, command)
    targets = set(plan.targets) if plan is not None else set()
    assert targets == {"tests/test_options.py"}
    assert PurePosixPath("tests/test_basic.py").name not in {PurePosixPath(t).name
                                                             for t in targets}
