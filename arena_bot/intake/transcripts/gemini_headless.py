"""Gemini CLI run headless (``gemini -p ... --output-format json`` or ``stream-json``), as
benchmark harnesses capture it: what the CLI printed, told from a session file by its content
(:func:`~.gemini_cli.read_gemini_cli` dispatches here).

* ``--output-format json`` prints one pretty-printed document when the run ends:
  ``{"session_id", "response", "stats": {"models": {<model>: {"api": {"totalRequests",
  "totalErrors", ...}, "tokens": {"input", "prompt", "candidates", "total", "cached",
  "thoughts", "tool"}, "roles": ...}}, "tools": {"totalCalls", ...}, "files": ...}}``. The
  stats are the CLI's own running totals of every call it made (side calls included), as
  ``/stats`` shows them: ``prompt`` includes ``cached`` (``input`` is ``prompt - cached``),
  ``tool`` is tool-use prompt apart from ``prompt``, ``thoughts`` apart from ``candidates``.
  So uncached input is ``prompt - cached + tool``, cache reads ``cached``, output
  ``candidates + thoughts``; iterations are the requests that did not fail; tool calls
  ``tools.totalCalls``. The models with a ``main`` role (the agent's) are named first. It
  holds no time (``totalLatencyMs`` is the model calls' alone): time is left unchecked. A run
  that ended in an error prints ``{"session_id", "error"}`` (to stderr), with no stats:
  refused, naming the session file.
* ``--output-format stream-json`` prints one event per line (``init``, ``message``,
  ``tool_use``, ``tool_result``, ``error``, ``result``); the last, ``result``, has ``stats``:
  ``input_tokens`` (the prompt, cache reads included), ``cached``, ``output_tokens`` (the
  candidates alone), ``total_tokens``, ``duration_ms``, ``tool_calls`` and the same per model.
  Thinking and tool-use prompt tokens are only in ``total_tokens``, together: when the total
  is more than input plus output (any thinking model), the split between output and input is
  not in the file, and the output is refused, naming the files that have it (the session
  file, or the ``json`` output). Otherwise tokens are read per model, time is
  ``duration_ms``, tool calls the result's ``tool_calls``; the model calls are not shown one
  by one (iterations unchecked); the model ``init`` names, else the one with the most tokens,
  is named first. Edits: ``write_file`` and ``replace`` ``tool_use`` parameters whose
  ``tool_result`` says ``success``; ``run_shell_command`` as shell writes.
  Output without a ``result`` (the run was killed) is refused, naming the session file.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.edits import Activity, Edit, note_shell
from arena_bot.intake.transcripts.metrics import (
    MAX_LINE_BYTES,
    TranscriptMetrics,
    as_int,
    number_too_long,
    open_transcript,
    printed_objects,
)

SESSION_HINT = ("pass the session file Gemini CLI kept for the run instead: ~/.gemini/tmp/"
                "<project>/chats/session-<time>-<id>.jsonl (<id>: the first 8 characters of "
                "the run's session_id)")
#: The ``type`` of a ``stream-json`` event.
STREAM_TYPES = frozenset({"init", "message", "tool_use", "tool_result", "error", "result"})
#: Keys of the ``--output-format json`` document.
JSON_KEYS = frozenset({"session_id", "response", "stats", "error", "warnings"})


def is_stream_event(value: dict[str, Any]) -> bool:
    """A ``stream-json`` event (a session message has an ``id``; its ``error`` type is a
    message, the stream's ``error`` has a ``severity``)."""
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in STREAM_TYPES or "id" in value \
            or not isinstance(value.get("timestamp"), str):
        return False
    return kind != "error" or "severity" in value


def _hint(session: object) -> str:
    if not isinstance(session, str) or not session:
        return SESSION_HINT
    return SESSION_HINT.split(" (<id>")[0].replace("<id>.jsonl", f"{session[:8]}.jsonl")


def load_printed_document(path: Path, start: int) -> dict[str, Any]:
    """The ``--output-format json`` document that starts at byte ``start`` (lines before it
    are stderr captured with stdout); what follows it is passed over."""
    with open_transcript(path) as handle:
        handle.seek(start, io.SEEK_CUR) if start else None  # from past a byte-order mark
        data = handle.read(MAX_LINE_BYTES + 1)
    if len(data) > MAX_LINE_BYTES:
        raise InputError(f"the printed JSON document is over {MAX_LINE_BYTES} bytes", path=path,
                         hint="check --format: Gemini CLI's --output-format json is small")
    text = data.decode("utf-8", errors="replace")
    try:
        value, _end = json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"the printed JSON document does not parse: {exc.msg} (cut off?)",
                         path=path, hint=SESSION_HINT) from exc
    except ValueError as exc:  # an integer past Python's digit limit
        raise number_too_long(path=path, line=None) from exc
    if not isinstance(value, dict):
        raise InputError("not a JSON object", path=path, hint=SESSION_HINT)
    return value


