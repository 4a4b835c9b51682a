"""The scale benchmark stays runnable: a tiny board is generated and every command measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_scale.py"


def test_bench_scale_generates_a_board_the_commands_accept(tmp_path: Path) -> None:
    board = tmp_path / "board"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--sizes", "40", "--tasks", "4", "--keep", str(board)],
        capture_output=True, text=True, timeout=600, check=True,
    )
    out = done.stdout
    for name in ("arena score (no memo yet)", "arena score (memo warm)",
                 "arena score (one new submission)", "arena score (fresh clone + memo)",
                 "floor: list + read + hash every file", "floor: git ls-files + git status",
                 "floor: PyYAML loads each submission",
                 "arena validate (all, no memo)", "arena validate (all, again)",
                 "arena validate (fresh clone + memo)", "arena validate (one PR: 3)",
                 "arena --help"):
        assert name in out
    # Every command succeeded on the generated data (a failure is printed with "exit").
    assert "exit" not in out and "!" not in out, out
    # The stored results are found for the submissions' current files: all 40 are scored,
    # and so is the one that landed later (with its result).
    board_json = json.loads((board / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    statuses = [entry["status"] for entry in board_json["entries"]]
    assert len(statuses) == 41 and set(statuses) == {"scored"}
