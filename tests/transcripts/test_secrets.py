"""Planted secrets of every kind are redacted in every transcript format and refused in patches.

Each format's transcript is a real corpus file with the secrets planted in a message the way a
tool output would carry them (a JSON string with ``\\n`` escapes, or Markdown lines for Aider's
history). The stored copy must hold none of them, still read the same figures, and pass the
validation scan; SSH remotes and ordinary code are left alone.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import replace
from pathlib import Path

import pytest

from arena_bot.intake.transcripts import read_transcript
from arena_bot.intake.transcripts.redact import (
    find_secrets,
    redact_text,
    secret_file_reason,
    secrets_in_patch,
    store_redacted,
)

CORPUS = Path(__file__).parent / "corpus"

# kind -> (planted text, the part that must disappear). Test values, never real credentials.
PLANTED: dict[str, tuple[str, str]] = {
    "aws-secret-key": ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq4Lk2Tt9p",
                       "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq4Lk2Tt9p"),
    "aws-secret-key-bare": ("rotated to Zq8vT1kLmN3pQ5rS7tU9wX2yA4bC6dE8fG0hJ2kL today",
                            "Zq8vT1kLmN3pQ5rS7tU9wX2yA4bC6dE8fG0hJ2kL"),
    "aws-access-key": ("key id AKIAQ3EGTK7PYX2WNB4M", "AKIAQ3EGTK7PYX2WNB4M"),
    "db-password": ("DB_PASSWORD=hunter2-Correct-77", "hunter2-Correct-77"),
    "env-password-word": ("export PGPASSWORD='opensesame please'", "opensesame please"),
    "postgres-url": ("DATABASE_URL=postgres://arena:Sup3rS3cretPw@db.internal:5432/app",
                     "Sup3rS3cretPw"),
    "jwt": ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6Ik"
            "pvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"),
    "stripe": ("STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    "huggingface": ("token hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
                    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    "npm": ("npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    "anthropic": ("sk-ant-api03-Qw3rTy7uIoP9aSdF2gHjK4lZxCv6bNm8",
                  "Qw3rTy7uIoP9aSdF2gHjK4lZxCv6bNm8"),
    "pgp-private-key": ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGZ0pgpBodyXyZ9k2\n"
                        "=Zx9Q\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBGZ0pgpBodyXyZ9k2"),
    "rsa-private-key": ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEArsaBodyLine1Qq\n"
                        "rsaBodyLine2Ww8\n-----END RSA PRIVATE KEY-----", "rsaBodyLine"),
    "openssh-private-key": ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
                            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUsshBody1\nsshBody2Kk\n"
                            "-----END OPENSSH PRIVATE KEY-----", "sshBody"),
    "email": ("mail maya.lindqvist@example.org", "maya.lindqvist@example.org"),
}
#: Must survive: not secrets.
KEPT = [
    "git remote add origin git@github.com:org/repo.git",
    "def set_password(self, password):",
    "    self.password = password",
    "token = get_token()",
    "cache_key = make_key(args, kwargs); ttl = 300",
    "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "request 0d4f9a2e-5b1c-4e8a-9f3d-7c6b5a4e3d2c",
    "integrity sha512-Kq5sNclPz7QV2+lfQIuz5vrJnxQaY1Qgy9GcLwNQb0ZsuLvw8t3p1sJZAoaVo8pE",
    "message msg_01XyZabcDEF123ghiJKL456 tool toolu_01A8HAUpLBqTq2rkdocEm9bf",
    "MAX_TOKENS=4096 PASSWORD_MIN_LENGTH=8 DB_PASSWORD=$DB_PASSWORD",
    "client = Client(API_KEY=settings.api_key)",
    # Code that ends in its statement's punctuation, as agents' patches add it
    # (gruckion/mini-swe-agent @ d12a71a, swebench_results/20251118_gemini-3-pro-74pct/trajs/
    # preds.json, django__django-16631; seal-research/OmniCode @ 0ef3079, a SWE-agent patch of
    # apache__dubbo_11781):
    "    def create_user(self, username, password=None):",
    "            password = EMPTY_STRING;",
    "        this.password = password;",
    "    connect(host, port, secret_key=DEFAULT_KEY),",
]
TEXT = "\n".join([*(text for text, _ in PLANTED.values()), *KEPT])


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def _append_line(source: str, line: dict[str, object]) -> bytes:
    return _read(CORPUS / source).rstrip(b"\n") + b"\n" + json.dumps(line).encode() + b"\n"


def planted(format_name: str, folder: Path) -> Path:
    """A real transcript of ``format_name`` with every secret and keeper planted in it."""
    if format_name == "claude-code":
        source = "claude-code/claude-code-log-representative.jsonl"
        line = {"type": "user", "uuid": "planted-1", "timestamp": "2025-06-14T10:01:00Z",
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_planted", "content": TEXT}]}}
        return _write(folder / "session.jsonl", _append_line(source, line))
    if format_name == "codex":
        source = ("codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799"
                  ".jsonl.gz")
        line = {"timestamp": "2026-05-11T09:30:00.000Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_planted", "output": TEXT}}
        return _write(folder / "rollout.jsonl.gz", _append_line(source, line))
    if format_name == "generic":
        line = {"type": "tool_output", "text": TEXT}
        data = json.dumps({"type": "llm_call", "model": "gpt-4.1", "prompt_tokens": 10,
                           "completion_tokens": 5}).encode() + b"\n"
        return _write(folder / "generic.jsonl", data + json.dumps(line).encode() + b"\n")
    if format_name == "aider":
        events = [{"event": "message_send", "time": 1, "properties": {
            "main_model": "gpt-4.1", "prompt_tokens": 100, "completion_tokens": 20}},
            {"event": "command_run", "time": 2, "properties": {"output": TEXT}}]
        return _write(folder / "analytics.jsonl",
                      "".join(json.dumps(e) + "\n" for e in events).encode())
    if format_name == "aider-history":
        history = _read(CORPUS / "aider-history/simple-calculator.aider.chat.history.md.gz")
        pasted = "\n#### here is my config\n\n```\n" + TEXT + "\n```\n\n"
        return _write(folder / "history.md", history + pasted.encode())
    if format_name == "openhands":
        events = json.loads(_read(CORPUS / "openhands/basic.json"))
        events.insert(1, {"id": 1, "source": "environment", "observation": "run",
                          "content": TEXT, "timestamp": "2025-01-27T22:45:00"})
        return _write(folder / "trajectory.json", json.dumps(events, indent=2).encode())
    if format_name == "swe-agent":
        data = json.loads(_read(CORPUS / "swe-agent/6e44b9__sweagenttestrepo-1c2844.traj"))
        data["history"].append({"role": "user", "content": TEXT})
        return _write(folder / "run.traj", json.dumps(data, indent=2).encode())
    assert format_name == "atif"
    data = json.loads(_read(CORPUS / "atif/terminus_2_hello-world-invalid-json.trajectory.json"))
    data["steps"].insert(1, {"step_id": 99, "source": "user", "message": TEXT})
    return _write(folder / "trajectory.json", json.dumps(data, indent=2).encode())


FORMATS = ["claude-code", "codex", "generic", "aider", "aider-history", "openhands",
           "swe-agent", "atif"]


@pytest.mark.parametrize("format_name", FORMATS)
def test_every_planted_secret_is_redacted_and_the_figures_stay(
    format_name: str, tmp_path: Path
) -> None:
    source = planted(format_name, tmp_path)
    assert find_secrets(source).changed
    before = read_transcript(path=source, format_name=format_name)
    out = tmp_path / "out"
    out.mkdir()
    stored, report = store_redacted(source=source, folder=out, stem="run-1-transcript")
    text = _read(stored).decode("utf-8", errors="replace")
    for kind, (_planted, secret) in PLANTED.items():
        assert secret not in text, (kind, format_name)
    for keeper in KEPT:
        # JSON formats escape nothing in these lines, so each appears as written.
        assert keeper in text, (keeper, format_name)
    assert report.changed and not find_secrets(stored).changed
    after = read_transcript(path=stored, format_name=format_name)
    # Every figure stays; the activity holds the edits' text, which redaction changes, but
    # not how many edits and requests there are.
    assert replace(after, activity=None) == replace(before, activity=None)
    if before.activity is not None:
        assert after.activity is not None
        assert len(after.activity.edits) == len(before.activity.edits)
        assert len(after.activity.requests) == len(before.activity.requests)


def test_a_key_body_spread_over_markdown_lines_is_redacted_to_its_end(tmp_path: Path) -> None:
    lines = ["> Tokens: 1.0k sent, 20 received.  ", "```", "-----BEGIN RSA PRIVATE KEY-----",
             "MIIEowIBAAKCAQEAsecretLineOne", "secretLineTwo",
             "-----END RSA PRIVATE KEY-----", "```", "after the key", ""]
    source = tmp_path / "history.md"
    source.write_text("\n".join(lines))
    out = tmp_path / "out"
    out.mkdir()
    stored, report = store_redacted(source=source, folder=out, stem="t")
    text = stored.read_text()
    assert "secretLine" not in text and "after the key" in text and "```" in text
    assert report.lines == {"private-key": [3, 4, 5, 6]}


PATCH_SECRETS = [kind for kind in PLANTED
                 if kind not in {"email", "aws-secret-key-bare"}]


def _patch(added: str, *, name: str = "src/settings.py") -> str:
    body = added.split("\n")
    return (f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n"
            f"@@ -1,1 +1,{len(body) + 1} @@\n import os\n"
            + "".join(f"+{line}\n" for line in body))


@pytest.mark.parametrize("kind", PATCH_SECRETS)
def test_a_patch_adding_a_secret_is_caught(kind: str) -> None:
    found = secrets_in_patch(_patch(PLANTED[kind][0]))
    assert found and found[0][0] == "src/settings.py" and found[0][1] >= 6


def test_a_literal_before_the_statement_punctuation_is_still_a_secret() -> None:
    found = secrets_in_patch(_patch("        db.password = hunter2Correct77;"))
    assert [kinds for _, _, kinds in found] == ["secret-keyword"]


def test_ordinary_code_and_ssh_remotes_in_a_patch_are_not_secrets() -> None:
    sample = (Path(__file__).resolve().parents[2] / "submissions" / "slugkit-options"
              / "2026-11-02_claude-code_claude-sonnet-4-5" / "max-length.patch").read_text()
    assert secrets_in_patch(sample) == []
    assert secrets_in_patch(_patch("\n".join([*KEPT, PLANTED["email"][0]]))) == []
    # AWS's documented placeholder credentials, as tests with mocks use them.
    assert secrets_in_patch(_patch(
        'os.environ["AWS_ACCESS_KEY_ID"] = "AKIAIOSFODNN7EXAMPLE"\n'
        'os.environ["AWS_SECRET_ACCESS_KEY"] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"')) == []


def test_a_keyword_value_that_says_it_is_made_up_is_no_secret_in_a_patch() -> None:
    """Real code's made-up values (click's tests, in CooperBench task 2068's test patch:
    ``"api_key": "secret1"``; the key Django's ``startproject`` writes) are no secret in a
    patch; the same keywords with a value that says nothing are, and so are a real key's
    shape with a made-up word inside and a stored transcript's values."""
    made_up = ['        "api_key": "secret1",', 'SECRET_KEY = "fake-key"',
               "SECRET_KEY = 'django-insecure-+8b#q2v@x!k3m9z&w4r7t1y6u0i5o%p-e^s*d(f)g=h'",
               "DB_PASSWORD=changeme", 'password = "dummy-password-42"']
    assert [secrets_in_patch(_patch(line)) for line in made_up] == [[]] * len(made_up)
    real = ['        "api_key": "q8Vd71LmZr",', 'SECRET_KEY = "hunter2hunter2"',
            "DB_PASSWORD=opensesame", 'password = "Tr0ub4dor&3x"']
    assert [[kinds for _, _, kinds in secrets_in_patch(_patch(line))] for line in real] == [
        ["secret-keyword"]] * len(real)
    shaped = 'api_key = "sk-ant-api03-test' + "a" * 40 + '"'
    assert [kinds for _, _, kinds in secrets_in_patch(_patch(shaped))] == ["anthropic-key"]
    assert "secret1" not in redact_text('{"api_key": "secret1"}\n')


