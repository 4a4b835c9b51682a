"""What a transcript shows the agent doing to files and asking of its model, read for replay.

The usage importers (:mod:`arena_bot.intake.transcripts`) compute the figures; this module
reads the same raw formats for the **edit tool calls** in order (and the shell commands that
may write files, which cannot be replayed) and the **model requests** with their usage and an
estimate of the conversation each was sent with (checked by :func:`usage_problems`).
:func:`replay` applies the edits to the task's base files, :func:`patched_files` the
submitted patch, for the caller to compare. Pure: files are read through ``base``.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from arena_bot.intake.patches import Patch
from arena_bot.intake.transcripts.aider import TOKENS_LINE, TOKENS_PART, UNITS
from arena_bot.intake.transcripts.jsonstream import iter_events, iter_items
from arena_bot.intake.transcripts.metrics import MAX_LINE_BYTES, open_transcript, read_json_lines

#: ``replace``: ``old`` → ``new`` (once, or every time with ``replace_all``); ``write``: the
#: whole file is ``new``; ``insert``: ``new`` after line ``insert_line`` (0 = at the top);
#: ``patch``: a Codex ``apply_patch`` update (``chunks``); ``delete``: the file is removed;
#: ``undo``: the file's previous edit is undone (OpenHands, SWE-agent); ``append``: ``new``
#: added at the end (Aider's empty SEARCH: a new file, or text appended).
EditKind = Literal["replace", "write", "insert", "patch", "delete", "undo", "append"]


@dataclass(frozen=True)
class PatchChunk:
    """One ``@@`` chunk of a Codex ``apply_patch`` update."""

    anchor: str
    old: tuple[str, ...]
    new: tuple[str, ...]
    end_of_file: bool = False


@dataclass(frozen=True)
class Edit:
    """One edit tool call as the transcript spells it."""

    #: Where in the transcript (line of a JSON Lines file, event number of a document).
    where: int
    tool: str
    path: str
    kind: EditKind
    old: str = ""
    new: str = ""
    replace_all: bool = False
    insert_line: int = 0
    chunks: tuple[PatchChunk, ...] = ()
    #: A Codex ``*** Move to:`` target.
    move_to: str | None = None
    #: Claude Code only edits a file its session has read (or written): whether it had,
    #: ``None`` for tools without that rule.
    read_before: bool | None = None


@dataclass(frozen=True)
class Request:
    """One model request: its usage, and the visible conversation it was sent with."""

    where: int
    #: The conversation it belongs to (a sub-agent has its own).
    chain: str
    model: str
    #: Every input token (uncached, cache read, cache write).
    input_tokens: int
    cache_read: int
    output_tokens: int
    #: Characters of the conversation before it (messages, tool calls, tool results).
    context_chars: int
    #: Characters the model wrote in this request (text and tool call arguments).
    output_chars: int
    #: ``output_tokens`` is the response's final count. ``False`` where the transcript
    #: wrote the usage while the response was still streaming and never its final figure
    #: (Claude Code lines without a ``stop_reason``): the count is then only a lower bound.
    output_final: bool = True


@dataclass
class Activity:
    """Everything :mod:`.edits` reads from one transcript."""

    edits: list[Edit] = field(default_factory=list)
    #: ``(where, command)`` of shell commands that may write files.
    shell_writes: list[tuple[int, str]] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    #: Every model named by a request, in order of first use.
    models: list[str] = field(default_factory=list)
    #: The working directory the transcript names, when it names one.
    cwd: str = ""
    #: Edits whose tool reported an error (not replayed), as ``where``.
    failed: list[int] = field(default_factory=list)
    #: Edit calls of a form this module cannot replay (e.g. SWE-agent's old ``edit N:M``).
    unreplayable: list[tuple[int, str]] = field(default_factory=list)
    #: Tool calls the transcript never answers with a result (``where``); the tools write
    #: a result for every call, so a real session leaves at most its last one unanswered.
    unanswered: list[int] = field(default_factory=list)
    #: Per-request usage is not in the format (only totals): ``requests`` then hold the
    #: conversation sizes with the totals spread as given (see :func:`usage_problems`).
    totals_only: bool = False
    #: Every request carries the tool's system prompt and tool definitions (see
    #: :data:`FIRST_REQUEST_FLOOR`).
    format_name: str = ""

    def add_model(self, name: str | None) -> None:
        if name and name != "<synthetic>" and name not in self.models:
            self.models.append(name)


# --- shell commands that write files -------------------------------------------------

#: Shell forms that change files: in-place editors, redirections into a file, heredocs,
#: copies and moves, patch tools, scripts that open files for writing.
_SHELL_WRITE = re.compile(
    r"""(?x)
    \bsed\s+(?:-[a-zA-Z]*\s+)*-[a-zA-Z]*i | \bperl\s+(?:-\w+\s+)*-\w*i | \btee\b
    | (?<![0-9&<>])>>?\s*(?!&|/dev/null\b)[^\s|&;>]+   # > file, >> file (not 2>&1, >/dev/null)
    | \b(?:mv|cp|rm|truncate|dd|install|ln|touch)\s
    | \bgit\s+(?:apply|am|checkout|restore|reset|stash|mv|rm|cherry-pick|merge|revert)\b
    | \bpatch\b\s | \bed\s+ | \bex\s+ | \bawk\b.*\binplace\b
    | \bopen\([^)]*['"][wa]\+?b?['"] | \.write_(?:text|bytes)\( | \bshutil\.
    | \bprintf\b.*> | \bpython[0-9.]*\s+(?:-\s|<<|\S+\.py)
    """
)


def _note_shell(activity: Activity, where: int, command: str) -> None:
    if _SHELL_WRITE.search(command):
        activity.shell_writes.append((where, command.strip()[:200]))


# --- Claude Code -----------------------------------------------------------------------


def _text_of(content: Any) -> str:
    """Every visible character of a message's content (text, tool inputs, tool results)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text_of(item) for item in content)
    if isinstance(content, dict):
        kind = content.get("type")
        if kind == "text":
            return str(content.get("text", ""))
        if kind == "thinking":
            return str(content.get("thinking", ""))
        if kind == "tool_use":
            return str(content.get("name", "")) + json.dumps(
                content.get("input", {}), ensure_ascii=False)
        if kind == "tool_result":
            return _text_of(content.get("content"))
        if kind in ("image", "document"):
            return ""
        return _text_of(content.get("content") or content.get("text"))
    return str(content)


def _usage_total(usage: Mapping[str, Any]) -> tuple[int, int, int]:
    """``(every input token, cache reads, output)`` of an Anthropic usage object."""
    read = _int(usage.get("cache_read_input_tokens"))
    return (_int(usage.get("input_tokens")) + read
            + _int(usage.get("cache_creation_input_tokens")), read,
            _int(usage.get("output_tokens")))


def _claude_code_edits(name: str, data: Mapping[str, Any], where: int) -> list[Edit]:
    path = str(data.get("file_path", ""))
    if name == "Write":
        return [Edit(where, name, path, "write", new=str(data.get("content", "")))]
    if name not in ("Edit", "MultiEdit"):
        return []
    items = [data] if name == "Edit" else data.get("edits")
    return [
        Edit(where, name, path, "replace", old=str(item.get("old_string", "")),
             new=str(item.get("new_string", "")), replace_all=bool(item.get("replace_all", False)))
        for item in (items if isinstance(items, list) else []) if isinstance(item, dict)
    ]


def read_claude_code(path: Path) -> Activity:
    """Claude Code's session JSON Lines (``~/.claude/projects/<project>/<session>.jsonl``).

    An API response written as several lines (one per content block, each repeating the
    message's usage) is one request. Claude Code writes each block's line when the block is
    complete, with the usage known at that moment: input and cache figures are final from
    the start, ``output_tokens`` only grows (often 1-8 on early blocks). A request's output
    is the largest its lines show; it is the final count only when a line carries the
    response's ``stop_reason`` (written with the final usage), otherwise a lower bound
    (``output_final`` false: real sessions of 2.0 and 2.1 leave a third to half of their
    responses so, some with 3 output tokens for a 20 kB reply). Sub-agent turns
    (``isSidechain``) are their own conversation. A tool call whose result says
    ``is_error`` changed nothing.
    """
    activity = Activity(format_name="claude-code")
    chains: dict[str, int] = {}  # chain -> characters of its conversation so far
    seen: dict[str, int] = {}  # message id -> index in requests
    pending: dict[str, list[int]] = {}  # tool_use id -> indices in activity.edits
    calls: dict[str, int] = {}  # tool_use id -> line, until its result is seen
    known: dict[str, set[str]] = {}  # chain -> files read or written in it
    for number, record in read_json_lines(path):
        if not isinstance(record, dict):
            continue
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            chain = _chain(record)
            chains[chain] = 0  # the conversation was replaced by its summary
            continue
        if record.get("type") not in ("user", "assistant"):
            continue
        activity.cwd = activity.cwd or str(record.get("cwd") or "")
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        chain = _chain(record)
        content = message.get("content")
        text = _text_of(content)
        if record["type"] == "assistant":
            usage = message.get("usage")
            model = str(message.get("model") or "")
            message_id = str(message.get("id") or f"line-{number}")
            if isinstance(usage, dict) and message_id not in seen and model != "<synthetic>":
                activity.add_model(model)
                total, read, output = _usage_total(usage)
                seen[message_id] = len(activity.requests)
                activity.requests.append(Request(
                    where=number, chain=chain, model=model, input_tokens=total, cache_read=read,
                    output_tokens=output, context_chars=chains.get(chain, 0),
                    output_chars=len(text), output_final=message.get("stop_reason") is not None,
                ))
            elif message_id in seen:
                index = seen[message_id]
                request = activity.requests[index]
                output = _usage_total(usage)[2] if isinstance(usage, dict) else 0
                activity.requests[index] = _grown(
                    request, len(text), output,
                    final=request.output_final or message.get("stop_reason") is not None)
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    name = str(block.get("name", ""))
                    data = block.get("input") if isinstance(block.get("input"), dict) else {}
                    assert isinstance(data, dict)
                    calls[str(block.get("id"))] = number
                    if name == "Bash":
                        _note_shell(activity, number, str(data.get("command", "")))
                    seen_files = known.setdefault(chain, set())
                    made = [replace(e, read_before=e.path in seen_files)
                            for e in _claude_code_edits(name, data, number)]
                    if name in ("Read", "Write", "Edit", "MultiEdit"):
                        seen_files.add(str(data.get("file_path", "")))
                    if made:
                        pending[str(block.get("id"))] = list(
                            range(len(activity.edits), len(activity.edits) + len(made)))
                        activity.edits.extend(made)
        else:
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    calls.pop(str(block.get("tool_use_id")), None)
                    if block.get("is_error") is True:
                        activity.failed.extend(pending.get(str(block.get("tool_use_id")), []))
        chains[chain] = chains.get(chain, 0) + len(text)
    activity.unanswered = sorted(calls.values())
    return activity


def _chain(record: Mapping[str, Any]) -> str:
    if record.get("isSidechain"):
        return "side:" + str(record.get("agentId") or record.get("sessionId") or "")
    return "main"


def _grown(request: Request, chars: int, output_tokens: int = 0, *,
           final: bool | None = None) -> Request:
    """``request`` with one more line of its response: ``chars`` more written, and the
    line's output count when it is larger (a later line of a streamed response)."""
    return replace(
        request, output_tokens=max(request.output_tokens, output_tokens),
        output_chars=request.output_chars + chars,
        output_final=request.output_final if final is None else final)


# --- Codex -------------------------------------------------------------------------------

_PATCH_START = "*** Begin Patch"


def parse_apply_patch(text: str, where: int) -> list[Edit]:
    """Codex's ``apply_patch`` envelope: ``*** Add File:`` / ``*** Update File:`` (with
    ``*** Move to:`` and ``@@`` chunks) / ``*** Delete File:``, up to ``*** End Patch``."""
    lines = text.split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == _PATCH_START)
    except StopIteration:
        return []
    edits: list[Edit] = []
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if line.strip() == "*** End Patch":
            break
        if line.startswith("*** Add File: "):
            path = line[len("*** Add File: "):].strip()
            added: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].startswith("*** "):
                added.append(lines[i][1:] if lines[i].startswith("+") else lines[i])
                i += 1
            edits.append(Edit(where, "apply_patch", path, "write",
                              new="\n".join(added) + "\n" if added else ""))
            continue
        if line.startswith("*** Delete File: "):
            edits.append(Edit(where, "apply_patch", line[len("*** Delete File: "):].strip(),
                              "delete"))
            i += 1
            continue
        if line.startswith("*** Update File: "):
            path = line[len("*** Update File: "):].strip()
            i += 1
            move_to = None
            if i < len(lines) and lines[i].startswith("*** Move to: "):
                move_to = lines[i][len("*** Move to: "):].strip()
                i += 1
            chunks: list[PatchChunk] = []
            anchor, eof, started = "", False, False
            old: list[str] = []
            new: list[str] = []
            while i < len(lines) and not (
                lines[i].startswith("*** ") and lines[i].strip() != "*** End of File"
            ):
                current = lines[i]
                if current.startswith("@@"):
                    if started and (old or new):
                        chunks.append(PatchChunk(anchor, tuple(old), tuple(new), eof))
                    anchor, old, new, eof = current[2:].strip(), [], [], False
                    started = True
                elif current.strip() == "*** End of File":
                    eof = True
                elif current.startswith("-"):
                    old.append(current[1:])
                    started = True
                elif current.startswith("+"):
                    new.append(current[1:])
                    started = True
                else:
                    kept = current[1:] if current.startswith(" ") else current
                    old.append(kept)
                    new.append(kept)
                    started = True
                i += 1
            if old or new:
                chunks.append(PatchChunk(anchor, tuple(old), tuple(new), eof))
            edits.append(Edit(where, "apply_patch", path, "patch", chunks=tuple(chunks),
                              move_to=move_to))
            continue
        i += 1
    return edits


