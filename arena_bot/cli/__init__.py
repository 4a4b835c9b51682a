"""The ``arena`` command line.

Each command lives in its own module of this package and is registered below. User errors
(:class:`arena_bot.errors.ArenaError`) are turned into a message and an exit code here, in
exactly one place.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import click

from arena_bot import __version__
from arena_bot.errors import ArenaError
from arena_bot.settings import Settings


class ArenaGroup(click.Group):
    """A group that loads its commands lazily and reports ArenaError cleanly.

    Commands are imported only when called (``arena validate`` need not import scipy), and an
    ArenaError becomes a message on stderr with its exit code.
    """

    def __init__(self, *args: Any, lazy: dict[str, tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self._lazy and cmd_name not in self.commands:
            module_name, attribute = self._lazy[cmd_name]
            module = importlib.import_module(f"arena_bot.cli.{module_name}")
            self.add_command(getattr(module, attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            click.secho(f"error: {exc}", fg="red", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


#: command name -> (module under arena_bot/cli/, click command object in it)
_COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate", "validate"),
    "schema": ("schema", "schema"),
    "images": ("images", "images"),
    "dataset": ("dataset", "dataset"),
    "evaluate": ("evaluate", "evaluate"),
    "merge": ("merge", "merge"),
    "score": ("score", "score"),
    "compare": ("score", "compare"),
    "calibrate": ("score", "calibrate"),
    "pipeline": ("pipeline", "pipeline"),
}


@click.group(
    cls=ArenaGroup,
    lazy=_COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
