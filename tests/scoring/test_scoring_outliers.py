from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena_bot.core.errors import InputError
from arena_bot.core.prices import load_price_table, normalize_model_name
from arena_bot.scoring.outliers import (
    PatchRef,
    duplicate_patch_reasons,
    normalize_patch,
    patch_digest,
    robust_reason,
)

PATCH = """diff --git a/x.py b/x.py
index 1234567..89abcde 100644
--- a/x.py
+++ b/x.py
@@ -1,3 +1,3 @@ def main():
 a
-b
+c
"""


def test_patch_digest_ignores_noise_but_not_content() -> None:
    noisy = PATCH.replace("index 1234567..89abcde", "index fffffff..0000000").replace(
        "@@ -1,3 +1,3 @@ def main():", "@@ -1,3 +1,3 @@"
    ).replace("\n", "\r\n").replace("+c", "+c   ")
    assert patch_digest(noisy) == patch_digest(PATCH)
    assert patch_digest(PATCH.replace("+c", "+d")) != patch_digest(PATCH)
    assert patch_digest("\n  \n") is None
    assert "index" not in normalize_patch(PATCH)


def test_duplicates_are_per_task_and_name_the_other_submission() -> None:
    refs = [
        PatchRef(key="t/a", task_id="t", run_id="r1", digest="d1"),
        PatchRef(key="t/b", task_id="t", run_id="r9", digest="d1"),
        PatchRef(key="t/b", task_id="t", run_id="r2", digest="d1"),  # same submission: fine
        PatchRef(key="u/c", task_id="u", run_id="r1", digest="d1"),  # other task
        PatchRef(key="t/d", task_id="t", run_id="r1", digest="d2"),
    ]
    reasons = duplicate_patch_reasons(refs)
    assert set(reasons) == {"t/a", "t/b"}
    assert reasons["t/a"] == ["run r1: patch identical (after normalisation) to a run of t/b"]
    assert len(reasons["t/b"]) == 2


def test_robust_reason_wording() -> None:
    text = robust_reason(metric="execution_time", z=-4.25, threshold=3.5)
    assert text.startswith("execution time unusually low") and "-4.2" in text


def test_price_table_lookup_normalises_names() -> None:
    table = load_price_table()
    for spelling in ("claude-sonnet-4-5", "anthropic/claude-sonnet-4-5-20250929",
                     "Claude-Sonnet-4.5", "claude-sonnet-4-5-latest"):
        found = table.lookup(spelling)
        assert found is not None and found[0] == "claude-sonnet-4-5", spelling
    for model in ("claude-opus-4-1", "gpt-5", "gpt-5-mini", "gpt-4.1", "gemini-2.5-pro",
                  "gemini-2.5-flash", "deepseek-v3", "qwen3-coder"):
        name, price = table.lookup(model)  # type: ignore[misc]
        assert name == model and 0 < price.cached_input <= price.input
    assert table.lookup("my-house-model") is None
    assert normalize_model_name("openai/GPT-5@2025-08-07") == "gpt-5"


def test_a_broken_price_table_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("schema_version: 1\nmodels:\n  m:\n    input: -1\n    cached_input: 0\n"
                    "    output: 1\n")
    with pytest.raises(InputError) as info:
        load_price_table(path)
    assert info.value.path == path and info.value.line == 4
    clash = tmp_path / "clash.yaml"
    clash.write_text("models:\n  a: {input: 1, cached_input: 1, output: 1, aliases: [b]}\n"
                     "  b: {input: 1, cached_input: 1, output: 1}\n")
    with pytest.raises(InputError, match="names both"):
        load_price_table(clash)


def test_scan_results_picks_the_newest_evaluation(tmp_path: Path) -> None:
    import datetime as dt

    from support.scoring_builders import make_result, make_submission

    from arena_bot.scoring.loader import scan_results

    spec = make_submission()
    old = make_result(spec, "s", passed=True, evaluated_at=dt.datetime(2025, 1, 1, tzinfo=dt.UTC))
    new = make_result(spec, "s", passed=False, evaluated_at=dt.datetime(2025, 2, 1, tzinfo=dt.UTC))
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "z-old.json").write_text(old.model_dump_json())
    (tmp_path / "b-new.json").write_text(new.model_dump_json())
    (tmp_path / ".tmp-partial.json").write_text("{")  # a write in progress is ignored
    chosen = scan_results(tmp_path)
    assert list(chosen) == [("demo", "s")]
    assert chosen[("demo", "s")].runs[0].features[0].passed is False
    assert scan_results(tmp_path / "missing") == {}


_REFERENCE_NOISE = re.compile(
    r"^(index |similarity index|rename from|rename to|From |Date: |Subject: )")


def _reference_normalize(text: str) -> str:
    """normalize_patch as first written (a regular expression per line)."""
    lines = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.rstrip()
        if not line or _REFERENCE_NOISE.match(line):
            continue
        if re.match(r"^@@ [^@]* @@.*$", line):
            line = line[: line.index("@@", 2) + 2]
        lines.append(line)
    return "\n".join(lines)


TRICKY_LINES = [
    "@@ -1,3 +1,3 @@ def main():", "@@ -1 +1 @@", "@@@ -1 +1 +1 @@@ merge", "@@ no end",
    "@@  @@", "@@ -1 @ +1 @@ x", "@@ -1 +1 @@@@", " @@ -1 +1 @@ x", "index", "index x",
    " index x", "Index x", "similarity index 90%", "rename from a", "From x", "From:",
    "Date: today", "Subject: [PATCH]", "+index 1", "-From me", "trailing \u00a0\u2003",
    "\t", "a\rb", "a\r\r\nb", "\x0c", "x\x1c", "", "+", "-", " ",
]


def test_normalize_patch_equals_the_per_line_pattern_version() -> None:
    import random

    rng = random.Random(12)
    for _ in range(500):
        text = "\n".join(rng.choice(TRICKY_LINES) for _ in range(rng.randint(0, 12)))
        text += rng.choice(["", "\n", "\r\n", "\r"])
        assert normalize_patch(text) == _reference_normalize(text), repr(text)
