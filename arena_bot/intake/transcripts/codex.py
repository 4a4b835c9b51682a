"""Codex CLI rollout transcripts (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Each line is ``{"timestamp", "type", "payload"}``. ``turn_context`` payloads name the
``model``; ``response_item`` payloads of type ``function_call``, ``custom_tool_call``,
``local_shell_call`` or ``web_search_call`` are tool calls; ``event_msg`` payloads of type
``token_count`` carry ``info.total_token_usage``, a running total (``input_tokens`` includes
``cached_input_tokens`` and, from Codex 0.16x, ``cache_write_input_tokens``, the cache write a
provider reports in ``input_tokens_details.cache_write_tokens``: OpenAI bills none;
``output_tokens`` already includes ``reasoning_output_tokens``: in real rollouts ``total_tokens
= input_tokens + output_tokens``, so reasoning is not added again and is not read). The last
total is the session's usage, so a resumed session that replays earlier totals does not double
it; Codex 0.39 starts the total again from zero after ``codex exec resume``, which
:class:`RunningTotals` adds up (checked against real Codex 0.39.0, 0.80.0 and 0.169.0 run
against ``scripts/capture/codex.py``). Each step of the
running total is charged to the model of the turn it happened in, so a session that switched
models is priced per model.

``codex exec --json`` (Codex run headless, as benchmark harnesses run it) prints other events
on stdout, one per line: ``thread.started``, ``turn.started``, ``item.started``/
``item.completed`` (``item.type`` ``command_execution``, ``file_change``, ``mcp_tool_call``,
``web_search``, ``collab_tool_call``, ``agent_message``, ``reasoning``, ``todo_list`` (the
plan ``update_plan`` calls start, then update), ``error``) and
``turn.completed`` with ``usage`` (``input_tokens`` including ``cached_input_tokens``,
``output_tokens`` including ``reasoning_output_tokens``), Codex's running total for the
thread (real captures of one thread: ``codex exec`` printed 5 output tokens for "pong",
``codex exec resume`` 10 for "pong" again): :func:`read_codex_exec` takes the largest. That
output names no model and carries no time stamps (the rollout file Codex keeps beside it,
``$CODEX_HOME/sessions/.../rollout-*.jsonl``, has both). Lines that are not JSON objects are
skipped there (stderr captured with stdout). A resumed thread's output counts the whole
thread's tokens but shows only that run's items (tool calls): its rollout is the better file.
Older Codex (0.39) printed protocol events wrapped in ``msg`` instead
(:func:`read_codex_legacy`). What ``codex exec`` prints without ``--json`` (the last message;
on stderr the run as a person reads it) is refused, naming the rollout by the ``session id``
of its header (:func:`_text_refused`).

Sub-agents (Codex 0.16x ``multi_agent``: ``spawn_agent``) run as threads of their own, each
written to a rollout of its own beside the session's, its ``session_meta`` naming the parent
(``parent_thread_id``): :func:`subagent_files` finds them and :func:`read_codex_rollout`
counts them with the session (checked on a real 0.169.0 run: the session's rollout alone held
3 of the 5 billed replies). ``codex exec --json`` shows only the session's usage; the
sub-agents its ``collab_tool_call`` items started are named as unread.

Codex run with a ``wire_api = "chat"`` provider records no usage at all (``token_count``
with ``info`` null, ``turn.completed`` usage 0; checked on 0.39.0 and 0.80.0): such a file is
refused (:func:`no_usage_recorded`), not read as a run of 0 tokens.

How the run ended (:attr:`TranscriptMetrics.error_end`): a 0.16x rollout's last turn event
(``task_complete`` with an ``error``, ``turn_aborted``, or a ``task_started`` never ended:
checked on real cut, SIGINT and SIGKILL runs; in a person's session only a failed turn:
:data:`INTERACTIVE_SOURCES`), ``turn.failed`` in ``codex exec --json``, a fatal ``error``
in 0.39's. 0.39 writes neither to its rollout nor a ``task_complete`` to its
``--json``: its interrupted runs look finished.

Activity: a request is a ``token_count`` event with a new running total (its
``last_token_usage``; ``input_tokens`` there already include ``cached_input_tokens``).
Edits are ``apply_patch`` calls: a ``custom_tool_call`` named ``apply_patch``, or ``shell``
with ``apply_patch`` as its program or in a heredoc.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.edits import (
    PATCH_START,
    Activity,
    Request,
    note_shell,
    parse_apply_patch,
    tool_arguments,
)
from arena_bot.intake.transcripts.metrics import (
    MAX_LINE_BYTES,
    Clock,
    TranscriptMetrics,
    as_int,
    decode_line,
    open_transcript,
    printed_objects,
    read_json_lines,
    read_lines,
)

TOOL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call"}


#: The figures of a Codex token usage record; ``cached_input_tokens`` and (Codex 0.16x and
#: later) ``cache_write_input_tokens`` are parts of ``input_tokens``.
USAGE_KEYS = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens")


def usage_figures(usage: Mapping[str, Any]) -> dict[str, int]:
    return {key: as_int(usage.get(key)) for key in USAGE_KEYS}


def split_usage(figures: Mapping[str, int]) -> dict[str, int]:
    """(uncached, read, write, output) of a usage record, in :meth:`TranscriptMetrics.charge`
    terms. A provider billing a cache write (OpenAI bills none) reports it inside
    ``input_tokens``, as it does the cache read."""
    read = figures.get("cached_input_tokens", 0)
    write = figures.get("cache_write_input_tokens", 0)
    return {"uncached": max(figures.get("input_tokens", 0) - read - write, 0), "read": read,
            "write": write, "output": figures.get("output_tokens", 0)}


class RunningTotals:
    """Codex's running token totals (``total_token_usage``), in the order written.

    A total already seen is a repeat (a resumed session, rate-limit pings, the totals written
    around a compaction), not a model call. A new total below the last one is a count started
    again: Codex before 0.4x counts from zero when a session is resumed (0.39: 31,665 input
    tokens, then 9,666 after ``codex exec resume``); what was counted before stays counted.
    """

    def __init__(self) -> None:
        self.current: dict[str, int] = {}
        self.earlier: dict[str, int] = {}
        self.seen: set[tuple[object, ...]] = set()
        self.thread = ""

    def new_thread(self, thread: str) -> None:
        """A sub-agent's rollout follows (its own running total, from zero)."""
        for key, value in self.current.items():
            self.earlier[key] = self.earlier.get(key, 0) + value
        self.current = {}
        self.thread = thread

    def is_new(self, figures: Mapping[str, int]) -> bool:
        return (self.thread, *figures.values()) not in self.seen

    def see(self, figures: dict[str, int]) -> tuple[dict[str, int], dict[str, int]] | None:
        """Take one total; the (before, after) step it adds, or ``None`` (nothing added)."""
        fresh = self.is_new(figures)
        self.seen.add((self.thread, *figures.values()))
        if fresh and any(value < self.current.get(key, 0) for key, value in figures.items()):
            for key, value in self.current.items():
                self.earlier[key] = self.earlier.get(key, 0) + value
            self.current = {}
        if sum(figures.values()) < sum(self.current.values()):
            return None
        before, self.current = self.current, figures
        return before, figures

    def total(self) -> dict[str, int]:
        return {key: self.current.get(key, 0) + self.earlier.get(key, 0) for key in USAGE_KEYS}


