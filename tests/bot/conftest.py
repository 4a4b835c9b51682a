"""Fixtures for the bot: a real local GitHub API server and a client of it. The records
(bundles, entries, results, pulls) are built by plain helpers in tests/support/botdata.py."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from support.fakegithub import TOKEN, FakeGitHub, server_for
from support.httpserver import serving

from arena_bot.bot.github import GitHubClient, GitHubSettings

# The suite may run inside a GitHub Actions job: that job's event name must not reach the
# bot's commands under test, which refuse an event their mode is not made for (tests that
# run a mode as a runner does give the name themselves).
os.environ.pop("GITHUB_EVENT_NAME", None)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    state = FakeGitHub()
    with serving(server_for(state)):
        yield state


@pytest.fixture
def client(github: FakeGitHub) -> GitHubClient:
    return GitHubClient(
        GitHubSettings(api_url=github.base, repository="arena/board", token=TOKEN), throttle=False
    )
