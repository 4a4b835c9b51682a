"""The Action as a GitHub runner runs it (issue 26).

The package is built into a wheel and installed into a fresh virtual environment by the
action's own install step (``pip install "$GITHUB_ACTION_PATH[site]"``: not editable); every
mode then runs through action.yml's own ``run:`` steps with a runner's environment
(support.actionrunner), on the repository's sample tasks and submissions, in real git
checkouts of a bare remote, against real Docker and a local HTTP server speaking GitHub's
REST API: plan (plan.json), evaluate-units (a shard of it), publish (the site is built and
only then arena-data pushed), evaluate-pr, comment. Events are real webhook payloads
(octokit/webhooks, see tests/bot/data/README.md) with the commits of these checkouts set.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.actionrunner import Runner
from support.botdata import OCTOKIT, adapted_event, workflow_run_event, write_json
from support.gitrepo import GIT_ENV, clone_main, git, new_remote, push_main
from support.httpserver import serving
from support.restgithub import Repository, RestServer

from arena_bot.bot.render import MARKER
from arena_bot.bot.view import LABEL_VALID

REPO = Path(__file__).resolve().parents[2]
#: What a checkout of this repository holds that is not the action (local state, builds).
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", ".arena", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
    "site_build", "_generated", "public")


def _package_files() -> set[str]:
    """Every file the package needs besides its modules (templates, assets, schemas...)."""
    root = REPO / "arena_bot"
    return {f"arena_bot/{p.relative_to(root).as_posix()}" for p in root.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def action(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The action as `uses:` sees it: this repository's files (no local state)."""
    path = tmp_path_factory.mktemp("action") / "arena"
    shutil.copytree(REPO, path, ignore=_NOT_SOURCE)
    return path


TOKEN = "ghs_runner_token"


@pytest.fixture
def github() -> Iterator[Repository]:
    """The independent API server (GitHub's recorded objects), not the fixture one."""
    state = Repository(full_name="arena/board", token=TOKEN)
    with serving(RestServer(state)):
        yield state


def _base_python() -> str:
    """The interpreter setup-python would give: the system Python, not this test venv's."""
    return str(Path(getattr(sys, "_base_executable", sys.executable)).resolve())


def _job_temp(tmp: Path) -> Path:
    """The jobs' RUNNER_TEMP. On GitHub each job has its own and installs the bot there;
    here the first job runs the action's install step and the later ones reuse its virtual
    environment (``skip=INSTALLED``), which saves a minute of pip. What the modes put there
    has its own name (arena-bundle, arena-units, arena-board)."""
    temp = tmp / "runner-temp"
    temp.mkdir(exist_ok=True)
    return temp


INSTALLED = frozenset({"install"})


