"""The comment's rendering: golden files, escaping of contributor text, the length cap.

Regenerate the golden files after an intended change with ``ARENA_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from support.botdata import make_bundle, make_entry, make_report, make_result

from arena_bot.bot.bundle import MAX_OUTPUT_CHARS, trim_result
from arena_bot.bot.render import COMMENT_LIMIT, MARKER, escape_markdown, fit, render_comment
from arena_bot.bot.view import LABEL_INVALID, LABEL_REVIEW, LABEL_VALID, build_view
from arena_bot.intake.diagnostics import DiagnosticOut

GOLDEN = Path(__file__).parent / "golden"
KEY = "slugkit-options/2026-11-02_claude-code_x"


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("ARENA_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed; see the diff"


def _invalid_report():  # type: ignore[no-untyped-def]
    return make_report((KEY, False, [DiagnosticOut(
        severity="error", code="schema", path=f"submissions/{KEY}/submission.yaml", line=4,
        message="metrics.tokens: must be an integer", hint="write 1200, not '1.2k'")]))


CASES = {
    "valid.md": lambda: make_bundle(),
    "invalid.md": lambda: make_bundle(report=_invalid_report(), entries=[]),
    "flagged.md": lambda: make_bundle(entries=[make_entry(
        KEY, review_status="under-review", rank=None, percentile=None,
        statistically_tied=None,
        review_flags=[
            {"source": "static", "kind": "test-caller-oracle", "file": "slugkit/core.py",
             "line": 12, "reason": "walks tb_frame.f_back to the calling test"},
            {"source": "runtime", "kind": "canary", "reason": "a canary test passed"},
            {"source": "metrics", "kind": "token_totals",
             "reason": "120 tokens for 40 tool calls"}],
        metrics_reasons=["run r1: no transcript"],
        outliers=[{"code": "token_totals", "reason": "120 tokens for 40 tool calls",
                   "kind": "consistency"},
                  {"code": "robust_execution_time", "reason": "robust z = 6.1",
                   "kind": "robust"},
                  {"code": "from_a_newer_scorer", "reason": "unknown to this bot",
                   "kind": "seed"}])]),
    "cleared.md": lambda: make_bundle(entries=[make_entry(
        KEY, review_status="cleared", metrics_level="transcript-consistent",
        review_flags=[{"source": "static", "kind": "patch-check", "file": "slugkit/core.py",
                       "line": 3, "reason": "imports inspect"}],
        review={"by": "maint-1", "reason": "inspect is used for the CLI's help text only",
                "date": "2026-11-20", "file": "reviews/slugkit-options/x.yaml",
                "flags_cleared": [{"source": "static", "kind": "patch-check",
                                   "file": "slugkit/core.py", "line": 3,
                                   "reason": "imports inspect"}]})]),
    "gated.md": lambda: make_bundle(),
    "tests-and-integrity.md": lambda: make_bundle().model_copy(
        update={"results": [trim_result(make_result(KEY))]}),
    "coop.md": lambda: make_bundle().model_copy(
        update={"results": [trim_result(make_result(KEY, coop=True))]}),
    "failing.md": lambda: _failing_bundle(),
    "mixed.md": lambda: _mixed_bundle(),
}

#: The harness's two canaries as it stores them (JUnit ids; passing one first), named from
#: words of the file's own tests.
CANARIES = ["tests.test_slug::test_ascii_unicode", "tests.test_slug::test_unicode_ascii"]
#: Raw pytest output of a feature whose tests all fail, with those canaries (one passing,
#: one failing on purpose): "3 failed" where the counts say 2.
CANARY_OUTPUT = (
    "tests/test_slug.py::test_unicode FAILED\ntests/test_slug.py::test_ascii FAILED\n"
    "tests/test_slug.py::test_ascii_unicode PASSED\n"
    "tests/test_slug.py::test_unicode_ascii FAILED\n"
    "FAILED tests/test_slug.py::test_unicode_ascii - assert 412 < 0\n"
    "========= 3 failed, 1 passed in 0.12s =========")


def _failing_bundle():  # type: ignore[no-untyped-def]
    """Valid, scored, but resolving nothing: overall 0, 0% resolved, last of 4."""
    scores = make_entry(KEY)["scores"] | {"overall": 0.0, "overall_unadjusted": 0.0,
                                          "composite": 0.0, "resolve_rate": 0.0}
    entry = make_entry(KEY, scores=scores, rank=4, percentile=12.5, statistically_tied=False)
    result = make_result(KEY)
    for feature in result["runs"][0]["features"]:
        feature.update(status="failed", passed=False, tests_passed=0, tests_failed=2,
                       review_flags=[], output=CANARY_OUTPUT, canaries=CANARIES,
                       tests=[{"name": "tests/test_slug.py::test_unicode", "outcome": "failed",
                               "message": "AssertionError"},
                              {"name": "tests/test_slug.py::test_ascii", "outcome": "failed",
                               "message": "AssertionError"}])
    return make_bundle(entries=[entry]).model_copy(update={"results": [trim_result(result)]})


def _mixed_bundle():  # type: ignore[no-untyped-def]
    """Two submissions, one invalid; an entry with validation notes; another problem."""
    other = "slugkit-options/2026-11-03_aider_y"
    report = make_report(
        (KEY, True, []),
        (other, False, [DiagnosticOut(
            severity="error", code="schema", path=f"submissions/{other}/submission.yaml",
            line=7, message="runs.0.tokens.total: must be at least 0",
            hint="report the tool's own token count")]))
    report = report.model_copy(update={"diagnostics": [DiagnosticOut(
        severity="error", code="outside", path="README.md", line=None,
        message="this file is outside submissions/", hint="drop it from the PR")]})
    entry = make_entry(KEY, validation=["transcript covers 1 of 2 runs"])
    return make_bundle(report=report, entries=[entry])


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_comments(name: str) -> None:
    gate = ["the PR changes files outside a submission folder "
             "(submissions/<task>/<submission>/): setup.py"] if name == "gated.md" else []
    view = build_view(CASES[name](), marker=MARKER, gate=gate)
    _check_golden(name, render_comment(view))


def test_labels_per_case() -> None:
    def labels(name: str, gate: list[str] | None = None) -> set[str]:
        return build_view(CASES[name](), marker=MARKER, gate=gate or []).labels

    assert labels("valid.md") == {LABEL_VALID}
    assert labels("invalid.md") == {LABEL_INVALID}
    assert labels("flagged.md") == {LABEL_VALID, LABEL_REVIEW}
    assert labels("gated.md", ["scope"]) == {LABEL_REVIEW}
    assert labels("tests-and-integrity.md") == {LABEL_VALID, LABEL_REVIEW}
    assert labels("coop.md") == {LABEL_VALID}


def test_test_output_cannot_close_its_code_block() -> None:
    body = render_comment(build_view(CASES["tests-and-integrity.md"](), marker=MARKER,
                                     gate=[]))
    assert "````text\nFAILED tests/test_slug.py::test_unicode\n```\n1 failed" in body
    assert "tests/test\\_slug.py::test\\_unicode: AssertionError: 'caf' != 'cafe'" in body
    assert "more detail" not in body.split("<details>")[0]  # first line only in the list


def test_trimming_keeps_failures_and_the_end_of_the_output() -> None:
    result = make_result(KEY)
    feature = result["runs"][0]["features"][1]
    feature["output"] = "start " + "x" * MAX_OUTPUT_CHARS + " the end"
    feature["tests"] = [{"name": f"t{i}", "outcome": "passed"} for i in range(300)] + [
        {"name": "broken", "outcome": "failed", "message": "boom"}]
    trimmed = trim_result(result)["runs"][0]["features"][1]
    assert trimmed["output"].endswith("the end") and trimmed["output_truncated"]
    assert len(trimmed["output"]) == MAX_OUTPUT_CHARS
    assert trimmed["tests"][0]["name"] == "broken" and len(trimmed["tests"]) == 200


def test_contributor_text_is_escaped_everywhere() -> None:
    evil = "@maintainers <img src=x onerror=alert(1)> [click](https://evil.example) **b** `x`|"
    entry = make_entry(KEY, contributor=evil[:100], tool="t<script>",
                       outliers=[{"code": "x", "reason": evil, "kind": "seed"}])
    body = render_comment(build_view(make_bundle(entries=[entry]), marker=MARKER, gate=[]))
    assert body.startswith(MARKER)
    assert "<img" not in body and "<script>" not in body
    # The @ is followed by a zero-width space: github.com's mention filter reads the rendered
    # text, where a backslash escape is already gone.
    assert "@maintainers" not in body and "@&#8203;maintainers" in body
    assert "[click](" not in body and "https://evil" not in body
    assert "**b**" not in body and "`x`" not in body
    assert escape_markdown("a|b") == "a\\|b"  # a table cell cannot be split


#: Contributor text that GitHub would turn into links or notifications once rendered:
#: mentions and issue references (found in the rendered text by github.com), cmark-gfm's
#: extended autolinks (www., e-mail, mailto:, xmpp:), a URL, and a right-to-left override.
LINKING = ("@octocat GH-7 owner/repo#12 #34 www.evil.example/login me@evil.example "
           "mailto:a@evil.example xmpp:b@evil.example https://evil.example/x \u202etxt.exe")


def test_contributor_text_forms_no_link_or_mention_in_githubs_rendering() -> None:
    import html

    import cmarkgfm

    entry = make_entry(KEY, contributor=LINKING[:100], tool=LINKING,
                       outliers=[{"code": "x", "reason": LINKING, "kind": "seed"}])
    body = render_comment(build_view(make_bundle(entries=[entry]), marker=MARKER, gate=[]))
    page = cmarkgfm.github_flavored_markdown_to_html(body)
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert not [h for h in hrefs if "evil" in h or h.startswith(("mailto:", "xmpp:"))]
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    # What github.com links in the rendered text: @name, #number, GH-number.
    assert not re.search(r"@[A-Za-z0-9]|#\d|GH-\d|www\.", text)
    assert "\u202e" not in text
    # The reader sees the text as written (the zero-width spaces are invisible).
    assert "@octocat GH-7 owner/repo#12 #34 www.evil.example/login" in text.replace("\u200b", "")


def test_a_link_glued_to_an_underscore_or_bracket_is_broken_too() -> None:
    """cmark-gfm starts a ``www.`` autolink after ``_``, ``*``, ``~`` or ``(`` as well as
    after a space, and an underscore leaves no word boundary before ``www``."""
    import cmarkgfm

    names = ["_www.evil.example", "*www.evil.example", "~www.evil.example",
             "(www.evil.example)", "x_www.evil.example", "_WWW.evil.example", "_GH-7"]
    for name in names:
        entry = make_entry(KEY, contributor=name, tool=name)
        body = render_comment(build_view(make_bundle(entries=[entry]), marker=MARKER, gate=[]))
        page = cmarkgfm.github_flavored_markdown_to_html(body)
        assert not [h for h in re.findall(r'href="([^"]*)"', page) if "evil" in h], name
        assert not re.search(r"(?i)www\.|GH-\d", re.sub(r"<[^>]+>", " ", page)), name


def test_non_finite_baselines_of_a_forged_bundle_render_as_unknown(tmp_path: Path) -> None:
    """JSON as Python reads it takes ``Infinity`` and ``NaN``: a forged bundle's task board
    may carry them where the baseline's figures go. The comment shows ``–`` there."""
    import json

    from arena_bot.bot.bundle import load_bundle

    data = make_bundle().model_dump(mode="json")
    baseline = data["tasks"][0]["baseline"]
    baseline["tokens"]["max"] = float("inf")
    baseline["cost"]["median"] = float("nan")
    baseline["tool_calls"]["min"] = True
    baseline["execution_time"]["min"] = float("-inf")
    data["entries"][0]["scores"]["overall"] = float("nan")
    data["entries"][0]["percentile"] = float("inf")
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(data))  # writes Infinity and NaN, as a forger's script would
    assert "Infinity" in path.read_text()
    body = render_comment(build_view(load_bundle(path), marker=MARKER, gate=[]))
    assert not re.search(r"\binf\b|\bnan\b", body, re.IGNORECASE)
    assert "1 – 9 (median 3)" in body  # the intact baseline still shows


