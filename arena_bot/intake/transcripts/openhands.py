"""OpenHands trajectories (``save_trajectory_path``; the GUI's "export trajectory").

The file is one JSON array of events. Each event has ``id``, ``timestamp``, ``source``
(``agent``/``user``/``environment``) and either ``action`` or ``observation``. An agent action
chosen by the model carries ``tool_call_metadata`` (``tool_call_id``, ``model_response`` with
the response ``id``) and ``llm_metrics`` whose ``accumulated_token_usage`` is a running total
(``prompt_tokens`` includes the cache reads and writes, as LiteLLM reports them). The largest
running total is the session's usage, so an event replayed by a resumed session adds nothing;
iterations are distinct model responses, tool calls distinct tool call ids.

Trajectories without ``llm_metrics`` (older OpenHands, and the trajectories in OpenHands' own
tests) keep each call's usage in ``tool_call_metadata.model_response.usage`` (LiteLLM's shape:
``prompt_tokens`` including ``cache_read_input_tokens`` (or
``prompt_tokens_details.cached_tokens``) and ``cache_creation_input_tokens``;
``completion_tokens``) and its model in ``model_response.model``. The action and its
observation repeat the same response: usage is counted once per response id. Those are read
only when no event carries ``llm_metrics``.

Activity: edits are ``edit`` actions (``str_replace_editor``) and ``write`` actions, undone
by an ``error`` observation (or an ``edit`` one saying ``ERROR``) caused by them; ``run``
actions are shell commands. A request is each distinct model response, with its own usage
when it carries one, else the growth of the running total since the last request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.edits import Activity, Edit, Request, editor_edits, note_shell
from arena_bot.intake.transcripts.jsonstream import iter_objects
from arena_bot.intake.transcripts.metrics import (
    Clock,
    TranscriptMetrics,
    as_int,
    litellm_usage,
    opening,
    read_json_lines,
)
from arena_bot.intake.transcripts.openhands_v1 import V1_HINT, is_v1_event, read_openhands_v1

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens")
#: What to pass instead of a file that is no OpenHands transcript.
TRAJECTORY_HINT = ("pass the trajectory OpenHands 0.x saves (save_trajectory_path, or the "
                   f"GUI's export: a JSON array of events); {V1_HINT}; or check --format")


def _usage(event: dict[str, Any]) -> dict[str, Any] | None:
    metrics = event.get("llm_metrics")
    if not isinstance(metrics, dict):
        return None
    usage = metrics.get("accumulated_token_usage")
    return usage if isinstance(usage, dict) else None


def _response_usage(response: dict[str, Any]) -> dict[str, int]:
    """One LiteLLM response's usage as the four :data:`USAGE_KEYS` (prompt includes cache)."""
    usage = litellm_usage(response.get("usage"))
    return dict(zip(USAGE_KEYS, (usage["prompt"], usage["output"], usage["read"],
                                 usage["write"]), strict=True))


def _charge_step(
    metrics: TranscriptMetrics, model: str | None, before: dict[str, int], after: dict[str, int]
) -> None:
    """The growth of the running total, charged to the model that produced it (a condenser
    or a switched model is priced at its own rates)."""
    step = {key: after[key] - before[key] for key in USAGE_KEYS}
    read, write = step["cache_read_tokens"], step["cache_write_tokens"]
    metrics.charge(model, uncached=step["prompt_tokens"] - read - write, read=read, write=write,
                   output=step["completion_tokens"])