@pytest.mark.docker
# Full tier (CI's --tier rest): 47 to 98 s here. The README's tier runs the same run: steps
# from the checkout (tests/bot/test_action_script.py).
@pytest.mark.full
def test_every_mode_runs_from_the_installed_action(
    tmp_path: Path, action: Path, github: Repository, base_image: str
) -> None:
    bare, seed = new_remote(tmp_path)
    for folder in ("dataset", "submissions", "site"):
        shutil.copytree(REPO / folder, seed / folder, ignore=_NOT_SOURCE)
    shutil.copy(REPO / "arena.yaml", seed / "arena.yaml")
    (seed / ".gitignore").write_text(".arena/\npublic/\narena-units/\narena-bundle/\n")
    main_sha = push_main(seed, "the board")
    runner = Runner(action_path=action, python=_base_python(), token=TOKEN, env={
        **GIT_ENV, "GITHUB_REPOSITORY": "arena/board", "GITHUB_API_URL": github.base,
        "GITHUB_SERVER_URL": "https://github.com", "GITHUB_SHA": main_sha,
        "ARENA_BASE_IMAGE": base_image,
    })
    # a push to the default branch (octokit's, whose default branch is master)
    push = OCTOKIT / "push_with-new-branch.payload.json"

    # plan (push to main): every sample submission is a unit to evaluate
    plan = runner.run(clone_main(bare, tmp_path / "plan"), _job_temp(tmp_path), push,
                      {"mode": "plan", "scale-out-threshold": "0"}, event_name="push")
    assert plan.returncode == 0, plan.log
    venv = tmp_path / "runner-temp" / "arena-venv"
    _assert_installed_from_the_wheel(venv)
    # the matrix names the shards alone; their unit ids are in plan.json (an artifact)
    matrix = json.loads(plan.outputs["matrix"])
    plan_file = json.loads((Path(plan.outputs["plan-dir"]) / "plan.json").read_text())
    units = [u for shard in plan_file["shards"] for u in shard["units"]]
    assert len(units) >= 12 and plan.outputs["scale-out"] == "true"
    assert len(plan_file["shards"]) == min(256, len(units))
    assert matrix == {"include": [{"shard": i} for i in range(len(plan_file["shards"]))]}

    # one matrix job evaluates its share, read from the downloaded plan.json
    matrix_job = clone_main(bare, tmp_path / "matrix")
    shutil.copytree(plan.outputs["plan-dir"], matrix_job / "arena-plan")
    job = runner.run(matrix_job, _job_temp(tmp_path), push,
                     {"mode": "evaluate-units", "shard": str(matrix["include"][0]["shard"])},
                     event_name="push", skip=INSTALLED)
    assert job.returncode == 0, job.log
    unit_files = sorted(Path(job.outputs["unit-results"]).glob("*.json"))
    assert sorted(json.loads(f.read_text())["unit"] for f in unit_files) == sorted(
        plan_file["shards"][0]["units"])

    # publish: the matrix's results assembled, the rest evaluated, the site built, then saved
    build = clone_main(bare, tmp_path / "build")
    shutil.copytree(job.outputs["unit-results"], build / "arena-units")
    published = runner.run(build, _job_temp(tmp_path), push, {"mode": "publish"},
                           event_name="push", skip=INSTALLED)
    assert published.returncode == 0, published.log
    assert ": stored" in published.log
    site = build / "public"
    assert "mkdocs" in (site / "index.html").read_text().lower()
    assert (site / "board" / "index.html").is_file()
    board = json.loads((site / "data" / "leaderboard.json").read_text())
    samples = list((REPO / "submissions").glob("*/*/submission.yaml"))
    assert len(board["entries"]) == len(samples)
    assert all(e["status"] == "scored" for e in board["entries"])
    stored = git("ls-tree", "-r", "--name-only", "arena-data", cwd=bare).split()
    assert len([p for p in stored if p.startswith("results/")]) >= len(samples)
    assert "snapshot.json" in stored

    # a pull request adds a submission: evaluated alone, scored against main's results
    pr = clone_main(bare, tmp_path / "pr")
    source = sorted((pr / "submissions" / "slugkit-options").iterdir())[0]
    mine = source.parent / "2026-11-20_my-tool_claude-sonnet-4-5"
    shutil.copytree(source, mine)
    spec = mine / "submission.yaml"
    spec.write_text(spec.read_text().replace("date: 2026-11-02", "date: 2026-11-20"))
    git("add", "-A", cwd=pr)
    git("commit", "--quiet", "-m", "my run", cwd=pr)
    pr_sha = git("rev-parse", "HEAD", cwd=pr).strip()
    event = adapted_event("pull_request_fork.json")
    event["pull_request"]["head"]["sha"] = pr_sha
    event["pull_request"]["base"]["sha"] = main_sha
    pr_event = write_json(tmp_path / "pull_request.json", event)
    evaluated = runner.run(pr, _job_temp(tmp_path), pr_event, {"mode": "evaluate-pr"},
                           event_name="pull_request", skip=INSTALLED)
    assert evaluated.returncode == 0, evaluated.log
    assert evaluated.outputs["verdict"] in ("valid", "needs review")
    assert MARKER in evaluated.summary
    bundle = json.loads((Path(evaluated.outputs["bundle-dir"]) / "bundle.json").read_text())
    assert bundle["head_sha"] == pr_sha and bundle["pr_number"] == 7
    key = f"slugkit-options/{mine.name}"
    assert [e["key"] for e in bundle["entries"]] == [key]

    # comment (workflow_run, trusted): main's checkout, the artifact downloaded as data
    changed = git("diff", "--name-only", f"{main_sha}...{pr_sha}", cwd=pr).split()
    pull = github.open_pull(7, head_sha=pr_sha, files=changed)
    trusted = clone_main(bare, tmp_path / "comment")
    (trusted / "arena-bundle").mkdir()
    shutil.copy(Path(evaluated.outputs["bundle-dir"]) / "bundle.json",
                trusted / "arena-bundle" / "bundle.json")
    run_event = workflow_run_event(tmp_path / "workflow_run.json", head_sha=pr_sha)
    commented = runner.run(trusted, _job_temp(tmp_path), run_event,
                           {"mode": "comment"}, event_name="workflow_run", skip=INSTALLED)
    assert commented.returncode == 0, commented.log
    assert commented.outputs["comment-url"].startswith(
        "https://github.com/arena/board/pull/7#issuecomment-")
    (comment,) = pull.comments
    assert comment["body"].startswith(MARKER) and "| **Overall**" in comment["body"]
    assert LABEL_VALID in pull.labels
    assert github.unserved == []  # everything PyGithub asked for was served
    for name, run in (("plan", plan), ("evaluate-units", job), ("publish", published),
                      ("evaluate-pr", evaluated), ("comment", commented)):
        print(name, [line for line in run.log.splitlines() if line.startswith("--- step")])


def _assert_installed_from_the_wheel(venv: Path) -> None:
    """arena_bot is installed into the venv (not editable, not this checkout) from the wheel
    the action's install step built, and that wheel held every file the package reads (its
    RECORD lists exactly the wheel's files)."""
    (site_packages,) = venv.glob("lib/python3*/site-packages")
    package = site_packages / "arena_bot"
    assert (package / "site" / "templates").is_dir() and (package / "templates").is_dir()
    (dist_info,) = site_packages.glob("agentic_arena-*.dist-info")
    record = (dist_info / "RECORD").read_text(encoding="utf-8").splitlines()
    names = {line.rsplit(",", 2)[0] for line in record if line}
    wanted = _package_files()
    assert {"arena_bot/site/templates", "arena_bot/site/assets"} & {
        n.rsplit("/", 1)[0] for n in wanted}, "the site's templates moved; update this test"
    assert wanted - names == set()
    direct = json.loads((dist_info / "direct_url.json").read_text())
    assert not direct.get("dir_info", {}).get("editable", False)
    found = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import arena_bot; print(arena_bot.__file__)"],
                           capture_output=True, text=True, check=True, cwd="/").stdout
    assert Path(found.strip()).is_relative_to(site_packages)