def _arguments(arguments: Any) -> dict[str, Any]:
    """A tool call's arguments (a JSON object, or its text); ``{}`` when they are not one."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return {}
    return arguments if isinstance(arguments, dict) else {}


def read_codex(path: Path) -> Activity:
    """Codex CLI's rollout JSON Lines (``~/.codex/sessions/.../rollout-*.jsonl``).

    A request is a ``token_count`` event (its ``last_token_usage``); ``input_tokens``
    there already include ``cached_input_tokens``. Edits are ``apply_patch`` calls:
    a ``custom_tool_call`` named ``apply_patch``, or ``shell`` with ``apply_patch`` as its
    program or in a heredoc.
    """
    activity = Activity(format_name="codex")
    context = 0
    output = 0
    model = ""
    for number, record in read_json_lines(path):
        if not isinstance(record, dict):
            continue
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta":
            activity.cwd = activity.cwd or str(payload.get("cwd") or "")
        elif kind == "turn_context":
            model = str(payload.get("model") or model)
            activity.cwd = activity.cwd or str(payload.get("cwd") or "")
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            last = info.get("last_token_usage") if isinstance(info, dict) else None
            if isinstance(last, dict):
                activity.add_model(model)
                activity.requests.append(Request(
                    where=number, chain="main", model=model,
                    input_tokens=_int(last.get("input_tokens")),
                    cache_read=_int(last.get("cached_input_tokens")),
                    output_tokens=_int(last.get("output_tokens")),
                    context_chars=context - output, output_chars=output,
                ))
                output = 0
        elif kind == "response_item":
            text = _codex_item_text(payload)
            # The model writes its calls, its reasoning summaries and its (assistant)
            # messages; developer and user messages (instructions, AGENTS.md, the
            # environment) are input.
            if payload.get("type") in ("function_call", "custom_tool_call", "reasoning") \
                    or (payload.get("type") == "message" and payload.get("role") == "assistant"):
                output += len(text)
            context += len(text)
            _codex_edits(activity, payload, number)
    return activity


def _codex_item_text(payload: Mapping[str, Any]) -> str:
    kind = payload.get("type")
    if kind == "message":
        return "".join(
            str(part.get("text", "")) for part in payload.get("content") or []
            if isinstance(part, dict)
        )
    if kind == "function_call":
        return str(payload.get("name", "")) + str(payload.get("arguments", ""))
    if kind == "custom_tool_call":
        return str(payload.get("name", "")) + str(payload.get("input", ""))
    if kind in ("function_call_output", "custom_tool_call_output"):
        out = payload.get("output")
        return out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)
    if kind == "reasoning":
        return "".join(str(part.get("text", "")) for part in payload.get("summary") or []
                       if isinstance(part, dict))
    return ""


def _codex_edits(activity: Activity, payload: Mapping[str, Any], where: int) -> None:
    kind = payload.get("type")
    if kind == "custom_tool_call" and payload.get("name") == "apply_patch":
        activity.edits.extend(parse_apply_patch(str(payload.get("input", "")), where))
        return
    if kind != "function_call":
        return
    name = payload.get("name")
    arguments = _arguments(payload.get("arguments"))
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
    if _PATCH_START in script and re.search(r"\bapply_patch\b", script):
        before = script.split(_PATCH_START, 1)[0]
        activity.edits.extend(parse_apply_patch(script, where))
        _note_shell(activity, where, before.replace("apply_patch", ""))
        return
    _note_shell(activity, where, " ".join(command[2:] if command[:1] in (["bash"], ["sh"])
                                          else command))


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


# --- OpenHands ---------------------------------------------------------------------------


def read_openhands(path: Path) -> Activity:
    """An OpenHands trajectory (a JSON list of events, as the usage importer reads it).

    Edits are ``edit`` actions (``str_replace_editor``: ``create`` / ``str_replace`` /
    ``insert`` / ``undo_edit``) and ``write`` actions; ``run`` actions are shell commands.
    Requests come from each event's ``llm_metrics.token_usages`` (one per model response)
    or, without them, from ``tool_call_metadata.model_response.usage`` once per response.
    """
    activity = Activity(format_name="openhands")
    context = 0
    totals = (0, 0, 0)  # the running total of (prompt, cache read, completion) tokens
    responses: dict[str, int] = {}  # response id -> index in requests
    edit_of: dict[int, list[int]] = {}  # action id -> indices in edits
    for number, (_line, event) in enumerate(iter_items(path, prefix="item"), start=1):
        if not isinstance(event, dict):
            continue
        where = int(event["id"]) if isinstance(event.get("id"), int) else number
        action = event.get("action")
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        assert isinstance(args, dict)
        metadata = event.get("tool_call_metadata")
        response = metadata.get("model_response") if isinstance(metadata, dict) else None
        text = _openhands_text(event)
        if isinstance(response, dict):
            response_id = str(response.get("id"))
            if response_id in responses:
                index = responses[response_id]
                activity.requests[index] = _grown(activity.requests[index], len(text))
            else:
                model = str(response.get("model") or "")
                activity.add_model(model)
                step, totals = _openhands_step(event, response, totals)
                if step is not None:
                    responses[response_id] = len(activity.requests)
                    activity.requests.append(Request(
                        where=where, chain="main", model=model, input_tokens=step[0],
                        cache_read=step[1], output_tokens=step[2], context_chars=context,
                        output_chars=len(text),
                    ))
        if action == "edit":
            made = _openhands_edit(args, where)
            edit_of[where] = list(range(len(activity.edits), len(activity.edits) + len(made)))
            activity.edits.extend(made)
        elif action == "write":
            edit_of[where] = [len(activity.edits)]
            activity.edits.append(Edit(where, "write", str(args.get("path", "")), "write",
                                       new=str(args.get("content", ""))))
        elif action == "run":
            _note_shell(activity, where, str(args.get("command", "")))
        elif event.get("observation") == "error" or (
            event.get("observation") == "edit"
            and str(event.get("content", "")).lstrip().startswith("ERROR")
        ):
            cause = event.get("cause")
            if isinstance(cause, int):
                activity.failed.extend(edit_of.get(cause, []))
        context += len(text)
    return activity


def _openhands_step(
    event: Mapping[str, Any], response: Mapping[str, Any], totals: tuple[int, int, int]
) -> tuple[tuple[int, int, int] | None, tuple[int, int, int]]:
    """One response's usage: its own ``usage`` when the response carries it, else the growth
    of the event's running total (``llm_metrics.accumulated_token_usage``)."""
    usage = response.get("usage")
    if isinstance(usage, dict) and usage.get("prompt_tokens") is not None:
        details = usage.get("prompt_tokens_details")
        cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
        return (_int(usage.get("prompt_tokens")), cached,
                _int(usage.get("completion_tokens"))), totals
    metrics = event.get("llm_metrics")
    running = metrics.get("accumulated_token_usage") if isinstance(metrics, dict) else None
    if not isinstance(running, dict):
        return None, totals
    now = (_int(running.get("prompt_tokens")), _int(running.get("cache_read_tokens")),
           _int(running.get("completion_tokens")))
    if sum(now) <= sum(totals):
        return None, totals
    return (now[0] - totals[0], now[1] - totals[1], now[2] - totals[2]), now