def read_gemini_json(path: Path, document: dict[str, Any]) -> TranscriptMetrics:
    """The figures of ``--output-format json`` output (``document``, already loaded)."""
    stats = document.get("stats")
    models = stats.get("models") if isinstance(stats, dict) else None
    if not isinstance(models, dict) or not models:
        error = document.get("error")
        said = (f" (it printed the error: {str(error.get('message'))[:200]})"
                if isinstance(error, dict) else "")
        raise InputError(
            "this Gemini CLI --output-format json output has no `stats` (the run ended in an "
            f"error?){said}, so no usage", path=path, hint=_hint(document.get("session_id")))
    assert isinstance(stats, dict)
    metrics = TranscriptMetrics(unverifiable={"execution_time"})
    # The models in order of first response: with no -m the model router's classifier
    # (role ``utility_router``, a flash-lite model) answers first. The agent's own model
    # (role ``main``) is named first, as it is the one a submission is named after.
    ordered = sorted(models.items(), key=lambda item: not _is_main(item[1]))
    for model, figures in ordered:
        tokens = figures.get("tokens") if isinstance(figures, dict) else None
        api = figures.get("api") if isinstance(figures, dict) else None
        if not isinstance(tokens, dict):
            continue
        prompt, cached = as_int(tokens.get("prompt")), as_int(tokens.get("cached"))
        read = min(cached, prompt)
        metrics.add_model(str(model))
        metrics.count(str(model), uncached=prompt - read + as_int(tokens.get("tool")),
                      read=read,
                      output=as_int(tokens.get("candidates")) + as_int(tokens.get("thoughts")))
        if isinstance(api, dict):
            metrics.iterations += max(
                as_int(api.get("totalRequests")) - as_int(api.get("totalErrors")), 0)
    tools = stats.get("tools")
    metrics.tool_calls = as_int(tools.get("totalCalls")) if isinstance(tools, dict) else 0
    metrics.span_label = "the stats of --output-format json"
    # No edit and no model call one by one: an activity with nothing to replay or check.
    metrics.activity = Activity(format_name="gemini-cli")
    return metrics


def _is_main(figures: object) -> bool:
    roles = figures.get("roles") if isinstance(figures, dict) else None
    return isinstance(roles, dict) and "main" in roles


