#!/usr/bin/env python3
"""Capture real Codex CLI transcripts against a scripted model server (standard library only).

The server speaks OpenAI's Responses API (``POST /v1/responses``, ``stream: true``, SSE events
``response.created``, ``response.output_item.added``/``done``, ``response.output_text.delta``,
``response.completed`` with ``usage``) and Chat Completions (``POST /v1/chat/completions``,
streamed chunks, usage in the last chunk) for Codex versions configured with
``wire_api = "chat"``. It answers from a fixed script: shell commands in a scratch git
repository, an ``apply_patch``, an ``update_plan``, a last command, then a final message; each
billed reply carries different, known usage figures, logged one JSON object a line
(``ground-truth.jsonl``) with the tool calls it made.

The script adapts to the tools Codex offers in the request (``exec_command`` /
``shell_command`` / ``shell``; ``apply_patch`` as a freeform custom tool or a function, or
through the shell when Codex offers no such tool).

Usage::

    python3 scripts/capture/codex.py capture --codex /tmp/tools/codex/node_modules/.bin/codex \\
        --out /tmp/codexcap/0.169.0 [--wire responses|chat] [--model gpt-5-codex]
    python3 scripts/capture/codex.py serve --port 8765 --log /tmp/gt.jsonl

``capture`` runs, each in its own scratch CODEX_HOME/HOME and git repository:
``exec`` (``codex exec``: rollout), ``json`` (``codex exec --json``: stdout and rollout),
``resume`` (``codex exec resume --last --json`` after a first ``codex exec``), and with
``--faults``: ``fail500`` (the second reply answered HTTP 500 every time), ``cut`` (the
second reply's stream cut before ``response.completed``), ``sigint`` / ``sigkill`` (Codex
interrupted while a reply streams slowly). Each folder gets the rollout file(s), stdout,
stderr, the server's ground truth and ``ground-truth-summary.json`` (the billed sums).

Other runs: ``--task BUNDLE@COMMIT`` works in a clone of a task's repository (the SLUGKIT
script: an apply_patch that ``arena submit`` ties to the working tree), ``--spawn`` has the
model spawn a sub-agent (Codex 0.169 ``multi_agent_v1``, offered for models without Codex's
own metadata: ``--model gpt-5-codex``), ``--wire chat`` configures a Chat Completions
provider. Environment: ``CAPTURE_CACHE_WRITES=1`` bills cache writes too,
``CAPTURE_USAGE_BY_CONTEXT=1`` makes input tokens follow the request's context (with
``CAPTURE_EXTRA_CONFIG='model_auto_compact_token_limit = 7000'``, top-level config keys, Codex
compacts once), ``CAPTURE_DUMP=1`` keeps every request body. Codex's plugin sync and any other
network access go to a dead proxy (HTTPS_PROXY=127.0.0.1:9); only 127.0.0.1 is reachable.

Captured here (tests/transcripts/corpus/codex/codex-<version>-<what>/): Codex CLI 0.39.0,
0.80.0 and 0.169.0 from npm.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MODEL = "gpt-5-codex"

PATCH = """*** Begin Patch
*** Update File: calc.py
@@
 def add(a, b):
-    return a - b
+    return a + b
*** End Patch
"""

PLAN = {"explanation": "fix add", "plan": [
    {"step": "look at the repository", "status": "completed"},
    {"step": "fix add in calc.py", "status": "completed"},
    {"step": "run the check", "status": "in_progress"}]}

#: The main script: what the model does after 0, 1, 2, ... tool results in the current turn.
MAIN_SCRIPT = [
    ("shell", "git status --short && ls && cat calc.py"),
    ("patch", PATCH),
    ("plan", PLAN),
    ("shell", "python3 -c 'import calc; print(calc.add(2, 3))' && git diff --stat"),
    ("final", "Fixed `add` in calc.py (it subtracted); `calc.add(2, 3)` now prints 5."),
]
#: The resumed turn's script (a prompt containing RESUME).
RESUME_SCRIPT = [
    ("shell", "git diff"),
    ("final", "The fix is still in place: `add` returns a + b."),
]


TASK_PATCH = """*** Begin Patch
*** Update File: slugkit/core.py
@@
 def slugify(text: str) -> str:
