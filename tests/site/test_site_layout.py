"""Layout, charts, sorting / filters and the compare matrix in a real headless Chromium, at
1,366x768 and 390x844, on the sample board and on a 5,000-submission board.

Screenshots of the home, a task, a submission and the compare page go to
``$ARENA_SCREENSHOTS/layout/<board>-<width>/`` (default ``out/screenshots/layout/``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SHOTS = Path(os.environ.get("ARENA_SCREENSHOTS",
                            Path(__file__).resolve().parents[2] / "out" / "screenshots")) / "layout"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--hide-scrollbars")
DESKTOP, PHONE = (1366, 768), (390, 844)


@pytest.fixture(scope="module")
def chrome() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in FLAGS:
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


@pytest.fixture(scope="module", params=["sample", "large"])
def site(request: pytest.FixtureRequest) -> tuple[str, str]:
    """(board name, base URL) of the sample board's site and of the 5,000-submission one."""
    name = request.param
    fixture = "server" if name == "sample" else "large_server"
    return name, request.getfixturevalue(fixture)


#: Words (runs of non-space text) of table cells that the browser laid out on more than one
#: line: a break inside a word or a name.
BROKEN_WORDS = """
const out = [];
const cells = Array.from(document.querySelectorAll('table.ar-table td, table.ar-table th'))
  .filter(c => c.offsetParent !== null).slice(0, arguments[0]);
for (const cell of cells) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    if (node.parentElement.closest('details:not([open]) > :not(summary)')) continue;
    const re = /\\S+/g; let m;
    while ((m = re.exec(node.data))) {
      const range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects())
        .filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) out.push(m[0] + ' in ' + cell.textContent.trim().slice(0, 60));
    }
  }
}
return out;
"""

#: Pairs of chart labels whose boxes overlap, per chart.
OVERLAPS = """
const out = [];
for (const svg of document.querySelectorAll('svg.ar-chart')) {
  const boxes = Array.from(svg.querySelectorAll('text'))
    .map(t => [t.textContent, t.getBoundingClientRect()]).filter(b => b[1].width > 0);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i][1], b = boxes[j][1];
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5
        && b.top < a.bottom - 0.5) out.push(svg.id + ': ' + boxes[i][0] + ' / ' + boxes[j][0]);
  }
}
return out;
"""


def _pages(driver: webdriver.Chrome, base: str) -> dict[str, str]:
    """home, a task, a submission and the compare page, found by following links."""
    driver.get(f"{base}/board/")
    task = driver.find_element(By.CSS_SELECTOR, "#ar-tasks tbody a").get_attribute("href")
    driver.get(task)
    submission = driver.find_element(By.CSS_SELECTOR, "#ar-entries tbody td.ar-name a"
                                     ).get_attribute("href")
    return {"home": f"{base}/board/", "task": task, "submission": submission,
            "compare": f"{base}/board/compare/"}


def _shoot(driver: webdriver.Chrome, folder: Path, name: str, width: int) -> None:
    """A full-page screenshot: the window grows to the page's height, then shrinks back."""
    folder.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(int(height) + 140, 6000))
    driver.save_screenshot(str(folder / f"{name}.png"))


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1366x768", "390x844"])
def test_pages_fit_the_screen_and_keep_words_whole(
    chrome: webdriver.Chrome, site: tuple[str, str], size: tuple[int, int]
) -> None:
    name, base = site
    width, height = size
    chrome.set_window_size(width, height)
    pages = _pages(chrome, base)
    folder = SHOTS / f"{name}-{width}"
    for page, url in pages.items():
        chrome.set_window_size(width, height)
        chrome.get(url)
        overflow = chrome.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{page} ({url}) overflows the {width} px page by {overflow} px"
        if size == DESKTOP:
            broken = chrome.execute_script(BROKEN_WORDS, 3000)
            assert broken == [], f"{page}: words broken across lines: {broken[:5]}"
        overlaps = chrome.execute_script(OVERLAPS)
        assert overlaps == [], f"{page}: chart labels overlap: {overlaps[:5]}"
        _shoot(chrome, folder, page, width)
        assert (folder / f"{page}.png").stat().st_size > 10_000


