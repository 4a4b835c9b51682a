"""``arena site build`` / ``arena site serve``: the static leaderboard site."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena_bot.core.settings import Settings

if TYPE_CHECKING:
    from arena_bot.site.source import BoardSource


def _board(settings: Settings, leaderboard: Path | None, empty: bool) -> BoardSource:
    """The board to render: ``--empty``, ``--leaderboard`` or the last `arena score`
    (its split files ``board.json`` + ``tasks/`` when they sit beside it)."""
    from arena_bot.site.build import empty_board, load_board
    from arena_bot.site.source import BoardSource

    if empty:
        return BoardSource(board=empty_board(), kind="empty")
    return load_board(leaderboard or settings.cache_dir / "leaderboard.json")


def _results(settings: Settings, results: Path | None) -> Path | None:
    """Stored evaluation results for per-feature / merge details (none when absent)."""
    folder = results or settings.results_dir
    return folder if folder.is_dir() else None


_LEADERBOARD = click.option(
    "--leaderboard", type=click.Path(path_type=Path), default=None,
    help="The leaderboard.json to render, or the folder `arena score` wrote (default: "
         ".arena/leaderboard.json); board.json + tasks/ beside it are read when present.")
_RESULTS = click.option(
    "--results", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Stored evaluation results, for per-feature and merge details on task pages "
         "(default: .arena/results/ when it exists).")
_SITE_URL = click.option(
    "--site-url", default=None,
    help="Where the site is published, e.g. https://owner.github.io/arena/ (makes the 404 "
         "page work under a GitHub Pages sub-path).")
_EMPTY = click.option("--empty", is_flag=True,
                      help="Render the empty board (nothing scored yet).")


@click.group()
def site() -> None:
    """Build or preview the static leaderboard site (MkDocs Material)."""


@site.command()
@_LEADERBOARD
@_EMPTY
@_RESULTS
@_SITE_URL
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the built site (default: site_build/).")
@click.option("--previous", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The last published board/snapshot.json, for the Changes page (default: "
                   "the one in the output folder from the last build there).")
@click.pass_obj
def build(settings: Settings, leaderboard: Path | None, empty: bool, results: Path | None,
          site_url: str | None, output: Path | None, previous: Path | None) -> None:
    """Render the pages from leaderboard.json and run `mkdocs build --strict`."""
    from arena_bot.site.build import build as run_build

    out = output or settings.root / "site_build"
    if previous is not None and not previous.is_file():
        from arena_bot.core.errors import InputError

        raise InputError("no snapshot here", path=previous,
                         hint="pass the board/snapshot.json of the last published site")
    source = _board(settings, leaderboard, empty)
    times = run_build(source, root=settings.root, site_dir=out, site_url=site_url,
                      previous=previous, results=_results(settings, results))
    click.echo(f"rendered {times.pages} pages in {times.render:.2f} s, "
               f"mkdocs build in {times.mkdocs:.2f} s")
    click.echo(times.changes)
    click.echo(f"site built: open {(out / 'board' / 'index.html').resolve()} "
               f"(or run `arena site serve`)")


@site.command()
@_LEADERBOARD
@_EMPTY
@_RESULTS
@click.option("--address", default="127.0.0.1:8000", show_default=True,
              help="Where to serve the preview.")
@click.pass_obj
def serve(settings: Settings, leaderboard: Path | None, empty: bool, results: Path | None,
          address: str) -> None:
    """Render the pages and preview the site with `mkdocs serve` (reloads on edits)."""
    from arena_bot.site.build import build as run_build

    project = settings.root / "site"
    run_build(_board(settings, leaderboard, empty), root=settings.root,
              site_dir=settings.root / "site_build", mkdocs=False,
              results=_results(settings, results))
    click.echo(f"serving on http://{address}/board/ (Ctrl-C stops)")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "serve", "-a", address, "-f",
         str(project / "mkdocs.board.yml")],
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, check=False,
    )
    sys.exit(result.returncode)
