"""The ``arena`` group itself: lazy command loading and the command list."""

from __future__ import annotations

import subprocess
import sys

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