class _Stream:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.metrics = TranscriptMetrics(unverifiable={"iterations"})
        self.activity = Activity(format_name="gemini-cli")
        self.result: dict[str, Any] | None = None
        self.session = ""
        self.model = ""  # the ``init`` event's
        self.tool_ids: set[str] = set()
        self.edits_of: dict[str, list[int]] = {}  # tool_id -> indices in edits
        self.status: dict[str, str] = {}

    def see(self, number: int, event: dict[str, Any]) -> None:
        kind = event.get("type")
        self.metrics.see_line(number)
        if kind == "init":
            self.session = self.session or str(event.get("session_id") or "")
            self.model = self.model or str(event.get("model") or "")
        elif kind == "tool_use":
            self._tool_use(number, event)
        elif kind == "tool_result":
            self.status[str(event.get("tool_id") or "")] = str(event.get("status") or "")
        elif kind == "result":
            self.result = event

    def _tool_use(self, number: int, event: dict[str, Any]) -> None:
        tool_id = str(event.get("tool_id") or f"line-{number}")
        if tool_id in self.tool_ids:
            return
        self.tool_ids.add(tool_id)
        name = event.get("tool_name")
        args = event.get("parameters")
        args = args if isinstance(args, dict) else {}
        path = str(args.get("file_path") or "")
        made: list[Edit] = []
        if name == "write_file":
            made = [Edit(number, name, path, "write", new=str(args.get("content") or ""))]
        elif name == "replace":
            count = args.get("expected_replacements")
            made = [Edit(number, name, path, "replace", old=str(args.get("old_string") or ""),
                         new=str(args.get("new_string") or ""),
                         replace_all=args.get("allow_multiple") is True or (
                             isinstance(count, int) and count > 1))]
        elif name == "run_shell_command":
            note_shell(self.activity, number, str(args.get("command") or ""))
        if made:
            edits = self.activity.edits
            self.edits_of[tool_id] = list(range(len(edits), len(edits) + len(made)))
            edits.extend(made)
            self.metrics.edited_files.update(edit.path for edit in made if edit.path)

    def finish(self) -> TranscriptMetrics:
        stats = self.result.get("stats") if self.result else None
        if not isinstance(stats, dict):
            raise InputError(
                "this Gemini CLI stream-json output has no final `result` event with `stats` "
                "(the run was cut off?), so no usage", path=self.path, hint=_hint(self.session))
        models = stats.get("models")
        per_model = models if isinstance(models, dict) and models else {"": stats}
        unsplit = sum(max(as_int(f.get("total_tokens")) - as_int(f.get("input_tokens"))
                          - as_int(f.get("output_tokens")), 0)
                      for f in per_model.values() if isinstance(f, dict))
        if unsplit:
            raise InputError(
                f"this Gemini CLI stream-json output bills {unsplit:,} tokens (thinking, which "
                "is output, and tool-use prompt, which is input) only inside `total_tokens`, "
                "so its output and input cannot be told apart", path=self.path,
                hint=_hint(self.session) + ", or the `--output-format json` output, which "
                "splits them")
        metrics = self.metrics
        # Named first: the model the run was started with (``init``), else the one with the
        # most tokens (with no -m, ``init`` says ``auto`` and the model router's classifier,
        # a flash-lite model with a short prompt, answers before the agent's model).
        ordered = sorted(
            ((str(name), f) for name, f in per_model.items() if isinstance(f, dict)),
            key=lambda item: (item[0] != self.model, -as_int(item[1].get("total_tokens"))))
        for model, figures in ordered:
            given, cached = as_int(figures.get("input_tokens")), as_int(figures.get("cached"))
            read = min(cached, given)
            metrics.add_model(model)
            metrics.count(model or None, uncached=given - read, read=read,
                          output=as_int(figures.get("output_tokens")))
        metrics.tool_calls = max(as_int(stats.get("tool_calls")), len(self.tool_ids))
        metrics.wall_clock_seconds = as_int(stats.get("duration_ms")) / 1000
        for tool_id, indices in self.edits_of.items():
            if self.status.get(tool_id) != "success":
                self.activity.failed.extend(indices)
        metrics.activity = self.activity
        metrics.span_label = (f"the result event's stats, lines {metrics.first_line}-"
                              f"{metrics.last_line}")
        return metrics


def _stream_events(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, event)`` of ``stream-json`` output. Other lines are stderr captured with it
    (passed over, also those that open a brace: an error dump's); an event line that does
    not parse is refused, unless it is the last line and unfinished (a killed run)."""
    for number, value in printed_objects(path, hint=SESSION_HINT, cut_off_ends=True,
                                         starts='{"type":'):
        if is_stream_event(value):
            yield number, value


def read_gemini_stream(path: Path) -> TranscriptMetrics:
    """The figures of ``--output-format stream-json`` output (see the module docstring)."""
    reader = _Stream(path)
    for number, event in _stream_events(path):
        reader.see(number, event)
    return reader.finish()
