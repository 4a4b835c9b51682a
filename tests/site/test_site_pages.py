"""The generated pages: escaping, strictness, empty state, links, bad input, git hygiene."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import jinja2
import pytest

from arena_bot.models.leaderboard import Leaderboard
from arena_bot.site import views
from arena_bot.site.build import build, empty_board
from arena_bot.site.render import environment

REPO = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-c", "from arena_bot.cli import main; main()"]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and ((tag == "a" and name == "href") or name == "src"
                          or (tag == "link" and name == "href")):
                self.links.append(value)


def _target(page: Path, link: str, site: Path) -> Path | None:
    url, _ = urldefrag(link)
    parsed = urlparse(url)
    if parsed.scheme or parsed.netloc or not url or url.startswith("data:"):
        return None
    base = site if url.startswith("/") else page.parent
    target = (base / url.lstrip("/")).resolve()
    return target / "index.html" if url.endswith("/") or target.is_dir() else target


def test_every_link_on_every_page_resolves(built: Path) -> None:
    broken = []
    pages = sorted(built.rglob("*.html"))
    assert len(pages) > 15
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            target = _target(page, link, built)
            if target is not None and not target.exists():
                broken.append(f"{page.relative_to(built)} -> {link}")
    assert broken == []


def test_nothing_is_fetched_from_another_origin(built: Path) -> None:
    for page in built.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        # Links to elsewhere are fine (the reader chooses to follow them); fetched assets
        # (scripts, images, stylesheets, fonts) must come from the site itself.
        assert not re.search(r'src="(https?:)?//', text), page
        assert not re.search(r'<link[^>]*href="(https?:)?//', text), page
        assert "fonts.googleapis" not in text


def test_contributor_html_is_escaped(built: Path, hostile: str) -> None:
    pages = "".join(p.read_text(encoding="utf-8") for p in (built / "board").rglob("*.html"))
    assert hostile not in pages
    assert "&lt;img src=&#34;x&#34; onerror=" in pages or "&lt;img src=&quot;x&quot;" in pages


def test_contributor_markdown_is_shown_as_written(built: Path, board: Leaderboard,
                                                  markdown_hostile: str) -> None:
    """A tool's name in Markdown is text on every page Markdown renders: the tool's own
    heading, the list of tools, the tables."""
    pages = "".join(p.read_text(encoding="utf-8") for p in (built / "board").rglob("*.html"))
    assert "javascript:" not in " ".join(re.findall(r'(?:href|src)="([^"]*)"', pages))
    assert "<strong>bold</strong>" not in pages and 'src="x.png"' not in pages
    assert "<code>code</code>" not in pages
    tool = views.Slugs.of(board).tools[markdown_hostile]
    page = (built / "board" / "tools" / tool / "index.html").read_text(encoding="utf-8")
    heading = re.search(r"<h1[^>]*>(.*?)<small>", page, re.S)
    assert heading is not None
    shown = html.unescape(re.sub(r"<[^>]+>", "", heading.group(1)))
    assert " ".join(shown.split()) == " ".join(markdown_hostile.split())
    listed = (built / "board" / "pages" / "index.html").read_text(encoding="utf-8")
    link = re.search(rf'<a href="../tools/{re.escape(tool)}/">(.*?)</a></li>', listed, re.S)
    assert link is not None
    assert " ".join(html.unescape(link.group(1)).split()) == " ".join(markdown_hostile.split())


def _code_text(page: str) -> str:
    """The text of the page's code block (its ``<pre>``), as a reader sees it."""
    block = re.search(r"<pre[^>]*>.*?<code>(.*?)</code>", page, re.S)
    assert block is not None
    return html.unescape(re.sub(r"<[^>]+>", "", block.group(1)))


def test_the_submit_page_shows_an_example_submission_as_written(built: Path,
                                                                project: Path) -> None:
    first = sorted(project.glob("submissions/*/*/submission.yaml"))[0]
    page = (built / "board" / "submit" / "index.html").read_text(encoding="utf-8")
    assert _code_text(page).strip() == first.read_text(encoding="utf-8").strip()


def test_an_example_with_fences_inside_stays_one_code_block() -> None:
    import markdown

    from arena_bot.core.markdown import fenced

    text = 'notes: |\n  ```\n  </code><script>alert(1)</script>\n  ````\ntool: "x & y"'
    page = markdown.markdown(fenced(text, "yaml"),
                             extensions=["pymdownx.superfences", "admonition"])
    assert "<script>" not in page and page.count("<code") == 1
    assert _code_text(page).strip() == text


