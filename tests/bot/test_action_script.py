"""The action's own shell script (action.yml's `run` step), executed with bash in a real
checkout with a bare remote and real Docker: publish, then plan finds nothing left to do,
then plan writes plan.json, evaluate-units reads its shard from it, and publish again with
the matrix's unit results."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.botdata import DATA
from support.fixture_task import copy_fixture_task, write_fixture_submission
from support.gitrepo import GIT_ENV, clone_main, git, new_remote, push_main

from arena_bot.bot.bundle import load_bundle

REPO = Path(__file__).resolve().parents[2]
ARENA = Path(sys.executable).parent / "arena"




def script() -> str:
    action = yaml.load((REPO / "action.yml").read_text(), Loader=yaml.BaseLoader)
    return next(s["run"] for s in action["runs"]["steps"] if s.get("id") == "run")


def run_mode(checkout: Path, mode: str, base_image: str, **inputs: str
             ) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    temp = checkout.parent / f"runner-temp-{mode}"
    temp.mkdir(exist_ok=True)
    outputs = temp / "outputs"
    outputs.write_text("")
    env = {**os.environ, **GIT_ENV, "MODE": mode, "ARENA": str(ARENA), "RUNNER_TEMP": str(temp),
           "GITHUB_OUTPUT": str(outputs), "DATA_BRANCH": "arena-data", "THRESHOLD": "0",
           "PLAN": "arena-plan/plan.json", "SHARD": "", "UNITS": "arena-units",
           "OUTPUT": "public", "ARENA_BASE_IMAGE": base_image, **inputs}
    done = subprocess.run(["bash", "-c", script()], cwd=checkout, env=env,
                          capture_output=True, text=True, check=False, timeout=900)
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
    return done, values


@pytest.fixture
def remote(tmp_path: Path, fixture_task_root: Path) -> Path:
    bare, seed = new_remote(tmp_path)
    copy_fixture_task(fixture_task_root, seed)
    write_fixture_submission(seed, "gold")
    # the board's MkDocs project, as a repository made from this template has it
    shutil.copytree(REPO / "site", seed / "site",
                    ignore=shutil.ignore_patterns("site_build", "_generated", "*.pyc"))
    (seed / ".gitignore").write_text(".arena/\npublic/\narena-units/\n")
    push_main(seed, "board")
    return bare


def checkout(remote: Path, name: str) -> Path:
    return clone_main(remote, remote.parent / name)


@pytest.mark.docker
@pytest.mark.full
def test_publish_then_plan_then_a_matrix_publish(remote: Path, base_image: str) -> None:
    first = checkout(remote, "publish1")
    done, _ = run_mode(first, "publish", base_image)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no arena-data branch on origin yet" in done.stdout
    board = json.loads((first / "public" / "data" / "leaderboard.json").read_text())
    assert [e["status"] for e in board["entries"]] == ["scored"]
    stored = git("ls-tree", "-r", "--name-only", "arena-data", cwd=remote).split()
    assert len([p for p in stored if p.startswith("results/calc-fixture/gold.")]) == 1
    assert "first build: no earlier snapshot" in done.stdout
    assert "snapshot.json" in stored  # the site's change snapshot, for the next run

    # the next push: plan restores the trusted result, so nothing is left to evaluate
    planner = checkout(remote, "plan")
    done, outputs = run_mode(planner, "plan", base_image)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(outputs["matrix"]) == {"include": []}
    assert outputs["scale-out"] == "false"
    plan = json.loads((Path(outputs["plan-dir"]) / "plan.json").read_text())
    assert plan == {"schema_version": 1, "shards": []}

    # a new submission arrives: the plan has one unit; a matrix job evaluates it
    git("pull", "--quiet", "origin", "main", cwd=first)
    new = first / "submissions" / "calc-fixture" / "solo"
    shutil.copytree(first / "submissions" / "calc-fixture" / "gold", new)
    yaml_path = new / "submission.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("Fixture Tool", "Other Tool"))
    push_main(first, "new")
    planner = checkout(remote, "plan2")
    done, outputs = run_mode(planner, "plan", base_image)
    assert done.returncode == 0, done.stdout + done.stderr
    # the matrix names the shards; their units are in plan.json, the plan job's artifact
    matrix = json.loads(outputs["matrix"])
    assert matrix == {"include": [{"shard": 0}]}
    assert outputs["scale-out"] == "true"  # threshold 0
    plan_dir = Path(outputs["plan-dir"])
    assert json.loads((plan_dir / "plan.json").read_text()) == {
        "schema_version": 1, "shards": [{"shard": 0, "units": ["calc-fixture/solo#f1"]}]}
    job = checkout(remote, "matrix-job")
    # actions/download-artifact puts the artifact's files into the job's arena-plan/
    shutil.copytree(plan_dir, job / "arena-plan")
    # a shard the plan does not have: a clear error naming the file, nothing evaluated
    done, outputs = run_mode(job, "evaluate-units", base_image, SHARD="1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "arena-plan/plan.json: the plan has no shard 1: it has shard 0 only" in done.stderr
    assert "Traceback" not in done.stderr and not Path(outputs["unit-results"]).exists()
    done, outputs = run_mode(job, "evaluate-units", base_image,
                             SHARD=str(matrix["include"][0]["shard"]))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "shard 0 of arena-plan/plan.json: 1 unit(s)" in done.stderr
    assert "calc-fixture/solo#f1: run1 f1 passed" in done.stdout, done.stdout
    build = checkout(remote, "build")
    shutil.copytree(outputs["unit-results"], build / "arena-units")
    done, _ = run_mode(build, "publish", base_image)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "calc-fixture/solo: stored" in done.stdout  # assembled, not evaluated again
    # nothing is evaluated again: main's result restored, the new one assembled
    assert "calc-fixture/gold (cached) run1" in done.stdout
    assert "calc-fixture/solo (cached) run1" in done.stdout
    board = json.loads((build / "public" / "data" / "leaderboard.json").read_text())
    assert sorted(e["status"] for e in board["entries"]) == ["scored", "scored"]
    stored = git("ls-tree", "-r", "--name-only", "arena-data", cwd=remote).split()
    assert any(p.startswith("results/calc-fixture/solo.") for p in stored)
    # a fresh runner, yet the Changes page compares with what the first publish showed
    assert "the last published site snapshot" in done.stdout
    assert "since the previous build: 1 added" in done.stdout, done.stdout
    changes = (build / "public" / "board" / "changes" / "index.html").read_text()
    assert "Other Tool" in changes
    log = json.loads(git("show", "arena-data:snapshot.json", cwd=remote))["log"]
    # the copy is added; the gold entry it duplicates is newly flagged for review
    assert {(c["kind"], c["key"]) for c in log[-1]["changes"]} == {
        ("added", "calc-fixture/solo"), ("flagged", "calc-fixture/gold")}


@pytest.mark.docker
def test_evaluate_pr_mode_scores_the_pr_against_mains_results(
    remote: Path, base_image: str
) -> None:
    done, _ = run_mode(checkout(remote, "publish"), "publish", base_image)
    assert done.returncode == 0, done.stdout + done.stderr
    pr = checkout(remote, "pr")
    base = git("rev-parse", "HEAD", cwd=pr).strip()
    new = pr / "submissions" / "calc-fixture" / "mine"
    shutil.copytree(pr / "submissions" / "calc-fixture" / "gold", new)
    yaml_path = new / "submission.yaml"
    yaml_path.write_text(yaml_path.read_text().replace("Fixture Tool", "My Tool"))
    git("add", "-A", cwd=pr)
    git("commit", "--quiet", "-m", "my submission", cwd=pr)
    done, outputs = run_mode(pr, "evaluate-pr", base_image, BASE_SHA=base,
                             GITHUB_EVENT_PATH=str(DATA / "pull_request_fork.json"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "restored 1 result(s)" in done.stdout
    assert "calc-fixture/gold run1" not in done.stdout  # main's is not evaluated again
    bundle = load_bundle(Path(outputs["bundle-dir"]) / "bundle.json")
    assert [e["key"] for e in bundle.entries] == ["calc-fixture/mine"]
    assert bundle.tasks[0]["scored"] == 2


@pytest.mark.docker
def test_a_publish_whose_site_does_not_build_pushes_nothing(
    remote: Path, base_image: str
) -> None:
    """Issue 26, point 1: the results reach arena-data only once the site has built; a
    failed build leaves nothing half-published (the next run evaluates again)."""
    build = checkout(remote, "broken-site")
    config = build / "site" / "mkdocs.yml"
    config.write_text(config.read_text() + "\nnav: {this is: [not a nav\n")
    done, _ = run_mode(build, "publish", base_image)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "mkdocs.yml" in done.stdout + done.stderr
    assert "calc-fixture/gold" in done.stdout  # it did evaluate before the build failed
    branches = git("ls-remote", "--heads", str(remote), cwd=remote)
    assert "arena-data" not in branches
    assert not (build / "public" / "data").exists()
