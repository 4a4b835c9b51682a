"""Canary placement (``canary_place.py``) and the ids it is judged by (pure)."""

from __future__ import annotations

import ast

import pytest

from arena_bot.evaluation.canary_place import choose_target, place, spots
from arena_bot.evaluation.harness import collected_paths, plan_canaries
from arena_bot.evaluation.junit import JUnitReport
from arena_bot.evaluation.stream import junit_id
from arena_bot.evaluation.verdict import Canaries, decide, split_case
from arena_bot.models.evaluation import TestCaseResult
from arena_bot.models.task import ExpectedTests

DECORATED = '''import pytest


@pytest.mark.parametrize(
    "value",
    ["a", "b"],
)
def test_prompt_default(value):
    assert value


class TestPager:
    @pytest.mark.skipif(
        True, reason="Windows only"
    )
    def test_echo_via_pager(self):
        pass

    def test_pager_color(self):
        pass


@pytest.mark.skipif(True, reason="x")
class TestSkipped:
    def test_never(self):
        pass
'''


def top_level_shape(tree: ast.Module) -> list[tuple[str, int]]:
    """Every test and how many decorators it has (what a misplaced canary would change)."""
    shape = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            shape.append((node.name, len(node.decorator_list)))
    return shape


def check_placement(text: str, seed: int) -> dict[str, str]:
    """Place, then prove: the file parses, every original test keeps its decorators, and the
    two canaries are undecorated tests at module level or in a plain test class."""
    placed, chosen = place(text, seed)
    before, after = ast.parse(text), ast.parse(placed)
    names = {chosen["pass"], chosen["fail"]}
    assert [s for s in top_level_shape(after) if s[0] not in names] == top_level_shape(before)
    for role in ("pass", "fail"):
        owner = after if not chosen[f"{role}_class"] else next(
            n for n in after.body if isinstance(n, ast.ClassDef)
            and n.name == chosen[f"{role}_class"])
        found = [n for n in owner.body
                 if isinstance(n, ast.FunctionDef) and n.name == chosen[role]]
        assert len(found) == 1 and not found[0].decorator_list, (role, placed)
    return chosen


@pytest.mark.parametrize("seed", range(60))
def test_canaries_never_go_between_a_decorator_and_its_def(seed: int) -> None:
    chosen = check_placement(DECORATED, seed)
    assert "TestSkipped" not in (chosen["pass_class"], chosen["fail_class"])


def test_every_spot_is_the_first_line_of_a_test_or_its_decorators() -> None:
    lines = DECORATED.splitlines()
    found = spots(ast.parse(DECORATED))
    assert [lines[line - 1].strip() for line, _, _ in found] == [
        "@pytest.mark.parametrize(", "class TestPager:", "@pytest.mark.skipif(",
        "def test_pager_color(self):", "@pytest.mark.skipif(True, reason=\"x\")"]


def test_names_are_made_of_the_files_own_test_words_and_are_new() -> None:
    words = {"prompt", "default", "echo", "via", "pager", "color", "never"}
    for seed in range(40):
        chosen = place(DECORATED, seed)[1]
        for name in (chosen["pass"], chosen["fail"]):
            parts = name.split("_")
            assert parts[0] == "test" and set(parts[1:]) <= words and len(parts) >= 3
            assert f"def {name}(" not in DECORATED
        assert chosen["pass"] != chosen["fail"]


def test_crlf_encoding_and_unparsable_files() -> None:
    crlf = "def test_a():\r\n    pass\r\n\r\n\r\ndef test_b():\r\n    pass\r\n"
    placed, _ = place(crlf, 3)
    assert "\n" not in placed.replace("\r\n", "")
    broken = "def test_a(:\n    pass"
    placed, chosen = place(broken, 1)
    assert placed.startswith(broken + "\n") and f"def {chosen['fail']}():" in placed


def test_the_test_command_decides_which_files_can_hold_canaries() -> None:
    assert collected_paths('python -m pytest tests/test_a.py tests/b -v') == [
        "tests/test_a.py", "tests/b"]
    assert collected_paths('python -m pytest --junitxml="$ARENA_JUNIT" -v') is None
    assert collected_paths("pytest tests/test_a.py::test_x") == ["tests/test_a.py"]
    assert collected_paths("cd pkg-core && python -m pytest tests/test_*.py -v") == [
        "pkg-core/tests/test_*.py"]
    glob_patch = ("diff --git a/pkg-core/tests/test_n.py b/pkg-core/tests/test_n.py\n"
                  "--- a/pkg-core/tests/test_n.py\n+++ b/pkg-core/tests/test_n.py\n"
                  "@@ -1 +1 @@\n-x\n+y\n")
    plan = plan_canaries(glob_patch, "cd pkg-core && python -m pytest tests/test_*.py -v")
    assert plan is not None and plan.targets == ("pkg-core/tests/test_n.py",)
    patch = "".join(
        f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-x\n+y\n"
        for p in ("tests/test_other.py", "tests/test_options.py"))
    plan = plan_canaries(patch, "python -m pytest tests/test_options.py -v")
    assert plan is not None and plan.targets == ("tests/test_options.py",)
    plan = plan_canaries(patch, "python -m pytest tests -v")
    assert plan is not None and plan.targets == ("tests/test_other.py", "tests/test_options.py")
    # Nothing of the tests patch is collected: a file the command names takes them.
    plan = plan_canaries(patch, "python -m pytest tests/test_imports.py")
    assert plan is not None and plan.targets == ("tests/test_imports.py",)