def test_every_page_kind_is_built(built: Path, board: Leaderboard) -> None:
    for name in ("board/index.html", "board/compare/index.html", "board/changes/index.html",
                 "board/data/index.html", "board/submit/index.html",
                 "board/methodology/index.html", "board/leaderboard.json",
                 "board/leaderboard.csv", "board/leaderboard.schema.json",
                 "formats/index.html", "methodology/index.html"):
        assert (built / name).is_file(), name
    for task in board.tasks:
        assert (built / "board" / "tasks" / views.slug(task.task_id) / "index.html").is_file()
    compare = (built / "board" / "compare" / "index.html").read_text(encoding="utf-8")
    assert "ahead" in compare and "p = " in compare
    home = (built / "board" / "index.html").read_text(encoding="utf-8")
    assert "<svg class=\"ar-chart\"" in home and "built from commit" in home


def test_a_task_page_holds_only_its_own_entries(built: Path, board: Leaderboard) -> None:
    task = board.tasks[0]
    page = (built / "board" / "tasks" / views.slug(task.task_id) / "index.html").read_text(
        encoding="utf-8")
    own = [e.key for e in board.entries if e.task_id == task.task_id]
    other = [e.key for e in board.entries if e.task_id != task.task_id]
    assert all(f'data-key="{k}"' in page for k in own)
    assert not any(f'data-key="{k}"' in page for k in other)


def test_the_empty_board_shows_an_empty_state(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "empty"
    build(empty_board(), root=project, site_dir=out)
    home = (out / "board" / "index.html").read_text(encoding="utf-8")
    assert "No scored submissions yet" in home
    assert "ar-board" not in home


def test_templates_fail_on_an_undefined_name() -> None:
    env = environment()
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ v.nothing }}").render(v=views.DataView(1, 1, 1, "x"))


def test_pareto_frontier() -> None:
    points = [("cheap-bad", 40.0, 0.1), ("mid", 60.0, 0.5), ("dear-worse", 50.0, 1.0),
              ("dear-best", 90.0, 2.0)]
    assert views.pareto(points) == {"cheap-bad", "mid", "dear-best"}


@pytest.mark.parametrize("content", [None, b"{not json", b'{"schema_version": 1}'])
def test_a_bad_leaderboard_is_a_clear_error(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "leaderboard.json"
    if content is not None:
        path.write_bytes(content)
    result = subprocess.run([*ARENA, "--root", str(REPO), "site", "build", "--leaderboard",
                             str(path), "--output", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert str(path) in result.stderr and "arena score" in result.stderr
    assert "Traceback" not in result.stderr


def test_generated_pages_are_ignored_by_git() -> None:
    for path in ("site/docs/board/index.md", "site/mkdocs.board.yml"):
        result = subprocess.run(["git", "-C", str(REPO), "check-ignore", "-q", path])
        assert result.returncode == 0, path


def test_cli_builds_and_says_where_to_open(board: Leaderboard, project: Path,
                                           tmp_path: Path) -> None:
    source = tmp_path / "leaderboard.json"
    source.write_text(board.model_dump_json(), encoding="utf-8")
    result = subprocess.run([*ARENA, "--root", str(project), "site", "build", "--leaderboard",
                             str(source), "--output", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"open {tmp_path / 'out' / 'board' / 'index.html'}" in result.stdout
    assert "first build" in result.stdout


def test_methodology_figures_come_from_the_recorded_configuration(board: Leaderboard) -> None:
    from arena_bot.core.config import ArenaConfig
    from arena_bot.site.render import methodology_view

    changed = ArenaConfig.model_validate(
        {"scoring": {"min_submissions": 7, "policy": "seed002"}}
    ).model_dump(mode="json")
    options = board.options.model_copy(update={"configuration": changed})
    rows = {name: value for name, value, _ in
            methodology_view(board.model_copy(update={"options": options})).rows}
    assert rows["<code>scoring.min_submissions</code>"] == "7"
    assert rows["<code>scoring.policy</code>"] == '"seed002"'
    assert rows["<code>scoring.category_weights.debugging.speed</code>"] == "0.35"
