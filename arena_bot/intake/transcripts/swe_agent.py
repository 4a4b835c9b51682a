"""SWE-agent trajectories (``trajectories/<run>/<instance_id>.traj``).

One JSON object: ``trajectory`` (a list of steps with ``response``, ``thought``, ``action``,
``observation``, ``execution_time``, ``query``), ``history`` (the messages), ``info`` with
``model_stats`` (``tokens_sent``, ``tokens_received``, ``api_calls``, ``instance_cost``) and
``replay_config`` (a JSON string whose ``agent.model.name`` is the model). ``model_stats`` is
the run's own total, so tokens and iterations come from it; tool calls are the steps with a
non-empty action. The format has no timestamps and no cache split: wall-clock time is left
unchecked (0) and all prompt tokens count as uncached input. An ``info.exit_status`` other
than ``submitted`` (a limit hit: ``exit_cost``, ``submitted (exit_cost)``; mini-swe-agent's
``LimitsExceeded``), or a CooperBench runner file's ``status`` other than ``Submitted``, is
the run's error end (:attr:`TranscriptMetrics.error_end`).

mini-swe-agent's ``.traj.json`` (also ``swe-agent``): ``messages`` (the chat, each model reply
with ``extra.response``, the LiteLLM response and its ``usage``, and from 2.0 ``extra.actions``
and ``extra.timestamp``), ``info.model_stats`` (``instance_cost``, ``api_calls``: no token
figures) and ``info.config.model.model_name``. Tokens are the sum of the replies' usage
(``prompt_tokens`` including the cache reads and writes), tool calls the actions run: a
reply's ``extra.actions``, else its one bash block (1.x runs a reply with exactly one, and
calls anything else a format error).

mini-swe-agent 2.x as CooperBench runs it (``mini_swe_agent_v2``) compacts the conversation
when it grows: ``agent.save()`` (``<agent>_full_traj.json``, written only when it did) then
keeps the messages after the last compaction in ``messages`` and the whole run in
``segments`` (each ``solver`` segment a snapshot of the conversation, so the turns kept
across a compaction appear in two, and the summary call in its ``summarizer`` segment and the
next solver one). Every reply is counted once, by its LiteLLM response ``id`` (else its
``extra.timestamp``), wherever it appears. CooperBench's runner also writes
``agent<N>_traj.json`` / ``solo_traj.json``: ``model``, ``steps`` (the model calls) and the
agent's final ``messages``, read the same way; when those messages hold a compaction summary
the calls before it are not in the file, which is refused for ``<agent>_full_traj.json``.
Its ``result.json`` and the trajectories of its Claude Code, SWE-agent and OpenHands runs
(their messages' text only, no usage) are refused, naming the file to pass instead.

Activity: edits come from ``str_replace_editor`` calls: the JSON arguments of a ``history``
tool call when present (function calling), else the step's ``action`` text parsed as the
shell would. Usage is only given as totals: each assistant message of ``history`` is a
request, with the totals checked over all of them.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.edits import (
    Activity,
    Request,
    chars_of,
    editor_edits,
    note_shell,
    tool_arguments,
)
from arena_bot.intake.transcripts.jsonstream import iter_objects
from arena_bot.intake.transcripts.metrics import (
    Clock,
    TranscriptMetrics,
    as_int,
    cooperbench_run_file,
    litellm_usage,
    not_an_object,
)

FIELDS = frozenset({"trajectory.item", "history.item", "info.model_stats", "info.submission",
                    "info.exit_status", "status",
                    "replay_config", "messages.item", "info.config.model.model_name",
                    "segments.item.messages.item", "model", "steps", "agent_id",
                    "agent_framework", "setting", "cost"})
#: Top-level keys looked at to tell a CooperBench runner file.
RUN_FILE_KEYS = frozenset({"model", "steps", "agent_id", "agent_framework", "setting", "cost"})
DIFF_HEADER = re.compile(r"^diff --git a/\S+ b/(\S+)$", re.MULTILINE)
BASH_BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)


def _model_from_replay_config(config: object) -> str | None:
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except (ValueError, RecursionError):  # not JSON, or a number past the digit limit
            return None
    agent = config.get("agent") if isinstance(config, dict) else None
    model = agent.get("model") if isinstance(agent, dict) else None
    name = model.get("name") if isinstance(model, dict) else None
    return name if isinstance(name, str) else None


#: What a SWE-agent transcript is.
TRAJECTORY_HINT = ("pass the trajectory SWE-agent saved (trajectories/<run>/<instance>.traj) "
                   "or mini-swe-agent's <instance>.traj.json, one JSON object; or check "
                   "--format")


def read_swe_agent(path: Path) -> TranscriptMetrics:
    refused = not_an_object(path, "a SWE-agent trajectory", TRAJECTORY_HINT)
    if refused is not None:
        raise refused
    metrics = TranscriptMetrics()
    activity = metrics.activity = Activity(format_name="swe-agent", totals_only=True)
    stats: dict[str, int] = {}
    actions: list[str] = []
    called = False
    context = history = 0
    replies = dict.fromkeys(("prompt", "read", "write", "output"), 0)  # mini-swe-agent
    clock = Clock()
    seen: set[str] = set()  # mini-swe-agent replies counted (by response id)
    top: dict[str, Any] = {}  # top-level scalars (CooperBench's runner files)
    compacted = with_usage = segmented = False
    for prefix, value in iter_objects(path, FIELDS):
        if prefix in RUN_FILE_KEYS:
            top[prefix] = value
            continue
        if prefix in ("messages.item", "segments.item.messages.item") and isinstance(
                value, dict):  # mini-swe-agent
            extra = value.get("extra")
            with_usage = with_usage or (isinstance(extra, dict) and "response" in extra)
            compacted = compacted or (isinstance(extra, dict) and extra.get("summary") is True)
            ran = _mini_reply(value, replies, clock, seen)
            actions.extend(ran)
            metrics.tool_calls += len(ran)
            if prefix != "messages.item":
                segmented = True
                continue
        if prefix == "trajectory.item":
            action = value.get("action") if isinstance(value, dict) else None
            actions.append(action if isinstance(action, str) else "")
            metrics.tool_calls += bool(actions[-1].strip())
        elif prefix == "info.model_stats" and isinstance(value, dict):
            stats = {key: as_int(figure) for key, figure in value.items()}
        elif prefix in ("info.exit_status", "status") and isinstance(value, str) \
                and value.strip() and value.strip().lower() != "submitted":
            # SWE-agent's exit_cost / exit_context / "submitted (exit_cost)" (submitted for
            # it when a limit was hit), mini-swe-agent's LimitsExceeded, FormatError, ...;
            # CooperBench's runner files keep it as "status" (its "Error": the run raised)
            metrics.error_end = f"{prefix} is {value.strip()!r}"
        elif prefix == "info.submission" and isinstance(value, str):
            metrics.edited_files.update(DIFF_HEADER.findall(value))
        elif prefix == "replay_config":
            metrics.add_model(_model_from_replay_config(value))
        elif prefix == "info.config.model.model_name" and isinstance(value, str):
            metrics.add_model(value)
        elif prefix in ("history.item", "messages.item"):
            history += 1
            chars = chars_of(value.get("content")) if isinstance(value, dict) else 0
            if isinstance(value, dict) and value.get("role") == "assistant":
                called = _history_call(activity, value, history, context, chars) or called
            context += chars
    _run_file_checks(path, top, with_usage=with_usage, compacted=compacted,
                     segmented=segmented)
    if isinstance(top.get("model"), str):
        metrics.add_model(top["model"])
    if "api_calls" not in stats and "steps" in top:
        stats["api_calls"] = as_int(top["steps"])
    if not called:
        for number, action in enumerate(actions, start=1):
            _action(activity, action, number)
    metrics.prompt_tokens = stats.get("tokens_sent", 0)
    metrics.completion_tokens = stats.get("tokens_received", 0)
    if "tokens_sent" not in stats and any(replies.values()):  # mini-swe-agent
        read, write = replies["read"], replies["write"]
        metrics.count(metrics.models[0] if metrics.models else None,
                      uncached=max(replies["prompt"] - read - write, 0), read=read, write=write,
                      output=replies["output"])
    if activity.requests:
        activity.requests[0].input_tokens = metrics.prompt_total
        activity.requests[0].output_tokens = metrics.completion_tokens
    metrics.iterations = stats.get("api_calls", 0)
    metrics.wall_clock_seconds = clock.seconds()
    metrics.span_label = "info.model_stats and the trajectory's actions"
    return metrics


def _mini_reply(
    message: dict[str, Any], replies: dict[str, int], clock: Clock, seen: set[str]
) -> list[str]:
    """A mini-swe-agent message: its usage added to ``replies``; the commands it ran. A reply
    already counted (the same response id, else time stamp, in another segment) adds
    nothing."""
    extra = message.get("extra")
    extra = extra if isinstance(extra, dict) else {}
    response = extra.get("response")
    key = str(response.get("id") or "") if isinstance(response, dict) else ""
    key = key or (f"at-{extra['timestamp']}" if "timestamp" in extra else "")
    if key:
        if key in seen:
            return []
        seen.add(key)
    clock.see(extra.get("timestamp"))
    if isinstance(response, dict):
        for key, figure in litellm_usage(response.get("usage")).items():
            replies[key] += figure
    if message.get("role") != "assistant":
        return []
    if isinstance(extra.get("actions"), list):
        return [str(a.get("command", "")) if isinstance(a, dict) else "" for a in extra["actions"]]
    blocks = BASH_BLOCK.findall(str(message.get("content", "")))
    return blocks if len(blocks) == 1 else []


def _history_call(
    activity: Activity, message: dict[str, Any], where: int, context: int, chars: int
) -> bool:
    """Record an assistant message as a request and its tool calls; whether it made any."""
    activity.requests.append(Request(where=where, context_chars=context, output_chars=chars))
    called = False
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        called = True
        data = tool_arguments(function.get("arguments"))
        if function.get("name") in ("str_replace_editor", "file_editor"):
            activity.edits.extend(editor_edits(data, where))
        elif function.get("name") == "bash":
            note_shell(activity, where, str(data.get("command", "")))
    return called


def _action(activity: Activity, action: str, where: int) -> None:
    """A step's ``action`` text, read as the shell would (no function calling)."""
    stripped = action.strip()
    if stripped.startswith("str_replace_editor "):
        try:
            words = shlex.split(stripped)
            command, path = (words[1], words[2]) if len(words) > 2 else ("", "")
            options: dict[str, Any] = {"command": command, "path": path}
            rest = words[3:]
            for key, value in zip(rest[::2], rest[1::2], strict=False):
                if key.startswith("--"):
                    options[key[2:]] = int(value) if key == "--insert_line" \
                        and value.isdecimal() else value
        except ValueError:  # quotes left open, or a line number past Python's digit limit
            activity.unreplayable.append((where, stripped[:80]))
            return
        activity.edits.extend(editor_edits(options, where))
    elif re.match(r"^edit\s+\d+:\d+", stripped):
        activity.unreplayable.append((where, stripped.split("\n", 1)[0]))
    elif stripped and stripped != "submit":
        note_shell(activity, where, stripped)


def _run_file_checks(
    path: Path, top: dict[str, Any], *, with_usage: bool, compacted: bool, segmented: bool
) -> None:
    """Refuse CooperBench runner files that cannot give the run's figures (see the module
    docstring): its summary, a trajectory without usage, a compacted one without its
    segments."""
    keys = set(top)
    if not with_usage:
        refused = cooperbench_run_file(path, keys | ({"messages"} if "agent_id" in keys
                                                     else set()))
        if refused is not None:
            raise refused
    if compacted and not segmented:
        agent = str(top.get("agent_id") or "<agent>")
        raise InputError(
            "this mini-swe-agent trajectory was compacted: its messages start at a summary, and "
            "the model calls before it are not in this file", path=path,
            hint=f"pass {agent}_full_traj.json from the same folder (CooperBench writes it "
            "with every segment of a compacted run)",
        )
