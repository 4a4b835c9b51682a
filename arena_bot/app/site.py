"""``arena site build`` / ``serve``: which board is rendered, then the build or preview."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from arena_bot.core.errors import InputError
from arena_bot.core.settings import Settings
from arena_bot.site.build import BuildTimes, build, empty_board, load_board
from arena_bot.site.source import BoardSource


def build_site(
    settings: Settings, *, leaderboard: Path | None, empty: bool, results: Path | None,
    site_dir: Path, site_url: str | None = None, previous: Path | None = None,
    mkdocs: bool = True,
) -> BuildTimes:
    """Render the board (``empty``, ``leaderboard`` or the last `arena score`'s, with its
    split files ``board.json`` + ``tasks/`` when they sit beside it) and build the site;
    the stored results (``results``, else the cache's, when present) give the per-feature
    and merge details."""
    if previous is not None and not previous.is_file():
        raise InputError("no snapshot here", path=previous,
                         hint="pass the board/snapshot.json of the last published site")
    source = (BoardSource(board=empty_board(), kind="empty") if empty
              else load_board(leaderboard or settings.cache_dir / "leaderboard.json"))
    folder = results or settings.results_dir
    return build(source, root=settings.root, site_dir=site_dir, site_url=site_url,
                 previous=previous, mkdocs=mkdocs, results=folder if folder.is_dir() else None)


def serve_site(
    settings: Settings, *, leaderboard: Path | None, empty: bool, results: Path | None,
    address: str, progress: Callable[[str], None],
) -> int:
    """Render the pages and run `mkdocs serve` on ``address`` until it stops; its exit
    status."""
    build_site(settings, leaderboard=leaderboard, empty=empty, results=results,
               site_dir=settings.root / "site_build", mkdocs=False)
    progress(f"serving on http://{address}/board/ (Ctrl-C stops)")
    config = settings.root / "site" / "mkdocs.board.yml"
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "serve", "-a", address, "-f", str(config)],
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, check=False,
    ).returncode