def no_usage_recorded(path: Path, events: int, what: str = "`token_count` event(s)"
                      ) -> InputError:
    """Codex wrote ``events`` usage events and not one usage figure in them."""
    return InputError(
        f"Codex recorded no token usage in this run: its {events} {what} carry none "
        "(`info` null, or a usage of 0). Codex writes that for a model provider "
        "configured with wire_api = \"chat\" (it reads no usage from a Chat Completions "
        "stream), or when no reply completed", path=path,
        hint="the tokens of this run are in no file Codex wrote, so it cannot be submitted "
        "with its metrics: run Codex with a wire_api = \"responses\" provider, whose usage "
        "it records",
    )


def _charge_step(
    metrics: TranscriptMetrics, model: str | None, before: dict[str, int], after: dict[str, int]
) -> None:
    """The growth of the running total since the last one, charged to the current turn's
    model (``/model`` switches models mid-session; each is priced at its own rates)."""
    step = split_usage({key: after[key] - before.get(key, 0) for key in after})
    metrics.charge(model, uncached=step["uncached"], read=step["read"], write=step["write"],
                   output=step["output"])


#: ``codex exec --json`` event types (a rollout line's ``type`` is never one of them).
EXEC_EVENTS = frozenset({"thread.started", "turn.started", "turn.completed", "turn.failed",
                         "item.started", "item.updated", "item.completed", "error"})
