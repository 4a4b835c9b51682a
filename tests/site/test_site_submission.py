"""The page per submission: linked from every table, and what it shows (baseline, runs,
failing tests, merge report, patch, review flags, transcript timeline), built by the real
build from the scored board, and in a real browser."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from arena_bot.models.evaluation import (
    EvaluationResult,
    FeatureResult,
    ReviewFlag,
    RunResult,
    TestCaseResult,
)
from arena_bot.models.leaderboard import Leaderboard
from arena_bot.models.leaderboard import ReviewFlag as BoardFlag
from arena_bot.site import views
from arena_bot.site.render import environment
from arena_bot.site.submission import submission_view
from arena_bot.site.timeline import read_timeline

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "submissions"


def _page(built: Path, board: Leaderboard, key: str) -> str:
    slug = views.Slugs.of(board).entries[key]
    return (built / "board" / "s" / slug / "index.html").read_text(encoding="utf-8")


def test_every_entry_has_a_page_linked_from_its_tables(built: Path, board: Leaderboard) -> None:
    pages = {p.parent.name for p in (built / "board" / "s").glob("*/index.html")} - {"shell"}
    assert len(pages) == len(board.entries)
    linked: set[str] = set()
    for folder in ("tasks", "tools", "models"):
        for page in (built / "board" / folder).glob("*/index.html"):
            text = page.read_text(encoding="utf-8")
            found = set(re.findall(r'href="\.\./\.\./s/([^/"]+)/"', text))
            assert found, f"{page} links to no submission page"
            linked |= found
    assert linked == pages
    changes = (built / "board" / "changes" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'href="\.\./s/[^/"]+/"', changes)


def test_a_page_shows_scores_baseline_runs_and_patch(built: Path, board: Leaderboard,
                                                     hostile: str) -> None:
    entry = board.entries[0]
    page = _page(built, board, entry.key)
    assert f"<title>{entry.tool} / {entry.model} on {entry.task_id}" in page
    assert 'id="ar-versus"' in page and "Baseline median" in page
    assert page.count("<tr>") >= len(entry.runs)
    for run in entry.runs:
        assert f"<td>{run.run_id}</td>" in page
    assert '<pre class="ar-diff"' in page and '<span class="add">' in page
    # Contributor text is escaped on this page too.
    assert hostile not in page and "&lt;img" in page


def test_coop_page_has_the_merge_report(built: Path, board: Leaderboard) -> None:
    coop = board.entries[1]
    page = _page(built, board, coop.key)
    assert 'id="merge"' in page
    assert "Merge <strong>conflicts</strong> with strategy <code>union</code>" in page
    assert "conflict score 46 (MEDIUM): 2 conflict sections, 3 conflicting lines" in page
    assert "Feature 2 on the merged code: failed" in page
    single = _page(built, board, board.entries[2].key)
    assert 'id="merge"' not in single


def _reported_total(folder: str, name: str) -> int:
    """A sample submission's reported token total for the run whose transcript is ``name``
    (conftest's TRANSCRIPTS copies these samples' transcripts onto the first entries)."""
    spec = yaml.safe_load((REPO / "submissions" / folder / "submission.yaml")
                          .read_text(encoding="utf-8"))
    (run,) = [r for r in spec["runs"] if (r.get("transcript") or {}).get("file") == name]
    return int(run["tokens"]["total"])


def test_transcript_timelines_of_three_formats(built: Path, board: Leaderboard,
                                               transcribed: list[str]) -> None:
    openhands, claude, aider = (_page(built, board, key) for key in transcribed)
    # OpenHands: running token totals become each request's own; its tool names.
    assert '<ol class="ar-timeline">' in openhands
    assert '<span class="ar-tool">execute_bash</span>' in openhands
    assert re.search(r"[\d,]+ in / [\d,]+ out tokens", openhands)
    oh_total = _reported_total("slugkit-options/2026-11-05_openhands_deepseek-v3",
                               "trajectory.json")
    assert f"{oh_total:,} tokens" in openhands
    assert '<span class="ar-tool">' in claude and " out tokens" in claude
    # Claude Code: cached prompt tokens counted, each response's usage once (its content
    # blocks are separate lines): the submission's reported total again.
    cc_total = _reported_total("csvstat-summaries/2026-11-04_claude-code_claude-sonnet-4-5",
                               "session.jsonl")
    assert f"{cc_total:,} tokens" in claude
    assert 'class="ar-role-user"' in aider and 'class="ar-role-assistant"' in aider
    # A page without a transcript says the metrics are self-reported.
    other = _page(built, board, board.entries[5].key)
    assert "No transcript was submitted" in other


def test_timeline_redacts_secrets_and_folds_long_outputs(tmp_path: Path) -> None:
    secret = "sk-ant-" + "a1B2" * 10
    lines = [
        {"type": "user", "message": {"role": "user", "content": f"key is {secret}"}},
        {"type": "assistant", "message": {
            "id": "msg_1", "role": "assistant",
            "usage": {"input_tokens": 200, "cache_read_input_tokens": 1000,
                      "output_tokens": 80},
            "content": [{"type": "tool_use", "name": "Bash",
                         "input": {"command": "pytest -q"}}]}},
        {"type": "assistant", "message": {
            "id": "msg_1", "role": "assistant",
            "usage": {"input_tokens": 200, "cache_read_input_tokens": 1000,
                      "output_tokens": 80},
            "content": [{"type": "text", "text": "Running the tests."}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "content": "\n".join(f"line {i}" for i in range(50))}]}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n", "utf-8")
    timeline = read_timeline(path)
    assert [e.role for e in timeline.events] == ["user", "assistant", "assistant", "user"]
    assert secret not in timeline.events[0].text
    assert "[REDACTED:anthropic-key]" in timeline.events[0].text
    assert timeline.events[1].tools == ["Bash"]
    assert (timeline.events[1].input_tokens, timeline.events[1].output_tokens) == (1200, 80)
    assert timeline.events[2].input_tokens is None  # the same response: counted once
    assert timeline.events[3].folded and not timeline.events[0].folded
    assert timeline.tokens == 1280 and timeline.tool_calls == 1


def test_timeline_of_unreadable_or_huge_files_is_a_note(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    missing = read_timeline(tmp_path / "nope.jsonl")
    assert missing.events == [] and "could not be read" in missing.note
    binary = tmp_path / "x.json"
    binary.write_bytes(b"\x00\xff" * 10)
    unreadable = read_timeline(binary)
    assert unreadable.events == [] and "not text" in unreadable.note
    from arena_bot.site import timeline

    big = tmp_path / "big.jsonl"
    big.write_text('{"role": "user", "content": "hi"}\n' * 100, "utf-8")
    assert len(read_timeline(big).events) == 100
    monkeypatch.setattr(timeline, "MAX_BYTES", 1000)
    assert read_timeline(big).events == [] and "larger than" in read_timeline(big).note
    monkeypatch.setattr(timeline, "MAX_EVENTS", 10)
    small = tmp_path / "small.jsonl"
    small.write_text('{"role": "user", "content": "hi"}\n' * 25, "utf-8")
    capped = read_timeline(small)
    assert len(capped.events) == 10 and capped.hidden == 15


def test_failing_tests_reasons_and_review_flags_are_listed(
    board: Leaderboard, project: Path, tmp_path: Path
) -> None:
    # Scoring carries the stored result's flags onto the entry (review_flags): the page
    # lists the entry's flags, with what holds it, and the outliers only noted.
    entry = board.entries[3].model_copy(update={
        "review_flags": [BoardFlag(source="static", kind="test_files", file="tests/conftest.py",
                                   line=3, reason="the patch edits test machinery")],
        "review_status": "under-review", "rank": None})
    failing = FeatureResult(
        feature=1, status="failed", passed=False, apply_status="clean", tests_passed=4,
        tests_failed=1, reason="1 of 5 tests failed",
        tests=[TestCaseResult(name="tests/test_cli.py::test_max_length", outcome="failed",
                              message="AssertionError: 'a-b' != 'a'"),
               TestCaseResult(name="tests/test_cli.py::test_ok", outcome="passed")],
        review_flags=[ReviewFlag(file="tests/conftest.py", line=3,
                                 reason="the patch edits test machinery")])
    result = EvaluationResult(
        task_id=entry.task_id, submission_id=entry.submission_id, input_hash="0" * 32,
        harness_version="test", evaluated_at=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        runs=[RunResult(run_id=r.run_id, features=[failing]) for r in entry.runs])
    view = submission_view(entry, root=project, task=board.tasks[0],
                           slugs=views.Slugs.of(board), result=result)
    html = environment().get_template("submission.html.j2").render(v=view)
    assert "tests/test_cli.py::test_max_length" in html and "test_ok</code>" not in html
    assert "AssertionError: &#39;a-b&#39; != &#39;a&#39;" in html
    assert "1 of 5 tests failed" in html
    assert "<code>tests/conftest.py:3</code>" in html
    assert "the patch edits test machinery" in html
    assert "Under review:" in html
    # One row per flag of the entry, however many runs carried it, then the noted outliers.
    match = re.search(r'data-review-count="(\d+)"', html)
    assert match and int(match.group(1)) == len(entry.outliers) + 1


def test_a_patch_outside_the_folder_is_not_read(board: Leaderboard, tmp_path: Path) -> None:
    entry = board.entries[0]
    folder = tmp_path / "submissions" / entry.task_id / entry.submission_id
    folder.mkdir(parents=True)
    (tmp_path / "secret.patch").write_text("+secret\n", "utf-8")
    (folder / "submission.yaml").write_text(
        "runs:\n  - id: run-1\n    patches: [../../../secret.patch]\n", "utf-8")
    view = submission_view(entry, root=tmp_path, task=None, slugs=views.Slugs.of(board),
                           result=None)
    assert view.patches[0].missing and "secret" not in view.patches[0].html


def test_submission_page_in_a_browser(server: str, board: Leaderboard,
                                      transcribed: list[str]) -> None:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--window-size=1366,768"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(
        shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    try:
        slug = views.Slugs.of(board).entries[transcribed[0]]
        task = views.Slugs.of(board).tasks[board.entries[0].task_id]
        driver.get(f"{server}/board/tasks/{task}/")
        driver.find_element(By.CSS_SELECTOR, f'#ar-entries a[href$="/s/{slug}/"]').click()
        assert driver.current_url.endswith(f"/board/s/{slug}/")
        assert driver.find_element(By.TAG_NAME, "h1").text.startswith(board.entries[0].tool)
        # The theme works on the page (its stylesheet and search are there).
        assert driver.execute_script(
            "return getComputedStyle(document.querySelector('.md-header')).position"
        ) in ("sticky", "fixed")
        folded = [d for d in driver.find_elements(By.CSS_SELECTOR, ".ar-timeline details")]
        if folded:
            pre = folded[0].find_element(By.TAG_NAME, "pre")
            assert not pre.is_displayed()
            folded[0].find_element(By.TAG_NAME, "summary").click()
            assert pre.is_displayed()
        items = driver.find_elements(By.CSS_SELECTOR, ".ar-timeline li")
        assert len(items) > 10
        assert driver.execute_script(
            "return document.documentElement.scrollWidth <= "
            "document.documentElement.clientWidth")
    finally:
        driver.quit()


@pytest.fixture(autouse=True)
def _samples_exist() -> None:
    assert (SAMPLES / "slugkit-options").is_dir()


def test_a_rebuild_keeps_unchanged_pages_and_drops_removed_ones(
    board: Leaderboard, project: Path, generated: Path, transcribed: list[str], tmp_path: Path
) -> None:
    from arena_bot.site.build import build

    site = tmp_path / "site"
    results = generated / ".arena" / "results"
    first = build(board, root=project, site_dir=site, results=results)
    assert first.submissions == len(board.entries)
    slugs = views.Slugs.of(board)
    pages = site / "board" / "s"
    kept, gone, changed = (pages / slugs.entries[board.entries[i].key] / "index.html"
                           for i in (4, 5, 6))
    before = kept.stat().st_ino
    again = build(board, root=project, site_dir=site, results=results)
    assert again.submissions == 0  # nothing changed: no page rewritten
    assert kept.stat().st_ino == before and (pages / "shell" / "index.html").is_file()
    entries = list(board.entries)
    entries[6] = entries[6].model_copy(update={"contributor": "someone-else"})
    del entries[5]
    third = build(board.model_copy(update={"entries": entries}), root=project, site_dir=site,
                  results=results)
    assert third.submissions == 1
    assert not gone.parent.exists()
    assert "someone-else" in changed.read_text(encoding="utf-8")
    assert kept.stat().st_ino == before
    assert not (tmp_path / ".site-submission-pages").exists()
    assert len(list(pages.glob("*/index.html"))) == len(entries) + 1