def test_wide_tables_scroll_inside_with_rank_and_name_in_view(
    chrome: webdriver.Chrome, site: tuple[str, str]
) -> None:
    _, base = site
    chrome.set_window_size(*PHONE)
    chrome.get(f"{base}/board/")
    box = chrome.find_element(By.CSS_SELECTOR, "#ar-board").find_element(By.XPATH, "..")
    assert chrome.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth",
                                 box), "the board should be wider than a phone here"
    first = chrome.find_element(By.CSS_SELECTOR, "#ar-board tbody tr td:nth-child(2)")
    before = first.rect["x"]
    chrome.execute_script("arguments[0].scrollLeft = 600", box)
    assert chrome.execute_script("return arguments[0].scrollLeft", box) > 0
    assert abs(first.rect["x"] - before) < 1, "the name column scrolled out of view"
    rank = chrome.find_element(By.CSS_SELECTOR, "#ar-board tbody tr td:first-child")
    assert rank.rect["x"] + rank.rect["width"] <= first.rect["x"] + 1
    # The kept-in-view name cells hold their text (nothing spills under the next column).
    for url in _pages(chrome, base).values():
        chrome.get(url)
        spilling = chrome.execute_script("""
            return Array.from(document.querySelectorAll(
                '.ar-sticky .ar-name, .ar-sticky td:first-child'))
              .filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent.trim());""")
        assert spilling == [], f"{url}: text spills out of its sticky cell: {spilling[:3]}"


def _visible_column(driver: webdriver.Chrome, col: str) -> list[float]:
    headers = driver.find_elements(By.CSS_SELECTOR, "#ar-board thead th")
    index = next(i for i, h in enumerate(headers) if h.get_attribute("data-col") == col)
    rows = driver.find_elements(By.CSS_SELECTOR, "#ar-board tbody tr")
    return [float(r.find_elements(By.TAG_NAME, "td")[index].get_attribute("data-v"))
            for r in rows if r.is_displayed()]


def test_sorting_works_by_mouse_and_by_keyboard(
    chrome: webdriver.Chrome, site: tuple[str, str]
) -> None:
    _, base = site
    chrome.set_window_size(*DESKTOP)
    chrome.get(f"{base}/board/")
    ranks = _visible_column(chrome, "rank")
    assert ranks == sorted(ranks), "the board opens in Bradley-Terry order"
    bt = _visible_column(chrome, "bt")
    assert bt == sorted(bt, reverse=True)
    coverage = chrome.find_element(By.CSS_SELECTOR, '#ar-board th[data-col="coverage"] button')
    coverage.click()
    values = _visible_column(chrome, "coverage")
    assert values == sorted(values)
    # Keyboard: focus the header's button and press Enter (then Space) to sort.
    seed = chrome.find_element(By.CSS_SELECTOR, '#ar-board th[data-col="seed-rank"] button')
    chrome.execute_script("arguments[0].focus()", seed)
    assert chrome.switch_to.active_element == seed
    seed.send_keys(Keys.ENTER)
    values = _visible_column(chrome, "seed-rank")
    assert values == sorted(values)
    seed.send_keys(Keys.SPACE)
    assert _visible_column(chrome, "seed-rank") == sorted(values, reverse=True)
    # The Order control switches between the two named orders, by keyboard too.
    order = chrome.find_element(By.ID, "ar-order")
    chrome.execute_script("arguments[0].focus()", order)
    order.send_keys(Keys.ARROW_DOWN)
    assert order.get_attribute("value") == "seed002"
    assert _visible_column(chrome, "seed-rank") == sorted(_visible_column(chrome, "seed-rank"))
    order.send_keys(Keys.ARROW_UP)
    assert _visible_column(chrome, "rank") == sorted(_visible_column(chrome, "rank"))


