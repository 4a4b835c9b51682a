"""Fixtures of the merge tests: real repositories and a real (host pytest) test runner,
built by support.mergerepo."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from support.mergerepo import BaseRepo, Content, PytestRunner, make_repo


@pytest.fixture
def make_base(tmp_path: Path):
    """Factory fixture: ``make_base({path: content})`` → BaseRepo."""

    def factory(files: Mapping[str, Content]) -> BaseRepo:
        return make_repo(tmp_path, files)

    return factory


@pytest.fixture
def host_runner():
    """Factory fixture: ``host_runner(base, {feature: tests_patch})`` → PytestRunner."""

    def factory(base: BaseRepo, tests_patches: Mapping[int, str]) -> PytestRunner:
        return PytestRunner(base=base, tests_patches=tests_patches)

    return factory
