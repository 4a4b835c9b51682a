"""The ``arena`` group itself: lazy command loading and the command list."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_bot.cli import _COMMANDS, main


def test_listing_the_commands_imports_none_of_them() -> None:
    probe = (
        "import sys\n"
        "from arena_bot.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('arena_bot.cli.'))\n"
        "heavy = [m for m in ('scipy', 'numpy', 'docker', 'git', 'github') if m in sys.modules]\n"
        "print(loaded, heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "[] []"
    for name, entry in _COMMANDS.items():
        assert f"  {name} " in done.stdout
        assert entry.short_help in done.stdout


def test_every_declared_command_loads_and_keeps_the_declared_help() -> None:
    runner = CliRunner()
    for name in _COMMANDS:
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, result.output
        assert "Usage:" in result.output
    # Once loaded, the commands are listed with the same one-line help as before.
    listing = runner.invoke(main, ["--help"]).output
    for name, entry in _COMMANDS.items():
        assert f"  {name} " in listing
        assert entry.short_help in listing


#: The ``arena`` program as its console script starts it (the entry point pyproject declares,
#: loaded the way the installed script loads it), with an exit callback that says when the
#: interpreter is exiting and then waits: a stand-in for the slow ones a command leaves (the
#: Docker client's connection pools close there).
_PROGRAM_EXITING = """
import atexit, sys, time
from importlib.metadata import entry_points
program = entry_points(group="console_scripts")["arena"].load()
atexit.register(time.sleep, 30)
atexit.register(print, "exiting", file=sys.stderr, flush=True)
sys.argv = ["arena", "--root", sys.argv[1], "config", "show"]
sys.exit(program())
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_program_exits_ends_it_quietly(tmp_path: Path, sig: int) -> None:
    """A Ctrl-C landing after the command has returned, as the interpreter exits, ends the
    process by the signal's default action: no KeyboardInterrupt in an exit callback (which
    Python prints with a traceback), and what the command printed is all there."""
    with subprocess.Popen([sys.executable, "-c", _PROGRAM_EXITING, str(tmp_path)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        assert process.stderr is not None
        assert process.stderr.readline() == "exiting\n"
        process.send_signal(sig)
        output, errors = process.communicate(timeout=20)
    assert process.returncode == -sig, errors
    assert "Traceback" not in errors and "Exception ignored" not in errors, errors
    assert output.startswith("configuration: no arena.yaml") and "scoring.policy" in output


def test_a_command_invoked_in_process_leaves_the_callers_handlers() -> None:
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    assert CliRunner().invoke(main, ["config", "show"]).exit_code == 0
    assert {sig: signal.getsignal(sig) for sig in before} == before


#: A command whose object's finalizer takes the signal (sent from inside it, so it lands
#: there, as a Ctrl-C does while a Docker connection pool is collected), then goes on working.
_SIGNAL_IN_A_FINALIZER = """
import os, signal, sys, time, weakref
from arena_bot.cli import main

# Ctrl-C raises here even when this process was started with SIGINT ignored (a CI job
# under setsid/nohup: Python then leaves it ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)

@main.command("probe")
def probe():
    class Pool:
        pass
    def close():
        os.kill(os.getpid(), int(sys.argv[1]))
        for _ in range(10000):
            pass  # the handler runs here, inside the finalizer
    pool = Pool()
    weakref.finalize(pool, close)
    del pool
    deadline = time.monotonic() + 2  # the rest of the command's work: long enough for the
    while time.monotonic() < deadline:  # signal's second sending, on a loaded machine too
        pass
    print("finished", flush=True)

main.program = True
sys.exit(main(["probe"]))
"""


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_that_lands_in_a_finalizer_still_stops_the_command(
        sig: int, status: int) -> None:
    """Python prints an interrupt raised in a finalizer as "Exception ignored" and goes on:
    the command ran to its end and wrote its output after a SIGTERM (seen in CI: `arena
    pipeline` scored and wrote the board). The signal is sent again, and the command stops."""
    done = subprocess.run([sys.executable, "-c", _SIGNAL_IN_A_FINALIZER, str(int(sig))],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == status, (done.stdout, done.stderr)
    assert "finished" not in done.stdout and "interrupted" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_an_operating_system_error_no_command_words_is_one_line_naming_the_path(
    tmp_path: Path,
) -> None:
    """A cache folder that cannot be made (a file in the way: scoring's worker processes
    raised it) and a name over the file system's limit ended in tracebacks."""
    import shutil

    root = tmp_path / "repo"
    repo = Path(__file__).resolve().parents[1]
    shutil.copytree(repo / "dataset", root / "dataset")
    shutil.copytree(repo / "submissions", root / "submissions")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    too_long = tmp_path / ("n" * 300)
    cases = [
        (["score"], {"ARENA_CACHE": str(blocker)}, f"{blocker}/"),
        (["score", "--results", str(too_long), "--match", "latest"], {},
         f"{too_long}: File name too long"),
    ]
    for args, env, said in cases:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        done = subprocess.run([str(Path(sys.executable).parent / "arena"), "--root", str(root),
                               *args], capture_output=True, text=True, env={**clean, **env},
                              timeout=300)
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr and done.stderr.startswith("error: "), done.stderr
        assert said in done.stderr
