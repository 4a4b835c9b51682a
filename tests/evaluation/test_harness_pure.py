"""Pure helpers of the harness: output capping and the protected-path pre-check."""

from __future__ import annotations

from arena_bot.evaluation.harness import cap_text, check_protected
from arena_bot.patches import ProtectedPaths

PROTECTED = ProtectedPaths(patterns=("tests/*",), exact=frozenset({"tests/test_new.py"}))


def _diff(path: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        "@@ -1 +1 @@\n-old\n+new\n"
    )


def test_cap_text_keeps_head_and_tail() -> None:
    assert cap_text("short", limit=100) == "short"
    capped = cap_text("H" * 900 + "T" * 900, limit=400)
    assert capped.startswith("H" * 300) and capped.endswith("T" * 100)
    assert "output cut to 400 bytes" in capped
    # Multi-byte characters are never split into invalid text.
    assert "\ufffd" not in cap_text("é" * 1000, limit=101)


def test_protected_paths_are_named_in_the_rejection() -> None:
    assert check_protected(_diff("src/app.py"), PROTECTED) is None
    reason = check_protected(_diff("tests/test_app.py") + _diff("pkg/conftest.py"), PROTECTED)
    assert reason is not None
    assert "tests/test_app.py" in reason and "pkg/conftest.py" in reason
