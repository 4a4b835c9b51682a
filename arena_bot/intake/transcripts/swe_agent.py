"""SWE-agent trajectories (``trajectories/<run>/<instance_id>.traj``).

One JSON object: ``trajectory`` (a list of steps with ``response``, ``thought``, ``action``,
``observation``, ``execution_time``, ``query``), ``history`` (the messages), ``info`` with
``model_stats`` (``tokens_sent``, ``tokens_received``, ``api_calls``, ``instance_cost``) and
``replay_config`` (a JSON string whose ``agent.model.name`` is the model). ``model_stats`` is
the run's own total, so tokens and iterations come from it; tool calls are the steps with a
non-empty action. The format has no timestamps and no cache split: wall-clock time is left
unchecked (0) and all prompt tokens count as uncached input.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena_bot.intake.transcripts.jsonstream import iter_events
from arena_bot.intake.transcripts.metrics import TranscriptMetrics, as_int

STATS = "info.model_stats."
DIFF_HEADER = re.compile(r"^diff --git a/\S+ b/(\S+)$", re.MULTILINE)


def _model_from_replay_config(text: str) -> str | None:
    try:
        config = json.loads(text)
    except json.JSONDecodeError:
        return None
    agent = config.get("agent") if isinstance(config, dict) else None
    model = agent.get("model") if isinstance(agent, dict) else None
    name = model.get("name") if isinstance(model, dict) else None
    return name if isinstance(name, str) else None


def read_swe_agent(path: Path) -> TranscriptMetrics:
    metrics = TranscriptMetrics()
    stats: dict[str, int] = {}
    for _line, prefix, event, value in iter_events(path):
        if prefix == "trajectory.item.action" and event == "string" and value.strip():
            metrics.tool_calls += 1
        elif prefix.startswith(STATS) and event == "number":
            stats[prefix.removeprefix(STATS)] = as_int(value)
        elif prefix == "info.submission" and event == "string":
            metrics.edited_files.update(DIFF_HEADER.findall(value))
        elif prefix == "replay_config" and event == "string":
            metrics.add_model(_model_from_replay_config(value))
        elif prefix == "replay_config.agent.model.name" and event == "string":
            metrics.add_model(value)
    metrics.prompt_tokens = stats.get("tokens_sent", 0)
    metrics.completion_tokens = stats.get("tokens_received", 0)
    metrics.iterations = stats.get("api_calls", 0)
    metrics.span_label = "info.model_stats and the trajectory's actions"
    return metrics
