"""Capture real Claude Code transcripts against a scripted Anthropic Messages API server.

No model provider is reachable here, so this script plays one: a standard-library HTTP server
on 127.0.0.1 speaking the Messages API as Claude Code uses it (``POST /v1/messages``, streamed
as server-sent events: ``message_start`` with the input-side usage, ``content_block_*``,
``message_delta`` with the final ``output_tokens``, ``message_stop``; plus ``count_tokens``
and the model listing). It answers from a fixed script and bills fixed, known usage on every
reply, different figures per call (:func:`usage_of`). The transcript files are then Claude
Code's own, and the server's log (``ground_truth.json``) is what they should say.

The script, by conversation (told apart by the marker in its first user message):

* main agent, on the shipped ``slugkit-options`` task (feature 1, ``max_length``) at its base
  commit: Read ``core.py`` -> Edit it -> Read ``__main__.py`` and Bash (the tests) in one
  reply -> Edit -> Edit and Write ``NOTES.md`` in one reply -> Bash -> Task/Agent (a
  sub-agent) -> final text (repeated if Claude Code asks again, as 2.1 does when a background
  sub-agent finishes after it);
* sub-agent: Bash (``git status --short``) -> final text;
* anything else Claude Code asks (a title, a topic check, a quota probe): a short text.

Usage::

    python3 scripts/capture/claude_code.py --claude /tmp/tools/claude/node_modules/.bin/claude \\
        --mode session --out /tmp/capture/claude-2.1.328-session

``--mode``: ``session`` (``claude -p PROMPT``, keeps the session files it writes under
``<HOME>/.claude/projects/``), ``stream-json`` (``-p --output-format stream-json --verbose``),
``json`` (``-p --output-format json``) or ``interrupt`` (``stream-json``, the process sent
SIGINT, as Ctrl-C would, while the main agent's ``--interrupt-at``-th reply streams).
Each run writes into ``--out``:
``stdout.txt``, ``stderr.txt``, ``projects/`` (the session files), ``workdir.patch`` (what
the run changed: ``git diff`` of the repository, new files included), ``ground_truth.json``
and ``requests.jsonl`` (every request body, for debugging; not committed).

Claude Code runs with ``HOME`` a scratch folder, ``ANTHROPIC_BASE_URL`` this server,
``ANTHROPIC_API_KEY=fake``, telemetry, error reporting and auto-update off and permissions
skipped, in a scratch git repository at a fixed path (``--scratch``) so a capture is
reproducible.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

MAIN_MARKER = "ARENA-CAPTURE-MAIN"
SUB_MARKER = "ARENA-CAPTURE-SUBAGENT"

#: The task the run works on: the shipped ``slugkit-options`` task, feature 1, so the
#: captured session's edits can be replayed onto its base commit by ``arena submit``.
TASK = "slugkit-options"
PROMPT = (
    f"{MAIN_MARKER}: add a keyword-only max_length option to slugkit.slugify (cut at the last "
    "word boundary that fits) and --max-length to the command line; run the tests, write "
    "NOTES.md, and have a sub-agent check git status."
)
SUB_PROMPT = f"{SUB_MARKER}: run `git status --short` and report what changed."

OLD_SLUGIFY = '''def slugify(text: str) -> str:
    """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

    >>> slugify("Hello, World!")
    'hello-world'
    """
    folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
    return _NON_ALNUM.sub("-", folded).strip("-")
'''
NEW_SLUGIFY = '''def slugify(text: str, *, max_length: int | None = None) -> str:
    """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

    ``max_length`` caps the slug's length, cutting at the last word boundary that fits
    (or inside the first word when it alone is too long).

    >>> slugify("Hello, World!")
    'hello-world'
    """
    if max_length is not None and max_length < 1:
        raise ValueError(f"max_length must be at least 1, got {max_length}")
    folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
    slug = _NON_ALNUM.sub("-", folded).strip("-")
    if max_length is None or len(slug) <= max_length:
        return slug
    if slug[max_length] == "-":
        return slug[:max_length]
    head, sep, _ = slug[:max_length].rpartition("-")
    return head if sep else slug[:max_length]
'''
OLD_ARGUMENT = ('    parser.add_argument("--version", action="version", '
                'version=f"slugkit {__version__}")\n')
NEW_ARGUMENT = (
    '    parser.add_argument(\n'
    '        "--max-length", type=int, default=None, metavar="N", '
    'help="cut slugs to N characters"\n'
    '    )\n' + OLD_ARGUMENT)
OLD_PRINT = "        print(slugify(line))\n"
NEW_PRINT = "        print(slugify(line, max_length=args.max_length))\n"

#: Seconds before a reply's first event (a model's time to first token: keeps the run's
#: tokens per second plausible).
FIRST_TOKEN = 0.6

#: Seconds between two streamed events (so a reply takes visible time, and an interrupt can
#: land inside one).
EVENT_PAUSE = 0.02


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def usage_of(seq: int, wrote: int, before: int) -> dict[str, int]:
    """The usage billed on the ``seq``-th billed call (1-based) whose reply is ``wrote``
    characters long, in a conversation whose previous request sent ``before`` prompt tokens
    (0: its first request). Every figure differs per call and none is zero, so a figure
    taken from the wrong call or counted twice shows; and it is plausible, as a real
    provider's is: the previous prompt is read from the cache (a first request reads the
    system prompt cached by earlier ones), the output is what a model would bill for the
    reply (about 3 characters a token)."""
    return {
        "input_tokens": 100 * seq + 7,
        "cache_creation_input_tokens": 1500 + 37 * seq,
        "cache_read_input_tokens": before or 9000 + 11 * seq,
        "output_tokens": 20 + 7 * seq + wrote // 3,
    }


@dataclass
class Block:
    """One content block of a scripted reply."""

    kind: str  # "text", "tool_use" or "thinking"
    text: str = ""
    name: str = ""
    data: dict[str, Any] = field(default_factory=dict)


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content or [] if isinstance(b, dict))


def classify(body: dict[str, Any]) -> tuple[str, int]:
    """(``main`` / ``subagent`` / ``warmup`` / ``side``, step): the conversation a request
    belongs to and how many replies it already holds."""
    messages = body.get("messages") or []
    tools = body.get("tools") or []
    first = _text_of(messages[0]) if messages else ""
    step = sum(1 for m in messages if m.get("role") == "assistant")
    if tools and SUB_MARKER in first:
        return "subagent", step
    if tools and MAIN_MARKER in first:
        return "main", step
    if tools and first.strip() == "Warmup":  # 2.0's sub-agent warm-ups, kept in agent files
        return "warmup", step
    return "side", step


def script(kind: str, step: int, body: dict[str, Any], repo: Path, *,
           foreground: bool = False) -> list[Block]:
    """The scripted reply for conversation ``kind`` at ``step``; ``foreground``: ask for the
    sub-agent with ``run_in_background: false`` where the tool takes it (2.1's agents run in
    the background by default, and the main agent answers again when one finishes)."""
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    names = {str(t.get("name")) for t in tools}
    core, cli = str(repo / "slugkit" / "core.py"), str(repo / "slugkit" / "__main__.py")
    if kind == "main":
        agent = "Agent" if "Agent" in names and "Task" not in names else "Task"
        schema = next((t.get("input_schema") or {} for t in tools if t.get("name") == agent), {})
        wait = ({"run_in_background": False} if foreground and "run_in_background" in (
            schema.get("properties") or {}) else {})
        thinking = isinstance(body.get("thinking"), dict) and body["thinking"].get(
            "type") in ("enabled", "adaptive")
        steps: list[list[Block]] = [
            ([Block("thinking", "slugify is in slugkit/core.py; read it first.")]
             if thinking else [])
            + [Block("text", "I'll read slugkit/core.py first."),
               Block("tool_use", name="Read", data={"file_path": core})],
            [Block("tool_use", name="Edit", data={
                "file_path": core, "old_string": OLD_SLUGIFY, "new_string": NEW_SLUGIFY})],
            [Block("text", "Now the command line, and the tests as they stand."),
             Block("tool_use", name="Read", data={"file_path": cli}),
             Block("tool_use", name="Bash", data={
                 "command": "python3 -m pytest -q -p no:cacheprovider tests",
                 "description": "Run the tests"})],
            [Block("tool_use", name="Edit", data={
                "file_path": cli, "old_string": OLD_ARGUMENT, "new_string": NEW_ARGUMENT})],
            [Block("tool_use", name="Edit", data={
                "file_path": cli, "old_string": OLD_PRINT, "new_string": NEW_PRINT}),
             Block("tool_use", name="Write", data={
                 "file_path": str(repo / "NOTES.md"),
                 "content": "slugify(max_length=N) cuts at the last hyphen that fits.\n"})],
            [Block("tool_use", name="Bash", data={
                "command": 'python3 -m slugkit --max-length 9 "The quick brown fox"',
                "description": "Try the new option"})],
            [Block("tool_use", name=agent, data={
                "description": "Check git status", "prompt": SUB_PROMPT,
                "subagent_type": "general-purpose", **wait})],
            [Block("text", "slugify takes max_length (cut at the last word boundary that "
                           "fits), the command line --max-length; NOTES.md says so.")],
        ]
        return steps[min(step, len(steps) - 1)]
    if kind == "subagent":
        if step == 0:
            return [Block("tool_use", name="Bash", data={
                "command": "git status --short", "description": "Show changed files"})]
        return [Block("text", "git status: slugkit/core.py and slugkit/__main__.py modified, "
                              "NOTES.md untracked.")]
    system = json.dumps(body.get("system", ""))
    if "title" in system.lower() and "json" in system.lower():
        return [Block("text", json.dumps({"title": "Add max_length to slugify"}))]
    return [Block("text", "Add max_length to slugify")]


@dataclass
class Server:
    """The scripted server's state: the billed calls (ground truth) and every request."""

    repo: Path
    log_dir: Path
    foreground: bool = False  # the sub-agent asked for with run_in_background: false
    interrupt_at: int = -1  # the main agent's step whose reply stalls mid-stream (interrupt)
    calls: list[dict[str, Any]] = field(default_factory=list)
    prompts: dict[str, int] = field(default_factory=dict)  # conversation -> last prompt size
    other: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    streaming_slow: threading.Event = field(default_factory=threading.Event)

    def bill(self, body: dict[str, Any], path: str) -> tuple[dict[str, Any], list[Block]]:
        kind, step = classify(body)
        blocks = script(kind, step, body, self.repo, foreground=self.foreground)
        messages = body.get("messages") or [{}]
        conversation = f"{kind}:{hash(json.dumps(messages[0], sort_keys=True))}"
        with self.lock:
            seq = len(self.calls) + 1
            tools = [b for b in blocks if b.kind == "tool_use"]
            usage = usage_of(seq, sum(len(b.text) + len(json.dumps(b.data)) for b in blocks),
                             self.prompts.get(conversation, 0) if step else 0)
            self.prompts[conversation] = (usage["input_tokens"] + usage[
                "cache_read_input_tokens"] + usage["cache_creation_input_tokens"])
            call = {
                "seq": seq, "path": path, "kind": kind, "step": step,
                "model": body.get("model"), "stream": bool(body.get("stream")),
                "max_tokens": body.get("max_tokens"),
                "message_id": f"msg_arena{seq:04d}",
                "usage": usage,
                "stop_reason": "tool_use" if tools else "end_turn",
                "blocks": [b.kind for b in blocks],
                "tool_uses": [{"id": f"toolu_arena{seq:04d}{i}", "name": b.name}
                              for i, b in enumerate(tools)],
                "started": now(), "finished": None, "completed": False,
            }
            self.calls.append(call)
        return call, blocks

    def record(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.other.append(entry)

    def ground_truth(self) -> dict[str, Any]:
        """The billed calls and their totals: all calls; the main agent's with its
        sub-agent's (``agent_calls``); those with 2.0's warm-ups (``session_calls``: what
        Claude Code writes to session files; side calls, a title, a command's prefix or the
        files a command touched, it writes nowhere)."""
        def totals(calls: list[dict[str, Any]]) -> dict[str, Any]:
            keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                    "output_tokens")
            sums = {k: sum(c["usage"][k] for c in calls) for k in keys}
            return {
                "uncached": sums["input_tokens"], "cache_read": sums["cache_read_input_tokens"],
                "cache_write": sums["cache_creation_input_tokens"],
                "output": sums["output_tokens"],
                "tool_calls": sum(len(c["tool_uses"]) for c in calls),
                "iterations": len(calls),
                "models": sorted({str(c["model"]) for c in calls}),
            }
        with self.lock:
            calls = list(self.calls)
        agent = [c for c in calls if c["kind"] in ("main", "subagent")]
        written = [c for c in calls if c["kind"] in ("main", "subagent", "warmup")]
        stamps = [c["started"] for c in calls] + [c["finished"] for c in calls if c["finished"]]
        return {
            "calls": calls, "other_requests": list(self.other),
            "all_calls": totals(calls), "agent_calls": totals(agent),
            "session_calls": totals(written),
            "main_calls": totals([c for c in calls if c["kind"] == "main"]),
            "subagent_calls": totals([c for c in calls if c["kind"] == "subagent"]),
            "side_calls": totals([c for c in calls if c["kind"] == "side"]),
            "first_request": min(stamps) if stamps else None,
            "last_reply": max(stamps) if stamps else None,
        }


