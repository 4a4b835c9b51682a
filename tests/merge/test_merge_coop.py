"""evaluate_coop_run end to end: real git merge, real tests (host pytest) on the merged code."""

from __future__ import annotations

from arena_bot.merge.coop import MAX_STORED_DIFF, TRUNCATION_NOTE, cap_diff, evaluate_coop_run

SHOP = '''\
def limit():
    return 10


def price(amount):
    return amount * 2
'''


def make_tests_patch(base, feature: int, body: str) -> str:
    return base.patch({f"tests/test_feature{feature}.py": f"import shop\n\n\n{body}"})


def setup(make_base, host_runner):
    base = make_base({"shop.py": SHOP, "tests/__init__.py": ""})
    runner = host_runner(
        base,
        {
            1: make_tests_patch(base, 1, "def test_one():\n    assert shop.limit() == 20\n"),
            2: make_tests_patch(base, 2, "def test_two():\n    assert shop.discount(10) == 9\n"),
        },
    )
    return base, runner


def test_clean_merge_runs_both_features_tests(make_base, host_runner) -> None:
    base, runner = setup(make_base, host_runner)
    patch1 = base.patch({"shop.py": SHOP.replace("return 10", "return 20")})
    patch2 = base.patch({"shop.py": SHOP + "\n\ndef discount(amount):\n    return amount - 1\n"})

    result = evaluate_coop_run(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2,
        feature_ids=(1, 2), run_tests=runner,
    )

    assert (result.status, result.strategy, result.conflict_score) == ("clean", "ort", 0)
    assert result.severity == "NONE"
    assert runner.calls == [1, 2]
    assert [f.feature for f in result.features] == [1, 2]
    assert [f.passed for f in result.features] == [True, True]
    assert result.both_passed
    assert result.apply_status == {"agent1": "clean", "agent2": "clean"}
    assert "return 20" in result.diff and "def discount" in result.diff
    assert result.error is None


def test_conflict_resolved_by_union_passes_both(make_base, host_runner) -> None:
    base, runner = setup(make_base, host_runner)
    # Both agents append at the end of the file: a conflict git cannot order, union can.
    patch1 = base.patch(
        {"shop.py": SHOP.replace("return 10", "return 20") + "\n\ndef extra_one():\n"
         "    return 1\n"}
    )
    patch2 = base.patch({"shop.py": SHOP + "\n\ndef discount(amount):\n    return amount - 1\n"})

    result = evaluate_coop_run(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2,
        feature_ids=(1, 2), run_tests=runner,
    )

    # Both sides start with the same two blank lines, which git keeps outside the section:
    # ours (def discount, return) 2 lines + theirs (def extra_one, return) 2 lines.
    assert (result.status, result.strategy) == ("conflicts", "union")
    assert result.conflict_details.conflict_sections == 1
    assert result.conflict_details.conflict_lines == 4
    assert result.conflict_score == 1 * 20 + 4 * 2
    assert result.severity == "MEDIUM"
    assert [f.passed for f in result.features] == [True, True]
    assert result.both_passed


def test_union_result_failing_tests(make_base, host_runner) -> None:
    base, runner = setup(make_base, host_runner)
    runner.tests_patches = {
        1: make_tests_patch(base, 1, "def test_one():\n    assert shop.limit() == 20\n"),
        2: make_tests_patch(base, 2, "def test_two():\n    assert shop.limit() == 30\n"),
    }
    patch1 = base.patch({"shop.py": SHOP.replace("return 10", "return 20")})
    patch2 = base.patch({"shop.py": SHOP.replace("return 10", "return 30")})

    result = evaluate_coop_run(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2,
        feature_ids=(1, 2), run_tests=runner,
    )

    # Union keeps "return 30" (ours, agent 2) before "return 20": only feature 2 passes.
    assert (result.status, result.strategy) == ("conflicts", "union")
    assert (result.conflict_details.conflict_sections, result.conflict_details.conflict_lines) \
        == (1, 2)
    assert result.conflict_score == 24
    assert runner.calls == [1, 2]
    assert [f.passed for f in result.features] == [False, True]
    assert "assert 30 == 20" in result.features[0].output
    assert not result.both_passed


def test_patch_that_does_not_apply_runs_no_tests(make_base, host_runner) -> None:
    base, runner = setup(make_base, host_runner)
    patch1 = base.patch({"shop.py": SHOP.replace("return 10", "return 20")})
    patch2 = patch1.replace("-    return 10", "-    return 11")  # wrong preimage

    result = evaluate_coop_run(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2,
        feature_ids=(1, 2), run_tests=runner,
    )

    assert (result.status, result.strategy) == ("apply_failed", "none")
    assert result.apply_status == {"agent1": "clean", "agent2": "failed"}
    assert runner.calls == []
    assert [f.status for f in result.features] == ["apply_failed", "apply_failed"]
    assert [f.apply_status for f in result.features] == ["clean", "failed"]
    assert [f.passed for f in result.features] == [False, False]
    assert all("agent2's patch did not apply" in (f.reason or "") for f in result.features)
    assert not result.both_passed
    assert result.error is not None and result.diff == ""


def test_unresolvable_conflict_reports_tests_not_run(make_base, host_runner) -> None:
    base = make_base({"shop.py": SHOP, "logo.bin": bytes(range(200))})
    runner = host_runner(base, {})
    patch1 = base.patch({"logo.bin": b"\x00one" + bytes(range(200))})
    patch2 = base.patch({"logo.bin": b"\x00two" + bytes(range(200))})

    result = evaluate_coop_run(
        base_repo=base.path, base_commit=base.commit, patch1=patch1, patch2=patch2,
        feature_ids=(1, 3), run_tests=runner,
    )

    assert (result.status, result.strategy) == ("conflicts", "none")
    assert result.conflict_score == 0  # binary conflicts carry no markers to count
    assert runner.calls == []
    assert [(f.feature, f.status, f.passed) for f in result.features] == [
        (1, "failed", False), (3, "failed", False)
    ]
    assert "tests not run" in (result.features[0].reason or "")
    assert "logo.bin" in (result.error or "")


def test_stored_diff_is_capped_with_a_note() -> None:
    small = "x" * 10
    assert cap_diff(small) == small
    big = "y" * (MAX_STORED_DIFF + 5)
    capped = cap_diff(big)
    assert capped.startswith("y" * MAX_STORED_DIFF)
    assert capped.endswith(TRUNCATION_NOTE.format(omitted=5))