#: ``codex exec --json`` item types that are tool calls.
EXEC_TOOL_ITEMS = frozenset({"command_execution", "file_change", "mcp_tool_call", "web_search",
                             "collab_tool_call"})


def _exec_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of ``codex exec --json`` output; other lines (stderr) passed over."""
    return printed_objects(path, hint="pass the output exactly as `codex exec --json` "
                           "printed it")


#: How many JSON objects are looked at to tell exec output from a rollout.
SHAPE_OBJECTS = 20


def _shape(path: Path) -> str:
    """``rollout``, ``exec`` (``codex exec --json``: thread/turn/item events), ``legacy``
    (the ``--json`` output of older Codex: protocol events wrapped in ``msg``, after a
    configuration echo) or ``text`` (no JSON object at all: what ``codex exec`` prints
    without ``--json``). A rollout line has ``payload``."""
    try:
        for count, (_number, event) in enumerate(_exec_lines(path)):
            if "payload" in event or count >= SHAPE_OBJECTS:
                return "rollout"
            if isinstance(event.get("type"), str) and event["type"] in EXEC_EVENTS:
                return "exec"
            if isinstance(event.get("msg"), dict):
                return "legacy"
    except InputError:  # not JSON where a rollout line should be: the rollout reader says so
        return "rollout"
    printed = any(decode_line(raw)[0].strip() for _number, raw in read_lines(path))
    return "text" if printed else "rollout"


#: The thread's id in the header ``codex exec`` prints on stderr (``session id: <id>``).
TEXT_SESSION_ID = re.compile(r"^session id: ([0-9a-f][0-9a-f-]{15,})\s*$")


def _text_refused(path: Path) -> InputError:
    """``codex exec``'s text output (stdout: the last message; stderr, when captured with
    it, the run as a person reads it and ``tokens used`` once) refused, naming the rollout
    by the thread id of its header where it has one."""
    thread = next((found.group(1) for _number, raw in read_lines(path)
                   if (found := TEXT_SESSION_ID.match(decode_line(raw)[0].strip()))), "")
    return InputError(
        "no JSON event in this file: it looks like the text `codex exec` prints without "
        "--json, which shows no model call's usage", path=path,
        hint="pass the rollout Codex kept for the thread, $CODEX_HOME/sessions/YYYY/MM/DD/"
        f"rollout-*{thread or '<thread id>'}.jsonl (or the output of `codex exec --json`), "
        "with --format codex",
    )


def read_codex_exec(path: Path) -> TranscriptMetrics:
    """Recompute the metrics of ``codex exec --json`` output: tokens from the largest
    ``turn.completed`` ``usage`` (a running total), tool calls the distinct ids of completed
    tool items; it shows neither model calls one by one nor time, so iterations and time
    are left unchecked."""
    metrics = TranscriptMetrics(unverifiable={"iterations", "execution_time"})
    # No request one by one (turn totals only) and file changes without their text: the
    # activity names the shell commands and the changes, which cannot be replayed.
    activity = metrics.activity = Activity(format_name="codex")
    totals: dict[str, int] = {}
    tool_ids: set[str] = set()
    thread = ""
    for number, event in _exec_lines(path):
        metrics.see_line(number)
        kind = event.get("type")
        thread = thread or str(event.get("thread_id") or "")
        item = event.get("item")
        if kind in ("item.started", "item.updated") and isinstance(item, dict) and item.get(
                "type") == "todo_list":
            # Each `update_plan` call starts (the first) or updates the turn's one plan item.
            tool_ids.add(f"{item.get('id')}#{number}")
        if kind == "item.completed" and isinstance(item, dict) and isinstance(
                item.get("type"), str) and item["type"] in EXEC_TOOL_ITEMS:
            tool_ids.add(str(item.get("id") or f"line-{number}"))
            receivers = item.get("receiver_thread_ids")
            if item.get("tool") == "spawn_agent" and isinstance(receivers, list):
                # a sub-agent's usage is in its own rollout, not in this output's totals
                metrics.unread_subagents.update(str(r) for r in receivers if r)
            if item.get("type") == "command_execution":
                note_shell(activity, number, str(item.get("command", "")))
            changes = item.get("changes") if item.get("type") == "file_change" else None
            for change in changes if isinstance(changes, list) else []:
                if isinstance(change, dict) and isinstance(change.get("path"), str):
                    metrics.edited_files.add(change["path"])
                    activity.unreplayable.append(
                        (number, f"file_change {change.get('kind', '')} {change['path']}"))
        if kind in ("turn.completed", "turn.failed"):
            metrics.error_end = _failure(event.get("error"), "turn.failed")
        usage = event.get("usage")
        if kind == "turn.completed" and isinstance(usage, dict):
            figures = usage_figures(usage)
            metrics.iterations += 1
            if sum(figures.values()) >= sum(totals.values()):
                totals = figures
    if totals and not any(totals.values()):
        raise no_usage_recorded(path, metrics.iterations, "`turn.completed` usage(s)")
    if not totals:
        raise InputError(
            "this `codex exec --json` output has no `turn.completed` event with usage (the "
            "run failed or was cut off?)", path=path,
            hint="pass the rollout Codex kept for the thread, $CODEX_HOME/sessions/YYYY/MM/DD/"
            f"rollout-*{thread or '<thread id>'}.jsonl, with --format codex",
        )
    metrics.count(None, **split_usage(totals))
    metrics.tool_calls = len(tool_ids)
    metrics.span_label = f"turn.completed usage, lines {metrics.first_line}-{metrics.last_line}"
    return metrics


#: Protocol events of older ``codex exec --json`` output that begin a tool call.
LEGACY_CALLS = frozenset({"exec_command_begin", "patch_apply_begin", "mcp_tool_call_begin",
                          "web_search_begin"})


def read_codex_legacy(path: Path) -> TranscriptMetrics:
    """``codex exec --json`` of Codex before 0.4x (0.39 here): a configuration echo (with
    ``model``), the prompt, then protocol events ``{"id", "msg": {"type", ...}}``. Its
    ``token_count`` events carry ``info.total_token_usage``, the same running total as a
    rollout's (one new total per model call; after ``codex exec resume`` it counts the resumed
    run alone, from zero); tool calls are the ``*_begin`` events' call ids and each
    ``plan_update`` (``update_plan``). No time stamps. An older shape whose ``token_count``
    has no running total (its figures alone on the event) is refused."""
    metrics = TranscriptMetrics(unverifiable={"execution_time"})
    activity = metrics.activity = Activity(format_name="codex")
    totals = RunningTotals()
    tool_ids: set[str] = set()
    model: str | None = None
    counted = 0  # token_count events
    for number, event in _exec_lines(path):
        metrics.see_line(number)
        message = event.get("msg")
        if not isinstance(message, dict):
            named = event.get("model")  # the configuration echo, first line
            if model is None and isinstance(named, str) and named:
                model = named
                metrics.add_model(model)
            continue
        kind = message.get("type")
        if isinstance(kind, str) and kind in LEGACY_CALLS:
            tool_ids.add(str(message.get("call_id") or f"line-{number}"))
            if kind == "exec_command_begin":
                spelt = message.get("command")
                note_shell(activity, number, " ".join(str(part) for part in spelt[2:])
                           if isinstance(spelt, list) and spelt[:1] in (["bash"], ["sh"])
                           and len(spelt) > 2 else " ".join(map(str, spelt))
                           if isinstance(spelt, list) else str(spelt or ""))
            changes = message.get("changes") if kind == "patch_apply_begin" else None
            for name in changes if isinstance(changes, dict) else {}:
                metrics.edited_files.add(str(name))
                activity.unreplayable.append((number, f"patch_apply {name}"))
        elif kind == "plan_update":
            tool_ids.add(f"plan-{number}")
        elif kind == "error":  # the turn's fatal error (a retried one is a stream_error);
            # 0.39 writes no task_complete to --json output, so a cut-off run looks finished
            metrics.error_end = _failure(message, "error")
        elif kind == "token_count":
            counted += 1
            info = message.get("info")
            usage = info.get("total_token_usage") if isinstance(info, dict) else None
            if isinstance(usage, dict):
                step = totals.see(usage_figures(usage))
                if step is not None:
                    _charge_step(metrics, model, *step)
            elif info is None and "input_tokens" in message:
                raise InputError(
                    "this is the `codex exec --json` output of an older Codex whose "
                    "`token_count` events carry no running total (their figures do not say "
                    "whether they are a call's or the run's)", path=path,
                    hint="pass the rollout Codex kept for the run, $CODEX_HOME/sessions/"
                    "YYYY/MM/DD/rollout-*.jsonl, with --format codex",
                )
    if counted and not any(totals.total().values()):
        raise no_usage_recorded(path, counted)
    if not totals.seen:
        raise InputError(
            "this `codex exec --json` output (an older Codex: events wrapped in `msg`) has no "
            "`token_count` event with a running total (the run failed or was cut off?)",
            path=path, hint="pass the rollout Codex kept for the run, $CODEX_HOME/sessions/"
            "YYYY/MM/DD/rollout-*.jsonl, with --format codex",
        )
    _fill(metrics, totals, tool_ids)
    return metrics


def read_codex(path: Path) -> TranscriptMetrics:
    """A rollout, ``codex exec --json`` output (:func:`read_codex_exec`), or that output of
    an older Codex (:func:`read_codex_legacy`)."""
    shape = _shape(path)
    if shape == "text":
        raise _text_refused(path)
    if shape == "legacy":
        return read_codex_legacy(path)
    if shape == "exec":
        return read_codex_exec(path)
    return read_codex_rollout(path)


def _session_meta(path: Path) -> dict[str, Any]:
    """The ``session_meta`` payload of a rollout's first line (empty: not a rollout)."""
    try:
        with open_transcript(path) as handle:
            first = handle.readline(MAX_LINE_BYTES)
        event = json.loads(first)
    except (OSError, EOFError, ValueError, RecursionError):
        return {}
    payload = event.get("payload") if isinstance(event, dict) else None
    return payload if isinstance(payload, dict) and event.get("type") == "session_meta" \
        else {}


