"""The ``arena`` command line: each command lives in its own module of this package and is
registered below; user errors (:class:`~arena_bot.core.errors.ArenaError`) become a message
and an exit code here, in exactly one place."""

from __future__ import annotations

import _thread
import contextlib
import errno
import faulthandler
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import click

from arena_bot import __version__
from arena_bot.core.errors import ArenaError
from arena_bot.core.settings import Settings


class LazyCommand(NamedTuple):
    """Where a command lives, and its one-line help for ``arena --help``.

    The help is declared here, and only here, so that listing the commands imports none of
    them (the scoring and Docker modules take over a second to import).
    """

    module: str  # under arena_bot/cli/
    attribute: str  # the click command object in it
    short_help: str


class ArenaGroup(click.Group):
    """A group that imports a command only when it is called (``arena validate`` need not
    import scipy) and turns an ArenaError into a message on stderr and its exit code."""

    def __init__(self, *args: Any, lazy: dict[str, LazyCommand], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self._lazy and cmd_name not in self.commands:
            entry = self._lazy[cmd_name]
            module = importlib.import_module(f"arena_bot.cli.{entry.module}")
            command: click.Command = getattr(module, entry.attribute)
            command.short_help = entry.short_help
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [
            (name, self._lazy[name].short_help)
            if name in self._lazy and name not in self.commands
            else (name, self.commands[name].get_short_help_str(limit=formatter.width))
            for name in self.list_commands(ctx)
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    #: Set by :func:`run`, the ``arena`` program: once its command has returned, SIGINT and
    #: SIGTERM take their default action. Unset when a command is invoked in-process (the
    #: tests' CliRunner), whose caller keeps its own handlers.
    program = False

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with _sigterm_as_interrupt():
                try:
                    return super().invoke(ctx)
                except ArenaError as exc:
                    click.secho(f"error: {exc}", fg="red", err=True)
                    ctx.exit(exc.exit_code)
                except OSError as exc:
                    if exc.errno == errno.EPIPE:  # a closed stdout: click's own handling
                        raise
                    # what no command words itself: a name too long, a folder that cannot be
                    # made, a disk that is full or read-only
                    click.secho(f"error: {_os_error(exc)}", fg="red", err=True)
                    ctx.exit(1)
                except KeyboardInterrupt as exc:
                    # Every cleanup on the way here (containers killed and removed,
                    # temporary files of the result store deleted) has already run.
                    click.echo("interrupted", err=True)
                    ctx.exit(143 if isinstance(exc, Terminated) else 130)
        finally:
            if self.program:
                _default_signals()


def _os_error(exc: OSError) -> str:
    """``path: reason`` of an operating system error, in one line."""
    text = str(exc)
    reason = exc.strerror or (text.splitlines()[0] if text else type(exc).__name__)
    if exc.filename is None:
        return str(reason)
    names = [os.fsdecode(exc.filename)] + (
        [os.fsdecode(exc.filename2)] if exc.filename2 is not None else [])
    return f"{' -> '.join(names)}: {reason}"


def _default_signals() -> None:
    """The command has returned and its cleanups have run: what it printed is flushed, and a
    signal from here to the interpreter's end ends the process by its default action (a shell
    reports 130 or 143). Left as they were, a Ctrl-C landing while the interpreter exits
    raised KeyboardInterrupt inside an exit callback (the Docker client's connection pools
    close there), which Python prints with a traceback."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as Ctrl-C is, so that the one cleanup path serves both."""


def _raise_terminated(_signum: int, _frame: object) -> None:
    raise Terminated


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the main thread while a command runs (Python's
    default is to die at once: no container would be removed), and a Ctrl-C or SIGTERM that
    lands in a finalizer is sent again (:func:`_sent_again`). Restored afterwards, so a
    command invoked in-process leaves its caller's handler and hook as they were."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    hook = sys.unraisablehook
    sys.unraisablehook = _sent_again(hook)
    try:
        yield
    finally:
        sys.unraisablehook = hook
        signal.signal(signal.SIGTERM, previous)


def _sent_again(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    """An unraisable-exception hook for ``hook``'s place: the interrupt a signal raised inside
    a finalizer (a weakref callback, ``__del__``: the Docker client's connection pools close
    in one when collected) is one Python prints as "Exception ignored" and goes on past, so
    the command ran to its end. The signal is sent again instead, from another thread (sent
    from here, its handler would run here and be swallowed the same way), to land in the
    command's own code; anything else goes to ``hook``."""

    def unraisable(args: Any) -> object:
        if isinstance(args.exc_value, KeyboardInterrupt):
            sig = signal.SIGTERM if isinstance(args.exc_value, Terminated) else signal.SIGINT
            # Not threading.Thread: its start() waits, and the handler would run in the wait.
            _thread.start_new_thread(_send_soon, (sig,))
            return None
        return hook(args)

    return unraisable


def _send_soon(sig: int) -> None:
    """Send ``sig`` to this process (from a thread of its own: it runs once the main thread
    lets go of the interpreter, past the finalizer that took the signal)."""
    os.kill(os.getpid(), sig)


#: command name -> where it lives and its one-line help
_COMMANDS: dict[str, LazyCommand] = {
    "validate": LazyCommand(
        "validate", "validate", "Check submissions: format, patches, protected paths, sizes."
    ),
    "submit": LazyCommand(
        "submit", "submit_command", "Create a submission from finished agent runs."
    ),
    "schema": LazyCommand(
        "schema", "schema", "Compare (--check) or regenerate (--write) the JSON Schemas."
    ),
    "images": LazyCommand("images", "images", "Build the Docker images evaluation runs in."),
    "config": LazyCommand(
        "config", "config", "Show the effective arena.yaml and where each value came from."
    ),
    "dataset": LazyCommand("dataset", "dataset", "Maintain the tasks under dataset/."),
    "evaluate": LazyCommand(
        "evaluate", "evaluate", "Run submissions' patches against their task's tests (Docker)."
    ),
    "merge": LazyCommand(
        "merge", "merge", "Merge two agents' patches: conflicts and both features' tests."
    ),
    "score": LazyCommand(
        "score", "score", "Recompute the leaderboard from the stored evaluation results."
    ),
    "compare": LazyCommand(
        "score", "compare", "Compare two tools, models or submissions (significance)."
    ),
    "calibrate": LazyCommand(
        "score", "calibrate", "Check the LLM judge against the shipped reference set."
    ),
    "bot": LazyCommand(
        "bot", "bot", "GitHub bot: PR evaluation, comment, publish, scale-out."
    ),
    "site": LazyCommand("site", "site", "Build (build) or preview (serve) the leaderboard site."),
    "memo": LazyCommand(
        "memo", "memo", "Show or clear the memo of earlier runs (.arena/)."
    ),
    "pipeline": LazyCommand(
        "pipeline", "pipeline", "Validate, evaluate (Docker) and score every submission."
    ),
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
    if os.environ.get("ARENA_DEBUG_STACKS") == "1":
        # Diagnostics of a run that does not stop: SIGUSR1 prints every thread's stack to
        # stderr (the interrupt tests send it before they kill a command that hangs).
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    ctx.obj = Settings.from_env(root=root)


def run() -> None:
    """The ``arena`` program (the console script): :data:`main`, with the default action of
    SIGINT and SIGTERM back once its command has returned (see :func:`_default_signals`)."""
    main.program = True
    main()
