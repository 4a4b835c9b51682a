"""The suite's two tiers: what the README's test command runs, and what CI adds to it.

The README's command (``bash scripts/test.sh``) must stay within six minutes on a two-core
machine with the Docker tests in it; every Docker evaluation costs about a second, and the
matrices multiply them (20 attacks x 3 tasks x 2 features alone is 120 evaluations). So:

* a Docker matrix (and a parametrised test marked ``matrix``: each case runs the Action's
  steps, or reaches the package index) runs a sample of its cases in the default tier:
  :data:`SAMPLE` of them, spread evenly over its list (so that, with more than one, they
  differ in every axis the list varies), the first always among them;
* the other cases of a Docker matrix, and the tests marked ``full`` (the minute-long end-to-end
  runs and the sweeps of a whole corpus; the README names them), run with
  ``--tier all`` (everything) or ``--tier rest`` (only these). CI (``.ci/run``) runs the
  README's command, then ``--tier rest``: every case runs before a change lands.

Nothing here skips: a case left out of the default tier is deselected (pytest says how many).
"""

from __future__ import annotations

from collections import defaultdict

import pytest

#: Cases of each Docker matrix in the default tier.
SAMPLE = 1


def _spread(count: int, keep: int) -> set[int]:
    """``keep`` indices of ``range(count)`` spread evenly, 0 first."""
    return {index * count // keep for index in range(min(count, keep))}


#: Test files that each take tens of seconds (measured 2026-11-26), started first so that on
#: two workers neither is left alone with one of them at the end.
SLOWEST_FIRST = (
    "tests/bot/test_action_runner.py",
    "tests/bot/test_action_script.py",
    "tests/test_pipeline.py",
    "tests/evaluation/test_interrupt.py",
)


def slowest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items``, the files of :data:`SLOWEST_FIRST` first, then the other files with Docker
    tests, then the rest; each file's tests together and in their order (module fixtures
    run once). scripts/test.sh turns xdist's own reordering (by number of tests) off."""
    docker_files = {item.nodeid.split("::", 1)[0] for item in items
                    if item.get_closest_marker("docker") is not None}

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        if path in SLOWEST_FIRST:
            return SLOWEST_FIRST.index(path)
        return len(SLOWEST_FIRST) + (path not in docker_files)

    return sorted(items, key=rank)


def split(items: list[pytest.Item]) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """``items`` as (default tier, full tier only), each in collection order."""
    matrices: dict[tuple[str, str], list[pytest.Item]] = defaultdict(list)
    for item in items:
        if (any(item.get_closest_marker(name) is not None for name in ("docker", "matrix"))
                and hasattr(item, "callspec") and isinstance(item, pytest.Function)):
            matrices[(item.module.__name__, item.originalname)].append(item)
    sampled_out = set()
    for cases in matrices.values():
        kept = _spread(len(cases), SAMPLE)
        sampled_out.update(id(case) for index, case in enumerate(cases) if index not in kept)
    fast, full = [], []
    for item in items:
        only_full = item.get_closest_marker("full") is not None or id(item) in sampled_out
        (full if only_full else fast).append(item)
    return fast, full


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--tier", choices=("default", "all", "rest"), default="default",
        help="default: the README's tier (a sample of each Docker matrix, no `full` test); "
             "all: every test; rest: only what the default tier leaves out "
             "(tests/support/tiers.py)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The chosen tier's tests (the others deselected), slowest files first. A test named by
    its id on the command line (``file.py::test[case]``) runs whatever its tier."""
    tier = config.getoption("--tier")
    if tier == "default" and any("::" in arg for arg in config.args):
        tier = "all"
    keep = items
    if tier != "all":
        fast, full = split(items)
        keep, drop = (fast, full) if tier == "default" else (full, fast)
        if drop:
            config.hook.pytest_deselected(items=drop)
    items[:] = slowest_first(keep)