-    \"\"\"Return a lowercase ASCII slug of ``text``, words joined by hyphens.
+    \"\"\"Return a lowercase ASCII slug of ``text``, words joined by single hyphens.
*** Add File: slugkit/notes_helper.py
+HELPER = True
*** End Patch
"""
#: The script for a run in a task's working tree (a prompt containing SLUGKIT): the edits
#: `arena submit` ties to the working tree's patch.
TASK_SCRIPT = [
    ("shell", "git status --short && sed -n 1,30p slugkit/core.py"),
    ("patch", TASK_PATCH),
    ("plan", PLAN),
    ("shell", "python3 -c 'import slugkit.core as c; print(c.slugify(\"Hello, World!\"))'"
              " && git diff --stat"),
    ("final", "Reworded the slugify docstring and added slugkit/notes_helper.py."),
]

#: A run with a sub-agent (a prompt containing SPAWN; Codex 0.169's multi_agent_v1 tools,
#: offered for models without their own metadata, e.g. gpt-5-codex): spawn, wait, answer.
SPAWN_SCRIPT = [
    ("spawn", "SUBTASK: list the repository's files and say how many there are."),
    ("wait", None),
    ("final", "The sub-agent listed the files; nothing to change."),
]
#: The sub-agent's script (its prompt contains SUBTASK).
SUB_SCRIPT = [
    ("shell", "ls -1 | wc -l"),
    ("final", "There are 2 files."),
]

#: Bill a cache write too (``input_tokens_details.cache_write_tokens``, part of
#: ``input_tokens`` like ``cached_tokens``): OpenAI bills none, other Responses providers may.
CACHE_WRITES = os.environ.get("CAPTURE_CACHE_WRITES") == "1"


#: Input tokens that follow the request's context (its number of input items) rather than
#: the reply's number, so that a compaction shrinks them (for model_auto_compact_token_limit).
BY_CONTEXT = os.environ.get("CAPTURE_USAGE_BY_CONTEXT") == "1"
#: Past this many billed replies the server only answers with a final message (a runaway
#: loop of Codex's, e.g. compacting after every reply, ends).
MAX_REPLIES = 40


def usage_for(number: int, items: int = 0) -> dict[str, int]:
    """Known, different figures for billed reply ``number`` (1-based) to a request of
    ``items`` input items."""
    input_tokens = 2000 + 500 * items + 7 * number if BY_CONTEXT else 3000 + 1111 * number
    cached = 0 if number == 1 else 1024 * (number - 1)
    if BY_CONTEXT:  # never more cache reads than input
        cached = min(cached, input_tokens // 2)
    output = 40 + 13 * number
    reasoning = 8 + 3 * number
    usage = {"input_tokens": input_tokens, "cached_tokens": cached,
             "output_tokens": output, "reasoning_tokens": reasoning,
             "total_tokens": input_tokens + output}
    if CACHE_WRITES:
        usage["cache_write_tokens"] = 200 + 10 * number
    return usage


class Script:
    """Server state: the reply counter, the log, the faults to inject."""

    def __init__(self, log: Path, fail_at: set[int], cut_at: set[int], slow_at: set[int],
                 model: str) -> None:
        self.log = log
        self.fail_at, self.cut_at, self.slow_at = fail_at, cut_at, slow_at
        self.model = model
        self.lock = threading.Lock()
        self.requests = 0  # model requests seen
        self.billed = 0  # replies that completed with usage
        self.attempts: dict[str, int] = {}

    def write(self, record: dict[str, Any]) -> None:
        with self.lock, self.log.open("a") as out:
            out.write(json.dumps(record) + "\n")


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


KEYWORDS = ("RESUME", "SLUGKIT", "SUBTASK", "SPAWN")


def plan_step(messages: list[dict[str, Any]]) -> tuple[list[Any], int, str]:
    """Which script, which step: the tool results since the last user message."""
    last_user = prompt_before = ""
    results = results_before = 0
    for item in messages:
        kind = item.get("type")
        role = item.get("role")
        if role == "user" and kind in (None, "message"):
            text = _text_of(item.get("content"))
            if "<environment_context>" in text or "AGENTS.md" in text or \
                    "<user_instructions>" in text or "<permissions" in text:
                continue  # context Codex sends as a user message, not the prompt
            if any(word in last_user for word in KEYWORDS) and not any(
                    word in text for word in KEYWORDS):
                continue  # a notice Codex adds (a sub-agent's news): the script goes on
            prompt_before, results_before = last_user, results
            last_user = text
            done = re.search(r"DONE-STEPS=(\d+)", text)
            results = int(done.group(1)) if done else 0  # the summary of a compaction
        elif kind in ("function_call_output", "custom_tool_call_output",
                      "local_shell_call_output") or role == "tool":
            results += 1
    script = RESUME_SCRIPT if "RESUME" in last_user else \
        TASK_SCRIPT if "SLUGKIT" in last_user else \
        SUB_SCRIPT if "SUBTASK" in last_user else \
        SPAWN_SCRIPT if "SPAWN" in last_user else MAIN_SCRIPT
    if "CONTEXT CHECKPOINT COMPACTION" in last_user or "Start Summarization" in last_user:
        # Codex compacting (0.169; 0.39): the summary carries the prompt and the steps done
        return [("summary", f"{prompt_before} DONE-STEPS={results_before}")], 0, last_user
    global LAST_OUTPUT
    outputs = [item for item in messages if item.get("type") == "function_call_output"]
    LAST_OUTPUT = str(outputs[-1].get("output")) if outputs else ""
    return script, min(results, len(script) - 1), last_user


LAST_OUTPUT = ""  # the latest function_call_output of the request being answered


def tool_names(tools: list[Any]) -> dict[str, str]:
    """name -> kind (``function``, ``custom``, ``local_shell``...) of the tools offered."""
    names: dict[str, str] = {}
    for tool in tools or []:
        if not isinstance(tool, dict):
            continue
        kind = str(tool.get("type", "function"))
        name = tool.get("name") or (tool.get("function") or {}).get("name") or kind
        names[str(name)] = kind
    return names


def shell_call(names: dict[str, str], command: str) -> tuple[str, str]:
    """(tool name, JSON arguments) running ``command`` with the shell tool offered."""
    if "exec_command" in names:
        return "exec_command", json.dumps({"cmd": command, "yield_time_ms": 10000})
    if "shell_command" in names:
        return "shell_command", json.dumps({"command": command, "timeout_ms": 10000})
    return "shell", json.dumps({"command": ["bash", "-lc", command], "timeout_ms": 10000})


def action(script: list[Any], step: int, names: dict[str, str], number: int
           ) -> dict[str, Any]:
    """The reply's item: ``{"kind": "message"|"function"|"custom", ...}``."""
    what, value = script[step]
    call_id = f"call_{number:03d}"
    if what in ("final", "summary"):
        return {"kind": "message", "text": value}
    if what == "spawn":
        return {"kind": "function", "name": "spawn_agent", "namespace": "multi_agent_v1",
                "arguments": json.dumps({"message": value}), "call_id": call_id}
    if what == "wait":
        found = re.search(r'"?(?:agent_id|id)"?\s*[:=]\s*"([^"]+)"', LAST_OUTPUT) or \
            re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                      LAST_OUTPUT)
        target = found.group(found.lastindex or 0) if found else "unknown"
        return {"kind": "function", "name": "wait_agent", "namespace": "multi_agent_v1",
                "arguments": json.dumps({"targets": [target], "timeout_ms": 60000}),
                "call_id": call_id}
    if what == "plan":
        if "update_plan" in names:
            return {"kind": "function", "name": "update_plan", "arguments": json.dumps(value),
                    "call_id": call_id}
        what, value = "shell", "git log --oneline | head -3"
    if what == "patch":
        if names.get("apply_patch") == "custom":
            return {"kind": "custom", "name": "apply_patch", "input": value,
                    "call_id": call_id}
        if "apply_patch" in names:
            return {"kind": "function", "name": "apply_patch",
                    "arguments": json.dumps({"input": value}), "call_id": call_id}
        name = "exec_command" if "exec_command" in names else \
            "shell_command" if "shell_command" in names else "shell"
        if name == "shell":
            return {"kind": "function", "name": "shell", "call_id": call_id,
                    "arguments": json.dumps({"command": ["apply_patch", value]})}
        name, arguments = shell_call(names, f"apply_patch <<'EOF'\n{value}EOF")
        return {"kind": "function", "name": name, "arguments": arguments, "call_id": call_id}
    name, arguments = shell_call(names, value)
    return {"kind": "function", "name": name, "arguments": arguments, "call_id": call_id}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script: Script  # set on the subclass

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write("server: " + format % args + "\n")

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.script.write({"probe": "GET " + self.path})
        if self.path.rstrip("/").endswith("/models") or "/models?" in self.path:
            model = self.script.model
            self._json(200, {"object": "list", "data": [
                {"id": model, "object": "model", "created": 1700000000, "owned_by": "scripted"}],
                "models": []})
            return
        self._json(404, {"error": {"message": f"no {self.path} here", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        if path.endswith("/responses"):
            self._model_call(body, "responses")
        elif path.endswith("/chat/completions"):
            self._model_call(body, "chat")
        else:
            self.script.write({"probe": "POST " + self.path})
            self._json(404, {"error": {"message": f"no {self.path} here"}})

    def _model_call(self, body: dict[str, Any], wire: str) -> None:
        script = self.script
        with script.lock:
            script.requests += 1
            request_number = script.requests
        messages = body.get("input") if wire == "responses" else body.get("messages")
        messages = messages if isinstance(messages, list) else []
        steps, step, prompt = plan_step(messages)
        names = tool_names(body.get("tools") or [])
        record: dict[str, Any] = {
            "request": request_number, "wire": wire, "model": body.get("model"),
            "stream": body.get("stream"), "tools_offered": sorted(names),
            "input_items": len(messages), "step": step, "prompt": prompt[:80],
            "script": "resume" if steps is RESUME_SCRIPT else "task" if steps is TASK_SCRIPT
            else "main",
        }
        if os.environ.get("CAPTURE_DUMP") == "1":  # every request body, for looking into
            (script.log.parent / f"request-{request_number:03d}.json").write_text(
                json.dumps(body, indent=1))
        if request_number in script.fail_at:
            record["status"] = "http-500"
            script.write(record)
            self._json(500, {"error": {"message": "scripted failure", "type": "server_error"}})
            return
        with script.lock:
            script.billed += 1
            number = script.billed
        if number > MAX_REPLIES:
            steps, step = [("final", "Stopping here (the server's reply limit).")], 0
        reply = action(steps, step, names, number)
        usage = usage_for(number, len(messages))
        record.update({"reply": number, "item": reply, "usage": usage})
        script.write({**record, "status": "streaming"})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            if wire == "responses":
                complete = self._stream_responses(reply, usage, number, request_number)
            else:
                complete = self._stream_chat(reply, usage, number, request_number,
                                             str(body.get("model") or script.model))
        except (BrokenPipeError, ConnectionResetError) as error:
            complete = False
            record["client_gone"] = repr(error)
        if not complete:
            with script.lock:  # nothing billed: the reply never completed
                script.billed -= 1 if script.billed == number else 0
            record["status"] = "cut"
            record.pop("usage")
        else:
            record["status"] = "billed"
        script.write(record)

    def _send(self, event: str, data: dict[str, Any]) -> None:
        data = {"type": event, **data}
        self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _stream_responses(self, reply: dict[str, Any], usage: dict[str, int], number: int,
                          request_number: int) -> bool:
        script = self.script
        response_id = f"resp_{number:03d}"
        base = {"id": response_id, "object": "response", "model": script.model,
                "created_at": int(time.time()), "status": "in_progress", "output": []}
        self._send("response.created", {"response": base})
        self._send("response.in_progress", {"response": base})
        if reply["kind"] == "message":
            item = {"type": "message", "id": f"msg_{number:03d}", "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": reply["text"], "annotations": []}]}
            self._send("response.output_item.added", {"output_index": 0, "item": {
                **item, "status": "in_progress", "content": []}})
            words = reply["text"].split(" ")
            for index, word in enumerate(words):
                self._send("response.output_text.delta", {
                    "item_id": item["id"], "output_index": 0, "content_index": 0,
                    "delta": word + (" " if index < len(words) - 1 else "")})
                if request_number in script.slow_at:
                    time.sleep(1.0)
        elif reply["kind"] == "custom":
            item = {"type": "custom_tool_call", "id": f"ctc_{number:03d}", "status": "completed",
                    "call_id": reply["call_id"], "name": reply["name"], "input": reply["input"]}
            self._send("response.output_item.added", {"output_index": 0, "item": {
                **item, "input": ""}})
            self._send("response.custom_tool_call_input.delta", {
                "item_id": item["id"], "output_index": 0, "delta": reply["input"]})
        else:
            item = {"type": "function_call", "id": f"fc_{number:03d}", "status": "completed",
                    "call_id": reply["call_id"], "name": reply["name"],
                    "arguments": reply["arguments"],
                    **({"namespace": reply["namespace"]} if "namespace" in reply else {})}
            self._send("response.output_item.added", {"output_index": 0, "item": {
                **item, "arguments": ""}})
            self._send("response.function_call_arguments.delta", {
                "item_id": item["id"], "output_index": 0, "delta": reply["arguments"]})
        if request_number in script.slow_at:
            time.sleep(30)
        if request_number in script.cut_at:
            return False  # the stream ends here: no output_item.done, no response.completed
        self._send("response.output_item.done", {"output_index": 0, "item": item})
        done = {**base, "status": "completed", "output": [item], "usage": {
            "input_tokens": usage["input_tokens"],
            "input_tokens_details": {"cached_tokens": usage["cached_tokens"], **(
                {"cache_write_tokens": usage["cache_write_tokens"]}
                if "cache_write_tokens" in usage else {})},
            "output_tokens": usage["output_tokens"],
            "output_tokens_details": {"reasoning_tokens": usage["reasoning_tokens"]},
            "total_tokens": usage["total_tokens"]}}
        self._send("response.completed", {"response": done})
        return True

    def _chunk(self, payload: dict[str, Any]) -> None:
        self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
        self.wfile.flush()

    def _stream_chat(self, reply: dict[str, Any], usage: dict[str, int], number: int,
                     request_number: int, model: str) -> bool:
        script = self.script
        base = {"id": f"chatcmpl-{number:03d}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": model}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
            self._chunk({**base, "choices": [{"index": 0, "delta": delta,
                                              "finish_reason": finish}]})

        chunk({"role": "assistant", "content": ""})
        if reply["kind"] == "message":
            for word in reply["text"].split(" "):
                chunk({"content": word + " "})
                if request_number in script.slow_at:
                    time.sleep(1.0)
            finish = "stop"
        else:
            arguments = reply.get("arguments") or json.dumps({"input": reply.get("input")})
            chunk({"tool_calls": [{"index": 0, "id": reply["call_id"], "type": "function",
                                   "function": {"name": reply["name"], "arguments": ""}}]})
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]})
            finish = "tool_calls"
        if request_number in script.slow_at:
            time.sleep(30)
        if request_number in script.cut_at:
            return False
        chunk({}, finish)
        self._chunk({**base, "choices": [], "usage": {
            "prompt_tokens": usage["input_tokens"],
            "prompt_tokens_details": {"cached_tokens": usage["cached_tokens"]},
            "completion_tokens": usage["output_tokens"],
            "completion_tokens_details": {"reasoning_tokens": usage["reasoning_tokens"]},
            "total_tokens": usage["total_tokens"]}})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        return True


