"""Harbor's Agent Trajectory Interchange Format (ATIF, ``trajectory.json``; Terminal-Bench).

One JSON object: ``schema_version`` (``ATIF-v1.x``), ``agent`` (``name``, ``version``,
``model_name``), ``steps`` and an optional ``final_metrics``. Each step has ``step_id``,
``timestamp`` (ISO-8601), ``source`` (``system``/``user``/``agent``), an optional
``model_name`` and, on agent steps, ``tool_calls`` (``tool_call_id``, ``function_name``,
``arguments``) and ``metrics``: ``prompt_tokens`` (every prompt token, cached ones included),
``completion_tokens``, ``cached_tokens`` (the cached part of the prompt) and ``cost_usd``.

Read: each agent step is one model call (an iteration). Tokens are the run's own totals in
``final_metrics`` (``total_prompt_tokens``, ``total_cached_tokens``,
``total_completion_tokens``; each field that is present), like SWE-agent's ``model_stats``: a
call that produced no step (a timed-out turn, a summarisation) is billed there but in no
step. A field ``final_metrics`` lacks is the sum of the steps' ``metrics`` (cached tokens as
cache reads, the rest of the prompt as uncached), and each step is charged to its own
``model_name`` (else the agent's) for pricing; tool calls are distinct ``tool_call_id``s;
wall-clock time is the span of the step timestamps. Not read: ``cost_usd`` (the cost is
recomputed from the price table), cache writes (ATIF has no field for them), ``extra``,
observations, and sub-agent trajectories referenced from a step (``subagent_trajectory_ref``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena_bot.intake.transcripts.jsonstream import iter_objects
from arena_bot.intake.transcripts.metrics import Clock, TranscriptMetrics, as_int, not_an_object

FIELDS = frozenset({"agent", "steps.item", "final_metrics"})


def _name(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _add_step(metrics: TranscriptMetrics, step: dict[str, Any], *, model: str | None) -> None:
    metrics.iterations += 1
    model = _name(step.get("model_name")) or model
    metrics.add_model(model)
    figures = step.get("metrics")
    if not isinstance(figures, dict):
        return
    prompt, cached = as_int(figures.get("prompt_tokens")), as_int(figures.get("cached_tokens"))
    metrics.count(model, uncached=max(prompt - cached, 0), read=cached,
                  output=as_int(figures.get("completion_tokens")))


def _use_final(metrics: TranscriptMetrics, final: dict[str, Any], model: str | None) -> None:
    """Take the totals ``final`` states; a field it lacks keeps the steps' sum."""
    steps_prompt = metrics.prompt_tokens + metrics.cache_read_tokens
    prompt = as_int(final.get("total_prompt_tokens", steps_prompt))
    cached = as_int(final.get("total_cached_tokens", metrics.cache_read_tokens))
    output = as_int(final.get("total_completion_tokens", metrics.completion_tokens))
    if (prompt, cached, output) == (steps_prompt, metrics.cache_read_tokens,
                                    metrics.completion_tokens):
        return
    metrics.prompt_tokens = max(prompt - cached, 0)
    metrics.cache_read_tokens = cached
    metrics.completion_tokens = output
    if len(metrics.usage_by_model) <= 1:  # one model: its usage is the totals
        metrics.usage_by_model.clear()
        metrics.charge(model, uncached=prompt - cached, read=cached, output=output)


def read_atif(path: Path) -> TranscriptMetrics:
    refused = not_an_object(
        path, "an ATIF trajectory", "pass the trajectory.json Harbor wrote for the trial (one "
        "JSON object with `schema_version` ATIF-v1.x and `steps`); or check --format")
    if refused is not None:
        raise refused
    metrics = TranscriptMetrics()
    clock = Clock()
    agent_model: str | None = None
    final: dict[str, Any] | None = None
    tool_ids: set[str] = set()
    steps = 0
    for prefix, value in iter_objects(path, FIELDS):
        if prefix == "agent" and isinstance(value, dict):
            agent_model = _name(value.get("model_name"))
            metrics.add_model(agent_model)
        elif prefix == "final_metrics" and isinstance(value, dict):
            final = value
        elif prefix == "steps.item" and isinstance(value, dict):
            steps += 1
            clock.see(value.get("timestamp"))
            if value.get("source") != "agent":
                continue
            _add_step(metrics, value, model=agent_model)
            calls = value.get("tool_calls")
            for number, call in enumerate(calls if isinstance(calls, list) else []):
                if isinstance(call, dict):
                    tool_ids.add(str(call.get("tool_call_id") or f"{steps}-{number}"))
    if final is not None:
        models = [m for m in metrics.models if m]
        _use_final(metrics, final, models[0] if len(models) == 1 else agent_model)
    metrics.tool_calls = len(tool_ids)
    metrics.wall_clock_seconds = clock.seconds()
    metrics.span_label = f"steps 1-{steps}"
    return metrics
