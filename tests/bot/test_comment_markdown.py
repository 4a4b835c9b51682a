"""Every golden comment through GitHub's own Markdown parser (cmark-gfm, from the package
index's ``cmarkgfm``), checked for the structure a contributor sees: tables are tables,
lists are lists, no literal Markdown or backslash escapes in the text, every collapsible
section closed, HTML blocks set apart by blank lines."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

GOLDEN = Path(__file__).parent / "golden"
#: GitHub turns a blockquote starting with one of these into an alert box (cmark-gfm itself
#: leaves the marker as text; github.com's renderer reads it).
ALERTS = ("[!NOTE]", "[!TIP]", "[!IMPORTANT]", "[!WARNING]", "[!CAUTION]")


def render(markdown: str) -> str:
    """HTML as GitHub renders a comment (raw HTML is let through, then sanitised there)."""
    return cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE)


class _Structure(HTMLParser):
    """Counts of elements and the text a reader sees (code excluded)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: dict[str, int] = {}
        self.closed: dict[str, int] = {}
        self.code = 0
        self.texts: list[str] = []
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag in ("code", "pre"):
            self.code += 1
        self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self.closed[tag] = self.closed.get(tag, 0) + 1
        if tag in ("code", "pre"):
            self.code -= 1
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag)]

    def handle_data(self, data: str) -> None:
        if not self.code and data.strip():
            self.texts.append(data)


def _outside_fences(markdown: str) -> list[str]:
    lines, fence = [], None
    for line in markdown.splitlines():
        opened = re.match(r"^(`{3,})", line)
        if fence is None and opened:
            fence = opened.group(1)
            continue
        if fence is not None:
            if line.strip() == fence:
                fence = None
            continue
        lines.append(line)
    return lines


def structure_problems(markdown: str) -> list[str]:
    """What a contributor would see broken in ``markdown`` rendered by cmark-gfm."""
    html = render(markdown)
    seen = _Structure()
    seen.feed(html)
    problems = []
    lines = _outside_fences(markdown)
    rows = [line for line in lines if line.startswith("|")
            and not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line)]
    if seen.tags.get("tr", 0) != len(rows):
        problems.append(f"{len(rows)} table rows written, {seen.tags.get('tr', 0)} rendered")
    items = [line for line in lines if re.match(r"^(> )?\s*- ", line)]
    if seen.tags.get("li", 0) != len(items):
        problems.append(f"{len(items)} list items written, {seen.tags.get('li', 0)} rendered")
    for tag in ("details", "summary", "table", "blockquote", "ul"):
        if seen.tags.get(tag, 0) != seen.closed.get(tag, 0):
            problems.append(f"<{tag}> opened {seen.tags.get(tag, 0)} times, closed "
                            f"{seen.closed.get(tag, 0)}")
    for text in seen.texts:
        plain = text
        for alert in ALERTS:
            plain = plain.replace(alert, "")
        for pattern, what in ((r"\*\*", "literal **"), (r"\\", "a literal backslash"),
                              (r"(^|\n)\s*- ", "a literal list marker"),
                              (r"\|\s*-{3}", "a literal table"), (r"(^|\n)#+ ", "a literal #"),
                              (r"`", "a literal backtick")):
            if re.search(pattern, plain):
                problems.append(f"{what} in the text: {text.strip()[:120]!r}")
    # an HTML block swallows what follows it up to the next blank line
    for i, line in enumerate(lines):
        if re.match(r"^\s*</?(details|summary|sub)\b", line) and i + 1 < len(lines):
            after = lines[i + 1]
            if after.strip() and not re.match(r"^\s*(<|```)", after):
                problems.append(f"no blank line after the HTML block {line.strip()[:40]!r}")
        if re.match(r"^\s*<(details|sub)\b", line) and i and lines[i - 1].strip():
            problems.append(f"no blank line before the HTML block {line.strip()[:40]!r}")
    for alert in ALERTS:
        for line in lines:
            if alert in line and not line.startswith(f"> {alert}"):
                problems.append(f"{alert} not at the start of a blockquote: {line[:60]!r}")
    return problems