def subagent_files(path: Path) -> list[Path]:
    """The rollouts of the sub-agents a Codex session spawned (``spawn_agent``, Codex 0.16x
    ``multi_agent``): each is a rollout of its own in the same folder, its ``session_meta``
    naming the session (or a sub-agent of it, deeper) as ``parent_thread_id``; sorted by
    name (time). Symbolic links are never followed."""
    root = _session_meta(path).get("id")
    if not isinstance(root, str) or not root:
        return []
    candidates = [p for p in (*path.parent.glob("rollout-*.jsonl"),
                              *path.parent.glob("rollout-*.jsonl.gz"))
                  if p != path and p.is_file() and not p.is_symlink()]
    if not candidates:
        return []
    metas = {p: _session_meta(p) for p in candidates}
    wanted: set[str] = {root}
    found: set[Path] = set()
    while True:
        more = {p for p, meta in metas.items() if p not in found
                and isinstance(meta.get("parent_thread_id"), str)
                and meta["parent_thread_id"] in wanted}
        if not more:
            return sorted(found)
        found |= more
        wanted |= {str(metas[p].get("id")) for p in more}


def read_codex_rollout(path: Path) -> TranscriptMetrics:
    """A rollout with its sub-agents' rollouts beside it (:func:`subagent_files`)."""
    return read_codex_rollout_files([path, *subagent_files(path)])


