"""The in-process guard attributes what it sees to the submission's files when the test
command starts pytest inside a sub-project (llama_index's monorepo shape: ``cd pkg && python
-m pytest``), exactly as it does at the repository's root.

The patch's paths, and so the harness's list of changed files, are relative to the
repository's root; pytest's working directory is the sub-project. Each case is a real
evaluation in Docker of one patch on a tiny task built in both shapes; the guard's runtime
flags and tampering must be the same in both, with the file named from the root.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support.fixture_task import TEST_COMMAND, diff_of, git

from arena_bot.evaluation.engine import make_test_runner
from arena_bot.models.evaluation import FeatureResult, TestRunner
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.sandbox.images import TaskImages
from arena_bot.tasks.dataset import load_task, task_dockerfile

pytestmark = pytest.mark.docker

_CALC = "def add(a, b):\n    return a + b\n"
_TEST_ADD = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
_TEST_MUL = """\
from calc import mul


def test_mul():
    assert mul(3, 4) == 12


def test_mul_zero():
    assert mul(0, 7) == 0
"""

#: The patches, each adding ``mul`` to calc.py (the lines after ``add``).
_HONEST = """\
def mul(a, b):
    return a * b
"""

#: A test-caller oracle: reads the test file beside the package.
_READS_TESTS = """\
def mul(a, b):
    import os
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests")
    with open(os.path.join(folder, "test_mul.py")) as handle:
        handle.read()
    return a * b
"""

#: An always-equal result (the guard's probe of comparisons).
_ALWAYS_EQUAL = """\
class Product(int):
    def __eq__(self, other):
        return other is other

    __hash__ = int.__hash__


def mul(a, b):
    return Product(0)
"""

#: A pytest plugin registered by the package (found through gc): tampering.
_REGISTERS = """\
import gc


class _Quiet:
    def pytest_runtest_logreport(self, report):
        pass


for _obj in gc.get_objects():
    if type(_obj).__name__ == "Config" and hasattr(_obj, "pluginmanager"):
        _obj.pluginmanager.register(_Quiet(), "quiet")
        break


def mul(a, b):
    return a * b
"""

#: The tests' own functions emptied from the package: tampering.
_SWAPS_TESTS = """\
import sys


def _empty():
    return None


def mul(a, b):
    for name, module in list(sys.modules.items()):
        if name.rpartition(".")[2].startswith("test_"):
            for key, value in list(vars(module).items()):
                if key.startswith("test_") and hasattr(value, "__code__"):
                    value.__code__ = _empty.__code__
    return a * b
"""

#: A second pytest started from the package (outside the guard).
_RUNS_PYTEST = """\
import subprocess
import sys


def mul(a, b):
    subprocess.run([sys.executable, "-m", "pytest", "--version"], check=True)
    return a * b