class _Activity:
    def __init__(self) -> None:
        self.activity = Activity(format_name="openhands")
        self.context = 0
        self.totals = (0, 0, 0)  # the running total of (prompt, cache read, completion) tokens
        self.responses: dict[str, int] = {}  # response id -> index in requests
        self.edit_of: dict[int, list[int]] = {}  # action id -> indices in edits

    def see(self, event: dict[str, Any], where: int, response: dict[str, Any] | None) -> None:
        activity = self.activity
        action = event.get("action")
        args = event.get("args")
        chars = len(str(event.get("message") or "")) + len(str(event.get("content") or ""))
        if isinstance(args, dict) and action:
            chars += len(json.dumps(args, ensure_ascii=False))
        args = args if isinstance(args, dict) else {}
        if response is not None:
            response_id = str(response.get("id"))
            if response_id in self.responses:
                activity.requests[self.responses[response_id]].grow(chars)
            else:
                step = self._step(event, response)
                if step is not None:
                    self.responses[response_id] = len(activity.requests)
                    activity.requests.append(Request(
                        where=where, input_tokens=step[0], cache_read=step[1],
                        output_tokens=step[2], context_chars=self.context, output_chars=chars,
                    ))
        if action == "edit":
            made = editor_edits(args, where)
            self.edit_of[where] = list(range(len(activity.edits),
                                             len(activity.edits) + len(made)))
            activity.edits.extend(made)
        elif action == "write":
            self.edit_of[where] = [len(activity.edits)]
            activity.edits.append(Edit(where, "write", str(args.get("path", "")), "write",
                                       new=str(args.get("content", ""))))
        elif action == "run":
            note_shell(activity, where, str(args.get("command", "")))
        elif event.get("observation") == "error" or (
            event.get("observation") == "edit"
            and str(event.get("content", "")).lstrip().startswith("ERROR")
        ):
            cause = event.get("cause")
            if isinstance(cause, int):
                activity.failed.extend(self.edit_of.get(cause, []))
        self.context += chars

    def _step(
        self, event: dict[str, Any], response: dict[str, Any]
    ) -> tuple[int, int, int] | None:
        """One response's usage: its own ``usage`` when the response carries it, else the
        growth of the event's running total (``llm_metrics.accumulated_token_usage``)."""
        usage = response.get("usage")
        if isinstance(usage, dict) and usage.get("prompt_tokens") is not None:
            own = _response_usage(response)
            return own["prompt_tokens"], own["cache_read_tokens"], own["completion_tokens"]
        running = _usage(event)
        if running is None:
            return None
        now = (as_int(running.get("prompt_tokens")), as_int(running.get("cache_read_tokens")),
               as_int(running.get("completion_tokens")))
        if sum(now) <= sum(self.totals):
            return None
        before, self.totals = self.totals, now
        return now[0] - before[0], now[1] - before[1], now[2] - before[2]


def _first_line_object(path: Path) -> object:
    """The first line's JSON value; a file whose first line is not JSON on its own (a JSON
    object spread over several lines) is refused, saying how to make it one per line."""
    try:
        for _number, value in read_json_lines(path):
            return value
    except InputError as exc:
        if str(exc.message).startswith("invalid JSON"):
            raise InputError(
                "not an OpenHands transcript: the file opens with a JSON object that does "
                "not fit on its first line (a pretty-printed event, or a JSON document "
                "that is not a trajectory)", path=path, hint=V1_HINT,
            ) from exc
        raise
    return None


def _generation(path: Path) -> str:
    """``0`` (a trajectory: a JSON array of 0.x events), ``v1-lines`` or ``v1-array``
    (OpenHands V1 events), told apart by the first event's keys: a V1 event names its class
    in ``kind``; a 0.x event has ``action`` or ``observation`` and no ``kind``."""
    start = opening(path)
    if start == b"{":
        if is_v1_event(_first_line_object(path)):
            return "v1-lines"
        raise InputError(
            "not an OpenHands transcript: the file holds a JSON object (or one per line) "
            "that is neither an OpenHands V1 event (no `kind`) nor a conversation's "
            "base_state.json", path=path, hint=TRAJECTORY_HINT,
        )
    if start == b"[":
        for _prefix, first in iter_objects(path, frozenset({"item"})):
            return "v1-array" if is_v1_event(first) else "0"
    elif start:  # a number, a string, true, false or null: read, it would be a run of nothing
        raise InputError("not an OpenHands transcript: the file holds a JSON document that is "
                         "no array of events", path=path, hint=TRAJECTORY_HINT)
    return "0"


