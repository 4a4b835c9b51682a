#!/usr/bin/env python3
"""A scripted OpenAI-compatible Chat Completions server, and the drivers that run the
Python-installed agents (Aider, mini-swe-agent 2.x and 1.x, the OpenHands SDK) against it.

Standard library only. ``POST /v1/chat/completions`` (streamed or not; with
``stream_options.include_usage`` the last chunk carries the usage, as OpenAI sends it) and
``GET /v1/models``. Each request is answered with the next reply of the tool's script (a
text, an edit in the tool's own format, tool calls), the last reply repeated once the
script is spent, and billed a known usage that differs per reply:

    prompt_tokens     = BASE + 1000 * n + 37 * n * n   (n = 1, 2, ... the reply's number)
    cached_tokens     = 0 on the first reply, else 512 * (n - 1)   (prompt_tokens_details)
    completion_tokens = 40 + 23 * n + chars // 2   (chars: the reply's text and tool-call
                                                   arguments, so the output can hold them)

``total_tokens`` = prompt + completion. Every billed reply is logged, one JSON line, to the
ground-truth file (``--log``): its number, the model asked for, streamed or not, whether the
usage reached the client (a streamed reply without ``include_usage`` carries none), the
figures, the tool calls. ``summary`` adds them up (uncached = prompt - cached).

Usage:
    python scripts/capture/openai_chat.py serve --script aider --port 8765 --log truth.jsonl
    python scripts/capture/openai_chat.py capture aider --out DIR   # every tool has a driver
    python scripts/capture/openai_chat.py summary truth.jsonl

The drivers (``capture <tool>``) make a scratch git repository, start the server on a free
port, run the tool (installed in its own venv under /tmp/tools, HOME a scratch folder, the
API key fake, telemetry, analytics and update checks off) and copy its files and the ground
truth into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MODEL = "gpt-4o"

# --------------------------------------------------------------------------------------------
# The scripts: one list of replies per tool. A reply is {"text": str, "calls": [(name, args)]}.

# The task: dataset/slugkit-options, feature 1 (a --max-length option), done in three edits.
SIG_OLD = "def slugify(text: str) -> str:"
SIG_NEW = "def slugify(text: str, *, max_length: int | None = None) -> str:"
BODY_OLD = ('    folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()\n'
            '    return _NON_ALNUM.sub("-", folded).strip("-")')
BODY_NEW = ('    folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()\n'
            '    slug = _NON_ALNUM.sub("-", folded).strip("-")\n'
            '    if max_length is not None and len(slug) > max_length:\n'
            '        head = slug[: max_length + 1]\n'
            '        slug = head.rsplit("-", 1)[0] if "-" in head else slug[:max_length]\n'
            '    return slug')
ARG_OLD = '    parser.add_argument("text", nargs="*", help="text to turn into a slug")'
ARG_NEW = (ARG_OLD + '\n    parser.add_argument("--max-length", type=int, metavar="N",\n'
           '                        help="cut each slug to at most N characters, between words")')
CALL_OLD = "        print(slugify(line))"
CALL_NEW = "        print(slugify(line, max_length=args.max_length))"
CHECK = ("python3 -c \"from slugkit.core import slugify; "
         "assert slugify('Hello big world', max_length=9) == 'hello-big'\"")


def block(path: str, old: str, new: str) -> str:
    """One of Aider's SEARCH/REPLACE blocks (the ``diff`` edit format)."""
    return (f"{path}\n```python\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```\n")


def heredoc(path: str, old: str, new: str) -> str:
    """A shell command replacing ``old`` by ``new`` in ``path`` (mini-swe-agent's edits)."""
    return (f"python3 - <<'EOF'\nfrom pathlib import Path\np = Path({path!r})\n"
            f"p.write_text(p.read_text().replace({old!r}, {new!r}, 1))\nEOF")


