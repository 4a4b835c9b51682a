"""Publish use case (`arena bot publish`): rescore from the stored results, build the site,
lay out the files GitHub Pages serves."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from arena_bot.app.memo import Memo
from arena_bot.app.scoring import WrittenBoard, score_board, write_scored
from arena_bot.core.errors import InputError
from arena_bot.core.settings import Settings
from arena_bot.scoring.incremental import ScoredBoard
from arena_bot.site.build import BuildTimes, build, load_board
from arena_bot.site.history import SNAPSHOT, read_previous
from arena_bot.site.render import GENERATED, environment

#: The published data files, under ``data/`` (what the plain index page links to).
DATA_FILES = ("leaderboard.json", "leaderboard.csv", "board.json")


@dataclass(frozen=True)
class Published:
    """What :func:`publish` did, for the caller to report."""

    scored: ScoredBoard
    written: WrittenBoard
    #: The site build's figures; ``None`` when no site was built.
    site: BuildTimes | None
    #: Why the last published snapshot was not used (damaged); ``None`` when it was, or
    #: there was none.
    snapshot_problem: InputError | None


def publish(settings: Settings, *, output: Path, site: bool, memo: Memo) -> Published:
    """Score the board from the stored results, build the site into ``output`` (with
    ``site``, when the repository has its site/ project) compared with the last published
    snapshot, keep the new snapshot for `arena bot store save`, and copy the board's files
    to ``output/data/``; without a site, a plain index page links them."""
    scored = score_board(settings, memo=memo)
    board_dir = settings.cache_dir / "publish-board"
    written = write_scored(scored, board_dir)
    times, problem = None, None
    if site and (settings.root / "site" / "mkdocs.yml").is_file():
        try:
            previous = read_previous(settings.published_snapshot)
        except InputError as exc:  # the Changes page then starts a new history, and says so
            previous, problem = None, exc
        results = settings.results_dir if settings.results_dir.is_dir() else None
        times = build(load_board(written.export), root=settings.root, site_dir=output,
                      results=results, previous=previous)
        built = output / GENERATED / SNAPSHOT
        if built.is_file():
            settings.published_snapshot.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(built, settings.published_snapshot)
    data = output / "data"
    if data.exists():
        shutil.rmtree(data)
    shutil.copytree(board_dir, data)
    index_page = output / "index.html"
    if not index_page.exists():  # the site build writes the real one
        template = environment(markdown=False).get_template("data-index.html.j2")
        page = template.render(files=DATA_FILES)
        index_page.write_text(page, encoding="utf-8")
    return Published(scored=scored, written=written, site=times, snapshot_problem=problem)