def _openhands_text(event: Mapping[str, Any]) -> str:
    parts = [str(event.get("message") or ""), str(event.get("content") or "")]
    args = event.get("args")
    if isinstance(args, dict) and event.get("action"):
        parts.append(json.dumps(args, ensure_ascii=False))
    return "".join(parts)


def _openhands_edit(args: Mapping[str, Any], where: int) -> list[Edit]:
    path = str(args.get("path", ""))
    command = args.get("command")
    if command == "create":
        return [Edit(where, "str_replace_editor", path, "write",
                     new=str(args.get("file_text") or ""))]
    if command == "str_replace":
        return [Edit(where, "str_replace_editor", path, "replace",
                     old=str(args.get("old_str") or ""), new=str(args.get("new_str") or ""))]
    if command == "insert":
        line = args.get("insert_line")
        return [Edit(where, "str_replace_editor", path, "insert",
                     new=str(args.get("new_str") or ""),
                     insert_line=line if isinstance(line, int) else 0)]
    if command == "undo_edit":
        return [Edit(where, "str_replace_editor", path, "undo")]
    if command in (None, "") and args.get("content"):
        # The LLM-based editor: content for a range of lines (not replayable exactly).
        return [Edit(where, "llm_editor", path, "write", new=str(args.get("content")))]
    return []