AIDER = [
    # Session 1: the signature only; the --test-cmd check fails, Aider sends its output back
    # (--auto-test) and the second reply cuts the slug.
    {"text": "`slugify` needs a keyword-only `max_length`.\n\n"
             + block("slugkit/core.py", SIG_OLD, SIG_NEW)},
    {"text": "The check fails: the slug is not cut yet.\n\n"
             + block("slugkit/core.py", BODY_OLD, BODY_NEW)},
    # Session 2: the command line, two blocks in one reply.
    {"text": "The command line gets `--max-length`.\n\n"
             + block("slugkit/__main__.py", ARG_OLD, ARG_NEW) + "\n"
             + block("slugkit/__main__.py", CALL_OLD, CALL_NEW)},
    # Session 3: a question, an answer without an edit.
    {"text": "`slugify('Hello big world', max_length=9)` returns `'hello-big'`: the slug is cut "
             "at the last hyphen that fits."},
]

def aider_whole(repo: Path) -> list[dict[str, Any]]:
    """The Aider script in its ``whole`` edit format: each edit is the file's whole new text
    in a fence after its name (made from the task's files at the base commit)."""
    core = (repo / "slugkit/core.py").read_text()
    main = (repo / "slugkit/__main__.py").read_text()
    signature = core.replace(SIG_OLD, SIG_NEW)
    both = signature.replace(BODY_OLD, BODY_NEW)
    cli = main.replace(ARG_OLD, ARG_NEW).replace(CALL_OLD, CALL_NEW)
    return [
        {"text": "`slugify` needs a keyword-only `max_length`.\n\nslugkit/core.py\n```python\n"
                 + signature + "```\n"},
        {"text": "The check fails: the slug is not cut yet.\n\nslugkit/core.py\n```python\n"
                 + both + "```\n"},
        {"text": "The command line gets `--max-length`.\n\nslugkit/__main__.py\n```python\n"
                 + cli + "```\n"},
        AIDER[3],
    ]


AIDER_ARCHITECT = [
    # Architect mode: the architect's reply (prose, a snippet after the file's name, which
    # Aider does not apply), then the editor model's SEARCH/REPLACE blocks (editor-diff).
    {"text": "Give `slugify` a keyword-only `max_length` and cut the slug at the last hyphen "
             "that fits:\n\nslugkit/core.py\n```python\n" + SIG_NEW + "\n    ...\n```\n"},
    {"text": block("slugkit/core.py", SIG_OLD, SIG_NEW) + "\n"
             + block("slugkit/core.py", BODY_OLD, BODY_NEW)},
    {"text": "Add `--max-length` to the command line and pass it to `slugify`."},
    {"text": block("slugkit/__main__.py", ARG_OLD, ARG_NEW) + "\n"
             + block("slugkit/__main__.py", CALL_OLD, CALL_NEW)},
]


