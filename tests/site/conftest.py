"""A real board (synthetic repository scored by the real `arena score`), built into a site."""

from __future__ import annotations

import datetime as dt
import functools
import http.server
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
    folder = root / ".arena" / "results" / entry.task_id / entry.submission_id
    (older,) = folder.glob("*.json")
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
    (folder / f"{'f' * 32}-{'0' * 12}.json").write_text(newer.model_dump_json(), "utf-8")


@pytest.fixture(scope="session")
def hostile() -> str:
    return HOSTILE


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
    for i in range(0, len(entries), 3):
        entries[i] = entries[i].model_copy(update={"metrics_level": "transcript-consistent"})
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
    return board.model_copy(update={"entries": entries, "tasks": tasks})


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


@pytest.fixture(scope="session")
def built(board: Leaderboard, project: Path, generated: Path) -> Path:
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
