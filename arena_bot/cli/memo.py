"""``arena memo show|clear``: look at or drop what earlier runs computed.

The memo (``.arena/memo.sqlite``, see :mod:`arena_bot.app.memo`) is never the source of
truth: clearing it loses nothing but the time the next run spends computing it again.
"""

from __future__ import annotations

import click

from arena_bot.app.memo import MEMO_FILE, MEMO_VERSION, clear_memo, describe_memo
from arena_bot.core.settings import Settings


@click.group("memo")
def memo() -> None:
    """Show or clear the memo of earlier runs (.arena/)."""


@memo.command("show")
@click.pass_obj
def show(settings: Settings) -> None:
    """Print where the memo is, its size and what it remembers (never repairing it)."""
    found = describe_memo(settings.cache_dir)
    if found.size is None:
        click.echo(f"{found.path}: no memo yet (the next arena command builds it)")
        return
    click.echo(f"{found.path}: {found.size / 1e6:.1f} MB")
    if found.unreadable is not None:
        click.echo(f"  not a readable memo ({found.unreadable}); the next run rebuilds it")
        return
    stale = "" if found.version == MEMO_VERSION else (
        f" (this arena writes version {MEMO_VERSION}: the next run rebuilds it)")
    click.echo(f"  version {found.version}{stale}")
    for kind, count in found.kinds:
        click.echo(f"  {count} remembered value(s) of kind {kind}")


@memo.command("clear")
@click.pass_obj
def clear(settings: Settings) -> None:
    """Delete the memo; the next run computes everything again (slower once).

    Stored evaluation results under .arena/results are kept.
    """
    path = settings.cache_dir / MEMO_FILE
    if clear_memo(settings.cache_dir):
        click.echo(f"deleted {path}; results were kept")
    else:
        click.echo(f"{path}: no memo to delete")