def read_codex_rollout_files(paths: list[Path]) -> TranscriptMetrics:
    """Rollouts read together, the session's first: usage, tool calls, iterations and models
    of all; the activity (edits, requests) of the session alone. ``arena submit`` stores the
    sub-agents' rollouts appended to the session's, where each one's ``session_meta`` line
    starts it: read the same way. A sub-agent the session spawned (``spawn_agent``'s
    ``agent_id``) whose rollout was not read is in ``unread_subagents``."""
    path = paths[0]
    metrics = TranscriptMetrics()
    activity = metrics.activity = Activity(format_name="codex")
    clock = Clock()
    totals = RunningTotals()
    tool_ids: set[str] = set()
    model: str | None = None
    context = output = 0  # characters of the conversation, of the model's latest output
    counted = 0  # token_count events
    main = thread = ""  # the session's id, the id of the rollout being read
    interactive = False  # the session is a person's (INTERACTIVE_SOURCES)
    spawns: set[str] = set()  # call ids of spawn_agent calls
    spawned: set[str] = set()  # the agent ids they gave
    threads: set[str] = set()
    for index, part in enumerate(paths):
        for number, event in read_json_lines(part):
            if index == 0:
                metrics.see_line(number)
            clock.see(event.get("timestamp"))
            payload = event.get("payload")
            if not isinstance(payload, dict):
                continue
            kind = event.get("type")
            if kind == "session_meta" and isinstance(payload.get("id"), str) \
                    and payload["id"] != thread:
                thread = payload["id"]
                main = main or thread
                threads.add(thread)
                if thread != main:
                    totals.new_thread(thread)
            own = thread == main  # the session's own line, not a sub-agent's
            if own and kind in ("session_meta", "turn_context"):
                activity.cwd = activity.cwd or str(payload.get("cwd") or "")
            if own and kind == "session_meta":
                source = payload.get("source")  # a sub-agent's is an object
                interactive = isinstance(source, str) and source in INTERACTIVE_SOURCES
            if kind == "turn_context":
                named = payload.get("model")
                model = named if isinstance(named, str) else model
                metrics.add_model(model)
            elif kind == "response_item":
                item = payload.get("type")
                if isinstance(item, str) and item in TOOL_ITEMS:
                    call = str(payload.get("call_id") or payload.get("id") or f"line-{number}")
                    tool_ids.add(f"{thread}/{call}")
                    if payload.get("name") == "spawn_agent":
                        spawns.add(call)
                elif item == "function_call_output" and isinstance(
                        payload.get("call_id"), str) and payload["call_id"] in spawns:
                    spawned.update(_agent_id(payload.get("output")))
                if not own:
                    continue
                text = _item_text(payload)
                # The model writes its calls, its reasoning summaries and its (assistant)
                # messages; developer and user messages (instructions, AGENTS.md, the
                # environment) are input.
                if item in ("function_call", "custom_tool_call", "reasoning") or (
                        item == "message" and payload.get("role") == "assistant"):
                    output += len(text)
                context += len(text)
                _edits(activity, payload, number)
            elif own and kind == "event_msg" and isinstance(payload.get("type"), str) \
                    and payload["type"] in TURN_ENDS:
                # 0.16x: each turn starts and ends with an event; a turn that failed (a
                # stream cut, a refused request) ends with its error, an interrupted one is
                # aborted. The session's last turn says how the run ended; in a person's
                # session only an error does (see INTERACTIVE_SOURCES).
                ended = _turn_end(payload)
                failed = payload.get("type") == "task_complete"
                metrics.error_end = ended if failed or not interactive else ""
            elif kind == "event_msg" and payload.get("type") == "token_count":
                counted += 1
                info = payload.get("info")
                info = info if isinstance(info, dict) else {}
                usage = info.get("total_token_usage")
                figures = usage_figures(usage) if isinstance(usage, dict) else None
                # Each new running total is one model call; repeats (resume, rate-limit
                # pings, the zero last_token_usage written around a compaction) are not.
                last = info.get("last_token_usage")
                if own and isinstance(last, dict) and (
                        figures is None or totals.is_new(figures)):
                    activity.requests.append(Request(
                        where=number, input_tokens=as_int(last.get("input_tokens")),
                        cache_read=as_int(last.get("cached_input_tokens")),
                        output_tokens=as_int(last.get("output_tokens")),
                        context_chars=context - output, output_chars=output,
                    ))
                    output = 0
                if figures is None:
                    continue
                step = totals.see(figures)
                if step is not None:
                    _charge_step(metrics, model, *step)
    if counted and tool_ids and not any(totals.total().values()):
        # token_count events, tool calls the model made, and no usage anywhere
        raise no_usage_recorded(path, counted)
    _fill(metrics, totals, tool_ids)
    metrics.wall_clock_seconds = clock.seconds()
    metrics.edited_files = {edit.path for edit in activity.edits}
    metrics.unread_subagents = spawned - threads
    if len(paths) > 1:
        metrics.span_label = f"{path.name} and {len(paths) - 1} sub-agent rollout" + (
            "s" if len(paths) > 2 else "")
    return metrics


