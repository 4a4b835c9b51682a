#!/usr/bin/env python3
"""Capture real Gemini CLI transcripts against a scripted Gemini API server.

The server (standard library only, 127.0.0.1) speaks the Gemini API as @google/genai calls
it: ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` (server-sent events),
``:generateContent`` and ``:countTokens``. A conversation request (one that declares tools) is
answered from :data:`SCRIPT` by how many model turns it already holds: tool calls for Gemini
CLI's own tools (``read_file``, ``replace``, ``write_file``, ``run_shell_command``) in a
clone of a dataset task, then a final text. Any other generateContent call (the CLI's side
calls) gets a short JSON answer. Every billed reply has its own, known ``usageMetadata``,
logged to ``ground_truth.json`` with the totals an honest reader must give.

One run per call: a fresh HOME (settings.json: API key auth, telemetry, usage statistics
and update checks off), a fresh clone of a dataset task's repository at its base commit
(``--task``, default slugkit-options) and a fresh server; the session file(s) Gemini CLI
wrote under ``~/.gemini/tmp/<project>/chats/``, its stdout and stderr and the server's log
(``ground_truth.json``) are written to ``--out``.

    python3 scripts/capture/gemini_cli.py --gemini /tmp/tools/gemini/node_modules/.bin/gemini \\
        --output-format json --out /tmp/capture/json
    # --output-format text|json|stream-json; --error-at N (HTTP 500 on the Nth billed
    # conversation reply, once: the CLI retries) or --fail-at N (HTTP 400 there: the run
    # stops); --kill-after N (SIGKILL the CLI while it waits for reply N+1; --mid-stream:
    # after that reply's first event); --resume (then `--resume latest` with a second
    # prompt); --plain-usage (no thinking, no tool-use prompt tokens billed); --model auto
    # (no -m: the model router picks); --subagent (the first reply invokes the generalist
    # sub-agent; --subagent-as-tool: by its own name, before 0.39)

The corpus captures (tests/transcripts/corpus/gemini-cli/gemini-cli-<version>-<what>/, see
its README) were made with these options.
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

MODEL = "gemini-2.5-pro"
PROMPT = ("Add calc.py with add and mul, fix it so add adds, add a check script "
          "calc_check.py, run it, and tell me what you changed.")

RESUME_PROMPT = "Check calc.py once more and say whether anything is left."

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
CHECK = ("from calc import add, mul\n\n\nassert add(2, 3) == 5\nassert mul(2, 3) == 6\n"
         "print('ok')\n")

#: The conversation's replies, in order: each a list of parts (thoughts, text, calls). Every
#: file it writes is new, so its edits replay on the task's base commit. Reply 3 has no
#: thought (before 0.32 Gemini CLI joined such a reply's calls to the message before).
SCRIPT: list[list[dict[str, Any]]] = [
    [{"text": "Let me look at the README and the history first.", "thought": True},
     {"functionCall": {"name": "read_file", "args": {"file_path": "README.md"}}},
     {"functionCall": {"name": "run_shell_command",
                       "args": {"command": "git log --oneline -3",
                                "description": "Show recent commits"}}}],
    [{"text": "Write calc.py as asked.", "thought": True},
     {"text": "I'll write calc.py."},
     {"functionCall": {"name": "write_file",
                       "args": {"file_path": "calc.py", "content": CALC}}}],
    [{"text": "add subtracts; replace the operator.", "thought": True},
     {"functionCall": {"name": "replace", "args": {
         "file_path": "calc.py", "old_string": "    return a - b\n",
         "new_string": "    return a + b\n",
         "instruction": "Make add return the sum of its arguments."}}}],
    [{"functionCall": {"name": "write_file",
                       "args": {"file_path": "calc_check.py", "content": CHECK}}}],
    [{"text": "Run the check.", "thought": True},
     {"functionCall": {"name": "run_shell_command",
                       "args": {"command": "python3 calc_check.py && git status --short",
                                "description": "Run the check"}}}],
    [{"text": "Done.", "thought": True},
     {"text": "I added calc.py, fixed `add` (it subtracted) and added calc_check.py, "},
     {"text": "which passes."}],
]


#: With ``--subagent``: the agent's first reply delegates the look-around to Gemini CLI's
#: built-in ``generalist`` sub-agent, which answers from :data:`SUBAGENT_SCRIPT`.
DELEGATE: list[dict[str, Any]] = [
    {"text": "Let a sub-agent look around first.", "thought": True},
    {"functionCall": {"name": "invoke_agent", "args": {
        "agent_name": "generalist",
        "prompt": "Read README.md and show the last three commits; report what you saw."}}}]
SUBAGENT_SCRIPT: list[list[dict[str, Any]]] = [
    [{"text": "Read the README and the log.", "thought": True},
     {"functionCall": {"name": "read_file", "args": {"file_path": "README.md"}}},
     {"functionCall": {"name": "run_shell_command",
                       "args": {"command": "git log --oneline -3",
                                "description": "Show recent commits"}}}],
    [{"functionCall": {"name": "complete_task", "args": {
        "result": {"response": "README.md describes slugkit; the log has the base commit."}}}}],
]


def subagent_usage(step: int) -> dict[str, int]:
    """The usage billed for the sub-agent's reply ``step``: distinct from the agent's."""
    prompt, cached, output, thoughts, tool = (2100 + 377 * step, 1500 * step, 23 + 9 * step,
                                              61 + 7 * step, 3 * step)
    usage = {"promptTokenCount": prompt, "candidatesTokenCount": output,
             "thoughtsTokenCount": thoughts,
             "totalTokenCount": prompt + output + thoughts + tool}
    if cached:
        usage["cachedContentTokenCount"] = cached
    if tool:
        usage["toolUsePromptTokenCount"] = tool
    return usage


def usage_of(step: int, plain: bool = False) -> dict[str, int]:
    """The usage billed for conversation reply ``step`` (0-based): distinct on every field;
    ``plain``: no thinking and no tool-use prompt tokens (a model that does not think)."""
    prompt = 4000 + 1011 * step
    cached = 0 if step == 0 else 2900 + 853 * step
    output = 41 + 17 * step
    thoughts = 0 if step == 3 or plain else 120 + 29 * step
    tool = 0 if step == 0 or plain else 6 + 5 * step
    usage = {"promptTokenCount": prompt, "candidatesTokenCount": output,
             "totalTokenCount": prompt + output + thoughts + tool}
    if cached:
        usage["cachedContentTokenCount"] = cached
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    if tool:
        usage["toolUsePromptTokenCount"] = tool
    return usage


def side_usage(number: int) -> dict[str, int]:
    """The usage of the ``number``-th side call (0-based)."""
    prompt, output = 700 + 31 * number, 12 + number
    return {"promptTokenCount": prompt, "candidatesTokenCount": output,
            "totalTokenCount": prompt + output}


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, error_at: int | None, fail_at: int | None, plain: bool = False,
                 subagent: bool = False) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.plain, self.subagent = plain, subagent
        self.delegate = DELEGATE
        self.lock = threading.Lock()
        self.billed: list[dict[str, Any]] = []  # every reply that carried usage
        self.requests: list[dict[str, Any]] = []  # every request, for debugging
        self.conversation_replies = 0
        self.side_calls = 0
        self.error_at, self.fail_at = error_at, fail_at
        self.errored = False
        self.hold_at: int | None = None  # the conversation reply left hanging (a killed run)
        self.mid_stream = False  # hang after the reply's first event, not before it
        self.holding = threading.Event()
        self.stopping = threading.Event()


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.requests.append({"method": "GET", "path": self.path})
        self._json(404, {"error": {"code": 404, "message": "not scripted", "status": "NOT_FOUND"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        path = self.path.split("?")[0]
        model = path.rsplit("/", 1)[-1].split(":")[0]
        action = path.rsplit(":", 1)[-1]
        with self.server.lock:
            self.server.requests.append({
                "method": "POST", "path": self.path, "time": time.time(),
                "tools": [d.get("name") for t in body.get("tools") or []
                          for d in t.get("functionDeclarations") or []],
                "contents": len(body.get("contents") or []),
            })
        if action == "countTokens":
            self._json(200, {"totalTokens": 1000 + len(raw) // 4})
            return
        if action not in ("streamGenerateContent", "generateContent"):
            self._json(404, {"error": {"code": 404, "message": "not scripted",
                                       "status": "NOT_FOUND"}})
            return
        declared = {d.get("name") for t in body.get("tools") or []
                    for d in t.get("functionDeclarations") or []}
        if "complete_task" in declared:  # a sub-agent's own conversation
            self._subagent(body, model, stream=action == "streamGenerateContent")
        elif body.get("tools"):
            self._conversation(body, model, stream=action == "streamGenerateContent")
        else:
            self._side(body, model, stream=action == "streamGenerateContent")

    def _conversation(self, body: dict[str, Any], model: str, stream: bool) -> None:
        contents = body.get("contents") or []
        step = sum(1 for c in contents if c.get("role") == "model")
        server = self.server
        with server.lock:
            number = server.conversation_replies + 1
            if server.error_at == number and not server.errored:
                server.errored = True
                server.billed.append({"kind": "error", "status": 500, "step": step,
                                      "time": time.time()})
                error = {"code": 500, "message": "Internal error encountered.",
                         "status": "INTERNAL"}
                self._json(500, {"error": error})
                return
            if server.fail_at == number:
                server.billed.append({"kind": "error", "status": 400, "step": step,
                                      "time": time.time()})
                self._json(400, {"error": {"code": 400, "status": "INVALID_ARGUMENT",
                                           "message": "Request contains an invalid argument."}})
                return
            hold = server.hold_at == number
            if not hold:
                server.conversation_replies = number
        if hold and not server.mid_stream:  # never answered: the CLI is killed waiting
            server.holding.set()
            server.stopping.wait(600)
            return
        with server.lock:
            script = [server.delegate, *SCRIPT[1:]] if server.subagent else SCRIPT
            parts = script[min(step, len(script) - 1)]
            usage = usage_of(step, server.plain)
            server.billed.append({"kind": "conversation" if not hold else "cut-off",
                                  "step": step, "model": model,
                                  "usage": usage, "calls": [p["functionCall"]["name"]
                                                            for p in parts
                                                            if "functionCall" in p],
                                  "time": time.time()})
        self._reply(parts, usage, stream, f"resp-{step}-{number}", model,
                    hang=hold)

    def _subagent(self, body: dict[str, Any], model: str, stream: bool) -> None:
        contents = body.get("contents") or []
        step = sum(1 for c in contents if c.get("role") == "model")
        with self.server.lock:
            parts = SUBAGENT_SCRIPT[min(step, len(SUBAGENT_SCRIPT) - 1)]
            usage = subagent_usage(step)
            self.server.billed.append({
                "kind": "subagent", "step": step, "model": model, "usage": usage,
                "calls": [p["functionCall"]["name"] for p in parts if "functionCall" in p],
                "time": time.time()})
        self._reply(parts, usage, stream, f"sub-{step}", model)

    def _side(self, body: dict[str, Any], model: str, stream: bool) -> None:
        server = self.server
        config = body.get("generationConfig") or body.get("config") or {}
        with server.lock:
            number = server.side_calls
            server.side_calls += 1
            usage = side_usage(number)
            server.billed.append({"kind": "side", "model": model, "usage": usage,
                                  "time": time.time(),
                                  "schema": bool(config.get("responseJsonSchema")
                                                 or config.get("responseSchema"))})
        text = "{}"
        if config.get("responseMimeType") == "application/json":
            text = json.dumps({"reasoning": "scripted", "next_speaker": "user",
                               "model_choice": "pro", "complexity_reasoning": "scripted",
                               "complexity_score": 80, "is_stuck": False,
                               "unproductive_state_confidence": 0.0,
                               "unproductive_state_analysis": "scripted"})
        self._reply([{"text": text}], usage, stream, f"side-{number}", model)

    def _reply(self, parts: list[dict[str, Any]], usage: dict[str, int], stream: bool,
               response_id: str, model: str, hang: bool = False) -> None:
        def chunk(chunk_parts: list[dict[str, Any]], last: bool) -> dict[str, Any]:
            candidate: dict[str, Any] = {"content": {"role": "model", "parts": chunk_parts},
                                         "index": 0}
            if last:
                candidate["finishReason"] = "STOP"
            out: dict[str, Any] = {"candidates": [candidate], "modelVersion": model,
                                   "responseId": response_id}
            # As the real API streams: the prompt count on every chunk, the full usage last.
            out["usageMetadata"] = usage if last else {
                "promptTokenCount": usage["promptTokenCount"],
                "totalTokenCount": usage["promptTokenCount"]}
            return out

        if not stream:
            self._json(200, chunk(parts, True))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        # One part per event, as the real stream splits a reply.
        for index, part in enumerate(parts):
            event = chunk([part], index == len(parts) - 1 and not hang)
            self.wfile.write(b"data: " + json.dumps(event).encode() + b"\r\n\r\n")
            self.wfile.flush()
            if hang:  # the first event sent, the rest never: the CLI is killed reading it
                self.server.holding.set()
                self.server.stopping.wait(600)
                return
            time.sleep(0.05)
        self.close_connection = True


def totals(billed: list[dict[str, Any]]) -> dict[str, Any]:
    """What a reader must give: tokens as the arena counts them (uncached = prompt - cached +
    tool-use prompt, output = candidates + thoughts), conversation apart from side calls."""
    def add(rows: list[dict[str, Any]]) -> dict[str, int]:
        sums = {"uncached": 0, "cache_read": 0, "cache_write": 0, "output": 0, "replies": 0}
        for row in rows:
            u = row["usage"]
            cached = u.get("cachedContentTokenCount", 0)
            sums["uncached"] += u["promptTokenCount"] - cached + u.get(
                "toolUsePromptTokenCount", 0)
            sums["cache_read"] += cached
            sums["output"] += u["candidatesTokenCount"] + u.get("thoughtsTokenCount", 0)
            sums["replies"] += 1
        return sums

    conversation = [r for r in billed if r["kind"] == "conversation"]
    side = [r for r in billed if r["kind"] == "side"]
    subagent = [r for r in billed if r["kind"] == "subagent"]
    return {"conversation": add(conversation), "side_calls": add(side),
            "subagent": add(subagent), "all": add(conversation + subagent + side),
            "tool_calls": sum(len(r["calls"]) for r in conversation + subagent),
            "errors": [r for r in billed if r["kind"] == "error"]}


TASK = Path(__file__).resolve().parents[2] / "dataset" / "slugkit-options"


def scratch_repo(folder: Path, task: Path) -> None:
    """A clone of the task's repository at its base commit."""
    commit = re.search(r"^\s*commit:\s*([0-9a-f]{40})", (task / "task.yaml").read_text(),
                       re.MULTILINE)
    if commit is None:
        raise SystemExit(f"{task / 'task.yaml'}: no source commit")
    subprocess.run(["git", "clone", "-q", str(task / "repo.bundle"), str(folder)], check=True)
    subprocess.run(["git", "checkout", "-q", "-B", "work", commit.group(1)], cwd=folder,
                   check=True)