def test_entries_with_unknown_fields_still_render() -> None:
    entry = make_entry(KEY)
    entry["new_field_from_a_newer_scorer"] = {"anything": 1}
    entry["scores"]["another_new_score"] = 3.0
    body = render_comment(build_view(make_bundle(entries=[entry]), marker=MARKER, gate=[]))
    assert "71.50" in body


def test_a_huge_comment_is_cut_to_githubs_limit_with_a_note() -> None:
    diagnostics = [DiagnosticOut(severity="error", code="patch", path=f"submissions/{KEY}/p",
                                 line=i, message="x" * 900, hint=None) for i in range(200)]
    bundle = make_bundle(report=make_report((KEY, False, diagnostics)), entries=[])
    body = render_comment(build_view(bundle, marker=MARKER, gate=[]))
    assert len(body) <= COMMENT_LIMIT
    assert body.startswith(MARKER) and "cut to fit" in body
    assert fit("short") == "short"


def test_every_flag_the_scorer_emits_has_maintainer_guidance() -> None:
    """A code added to the scorer without a guidance text falls back to its kind's; this
    test names it so the specific text gets written."""
    from arena_bot.bot.guidance import BY_CODE, BY_KIND, outlier_check
    from arena_bot.models.leaderboard import OutlierFlag

    source = (Path(__file__).resolve().parents[2] / "arena_bot" / "scoring"
              / "leaderboard.py").read_text(encoding="utf-8")
    codes = set(re.findall(r'code="([a-z_]+)"', source))
    assert codes, "the scorer's flag codes moved; update this test"
    assert codes <= set(BY_CODE), f"no guidance for {sorted(codes - set(BY_CODE))}"
    kinds = set(OutlierFlag.model_fields["kind"].annotation.__args__)  # type: ignore[union-attr]
    assert kinds == set(BY_KIND)
    assert "tokens" in outlier_check("robust_tokens", "robust")
    assert outlier_check("x", "unknown-kind")  # never empty