#: The events of a 0.16x rollout that start and end a turn.
TURN_ENDS = frozenset({"task_started", "task_complete", "turn_aborted"})
#: ``session_meta``'s ``source`` of a session a person drives (the terminal UI, the editor
#: and desktop apps; ``codex exec`` writes ``exec``): there a last turn aborted (Esc) or
#: left open (the window closed) is how a person ends a session as often as not once the
#: work is done, and the file does not tell which. Only a turn that failed is an error end.
INTERACTIVE_SOURCES = frozenset({"cli", "vscode"})


def _turn_end(payload: Mapping[str, Any]) -> str:
    """How the turn a 0.16x rollout event starts or ends went, as an error end (``""``:
    it completed)."""
    kind = payload.get("type")
    if kind == "task_started":  # until the turn's end is written
        return "Codex's last turn has no task_complete (the run was cut off)"
    if kind == "turn_aborted":
        return f"Codex's turn_aborted: {payload.get('reason') or 'no reason given'}"
    return _failure(payload.get("error"), "task_complete")


def _failure(error: object, where: str) -> str:
    """How a Codex turn ended in an error (its ``error`` object), or ``""``."""
    if not isinstance(error, dict):
        return ""
    message = str(error.get("message") or "no message")
    return f"Codex's {where}: {message[:200]}"