@pytest.mark.parametrize("name", ["tests/settings.py", "pkg/tests/conftest.py",
                                  "test_login.py", "src/auth_test.py"])
def test_a_keyword_value_in_a_test_file_is_its_data(name: str) -> None:
    """A test's settings and logins (OpenHands' ``SECRET_KEY = 'abcde12345'`` in Django's
    ``tests/settings.py``) are the test's data; a real key's shape is a secret there too, and
    the same keyword outside the tests still is."""
    assert secrets_in_patch(_patch("SECRET_KEY = 'abcde12345'", name=name)) == []
    assert secrets_in_patch(_patch("SECRET_KEY = 'abcde12345'", name="src/settings.py"))
    shaped = 'token = "ghp_' + "A1b2" * 9 + '"'
    assert [kinds for _, _, kinds in secrets_in_patch(_patch(shaped, name=name))] == [
        "github-token"]


@pytest.mark.parametrize(("path", "secret"), [
    (".env", True), ("app/.env.local", True), (".env.production", True),
    (".env.example", False), ("config/.env.sample", False), ("deploy/server.pem", True),
    ("keys/id_rsa", True), ("keys/id_rsa.pub", False), ("home/.aws/credentials", True),
    (".npmrc", True), ("credentials.json", True), ("src/credentials.py", False),
    ("docs/environment.md", False), ("src/keyboard.py", False), (".envrc", True),
    ("KEYS.asc", False),
])
def test_secret_bearing_files(path: str, secret: bool) -> None:
    assert (secret_file_reason(path) is not None) is secret


def test_a_key_cut_off_without_its_end_line_does_not_swallow_the_rest(tmp_path: Path) -> None:
    lines = ["-----BEGIN OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAAcutOff",
             "", "#### thanks, now fix the tests", "> Tokens: 1.0k sent, 20 received.  ", ""]
    source = tmp_path / "history.md"
    source.write_text("\n".join(lines))
    out = tmp_path / "out"
    out.mkdir()
    stored, _ = store_redacted(source=source, folder=out, stem="t")
    text = stored.read_text()
    assert "cutOff" not in text and "> Tokens: 1.0k sent, 20 received." in text
    assert read_transcript(path=stored, format_name="aider-history").iterations == 1


def test_the_keyword_prefilter_covers_every_keyword_detect_secrets_knows() -> None:
    from detect_secrets.plugins.keyword import DENYLIST

    from arena_bot.intake.transcripts.redact import KEYWORD_WORDS

    assert all(any(word in keyword for word in KEYWORD_WORDS) for keyword in DENYLIST)
