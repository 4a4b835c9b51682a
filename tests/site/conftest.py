"""A real board (synthetic repository scored by the real `arena score`), built into a site."""

from __future__ import annotations

import datetime as dt
import functools
import http.server
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.httpserver import serving
from support.synthetic_board import generate

from arena_bot.models.evaluation import (
    ConflictDetails,
    EvaluationResult,
    FeatureResult,
    MergeResult,
)
from arena_bot.models.leaderboard import ClearedReview, Entry, Leaderboard, ReviewFlag

REPO = Path(__file__).resolve().parents[2]
#: Contributor text with HTML in it: it must show as text, never become markup.
HOSTILE = '<img src="x" onerror="window.__pwned=1"><b>bold</b>'


#: A tool's name written in Markdown (a heading, a script link, emphasis, an image, code, a
#: table cell's end): the pages Markdown renders must show it as written, never as markup.
MARKDOWN_HOSTILE = "# [x](javascript:x) **b** ![i](y) `c`|"

#: Two model names that slug alike: each must get its own page.
ALIKE = ("GPT-4o", "gpt 4o")


def _generate(root: Path) -> None:
    generate(root, n_submissions=40, n_tasks=4)
    arena = [sys.executable, "-c", "from arena_bot.cli import main; main()"]
    subprocess.run([*arena, "--root", str(root), "score", "--output", str(root / "out")],
                   check=True, capture_output=True)


def _coop_result(root: Path, entry: Entry) -> None:
    """A newer stored result for ``entry`` as a coop run: merged with conflicts (union
    retry), feature 1 passing and feature 2 failing on the merged code."""
    folder = root / ".arena" / "results" / entry.task_id
    (older,) = folder.glob(f"{entry.submission_id}.*.json")
    result = EvaluationResult.model_validate_json(older.read_bytes())
    merged = [
        FeatureResult(feature=1, status="passed", passed=True, apply_status="clean",
                      tests_passed=5),
        FeatureResult(feature=2, status="failed", passed=False, apply_status="clean",
                      tests_passed=2, tests_failed=1),
    ]
    merge = MergeResult(status="conflicts", strategy="union", conflict_score=46,
                        severity="MEDIUM",
                        conflict_details=ConflictDetails(conflict_sections=2, conflict_lines=3,
                                                         avg_lines_per_conflict=1.5),
                        features=merged, both_passed=False)
    newer = result.model_copy(update={
        "evaluated_at": result.evaluated_at + dt.timedelta(days=1),
        "runs": [run.model_copy(update={"merge": merge}) for run in result.runs],
    })
    (folder / f"{entry.submission_id}.{'f' * 32}-{'0' * 12}.json").write_text(
        newer.model_dump_json(), "utf-8")


@pytest.fixture(scope="session")
def hostile() -> str:
    return HOSTILE


@pytest.fixture(scope="session")
def markdown_hostile() -> str:
    return MARKDOWN_HOSTILE


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic repository scored by the real `arena score` (out/ and .arena/results/)."""
    root = tmp_path_factory.mktemp("board")
    _generate(root)
    return root


@pytest.fixture(scope="session")
def board(generated: Path) -> Leaderboard:
    """The scored board with what the sample lacks: hostile contributor text, two task
    categories, verified entries, a coop entry (with a stored merge) and model names that
    slug alike."""
    board = Leaderboard.model_validate_json((generated / "out" / "leaderboard.json").read_bytes())
    entries = list(board.entries)
    entries[0] = entries[0].model_copy(update={"contributor": HOSTILE})
    # One tool renamed everywhere it appears (its entries and its labels' aggregates).
    renamed = entries[3].tool
    entries = [e.model_copy(update={"tool": MARKDOWN_HOSTILE,
                                    "label": f"{MARKDOWN_HOSTILE} / {e.model}"})
               if e.tool == renamed else e for e in entries]
    tools = [a.model_copy(update={"tool": MARKDOWN_HOSTILE,
                                  "label": f"{MARKDOWN_HOSTILE} / {a.model}"})
             if a.tool == renamed else a for a in board.tools]
    for i in range(0, len(entries), 3):
        entries[i] = entries[i].model_copy(update={"metrics_level": "transcript-consistent",
                                                    "metrics_reasons": []})
    # One entry held for review (a static flag with file and line, a runtime one) and one
    # cleared by a review file, as the scorer writes them.
    flags = [ReviewFlag(source="static", kind="test-caller-oracle", file="pkg/core.py",
                        line=12, reason="walks tb_frame.f_back to the calling test"),
             ReviewFlag(source="runtime", kind="canary", reason="a canary test passed")]
    entries[2] = entries[2].model_copy(update={
        "review_flags": flags, "review_status": "under-review", "rank": None,
        "percentile": None, "statistically_tied": None, "significance_rank": None})
    entries[4] = entries[4].model_copy(update={
        "review_flags": flags[:1], "review_status": "cleared",
        "review": ClearedReview(by="maint-1", reason="the frame walk is the logger's",
                                date="2026-11-20", file="reviews/x.yaml",
                                flags_cleared=flags[:1])})
    entries[1] = entries[1].model_copy(update={"setting": "coop"})
    _coop_result(generated, entries[1])
    for i, model in zip((-1, -2), ALIKE, strict=True):
        e = entries[i]
        entries[i] = e.model_copy(update={"model": model, "label": f"{e.tool} / {model}"})
    # The synthetic tasks are copies of one sample task; give them two categories so the
    # board's category filter has something to filter.
    tasks = [t.model_copy(update={"category": ("cli", "data")[i % 2]})
             for i, t in enumerate(board.tasks)]
    return board.model_copy(update={"entries": entries, "tasks": tasks, "tools": tools})


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's MkDocs project and sample submissions to build into."""
    root = tmp_path_factory.mktemp("repo")
    subprocess.run(["cp", "-r", str(REPO / "site"), str(root / "site")], check=True)
    subprocess.run(["cp", "-r", str(REPO / "submissions"), str(root / "submissions")],
                   check=True)
    for stale in ("docs/board", "mkdocs.board.yml"):
        subprocess.run(["rm", "-rf", str(root / "site" / stale)], check=True)
    return root


