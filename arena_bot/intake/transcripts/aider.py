"""Aider: the analytics log (``--analytics-log FILE``) and the chat history Markdown.

Analytics log (format ``aider``): JSONL, one ``{"event", "properties", "user_id", "time"}``
per line. Each ``message_send`` event is one model call; its properties carry
``main_model``, ``prompt_tokens``, ``completion_tokens``, ``total_tokens`` and ``cost``.
``prompt_tokens`` is the history's "sent" (cache hits inside it where the provider counts
them so; the log has no cache figure), all read as uncached. ``time`` is epoch seconds.
Aider names a model its model list does not know ``<provider>/REDACTED`` (``openai/REDACTED``
for ``openai/gpt-4o`` when the list could not be fetched): that is no model name, so such a
log names no model (``arena submit`` then asks for ``--model``). Aider has no tool-call
protocol (it edits files from the reply text), so the log cannot check ``tool_calls``: that
figure is left unverified.

Chat history (format ``aider-history``, ``.aider.chat.history.md``): Markdown with a
``# aider chat started at YYYY-MM-DD HH:MM:SS`` header per session and, after each reply, a
quoted line ``> Tokens: 2.3k sent, 1.0k cache write, 8.1k cache hit, 245 received. Cost: ...``
plus ``> Applied edit to <file>`` lines (counted as tool calls: one per file a reply edited,
however many blocks). The figures are rounded as Aider prints them (to 0.1k from 1,000, to
1k from 10,000: ``2.3k``, ``12k``; Aider 0.47.1 printed every digit, ``2,347``). "sent" is
LiteLLM's ``prompt_tokens`` plus the "cache write" tokens again, and LiteLLM (1.53 and
later, every version Aider can be installed with today) counts the cache reads and writes in
``prompt_tokens``: "sent" holds the "cache hit" tokens once and the "cache write" tokens
twice. Aider 0.86.2 (LiteLLM 1.81.10) writes ``4.2k sent, 512 cache hit`` for a DeepSeek
reply billed 4,248 prompt tokens, 512 of them hits, and ``3.4k sent, 256 cache write`` for
an Anthropic reply of 2,881 uncached input tokens and 256 written to the cache. So uncached
= sent - cache hit - 2 x cache write; a "sent" smaller than its hits cannot hold them
(LiteLLM's Anthropic route once left the cache out of ``prompt_tokens``) and only the writes
are taken from it. With both cache figures Aider writes the ``Cost:`` on a line of its own,
without ``> ``. OpenAI's ``cached_tokens`` never reach the line (Aider reads only LiteLLM's
Anthropic and DeepSeek cache fields): they stay inside "sent", uncached here. Streamed
replies (Aider's default) carry no usage to Aider 0.86.2, from any provider: it prints its
own token count of the messages and of the reply, with no cache figure; the history cannot
tell (only ``--no-stream`` runs show the billed figures). Nor does it show the weak model's
calls: with ``--auto-commits`` (the default) each ``> Commit <hash> <message>`` line stands
for a commit message the weak model wrote, a model call in neither the history nor the
analytics log (captured: 7 calls billed, 4 token lines). A
``> Added .aider* to .gitignore`` line is Aider's own edit of ``.gitignore`` (done on start
unless ``--no-gitignore``): its lines are appended, after a line break if the file had none.
``Cost:`` is optional (absent for models without prices) and Aider ends the line with two
spaces (a Markdown line break); both are allowed. Bytes that are not UTF-8 are replaced, so
the lines around them are still read. The history has no end time, so wall-clock time is
left unverified.

The history's activity: ``#### `` lines are the user's, ``> `` lines Aider's own output, the
rest the model's replies. Edits are the replies' edits in the session's edit format, named
on its ``> Main model: ... with <format> edit format`` line (``> Model:`` in older versions,
``> Models: ..., weak model ...`` in 0.47.1;
in architect mode the ``> Editor model:``'s): SEARCH/REPLACE blocks (``diff``,
``diff-fenced``, ``editor-diff``) or whole files (``whole``, ``editor-whole``: the fenced text
after a line naming the file is its new text; Aider 0.75 uses it for a model its list does
not know), replayed only when Aider then says ``Applied edit to <file>`` for their file.
Each ``> Tokens:`` line closes a request. Aider does not resend the whole chat: earlier
exchanges (``done_messages``) are summarised once they pass about a sixteenth of the model's
context window, dropped by ``/clear``, and not restored in a new session; what every request
does carry is its system prompt, the repository map, the files added to the chat (none of
them in the history) and the current exchange (``cur_messages``: the user's message and the
model's replies and Aider's reflections since). So a request's conversation here is the
current exchange only: the user's ``#### `` lines (not ``/`` commands) since the last reply,
and the model's replies after them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts.edits import Activity, Edit, EditKind, Request
from arena_bot.intake.transcripts.metrics import (
    MAX_COUNT,
    Clock,
    TranscriptMetrics,
    as_int,
    decode_line,
    empty_transcript,
    read_json_lines,
    read_lines,
)

#: The figures end at the first "." not inside a number; what follows (``Cost: ...``, Aider's
#: trailing spaces, a stray byte) is not read.
TOKENS_LINE = re.compile(r"^> Tokens: (?P<parts>[^.]*(?:\.\d[^.]*)*)(?:\..*)?$")
#: A figure: ``2.3k`` or ``245`` (0.5x and later), or with thousands separators, ``2,347``
#: (0.47.1, 2024: ``> Tokens: 2,347 sent, 282 received. Cost: $0.02 request, ...``).
TOKENS_PART = re.compile(
    r"^(?P<count>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?P<unit>[kM]?) (?P<what>.+)$")
STARTED = re.compile(r"^# aider chat started at (?P<stamp>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
#: The session's model: ``> Main model: openai/gpt-4o with ...`` (with a weak model) or
#: ``> Model: ...`` today; before (0.47.1, 2024) ``> Models: gpt-4o with diff edit format,
#: weak model gpt-4o-mini`` or ``> Model: ...``, the name marked ``⚡`` when prompts were
#: cached (``claude-3-5-sonnet-20240620⚡ with ♾️ diff edit format``, about 0.50).
MODEL = re.compile(r"^> (?:Main )?[Mm]odels?: (?P<name>[^\s⚡]+)")
#: A session's edit format: ``> Main model: openai/gpt-4o with whole edit format`` (``> Model:``
#: or ``> Models:`` before 0.80, the format marked ``♾️`` for a model that takes a prefill),
#: and in architect mode the editor model's (``> Editor model: ... with editor-whole edit
#: format``), in which the edits are written.
EDIT_FORMAT = re.compile(
    r"^> (?:(?P<editor>Editor)|Main |)[Mm]odels?: [^\s⚡]+⚡? with (?:\u267e\ufe0f? )?"
    r"(?P<format>[\w-]+) edit format")
#: Aider's own edit of ``.gitignore`` (``check_gitignore``), the patterns comma-separated.
GITIGNORE = re.compile(r"^> Added (?P<patterns>.+) to \.gitignore$")
#: The second line Aider gives a token report with both cache figures (no ``> `` before it).
COST_LINE = re.compile(r"^Cost: \$[\d.]+ message, \$[\d.]+ session\.$")
#: What Aider's analytics write instead of a model name its model list does not know.
REDACTED = re.compile(r"^(?:[^/]+/)?REDACTED$")
UNITS = {"": 1, "k": 1_000, "M": 1_000_000}
PART_FIELDS = {
    "sent": "prompt_tokens",
    "received": "completion_tokens",
    "cache hit": "cache_read_tokens",
    "cache write": "cache_write_tokens",
}


def read_aider_analytics(path: Path) -> TranscriptMetrics:
    metrics = TranscriptMetrics(unverifiable={"tool_calls"})
    clock = Clock()
    for number, event in read_json_lines(path):
        metrics.see_line(number)
        clock.see(event.get("time"))
        properties = event.get("properties")
        if event.get("event") != "message_send" or not isinstance(properties, dict):
            continue
        model = properties.get("main_model")
        model = model if isinstance(model, str) and not REDACTED.match(model) else None
        metrics.add_model(model)
        # Architect mode's editor coder sends under its own model: priced per model.
        metrics.count(model, uncached=as_int(properties.get("prompt_tokens")),
                      output=as_int(properties.get("completion_tokens")))
        metrics.iterations += 1
    metrics.wall_clock_seconds = clock.seconds()
    return metrics


def uncached_of(figures: dict[str, int]) -> int:
    """A ``> Tokens:`` line's uncached input: "sent" less the "cache hit" tokens and twice
    the "cache write" tokens it holds, or, when "sent" is smaller than the hits, less the
    writes once (see the module docstring). Never below 0 (the figures are rounded)."""
    sent, hit, write = (figures.get(what, 0) for what in ("sent", "cache hit", "cache write"))
    return max(sent - hit - 2 * write, 0) if sent >= hit else max(sent - write, 0)


def _token_figures(parts: str, *, path: Path, line: int) -> dict[str, int]:
    """``2.3k sent, 245 received`` as ``{"sent": 2300, "received": 245}``."""
    figures: dict[str, int] = {}
    for part in parts.split(", "):
        found = TOKENS_PART.match(part.strip())
        if found is None or found.group("what") not in PART_FIELDS:
            raise InputError(
                f"unrecognised token figure {part!r} in a '> Tokens:' line", path=path, line=line,
                hint="expected e.g. '> Tokens: 2.3k sent, 245 received.'",
            )
        figures[found.group("what")] = figures.get(found.group("what"), 0) + _figure(
            found.group("count").replace(",", ""), found.group("unit"))
    return figures


def _figure(count: str, unit: str) -> int:
    """One figure (``2.3`` and ``k``) as tokens; one past :data:`MAX_COUNT` is no count, as
    in the JSON formats (its float would be infinite from 309 digits)."""
    if len(count.partition(".")[0].lstrip("0")) > len(str(MAX_COUNT)):
        return 0
    return as_int(round(float(count) * UNITS[unit]))


class _History:
    """The activity of a chat history, fed one line at a time."""

    def __init__(self) -> None:
        self.activity = Activity(format_name="aider-history")
        self.context = 0  # characters of the current exchange
        self.in_user = False  # the previous line was the user's
        self.wrote = 0  # characters of the model's replies since the last request
        self.reply: list[str] = []
        self.reply_start = 0
        self.blocks: list[Edit] = []
        self.applied: set[str] = set()
        self.after_tokens = False  # the previous line was a '> Tokens:' line
        self.edit_format = "diff"  # the session's, from its '> Main model: ...' line
        self.editor_format = ""  # architect mode's editor model's

    def line(self, number: int, text: str, figures: dict[str, int] | None) -> None:
        if COST_LINE.match(text.rstrip()) and self.after_tokens:
            return  # Aider's own: the cost of the request just closed
        self.after_tokens = figures is not None
        if not (text.startswith(("> ", "#### ", "# aider chat started")) or text == ">"):
            self.in_user = False
            if not self.reply:
                self.reply_start = number
            self.reply.append(text)
            self.context += len(text) + 1
            self.wrote += len(text) + 1
            return
        self.end_reply()
        if found := EDIT_FORMAT.match(text.rstrip()):
            if found.group("editor"):
                self.editor_format = found.group("format")
            else:
                self.edit_format = found.group("format")
        if text.startswith("# aider chat started"):
            self.edit_format, self.editor_format = "diff", ""
        if figures is not None:
            read = figures.get("cache hit", 0)
            self.activity.requests.append(Request(
                where=number, cache_read=read,
                input_tokens=uncached_of(figures) + read + figures.get("cache write", 0),
                output_tokens=figures.get("received", 0),
                context_chars=self.context - self.wrote, output_chars=self.wrote,
            ))
            self.wrote = 0
        elif text.startswith("> Applied edit to "):
            self.applied.add(text.removeprefix("> Applied edit to ").strip())
        elif ignored := GITIGNORE.match(text.rstrip()):
            lines = "".join(f"{p}\n" for p in ignored.group("patterns").split(", "))
            self.activity.edits.append(Edit(number, "aider", ".gitignore", "append_lines",
                                            new=lines))
        elif text.startswith(("#### ", "# aider chat started")):
            self.close()
        if text.startswith("#### ") and not text.startswith("#### /"):
            if not self.in_user:
                # A new exchange: the one before may be summarised, and a reply left
                # without a token line belongs to it.
                self.context = self.wrote = 0
            self.context += len(text) - 5 + 1
        self.in_user = text.startswith("#### ")

    def end_reply(self) -> None:
        if self.reply:
            form = self.editor_format if self.edit_format == "architect" else self.edit_format
            if form.endswith("whole"):
                self.blocks.extend(_whole_files(self.reply, self.reply_start, self.activity))
            else:
                self.blocks.extend(_search_replace(self.reply, self.reply_start))
            self.reply = []

    def close(self) -> None:
        """The edits of the replies so far, failed unless Aider applied their file."""
        for edit in self.blocks:
            if edit.path not in self.applied:
                self.activity.failed.append(len(self.activity.edits))
            self.activity.edits.append(edit)
        self.blocks = []
        self.applied.clear()


def _whole_files(lines: Sequence[str], first: int, activity: Activity) -> list[Edit]:
    """The files of one reply in Aider's ``whole`` edit format (``WholeFileCoder``): a fence
    after a line naming the file (``**``, ``:``, backquotes and ``#`` around it dropped) holds
    the file's whole new text, to the next fence line; the first block of a file wins. A
    block with no name before it (Aider then guesses from the chat) cannot be replayed."""
    edits: list[Edit] = []
    seen: set[str] = set()
    name: str | None = None
    start = 0
    body: list[str] = []
    for i, line in enumerate([*lines, "```"]):
        if line.startswith(("```", "<source>", "</source>")):
            if name is not None:
                if not name:
                    activity.unreplayable.append((first + start, "a whole file with no name"))
                elif name not in seen and (i < len(lines) or body):
                    seen.add(name)
                    edits.append(Edit(first + start, "whole", name, "write",
                                      new="".join(f"{b}\n" for b in body)))
                name, body = None, []
                continue
            if i == len(lines):
                break
            name = lines[i - 1].strip().strip("*").rstrip(":").strip("`").lstrip("#").strip() \
                if i > 0 else ""
            name = "" if len(name) > 250 else name
            start, body = i, []
        elif name is not None:
            body.append(line)
    return edits


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


def read_aider_history(path: Path) -> TranscriptMetrics:
    metrics = TranscriptMetrics(unverifiable={"execution_time"})
    history = _History()
    clock = Clock()
    seen = False
    for number, raw in read_lines(path):
        full = decode_line(raw)[0].rstrip("\r\n")
        # A stray byte (replaced by U+FFFD) at either end does not hide the line.
        text = full.rstrip().strip("\ufffd")
        seen = seen or bool(text)
        figures = None
        if started := STARTED.match(text):
            clock.see(started.group("stamp").replace(" ", "T"))
        elif model := MODEL.match(text):
            metrics.add_model(model.group("name"))
        elif tokens := TOKENS_LINE.match(text):
            figures = _token_figures(tokens.group("parts"), path=path, line=number)
            for what, count in figures.items():
                field = PART_FIELDS[what]
                count = uncached_of(figures) if what == "sent" else count
                setattr(metrics, field, getattr(metrics, field) + count)
            metrics.iterations += 1
            metrics.see_line(number)
        elif text.startswith("> Applied edit to "):
            metrics.tool_calls += 1
            metrics.edited_files.add(text.removeprefix("> Applied edit to ").strip())
        history.line(number, full, figures)
    if not seen:
        raise empty_transcript(path)
    history.end_reply()
    history.close()
    metrics.activity = history.activity
    return metrics
