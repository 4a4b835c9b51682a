"""The ``arena`` command line.

Each command lives in its own module of this package and is registered below. User errors
(:class:`arena_bot.errors.ArenaError`) are turned into a message and an exit code here, in
exactly one place.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from arena_bot import __version__
from arena_bot.errors import ArenaError
from arena_bot.settings import Settings


class ArenaGroup(click.Group):
    """A group that reports ArenaError as a clean message with its exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            click.secho(f"error: {exc}", fg="red", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Repository root holding dataset/ and submissions/ (default: current folder).",
)
@click.pass_context
def main(ctx: click.Context, root: Path | None) -> None:
    """Agentic Arena: validate, evaluate and score AI coding tool submissions."""
    ctx.obj = Settings.from_env(root=root)


def _register() -> None:
    # One line per command module; each module exposes click commands named after it.
    import importlib

    for module_name, command_names in _COMMANDS:
        module = importlib.import_module(f"arena_bot.cli.{module_name}")
        for name in command_names:
            main.add_command(getattr(module, name))


#: (module under arena_bot/cli/, click command objects it exports)
_COMMANDS: list[tuple[str, tuple[str, ...]]] = [
    ("validate", ("validate",)),
    ("schema", ("schema",)),
    ("images", ("images",)),
    ("evaluate", ("evaluate",)),
    ("dataset", ("dataset",)),
    ("merge", ("merge",)),
    ("score", ("score", "compare", "calibrate")),
]


_register()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