# --- SWE-agent ---------------------------------------------------------------------------


def read_swe_agent(path: Path) -> Activity:
    """A SWE-agent trajectory (``*.traj``): ``trajectory`` steps and ``history`` messages.

    Edits come from ``str_replace_editor`` calls: the JSON arguments of a ``history`` tool
    call when present (function calling), else the step's ``action`` text parsed as the
    shell would. Usage is only given as totals (``info.model_stats``): each assistant
    message of ``history`` is a request, with the totals checked over all of them.
    """
    activity = Activity(format_name="swe-agent", totals_only=True)
    stats: dict[str, int] = {}
    for _line, prefix, event, value in iter_events(path):
        if prefix.startswith("info.model_stats.") and event == "number":
            stats[prefix.removeprefix("info.model_stats.")] = _int(int(value))
    called = False
    context = 0
    for number, (_line, message) in enumerate(iter_items(path, prefix="history.item"),
                                              start=1):
        if not isinstance(message, dict):
            continue
        text = _text_of(message.get("content"))
        if message.get("role") == "assistant":
            activity.requests.append(Request(
                where=number, chain="main", model="", input_tokens=0, cache_read=0,
                output_tokens=0, context_chars=context, output_chars=len(text),
            ))
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict):
                    continue
                called = True
                data = _arguments(function.get("arguments"))
                if function.get("name") in ("str_replace_editor", "file_editor"):
                    activity.edits.extend(_openhands_edit(data, number))
                elif function.get("name") == "bash":
                    _note_shell(activity, number, str(data.get("command", "")))
        context += len(text)
    if not called:
        for number, (_line, step) in enumerate(iter_items(path, prefix="trajectory.item"),
                                               start=1):
            if isinstance(step, dict):
                _swe_action(activity, str(step.get("action") or ""), number)
    if stats and activity.requests:
        sent, received = _int(stats.get("tokens_sent")), _int(stats.get("tokens_received"))
        activity.requests[0] = replace(activity.requests[0], input_tokens=sent,
                                       output_tokens=received)
    return activity


