"""A scripted OpenAI-compatible chat completions server (state and replies) for tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """One scripted answer: ``content`` in the chat completions shape, or a raw status."""

    content: str | None = None
    status: int = 200
    body: str | None = None  # raw body instead of the chat completions shape


@dataclass
class ChatServer:
    """Answers from ``replies`` in order (the last one repeats); records every request."""

    url: str
    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    responder: Any = None  # optional callable(request_json) -> Reply

    def next_reply(self, payload: dict[str, Any]) -> Reply:
        if self.responder is not None:
            return self.responder(payload)
        if len(self.replies) > 1:
            return self.replies.pop(0)
        return self.replies[0] if self.replies else Reply(content="SCORE: 5")
