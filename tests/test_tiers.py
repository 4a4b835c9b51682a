"""The suite's tiers (tests/support/tiers.py): the README's command runs one case of each
Docker matrix (and of each parametrised test marked ``matrix``) and no ``full`` test,
``--tier rest`` runs exactly what it leaves out, and neither loses a test; the slowest files
run first, each file's tests together."""

from __future__ import annotations

import pytest

pytest_plugins = ("pytester",)

_CONFTEST = """
from support.tiers import pytest_addoption, pytest_collection_modifyitems
"""

_MATRIX = """
import pytest
pytestmark = pytest.mark.docker

@pytest.mark.parametrize("attack", ["a", "b", "c"])
@pytest.mark.parametrize("task", ["t1", "t2"])
def test_attack(task, attack):
    pass

def test_plain():
    pass

@pytest.mark.full
def test_sweep():
    pass
"""

_UNIT = """
import pytest

@pytest.mark.parametrize("value", [1, 2, 3])
def test_cheap(value):
    pass

@pytest.mark.matrix
@pytest.mark.parametrize("payload", ["push", "tag"])
def test_payload(payload):
    pass
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nmarkers =\n    docker: d\n    full: f\n    matrix: m\n")
    pytester.makeconftest(_CONFTEST)
    pytester.makepyfile(test_matrix=_MATRIX, test_unit=_UNIT)
    return pytester


def _ran(result: pytest.RunResult) -> list[str]:
    return [line.split(" ")[0] for line in result.outlines if " PASSED" in line]


def test_the_default_tier_runs_one_case_per_docker_matrix_and_no_full_test(
        suite: pytest.Pytester) -> None:
    result = suite.runpytest("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6, deselected=7)
    assert _ran(result) == [
        "test_matrix.py::test_attack[t1-a]", "test_matrix.py::test_plain",
        "test_unit.py::test_cheap[1]", "test_unit.py::test_cheap[2]",
        "test_unit.py::test_cheap[3]", "test_unit.py::test_payload[push]"]


def test_rest_runs_exactly_what_the_default_tier_leaves_out(suite: pytest.Pytester) -> None:
    rest = suite.runpytest("-v", "-p", "no:cacheprovider", "--tier", "rest")
    rest.assert_outcomes(passed=7, deselected=6)
    assert sorted(_ran(rest)) == sorted(
        [f"test_matrix.py::test_attack[{task}-{attack}]"
         for task in ("t1", "t2") for attack in "abc" if (task, attack) != ("t1", "a")]
        + ["test_matrix.py::test_sweep", "test_unit.py::test_payload[tag]"])
    suite.runpytest("-p", "no:cacheprovider", "--tier", "all").assert_outcomes(passed=13)


def test_a_case_named_on_the_command_line_runs_in_any_tier(suite: pytest.Pytester) -> None:
    named = suite.runpytest("-v", "-p", "no:cacheprovider", "test_matrix.py::test_attack[t2-c]")
    named.assert_outcomes(passed=1)
    assert _ran(named) == ["test_matrix.py::test_attack[t2-c]"]


def test_docker_files_run_before_the_others_each_file_together(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_aaa="def test_first_by_name():\n    pass\n")
    ran = _ran(suite.runpytest("-v", "-p", "no:cacheprovider", "--tier", "all"))
    files = [nodeid.split("::")[0] for nodeid in ran]
    assert files[0] == "test_matrix.py"
    assert files == sorted(files, key=lambda f: (f != "test_matrix.py", files.index(f)))
