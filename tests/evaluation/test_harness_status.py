"""The harness's structured status line (pure parsing; the real script runs in every
Docker test of the evaluation and the exploit corpus)."""

from __future__ import annotations

from arena_bot.evaluation.harness_status import VERSION, HarnessStatus, parse_status
from arena_bot.evaluation.stream import packaged

NONCE = "abc123"
LINE = '{"version": 5, "apply": "three_way", "tests_applied": true, "error": ""}'


def test_the_status_is_read_and_removed_from_the_output() -> None:
    status, rest = parse_status(f"git says hi\n\narena-status {NONCE} {LINE}\n", nonce=NONCE)
    assert status == HarnessStatus(version=5, apply="three_way", tests_applied=True)
    assert rest == "git says hi"


def test_a_line_without_this_runs_nonce_is_not_a_status() -> None:
    status, rest = parse_status(f"arena-status other {LINE}\n", nonce=NONCE)
    assert status is None and "other" in rest


def test_another_version_or_a_damaged_document_is_not_a_status() -> None:
    for document in (LINE.replace('"version": 5', '"version": 3'), LINE[:-1], "{}",
                     LINE.replace("three_way", "merged")):
        status, _ = parse_status(f"arena-status {NONCE} {document}\n", nonce=NONCE)
        assert status is None, document


def test_the_last_status_line_wins() -> None:
    # Only the harness prints after git: its own line is the last one.
    early = LINE.replace("three_way", "clean")
    status, _ = parse_status(f"arena-status {NONCE} {early}\narena-status {NONCE} {LINE}\n",
                             nonce=NONCE)
    assert status is not None and status.apply == "three_way"


def test_the_script_ships_as_package_data_and_prints_this_version() -> None:
    script = packaged("harness.sh").decode()
    assert script.startswith("#!/bin/sh")
    assert f'"version": {VERSION}' in script
