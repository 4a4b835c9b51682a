"""Codex CLI rollout transcripts (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Each line is ``{"timestamp", "type", "payload"}``. ``turn_context`` payloads name the
``model``; ``response_item`` payloads of type ``function_call``, ``custom_tool_call``,
``local_shell_call`` or ``web_search_call`` are tool calls; ``event_msg`` payloads of type
``token_count`` carry ``info.total_token_usage``, a running total (``input_tokens`` includes
``cached_input_tokens``; ``output_tokens`` already includes ``reasoning_output_tokens``: in
real rollouts ``total_tokens = input_tokens + output_tokens``, so reasoning is not added again
and is not read). The last total is
the session's usage, so a resumed session that replays earlier totals does not double it.
Codex reports no cache-write figure (OpenAI caching has no write charge). Each step of the
running total is charged to the model of the turn it happened in, so a session that switched
models is priced per model.
"""

from __future__ import annotations

import re
from pathlib import Path

from arena_bot.intake.transcripts.metrics import Clock, TranscriptMetrics, as_int, read_json_lines

TOOL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
#: Codex edits files with ``apply_patch`` (a custom tool, or a shell call); its envelope names
#: each file on a ``*** Update File: PATH`` (Add / Delete) line.
PATCH_FILE = re.compile(r"\*\*\* (?:Update|Add|Delete) File: ([^\n\\]+)")


def _charge_step(
    metrics: TranscriptMetrics, model: str | None, before: dict[str, int], after: dict[str, int]
) -> None:
    """The growth of the running total since the last one, charged to the current turn's
    model (``/model`` switches models mid-session; each is priced at its own rates)."""
    step = {key: after[key] - before.get(key, 0) for key in after}
    cached = step["cached_input_tokens"]
    metrics.charge(model, uncached=step["input_tokens"] - cached, read=cached,
                   output=step["output_tokens"])


def read_codex(path: Path) -> TranscriptMetrics:
    metrics = TranscriptMetrics()
    clock = Clock()
    totals: dict[str, int] = {}
    seen_totals: set[tuple[int, ...]] = set()
    tool_ids: set[str] = set()
    model: str | None = None
    for number, event in read_json_lines(path):
        metrics.see_line(number)
        clock.see(event.get("timestamp"))
        payload = event.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = event.get("type")
        if kind == "turn_context":
            named = payload.get("model")
            model = named if isinstance(named, str) else model
            metrics.add_model(model)
        elif kind == "response_item" and payload.get("type") in TOOL_ITEMS:
            tool_ids.add(str(payload.get("call_id") or payload.get("id") or f"line-{number}"))
            for key in ("input", "arguments"):
                if isinstance(payload.get(key), str) and "*** Begin Patch" in payload[key]:
                    found = PATCH_FILE.findall(payload[key])
                    metrics.edited_files.update(name.strip() for name in found)
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            usage = info.get("total_token_usage") if isinstance(info, dict) else None
            if not isinstance(usage, dict):
                continue
            figures = {key: as_int(usage.get(key))
                       for key in ("input_tokens", "cached_input_tokens", "output_tokens")}
            # Each new running total is one model call; repeats (resume, rate-limit pings)
            # are not.
            seen_totals.add(tuple(figures.values()))
            if sum(figures.values()) >= sum(totals.values()):
                _charge_step(metrics, model, totals, figures)
                totals = figures
    cached = totals.get("cached_input_tokens", 0)
    metrics.prompt_tokens = max(totals.get("input_tokens", 0) - cached, 0)
    metrics.cache_read_tokens = cached
    metrics.completion_tokens = totals.get("output_tokens", 0)
    metrics.iterations = len(seen_totals)
    metrics.tool_calls = len(tool_ids)
    metrics.wall_clock_seconds = clock.seconds()
    return metrics