def settings(home: Path) -> None:
    gemini = home / ".gemini"
    gemini.mkdir(parents=True)
    (gemini / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True,
                    "enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        # Before 0.3x the same switches were top-level keys.
        "usageStatisticsEnabled": False, "disableAutoUpdate": True, "disableUpdateNag": True,
        "selectedAuthType": "gemini-api-key",
    }, indent=2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gemini", required=True, help="the gemini executable")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--output-format", default="text",
                        choices=["text", "json", "stream-json"])
    parser.add_argument("--error-at", type=int)
    parser.add_argument("--fail-at", type=int)
    parser.add_argument("--kill-after", type=int)
    parser.add_argument("--mid-stream", action="store_true",
                        help="with --kill-after: kill the CLI after the first event of the "
                        "next reply, not before it")
    parser.add_argument("--model", default=MODEL,
                        help="the -m Gemini CLI is given (auto: none, its model router picks)")
    parser.add_argument("--subagent", action="store_true",
                        help="the first reply delegates to the generalist sub-agent")
    parser.add_argument("--subagent-as-tool", action="store_true",
                        help="with --subagent: call the sub-agent as a tool of its own name "
                        "(`generalist`, as Gemini CLI before 0.39 declares it)")
    parser.add_argument("--resume", action="store_true",
                        help="then run again with --resume latest and a second prompt")
    parser.add_argument("--plain-usage", action="store_true",
                        help="bill no thinking and no tool-use prompt tokens")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--task", type=Path, default=TASK,
                        help="the dataset task whose repository the run works in")
    args = parser.parse_args(argv)

    work = args.out / "work"
    if args.out.exists():
        shutil.rmtree(args.out)
    home, repo = work / "home", work / "repo"
    settings(home)
    scratch_repo(repo, args.task)
    server = Server(args.error_at, args.fail_at, args.plain_usage, args.subagent)
    if args.subagent_as_tool:
        call = DELEGATE[1]["functionCall"]
        server.delegate = [DELEGATE[0], {"functionCall": {
            "name": call["args"]["agent_name"], "args": {"request": call["args"]["prompt"]}}}]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8", "TERM": "dumb",
           "GEMINI_API_KEY": "fake-key-for-a-scripted-server", "GOOGLE_GEMINI_BASE_URL": base,
           "GEMINI_CLI_NO_RELAUNCH": "true", "NO_BROWSER": "true", "CI": "1",
           "GEMINI_TELEMETRY_ENABLED": "false", "PYTHONDONTWRITEBYTECODE": "1",
           "NO_PROXY": "127.0.0.1,localhost",
           "no_proxy": "127.0.0.1,localhost"}
    command = [args.gemini, "--approval-mode", "yolo", "-p", PROMPT]
    if args.model != "auto":
        command[1:1] = ["-m", args.model]
    if args.output_format != "text":
        command += ["--output-format", args.output_format]
    started = time.time()
    process = subprocess.Popen(command, cwd=repo, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    killed = False
    if args.kill_after:
        server.hold_at = args.kill_after + 1
        server.mid_stream = args.mid_stream
        if server.holding.wait(args.timeout) and process.poll() is None:
            time.sleep(0.5)
            os.killpg(process.pid, signal.SIGKILL)
            killed = True
    try:
        stdout, stderr = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    if args.resume:  # the same session again: `--resume latest` with a second prompt
        at = command.index(PROMPT)
        again = [*command[:at - 1], *command[at + 1:], "--resume", "latest", "-p",
                 RESUME_PROMPT]
        done = subprocess.run(again, cwd=repo, env=env, capture_output=True,
                              timeout=args.timeout, check=False)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "stdout-resumed.txt").write_bytes(done.stdout)
        (args.out / "stderr-resumed.txt").write_bytes(done.stderr)
        command = [*command, "&&", *again]
    server.stopping.set()
    server.shutdown()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "stdout.txt").write_bytes(stdout)
    (args.out / "stderr.txt").write_bytes(stderr)
    chats = sorted((home / ".gemini" / "tmp").glob("*/chats"))
    sessions = []
    for folder in chats:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                target = args.out / "chats" / path.relative_to(folder)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
                sessions.append(str(path.relative_to(home)))
    diff = subprocess.run(["git", "diff"], cwd=repo, capture_output=True, text=True).stdout
    status = subprocess.run(["git", "status", "--short"], cwd=repo, capture_output=True,
                            text=True).stdout
    truth = {"command": command, "exit_code": process.returncode, "killed": killed,
             "seconds": round(time.time() - started, 3), "model": MODEL,
             "totals": totals(server.billed), "billed": server.billed,
             "requests": server.requests, "session_files": sessions,
             "git_diff": diff, "git_status": status}
    (args.out / "ground_truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    print(json.dumps({"exit": process.returncode, "killed": killed,
                      "totals": truth["totals"], "sessions": sessions}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
