"""Benchmark of the harness's pytest plugin and its in-process guard (prints figures).

In a sample task's image (default ``ttlcache-bugs``), one container runs a generated suite of
N trivial tests (the guard's worst case: its per-report work is not hidden by any test's
own) with plain pytest and with ``-p arena_stream`` under the harness's locked-down
environment, alternating, R times each; prints the medians and the ratio. ``--async K``:
each test runs an event loop through K ``await asyncio.sleep(0)`` instead (every callback
of the loop goes through the guard, which looks at the stack for the submission's line).

Usage: ``.venv/bin/python benchmarks/bench_guard.py [--task ID] [--tests N] [--repeat R]
[--async K]``
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

from arena_bot.core.settings import OFFLINE_BASE_IMAGE
from arena_bot.evaluation.harness import HARNESS_DIR, LOCKED_DOWN_ENV
from arena_bot.evaluation.stream import packaged
from arena_bot.sandbox.base import SandboxLimits
from arena_bot.sandbox.docker import DockerEngine
from arena_bot.sandbox.engine import docker_client
from arena_bot.sandbox.images import TaskImages
from arena_bot.tasks.dataset import Dataset

ROOT = Path(__file__).resolve().parents[1]
_SECONDS = re.compile(r"elapsed=(\d+)")
_RUN = ('mkdir -p /tmp/suite/tests && cd /tmp/suite && s=$(date +%s%N) && '
        'python3 -m pytest -q -p no:cacheprovider tests >/dev/null 2>&1; '
        'e=$(date +%s%N); echo "elapsed=$(( (e - s) / 1000000 ))"')


def _suite(count: int, steps: int) -> bytes:
    if not steps:
        return "".join(f"def test_{i}():\n    assert {i} >= 0\n\n\n"
                       for i in range(count)).encode()
    head = ("import asyncio\n\n\nasync def _spin(n):\n    for _ in range(n):\n"
            "        await asyncio.sleep(0)\n    return n\n\n\n")
    return (head + "".join(f"def test_{i}():\n    assert asyncio.run(_spin({steps})) == {steps}"
                           "\n\n\n" for i in range(count))).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="ttlcache-bugs")
    parser.add_argument("--tests", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--async", dest="steps", type=int, default=0, metavar="K",
                        help="each test awaits asyncio.sleep(0) K times")
    args = parser.parse_args()
    task = next(t for t in Dataset(ROOT / "dataset").all() if t.id == args.task)
    client = docker_client()
    image = TaskImages(client, base_image=OFFLINE_BASE_IMAGE).ensure(task).tag
    timings: dict[str, list[int]] = {"bare": [], "guarded": []}
    with DockerEngine(client).open(image, limits=SandboxLimits()) as sandbox:
        sandbox.write_files({"arena_stream.py": packaged("arena_stream.py")}, directory=HARNESS_DIR)
        sandbox.write_files({"tests/test_many.py": _suite(args.tests, args.steps)},
                            directory="/tmp/suite")
        envs = {"bare": {"PYTHONDONTWRITEBYTECODE": "1"},
                "guarded": {**LOCKED_DOWN_ENV, "PYTEST_ADDOPTS": "-p arena_stream"}}
        for _ in range(args.repeat):
            for name, env in envs.items():
                done = sandbox.exec(["sh", "-c", _RUN], timeout=600, env=env, user="tester")
                found = _SECONDS.search(done.output)
                if found is None:
                    raise SystemExit(f"no timing in the output: {done.output[-500:]}")
                timings[name].append(int(found.group(1)))
    bare, guarded = (statistics.median(timings[n]) for n in ("bare", "guarded"))
    kind = f"async tests ({args.steps} loop steps each)" if args.steps else "trivial tests"
    print(f"task image: {image}; {args.tests} {kind}, median of {args.repeat}")
    print(f"plain pytest:               {bare:8.0f} ms")
    print(f"pytest + arena_stream guard:{guarded:8.0f} ms")
    print(f"ratio: {guarded / bare:.2f}x; per test: {(guarded - bare) / args.tests:.2f} ms")


if __name__ == "__main__":
    main()
