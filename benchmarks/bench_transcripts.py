"""Benchmark of the transcript importers (prints figures; no assertions).

Generates a large transcript per format in a temporary folder (default 200 MB each: Claude
Code JSONL with streamed per-block usage, a Codex rollout, an OpenHands trajectory JSON array
and a Harbor ATIF trajectory), then reads each with
:func:`arena_bot.intake.transcripts.read_transcript` in a fresh process and prints throughput
(MB/s),
the process's peak RSS (``ru_maxrss``: interpreter and imports included) and its RSS before
reading, plus peak Python memory (``tracemalloc``); the same for a gzip-compressed copy. With
``--store`` it also times what ``arena submit`` does with the Claude Code file (redacted copy,
gzip) and its peak RSS. Bounded memory means the peak stays flat as the file grows.

Usage: ``.venv/bin/python benchmarks/bench_transcripts.py [--mb 200] [--store]``
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from arena_bot.intake.transcripts import read_transcript

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


def write_codex(path: Path, megabytes: int) -> None:
    """Turns of a tool call, its output and a running token total (reasoning inside output)."""
    with path.open("w") as handle:
        handle.write(json.dumps({"timestamp": "2026-11-01T10:00:00Z", "type": "turn_context",
                                 "payload": {"model": "gpt-5-codex"}}) + "\n")
        number = 0
        while handle.tell() < megabytes * 1_000_000:
            number += 1
            stamp = f"2026-11-01T10:{number // 60 % 60:02d}:{number % 60:02d}Z"
            usage = {"input_tokens": 1000 * number, "cached_input_tokens": 800 * number,
                     "output_tokens": 60 * number, "reasoning_output_tokens": 20 * number,
                     "total_tokens": 1060 * number}
            for event in (
                {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                                                      "call_id": f"c{number}",
                                                      "arguments": '{"cmd": "pytest"}'}},
                {"type": "response_item", "payload": {"type": "function_call_output",
                                                      "call_id": f"c{number}", "output": PAD}},
                {"type": "event_msg", "payload": {"type": "token_count",
                                                  "info": {"total_token_usage": usage}}},
            ):
                handle.write(json.dumps({"timestamp": stamp, **event}) + "\n")


def write_atif(path: Path, megabytes: int) -> None:
    """One ATIF document: agent steps with metrics and a tool call, each with an observation."""
    with path.open("w") as handle:
        handle.write('{"schema_version": "ATIF-v1.5", "session_id": "bench", "agent": '
                     '{"name": "terminus-2", "version": "2.0.0", "model_name": '
                     '"claude-sonnet-4-5"}, "steps": [\n')
        number = 0
        while handle.tell() < megabytes * 1_000_000:
            number += 1
            step = {"step_id": number, "timestamp": "2026-11-01T10:00:00Z", "source": "agent",
                    "message": "running the tests",
                    "tool_calls": [{"tool_call_id": f"c{number}", "function_name": "bash",
                                    "arguments": {"keystrokes": "pytest\n"}}],
                    "observation": {"results": [{"content": PAD}]},
                    "metrics": {"prompt_tokens": 1000, "completion_tokens": 50,
                                "cached_tokens": 900}}
            handle.write(json.dumps(step) + ",\n")
        handle.write('{"step_id": 0, "source": "user", "message": "done"}]}\n')


def _rss_mb() -> float:
    """This process's peak RSS so far, in MB: Linux's ``VmHWM`` (``ru_maxrss`` survives
    ``exec``, so a child would inherit the parent's peak), else ``ru_maxrss``."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1000
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000


def child(path: Path, format_name: str, *, store: bool) -> None:
    """Run in a fresh process: one read (or one stored copy), printed as JSON."""
    if store:
        from arena_bot.intake.transcripts.redact import store_redacted
    before = _rss_mb()
    started = time.perf_counter()
    if store:
        out = Path(tempfile.mkdtemp(prefix="bench-store-"))
        try:
            stored, _ = store_redacted(source=path, folder=out, stem="run-1-transcript")
            iterations = stored.stat().st_size
        finally:
            shutil.rmtree(out, ignore_errors=True)
    else:
        iterations = read_transcript(path=path, format_name=format_name).iterations
    elapsed = time.perf_counter() - started
    print(json.dumps({"seconds": elapsed, "rss_before": before, "rss_peak": _rss_mb(),
                      "iterations": iterations}))


def _in_child(path: Path, format_name: str, *, store: bool = False) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", format_name, str(path)]
    done = subprocess.run(command + (["--store"] if store else []), capture_output=True,
                          text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def measure(path: Path, format_name: str, *, size: float) -> None:
    """Time one read and its peak RSS in a fresh process, then the peak Python memory of a
    read here (tracemalloc is slow)."""
    figures = _in_child(path, format_name)
    tracemalloc.start()
    read_transcript(path=path, format_name=format_name)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    stored = path.stat().st_size / 1_000_000
    elapsed = figures["seconds"]
    print(f"{format_name:12} {path.name:20} {size:7.1f} MB ({stored:6.1f} MB stored)  "
          f"{elapsed:6.2f} s  {size / elapsed:6.1f} MB/s  peak RSS {figures['rss_peak']:6.1f} MB "
          f"(before reading {figures['rss_before']:5.1f} MB)  tracemalloc peak "
          f"{peak / 1_000_000:5.2f} MB  iterations {int(figures['iterations']):,}")


def measure_store(path: Path, *, size: float) -> None:
    """What `arena submit` does with the transcript: a redacted (and gzipped) copy."""
    figures = _in_child(path, "claude-code", store=True)
    elapsed = figures["seconds"]
    print(f"{'store':12} {path.name:20} {size:7.1f} MB  {elapsed:6.2f} s  "
          f"{size / elapsed:6.1f} MB/s  peak RSS {figures['rss_peak']:6.1f} MB "
          f"(before {figures['rss_before']:5.1f} MB)  stored {figures['iterations'] / 1e6:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200, help="size of each generated file")
    parser.add_argument("--store", action="store_true",
                        help="also time the redacted copy arena submit stores (Claude Code)")
    parser.add_argument("--child", nargs=2, metavar=("FORMAT", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[1]), args.child[0], store=args.store)
        return
    scratch = Path(tempfile.mkdtemp(prefix="bench-transcripts-"))
    try:
        for name, writer, format_name in [
            ("claude_code.jsonl", write_claude_code, "claude-code"),
            ("codex.jsonl", write_codex, "codex"),
            ("openhands.json", write_openhands, "openhands"),
            ("atif.json", write_atif, "atif"),
        ]:
            path = scratch / name
            writer(path, args.mb)
            size = path.stat().st_size / 1_000_000
            measure(path, format_name, size=size)
            if args.store and format_name == "claude-code":
                measure_store(path, size=size)
            packed = path.with_name(name + ".gz")
            with path.open("rb") as raw, gzip.open(packed, "wb", compresslevel=1) as out:
                shutil.copyfileobj(raw, out)
            path.unlink()
            measure(packed, format_name, size=size)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
