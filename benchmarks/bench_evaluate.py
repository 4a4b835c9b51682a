"""Benchmark of the evaluation engine (prints figures; no assertions).

In one run, on a copy of a sample task (default ``slugkit-options``) with its gold patch as the
submission, image cache warm:

1. one evaluation unit through ``arena evaluate --force`` (a subprocess, as a user runs it)
   and through the engine in-process (also timed with the container's removal, which the
   engine otherwise leaves to a background thread), against a bare ``docker run --rm`` of the
   same test command in the same image (applying the same two patches) → overhead ratio
   (target <= 1.3); the contenders run in interleaved rounds, so a change in the machine's
   load weighs on all alike;
2. N units (one submission with N runs) with ``--jobs 1`` and ``--jobs 2``;
3. an unchanged task is not rebuilt: ``TaskImages.ensure`` on the unchanged folder.

Usage: ``.venv/bin/python benchmarks/bench_evaluate.py [--task ID] [--units N] [--repeat R]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from arena_bot.core.settings import OFFLINE_BASE_IMAGE
from arena_bot.evaluation.engine import Evaluator
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.intake.submissions import load_submission
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.sandbox.engine import docker_client
from arena_bot.sandbox.images import TaskImages, build_base_image
from arena_bot.tasks.dataset import Dataset, TaskFolder

ROOT = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).parent / "arena"


def write_submission(root: Path, task: TaskFolder, *, name: str, runs: int) -> Path:
    folder = root / "submissions" / task.id / name
    folder.mkdir(parents=True)
    shutil.copy(task.feature(1).gold_patch, folder / "gold.patch")
    run_yaml = "".join(
        f"  - id: run{n}\n    tokens: {{total: 1000}}\n    tool_calls: 3\n"
        f"    execution_time: 10\n    estimated_cost: 0.01\n    patches: [gold.patch]\n"
        for n in range(1, runs + 1)
    )
    (folder / "submission.yaml").write_text(
        textwrap.dedent(
            f"""\
            task: {task.id}
            tool: {{name: Bench, version: "1"}}
            models: [bench-model]
            contributor: {{name: Bench}}
            date: 2025-01-01
            setting: single
            features: [1]
            runs:
            """
        )
        + run_yaml
    )
    return folder


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="slugkit-options")
    parser.add_argument("--units", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--base-image", default=OFFLINE_BASE_IMAGE)
    args = parser.parse_args()

    client = docker_client()
    if args.base_image == OFFLINE_BASE_IMAGE:
        build_base_image(client)  # no-op when present
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as temp:
        root = Path(temp)
        shutil.copytree(ROOT / "dataset" / args.task, root / "dataset" / args.task)
        task = Dataset(root / "dataset").get(args.task)
        one = write_submission(root, task, name="one", runs=1)
        many = write_submission(root, task, name="many", runs=args.units)
        images = TaskImages(client, base_image=args.base_image)
        image = images.ensure(task)  # warm: build once (or reuse)
        env = {**os.environ, "ARENA_CACHE": str(root / ".arena"),
               "ARENA_BASE_IMAGE": args.base_image}

        # 1. one unit: arena evaluate vs bare docker run
        patches = root / "patches"
        patches.mkdir()
        shutil.copy(task.feature(1).gold_patch, patches / "gold.patch")
        shutil.copy(task.feature(1).tests_patch, patches / "tests.patch")
        command = task.spec.tests.command.replace('"$ARENA_JUNIT"', "/tmp/junit.xml")
        bare_cmd = [
            "docker", "run", "--rm", "--network", "none", "--user", "1000:1000",
            "-v", f"{patches}:/patches:ro", image.tag, "sh", "-c",
            f"git apply /patches/gold.patch && git apply /patches/tests.patch && {command}",
        ]
        cli_cmd = [str(ARENA), "--root", str(root), "evaluate", str(one), "--force"]
        engine = DockerEngine(client)
        evaluator = Evaluator(engine=engine, images=images, store=None,
                              repos=BaseRepoCache(root / ".arena" / "repos"))
        pair = [(load_submission(one), task)]

        def run_bare() -> None:
            subprocess.run(bare_cmd, check=True, capture_output=True)

        def run_cli() -> None:
            subprocess.run(cli_cmd, check=True, capture_output=True, env=env)

        def run_engine() -> None:
            (outcome,) = evaluator.evaluate(pair, force=True)
            assert outcome.result.runs[0].features[0].passed

        def run_engine_removed() -> None:
            run_engine()
            engine.drain()

        run_bare(), run_cli(), run_engine()  # warm-up (page cache, first container)
        engine.drain()
        # Interleaved rounds: a change in the machine's load (other work on a shared host)
        # weighs on every contender alike, not on whichever ran during it. Each engine run's
        # container removal (a background step) is waited for before the next contender.
        bare: list[float] = []
        cli: list[float] = []
        inproc: list[float] = []
        removed: list[float] = []
        for _ in range(args.repeat):
            bare.append(timed(run_bare))
            cli.append(timed(run_cli))
            inproc.append(timed(run_engine))
            engine.drain()
            removed.append(timed(run_engine_removed))
        bare_s, cli_s, engine_s, removed_s = (statistics.median(x)
                                              for x in (bare, cli, inproc, removed))
        print(f"task {task.id}, image {image.tag}, medians of {args.repeat} interleaved rounds, "
              f"load average {os.getloadavg()[0]:.2f}")
        print(f"  bare docker run --rm (same image, same patches + test command): {bare_s:6.2f} s")
        print(f"  arena evaluate, 1 unit (CLI subprocess, incl. startup):   {cli_s:6.2f} s"
              f"  ratio {cli_s / bare_s:.2f}")
        print(f"  evaluation engine, 1 unit (in-process):                   {engine_s:6.2f} s"
              f"  ratio {engine_s / bare_s:.2f}")
        print(f"  the same, incl. waiting for the container's removal:     {removed_s:6.2f} s"
              f"  ratio {removed_s / bare_s:.2f}")

        # 2. N units, --jobs 1 vs --jobs 2
        many_pair = [(load_submission(many), task)]
        for jobs in (1, 2):
            seconds = timed(lambda jobs=jobs: evaluator.evaluate(many_pair, jobs=jobs,
                                                                 force=True))
            print(f"  {args.units} units with --jobs {jobs}: {seconds:6.2f} s "
                  f"({seconds / args.units:.2f} s/unit)")

        # 3. unchanged task: no rebuild
        fresh = TaskImages(client, base_image=args.base_image)
        started = time.perf_counter()
        again = fresh.ensure(task)
        check_s = time.perf_counter() - started
        print(f"  unchanged task: rebuilt={again.built}, same image={again.id == image.id}, "
              f"check took {check_s:.3f} s")


if __name__ == "__main__":
    main()
