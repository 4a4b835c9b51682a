"""Canary placement proven on every Python test file of every real CooperBench task
imported (click, jinja, dirty-equals): each feature's tests patch is applied to the upstream
tests at the task's base commit, then both canaries are placed at every insertion point of
every Python test file (all pairs of points of the file's shape), and each result must parse,
keep every test of the file with its decorators, and hold the two canaries as undecorated
tests. The file that takes the canaries is one the task's test command collects."""

from __future__ import annotations

import ast
import random
import re
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

from arena_bot.evaluation.canary_place import (
    Material,
    _body,
    _indent_of,
    _names_in,
    _render,
    _test_words,
    make_name,
    place,
    split_lines,
    spots,
)
from arena_bot.evaluation.harness import collected_paths, plan_canaries
from arena_bot.tasks.cooperbench_runner import read_test_step


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


def place_everywhere(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with a canary at every place :func:`spots` finds, all at once (insertions
    at distinct statement boundaries are independent: what proves one file's every place in
    one parse); and the ``(class, name)`` of each canary."""
    tree = ast.parse(text)
    lines = split_lines(text)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    rng = random.Random(0)
    taken = _names_in(tree, text)
    words = _test_words(tree)
    mat = Material(tree)
    inserts: dict[int, list[str]] = {}
    placed: list[tuple[str, str]] = []
    for line, kind, cls in spots(tree):
        name = make_name(rng, words, taken)
        indent = _indent_of(lines[line - 1]) if kind == "method" else ""
        block = [f"{indent}def {name}({'self' if kind == 'method' else ''}):",
                 *_body(rng, true=True, indent=indent + "    ", mat=mat)]
        inserts.setdefault(line, []).extend([*block, *([""] if kind == "method" else ["", ""])])
        placed.append((cls, name))
    return _render(lines, inserts, [], newline), placed


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


@pytest.mark.full
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


@pytest.fixture(scope="module")
def real_test_texts(real: tuple[Path, Path],
                    tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str]]:
    """Every distinct Python test file of the seven tasks, each feature's tests patch
    applied: ``(path, text)``."""
    tasks_root, trees = real
    found: dict[str, str] = {}
    for task in task_folders(tasks_root):
        for feature in sorted(task.glob("feature*")):
            work = tmp_path_factory.mktemp(f"{task.parent.name}-{task.name}-{feature.name}")
            shutil.copytree(trees / base_commit(task), work, dirs_exist_ok=True)
            subprocess.run(["git", "apply", str(feature / "tests.patch")], cwd=work,
                           check=True, capture_output=True)
            for path in sorted(work.rglob("*.py")):
                if path.name.startswith("test_") or path.name.endswith("_test.py"):
                    found.setdefault(path.read_text(encoding="utf-8"),
                                     f"{task.parent.name}/{path.relative_to(work)}")
    return [(path, text) for text, path in found.items()]


def _canary_def(placed: str, name: str, cls: str) -> ast.FunctionDef:
    tree = ast.parse(placed)
    body = tree.body if not cls else next(
        n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    return next(n for n in body if isinstance(n, ast.FunctionDef) and n.name == name)


def _run_alone(node: ast.FunctionDef) -> BaseException | None:
    """Run one canary on its own: its def alone in a module whose only global is the real
    ``pytest``; what it raised, or ``None``."""
    module = ast.Module(body=[node], type_ignores=[])
    space: dict[str, object] = {"pytest": pytest}
    exec(compile(module, "<canary>", "exec"), space)
    try:
        space[node.name](*([None] if node.args.args else []))  # type: ignore[operator]
    except BaseException as exc:
        return exc
    return None


SEEDS = range(5)


@pytest.mark.full
def test_every_canary_body_passes_or_fails_as_it_must(
        real_test_texts: list[tuple[str, str]]) -> None:
    """On every Python test file of the seven tasks, for many seeds: both canaries compile,
    run alone the passing one passes and the failing one fails with its AssertionError."""
    assert len(real_test_texts) > 50
    checked = 0
    bad: list[str] = []
    for number, (path, text) in enumerate(real_test_texts):
        for seed in (number * 1000 + k for k in SEEDS):  # other seeds in every file
            placed, chosen = place(text, seed)
            compile(placed, path, "exec")
            for role in ("pass", "fail"):
                node = _canary_def(placed, chosen[role], chosen[f"{role}_class"])
                raised = _run_alone(node)
                checked += 1
                if role == "pass" and raised is not None:
                    bad.append(f"{path} seed {seed}: the passing canary raised {raised!r}")
                if role == "fail" and not isinstance(raised, AssertionError):
                    bad.append(f"{path} seed {seed}: the failing canary gave {raised!r}")
    print(f"canary bodies: {len(real_test_texts)} files x {len(SEEDS)} seeds each, "
          f"{checked} canaries run alone, {len(bad)} wrong")
    assert not bad, bad[:5]


#: The bodies canary_place.py wrote before they were derived from the file (issue 25).
OLD_TEMPLATES = re.compile(r"result = \d+ \+ \d+\nassert result == \d+|value = '[a-z]+'\n"
                           r"assert len\(value\) == \d+|items = \[[\d, ]*\]\nassert min")


def _imported(tree: ast.Module) -> set[str]:
    return {(a.asname or a.name).split(".")[0] for n in tree.body
            if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names} - {"pytest"}


def _tells(node: ast.FunctionDef, imported: set[str], low: int, high: int) -> dict[str, bool]:
    """What a forger's classifier says of one test function: each tell, true when it
    calls the test a canary."""
    called = {n.func.id for n in ast.walk(node)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    plain = all(isinstance(s, (ast.Assign, ast.Assert)) for s in node.body)
    try:
        raised = _run_alone(node)
        alone = not isinstance(raised, (NameError, AttributeError, TypeError)) and not (
            raised is not None and not isinstance(raised, AssertionError))
    except Exception:
        alone = False
    return {
        "old template bodies": bool(OLD_TEMPLATES.search(
            "\n".join(ast.unparse(s) for s in node.body))),
        "two statements: assign, assert": (len(node.body) == 2 and plain),
        "calls no imported name": not (called & imported),
        "uses no imported name": not (used & imported),
        "only assignments and asserts": plain,
        "length outlier (outside the file's 5-95%)": not low <= len(node.body) <= high,
        "runs alone with builtins only": alone,
    }


@pytest.mark.full
def test_a_forgers_classifiers_against_the_canaries(
        real_test_texts: list[tuple[str, str]]) -> None:
    """How often simple classifiers an attacker would write single out the canaries and how
    often they take a real test for one (printed: the methodology page's figures). The
    templates' tells are gone; what is left is said on the methodology page."""
    hits: dict[str, list[int]] = {}
    real = canaries = 0
    for _path, text in real_test_texts:
        tree = ast.parse(text)
        imported = _imported(tree)
        tests = [n for n in tree.body if isinstance(n, ast.FunctionDef)
                 and n.name.startswith("test")] + [
            c for n in tree.body if isinstance(n, ast.ClassDef) and n.name.startswith("Test")
            for c in n.body if isinstance(c, ast.FunctionDef) and c.name.startswith("test")]
        if not tests:
            continue
        lengths = sorted(len(t.body) for t in tests)
        low, high = lengths[len(lengths) // 20], lengths[(len(lengths) * 19) // 20]
        for test in tests:
            real += 1
            for tell, said in _tells(test, imported, low, high).items():
                hits.setdefault(tell, [0, 0])[0] += said
        for seed in range(2):
            placed, chosen = place(text, seed)
            for role in ("pass", "fail"):
                node = _canary_def(placed, chosen[role], chosen[f"{role}_class"])
                canaries += 1
                for tell, said in _tells(node, imported, low, high).items():
                    hits.setdefault(tell, [0, 0])[1] += said
    print(f"forger's classifiers: {real} real tests, {canaries} canaries")
    for tell, (on_real, on_canaries) in hits.items():
        print(f"  {tell}: {on_canaries / canaries:.1%} of canaries, {on_real / real:.1%} "
              f"of real tests")
    assert hits["old template bodies"][1] == 0
    assert hits["two statements: assign, assert"][1] / canaries < 0.5
    assert hits["length outlier (outside the file's 5-95%)"][1] / canaries < 0.2