def test_a_submission_whose_task_is_unchecked_says_why_it_has_no_score() -> None:
    warning = DiagnosticOut(
        severity="warning", code="no-expected-tests", path="dataset/t/feature1/x.json",
        line=None, message="task 't' feature 1 has no recorded expected test ids",
        hint="a maintainer records them with `arena dataset check t`")
    bundle = make_bundle(report=make_report((KEY, True, [warning])), entries=[])
    body = render_comment(build_view(bundle, marker=MARKER, gate=[]))
    assert "Not on the board yet" in body and "Not evaluated in this run" not in body
    plain = render_comment(build_view(make_bundle(entries=[]), marker=MARKER, gate=[]))
    assert "Not evaluated in this run" in plain


def test_the_heading_says_what_is_true() -> None:
    def headline(name: str, gate: list[str] | None = None) -> str:
        body = render_comment(build_view(CASES[name](), marker=MARKER, gate=gate or []))
        return body.splitlines()[1]

    assert headline("valid.md") == "## Agentic Arena: valid"
    # never "valid" alone over an overall score of 0 and 0% resolved
    assert headline("failing.md") == "## Agentic Arena: valid, but failing: 0% resolved"
    assert headline("mixed.md") == "## Agentic Arena: invalid \\(1 of 2\\)"
    assert headline("flagged.md") == "## Agentic Arena: valid, needs review"
    assert headline("gated.md", ["scope"]) == "## Agentic Arena: needs a maintainer"
    errored = make_entry(KEY, status="error", status_reason="image build failed", scores=None,
                         rank=None, percentile=None, statistically_tied=None)
    body = render_comment(build_view(make_bundle(entries=[errored]), marker=MARKER, gate=[]))
    assert "## Agentic Arena: valid, but its evaluation failed" in body
    assert "Not scored (error): image build failed." in body