MINI_V2 = [  # tool calls (mini-swe-agent 2.x's default LitellmModel)
    {"text": "Let me read the code first.",
     "calls": [("bash", {"command": "cat slugkit/core.py slugkit/__main__.py"})]},
    {"text": "I'll add `max_length` to `slugify`.",
     "calls": [("bash", {"command": heredoc("slugkit/core.py", SIG_OLD, SIG_NEW) + "\n"
                         + heredoc("slugkit/core.py", BODY_OLD, BODY_NEW)})]},
    {"text": "Now the command line, and the tests.",
     "calls": [("bash", {"command": heredoc("slugkit/__main__.py", ARG_OLD, ARG_NEW) + "\n"
                         + heredoc("slugkit/__main__.py", CALL_OLD, CALL_NEW)}),
               ("bash", {"command": CHECK + " && python3 -m pytest -q tests"})]},
    {"text": "The feature is done.",
     "calls": [("bash", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"})]},
]

MINI_V1 = [  # one bash block per reply (1.x); the third reply has two: a format error
    {"text": "THOUGHT: Let me read the code first.\n\n```bash\n"
             "cat slugkit/core.py slugkit/__main__.py\n```"},
    {"text": "THOUGHT: I'll add `max_length` to `slugify`.\n\n```bash\n"
             + heredoc("slugkit/core.py", SIG_OLD, SIG_NEW) + "\n"
             + heredoc("slugkit/core.py", BODY_OLD, BODY_NEW) + "\n```"},
    {"text": "THOUGHT: The command line, and the tests.\n\n```bash\n"
             + heredoc("slugkit/__main__.py", ARG_OLD, ARG_NEW) + "\n```\n\n```bash\n"
             "python3 -m pytest -q tests\n```"},
    {"text": "THOUGHT: One command at a time then.\n\n```bash\n"
             + heredoc("slugkit/__main__.py", ARG_OLD, ARG_NEW) + "\n"
             + heredoc("slugkit/__main__.py", CALL_OLD, CALL_NEW) + "\n"
             + CHECK + " && python3 -m pytest -q tests\n```"},
    {"text": "THOUGHT: The feature is done.\n\n```bash\n"
             "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
]

#: mini-swe-agent 2.x's text-based model (``-c mini_textbased.yaml --model-class
#: litellm_textbased``): the same replies in its own fence.
MINI_V2_TEXT = [{"text": r["text"].replace("```bash\n", "```mswea_bash_command\n")}
                for r in MINI_V1]

OPENHANDS = [  # the OpenHands SDK's tools: terminal, file_editor, finish
    {"text": "Let me look at the code.",
     "calls": [("terminal", {"command": "cat slugkit/core.py slugkit/__main__.py"})]},
    {"text": "", "calls": [("file_editor", {"command": "str_replace",
                                            "path": "{repo}/slugkit/core.py",
                                            "old_str": SIG_OLD, "new_str": SIG_NEW}),
                           ("file_editor", {"command": "str_replace",
                                            "path": "{repo}/slugkit/core.py",
                                            "old_str": BODY_OLD, "new_str": BODY_NEW})]},
    {"text": "Now the command line.",
     "calls": [("file_editor", {"command": "str_replace", "path": "{repo}/slugkit/__main__.py",
                                "old_str": ARG_OLD, "new_str": ARG_NEW}),
               ("file_editor", {"command": "str_replace", "path": "{repo}/slugkit/__main__.py",
                                "old_str": CALL_OLD, "new_str": CALL_NEW})]},
    {"text": "Run the check and the tests.",
     "calls": [("terminal", {"command": CHECK + " && python3 -m pytest -q tests"})]},
    {"text": "", "calls": [("finish", {"message": "Added max_length and --max-length."})]},
]

WEAK_REPLY = {"text": "feat: Add max_length to slugify and --max-length"}

SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "aider": AIDER, "mini-v2": MINI_V2, "mini-v1": MINI_V1, "openhands": OPENHANDS,
    "aider-whole": [],  # made from the repository: aider_whole()
    "aider-architect": AIDER_ARCHITECT, "mini-v2-text": MINI_V2_TEXT}
BASES = {"aider": 2100, "aider-whole": 2100, "aider-architect": 2100, "mini-v2": 3300,
         "mini-v2-text": 3900, "mini-v1": 4400, "openhands": 5500}


def usage_of(base: int, n: int, chars: int, dialect: str = "openai") -> dict[str, Any]:
    """The usage billed for reply ``n``; DeepSeek's API adds ``prompt_cache_hit_tokens`` and
    ``prompt_cache_miss_tokens`` (hit + miss = prompt_tokens) to OpenAI's fields; the
    ``anthropic`` dialect also writes ``256 * n`` tokens to the cache (inside prompt_tokens
    here, apart from ``input_tokens`` on Anthropic's wire)."""
    prompt = base + 1000 * n + 37 * n * n
    cached = 0 if n == 1 else 512 * (n - 1)
    output = 40 + 23 * n + chars // 2
    usage: dict[str, Any] = {
        "prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}}
    if dialect == "deepseek":
        usage.update(prompt_cache_hit_tokens=cached, prompt_cache_miss_tokens=prompt - cached)
    usage["cache_write_tokens"] = 256 * n if dialect == "anthropic" else 0  # the log's own
    return usage


def anthropic_usage(usage: dict[str, Any]) -> dict[str, int]:
    """The same figures in Anthropic's Messages API terms: ``input_tokens`` is the uncached
    input alone, the cache reads and writes apart."""
    read, write = usage["prompt_tokens_details"]["cached_tokens"], usage["cache_write_tokens"]
    return {"input_tokens": usage["prompt_tokens"] - read - write,
            "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
            "output_tokens": usage["completion_tokens"]}


# --------------------------------------------------------------------------------------------
# The server.

class Scripted:
    def __init__(self, script: str, log: Path, fill: dict[str, str] | None = None,
                 requests: Path | None = None, dialect: str = "openai",
                 replies: list[dict[str, Any]] | None = None) -> None:
        self.dialect = dialect
        self.replies = replies or SCRIPTS[script]
        self.base = BASES[script]
        self.log = log
        self.fill = fill or {}
        self.requests = requests
        self.n = 0  # replies sent
        self.k = 0  # the script's replies sent
        self.lock = threading.Lock()

    def next(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, Any]]:
        with self.lock:
            self.n += 1
            n = self.n
            side = str(body.get("model", "")).endswith("-mini")
            self.k += not side
            k = self.k
        # Aider's weak model (gpt-4o-mini: commit messages) gets a reply of its own, and the
        # script goes on where it was.
        reply = WEAK_REPLY if side else self.replies[min(k, len(self.replies)) - 1]
        text = reply.get("text", "")
        calls = []
        for i, (name, args) in enumerate(reply.get("calls", [])):
            args = {k: (v.format(**self.fill) if isinstance(v, str) else v)
                    for k, v in args.items()}
            calls.append({"id": f"call_{n:02d}_{i}", "type": "function",
                          "function": {"name": name, "arguments": json.dumps(args)}})
        if self.requests is not None:
            self.requests.mkdir(parents=True, exist_ok=True)
            (self.requests / f"{n:03d}.json").write_text(json.dumps(body, indent=1))
        return n, {"text": text, "calls": calls}, usage_of(
            self.base, n, len(text) + sum(len(c["function"]["arguments"]) for c in calls),
            self.dialect)

    def record(self, entry: dict[str, Any]) -> None:
        with self.lock, self.log.open("a") as f:
            f.write(json.dumps(entry) + "\n")


def make_handler(scripted: Scripted) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _json(self, status: int, data: Any) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"object": "list", "data": [
                    {"id": MODEL, "object": "model", "created": 1700000000, "owned_by": "arena"}]})
            else:
                self._json(404, {"error": {"message": f"no {self.path}"}})

        def _anthropic(self, body: dict[str, Any]) -> None:
            """Anthropic's Messages API (text replies only: Aider's), streamed or not."""
            n, reply, usage = scripted.next(body)
            stream = bool(body.get("stream"))
            rid = f"msg_scripted_{n:03d}_{uuid.uuid4().hex[:8]}"
            model = body.get("model", MODEL)
            wire = anthropic_usage(usage)
            scripted.record({
                "n": n, "time": time.time(), "id": rid, "model": model, "stream": stream,
                "usage_sent": True, "messages": len(body.get("messages") or []),
                "tools_offered": [t.get("name") for t in body.get("tools") or []],
                "prompt_tokens": usage["prompt_tokens"],
                "cached_tokens": wire["cache_read_input_tokens"],
                "cache_write_tokens": wire["cache_creation_input_tokens"],
                "completion_tokens": usage["completion_tokens"], "tool_calls": [],
                "bash_blocks": reply["text"].count("```bash\n")
                + reply["text"].count("```mswea_bash_command\n"),
                "search_replace_blocks": reply["text"].count("<<<<<<< SEARCH\n"),
                "fenced_blocks": reply["text"].count("\n```python\n"),
                "text": reply["text"][:80],
            })
            message = {"id": rid, "type": "message", "role": "assistant", "model": model,
                       "content": [{"type": "text", "text": reply["text"]}],
                       "stop_reason": "end_turn", "stop_sequence": None, "usage": wire}
            if not stream:
                self._json(200, message)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True

            def event(kind: str, data: dict[str, Any]) -> None:
                self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            start = {**message, "content": [], "stop_reason": None,
                     "usage": {**wire, "output_tokens": 1}}
            event("message_start", {"type": "message_start", "message": start})
            event("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}})
            text = reply["text"]
            for at in range(0, len(text), 40):
                event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                              "delta": {"type": "text_delta",
                                                        "text": text[at:at + 40]}})
            event("content_block_stop", {"type": "content_block_stop", "index": 0})
            event("message_delta", {"type": "message_delta",
                                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                    "usage": {"output_tokens": wire["output_tokens"]}})
            event("message_stop", {"type": "message_stop"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/").endswith("/v1/messages"):
                self._anthropic(body)
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._json(404, {"error": {"message": f"no {self.path}"}})
                return
            n, reply, usage = scripted.next(body)
            stream = bool(body.get("stream"))
            options = body.get("stream_options") or {}
            with_usage = (not stream) or bool(options.get("include_usage"))
            rid = f"chatcmpl-scripted-{n:03d}-{uuid.uuid4().hex[:8]}"
            created = int(time.time())
            model = body.get("model", MODEL)
            finish = "tool_calls" if reply["calls"] else "stop"
            message: dict[str, Any] = {"role": "assistant", "content": reply["text"] or None}
            if reply["calls"]:
                message["tool_calls"] = reply["calls"]
            scripted.record({
                "n": n, "time": time.time(), "id": rid, "model": model, "stream": stream,
                "usage_sent": with_usage, "messages": len(body.get("messages") or []),
                "tools_offered": [t.get("function", {}).get("name")
                                  for t in body.get("tools") or []],
                "prompt_tokens": usage["prompt_tokens"],
                "cached_tokens": usage["prompt_tokens_details"]["cached_tokens"],
                "cache_write_tokens": usage["cache_write_tokens"],
                "completion_tokens": usage["completion_tokens"],
                "tool_calls": [c["function"]["name"] for c in reply["calls"]],
                "bash_blocks": reply["text"].count("```bash\n")
                + reply["text"].count("```mswea_bash_command\n"),
                "search_replace_blocks": reply["text"].count("<<<<<<< SEARCH\n"),
                "fenced_blocks": reply["text"].count("\n```python\n"),
                "text": reply["text"][:80],
            })
            openai_usage = {k: v for k, v in usage.items() if k != "cache_write_tokens"}
            if not stream:
                self._json(200, {"id": rid, "object": "chat.completion", "created": created,
                                 "model": model, "system_fingerprint": "fp_scripted",
                                 "choices": [{"index": 0, "message": message, "logprobs": None,
                                              "finish_reason": finish}],
                                 "usage": openai_usage})
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True

            def chunk(choices: list[dict[str, Any]], **extra: Any) -> None:
                data = {"id": rid, "object": "chat.completion.chunk", "created": created,
                        "model": model, "system_fingerprint": "fp_scripted", "choices": choices}
                data.update(extra)
                self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
                self.wfile.flush()

            chunk([{"index": 0, "delta": {"role": "assistant", "content": ""},
                    "finish_reason": None}])
            text = reply["text"]
            for start in range(0, len(text), 40):
                chunk([{"index": 0, "delta": {"content": text[start:start + 40]},
                        "finish_reason": None}])
            for i, call in enumerate(reply["calls"]):
                chunk([{"index": 0, "delta": {"tool_calls": [{
                    "index": i, "id": call["id"], "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": ""}}]},
                    "finish_reason": None}])
                chunk([{"index": 0, "delta": {"tool_calls": [{
                    "index": i, "function": {"arguments": call["function"]["arguments"]}}]},
                    "finish_reason": None}])
            chunk([{"index": 0, "delta": {}, "finish_reason": finish}])
            if with_usage:
                chunk([], usage=openai_usage)
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


def start(script: str, log: Path, port: int = 0, fill: dict[str, str] | None = None,
          requests: Path | None = None, dialect: str = "openai",
          replies: list[dict[str, Any]] | None = None) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(
        Scripted(script, log, fill, requests, dialect, replies)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def summary(log: Path) -> dict[str, Any]:
    """The ground truth of a capture: every reply the server sent and the totals. Tool calls
    are the replies' API tool calls, and for text replies (mini-swe-agent 1.x) the replies
    with exactly one bash block (the only ones 1.x runs). Aider's edits are its replies'
    SEARCH/REPLACE blocks, or in the whole edit format their fenced files (it has no tool
    calls)."""
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    billed = rows  # every reply is billed, its usage sent to the client or not
    blocks = [r.get("bash_blocks", 0) for r in rows]
    return {
        "replies": rows,
        "totals": {
            "replies": len(rows),
            "replies_with_usage": sum(1 for r in rows if r["usage_sent"]),
            "uncached": sum(r["prompt_tokens"] - r["cached_tokens"]
                            - r.get("cache_write_tokens", 0) for r in billed),
            "cache_read": sum(r["cached_tokens"] for r in billed),
            "cache_write": sum(r.get("cache_write_tokens", 0) for r in billed),
            "output": sum(r["completion_tokens"] for r in billed),
            "tool_calls": sum(len(r["tool_calls"]) for r in rows),
            "single_bash_block_replies": sum(1 for b in blocks if b == 1),
            "search_replace_blocks": sum(r.get("search_replace_blocks", 0) for r in rows),
            "fenced_blocks": sum(r.get("fenced_blocks", 0) for r in rows),
            "models": sorted({r["model"] for r in rows}),
            "seconds_first_to_last": round(rows[-1]["time"] - rows[0]["time"], 3) if rows else 0,
        },
    }


# --------------------------------------------------------------------------------------------
# The drivers.

TOOLS = Path(os.environ.get("ARENA_TOOLS", "/tmp/tools"))
REPO_ROOT = Path(__file__).resolve().parents[2]
TASK = "slugkit-options"
BASE_COMMIT = "463f4e7a5841c75a34c8fdf202e820a0c662cf6d"
PROMPT = ("Add a keyword-only max_length option to slugify() in slugkit/core.py (cut the slug "
          "between words) and a --max-length option to the command line.")


def scratch(root: Path) -> tuple[Path, Path]:
    """The task's repository at its base commit (a git clone of its bundle) and a scratch
    HOME."""
    if root.exists():
        shutil.rmtree(root)
    repo, home = root / "repo", root / "home"
    root.mkdir(parents=True)
    home.mkdir()
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT / "dataset" / TASK / "repo.bundle"),
                    str(repo)], check=True)
    subprocess.run(["git", "checkout", "-q", BASE_COMMIT], cwd=repo, check=True)
    subprocess.run(["git", "config", "user.name", "arena"], cwd=repo, check=True)
    subprocess.run(["git", "config", "user.email", "arena@example.invalid"], cwd=repo, check=True)
    return repo, home


