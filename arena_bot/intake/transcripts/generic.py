"""The generic transcript format, for any tool without its own importer.

One JSON object per line. Recognised ``type`` values:

* ``llm_call``: one model request; fields ``model``, ``prompt_tokens``,
  ``completion_tokens``, ``cache_read_tokens``, ``cache_write_tokens`` (missing = 0).
* ``tool_call``: one tool invocation; field ``name``.

Every line may carry ``timestamp`` (ISO-8601 or epoch seconds); wall-clock time is the span
between the first and last. Other types are allowed and ignored. Iterations = ``llm_call`` lines.
Calls to several models are priced per model.
"""

from __future__ import annotations

from pathlib import Path

from arena_bot.intake.transcripts.metrics import Clock, TranscriptMetrics, as_int, read_json_lines


def read_generic(path: Path) -> TranscriptMetrics:
    metrics = TranscriptMetrics()
    clock = Clock()
    for number, event in read_json_lines(path):
        metrics.see_line(number)
        clock.see(event.get("timestamp"))
        kind = event.get("type")
        if kind == "llm_call":
            metrics.iterations += 1
            model = event.get("model") if isinstance(event.get("model"), str) else None
            metrics.add_model(model)
            metrics.count(model, uncached=as_int(event.get("prompt_tokens")),
                          read=as_int(event.get("cache_read_tokens")),
                          write=as_int(event.get("cache_write_tokens")),
                          output=as_int(event.get("completion_tokens")))
        elif kind == "tool_call":
            metrics.tool_calls += 1
    metrics.wall_clock_seconds = clock.seconds()
    return metrics
