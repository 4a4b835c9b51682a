"""``arena site build`` / ``arena site serve``: the static leaderboard site."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena_bot.core.settings import Settings

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
    from arena_bot.app.site import build_site

    out = output or settings.root / "site_build"
    times = build_site(settings, leaderboard=leaderboard, empty=empty, results=results,
                       site_dir=out, site_url=site_url, previous=previous)
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
    from arena_bot.app.site import serve_site

    sys.exit(serve_site(settings, leaderboard=leaderboard, empty=empty, results=results,
                        address=address, progress=click.echo))