def _swe_action(activity: Activity, action: str, where: int) -> None:
    stripped = action.strip()
    if stripped.startswith("str_replace_editor "):
        try:
            words = shlex.split(stripped)
        except ValueError:
            activity.unreplayable.append((where, stripped[:80]))
            return
        command, path = (words[1], words[2]) if len(words) > 2 else ("", "")
        options: dict[str, Any] = {"command": command, "path": path}
        rest = words[3:]
        for key, value in zip(rest[::2], rest[1::2], strict=False):
            if key.startswith("--"):
                options[key[2:]] = int(value) if key == "--insert_line" and value.isdigit() \
                    else value
        activity.edits.extend(_openhands_edit(options, where))
    elif re.match(r"^edit\s+\d+:\d+", stripped):
        activity.unreplayable.append((where, stripped.split("\n", 1)[0]))
    elif stripped and stripped != "submit":
        _note_shell(activity, where, stripped)


# --- Aider chat history ----------------------------------------------------------------


def read_aider_history(path: Path) -> Activity:
    """Aider's ``.aider.chat.history.md``: ``#### `` lines are the user's, ``> `` lines
    Aider's own output, the rest the model's replies. Edits are the replies' SEARCH/REPLACE
    blocks, replayed only when Aider then says ``Applied edit to <file>`` for their file.
    Each ``> Tokens:`` line closes a request (Aider rounds its figures to a tenth of a
    thousand).

    Aider does not resend the whole chat: earlier exchanges (``done_messages``) are
    summarised once they pass about a sixteenth of the model's context window, dropped by
    ``/clear``, and not restored in a new session; what every request does carry is its
    system prompt, the repository map, the files added to the chat (none of them in the
    history) and the current exchange (``cur_messages``: the user's message and the
    model's replies and Aider's reflections since). So a request's conversation here is
    the current exchange only: the user's ``#### `` lines (not ``/`` commands) since the
    last reply, and the model's replies after them.
    """
    activity = Activity(format_name="aider-history")
    context = 0  # characters of the current exchange
    in_user = False  # the previous line was the user's
    wrote = 0  # characters of the model's replies since the last request
    reply: list[str] = []
    reply_start = 0
    blocks: list[Edit] = []
    applied: set[str] = set()

    def close_reply() -> None:
        nonlocal blocks
        for edit in blocks:
            if edit.path not in applied:
                activity.failed.append(len(activity.edits))
            activity.edits.append(edit)
        blocks = []
        applied.clear()

    with open_transcript(path) as handle:
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if text.startswith("> ") or text == ">" or text.startswith("#### ") or \
                    text.startswith("# aider chat started"):
                if reply:
                    blocks.extend(_search_replace(reply, reply_start))
                    reply = []
                tokens = TOKENS_LINE.match(text.strip())
                if tokens:
                    figures = _aider_figures(tokens.group("parts"))
                    read = figures.get("cache hit", 0)
                    activity.requests.append(Request(
                        where=number, chain="main", model="",
                        input_tokens=figures.get("sent", 0) + read, cache_read=read,
                        output_tokens=figures.get("received", 0),
                        context_chars=context - wrote, output_chars=wrote,
                    ))
                    wrote = 0
                elif text.startswith("> Applied edit to "):
                    applied.add(text.removeprefix("> Applied edit to ").strip())
                elif text.startswith("#### ") or text.startswith("# aider chat started"):
                    close_reply()
                if text.startswith("#### ") and not text.startswith("#### /"):
                    if not in_user:
                        # A new exchange: the one before may be summarised, and a reply
                        # left without a token line belongs to it.
                        context = wrote = 0
                    context += len(text) - 5 + 1
                in_user = text.startswith("#### ")
                continue
            in_user = False
            if not reply:
                reply_start = number
            reply.append(text)
            context += len(text) + 1
            wrote += len(text) + 1
    if reply:
        blocks.extend(_search_replace(reply, reply_start))
    close_reply()
    return activity


