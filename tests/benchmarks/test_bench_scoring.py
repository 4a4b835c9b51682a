"""The scoring benchmark stays runnable: its quick mode runs every measurement end to end, on
the smallest board (the figures themselves are the benchmark's, run at full size by hand)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_scoring.py"


def test_bench_scoring_quick_mode_prints_its_figures() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--submissions", "2000"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "engine" in out and "seed 002" in out
    # Both shapes timed for the engine and the seed, with a speed-up.
    assert re.search(r"1,000 tasks × 2 each\s+[\d.]+s\s+[\d.]+s\*\s+\d+x", out), out
    assert re.search(r"10 tasks × 200 each\s+[\d.]+s\s+[\d.]+s\*\s+\d+x", out), out
    # The growth table, a quarter to four times the size, and the other two measurements.
    for size in ("500", "1,000", "2,000", "4,000", "8,000"):
        assert re.search(rf"^\s+{size}\s+[\d.]+\s+[\d.]+$", out, re.MULTILINE), out
    assert "Multi-run: 2,000 submissions × 3 runs" in out
    assert re.search(r"Typed path .* for 200 submissions over 100 tasks: [\d.]+s", out), out
