"""The built site in a real headless Chromium (Debian's ``chromium`` via Selenium)."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from support.httpserver import serving

from arena_bot.models.leaderboard import Leaderboard

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
#: Screenshots go here (CI keeps them as artifacts; never committed).
#: The default is the repository's ``out/`` (ignored by git), wherever pytest is started from.
SHOTS = Path(os.environ.get("ARENA_SCREENSHOTS",
                            Path(__file__).resolve().parents[2] / "out" / "screenshots"))


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-extensions",
                "--window-size=1280,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _open(driver: webdriver.Chrome, url: str, shot: str) -> None:
    driver.get_log("performance")  # drop what earlier pages logged
    driver.get_log("browser")
    driver.get(url)
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{shot}.png"))


def _column(driver: webdriver.Chrome, table: str, index: int) -> list[str]:
    rows = driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")
    return [r.find_elements(By.TAG_NAME, "td")[index].text for r in rows if r.is_displayed()]


def _requested(driver: webdriver.Chrome) -> list[str]:
    urls = []
    for item in driver.get_log("performance"):
        message = json.loads(item["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def test_home_renders_without_console_errors_or_foreign_requests(
    browser: webdriver.Chrome, server: str
) -> None:
    _open(browser, f"{server}/board/", "home")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Leaderboard"
    assert len(_column(browser, "ar-board", 1)) >= 3
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    requested = _requested(browser)
    assert requested, "the performance log recorded no request at all"
    foreign = [u for u in requested if urlparse(u).netloc not in ("", urlparse(server).netloc)
               and not u.startswith("data:")]
    assert foreign == []


def _index(driver: webdriver.Chrome, col: str) -> int:
    headers = driver.find_elements(By.CSS_SELECTOR, "#ar-board thead th")
    return next(i for i, h in enumerate(headers) if h.get_attribute("data-col") == col)


def _values(driver: webdriver.Chrome, col: str) -> list[float]:
    index = _index(driver, col)
    rows = driver.find_elements(By.CSS_SELECTOR, "#ar-board tbody tr")
    return [float(r.find_elements(By.TAG_NAME, "td")[index].get_attribute("data-v"))
            for r in rows if r.is_displayed()]


def test_clicking_a_header_sorts_numerically(browser: webdriver.Chrome, server: str) -> None:
    _open(browser, f"{server}/board/", "home-sorted")
    before = _values(browser, "coverage")
    header = browser.find_elements(By.CSS_SELECTOR, "#ar-board thead th button")[
        _index(browser, "coverage")]
    header.click()
    ascending = _values(browser, "coverage")
    assert ascending == sorted(ascending)
    assert [c.split("/")[0] for c in _column(browser, "ar-board", _index(browser, "coverage"))
            ] == [str(int(v)) for v in ascending]
    header.click()
    descending = _values(browser, "coverage")
    assert descending == sorted(descending, reverse=True)
    overall = browser.find_elements(By.CSS_SELECTOR, "#ar-board thead th button")[
        _index(browser, "overall")]
    overall.click()
    scores = [float(v.split()[0]) for v in _column(browser, "ar-board", _index(browser,
                                                                              "overall"))]
    assert scores == sorted(scores)
    assert before != ascending or len(set(ascending)) == 1


def test_filtering_by_category_changes_the_board(browser: webdriver.Chrome, server: str,
                                                 board: Leaderboard) -> None:
    _open(browser, f"{server}/board/", "home-filter")
    data = json.loads(browser.find_element(By.ID, "ar-filter-data").get_attribute("textContent"))
    before = _values(browser, "coverage")
    select = Select(browser.find_element(By.ID, "ar-category"))
    category = select.options[1].get_attribute("value")
    select.select_by_value(category)
    expected = data[f"{category}|*"]
    shown = browser.find_elements(By.CSS_SELECTOR, "#ar-board tbody tr")
    visible = {r.get_attribute("data-label") for r in shown if r.is_displayed()}
    assert visible == set(expected)
    index = _index(browser, "coverage")
    tasks = {r.get_attribute("data-label"): r.find_elements(By.TAG_NAME, "td")[index].text
             for r in shown if r.is_displayed()}
    assert all(int(tasks[label].split("/")[0]) == expected[label][1] for label in visible)
    # Coverage counts the tasks of the chosen category only.
    of = sum(1 for t in board.tasks if t.category == category)
    assert all(tasks[label].split("/")[1] == str(of) for label in visible)
    assert of < len(board.tasks)
    means = {r.get_attribute("data-label"): r.find_element(By.CSS_SELECTOR, ".ar-mean").text
             for r in shown if r.is_displayed()}
    assert all(float(means[label]) == round(expected[label][0], 1) for label in visible)
    assert _values(browser, "coverage") != before or len(visible) < len(before)


def test_search_narrows_the_board(browser: webdriver.Chrome, server: str) -> None:
    _open(browser, f"{server}/board/", "home-search")
    first = browser.find_element(By.CSS_SELECTOR, "#ar-board tbody tr").get_attribute(
        "data-label")
    browser.find_element(By.ID, "ar-search").send_keys(first)
    visible = [r.get_attribute("data-label")
               for r in browser.find_elements(By.CSS_SELECTOR, "#ar-board tbody tr")
               if r.is_displayed()]
    assert first in visible and all(first.lower() in v.lower() for v in visible)


def test_a_task_page_opens_through_its_link_and_shows_flags_and_text(
    browser: webdriver.Chrome, server: str, hostile: str
) -> None:
    _open(browser, f"{server}/board/", "home-link")
    link = browser.find_element(By.CSS_SELECTOR, "#ar-tasks tbody a")
    link.click()
    assert "/board/tasks/" in browser.current_url
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "task.png"))
    flagged = browser.find_elements(By.CSS_SELECTOR, "tr.ar-flagged")
    assert flagged, "the sample board has flagged entries on its first task"
    flagged[0].find_element(By.CSS_SELECTOR, ".ar-flagbox summary").click()
    reason = flagged[0].find_element(By.CSS_SELECTOR, ".ar-reason").text
    assert len(reason) > 10
    contributors = [c.text for c in browser.find_elements(By.CSS_SELECTOR, ".ar-contributor")]
    assert hostile in contributors
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.find_elements(By.CSS_SELECTOR, ".ar-contributor img") == []


def test_a_tool_named_in_markdown_shows_its_name_and_no_link(
    browser: webdriver.Chrome, server: str, board: Leaderboard, markdown_hostile: str
) -> None:
    from arena_bot.site import views

    tool = views.Slugs.of(board).tools[markdown_hostile]
    _open(browser, f"{server}/board/tools/{tool}/", "tool-markdown")
    heading = browser.find_element(By.TAG_NAME, "h1").text
    assert heading.startswith(markdown_hostile)
    links = [a.get_attribute("href") or "" for a in browser.find_elements(By.TAG_NAME, "a")]
    assert not [href for href in links if href.startswith("javascript:")]
    assert browser.find_elements(By.CSS_SELECTOR, "article img, article strong") == []


def test_phone_width_keeps_the_board_in_a_scrolling_box(
    browser: webdriver.Chrome, server: str
) -> None:
    browser.set_window_size(390, 844)
    try:
        _open(browser, f"{server}/board/", "home-phone")
        page_width = browser.execute_script("return document.documentElement.scrollWidth")
        assert page_width <= 400
    finally:
        browser.set_window_size(1280, 1000)


def test_verified_filter_on_home_shows_only_verified_labels(
    browser: webdriver.Chrome, server: str
) -> None:
    _open(browser, f"{server}/board/", "home-verified")
    data = json.loads(browser.find_element(By.ID, "ar-filter-data").get_attribute("textContent"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#ar-board tbody tr")
    everyone = {r.get_attribute("data-label") for r in rows if r.is_displayed()}
    browser.find_element(By.ID, "ar-verified").click()
    visible = {r.get_attribute("data-label") for r in rows if r.is_displayed()}
    assert visible == set(data["*|*|verified"]) & everyone
    assert visible and visible != everyone
    browser.find_element(By.ID, "ar-verified").click()
    assert {r.get_attribute("data-label") for r in rows if r.is_displayed()} == everyone


def test_verified_only_on_a_task_page_hides_self_reported_rows(
    browser: webdriver.Chrome, server: str
) -> None:
    _open(browser, f"{server}/board/", "home-to-task")
    browser.find_element(By.CSS_SELECTOR, "#ar-tasks tbody a").click()
    rows = browser.find_elements(By.CSS_SELECTOR, "#ar-entries tbody tr")
    verified = [r for r in rows if r.get_attribute("data-verified") == "1"]
    assert 0 < len(verified) < len(rows)
    browser.find_element(By.CSS_SELECTOR, "input.ar-verified-only").click()
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / "task-verified.png"))
    shown = [r for r in rows if r.is_displayed()]
    assert shown == verified
    assert all("✓ consistent with its transcript" in r.text for r in shown)
    browser.find_element(By.CSS_SELECTOR, "input.ar-verified-only").click()
    assert all(r.is_displayed() for r in rows)
    bars = browser.find_elements(By.CSS_SELECTOR, "svg.ar-dist rect.bar")
    assert len(bars) == 10
    # Every scored entry is in the distribution: the ranked ones and those under review.
    assert sum(int(b.get_attribute("data-count")) for b in bars) == len(
        [r for r in rows if r.find_elements(By.TAG_NAME, "td")[0].text[:1].isdigit()
         or r.find_elements(By.TAG_NAME, "td")[0].text == "under review"])


def test_the_404_page_works_under_a_pages_sub_path(
    browser: webdriver.Chrome, board: Leaderboard, project: Path, tmp_path: Path
) -> None:
    from arena_bot.site.build import build

    site = tmp_path / "site"
    build(board, root=project, site_dir=site, site_url="https://owner.example/arena/")
    handler = functools.partial(_SubPathHandler, directory=str(site))
    with serving(http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)) as base:
        _open(browser, f"{base}/arena/board/tasks/no-such-task/deeper/", "404-subpath")
        assert "404" in browser.find_element(By.TAG_NAME, "h1").text
        failed = _failed_responses(browser)
        assert [u for u in failed if not u.endswith("/deeper/")] == []
        loaded = browser.execute_script(
            "return Array.from(document.styleSheets).map(s => s.href || '')")
        assert any("/arena/assets/stylesheets/main." in h for h in loaded)
        assert any(h.endswith("/arena/board/assets/board.css") for h in loaded)
        link = browser.find_element(By.CSS_SELECTOR, "a.md-header__button.md-logo")
        link.click()
        assert urlparse(browser.current_url).path == "/arena/"


def _failed_responses(driver: webdriver.Chrome) -> list[str]:
    failed = []
    for item in driver.get_log("performance"):
        message = json.loads(item["message"])["message"]
        if message["method"] == "Network.responseReceived":
            response = message["params"]["response"]
            if response["status"] >= 400:
                failed.append(response["url"])
    return failed


class _SubPathHandler(http.server.SimpleHTTPRequestHandler):
    """GitHub Pages for a project site: everything under /arena/, 404.html for misses."""

    def translate_path(self, path: str) -> str:
        prefix = "/arena"
        return super().translate_path(path[len(prefix):] if path.startswith(prefix) else "/-")

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        if code != 404:
            super().send_error(code, message, explain)
            return
        body = (Path(self.directory) / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass
