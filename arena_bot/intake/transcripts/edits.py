"""What a transcript shows the agent doing to files and asking of its model, and the replay.

Each format's reader (one module per format) fills an :class:`Activity` while it reads the
figures: the **edit tool calls** in order (and the shell commands that may write files, which
cannot be replayed) and the **model requests** with their usage and an estimate of the
conversation each was sent with (checked by :func:`usage_problems`). :func:`replay` applies
the edits to the task's base files, :func:`patched_files` the submitted patch, for the caller
to compare. Pure: files are read through ``base``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # the readers import this module: keep pydantic out of reading a transcript
    from arena_bot.intake.patches import Patch

#: ``replace``: ``old`` → ``new`` (once, or every time with ``replace_all``); ``write``: the
#: whole file is ``new``; ``insert``: ``new`` after line ``insert_line`` (0 = at the top);
#: ``patch``: a Codex ``apply_patch`` update (``chunks``); ``delete``: the file is removed;
#: ``undo``: the file's previous edit is undone (OpenHands, SWE-agent); ``append``: ``new``
#: added at the end (Aider's empty SEARCH: a new file, or text appended); ``append_lines``:
#: ``new`` (whole lines) added at the end, after a line break if the file lacks its last one
#: (Aider's own edit of ``.gitignore``).
EditKind = Literal["replace", "write", "insert", "patch", "delete", "undo", "append",
                   "append_lines"]


@dataclass(frozen=True, slots=True)
class PatchChunk:
    """One ``@@`` chunk of a Codex ``apply_patch`` update."""

    anchor: str
    old: tuple[str, ...]
    new: tuple[str, ...]
    end_of_file: bool = False


@dataclass(frozen=True, slots=True)
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


@dataclass(slots=True)
class Request:
    """One model request: its usage, and the visible conversation it was sent with."""

    where: int
    #: Characters of the conversation before it (messages, tool calls, tool results).
    context_chars: int
    #: Characters the model wrote in this request (text and tool call arguments).
    output_chars: int
    #: Every input token (uncached, cache read, cache write).
    input_tokens: int = 0
    cache_read: int = 0
    output_tokens: int = 0
    #: ``output_tokens`` is the response's final count. ``False`` where the transcript
    #: wrote the usage while the response was still streaming and never its final figure
    #: (Claude Code lines without a ``stop_reason``): the count is then only a lower bound.
    output_final: bool = True

    def grow(self, chars: int, output_tokens: int = 0, *, final: bool = False) -> None:
        """One more line of its response: ``chars`` more written, the line's output count
        when larger (a later line of a streamed response), final once a line says so."""
        self.output_chars += chars
        self.output_tokens = max(self.output_tokens, output_tokens)
        self.output_final = self.output_final or final


@dataclass
class Activity:
    """What a transcript shows the agent doing to files and asking of its model."""

    edits: list[Edit] = field(default_factory=list)
    #: ``(where, command)`` of shell commands that may write files.
    shell_writes: list[tuple[int, str]] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    #: The working directory the transcript names, when it names one.
    cwd: str = ""
    #: Edits whose tool reported an error (not replayed), as indices into ``edits``.
    failed: list[int] = field(default_factory=list)
    #: Edit calls of a form this module cannot replay (e.g. SWE-agent's old ``edit N:M``).
    unreplayable: list[tuple[int, str]] = field(default_factory=list)
    #: Tool calls the transcript never answers with a result (``where``); the tools write
    #: a result for every call, so a real session leaves at most its last one unanswered.
    unanswered: list[int] = field(default_factory=list)
    #: Per-request usage is not in the format (only totals): ``requests`` then hold the
    #: conversation sizes with the totals spread as given (see :func:`usage_problems`).
    totals_only: bool = False
    #: The transcript format, which sets :data:`FIRST_REQUEST_FLOOR`.
    format_name: str = ""
    #: Where the transcript's totals contradict its own per-request figures (a format
    #: with both, e.g. a headless Claude Code run's ``result`` event below its replies).
    contradictions: list[str] = field(default_factory=list)


# --- shell commands that write files -------------------------------------------------

#: Shell forms that change files: in-place editors, redirections into a file, heredocs,
#: copies and moves, patch tools, scripts that open files for writing.
SHELL_WRITE = re.compile(
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


def note_shell(activity: Activity, where: int, command: str) -> None:
    if SHELL_WRITE.search(command):
        activity.shell_writes.append((where, command.strip()[:200]))


def chars_of(content: Any) -> int:
    """How many visible characters a message's content holds (text, thinking, tool inputs,
    tool results; not images or documents). Walked without recursion: a crafted content
    nested thousands deep is counted, not a crash."""
    count, stack = 0, [content]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            kind = item.get("type")
            if kind in ("text", "thinking"):
                count += len(str(item.get(kind, "")))
            elif kind == "tool_use":
                count += len(str(item.get("name", ""))) + len(
                    json.dumps(item.get("input", {}), ensure_ascii=False))
            elif kind not in ("image", "document"):
                stack.append(item.get("content") if kind == "tool_result"
                             else item.get("content") or item.get("text"))
        elif item is not None:
            count += len(str(item))
    return count


# --- edit tool calls shared by several tools ----------------------------------------

PATCH_START = "*** Begin Patch"


def parse_apply_patch(text: str, where: int) -> list[Edit]:
    """Codex's ``apply_patch`` envelope: ``*** Add File:`` / ``*** Update File:`` (with
    ``*** Move to:`` and ``@@`` chunks) / ``*** Delete File:``, up to ``*** End Patch``."""
    lines = text.split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == PATCH_START)
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


def tool_arguments(arguments: Any) -> dict[str, Any]:
    """A tool call's arguments (a JSON object, or its text); ``{}`` when they are not one."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return {}
    return arguments if isinstance(arguments, dict) else {}


def editor_edits(args: Mapping[str, Any], where: int) -> list[Edit]:
    """A ``str_replace_editor`` call (OpenHands, SWE-agent): ``create`` / ``str_replace`` /
    ``insert`` / ``undo_edit``, or the LLM-based editor's ``content``."""
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
        elif edit.kind == "append_lines":
            files[name] = (text or "") + ("\n" if text and not text.endswith("\n") else "") \
                + edit.new
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
    "aider-history": 500, "gemini-cli": 2000,
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
      earlier request) by more than :data:`CACHE_READ_SLACK`;
    * the transcript's totals contradict none of its per-request figures
      (``activity.contradictions``, found by its reader).
    For formats with totals only, the sums are checked instead.
    """
    requests = activity.requests
    if not requests:
        return ["the transcript shows no model request with usage"]
    problems: list[str] = list(activity.contradictions)
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
