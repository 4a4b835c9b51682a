"""OpenHands V1 conversations (software-agent-sdk, OpenHands CLI 1.x, the V1 agent server).

V1 keeps a conversation as a folder: ``base_state.json`` (the agent, its settings and
``stats``) and ``events/event-NNNNN-<id>.json``, one JSON object per event, each with ``kind``
(``SystemPromptEvent``, ``MessageEvent``, ``ActionEvent``, ``ObservationEvent``,
``AgentErrorEvent``, ``UserRejectObservation``, ``Condensation``,
``ConversationStateUpdateEvent``, ...), ``id``, ``timestamp`` and ``source``. The transcript
submitted is those objects in one file: one per line (``jq -c . base_state.json
events/event-*.json``), or one JSON array of them (``jq -s .`` instead of ``jq -c .``).

Usage lives in ``stats.usage_to_metrics``: per LLM usage id (``default``, ``condenser``, ...)
a ``model_name`` and an ``accumulated_token_usage`` running total (``prompt_tokens``
including ``cache_read_tokens`` and ``cache_write_tokens`` as LiteLLM reports them, unless
the reads exceed the prompt: the SDK's ACP agents count them apart, so the prompt is then all
uncached); ``base_state.json`` keeps it with a ``token_usages`` list (one per call, with its
``response_id``), the agent server writes it into the event log as
``ConversationStateUpdateEvent`` (``key`` ``stats``, or ``full_state`` with ``stats`` inside).
A running total is repeated many times: per usage id only its growth counts, so a total
seen again (an update event and ``base_state.json``) adds nothing.

Iterations are distinct model responses (``llm_response_id`` of ``ActionEvent`` and agent
``MessageEvent``; an agent message without one is its own response), tool calls distinct
``tool_call_id`` of ``ActionEvent``. Edits: the ``action`` of a ``file_editor`` (also
``str_replace_editor``, ``planning_file_editor``) call, ``apply_patch``, and the Gemini-style
``write_file`` and ``edit``; undone by an ``ObservationEvent`` whose ``observation.is_error``
is true, an ``AgentErrorEvent`` or a ``UserRejectObservation`` for that action. A request is
each distinct model response, with the usage of its ``response_id`` in ``token_usages``, else
the last growth of a running total before it.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.edits import (
    Activity,
    Edit,
    Request,
    chars_of,
    editor_edits,
    note_shell,
    parse_apply_patch,
)
from arena_bot.intake.transcripts.jsonstream import iter_objects
from arena_bot.intake.transcripts.metrics import (
    Clock,
    TranscriptMetrics,
    as_int,
    empty_transcript,
    read_json_lines,
)

#: How to make the one transcript file of a V1 conversation folder (verified with jq 1.6).
V1_HINT = ("OpenHands V1 (software-agent-sdk, CLI 1.x) keeps a conversation as a folder "
           "(~/.openhands/conversations/<id>/): pass its base_state.json and events, one JSON "
           "object per line: `jq -c . base_state.json events/event-*.json > transcript.jsonl`")
#: Every event of the SDK's event log names its class here.
KIND = "kind"
EDITOR_KINDS = frozenset({"FileEditorAction", "PlanningFileEditorAction",
                          "StrReplaceEditorAction"})
SHELL_KINDS = frozenset({"TerminalAction", "ExecuteBashAction", "BashAction"})
EDIT_COMMANDS = frozenset({"create", "str_replace", "insert", "undo_edit"})
#: Events the agent reads back into its context, and where their text is.
AGENT_EVENTS = frozenset({"ActionEvent", "MessageEvent", "AgentErrorEvent"})

#: One usage id's running total: (prompt including cache, cache read, cache write, output).
Totals = tuple[int, int, int, int]


def is_base_state(value: dict[str, Any]) -> bool:
    """``base_state.json``: a conversation's state (no ``kind``; ``stats`` and ``agent``)."""
    return KIND not in value and isinstance(value.get("stats"), dict) and (
        "agent" in value or "execution_status" in value)


def is_v1_event(value: object) -> bool:
    """Whether a JSON value opens a V1 conversation: an event (a string ``kind``) or the
    conversation's ``base_state.json``."""
    return isinstance(value, dict) and (isinstance(value.get(KIND), str) or is_base_state(value))


