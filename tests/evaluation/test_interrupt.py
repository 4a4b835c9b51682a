"""Ctrl-C (SIGINT) and SIGTERM stop `arena evaluate`, `arena pipeline`, `arena dataset check`
and `arena merge` at any point: while a task image builds, while a sandbox starts, while tests
run, while results are stored, and while the task's repository is cloned for a merge (in an
evaluation worker, or in the main thread). Each time: exit status 130 (143 for SIGTERM),
"interrupted" and no traceback, no container of the run left (looked up by this run's own
owner label: the engine is shared), no build step or git clone left running, nothing partly
written.

Every case this session runs (the README's tier picks one: tests/support/tiers.py) runs at
once, each on its own copy of the fixture task (the matrix costs what its slowest case costs);
each test then checks one case. How fast each command stops is the
benchmark's figure (benchmarks/bench_interrupt.py, one case at a time); here a command must
stop well before its tests would have ended by themselves (the task's 60 s timeout)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import docker
import pytest
from support.interrupt import EXIT_STATUS, MATRIX, STORED, Case, Outcome, run_case

from arena_bot.models.evaluation import EvaluationResult
from arena_bot.tasks.dataset import TaskFolder

#: ``alone`` (and the ``alone_on_machine`` fixture): under xdist (scripts/test.sh) the other
#: worker pauses while these run: each command is stopped at a chosen moment, and a loaded
#: machine moves the moments.
pytestmark = [pytest.mark.docker, pytest.mark.alone]

#: Stopped, not run to the end: the hanging tests would take the task's timeout (60 s).
STOPPED_WITHIN = 20.0


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, alone_on_machine: None,
             tmp_path_factory: pytest.TempPathFactory, fixture_task: TaskFolder,
             docker_client: docker.DockerClient, base_image: str) -> dict[str, Outcome]:
    chosen = {item.callspec.params["case"].id for item in request.session.items
              if item.module is request.module and hasattr(item, "callspec")}
    cases = [case for case in MATRIX if case.id in chosen]
    roots = {case.id: tmp_path_factory.mktemp("interrupt") for case in cases}
    with ThreadPoolExecutor(max_workers=len(cases)) as pool:
        done = list(pool.map(
            lambda case: run_case(case, roots[case.id], fixture_task.root, docker_client,
                                  base_image), cases))
    print("\ncommand / phase / signal -> exit status, seconds after the signal, leftovers "
          f"({len(cases)} at once)")
    for outcome in done:
        print(f"  {outcome.line()}")
    return {outcome.case.id: outcome for outcome in done}


@pytest.mark.parametrize("case", MATRIX, ids=[case.id for case in MATRIX])
def test_signal_stops_the_command_and_leaves_nothing(
    case: Case, outcomes: dict[str, Outcome]
) -> None:
    outcome = outcomes[case.id]
    assert outcome.failure is None, outcome.output
    assert "Traceback" not in outcome.output, outcome.output
    assert outcome.seconds < STOPPED_WITHIN, outcome.output
    assert outcome.containers == [] and outcome.build_steps == [] and outcome.processes == []
    root = outcome.root
    # Nothing partly written: no temporary file or clone anywhere, the expected test ids as
    # they were.
    assert not list(root.rglob(".tmp-*")) and not list(root.rglob(".clone-*"))
    expected = root / "dataset" / "calc-fixture" / "feature1" / "expected_tests.json"
    assert (expected.read_bytes() if expected.exists() else None) == outcome.expected_before
    stored = list((root / ".arena").rglob("*.json"))
    if case.phase == "storing":
        # Interrupted while storing (or just after): what is stored is whole. A signal that
        # lands after the command has finished, as the interpreter exits, ends the process
        # by its default action (a shell reports that as 130 / 143 too).
        assert outcome.status in (0, EXIT_STATUS[case.sig], -case.sig), outcome.output
        results = list((root / ".arena" / "results").rglob("*.json"))
        for path in results:
            assert EvaluationResult.model_validate_json(path.read_bytes()).runs
        written = [path for path in [*(root / "out").rglob("*.json"), root / "report.json"]
                   if path.is_file()]
        for path in written:  # the leaderboard's files, the merge report: whole JSON
            json.loads(path.read_bytes())
        finished = outcome.status in (0, -case.sig)
        if case.kind == "merge":
            assert not finished or (root / "report.json").is_file()
        else:
            assert not finished or len(results) == STORED
        if case.kind == "evaluate" and outcome.status == -case.sig:
            assert "feature run(s) passed" in outcome.output
        return
    assert outcome.status == EXIT_STATUS[case.sig], outcome.output
    assert "interrupted" in outcome.output
    # Stopped before its end: no result, no report, no leaderboard.
    assert stored == []
    assert not (root / "report.json").exists() and not (root / "out").exists()
