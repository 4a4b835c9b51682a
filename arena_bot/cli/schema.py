"""``arena schema``: regenerate or check the committed JSON Schemas."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena_bot.app.schema import SCHEMA_DIR, drifted, write_all
from arena_bot.core.errors import UsageError


@click.command("schema")
@click.option("--write", "mode", flag_value="write", help="Regenerate the schema files.")
@click.option(
    "--check", "mode", flag_value="check", help="Exit 1 when the files differ from the models."
)
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=SCHEMA_DIR,
    show_default="arena_bot/schemas",
    help="Folder of the schema files.",
)
def schema(mode: str | None, directory: Path) -> None:
    """Compare (--check) or regenerate (--write) the JSON Schemas of the formats."""
    if mode is None:
        raise UsageError("choose --check or --write")
    if mode == "write":
        for path in write_all(directory):
            click.echo(f"wrote {path}")
        return
    stale = drifted(directory)
    if stale:
        for name in stale:
            click.echo(f"{directory / name}: differs from the models", err=True)
        click.echo("run `arena schema --write` and commit the result", err=True)
        sys.exit(1)
    click.echo("JSON Schemas are up to date")