def _aider_figures(parts: str) -> dict[str, int]:
    figures: dict[str, int] = {}
    for part in parts.split(", "):
        found = TOKENS_PART.match(part.strip())
        if found:
            figures[found.group("what")] = round(
                float(found.group("count")) * UNITS[found.group("unit")])
    return figures


def _search_replace(lines: Sequence[str], first: int) -> list[Edit]:
    """SEARCH/REPLACE blocks of one reply, the file named on the last line before the
    block's fence (``diff``) or just inside it (``diff-fenced``)."""
    edits: list[Edit] = []
    i = 0
    name = ""
    while i < len(lines):
        line = lines[i]
        if line.strip() == "<<<<<<< SEARCH":
            search: list[str] = []
            i += 1
            while i < len(lines) and lines[i].strip() != "=======":
                search.append(lines[i])
                i += 1
            replace: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].startswith(">>>>>>> REPLACE"):
                replace.append(lines[i])
                i += 1
            old = "\n".join(search) + "\n" if search else ""
            new = "\n".join(replace) + "\n" if replace else ""
            kind: EditKind = "replace" if search else "append"
            edits.append(Edit(first + i, "search_replace", name, kind, old=old, new=new))
        elif line.strip() and not line.startswith("```"):
            name = line.strip()
        i += 1
    return edits


#: The format readers of this module, by transcript format name.
READERS: dict[str, Callable[[Path], Activity]] = {
    "aider-history": read_aider_history,
    "claude-code": read_claude_code,
    "codex": read_codex,
    "openhands": read_openhands,
    "swe-agent": read_swe_agent,
}


def read_activity(path: Path, format_name: str) -> Activity | None:
    """The activity of ``path`` read as ``format_name`` (``None``: the format shows no edit
    tool calls this module can replay)."""
    reader = READERS.get(format_name)
    return reader(path) if reader is not None else None


# --- replay --------------------------------------------------------------------------

#: ``base(path)``: the text of a repository file at the task's base commit, ``None`` when
#: there is no such file.
BaseFiles = Callable[[str], str | None]


class ReplayError(Exception):
    """An edit that cannot be applied as its tool would have (``where`` names it)."""

    def __init__(self, message: str, where: int) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


def repo_path(spelt: str, *, cwd: str, known: Callable[[str], bool]) -> str:
    """A transcript's path as a repository path: relative to the transcript's working
    directory, else the longest tail of it that names a known file."""
    spelt = spelt.replace("\\", "/")
    if cwd and spelt.startswith(cwd.rstrip("/") + "/"):
        return spelt[len(cwd.rstrip("/")) + 1:]
    if not spelt.startswith("/"):
        return spelt.removeprefix("./")
    parts = [p for p in spelt.split("/") if p]
    for k in range(len(parts)):
        candidate = "/".join(parts[k:])
        if known(candidate):
            return candidate
    return "/".join(parts[-1:])