def _split(totals: Totals) -> tuple[int, int, int, int]:
    """``(uncached, read, write, output)`` of a running total or one call's usage. LiteLLM's
    ``prompt_tokens`` includes the cache reads, and the cache writes too in later versions:
    writes are taken as included when the prompt holds reads and writes, as reported apart
    when it holds only the reads (V1 runs of 2025 through LiteLLM's Anthropic route, whose
    recorded cost matches that reading), and reads as apart too when they exceed the prompt
    (the SDK's ACP agents)."""
    prompt, read, write, output = totals
    if read + write <= prompt:
        return prompt - read - write, read, write, output
    return (prompt - read if read <= prompt else prompt), read, write, output


def _usage(value: object) -> Totals:
    usage = value if isinstance(value, dict) else {}
    return (as_int(usage.get("prompt_tokens")), as_int(usage.get("cache_read_tokens")),
            as_int(usage.get("cache_write_tokens")), as_int(usage.get("completion_tokens")))


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


@dataclass(slots=True)
class _Response:
    """A model response seen in the events, waiting for its usage."""

    response_id: str
    request: Request
    step: Totals | None


class _Reader:
    def __init__(self) -> None:
        self.metrics = TranscriptMetrics()
        self.activity = Activity(format_name="openhands")
        self.clock = Clock()
        self.totals: dict[str, Totals] = {}  # usage id -> largest running total seen
        self.grown: dict[tuple[str, str], Totals] = {}  # (usage id, model) -> its growth
        self.pending: Totals | None = None  # the last growth not yet given to a response
        self.call_usage: dict[str, Totals] = {}  # response id -> its call's usage
        self.responses: dict[str, _Response] = {}
        self.tool_ids: set[str] = set()
        self.context = 0
        # The events in the model's context and their characters, as two flat arrays (the
        # id's hash, its characters): a condensation names the events it drops by id, and a
        # long run's events must not each cost a dictionary entry.
        self.live_ids = array("q")
        self.live_chars = array("q")
        # An action by its tool call id (else its event id): the edits it made (indices in
        # edits), and where it is until an observation or error answers it.
        self.edit_of: dict[str, list[int]] = {}
        self.open_actions: dict[str, int] = {}
        self.count = 0
        self.saw_usage = False  # base_state.json or a stats update: where usage is written

    # --- usage ---------------------------------------------------------------------

    def see_stats(self, stats: object, *, with_calls: bool) -> None:
        self.saw_usage = True
        stats = stats if isinstance(stats, dict) else {}
        # ``service_to_metrics`` before the SDK renamed it (2025).
        per_usage = stats.get("usage_to_metrics", stats.get("service_to_metrics"))
        if not isinstance(per_usage, dict):
            return
        for usage_id, metrics in per_usage.items():
            if not isinstance(metrics, dict):
                continue
            running = metrics.get("accumulated_token_usage")
            model = _text(metrics.get("model_name")) or _text(
                running.get("model") if isinstance(running, dict) else None)
            before = self.totals.get(str(usage_id), (0, 0, 0, 0))
            # Each figure's largest value: a total seen again (or a smaller one) adds nothing.
            now: Totals = tuple(  # type: ignore[assignment]
                max(a, b) for a, b in zip(_usage(running), before, strict=True))
            if now != before:
                step: Totals = tuple(  # type: ignore[assignment]
                    a - b for a, b in zip(now, before, strict=True))
                self.totals[str(usage_id)] = now
                self.metrics.add_model(model)
                key = (str(usage_id), model)
                sums = self.grown.get(key, (0, 0, 0, 0))
                self.grown[key] = tuple(  # type: ignore[assignment]
                    a + b for a, b in zip(sums, step, strict=True))
                if not with_calls:  # an update event: the growth is the call just made
                    self.pending = step
            if with_calls:
                self._see_calls(metrics.get("token_usages"))

    def _see_calls(self, calls: object) -> None:
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and isinstance(call.get("response_id"), str):
                self.call_usage[call["response_id"]] = _usage(call)

    # --- events --------------------------------------------------------------------

    def see(self, event: dict[str, Any], where: int) -> None:
        self.count += 1
        if is_base_state(event):
            self.see_stats(event.get("stats"), with_calls=True)
            workspace = event.get("workspace")
            if isinstance(workspace, dict) and isinstance(workspace.get("working_dir"), str):
                self.activity.cwd = workspace["working_dir"]
            return
        kind = event.get(KIND)
        self.clock.see(event.get("timestamp"))
        event_id = str(event.get("id", f"event-{where}"))
        if kind == "ConversationStateUpdateEvent":
            value = event.get("value")
            if event.get("key") == "stats":
                self.see_stats(value, with_calls=False)
            elif event.get("key") == "full_state" and isinstance(value, dict):
                self.see_stats(value.get("stats"), with_calls=True)
            return
        if kind == "Condensation":
            self._forget(event)
            return
        chars = self._chars(kind, event)
        agent = event.get("source") == "agent" and _text(kind) in AGENT_EVENTS
        if agent and kind != "AgentErrorEvent":
            response_id = _text(event.get("llm_response_id")) or event_id
            self._respond(response_id, where, chars)
        if kind == "ActionEvent":
            self._action(event, event_id, where)
        elif kind in ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent"):
            self._answer(event, kind)
        if chars:
            self.live_ids.append(hash(event_id))
            self.live_chars.append(chars)
        self.context += chars

    def _respond(self, response_id: str, where: int, chars: int) -> None:
        known = self.responses.get(response_id)
        if known is not None:
            known.request.grow(chars)
            return
        self.responses[response_id] = _Response(
            response_id, Request(where=where, context_chars=self.context, output_chars=chars),
            self.pending)
        self.pending = None

    def _action(self, event: dict[str, Any], event_id: str, where: int) -> None:
        if event.get("source") == "agent" and event.get("tool_call_id") is not None:
            self.tool_ids.add(str(event["tool_call_id"]))
        action = event.get("action")
        if not isinstance(action, dict):
            return  # a tool call the SDK could not run: an AgentErrorEvent answers it
        call = _text(event.get("tool_call_id")) or event_id
        self.open_actions[call] = where
        kind = _text(action.get(KIND))
        activity = self.activity
        made: list[Edit] = []
        if kind in EDITOR_KINDS and _text(action.get("command")) in EDIT_COMMANDS:
            made = editor_edits(action, where)
        elif kind == "ApplyPatchAction":
            made = parse_apply_patch(_text(action.get("patch")), where)
        elif kind == "WriteFileAction":
            made = [Edit(where, "write_file", _text(action.get("file_path")), "write",
                         new=_text(action.get("content")))]
        elif kind == "EditAction":
            count = action.get("expected_replacements")
            made = [Edit(where, "edit", _text(action.get("file_path")), "replace",
                         old=_text(action.get("old_string")), new=_text(action.get("new_string")),
                         replace_all=isinstance(count, int) and count > 1)]
        elif kind in SHELL_KINDS:
            note_shell(activity, where, _text(action.get("command")))
        if made:
            self.edit_of[call] = list(range(len(activity.edits),
                                                len(activity.edits) + len(made)))
            activity.edits.extend(made)
            self.metrics.edited_files.update(edit.path for edit in made if edit.path)

    def _answer(self, event: dict[str, Any], kind: object) -> None:
        """An observation, an error or a rejection answers an action: by its tool call id
        (an ``AgentErrorEvent`` has no ``action_id``), else by ``action_id``."""
        call = _text(event.get("tool_call_id"))
        call = call if call in self.open_actions or call in self.edit_of else _text(
            event.get("action_id"))
        self.open_actions.pop(call, None)
        observation = event.get("observation")
        failed = kind != "ObservationEvent" or (isinstance(observation, dict) and (
            observation.get("is_error") is True or observation.get("error") is True))
        if failed:
            self.activity.failed.extend(self.edit_of.get(call, []))

    def _chars(self, kind: object, event: dict[str, Any]) -> int:
        """The characters an event puts in the conversation the model is sent."""
        if kind == "SystemPromptEvent":
            prompt = event.get("system_prompt")
            tools = event.get("tools")
            return chars_of(prompt) + (len(json.dumps(tools, ensure_ascii=False))
                                       if isinstance(tools, list) else 0)
        if kind == "MessageEvent":
            message = event.get("llm_message")
            return chars_of(message.get("content") if isinstance(message, dict) else None) + (
                chars_of(event.get("extended_content")))
        if kind == "ActionEvent":
            call = event.get("tool_call")
            call = call if isinstance(call, dict) else {}
            function = call.get("function")  # the OpenAI shape, before 2025-10
            arguments = call.get("arguments", function.get("arguments")
                                 if isinstance(function, dict) else None)
            return (chars_of(event.get("thought")) + len(_text(event.get("reasoning_content")))
                    + len(_text(arguments)))
        if kind == "ObservationEvent":
            observation = event.get("observation")
            if not isinstance(observation, dict):
                return 0
            return chars_of(observation.get("content")) or len(_text(observation.get("output")))
        if kind == "AgentErrorEvent":
            return len(_text(event.get("error")))
        if kind == "UserRejectObservation":
            return len(_text(event.get("rejection_reason")))
        if kind == "CondensationSummaryEvent":
            return len(_text(event.get("summary")))
        return 0

    def _forget(self, event: dict[str, Any]) -> None:
        """A condensation drops events from the context the model is sent from now on."""
        forgotten = event.get("forgotten_event_ids")
        dropped = {hash(str(name)) for name in forgotten} if isinstance(forgotten, list) else set()
        if dropped:
            kept = [(name, chars) for name, chars in zip(self.live_ids, self.live_chars,
                                                         strict=True) if name not in dropped]
            self.live_ids = array("q", (name for name, _chars in kept))
            self.live_chars = array("q", (chars for _name, chars in kept))
            self.context = sum(self.live_chars)
        summary = len(_text(event.get("summary")))
        if summary:
            self.live_ids.append(hash(str(event.get("id"))))
            self.live_chars.append(summary)
            self.context += summary

    # --- the figures ---------------------------------------------------------------

    def finish(self, span: str) -> TranscriptMetrics:
        metrics = self.metrics
        sums = [0, 0, 0, 0]
        for (_usage_id, model), grown in self.grown.items():
            uncached, read, write, output = _split(grown)
            metrics.charge(model, uncached=uncached, read=read, write=write, output=output)
            for index, figure in enumerate((uncached, read, write, output)):
                sums[index] += figure
        (metrics.prompt_tokens, metrics.cache_read_tokens, metrics.cache_write_tokens,
         metrics.completion_tokens) = sums
        metrics.iterations = len(self.responses)
        metrics.tool_calls = len(self.tool_ids)
        metrics.wall_clock_seconds = self.clock.seconds()
        metrics.span_label = span
        for response in self.responses.values():
            usage = self.call_usage.get(response.response_id, response.step)
            if usage is None:
                continue
            uncached, read, write, output = _split(usage)
            request = response.request
            request.input_tokens = uncached + read + write
            request.cache_read = read
            request.output_tokens = output
            self.activity.requests.append(request)
        self.activity.unanswered = sorted(self.open_actions.values())
        metrics.activity = self.activity
        return metrics


def _items(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, (_prefix, item) in enumerate(iter_objects(path, frozenset({"item"})), 1):
        if not isinstance(item, dict):
            raise InputError(
                f"event {number} of the array is not a JSON object", path=path,
                hint="pass the conversation's events as they are stored (each a JSON object)",
            )
        yield number, item


def read_openhands_v1(path: Path, *, array: bool) -> TranscriptMetrics:
    """Read a V1 conversation: its objects one per line, or one JSON array (``array``)."""
    reader = _Reader()
    first = last = 0
    for where, event in (_items(path) if array else read_json_lines(path)):
        first = first or where
        last = where
        reader.see(event, where)
    if not reader.count:
        raise empty_transcript(path)
    if not reader.saw_usage:
        raise InputError(
            "an OpenHands V1 conversation without its usage: neither base_state.json nor a "
            "stats update is in the file, so no token can be counted", path=path,
            hint=V1_HINT + " (base_state.json first: it holds the usage)",
        )
    if array:
        return reader.finish(f"events 1-{last}")
    reader.metrics.first_line, reader.metrics.last_line = first, last
    return reader.finish("")
