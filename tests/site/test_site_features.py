"""Split-file reading, the change history, verified marks, per-task charts and details,
names that slug alike, and the hook that keeps tables out of the Markdown and search passes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena_bot.core.errors import ArenaError, InputError
from arena_bot.models.leaderboard import Leaderboard
from arena_bot.site import history, source, views
from arena_bot.site.build import build
from arena_bot.site.render import distribution_svg

#: Two model names that slug alike (the board fixture gives them to two entries).
ALIKE = ("GPT-4o", "gpt 4o")
ARENA = [sys.executable, "-c", "from arena_bot.cli import main; main()"]


def _page(built: Path, *parts: str) -> str:
    return (built.joinpath("board", *parts) / "index.html").read_text(encoding="utf-8")


# --- (b) the split files -------------------------------------------------------------------

def test_split_files_are_read_and_give_the_same_board(generated: Path, tmp_path: Path) -> None:
    out = generated / "out"
    full = Leaderboard.model_validate_json((out / "leaderboard.json").read_bytes())
    for path in (out, out / "leaderboard.json"):
        loaded = source.load(path)
        assert loaded.kind == "split"
        assert loaded.board == full
        assert loaded.json_file == out / "leaderboard.json"
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(out / "leaderboard.json", alone)
    fallback = source.load(alone / "leaderboard.json")
    assert fallback.kind == "full" and fallback.board == full


def _broken_copy(generated: Path, tmp_path: Path, damage: str) -> tuple[Path, Path]:
    out = tmp_path / "out"
    shutil.copytree(generated / "out", out)
    first = json.loads((out / "board.json").read_text())["tasks"][0]["task_id"]
    task_file = out / "tasks" / f"{first}.json"
    if damage == "task-not-json":
        task_file.write_text("{oops", encoding="utf-8")
        return out, task_file
    if damage == "task-missing":
        task_file.unlink()
        return out, task_file
    if damage == "task-other":
        other = json.loads((out / "board.json").read_text())["tasks"][1]["task_id"]
        shutil.copy(out / "tasks" / f"{other}.json", task_file)
        return out, task_file
    if damage == "task-stale":
        data = json.loads(task_file.read_text())
        data["task"]["scored"] += 1
        task_file.write_text(json.dumps(data), encoding="utf-8")
        return out, task_file
    if damage == "digests-stale":
        digests = json.loads((out / "tasks" / "digests.json").read_text())
        digests.pop(first)
        (out / "tasks" / "digests.json").write_text(json.dumps(digests))
        return out, out / "tasks" / "digests.json"
    (out / "board.json").write_text('{"schema_version": 1}', encoding="utf-8")
    return out, out / "board.json"


@pytest.mark.parametrize("damage", ["task-not-json", "task-missing", "task-other",
                                    "task-stale", "digests-stale", "board-incomplete"])
def test_a_damaged_split_file_is_a_clear_error(generated: Path, project: Path, tmp_path: Path,
                                               damage: str) -> None:
    out, culprit = _broken_copy(generated, tmp_path, damage)
    result = subprocess.run([*ARENA, "--root", str(project), "site", "build", "--leaderboard",
                             str(out), "--output", str(tmp_path / "site")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert str(culprit) in result.stderr and "arena score" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "site").exists()


# --- (a) the hook: tables skip Markdown and search -----------------------------------------

def test_pre_rendered_html_lands_whole_and_stays_out_of_search(built: Path,
                                                               board: Leaderboard) -> None:
    for page in built.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"arena:(html|end|slot)", text), page
    task = board.tasks[0]
    page = _page(built, "tasks", views.Slugs.of(board).tasks[task.task_id])
    assert page.count("data-key=") == sum(1 for e in board.entries if e.task_id == task.task_id)
    assert page.index("<h1") < page.index('id="ar-entries"') < page.index("md-footer")
    # The headings stay Markdown: in the table of contents, with permalinks, in order.
    assert 'href="#submissions"' in page and 'href="#baseline"' in page
    assert (page.index('id="submissions"') < page.index('id="ar-entries"')
            < page.index('id="score-distribution"') < page.index("ar-dist")
            < page.index('id="baseline"'))
    index = (built / "search" / "search_index.json").read_text(encoding="utf-8")
    assert task.title in index
    # Table cells (contributors, keys) are not indexed: search finds pages, not rows.
    assert board.entries[1].contributor not in index
    assert board.entries[1].submission_id not in index


# --- (c) verified marks --------------------------------------------------------------------

def test_verified_entries_are_marked_and_counted(built: Path, board: Leaderboard) -> None:
    task = board.tasks[0]
    page = _page(built, "tasks", views.Slugs.of(board).tasks[task.task_id])
    own = [e for e in board.entries if e.task_id == task.task_id]
    verified = [e for e in own if e.metrics_level != "self-reported"]
    assert 0 < len(verified) < len(own)
    for e in own:
        flag = "1" if e.metrics_level != "self-reported" else "0"
        assert f'data-key="{e.key}" data-verified="{flag}"' in page
    assert page.count("✓ consistent with its transcript</span>") == len(verified)
    home = _page(built)
    data = json.loads(re.search(r'id="ar-filter-data">(.*?)</script>', home, re.S).group(1))
    assert set(data["*|*|verified"]) == {e.label for e in board.entries
                                         if e.metrics_level != "self-reported" and e.scores}


def test_review_state_is_shown_where_the_entry_is(built: Path, board: Leaderboard) -> None:
    """A held entry says "under review" instead of a rank and lists each flag with its file
    and line; a cleared one shows who cleared it and why."""
    held = next(e for e in board.entries if e.review_status == "under-review" and
                e.review_flags and e.review_flags[0].kind == "test-caller-oracle")
    cleared = next(e for e in board.entries if e.review_status == "cleared")
    for entry, expected in ((held, ["under review</span>",
                                    "test-caller-oracle at pkg/core.py:12",
                                    "walks tb_frame.f_back to the calling test",
                                    "⚑ canary"]),
                            (cleared, ["cleared by @maint-1 on 2026-11-20: "
                                       "the frame walk is the logger&#39;s"])):
        page = _page(built, "tasks", views.Slugs.of(board).tasks[entry.task_id])
        row = page.split(f'data-key="{entry.key}"', 1)[1].split("</tr>", 1)[0]
        for text in expected:
            assert text in row, (text, row[:400])


# --- (e) distribution chart, per-feature results and merge analysis ------------------------

def test_distribution_bins() -> None:
    svg = distribution_svg([0.0, 9.99, 10.0, 55.5, 100.0, 100.0])
    counts = [int(n) for n in re.findall(r'data-count="(\d+)"', svg)]
    assert counts == [2, 1, 0, 0, 0, 1, 0, 0, 0, 2]
    assert "<script" not in svg and "http" not in svg.replace("http://www.w3.org", "")
    assert "No scored submissions" in distribution_svg([])


def test_task_page_shows_chart_features_and_merge(built: Path, board: Leaderboard) -> None:
    task = board.tasks[0]
    page = _page(built, "tasks", views.Slugs.of(board).tasks[task.task_id])
    counts = [int(n) for n in re.findall(r'data-count="(\d+)"', page)]
    assert sum(counts) == sum(1 for e in board.entries if e.task_id == task.task_id and e.scores)
    coop = board.entries[1]
    row = re.search(rf'<tr[^>]*data-key="{re.escape(coop.key)}".*?</tr>', page, re.S).group(0)
    assert "conflicts, score 46 (MEDIUM); both features pass in 0/" in row
    assert "F1 ✓" in row and "F2 ✗" in row
    solo = board.entries[2]
    row = re.search(rf'<tr[^>]*data-key="{re.escape(solo.key)}".*?</tr>', page, re.S).group(0)
    passed = solo.runs[0].features_passed == 1
    assert ("F1 ✓" if passed else "F1 ✗") in row
    other = _page(built, "tasks", views.Slugs.of(board).tasks[board.tasks[1].task_id])
    assert "Merge (coop)" in page and "Merge (coop)" not in other


# --- (f) names that slug alike -------------------------------------------------------------

def test_names_that_slug_alike_get_their_own_pages(built: Path, board: Leaderboard) -> None:
    slugs = views.unique_slugs(ALIKE)
    assert len(set(slugs.values())) == 2
    for name, page_slug in slugs.items():
        page = _page(built, "models", page_slug)
        heading = re.search(r"<h1[^>]*>(.*?)<small>", page, re.S).group(1).strip()
        assert heading == name
        keys = [e.key for e in board.entries if e.model == name]
        assert keys and all(f'data-key="{k}"' in page for k in keys)
    pages = _page(built, "pages")
    assert all(f'href="../models/{s}/"' in pages for s in slugs.values())


def test_unique_slugs_keep_urls_stable() -> None:
    assert views.unique_slugs(["GPT-4o"]) == {"GPT-4o": "gpt-4o"}
    both = views.unique_slugs(["gpt-4o", "GPT-4o"])
    assert both["gpt-4o"] == "gpt-4o" and both["GPT-4o"].startswith("gpt-4o-")
    three = views.unique_slugs(["gpt-4o", "GPT-4o", "gpt 4o"])
    assert three["GPT-4o"] == both["GPT-4o"] and len(set(three.values())) == 3


# --- (d) the change history ----------------------------------------------------------------

def _state(overall: float | None, review: bool = False) -> history.EntryState:
    return history.EntryState(task_id="t", label="A / m", status="scored", overall=overall,
                              needs_review=review)


def test_compare_finds_every_kind_of_change() -> None:
    before = {"t/a": _state(50.0), "t/b": _state(60.0), "t/c": _state(70.0),
              "t/d": _state(80.0)}
    after = {"t/b": _state(60.001), "t/c": _state(65.0), "t/d": _state(80.0, review=True),
             "t/e": _state(40.0)}
    found = {(c.key, c.kind) for c in history.compare(before, after)}
    assert found == {("t/a", "removed"), ("t/c", "rescored"), ("t/d", "flagged"),
                     ("t/e", "added")}


def test_same_inputs_keep_the_log(board: Leaderboard) -> None:
    first = history.next_snapshot(board, None, built_from="a", updated="1")
    assert first.log == []
    moved = board.model_copy(update={"input_digest": "f" * 64, "entries": board.entries[1:]})
    second = history.next_snapshot(moved, first, built_from="b", updated="2")
    assert [c.kind for c in second.log[0].changes] == ["removed"]
    again = history.next_snapshot(moved, second, built_from="c", updated="3")
    assert again.log == second.log


def test_a_damaged_snapshot_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "snapshot.json"
    bad.write_text("[]", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        history.read_previous(bad)
    assert caught.value.path == bad and "--previous" in (caught.value.hint or "")
    assert history.read_previous(tmp_path / "none.json") is None


def test_changes_page_across_builds(board: Leaderboard, project: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build(board, root=project, site_dir=site)
    assert "This is the first build of the board" in _page(site, "changes")
    removed, rescored = board.entries[3], board.entries[4]
    assert rescored.scores is not None
    scores = rescored.scores.model_copy(update={"overall": rescored.scores.overall / 2})
    added = board.entries[5].model_copy(update={"key": f"{board.entries[5].task_id}/new-one",
                                                "submission_id": "new-one"})
    entries = [e for e in board.entries if e.key != removed.key]
    entries = [e.model_copy(update={"scores": scores}) if e.key == rescored.key else e
               for e in entries] + [added]
    changed = board.model_copy(update={"input_digest": "e" * 64, "entries": entries})
    times = build(changed, root=project, site_dir=site)
    assert times.changes == ("since the previous build: 1 added, 1 removed, 1 rescored, "
                             "0 flagged, 0 unflagged")
    for _ in range(2):  # a rebuild of the same inputs keeps the record
        page = _page(site, "changes")
        assert "first build" not in page
        rows = dict(re.findall(r'<tr data-kind="(\w+)"><td>\w+</td><td>(?:<a [^>]*>)?([^<]+)<',
                               page))
        assert rows == {"removed": removed.key, "rescored": rescored.key, "added": added.key}
        assert "1 added, 1 removed, 1 re-scored" in page
        build(changed, root=project, site_dir=site)


def test_cli_refuses_a_bad_previous_snapshot(board: Leaderboard, project: Path,
                                             tmp_path: Path) -> None:
    source_file = tmp_path / "leaderboard.json"
    source_file.write_text(board.model_dump_json(), encoding="utf-8")
    bad = tmp_path / "snapshot.json"
    bad.write_text('{"schema_version": 1}', encoding="utf-8")
    for previous in (bad, tmp_path / "absent.json"):
        result = subprocess.run([*ARENA, "--root", str(project), "site", "build",
                                 "--leaderboard", str(source_file), "--previous", str(previous),
                                 "--output", str(tmp_path / "out")],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 1 and str(previous) in result.stderr
        assert "Traceback" not in result.stderr


def test_a_bad_site_url_is_refused(board: Leaderboard, project: Path, tmp_path: Path) -> None:
    with pytest.raises(ArenaError, match="not an http"):
        build(board, root=project, site_dir=tmp_path / "out", site_url="owner.github.io/x")
