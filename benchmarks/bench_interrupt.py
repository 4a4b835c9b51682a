"""How fast Ctrl-C and SIGTERM stop the commands that use Docker (prints figures; no
assertions).

For every case of the interrupt matrix (tests/support/interrupt.py: `arena evaluate`,
`arena pipeline`, `arena dataset check` and `arena merge`, each while a task image builds,
while a sandbox starts, while tests run; `arena evaluate`, `arena pipeline` and `arena merge`
also while they store results and while the task's repository is cloned for a merge), one
case at a time, on a copy of the fixture task: the seconds from the signal to the process's
exit, its exit status and what it left (containers of the run, build steps, git processes).
Target: every case under 5 s (issue 30), exit status 130 (SIGINT) or 143 (SIGTERM), nothing
left.

Usage: ``.venv/bin/python benchmarks/bench_interrupt.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

# The matrix and the fixture task are the test suite's helpers, imported as the tests do.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.fixture_task import write_fixture_task
from support.interrupt import MATRIX, STOP_WITHIN, run_case

from arena_bot.core.settings import OFFLINE_BASE_IMAGE
from arena_bot.sandbox.engine import docker_client


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each case")
    parser.add_argument("--base-image",
                        default=os.environ.get("ARENA_BASE_IMAGE", OFFLINE_BASE_IMAGE))
    args = parser.parse_args()
    client = docker_client()
    with tempfile.TemporaryDirectory(prefix="arena-interrupt-") as folder:
        work = Path(folder)
        write_fixture_task(work / "task")
        task = work / "task" / "calc-fixture"
        print(f"signal -> exit, one case at a time (load average {os.getloadavg()[0]:.2f}); "
              f"target < {STOP_WITHIN:.0f} s")
        worst = 0.0
        for case in MATRIX:
            seconds = []
            for number in range(args.repeat):
                root = work / f"{case.id}-{number}"
                root.mkdir()
                outcome = run_case(case, root, task, client, args.base_image)
                seconds.append(outcome.seconds)
                print(f"  {outcome.line()}")
            worst = max(worst, *seconds)
            if args.repeat > 1:
                print(f"    median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s")
        print(f"slowest: {worst:.2f} s (load average {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