def test_rank_says_of_how_many() -> None:
    body = render_comment(build_view(CASES["failing.md"](), marker=MARKER, gate=[]))
    assert "rank 4 of 4 on slugkit-options" in body
    # a bundle without its task board still says the rank
    bare = make_bundle().model_copy(update={"tasks": []})
    assert "· rank 2 on slugkit-options" in render_comment(build_view(bare, marker=MARKER,
                                                                      gate=[]))


def test_canaries_are_explained_by_their_stored_ids_only_where_the_output_shows_them(
) -> None:
    """The explanation names the ids the harness stored, and only when the raw output shows
    one of them as a whole test name (a longer test name that contains it does not count).
    The harness's side (a real run storing them) is in tests/evaluation/test_harness_canary.py."""
    body = render_comment(build_view(CASES["failing.md"](), marker=MARKER, gate=[]))
    explained = [line for line in body.splitlines() if "the harness's canaries" in line]
    assert len(explained) == 2  # one per feature showing output
    assert all(f"`{CANARIES[0]}` (passes)" in line
               and f"`{CANARIES[1]}` (fails on purpose)" in line
               for line in explained)
    stored = ["tests.test_slug::test_ascii", "tests.test_slug.TestSlug::test_slug_unicode"]

    def explains(output: str, canaries: list[str]) -> bool:
        result = make_result(KEY)
        for feature in result["runs"][0]["features"]:
            feature.update(output=output, canaries=canaries)
        bundle = make_bundle().model_copy(update={"results": [trim_result(result)]})
        return "canaries" in render_comment(build_view(bundle, marker=MARKER, gate=[]))

    assert explains("FAILED tests/test_slug.py::TestSlug::test_slug_unicode - assert 1", stored)
    assert explains("____ TestSlug.test_slug_unicode ____", stored)
    assert not explains("FAILED tests/test_slug.py::test_slug_unicode_nfc - assert 1", stored)
    # a result stored before the field, or a run without canaries: nothing to explain
    assert not explains(CANARY_OUTPUT, [])
    plain = render_comment(build_view(CASES["tests-and-integrity.md"](), marker=MARKER,
                                      gate=[]))
    assert "canaries" not in plain
