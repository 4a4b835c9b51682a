"""A real OpenAI-compatible chat completions server on 127.0.0.1 for judge tests."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from support.chat_server import ChatServer


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    state = ChatServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            payload = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append({"path": self.path, **payload})
            state.headers.append(dict(self.headers))
            reply = state.next_reply(payload)
            if reply.body is not None:
                body = reply.body.encode()
            else:
                body = json.dumps({
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": payload.get("model"),
                    "choices": [{
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.content},
                        "finish_reason": "stop",
                    }],
                }).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            # A judge that gave up waiting (the timeout tests) has closed its end.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