def _agent_id(output: object) -> set[str]:
    """The ``agent_id`` a ``spawn_agent`` call returned (its output, a JSON object)."""
    try:
        value = json.loads(output) if isinstance(output, str) else output
    except (ValueError, RecursionError):
        return set()
    agent = value.get("agent_id") if isinstance(value, dict) else None
    return {agent} if isinstance(agent, str) and agent else set()


def _texts(parts: object) -> str:
    """The ``text`` of each part of a message's ``content`` or a reasoning ``summary``."""
    items = parts if isinstance(parts, list) else []
    return "".join(str(part.get("text", "")) for part in items if isinstance(part, dict))


def _item_text(payload: Mapping[str, Any]) -> str:
    kind = payload.get("type")
    if kind == "message":
        return _texts(payload.get("content"))
    if kind == "function_call":
        return str(payload.get("name", "")) + str(payload.get("arguments", ""))
    if kind == "custom_tool_call":
        return str(payload.get("name", "")) + str(payload.get("input", ""))
    if kind in ("function_call_output", "custom_tool_call_output"):
        out = payload.get("output")
        return out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)
    return _texts(payload.get("summary")) if kind == "reasoning" else ""


def _edits(activity: Activity, payload: Mapping[str, Any], where: int) -> None:
    kind = payload.get("type")
    if kind == "custom_tool_call" and payload.get("name") == "apply_patch":
        activity.edits.extend(parse_apply_patch(str(payload.get("input", "")), where))
        return
    if kind != "function_call":
        return
    name = payload.get("name")
    arguments = tool_arguments(payload.get("arguments"))
    if name == "apply_patch":
        activity.edits.extend(parse_apply_patch(str(arguments.get("input", "")), where))
        return
    if name not in ("shell", "container.exec", "exec_command", "local_shell"):
        return
    spelt = arguments.get("command")
    command = [spelt] if isinstance(spelt, str) else [
        str(part) for part in spelt] if isinstance(spelt, list) else []
    if command[:1] == ["apply_patch"] and len(command) > 1:
        activity.edits.extend(parse_apply_patch(command[1], where))
        return
    script = command[-1] if command else ""
    if PATCH_START in script and re.search(r"\bapply_patch\b", script):
        before = script.split(PATCH_START, 1)[0]
        activity.edits.extend(parse_apply_patch(script, where))
        note_shell(activity, where, before.replace("apply_patch", ""))
        return
    note_shell(activity, where, " ".join(command[2:] if command[:1] in (["bash"], ["sh"])
                                         else command))


def _fill(metrics: TranscriptMetrics, totals: RunningTotals, tool_ids: set[str]) -> None:
    """``metrics``' tokens, iterations and tool calls from the running totals seen."""
    split = split_usage(totals.total())
    metrics.prompt_tokens = split["uncached"]
    metrics.cache_read_tokens = split["read"]
    metrics.cache_write_tokens = split["write"]
    metrics.completion_tokens = split["output"]
    metrics.iterations = len(totals.seen)
    metrics.tool_calls = len(tool_ids)
