"""The transcript benchmark stays runnable at its smallest size: every format is generated, read
in a fresh process, and its figures (throughput, peak RSS, iterations) printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_transcripts.py"


def test_bench_transcripts_prints_peak_rss_for_every_format(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--mb", "1", "--store"],
        capture_output=True, text=True, timeout=600, check=True,
    )
    out = done.stdout
    for format_name, name in [("claude-code", "claude_code.jsonl"), ("codex", "codex.jsonl"),
                              ("openhands", "openhands.json"), ("atif", "atif.json")]:
        for stored in (name, name + ".gz"):
            line = re.search(
                rf"^{format_name}\s+{re.escape(stored)}\s.*peak RSS\s+(\d+\.\d) MB.*"
                rf"iterations ([\d,]+)$", out, re.MULTILINE)
            assert line, out
            # Every generated model call was read (the generators write hundreds per MB).
            assert int(line.group(2).replace(",", "")) > 100, line.group(0)
    assert re.search(r"^store\s+claude_code\.jsonl\s.*peak RSS\s+\d+\.\d MB", out, re.MULTILINE)