GOLDENS = sorted(p.name for p in GOLDEN.glob("*.md"))


def test_every_golden_comment_is_checked() -> None:
    from test_bot_render import CASES

    assert set(GOLDENS) == set(CASES), "a golden file without its case, or the reverse"


@pytest.mark.parametrize("name", GOLDENS)
def test_golden_comment_renders_as_written(name: str) -> None:
    markdown = (GOLDEN / name).read_text(encoding="utf-8")
    assert structure_problems(markdown) == []
    html = render(markdown)
    assert "<h2>Agentic Arena: " in html


@pytest.mark.parametrize(("broken", "expected"), [
    ("<details><summary>x</summary>\n\ntext\n\n</details>\n- run r1: **failed**\n",
     "list items written"),
    ("a paragraph\n<details><summary>x</summary>\n\n</details>\n", "no blank line before"),
    # GFM carries a table on into the next plain line: it becomes a row
    ("| a | b |\n|---|---|\n| 1 | 2 |\nnot a row\n\n", "table rows"),
    ("| a | b |\n|---|---|\n| 1 | 2 |\n\nnot a row\n", ""),
    ("Score\n| a | b |\n|---|\n| 1 | 2 |\n", "table rows"),
    ("Text [!CAUTION] inline\n", "not at the start of a blockquote"),
    ("- **a** and `b`\n", ""),
    ("<details><summary>x</summary>\n\ntext\n", "<details> opened 1 times, closed 0"),
    ("text with a \\\\ backslash\n", "a literal backslash"),
])
def test_the_checker_catches_what_github_would_show_broken(broken: str, expected: str) -> None:
    problems = structure_problems(broken)
    if expected:
        assert any(expected in p for p in problems), problems
    else:
        assert problems == [], problems


@pytest.mark.parametrize("output", [
    "line of pytest output\n" * 20,
    # test output quoting a fence: its block's fence is four backticks
    "E   assert render(doc) == '```py\\nx\\n```'\n```\n" + "line of pytest output\n" * 20,
])
def test_a_comment_cut_anywhere_to_fit_still_renders_as_written(output: str) -> None:
    """``fit`` cut at any character count: the cut closed ``<details>`` by counting them
    (test output holds the word too) and closed any code block with three backticks, so a
    cut after a closing fence, after a ``<summary>`` line or in a table opened a block that
    swallowed the rest and the note; a cut after a table's header row left a broken table."""
    from support.botdata import make_bundle, make_entry, make_report, make_result

    from arena_bot.bot.bundle import trim_result
    from arena_bot.bot.render import _CUT_NOTE, MARKER, fit, render_comment
    from arena_bot.bot.view import build_view

    keys = [f"slugkit-options/2026-11-02_claude-code_x{i}" for i in range(3)]
    results = []
    for key in keys:
        result = make_result(key)
        for feature in result["runs"][0]["features"]:
            feature["output"] = output
        results.append(trim_result(result))
    bundle = make_bundle(report=make_report(*[(key, True, []) for key in keys]),
                         entries=[make_entry(key) for key in keys])
    body = render_comment(build_view(bundle.model_copy(update={"results": results}),
                                     marker=MARKER, gate=[]))
    assert structure_problems(body) == [] and len(body) > 6000
    for limit in range(len(_CUT_NOTE) + 200, len(body), 11):
        cut = fit(body, limit=limit)
        assert len(cut) <= limit and cut.startswith(MARKER) and cut.endswith(_CUT_NOTE)
        assert structure_problems(cut) == [], (limit, cut[-400:])
    # what is kept is a prefix of the comment, up to the closings
    assert fit(body, limit=len(body) - 1).startswith(body[:len(body) // 2])
