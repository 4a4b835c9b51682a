"""Secrets and e-mail addresses are redacted line by line and JSON stays valid."""

from __future__ import annotations

import json

import pytest
from detect_secrets.settings import default_settings

from arena_bot.intake.transcripts.redact import RedactionReport, Redactor


def redact_line(line: bytes, *, number: int, report: RedactionReport) -> bytes:
    """One line through the redactor every stored transcript goes through."""
    with default_settings():
        return Redactor(report).line(line, number)


SECRETS = [
    ("anthropic-key", "sk-ant-api03-" + "A1b2" * 10),
    ("openai-key", "sk-proj-" + "Zx9_" * 8),
    ("github-token", "ghp_" + "a" * 36),
    ("aws-access-key", "AKIAABCDEFGHIJKLMNOP"),
    ("google-key", "AIza" + "B" * 35),
    ("slack-token", "xoxb-1234567890-abcdef"),
    ("email", "maya.lindqvist@example.org"),
]


@pytest.mark.parametrize(("kind", "secret"), SECRETS)
def test_each_kind_is_redacted_and_json_stays_valid(kind: str, secret: str) -> None:
    line = (json.dumps({"type": "user", "content": f"value: {secret} end"}) + "\n").encode()
    report = RedactionReport()
    out = redact_line(line, number=7, report=report)
    assert secret.encode() not in out
    assert json.loads(out)["content"] == f"value: [REDACTED:{kind}] end"
    assert report.lines == {kind: [7]}


def test_private_key_block_inside_a_json_string() -> None:
    key = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXk=\\n"
        "-----END OPENSSH PRIVATE KEY-----"
    )
    line = ('{"content": "' + key + ' tail"}\n').encode()
    out = redact_line(line, number=1, report=RedactionReport())
    assert json.loads(out)["content"] == "[REDACTED:private-key] tail"


def test_ordinary_code_and_tokens_counts_are_left_alone() -> None:
    line = b'{"usage": {"input_tokens": 1200}, "text": "def task_id(self): return self.sk"}\n'
    report = RedactionReport()
    assert redact_line(line, number=1, report=report) == line
    assert not report.changed