def test_filters_work_by_keyboard(chrome: webdriver.Chrome, site: tuple[str, str]) -> None:
    _, base = site
    chrome.set_window_size(*DESKTOP)
    chrome.get(f"{base}/board/")
    rows = chrome.find_elements(By.CSS_SELECTOR, "#ar-board tbody tr")
    everyone = [r.get_attribute("data-label") for r in rows]
    search = chrome.find_element(By.ID, "ar-search")
    chrome.execute_script("arguments[0].focus()", search)
    search.send_keys(everyone[0].split(" / ")[1])
    shown = [r.get_attribute("data-label") for r in rows if r.is_displayed()]
    assert everyone[0] in shown and len(shown) < len(everyone)
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.DELETE)
    assert all(r.is_displayed() for r in rows)
    category = chrome.find_element(By.ID, "ar-category")
    chrome.execute_script("arguments[0].focus()", category)
    category.send_keys(Keys.ARROW_DOWN)
    assert category.get_attribute("value") != "*"
    coverage = _visible_column(chrome, "coverage")
    assert coverage and max(coverage) < len(
        chrome.find_elements(By.CSS_SELECTOR, "#ar-tasks tbody tr"))
    verified = chrome.find_element(By.ID, "ar-verified")
    chrome.execute_script("arguments[0].focus()", verified)
    verified.send_keys(Keys.SPACE)
    assert verified.is_selected()


def test_compare_matrix_gives_no_verdict_without_shared_tasks(
    chrome: webdriver.Chrome, site: tuple[str, str]
) -> None:
    name, base = site
    chrome.set_window_size(*DESKTOP)
    chrome.get(f"{base}/board/compare/")
    cells = chrome.find_elements(By.CSS_SELECTOR, "#ar-matrix td[data-verdict]")
    assert len(cells) >= 2
    seen = {(int(c.get_attribute("data-shared")), c.get_attribute("data-verdict"))
            for c in cells}
    for shared, verdict in seen:
        if shared < 3:
            assert verdict == "thin", f"a verdict on {shared} shared tasks"
    for cell in cells:
        if int(cell.get_attribute("data-shared")) == 0:
            cell.find_element(By.TAG_NAME, "summary").click()
            text = cell.find_element(By.CSS_SELECTOR, ".ar-pop").text
            assert "not enough overlap" in text and "ahead" not in text
            assert "shared tasks: 0" in text
            break
    else:
        assert name == "large", "the sample board has labels with no task in common"
    # Details on demand by keyboard: Enter on a cell's summary opens it.
    summary = cells[-1].find_element(By.TAG_NAME, "summary")
    chrome.execute_script("arguments[0].focus()", summary)
    summary.send_keys(Keys.ENTER)
    assert cells[-1].find_element(By.CSS_SELECTOR, ".ar-pop").is_displayed()
    if name == "large":
        assert any(v in ("a", "b", "none") for _, v in seen), (
            f"200 shared tasks should give verdicts: {sorted(seen)[:20]}")


def test_chart_points_are_all_identifiable(chrome: webdriver.Chrome,
                                           site: tuple[str, str]) -> None:
    _, base = site
    chrome.set_window_size(*DESKTOP)
    chrome.get(f"{base}/board/")
    key = chrome.find_elements(By.CSS_SELECTOR, "#ar-chart-key li")
    for chart in ("ar-cost", "ar-tokens"):
        points = chrome.find_elements(By.CSS_SELECTOR, f"#{chart} circle")
        assert len(points) == len(key) > 0
        for point in points:
            n = int(point.get_attribute("data-n"))
            title = point.find_element(By.TAG_NAME, "title").get_attribute("textContent")
            label = key[n - 1].text.split(". ", 1)[1].split(":")[0]
            assert title.startswith(f"{n}. {label}:")
        # Focusing a point (keyboard) marks its line in the key and its twin in the other
        # chart.
        chrome.execute_script("arguments[0].focus()", points[-1])
        n = int(points[-1].get_attribute("data-n"))
        assert "ar-hot" in (key[n - 1].get_attribute("class") or "")
        assert len(chrome.find_elements(By.CSS_SELECTOR, f'circle.ar-hot[data-n="{n}"]')) == 2
        chrome.execute_script("arguments[0].blur()", points[-1])
        assert "ar-hot" not in (key[n - 1].get_attribute("class") or "")
        ticks = chrome.find_elements(By.CSS_SELECTOR, f"#{chart} text.ticklabel")
        assert len(ticks) >= 8
        assert chrome.find_elements(By.CSS_SELECTOR, f"#{chart} .pareto")