def replay(
    edits: Sequence[Edit], *, base: BaseFiles, cwd: str, known: Callable[[str], bool],
) -> dict[str, str | None]:
    """Apply ``edits`` to the base files as their tools do: the final text of every file
    they touched (``None``: deleted)."""
    files: dict[str, str | None] = {}
    history: dict[str, list[str | None]] = {}

    def exists(name: str) -> bool:
        written = name in files and files[name] is not None
        return written or base(name) is not None or known(name)

    def current(name: str) -> str | None:
        return files[name] if name in files else base(name)

    for edit in edits:
        name = repo_path(edit.path, cwd=cwd, known=exists)
        text = current(name)
        history.setdefault(name, []).append(text)
        if edit.kind == "write":
            files[name] = edit.new
        elif edit.kind == "delete":
            if text is None:
                raise ReplayError(f"deletes {name}, which does not exist", edit.where)
            files[name] = None
        elif edit.kind == "undo":
            steps = history[name]
            steps.pop()
            if not steps:
                raise ReplayError(f"undoes an edit of {name} that was never made", edit.where)
            files[name] = steps.pop()
        elif edit.kind == "insert":
            if text is None:
                raise ReplayError(f"inserts into {name}, which does not exist", edit.where)
            lines = text.split("\n")
            if not 0 <= edit.insert_line <= len(lines):
                raise ReplayError(f"inserts after line {edit.insert_line} of {name}",
                                  edit.where)
            files[name] = "\n".join(
                lines[:edit.insert_line] + edit.new.split("\n") + lines[edit.insert_line:])
        elif edit.kind == "replace":
            files[name] = _replace(name, text, edit)
        elif edit.kind == "append":
            files[name] = (text or "") + edit.new
        else:
            if text is None:
                raise ReplayError(f"updates {name}, which does not exist", edit.where)
            files[name] = _apply_chunks(name, text, edit)
            if edit.move_to:
                files[repo_path(edit.move_to, cwd=cwd, known=exists)] = files[name]
                files[name] = None
    return files


def _replace(name: str, text: str | None, edit: Edit) -> str:
    if text is None:
        if edit.old == "":
            return edit.new  # Claude Code's Edit with an empty old_string creates the file
        raise ReplayError(f"edits {name}, which does not exist", edit.where)
    count = text.count(edit.old) if edit.old else 0
    if count == 0:
        raise ReplayError(f"the text it replaces is not in {name}", edit.where)
    if count > 1 and not edit.replace_all:
        raise ReplayError(f"the text it replaces is in {name} {count} times", edit.where)
    return text.replace(edit.old, edit.new) if edit.replace_all else text.replace(
        edit.old, edit.new, 1)


def _apply_chunks(name: str, text: str, edit: Edit) -> str:
    """Codex's ``apply_patch`` update: each chunk's old lines are found at or after the
    previous chunk (after its ``@@`` anchor line when it has one), exactly, then with
    trailing and then all surrounding whitespace ignored, as Codex does."""
    had_newline = text.endswith("\n")
    lines = text.split("\n")
    if had_newline:
        lines.pop()
    cursor = 0
    for chunk in edit.chunks:
        if chunk.anchor:
            found = _seek(lines, (chunk.anchor,), cursor, False)
            if found is None:
                raise ReplayError(f"no line {chunk.anchor!r} in {name}", edit.where)
            cursor = found + 1
        if not chunk.old:
            at = len(lines)
        else:
            at_or_none = _seek(lines, chunk.old, cursor, chunk.end_of_file)
            if at_or_none is None:
                raise ReplayError(f"the lines it replaces are not in {name}", edit.where)
            at = at_or_none
        lines[at:at + len(chunk.old)] = list(chunk.new)
        cursor = at + len(chunk.new)
    return "\n".join(lines) + "\n"


def _seek(lines: list[str], pattern: Sequence[str], start: int, at_end: bool) -> int | None:
    n = len(pattern)
    for normal in (lambda s: s, str.rstrip, str.strip):
        wanted = [normal(p) for p in pattern]
        first = len(lines) - n if at_end else start
        for i in range(max(first, 0), len(lines) - n + 1):
            if [normal(x) for x in lines[i:i + n]] == wanted:
                return i
    return None


# --- the submitted patch, applied the same way ---------------------------------------


def patched_files(patch: Patch, *, base: BaseFiles) -> dict[str, str | None]:
    """Every file ``patch`` touches, as it reads after the patch (``None``: deleted).

    Hunks are applied at their stated lines (as ``git apply`` does without fuzz); a hunk
    that does not match raises :class:`ReplayError` (``where`` = its line in the patch).
    """
    out: dict[str, str | None] = {}
    for section in patch.files:
        if section.binary:
            raise ReplayError(f"{section.path} is a binary change", section.line)
        if section.status == "deleted":
            out[section.path] = None
            continue
        source = base(section.old_path) if section.old_path else None
        text = "" if source is None else source
        out[section.path] = _apply_hunks(text, section.hunks, section.path)
        if section.old_path and section.old_path != section.path:
            out[section.old_path] = None
    return out


def _apply_hunks(text: str, hunks: Sequence[Any], name: str) -> str:
    lines = text.split("\n")
    newline = text.endswith("\n") or text == ""
    if text.endswith("\n"):
        lines.pop()
    elif text == "":
        lines = []
    out: list[str] = []
    position = 0
    for hunk in hunks:
        start = max(hunk.old_start - 1, 0) if hunk.old_count else hunk.old_start
        out.extend(lines[position:start])
        position = start
        last_sign = ""
        for body in hunk.lines:
            if body.startswith("\\"):
                if last_sign in ("+", " "):
                    newline = False
                continue
            sign, rest = body[:1], body[1:]
            last_sign = sign
            if sign in (" ", "-"):
                if position >= len(lines) or lines[position] != rest:
                    raise ReplayError(f"a hunk of {name} does not match the base file",
                                      hunk.line)
                position += 1
            if sign in (" ", "+"):
                out.append(rest)
        if hunk.lines and hunk.lines[-1].startswith("\\") and last_sign == "+":
            newline = False
    out.extend(lines[position:])
    body_text = "\n".join(out)
    return body_text + "\n" if newline and out else body_text