def read_openhands(path: Path) -> TranscriptMetrics:
    """Read an OpenHands transcript of either generation (:func:`_generation`)."""
    generation = _generation(path)
    if generation != "0":
        return read_openhands_v1(path, array=generation == "v1-array")
    metrics = TranscriptMetrics()
    session = _Activity()
    clock = Clock()
    totals = dict.fromkeys(USAGE_KEYS, 0)
    responses: set[str] = set()
    tool_ids: set[str] = set()
    count = 0
    saw_llm_metrics = False
    # The sum of each distinct model response's usage, per model (read when no event carries
    # llm_metrics); kept as sums, so memory does not grow with the number of responses.
    by_model: dict[str | None, dict[str, int]] = {}
    for _prefix, event in iter_objects(path, frozenset({"item"})):
        count += 1
        if not isinstance(event, dict):  # read on, it would be a run of nothing
            raise InputError(f"not an OpenHands trajectory: item {count} of the array is not "
                             "a JSON object (an event)", path=path, hint=TRAJECTORY_HINT)
        clock.see(event.get("timestamp"))
        call = event.get("tool_call_metadata")
        response = call.get("model_response") if isinstance(call, dict) else None
        response = response if isinstance(response, dict) else None
        session.see(event, int(event["id"]) if isinstance(event.get("id"), int) else count,
                    response)
        usage = _usage(event)
        if usage is not None:
            saw_llm_metrics = True
            model = usage.get("model") if isinstance(usage.get("model"), str) else None
            metrics.add_model(model)
            figures = {key: as_int(usage.get(key)) for key in USAGE_KEYS}
            if sum(figures.values()) > sum(totals.values()):
                _charge_step(metrics, model, totals, figures)
                totals = figures
        args = event.get("args")
        if event.get("action") == "edit" and isinstance(args, dict) and isinstance(
                args.get("path"), str):
            metrics.edited_files.add(args["path"])
        if event.get("source") == "agent" and isinstance(call, dict):
            tool_ids.add(str(call.get("tool_call_id") or f"event-{event.get('id')}"))
            if response is not None and response.get("id"):
                if str(response["id"]) not in responses and not saw_llm_metrics:
                    named = response.get("model")
                    sums = by_model.setdefault(named if isinstance(named, str) else None,
                                               dict.fromkeys(USAGE_KEYS, 0))
                    for key, value in _response_usage(response).items():
                        sums[key] += value
                responses.add(str(response["id"]))
    if not count:
        raise InputError("not an OpenHands trajectory: the array holds no event", path=path,
                         hint=TRAJECTORY_HINT)
    if not saw_llm_metrics:
        totals = _sum_responses(metrics, by_model)
    cached = totals["cache_read_tokens"] + totals["cache_write_tokens"]
    metrics.prompt_tokens = max(totals["prompt_tokens"] - cached, 0)
    metrics.cache_read_tokens = totals["cache_read_tokens"]
    metrics.cache_write_tokens = totals["cache_write_tokens"]
    metrics.completion_tokens = totals["completion_tokens"]
    metrics.iterations = len(responses)
    metrics.tool_calls = len(tool_ids)
    metrics.wall_clock_seconds = clock.seconds()
    metrics.span_label = f"events 1-{count}"
    metrics.activity = session.activity
    return metrics


def _sum_responses(
    metrics: TranscriptMetrics, by_model: dict[str | None, dict[str, int]]
) -> dict[str, int]:
    """The session's usage as the sum of its distinct model responses, charged per model."""
    totals = dict.fromkeys(USAGE_KEYS, 0)
    empty = dict.fromkeys(USAGE_KEYS, 0)
    for model, usage in by_model.items():
        metrics.add_model(model)
        _charge_step(metrics, model, empty, usage)
        for key in USAGE_KEYS:
            totals[key] += usage[key]
    return totals
