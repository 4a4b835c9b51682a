"""Dropping test files from agents' patches."""

from __future__ import annotations

import pytest

from arena_bot.intake.patches import is_test_path
from arena_bot.merge.patchfilter import drop_test_files


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/test_app.py", True),
        ("tests/data/fixture.json", True),
        ("src/pkg/tests/helpers.py", True),
        ("test_app.py", True),
        ("src/app_test.py", True),
        ("conftest.py", True),
        ("src/deep/conftest.py", True),
        ("src/app.py", False),
        ("src/testing.py", False),
        ("src/contest.py", False),
        ("tests", False),  # a file called "tests" is not under tests/
        ("docs/test_plan.md", False),
    ],
)
def test_test_path_rule(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


GIT_PATCH = """\
From 1234 Mon Sep 17 00:00:00 2001
Subject: agent work

diff --git a/src/app.py b/src/app.py
index 1111111..2222222 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1 +1 @@
-a
+b
diff --git a/tests/test_app.py b/tests/test_app.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/tests/test_app.py
@@ -0,0 +1 @@
+def test_a(): pass
diff --git a/old_test.py b/src/moved.py
similarity index 100%
rename from old_test.py
rename to src/moved.py
diff --git a/data.bin b/data.bin
index 4444444..5555555 100644
GIT binary patch
literal 3
Kc${NkU|;|M00aO5

literal 0
HcmV?d00001

"""


def test_git_patch_keeps_preamble_and_non_test_sections() -> None:
    filtered = drop_test_files(GIT_PATCH)
    assert filtered.dropped == ("tests/test_app.py", "old_test.py")
    assert filtered.text.startswith("From 1234")
    assert "diff --git a/src/app.py b/src/app.py\n" in filtered.text
    assert "diff --git a/data.bin b/data.bin\n" in filtered.text
    assert "GIT binary patch\nliteral 3\n" in filtered.text
    assert "tests/test_app.py" not in filtered.text
    assert "rename from" not in filtered.text
    assert not filtered.is_empty


def test_plain_unified_diff_sections() -> None:
    patch = (
        "--- a/src/app.py\t2024-01-01 00:00:00\n+++ b/src/app.py\t2024-01-01 00:00:01\n"
        "@@ -1 +1 @@\n-a\n+b\n"
        "--- a/test_x.py\n+++ b/test_x.py\n@@ -1 +1 @@\n-c\n+d\n"
    )
    filtered = drop_test_files(patch)
    assert filtered.dropped == ("test_x.py",)
    assert filtered.text == "--- a/src/app.py\t2024-01-01 00:00:00\n" \
        "+++ b/src/app.py\t2024-01-01 00:00:01\n@@ -1 +1 @@\n-a\n+b\n"


def test_quoted_paths_are_unquoted() -> None:
    patch = (
        'diff --git "a/tests/t\\303\\251st.py" "b/tests/t\\303\\251st.py"\n'
        "new file mode 100644\n"
        "--- /dev/null\n"
        '+++ "b/tests/t\\303\\251st.py"\n'
        "@@ -0,0 +1 @@\n+x\n"
    )
    filtered = drop_test_files(patch)
    assert filtered.dropped == ("tests/tést.py",)
    assert filtered.is_empty


def test_patch_with_only_tests_is_empty_and_empty_patch_stays_empty() -> None:
    only = "diff --git a/conftest.py b/conftest.py\n--- a/conftest.py\n+++ b/conftest.py\n"
    assert drop_test_files(only).is_empty
    assert drop_test_files("").is_empty
    assert drop_test_files("").dropped == ()


def test_test_files_are_dropped_from_a_fenced_patch_ending_in_a_header_only_section() -> None:
    # The OpenHands agent SDK's patch of django__django-11141 (seal-research/OmniCode @
    # 0ef3079, results/openhands_sdk/python_bugfixing/all_preds.jsonl) ends by deleting an
    # empty tests/.../.gitkeep: a section with no hunk, which the fence after it follows at once.
    patch = (
        "```diff\n"
        "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
        "@@ -1 +1 @@\n-a\n+b\n"
        "diff --git a/tests/m/.gitkeep b/tests/m/.gitkeep\ndeleted file mode 100644\n"
        "index e69de29bb2..0000000000\n"
        "```"
    )
    filtered = drop_test_files(patch)
    assert filtered.dropped == ("tests/m/.gitkeep",)
    assert filtered.text == (
        "```diff\n"
        "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n"
        "@@ -1 +1 @@\n-a\n+b\n"
        "```"
    )
