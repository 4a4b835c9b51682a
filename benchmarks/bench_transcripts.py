"""Benchmark of the transcript importers (prints figures; no assertions).

Generates a large transcript per format in a temporary folder (default 200 MB each: Claude
Code JSONL with streamed per-block usage, and an OpenHands trajectory JSON array), then reads
each with :func:`arena_bot.transcripts.read_transcript` and prints throughput (MB/s) and peak
Python memory (``tracemalloc``), plus the same for a gzip-compressed copy. Bounded memory
means the peak stays flat as the file grows.

Usage: ``.venv/bin/python benchmarks/bench_transcripts.py [--mb 200]``
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import tempfile
import time
import tracemalloc
from pathlib import Path

from arena_bot.transcripts import read_transcript

PAD = "y" * 2000


def write_claude_code(path: Path, megabytes: int) -> None:
    """Assistant messages, each streamed as three lines repeating the same usage."""
    usage = {"input_tokens": 10, "output_tokens": 50, "cache_read_input_tokens": 900,
             "cache_creation_input_tokens": 40}
    with path.open("w") as handle:
        number = 0
        while handle.tell() < megabytes * 1_000_000:
            number += 1
            for block in range(3):
                event = {"type": "assistant", "uuid": f"u{number}-{block}",
                         "timestamp": f"2026-11-01T10:{number // 60 % 60:02d}:{number % 60:02d}Z",
                         "message": {"id": f"msg_{number}", "model": "claude-sonnet-4-5",
                                     "content": [{"type": "text", "text": PAD}], "usage": usage}}
                handle.write(json.dumps(event) + "\n")


def write_openhands(path: Path, megabytes: int) -> None:
    """Agent actions with running totals, each followed by a large observation."""
    with path.open("w") as handle:
        handle.write("[\n")
        number = 0
        while handle.tell() < megabytes * 1_000_000:
            number += 1
            action = {"id": number, "timestamp": "2026-11-01T10:00:00", "source": "agent",
                      "action": "run", "args": {"command": "pytest"},
                      "tool_call_metadata": {"tool_call_id": f"c{number}",
                                             "model_response": {"id": f"r{number}"}},
                      "llm_metrics": {"accumulated_token_usage": {
                          "model": "claude-sonnet-4-5", "prompt_tokens": 1000 * number,
                          "completion_tokens": 50 * number, "cache_read_tokens": 900 * number,
                          "cache_write_tokens": 0}}}
            observation = {"id": number, "source": "environment", "observation": "run",
                           "content": PAD}
            handle.write(json.dumps(action) + ",\n" + json.dumps(observation) + ",\n")
        handle.write('{"id": 0}\n]\n')


def measure(path: Path, format_name: str, *, size: float) -> None:
    """Time one read (plain), then the peak Python memory of a second (tracemalloc is slow)."""
    started = time.perf_counter()
    metrics = read_transcript(path=path, format_name=format_name)
    elapsed = time.perf_counter() - started
    tracemalloc.start()
    read_transcript(path=path, format_name=format_name)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    stored = path.stat().st_size / 1_000_000
    print(f"{format_name:12} {path.name:20} {size:7.1f} MB ({stored:6.1f} MB stored)  "
          f"{elapsed:6.2f} s  {size / elapsed:6.1f} MB/s  peak {peak / 1_000_000:5.2f} MB  "
          f"iterations {metrics.iterations:,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200, help="size of each generated file")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-transcripts-"))
    try:
        for name, writer, format_name in [
            ("claude_code.jsonl", write_claude_code, "claude-code"),
            ("openhands.json", write_openhands, "openhands"),
        ]:
            path = scratch / name
            writer(path, args.mb)
            size = path.stat().st_size / 1_000_000
            measure(path, format_name, size=size)
            packed = path.with_name(name + ".gz")
            with path.open("rb") as raw, gzip.open(packed, "wb", compresslevel=1) as out:
                shutil.copyfileobj(raw, out)
            path.unlink()
            measure(packed, format_name, size=size)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