def base_env(home: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI", "ANTHROPIC", "LITELLM", "AIDER", "MSWEA", "LLM_"))}
    base = f"http://127.0.0.1:{port}/v1"
    env.update({
        "HOME": str(home), "OPENAI_API_KEY": "sk-fake-arena-capture", "OPENAI_API_BASE": base,
        "OPENAI_BASE_URL": base, "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_TELEMETRY": "False", "DO_NOT_TRACK": "1", "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost", "TERM": "dumb", "PYTHONUNBUFFERED": "1",
    })
    return env


def run(cmd: list[str], *, cwd: Path, env: dict[str, str], log: Path,
        stdin: str | None = None) -> None:
    print("$", " ".join(cmd), file=sys.stderr)
    with log.open("a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        done = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                              input=stdin, text=True, timeout=600)
    print("  exit", done.returncode, file=sys.stderr)


def capture_aider(work: Path, out: Path, *, stream: bool, provider: str,
                  binary: str | None = None, edit_format: str | None = None,
                  commits: bool = False) -> None:
    """Three Aider sessions (``--message``) in one repository: one history, one analytics
    log. ``provider`` ``openai`` (model openai/gpt-4o), ``deepseek`` (deepseek/deepseek-chat,
    DeepSeek's usage fields) or ``anthropic`` (claude-sonnet-4-5 over Anthropic's Messages
    API, cache reads and writes apart). ``edit_format`` ``whole``: ``--edit-format whole`` and
    replies giving whole files."""
    repo, home = scratch(work)
    truth = out / "truth.jsonl"
    script = f"aider-{edit_format}" if edit_format in ("whole", "architect") else "aider"
    server = start(script, truth, requests=work / "requests", dialect=provider,
                   replies=aider_whole(repo) if edit_format == "whole" else None)
    env = base_env(home, server.server_port)
    env["DEEPSEEK_API_BASE"] = env["OPENAI_API_BASE"]
    env["DEEPSEEK_API_KEY"] = env["OPENAI_API_KEY"]
    env["ANTHROPIC_API_BASE"] = env["ANTHROPIC_BASE_URL"] = env["OPENAI_API_BASE"][:-3]
    env["ANTHROPIC_API_KEY"] = "sk-ant-fake-arena-capture"
    model = {"openai": f"openai/{MODEL}", "deepseek": "deepseek/deepseek-chat",
             "anthropic": "anthropic/claude-sonnet-4-5-20250929"}[provider]
    aider = binary or str(TOOLS / "aider/bin/aider")
    common = [aider, "--model", model, "--openai-api-base", env["OPENAI_API_BASE"],
              "--yes-always", "--auto-commits" if commits else "--no-auto-commits",
              "--analytics-disable", "--no-check-update",
              "--no-show-release-notes",
              "--no-show-model-warnings", "--analytics-log", str(work / "aider-analytics.jsonl"),
              "--no-pretty", "--stream" if stream else "--no-stream",
              "--no-detect-urls", "--test-cmd", CHECK,
              "--auto-test", "--no-fancy-input"]
    if edit_format == "architect":  # the architect's and the editor's replies in turn
        common += ["--architect", "--editor-model", model, "--auto-accept-architect"]
        log = out / "tool.log"
        run([*common, "--message", "Add a keyword-only max_length option to slugify(): cut "
             "the slug between words.", "slugkit/core.py"], cwd=repo, env=env, log=log)
        run([*common, "--message", "Add a --max-length option to the command line.",
             "slugkit/__main__.py"], cwd=repo, env=env, log=log)
        server.shutdown()
        shutil.copy(repo / ".aider.chat.history.md", out / ".aider.chat.history.md")
        shutil.copy(work / "aider-analytics.jsonl", out / "aider-analytics.jsonl")
        subprocess.run(["git", "diff"], cwd=repo, stdout=(out / "repo.diff").open("w"),
                       check=True)
        return
    if edit_format:
        common += ["--edit-format", edit_format]
    log = out / "tool.log"
    run([*common, "--message", "Add a keyword-only max_length option to slugify(): cut the "
         "slug between words.", "slugkit/core.py"], cwd=repo, env=env, log=log)
    run([*common, "--message", "Add a --max-length option to the command line.",
         "slugkit/__main__.py"], cwd=repo, env=env, log=log)
    run([*common, "--message", "What does slugify('Hello big world', max_length=9) return?"],
        cwd=repo, env=env, log=log)
    server.shutdown()
    shutil.copy(repo / ".aider.chat.history.md", out / ".aider.chat.history.md")
    shutil.copy(work / "aider-analytics.jsonl", out / "aider-analytics.jsonl")
    subprocess.run(["git", "diff"], cwd=repo, stdout=(out / "repo.diff").open("w"), check=True)


def capture_mini(version: str, work: Path, out: Path, *, text: bool = False) -> None:
    """mini-swe-agent ``version`` (``v2``: /tmp/tools/mini2, ``v1``: mini1); ``text``: 2.x's
    text-based model instead of its tool calls."""
    repo, home = scratch(work)
    truth = out / "truth.jsonl"
    server = start(f"mini-{version}" + ("-text" if text else ""), truth,
                   requests=work / "requests")
    env = base_env(home, server.server_port)
    env.update({"MSWEA_CONFIGURED": "true", "MSWEA_COST_TRACKING": "ignore_errors",
                "MSWEA_SILENT_STARTUP": "1", "MSWEA_GLOBAL_CONFIG_DIR": str(home / "mswea")})
    mini = str(TOOLS / f"mini{version[-1]}/bin/mini")
    traj = out / (f"mini-{version}" + ("-text" if text else "") + ".traj.json")
    cmd = [mini, "-m", f"openai/{MODEL}", "-t", PROMPT,
           "-y", "--exit-immediately", "-o", str(traj)]
    if version == "v2" and text:
        cmd += ["-c", "mini_textbased.yaml", "--model-class", "litellm_textbased",
                "-c", f"model.model_kwargs.api_base={env['OPENAI_API_BASE']}"]
    elif version == "v2":
        cmd += ["-c", "mini.yaml", "-c", f"model.model_kwargs.api_base={env['OPENAI_API_BASE']}"]
    else:
        cmd += ["-c", "mini.yaml"]
    run(cmd, cwd=repo, env=env, log=out / "tool.log")
    server.shutdown()
    subprocess.run(["git", "diff"], cwd=repo, stdout=(out / "repo.diff").open("w"), check=True)


OPENHANDS_DRIVER = r'''
import os, sys
from pydantic import SecretStr
from openhands.sdk import LLM, Agent, Conversation, Tool
from openhands.tools.terminal import TerminalTool
from openhands.tools.file_editor import FileEditorTool

repo, persist, base, prompt, stream = sys.argv[1:6]
llm = LLM(model="openai/gpt-4o", base_url=base, api_key=SecretStr("sk-fake-arena-capture"),
          usage_id="agent", num_retries=0, stream=stream == "stream")
agent = Agent(llm=llm, tools=[Tool(name=TerminalTool.name), Tool(name=FileEditorTool.name)])
conversation = Conversation(agent=agent, workspace=repo, persistence_dir=persist,
                            visualizer=None,
                            token_callbacks=[lambda chunk: None] if stream == "stream" else None)
conversation.send_message(prompt)
conversation.run()
print("conversation", conversation.id)
'''


def capture_openhands(work: Path, out: Path, *, stream: bool = False) -> None:
    """A LocalConversation of the OpenHands SDK (terminal, file_editor) persisted to
    ``out/conversations``; ``stream``: the LLM streams (the SDK then asks for the usage in
    the last chunk)."""
    repo, home = scratch(work)
    truth = out / "truth.jsonl"
    server = start("openhands", truth, fill={"repo": str(repo)}, requests=work / "requests")
    env = base_env(home, server.server_port)
    env.update({"OPENHANDS_SUPPRESS_BANNER": "1", "LOG_LEVEL": "WARNING"})
    driver = work / "driver.py"
    driver.write_text(OPENHANDS_DRIVER)
    persist = out / "conversations"
    run([str(TOOLS / "openhands/bin/python"), str(driver), str(repo), str(persist),
         env["OPENAI_BASE_URL"], PROMPT, "stream" if stream else "no-stream"],
        cwd=repo, env=env, log=out / "tool.log")
    server.shutdown()
    # The one file the formats page tells contributors to make of the folder.
    for folder in persist.iterdir():
        with (out / "transcript.jsonl").open("w") as made:
            subprocess.run("jq -c . base_state.json events/event-*.json", shell=True,
                           cwd=folder, stdout=made, check=True)
    subprocess.run(["git", "diff"], cwd=repo, stdout=(out / "repo.diff").open("w"), check=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    serve = sub.add_parser("serve")
    serve.add_argument("--script", choices=sorted(SCRIPTS), required=True)
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--log", type=Path, required=True)
    cap = sub.add_parser("capture")
    cap.add_argument("tool", choices=["aider", "mini-v2", "mini-v2-text", "mini-v1",
                                      "openhands"])
    cap.add_argument("--stream", action="store_true", help="aider: stream the replies (its "
                     "default; it then asks for no usage and estimates the tokens itself); "
                     "openhands: the LLM streams")
    cap.add_argument("--provider", choices=["openai", "deepseek", "anthropic"],
                     default="openai")
    cap.add_argument("--auto-commits", action="store_true", help="aider: commit each edit "
                     "(a commit message from the weak model, a model call of its own)")
    cap.add_argument("--edit-format", default=None, choices=["whole", "diff", "architect"],
                     help="aider: --edit-format (architect: --architect, two sessions), "
                     "and replies in that format")
    cap.add_argument("--aider", default=None, help="aider: the executable (default: "
                     "/tmp/tools/aider/bin/aider), e.g. an older version's venv")
    cap.add_argument("--out", type=Path, required=True)
    cap.add_argument("--work", type=Path, default=None)
    summ = sub.add_parser("summary")
    summ.add_argument("log", type=Path)
    summ.add_argument("--write", type=Path, help="write the ground truth (JSON) here")
    args = parser.parse_args()
    if args.what == "serve":
        server = start(args.script, args.log, args.port)
        print(f"serving {args.script} on http://127.0.0.1:{server.server_port}/v1", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            server.shutdown()
    elif args.what == "summary":
        truth = summary(args.log)
        if args.write:
            args.write.write_text(json.dumps(truth, indent=1) + "\n")
        print(json.dumps(truth["totals"], indent=1))
    else:
        out = args.out.resolve()
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        work = (args.work or Path(f"/tmp/capture-{args.tool}")).resolve()
        if args.tool == "aider":
            capture_aider(work, out, stream=args.stream, provider=args.provider,
                          binary=args.aider, edit_format=args.edit_format,
                          commits=args.auto_commits)
        elif args.tool.startswith("mini"):
            capture_mini(args.tool.split("-")[1], work, out, text=args.tool.endswith("-text"))
        else:
            capture_openhands(work, out, stream=args.stream)
        truth = summary(out / "truth.jsonl")
        (out / "ground_truth.json").write_text(json.dumps(truth, indent=1) + "\n")
        print(json.dumps(truth["totals"], indent=1))


if __name__ == "__main__":
    main()
