"""Fixtures of the evaluation tests: submissions written on the fly, a real engine."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.evaluation.store import ResultStore
from arena_bot.intake.submissions import SubmissionFolder, load_submission
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.sandbox.images import TaskImages
from arena_bot.tasks.dataset import TaskFolder, load_task

WriteSubmission = Callable[..., SubmissionFolder]


@pytest.fixture(scope="session")
def fixture_task(fixture_task_root: Path) -> TaskFolder:
    return load_task(fixture_task_root / "calc-fixture")


@pytest.fixture(scope="session")
def engine(docker_client: object) -> DockerEngine:
    return DockerEngine(docker_client)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def task_images(docker_client: object, base_image: str) -> TaskImages:
    return TaskImages(docker_client, base_image=base_image)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> ResultStore:
    return ResultStore(tmp_path / "results")


@pytest.fixture(scope="session")
def repos(tmp_path_factory: pytest.TempPathFactory) -> BaseRepoCache:
    return BaseRepoCache(tmp_path_factory.mktemp("repos"))


@pytest.fixture
def write_submission(tmp_path: Path) -> WriteSubmission:
    """``write_submission(name, patches=[...], setting=..., features=[...], runs=1)``."""

    def write(
        name: str,
        *,
        patches: list[str],
        setting: str = "single",
        features: list[int] | None = None,
        task_id: str = "calc-fixture",
        runs: int = 1,
    ) -> SubmissionFolder:
        folder = tmp_path / "submissions" / task_id / name
        folder.mkdir(parents=True)
        names = []
        for number, text in enumerate(patches, start=1):
            (folder / f"agent{number}.patch").write_text(text)
            names.append(f"agent{number}.patch")
        features = features or [1]
        run_yaml = "".join(
            f"""
              - id: run{n}
                tokens: {{total: 1000}}
                tool_calls: 3
                execution_time: 10
                estimated_cost: 0.01
                patches: [{", ".join(names)}]"""
            for n in range(1, runs + 1)
        )
        (folder / "submission.yaml").write_text(
            textwrap.dedent(
                f"""\
                task: {task_id}
                tool: {{name: Fixture Tool, version: "1.0"}}
                models: [fixture-model]
                contributor: {{name: Tester}}
                date: 2025-01-01
                setting: {setting}
                features: {features}
                runs:"""
            )
            + textwrap.indent(textwrap.dedent(run_yaml), "  ")
            + "\n"
        )
        return load_submission(folder)

    return write