def _sse(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


def _message(call: dict[str, Any], blocks: list[Block]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    tool_ids = iter(call["tool_uses"])
    for block in blocks:
        if block.kind == "text":
            content.append({"type": "text", "text": block.text})
        elif block.kind == "thinking":
            content.append({"type": "thinking", "thinking": block.text,
                            "signature": "arena-capture-signature"})
        else:
            content.append({"type": "tool_use", "id": next(tool_ids)["id"], "name": block.name,
                            "input": block.data})
    return {
        "id": call["message_id"], "type": "message", "role": "assistant",
        "model": call["model"], "content": content, "stop_reason": call["stop_reason"],
        "stop_sequence": None, "usage": {**call["usage"], "service_tier": "standard"},
    }


def _chunks(text: str, size: int = 12) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def events(call: dict[str, Any], blocks: list[Block]) -> list[tuple[str, dict[str, Any]]]:
    """The server-sent events of one streamed reply, as the Messages API sends them."""
    message = _message(call, blocks)
    usage = call["usage"]
    start = {**message, "content": [], "stop_reason": None,
             "usage": {"input_tokens": usage["input_tokens"],
                       "cache_creation_input_tokens": usage["cache_creation_input_tokens"],
                       "cache_read_input_tokens": usage["cache_read_input_tokens"],
                       "cache_creation": {
                           "ephemeral_5m_input_tokens": usage["cache_creation_input_tokens"],
                           "ephemeral_1h_input_tokens": 0},
                       "output_tokens": 1, "service_tier": "standard"}}
    out: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"})]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "text":
            first = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": c} for c in _chunks(block["text"])]
        elif kind == "thinking":
            first = {"type": "thinking", "thinking": ""}
            deltas = [{"type": "thinking_delta", "thinking": c}
                      for c in _chunks(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        else:
            first = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": c}
                      for c in ["", *_chunks(json.dumps(block["input"]), 20)]]
        out.append(("content_block_start", {"type": "content_block_start", "index": index,
                                            "content_block": first}))
        out.extend(("content_block_delta", {"type": "content_block_delta", "index": index,
                                            "delta": d}) for d in deltas)
        out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": call["stop_reason"],
                                            "stop_sequence": None},
                                  "usage": {"output_tokens": usage["output_tokens"]}}))
    out.append(("message_stop", {"type": "message_stop"}))
    return out


