"""Scoring is pure logic: importing it never loads Docker, git or GitHub clients."""

from __future__ import annotations

import subprocess
import sys


def test_scoring_imports_no_docker_git_or_github() -> None:
    code = (
        "import sys\n"
        "import arena_bot.scoring, arena_bot.scoring.leaderboard, arena_bot.scoring.core\n"
        "import arena_bot.scoring.loader, arena_bot.scoring.compare\n"
        "import arena_bot.scoring.calibration, arena_bot.scoring.export\n"
        "loaded = sorted(m for m in ('docker', 'git', 'github') if m in sys.modules)\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == ""