def start_server(log: Path, port: int = 0, fail_at: set[int] | None = None,
                 cut_at: set[int] | None = None, slow_at: set[int] | None = None,
                 model: str = MODEL) -> tuple[ThreadingHTTPServer, Script]:
    script = Script(log, fail_at or set(), cut_at or set(), slow_at or set(), model)
    handler = type("ScriptedHandler", (Handler,), {"script": script})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, script


# --- driver ---------------------------------------------------------------------------------

CALC = "def add(a, b):\n    return a - b\n"


def scratch_repo(root: Path, task: str | None = None) -> Path:
    """The repository Codex works in: a small git repository, or with ``task``
    (``BUNDLE@COMMIT``) a clone of a task's repository at its base commit."""
    repo = root / "repo"
    if task:
        bundle, commit = task.rsplit("@", 1)
        root.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", bundle, str(repo)], check=True)
        subprocess.run(["git", "checkout", "-q", commit], cwd=repo, check=True)
        return repo
    repo.mkdir(parents=True)
    (repo / "calc.py").write_text(CALC)
    (repo / "README.md").write_text("# calc\n\n`add(a, b)` returns the sum.\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "capture", "GIT_AUTHOR_EMAIL": "capture@example.com",
           "GIT_COMMITTER_NAME": "capture", "GIT_COMMITTER_EMAIL": "capture@example.com",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    for command in (["git", "init", "-q", "-b", "main"], ["git", "add", "."],
                    ["git", "commit", "-q", "-m", "calc with a bug"]):
        subprocess.run(command, cwd=repo, check=True, env=env)
    return repo


def write_config(codex_home: Path, port: int, wire: str, model: str) -> None:
    codex_home.mkdir(parents=True, exist_ok=True)
    # CAPTURE_EXTRA_CONFIG: top-level keys to add (e.g. model_auto_compact_token_limit)
    extra = os.environ.get("CAPTURE_EXTRA_CONFIG", "").replace("\\n", "\n")
    (codex_home / "config.toml").write_text(extra + "\n" + f"""\
model = "{model}"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
disable_paste_burst = true

[analytics]
enabled = false

[feedback]
enabled = false

[history]
persistence = "save-all"

[model_providers.scripted]
name = "scripted"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "{wire}"
env_key = "SCRIPTED_API_KEY"
request_max_retries = 1
stream_max_retries = 1
stream_idle_timeout_ms = 60000
""")


def codex_env(root: Path) -> dict[str, str]:
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    keep = {key: os.environ[key] for key in ("PATH", "LANG", "TERM") if key in os.environ}
    return {**keep, "HOME": str(home), "CODEX_HOME": str(root / "codex_home"),
            "SCRIPTED_API_KEY": "sk-fake-capture-key-0000",
            # anything but the scripted server goes to a dead proxy
            "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
            "CODEX_DISABLE_UPDATE_CHECK": "1", "NO_COLOR": "1", "RUST_LOG": "warn"}


PROMPT = "calc.add is wrong: fix it in calc.py and check it."
TASK_PROMPT = "SLUGKIT: reword the slugify docstring and add a notes helper."
SPAWN_PROMPT = "SPAWN: have a sub-agent count the repository's files."
RESUME_PROMPT = "RESUME: is the fix still there?"


def run(command: list[str], cwd: Path, env: dict[str, str], out: Path, name: str,
        kill_after: float | None = None, kill_signal: int = signal.SIGINT,
        stdin: str | None = None) -> int:
    """Run ``command``, stdout/stderr to ``out/<name>.stdout|stderr``; with ``kill_after``,
    send ``kill_signal`` that many seconds in."""
    (out / f"{name}.command.txt").write_text(" ".join(command) + (
        f" <<< {stdin!r}" if stdin is not None else "") + "\n")
    with (out / f"{name}.stdout").open("wb") as stdout, \
            (out / f"{name}.stderr").open("wb") as stderr:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=stdout, stderr=stderr,
                                   stdin=subprocess.PIPE if stdin is not None
                                   else subprocess.DEVNULL, start_new_session=True)
        if stdin is not None and process.stdin:
            process.stdin.write(stdin.encode())
            process.stdin.close()
        try:
            if kill_after is not None:
                time.sleep(kill_after)
                # the whole group: `codex` is a node wrapper around the native binary
                os.killpg(process.pid, kill_signal)
            return process.wait(timeout=240)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            return process.wait()