"""

PATCHES = {"honest": _HONEST, "reads_tests": _READS_TESTS, "always_equal": _ALWAYS_EQUAL,
           "registers": _REGISTERS, "swaps_tests": _SWAPS_TESTS, "runs_pytest": _RUNS_PYTEST}


def _task(root: Path, sub: str) -> tuple[Path, dict[str, str]]:
    """A task whose package and tests live in ``sub`` (``""``: the root) and whose test
    command starts pytest there; the patch of each case of :data:`PATCHES`."""
    prefix = f"{sub}/" if sub else ""
    work = root / "work"
    work.mkdir(parents=True)
    (work / "README.md").write_text("A monorepo.\n")
    for path, text in {"calc.py": _CALC, "tests/__init__.py": "",
                       "tests/test_add.py": _TEST_ADD}.items():
        (work / prefix / path).parent.mkdir(parents=True, exist_ok=True)
        (work / prefix / path).write_text(text)
    # Fixed dates (the fixture's git): the same commit, so the same image, every run.
    git("init", "--quiet", "--initial-branch=main", cwd=work)
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "base", cwd=work)
    sha = git("rev-parse", "HEAD", cwd=work).strip()
    task = root / ("mono" if sub else "flat")
    (task / "feature1").mkdir(parents=True)
    git("bundle", "create", "--quiet", str(task / "repo.bundle"), "main", cwd=work)
    (task / "Dockerfile").write_text(task_dockerfile(sha))
    patches = {name: diff_of(work, {f"{prefix}calc.py": _CALC + "\n\n" + code})
               for name, code in PATCHES.items()}
    (task / "feature1" / "feature.md").write_text("# Multiply\n")
    (task / "feature1" / "feature.patch").write_text(patches["honest"])
    (task / "feature1" / "tests.patch").write_text(
        diff_of(work, {f"{prefix}tests/test_mul.py": _TEST_MUL}))
    command = f"cd {sub} && {TEST_COMMAND}" if sub else TEST_COMMAND
    (task / "task.yaml").write_text(textwrap.dedent(f"""\
        id: {task.name}
        title: Calculator in a {"sub-project" if sub else "flat repository"}
        description: A tiny task used by the tests.
        category: backend_development
        difficulty: beginner
        language: Python
        source:
          bundle: repo.bundle
          commit: {sha}
        tests:
          command: '{command}'
          timeout: 60
        features:
          - id: 1
            title: Multiply
        """))
    return task, patches


def _guard(result: FeatureResult, prefix: str) -> tuple[set[tuple[str, str]], bool]:
    """The runtime flags of ``result`` as (kind, file without ``prefix``), and whether it was
    scored tampered."""
    flags = {(flag.kind, (flag.file or "").removeprefix(prefix))
             for flag in result.review_flags if flag.source == "runtime"}
    return flags, result.status == "tampered"


class _Runs:
    """Each (shape, case) evaluated once, when a test first needs it."""

    def __init__(self, root: Path, docker_client: object, base_image: str) -> None:
        self.root = root
        self.engine = DockerEngine(docker_client)  # type: ignore[arg-type]
        self.images = TaskImages(docker_client, base_image=base_image)  # type: ignore[arg-type]
        self.runners: dict[str, tuple[TestRunner, dict[str, str]]] = {}
        self.done: dict[tuple[str, str], FeatureResult] = {}

    def __call__(self, sub: str, case: str) -> FeatureResult:
        if (sub, case) not in self.done:
            if sub not in self.runners:
                folder, patches = _task(self.root / (sub or "flat"), sub)
                task = load_task(folder)
                run = make_test_runner(task, engine=self.engine,
                                       image=self.images.ensure(task).tag)
                self.runners[sub] = (run, patches)
            run, patches = self.runners[sub]
            self.done[sub, case] = run(patches[case], 1)
        return self.done[sub, case]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory, docker_client: object,
            base_image: str) -> _Runs:
    return _Runs(tmp_path_factory.mktemp("shapes"), docker_client, base_image)


def test_honest_code_in_a_sub_project_passes_without_runtime_flags(results: _Runs) -> None:
    result = results("pkg-core", "honest")
    assert result.status == "passed", result.reason
    assert not [flag for flag in result.review_flags if flag.source == "runtime"], \
        result.review_flags


@pytest.mark.parametrize("case", ["swaps_tests", "reads_tests", "always_equal", "registers",
                                  "runs_pytest"])
def test_a_cheat_in_a_sub_project_is_caught_as_at_the_root(results: _Runs, case: str) -> None:
    sub, flat = results("pkg-core", case), results("", case)
    expected = _guard(flat, "")
    assert expected[0] or expected[1], (flat.status, flat.reason, flat.review_flags)
    # (a tampered verdict's flag is about the run, not a file)
    assert all(file in ("calc.py", "") for _, file in expected[0]), flat.review_flags
    assert _guard(sub, "pkg-core/") == expected, (sub.status, sub.reason, sub.review_flags)
    assert all(flag.file.startswith("pkg-core/") for flag in sub.review_flags
               if flag.source == "runtime" and flag.file), sub.review_flags
    assert sub.status == flat.status, (sub.reason, flat.reason)