MODELS = ["claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "claude-opus-4-5-20251101"]


def make_handler(state: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", f"req_arena{time.monotonic_ns()}")
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                value = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                value = {"_raw": raw.decode("utf-8", "replace")}
            return value if isinstance(value, dict) else {"_value": value}

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            state.record({"method": "GET", "path": self.path, "at": now()})
            if path.rstrip("/") == "/v1/models":
                data = [{"type": "model", "id": m, "display_name": m,
                         "created_at": "2025-09-29T00:00:00Z"} for m in MODELS]
                self._json(200, {"data": data, "has_more": False, "first_id": MODELS[0],
                                 "last_id": MODELS[-1]})
            elif path.startswith("/v1/models/"):
                name = path.rsplit("/", 1)[1]
                self._json(200, {"type": "model", "id": name, "display_name": name,
                                 "created_at": "2025-09-29T00:00:00Z"})
            else:
                self._json(404, {"type": "error", "error": {
                    "type": "not_found_error", "message": f"no {path} here"}})

        def do_HEAD(self) -> None:
            state.record({"method": "HEAD", "path": self.path, "at": now()})
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            path = urlsplit(self.path).path
            body = self._body()
            with state.lock, open(state.log_dir / "requests.jsonl", "a") as log:
                log.write(json.dumps({"at": now(), "path": self.path,
                                      "headers": dict(self.headers), "body": body}) + "\n")
            if path == "/v1/messages/count_tokens":
                state.record({"method": "POST", "path": self.path, "at": now(),
                              "model": body.get("model")})
                self._json(200, {"input_tokens": 1000 + len(json.dumps(body)) // 4})
                return
            if path != "/v1/messages":
                state.record({"method": "POST", "path": self.path, "at": now()})
                self._json(404, {"type": "error", "error": {
                    "type": "not_found_error", "message": f"no {path} here"}})
                return
            call, blocks = state.bill(body, self.path)
            if not call["stream"]:
                self._json(200, _message(call, blocks))
                call["finished"], call["completed"] = now(), True
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("request-id", f"req_arena{call['seq']:04d}")
            self.send_header("connection", "close")
            self.end_headers()
            slow = call["kind"] == "main" and call["step"] == state.interrupt_at
            time.sleep(FIRST_TOKEN)
            try:
                for number, (kind, data) in enumerate(events(call, blocks)):
                    self.wfile.write(_sse(kind, data))
                    self.wfile.flush()
                    if slow and number == 3:
                        state.streaming_slow.set()
                        time.sleep(30)  # the driver interrupts Claude Code meanwhile
                    time.sleep(EVENT_PAUSE)
                call["completed"] = True
            except (BrokenPipeError, ConnectionResetError):
                call["completed"] = False
            call["finished"] = now()
            self.close_connection = True

    return Handler


def prepare(scratch: Path, project: Path) -> tuple[Path, Path]:
    """A fresh HOME, and the task's repository at its base commit, under ``scratch`` (always
    the same paths)."""
    if scratch.exists():
        shutil.rmtree(scratch)
    home, repo = scratch / "home", scratch / "repo"
    home.mkdir(parents=True)
    task = project / "dataset" / TASK
    base = next(line.split(":", 1)[1].strip() for line in (task / "task.yaml").read_text(
        ).splitlines() if line.strip().startswith("commit:"))
    subprocess.run(["git", "clone", "-q", str(task / "repo.bundle"), str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", base], check=True)
    return home, repo


def command(claude: str, mode: str) -> list[str]:
    args = [claude, "-p", PROMPT, "--dangerously-skip-permissions"]
    if mode in ("stream-json", "interrupt"):
        args += ["--output-format", "stream-json", "--verbose"]
    elif mode == "json":
        args += ["--output-format", "json"]
    return args


def environment(home: Path, url: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TERM", "TZ")}
    return {
        **keep, "HOME": str(home), "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "fake",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1", "DISABLE_AUTOUPDATER": "1",
        "DISABLE_BUG_COMMAND": "1", "IS_SANDBOX": "1", "CI": "1",
    }


def capture(*, claude: str, mode: str, out: Path, scratch: Path, interrupt_at: int,
            project: Path, foreground: bool = False) -> int:
    """Run Claude Code once against the scripted server; write what it left into ``out``."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    home, repo = prepare(scratch, project)
    state = Server(repo=repo, log_dir=out, foreground=foreground,
                   interrupt_at=interrupt_at if mode == "interrupt" else -1)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    args = command(claude, mode)
    started = time.monotonic()
    began = now()
    with open(out / "stdout.txt", "wb") as stdout, open(out / "stderr.txt", "wb") as stderr:
        process = subprocess.Popen(args, cwd=repo, env=environment(home, url), stdout=stdout,
                                   stderr=stderr, stdin=subprocess.DEVNULL)
        if mode == "interrupt":
            state.streaming_slow.wait(timeout=300)
            time.sleep(1)
            process.send_signal(signal.SIGINT)
        try:
            code = process.wait(timeout=600)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
    ended = now()
    seconds = time.monotonic() - started
    time.sleep(0.5)
    server.shutdown()
    subprocess.run(["git", "-C", str(repo), "add", "-A", "-N"], check=True)
    (out / "workdir.patch").write_bytes(subprocess.run(
        ["git", "-C", str(repo), "diff", "--binary"], check=True, capture_output=True).stdout)
    projects = home / ".claude" / "projects"
    if projects.is_dir():
        shutil.copytree(projects, out / "projects", symlinks=True)
    truth = state.ground_truth()
    truth.update({
        "claude": claude, "version": subprocess.run(
            [claude, "--version"], capture_output=True, text=True,
            env=environment(home, url)).stdout.strip(),
        "mode": mode, "command": [Path(args[0]).name, *args[1:]], "cwd": str(repo),
        "foreground_agent": foreground, "exit_code": code, "process_started": began,
        "process_ended": ended,
        "process_seconds": round(seconds, 3),
        "files": sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()),
    })
    (out / "ground_truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claude", required=True, help="the claude executable")
    parser.add_argument("--mode", choices=["session", "stream-json", "json", "interrupt"],
                        default="session")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/arena-capture/claude"),
                        help="where the scratch HOME and repository are made (emptied first)")
    parser.add_argument("--project", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the leaderboard checkout whose dataset/ holds the task")
    parser.add_argument("--foreground-agent", action="store_true",
                        help="ask for the sub-agent with run_in_background: false (2.1)")
    parser.add_argument("--interrupt-at", type=int, default=3,
                        help="interrupt mode: the main agent's step (0-based) whose reply "
                        "stalls after its first content event; SIGINT is sent meanwhile")
    args = parser.parse_args(argv)
    code = capture(claude=args.claude, mode=args.mode, out=args.out, scratch=args.scratch,
                   interrupt_at=args.interrupt_at, project=args.project,
                   foreground=args.foreground_agent)
    truth = json.loads((args.out / "ground_truth.json").read_text())
    print(json.dumps({k: truth[k] for k in ("version", "exit_code", "process_seconds",
                                              "all_calls", "session_calls")}, indent=1))
    print("files:", *truth["files"], sep="\n  ")
    return 0 if code == 0 or args.mode == "interrupt" else code


if __name__ == "__main__":
    sys.exit(main())