def test_the_sandbox_picks_a_target_that_runs_all_its_tests(tmp_path) -> None:
    skipped = tmp_path / "test_skipped.py"
    skipped.write_text("import pytest\npytestmark = pytest.mark.skipif(True, reason='x')\n\n"
                       "def test_a():\n    pass\n")
    optional = tmp_path / "test_optional.py"
    optional.write_text("import pytest\nnp = pytest.importorskip('numpy')\n\n"
                        "def test_b():\n    pass\n")
    plain = tmp_path / "test_plain.py"
    plain.write_text("def test_c():\n    pass\n")
    paths = [str(skipped), str(optional), str(plain), str(tmp_path / "missing.py")]
    assert {choose_target(paths, seed) for seed in range(30)} == {str(plain)}
    assert choose_target([str(skipped)], 1) == str(skipped)  # nothing better: still placed
    assert choose_target([str(tmp_path / "missing.py")], 1) is None


def test_ids_with_colons_in_parameters_are_kept_whole() -> None:
    nodeid = "tests/test_x.py::TestA::test_host[::1]"
    assert junit_id(nodeid) == "tests.test_x.TestA::test_host[::1]"
    assert split_case(junit_id(nodeid)) == ("tests.test_x.TestA", "test_host[::1]")
    assert junit_id("tests/test_x.py::test_y[a::b-[c]]") == "tests.test_x::test_y[a::b-[c]]"


def test_canaries_are_matched_by_their_full_id() -> None:
    canaries = Canaries(must_pass="tests.test_a::test_x_y", must_fail="tests.test_a::test_y_x")
    # The same function name in another module is a real test, not the canary.
    cases = [("tests.test_a::test_x_y", "passed"), ("tests.test_a::test_y_x", "failed"),
             ("tests.test_b::test_y_x", "passed"), ("tests.test_a::test_real", "passed")]
    report = JUnitReport(cases=[TestCaseResult(name=n, outcome=o)  # type: ignore[arg-type]
                                for n, o in cases])
    verdict = decide(apply_status="clean", tests_patch_applied=True, setup_exit=None,
                     exit_code=1, timed_out=False, oom_killed=False, report=report,
                     canaries=canaries)
    assert verdict.passed, verdict


def skip_report(outcome: str) -> JUnitReport:
    return JUnitReport(cases=[
        TestCaseResult(name="tests.test_feature::test_new", outcome="passed"),
        TestCaseResult(name="tests.test_feature::test_windows", outcome=outcome),  # type: ignore[arg-type]
    ])


def test_a_skip_counts_only_where_gold_passed_the_id() -> None:
    common = {"apply_status": "clean", "tests_patch_applied": True, "setup_exit": None,
              "exit_code": 0, "timed_out": False, "oom_killed": False,
              "feature_modules": frozenset({"test_feature"})}
    # Gold skips test_windows by its own condition: not an expected id, the skip is fine.
    only_new = ExpectedTests(fail_to_pass=["tests.test_feature::test_new"])
    assert decide(**common, report=skip_report("skipped"), expected=only_new).passed  # type: ignore[arg-type]
    # Gold passed it: skipping it now fails the feature.
    both = ExpectedTests(fail_to_pass=["tests.test_feature::test_new",
                                       "tests.test_feature::test_windows"])
    verdict = decide(**common, report=skip_report("skipped"), expected=both)  # type: ignore[arg-type]
    assert verdict.status == "failed" and "did not pass" in (verdict.reason or "")
    # No recorded ids: a submission's skip in the feature's files still fails; the gold runs
    # of `arena dataset check` (skips_fail=False) do not count it.
    assert not decide(**common, report=skip_report("skipped")).passed  # type: ignore[arg-type]
    assert decide(**common, report=skip_report("skipped"), skips_fail=False).passed  # type: ignore[arg-type]


def test_a_canary_given_parameters_by_an_autouse_fixture_is_still_the_canary() -> None:
    canaries = Canaries(must_pass="tests.test_a::test_x_y", must_fail="tests.test_a::test_y_x")
    assert canaries.is_canary("tests.test_a::test_y_x[sqlite]")
    assert not canaries.is_canary("tests.test_a::test_y_x_z")
    assert not canaries.is_canary("tests.test_b::test_y_x[sqlite]")
