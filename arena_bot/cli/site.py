"""``arena site build`` / ``arena site serve``: the static leaderboard site."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena_bot.settings import Settings

if TYPE_CHECKING:
    from arena_bot.models.leaderboard import Leaderboard


def _board(
    settings: Settings, leaderboard: Path | None, empty: bool
) -> tuple[Leaderboard, str | None]:
    """The board to render: ``--empty``, ``--leaderboard`` or the last `arena score`."""
    from arena_bot.site.build import empty_board, load_board

    if empty:
        return empty_board(), None
    return load_board(leaderboard or settings.cache_dir / "leaderboard.json")


_LEADERBOARD = click.option(
    "--leaderboard", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="The leaderboard.json to render (default: .arena/leaderboard.json).")
_EMPTY = click.option("--empty", is_flag=True,
                      help="Render the empty board (nothing scored yet).")


@click.group()
def site() -> None:
    """Build or preview the static leaderboard site (MkDocs Material)."""


@site.command()
@_LEADERBOARD
@_EMPTY
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the built site (default: site_build/).")
@click.pass_obj
def build(settings: Settings, leaderboard: Path | None, empty: bool,
          output: Path | None) -> None:
    """Render the pages from leaderboard.json and run `mkdocs build --strict`."""
    from arena_bot.site.build import build as run_build

    out = output or settings.root / "site_build"
    board, raw = _board(settings, leaderboard, empty)
    times = run_build(board, root=settings.root, site_dir=out, raw_json=raw)
    click.echo(f"rendered {times.pages} pages in {times.render:.2f} s, "
               f"mkdocs build in {times.mkdocs:.2f} s")
    click.echo(f"site built: open {(out / 'board' / 'index.html').resolve()} "
               f"(or run `arena site serve`)")


@site.command()
@_LEADERBOARD
@_EMPTY
@click.option("--address", default="127.0.0.1:8000", show_default=True,
              help="Where to serve the preview.")
@click.pass_obj
def serve(settings: Settings, leaderboard: Path | None, empty: bool, address: str) -> None:
    """Render the pages and preview the site with `mkdocs serve` (reloads on edits)."""
    from arena_bot.site.build import build as run_build

    project = settings.root / "site"
    board, raw = _board(settings, leaderboard, empty)
    run_build(board, root=settings.root, site_dir=settings.root / "site_build", mkdocs=False,
              raw_json=raw)
    click.echo(f"serving on http://{address}/board/ (Ctrl-C stops)")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "serve", "-a", address, "-f",
         str(project / "mkdocs.board.yml")],
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, check=False,
    )
    sys.exit(result.returncode)
