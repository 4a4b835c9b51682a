"""The scoring benchmark stays runnable: its quick mode runs every measurement end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_scoring.py"


def test_bench_scoring_quick_mode_prints_its_figures() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "engine" in done.stdout and "seed 002" in done.stdout
