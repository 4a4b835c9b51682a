"""The cold-path benchmark stays runnable: every stage and both commands are measured."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_cold.py"


def test_bench_cold_prints_a_figure_for_every_stage_and_command(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--size", "30", "--tasks", "3", "--rounds", "1",
         "--commands", "1", "--keep", str(tmp_path / "board")],
        capture_output=True, text=True, timeout=600, check=True,
    )
    out = done.stdout
    for stage in ("parse_yaml (submission.yaml)", "parse_patch",
                  "protected-path check of a patch", "normalize_patch",
                  "canonical JSON of an entry"):
        assert re.search(rf"{re.escape(stage)}\s+\d+\.\d µs", out), out
    for command in ("score", "validate"):
        assert re.search(rf"arena {command}\s+\d+\.\d\d s wall\s+\d+\.\d\d s CPU", out), out
    # The board the stages read was scored in full (its entries were encoded).
    assert (tmp_path / "board" / "out" / "leaderboard.json").is_file()