#: Real transcripts and patches from the sample submissions, attached to synthetic ones so
#: their pages show a timeline of each importer's format.
TRANSCRIPTS = (
    ("slugkit-options/2026-11-05_openhands_deepseek-v3", "trajectory.json", "openhands"),
    ("csvstat-summaries/2026-11-04_claude-code_claude-sonnet-4-5", "session.jsonl",
     "claude-code"),
    ("ttlcache-bugs/2026-11-08_aider_gemini-2.5-pro", "aider.chat.history.md", "aider-history"),
)


def with_transcripts(board: Leaderboard, generated: Path, project: Path) -> list[str]:
    """Copy the board's submission folders into ``project`` and give the first entries a
    real sample transcript each; return those entries' keys."""
    import yaml

    for task in (generated / "submissions").iterdir():
        if task.is_dir():
            shutil.copytree(task, project / "submissions" / task.name, dirs_exist_ok=True)
    keys = []
    for entry, (sample, name, fmt) in zip(board.entries, TRANSCRIPTS, strict=False):
        folder = project / "submissions" / entry.task_id / entry.submission_id
        shutil.copy(REPO / "submissions" / sample / name, folder / name)
        spec = yaml.safe_load((folder / "submission.yaml").read_text(encoding="utf-8"))
        spec["runs"][0]["transcript"] = {"file": name, "format": fmt}
        (folder / "submission.yaml").write_text(yaml.safe_dump(spec, sort_keys=False),
                                                encoding="utf-8")
        keys.append(entry.key)
    return keys


@pytest.fixture(scope="session")
def transcribed(board: Leaderboard, project: Path, generated: Path) -> list[str]:
    return with_transcripts(board, generated, project)


@pytest.fixture(scope="session")
def built(board: Leaderboard, project: Path, generated: Path, transcribed: list[str]) -> Path:
    from arena_bot.site.build import build

    out = project / "site_build"
    build(board, root=project, site_dir=out, results=generated / ".arena" / "results")
    return out


@pytest.fixture(scope="session")
def server(built: Path) -> Iterator[str]:
    """The built site over real HTTP (file:// would hide broken absolute links)."""
    handler = functools.partial(_QuietHandler, directory=str(built))
    with serving(http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)) as base:
        yield base


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


#: The large board the layout tests read: as many submissions as the site benchmark's.
LARGE_ENTRIES, LARGE_TASKS = 5000, 200
#: Longer real-world names than the synthetic board's, to stress the layout.
LONG_NAMES = (("OpenHands CodeAct", "claude-sonnet-4-5-20250929"),
              ("Claude Code", "claude-opus-4-1-20250805"),
              ("Codex CLI", "gpt-5-codex-high"))


def large_board(board: Leaderboard) -> Leaderboard:
    """5,000 entries over 200 tasks, made of the scored board's entries (each keeps its own
    scores, runs and flags) spread over copies of its tasks, a few with long real names.

    Task ``t`` holds 25 entries: copies of the scored board's entries ``t, t+1, …, t+24``
    (modulo its count), so, as on a real board, each task is attempted by many labels and
    labels share many tasks. (Taking copy ``n % len(entries)`` for task ``n % 200`` would
    give each task copies of one scored entry only: labels would share no task.)"""
    tasks = [board.tasks[i % len(board.tasks)].model_copy(update={
        "task_id": f"large-{i:03d}", "title": f"Large task {i}"}) for i in range(LARGE_TASKS)]
    entries = []
    for n in range(LARGE_ENTRIES):
        e = board.entries[(n + n // LARGE_TASKS) % len(board.entries)]
        task = f"large-{n % LARGE_TASKS:03d}"
        update: dict[str, object] = {"task_id": task, "submission_id": f"s{n:05d}",
                                     "key": f"{task}/s{n:05d}"}
        if n % 97 < len(LONG_NAMES):
            tool, model = LONG_NAMES[n % 97]
            update |= {"tool": tool, "model": model, "label": f"{tool} / {model}"}
        entries.append(e.model_copy(update=update))
    # The labels' rows across tasks, computed by the scorer from these entries.
    from arena_bot.scoring.inputs import ScoringOptions
    from arena_bot.scoring.leaderboard import aggregate_rows, aggregates

    tools = aggregates(aggregate_rows(entries), ScoringOptions())
    return board.model_copy(update={"tasks": tasks, "entries": entries, "tools": tools,
                                    "input_digest": "5" * 64})


@pytest.fixture(scope="session")
def large_built(board: Leaderboard, project: Path, tmp_path_factory: pytest.TempPathFactory
                ) -> Path:
    """The 5,000-submission board built into a site of its own (its submission pages say
    their folders are not in the checkout: only the layout is under test here)."""
    from arena_bot.site.build import build

    out = tmp_path_factory.mktemp("large") / "site_build"
    build(large_board(board), root=project, site_dir=out)
    return out


@pytest.fixture(scope="session")
def large_server(large_built: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(large_built))
    with serving(http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)) as base:
        yield base