def differences(
    replayed: Mapping[str, str | None], submitted: Mapping[str, str | None], *,
    base: BaseFiles,
) -> list[str]:
    """The files on which the replay and the patch disagree, in words (empty: they agree).

    A file either side leaves as it was in the base is unchanged on that side.
    """
    def changed(files: Mapping[str, str | None]) -> dict[str, str | None]:
        return {name: text for name, text in files.items() if text != base(name)}

    mine, theirs = changed(replayed), changed(submitted)
    out: list[str] = []
    for name in sorted(set(mine) | set(theirs)):
        if name not in theirs:
            out.append(f"{name} is edited in the transcript but not changed by the patch")
        elif name not in mine:
            out.append(f"{name} is changed by the patch but by no edit in the transcript")
        elif mine[name] != theirs[name]:
            out.append(f"{name} differs between the replayed edits and the patch")
    return out


# --- usage ---------------------------------------------------------------------------

#: Characters per token of the estimate (English and code run ~3.5-4 with current
#: tokenizers; 4 keeps the estimate at or under the real count).
CHARS_PER_TOKEN = 4.0
#: A request's input must be at least this share of the estimate of what it was sent with
#: (tokenizers merge runs of spaces and repeated text: never claim more than half).
COVER_FACTOR = 0.5
#: Tokens every request carries at least (system prompt and tool definitions, sent with
#: each request, the first of a session too; Aider's ``/ask`` prompt is the smallest seen
#: in a real history: 615 tokens).
FIRST_REQUEST_FLOOR: dict[str, int] = {
    "claude-code": 2000, "codex": 2000, "openhands": 1500, "swe-agent": 500,
    "aider-history": 500,
}


#: How far a cache read may exceed the largest context sent before in the transcript: a
#: provider's prompt cache is keyed by prefix, so a request can read what a sub-agent or an
#: earlier session (within the cache's lifetime) sent with the same system prompt and tool
#: definitions. A cache read beyond that is no cache of this run.
CACHE_READ_SLACK = 2000


def estimate_tokens(chars: int) -> int:
    return int(chars / CHARS_PER_TOKEN)


def usage_problems(activity: Activity) -> list[str]:
    """Where the per-request usage contradicts the conversation (empty: consistent).

    * each request's input covers the conversation so far (at least
      :data:`COVER_FACTOR` of its token estimate), and every request carries the tool's
      system prompt (:data:`FIRST_REQUEST_FLOOR`);
    * its output covers what the model visibly wrote (same factor), where the transcript
      shows the response's final output count (``output_final``);
    * cache reads never exceed the largest context sent before (input plus output of an
      earlier request) by more than :data:`CACHE_READ_SLACK`: a cache only holds what was
      sent, but the same prefix (system prompt, tool definitions) may also have been
      cached by a sub-agent or an earlier session of the same user.
    For formats with totals only, the sums are checked instead.
    """
    requests = activity.requests
    if not requests:
        return ["the transcript shows no model request with usage"]
    problems: list[str] = []
    if activity.totals_only:
        sent = sum(r.input_tokens for r in requests)
        needed = sum(estimate_tokens(r.context_chars) for r in requests)
        if sent < COVER_FACTOR * needed:
            problems.append(
                f"{sent:,} input tokens in all cannot carry the {len(requests)} requests' "
                f"conversation (~{needed:,} tokens estimated)")
        received = sum(r.output_tokens for r in requests)
        wrote = estimate_tokens(sum(r.output_chars for r in requests))
        if received < COVER_FACTOR * wrote:
            problems.append(f"{received:,} output tokens in all cannot hold what the model "
                            f"wrote (~{wrote:,} tokens estimated)")
        return problems
    floor = FIRST_REQUEST_FLOOR.get(activity.format_name, 0)
    largest = 0
    first = True
    for request in requests:
        where = f"request at {request.where}"
        needed = estimate_tokens(request.context_chars)
        if request.input_tokens < COVER_FACTOR * needed:
            problems.append(
                f"{where}: {request.input_tokens:,} input tokens cannot carry the "
                f"conversation so far (~{needed:,} tokens estimated)")
        if request.input_tokens < floor:
            problems.append(
                f"{where}: {request.input_tokens:,} input tokens cannot carry the tool's "
                f"system prompt (at least {floor:,})")
        wrote = estimate_tokens(request.output_chars)
        if request.output_final and request.output_tokens < COVER_FACTOR * wrote:
            problems.append(
                f"{where}: {request.output_tokens:,} output tokens cannot hold what the model "
                f"wrote (~{wrote:,} tokens estimated)")
        if request.cache_read > request.input_tokens:
            problems.append(f"{where}: cache reads ({request.cache_read:,}) exceed the input")
        elif not first and request.cache_read > largest + CACHE_READ_SLACK:
            problems.append(
                f"{where}: {request.cache_read:,} cache-read tokens exceed every context sent "
                f"before ({largest:,}) by more than {CACHE_READ_SLACK:,}")
        largest = max(largest, request.input_tokens + request.output_tokens)
        first = False
        if len(problems) >= 5:
            break
    return problems


def iter_edits(activity: Activity) -> Iterator[Edit]:
    """The edits that took effect (their tool did not report an error)."""
    failed = set(activity.failed)
    return (edit for index, edit in enumerate(activity.edits) if index not in failed)