def collect(root: Path, out: Path, log: Path) -> None:
    sessions = sorted((root / "codex_home" / "sessions").rglob("rollout-*.jsonl")) if (
        root / "codex_home" / "sessions").is_dir() else []
    for rollout in sessions:
        shutil.copy(rollout, out / rollout.name)
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() \
        else []
    billed = [r for r in records if r.get("status") == "billed"]
    total = {key: sum(r["usage"].get(key, 0) for r in billed) for key in (
        "input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens",
        "reasoning_tokens", "total_tokens")}
    tool_calls = [r["item"]["name"] for r in billed if r["item"]["kind"] != "message"]
    (out / "ground-truth-summary.json").write_text(json.dumps({
        "billed_replies": len(billed),
        "requests": len({r["request"] for r in records if "request" in r}),
        "usage": total, "uncached": total["input_tokens"] - total["cached_tokens"]
        - total["cache_write_tokens"], "cache_read": total["cached_tokens"],
        "cache_write": total["cache_write_tokens"], "output": total["output_tokens"],
        "tool_calls": len(tool_calls), "tool_names": tool_calls,
        "rollouts": [p.name for p in sessions],
        "probes": [r["probe"] for r in records if "probe" in r]}, indent=1) + "\n")


def capture(args: argparse.Namespace) -> None:
    codex = str(Path(args.codex).resolve())
    version = subprocess.run([codex, "--version"], capture_output=True, text=True,
                             env=codex_env(Path("/tmp/codexcap-version"))).stdout.strip()
    print("capturing", version)
    base_out = Path(args.out)
    modes = args.modes.split(",")
    for mode in modes:
        root = Path(args.scratch) / f"{Path(args.out).name}-{mode}"
        shutil.rmtree(root, ignore_errors=True)
        out = base_out / mode
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        log = out / "ground-truth.jsonl"
        fail_at = {2, 3} if mode == "fail500" else set()
        cut_at = {2, 3} if mode == "cut" else set()
        slow_at = {3} if mode in ("sigint", "sigkill") else set()
        server, _ = start_server(log, fail_at=fail_at, cut_at=cut_at, slow_at=slow_at,
                                 model=args.model)
        port = server.server_address[1]
        try:
            repo = scratch_repo(root, args.task)
            write_config(root / "codex_home", port, args.wire, args.model)
            env = codex_env(root)
            flags = ["--skip-git-repo-check"] if args.skip_git_flag else []
            bypass = ["--dangerously-bypass-approvals-and-sandbox"]
            exec_cmd = [codex, "exec", *bypass, *flags]
            prompt = TASK_PROMPT if args.task else SPAWN_PROMPT if args.spawn else PROMPT
            if mode == "exec":
                run([*exec_cmd, prompt], repo, env, out, "exec")
            elif mode == "json" or mode in ("fail500", "cut"):
                run([*exec_cmd, "--json", prompt], repo, env, out, "exec-json")
            elif mode == "resume":
                run([*exec_cmd, prompt], repo, env, out, "exec")
                if args.resume_by_id:  # Codex 0.39 takes any word after --last as a session id
                    first = next((root / "codex_home" / "sessions").rglob("rollout-*.jsonl"))
                    which = ["-".join(first.stem.split("-")[-5:])]
                else:
                    which = ["--last"]
                run([codex, "exec", *bypass, *flags, "--json", "resume", *which, "-"],
                    repo, env, out, "resume-json", stdin=RESUME_PROMPT)
            elif mode in ("sigint", "sigkill"):
                kill = signal.SIGINT if mode == "sigint" else signal.SIGKILL
                run([*exec_cmd, "--json", prompt], repo, env, out, "exec-json",
                    kill_after=args.kill_after, kill_signal=kill)
            time.sleep(0.5)
            collect(root, out, log)
            (out / "codex-version.txt").write_text(version + "\n")
        finally:
            server.shutdown()
        print(mode, json.loads((out / "ground-truth-summary.json").read_text()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the scripted server alone")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--log", default="ground-truth.jsonl")
    serve.add_argument("--model", default=MODEL)
    grab = commands.add_parser("capture", help="run codex against the server, keep the files")
    grab.add_argument("--codex", required=True)
    grab.add_argument("--out", required=True)
    grab.add_argument("--scratch", default="/tmp/codexcap-scratch")
    grab.add_argument("--wire", default="responses", choices=("responses", "chat"))
    grab.add_argument("--model", default=MODEL)
    grab.add_argument("--modes", default="exec,json,resume")
    grab.add_argument("--kill-after", type=float, default=4.0)
    grab.add_argument("--skip-git-flag", action="store_true")
    grab.add_argument("--task", help="BUNDLE@COMMIT: work in a clone of a task's repository "
                      "(the SLUGKIT script: edits arena submit ties to the patch)")
    grab.add_argument("--spawn", action="store_true",
                      help="the SPAWN script: a sub-agent (Codex 0.169 multi_agent_v1)")
    grab.add_argument("--resume-by-id", action="store_true",
                      help="resume the first run by its id, not --last (Codex 0.39)")
    args = parser.parse_args()
    if args.command == "serve":
        server, _ = start_server(Path(args.log), port=args.port, model=args.model)
        print(f"serving on 127.0.0.1:{server.server_address[1]}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            server.shutdown()
        return
    capture(args)


if __name__ == "__main__":
    main()
