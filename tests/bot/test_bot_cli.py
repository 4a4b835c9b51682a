"""``arena bot evaluate-pr | comment | publish`` end to end through CliRunner.

Runs on a copy of the bundled sample data; the comment mode talks HTTP to the local fake
GitHub with the environment GitHub Actions gives a step.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.botdata import DATA, FORK_SHA, add_pull
from support.fakegithub import TOKEN, FakeGitHub

from arena_bot.bot.bundle import load_bundle
from arena_bot.bot.render import MARKER
from arena_bot.cli import main

REPO = Path(__file__).resolve().parents[2]
SUB = "submissions/csvstat-summaries/2026-11-04_claude-code_claude-sonnet-4-5"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO / "dataset", root / "dataset")
    shutil.copytree(REPO / "submissions", root / "submissions")
    return root


def _arena(root: Path, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    base = {"ARENA_CACHE": str(root / ".arena"), "GITHUB_OUTPUT": str(root / "out.txt"),
            "GITHUB_STEP_SUMMARY": str(root / "summary.md")}
    return CliRunner().invoke(main, ["--root", str(root), *args], env={**base, **(env or {})})


def _changed(root: Path, *paths: str) -> Path:
    path = root / "changed.txt"
    path.write_text("".join(f"A\t{p}\n" for p in paths), encoding="utf-8")
    return path


def test_evaluate_pr_then_comment_end_to_end(sample: Path, github: FakeGitHub) -> None:
    assert _arena(sample, "score").exit_code == 0
    result = _arena(
        sample, "bot", "evaluate-pr", "--event", str(DATA / "pull_request_fork.json"),
        "--changed-files", str(_changed(sample, f"{SUB}/submission.yaml")),
        "--output", str(sample / "artifact"),
    )
    assert result.exit_code == 0, result.output
    bundle = load_bundle(sample / "artifact" / "bundle.json")
    assert bundle.pr_number == 7 and bundle.head_sha == FORK_SHA
    assert [e["key"] for e in bundle.entries] == [SUB.removeprefix("submissions/")]
    # the rendered summary reaches the log only inside a stop-commands block
    start = result.output.index("::stop-commands::")
    token = result.output[start:].split("\n", 1)[0].removeprefix("::stop-commands::")
    assert f"::{token}::" in result.output and MARKER in result.output
    assert "verdict=valid" in (sample / "out.txt").read_text()
    assert MARKER in (sample / "summary.md").read_text()

    add_pull(github, files=[f"{SUB}/submission.yaml"])
    env = {"GITHUB_API_URL": github.base, "GITHUB_REPOSITORY": "arena/board",
           "GITHUB_TOKEN": TOKEN, "GITHUB_EVENT_PATH": str(DATA / "workflow_run_fork.json")}
    for _ in range(2):
        result = _arena(sample, "bot", "comment", "--bundle",
                        str(sample / "artifact" / "bundle.json"), env=env)
        assert result.exit_code == 0, result.output
        assert TOKEN not in result.output
    assert len(github.pulls[7].comments) == 1
    assert "updated https://github.example/" in result.output
    assert "comment-url=https://github.example/" in (sample / "out.txt").read_text()


def test_evaluate_pr_annotates_an_invalid_submission_and_exits_1(sample: Path) -> None:
    yaml_path = sample / SUB / "submission.yaml"
    yaml_path.write_text(yaml_path.read_text() + "\nunknown_key: 1\n", encoding="utf-8")
    result = _arena(
        sample, "bot", "evaluate-pr", "--event", str(DATA / "pull_request_fork.json"),
        "--changed-files", str(_changed(sample, f"{SUB}/submission.yaml")),
    )
    assert result.exit_code == 1
    assert f"::error file={SUB}/submission.yaml" in result.output
    assert "verdict: invalid" in result.output
    assert (sample / ".arena" / "bundle" / "bundle.json").is_file()


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (["comment", "--bundle", "missing.json"], {"GITHUB_REPOSITORY": "a/b",
                                                   "GITHUB_TOKEN": "t"}, "cannot read the event"),
        (["comment", "--bundle", "x.json"], {"GITHUB_TOKEN": "t"}, "GITHUB_REPOSITORY"),
        (["comment", "--bundle", "x.json"], {"GITHUB_REPOSITORY": "a/b"}, "GITHUB_TOKEN"),
        (["evaluate-pr", "--changed-files", "-"], {}, "GITHUB_EVENT_PATH"),
    ],
)
def test_bad_setup_is_a_clear_message_not_a_traceback(
    sample: Path, args: list[str], env: dict[str, str], expected: str
) -> None:
    env = {"GITHUB_EVENT_PATH": "", "GITHUB_TOKEN": "", "GITHUB_REPOSITORY": "", **env}
    if "GITHUB_EVENT_PATH" not in expected and args[0] == "comment":
        env["GITHUB_EVENT_PATH"] = str(sample / "no-event.json")
    result = _arena(sample, "bot", *args, env=env)
    assert result.exit_code == 1, result.output
    assert expected in result.output and "Traceback" not in result.output


def test_evaluate_pr_refuses_a_wrong_event(sample: Path) -> None:
    result = _arena(
        sample, "bot", "evaluate-pr", "--event", str(DATA / "workflow_run_fork.json"),
        "--changed-files", str(_changed(sample, f"{SUB}/submission.yaml")),
    )
    assert result.exit_code == 1
    assert "not a PullRequest event payload" in result.output
    assert "workflow_run_fork.json" in result.output


def test_publish_lays_out_the_board_files(sample: Path) -> None:
    # a repository that copied only the workflows has no site/ project: data files only
    result = _arena(sample, "bot", "publish", "--output", str(sample / "public"))
    assert result.exit_code == 0, result.output
    assert "no site/ project in this repository" in result.output
    board = json.loads((sample / "public" / "data" / "leaderboard.json").read_text())
    assert {e["key"].split("/")[0] for e in board["entries"]} >= {"csvstat-summaries"}
    assert (sample / "public" / "data" / "board.json").is_file()
    # the plain index page links every published data file, and each link resolves
    links = re.findall(r'href="([^"]+)"', (sample / "public" / "index.html").read_text())
    assert sorted(links) == ["data/board.json", "data/leaderboard.csv", "data/leaderboard.json"]
    assert all((sample / "public" / link).is_file() for link in links)
    # the split files the site reads, and nothing of the writer's own
    assert (sample / "public" / "data" / "tasks" / "digests.json").is_file()
    assert sorted(p.name for p in (sample / "public" / "data").iterdir() if p.is_file()) == [
        "board.json", "leaderboard.csv", "leaderboard.json", "methodology.md"]


def test_evaluate_pr_lists_changed_files_with_git(sample: Path) -> None:
    import git

    repo = git.Repo.init(sample)
    repo.git.add("dataset")
    repo.git.add("submissions/slugkit-options", "submissions/README.md")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    repo.git.commit("-m", "base", env=env)
    base = repo.head.commit.hexsha
    repo.git.add("submissions")
    repo.git.commit("-m", "add", env=env)
    result = _arena(sample, "bot", "evaluate-pr", "--event",
                    str(DATA / "pull_request_fork.json"), "--base", base)
    assert result.exit_code == 0, result.output
    bundle = load_bundle(sample / ".arena" / "bundle" / "bundle.json")
    assert f"{SUB}/submission.yaml" in bundle.changed_files
    assert not any(p.startswith("submissions/slugkit-options") for p in bundle.changed_files)
    bad = _arena(sample, "bot", "evaluate-pr", "--event",
                 str(DATA / "pull_request_fork.json"), "--base", "0" * 40)
    assert bad.exit_code == 1 and "fetch-depth" in bad.output and "Traceback" not in bad.output
    # An empty base compared HEAD with itself: nothing changed, and the PR was called valid.
    # One that starts with "-" would be read by git as an option.
    for odd in ("", " ", "--output=/tmp/x"):
        refused = _arena(sample, "bot", "evaluate-pr", "--event",
                         str(DATA / "pull_request_fork.json"), "--base", odd)
        assert refused.exit_code == 2, (odd, refused.output)
        assert f"--base {odd!r} is not a commit" in refused.output


def test_publish_builds_the_site_and_adds_the_data_files(sample: Path) -> None:
    shutil.copytree(REPO / "site", sample / "site",
                    ignore=shutil.ignore_patterns("site_build", "_generated", "*.pyc"))
    published = _arena(sample, "bot", "publish", "--output", str(sample / "public"))
    assert published.exit_code == 0, published.output
    assert "mkdocs build in" in published.output
    index = (sample / "public" / "index.html").read_text()
    assert "Agentic Arena data</h1>" not in index and "mkdocs" in index.lower()
    assert (sample / "public" / "board" / "index.html").is_file()
    board = json.loads((sample / "public" / "data" / "leaderboard.json").read_text())
    assert board["entries"]
    # the same as `arena site build` on that board: the board page is byte-identical
    built = _arena(sample, "site", "build", "--leaderboard",
                   str(sample / ".arena" / "publish-board" / "leaderboard.json"),
                   "--output", str(sample / "by-site-build"))
    assert built.exit_code == 0, built.output
    page = "board/index.html"
    strip = lambda text: re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "", text)  # noqa: E731
    assert strip((sample / "public" / page).read_text()) == strip(
        (sample / "by-site-build" / page).read_text())


def test_publish_continues_the_restored_snapshot_and_survives_a_damaged_one(
    sample: Path,
) -> None:
    shutil.copytree(REPO / "site", sample / "site",
                    ignore=shutil.ignore_patterns("site_build", "_generated", "*.pyc"))
    kept = sample / ".arena" / "published-snapshot.json"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text("{not json")
    damaged = _arena(sample, "bot", "publish", "--output", str(sample / "public1"))
    assert damaged.exit_code == 0, damaged.output
    assert "warning: the last published snapshot is not used" in damaged.output
    assert "first build" in damaged.output
    first = json.loads(kept.read_text())  # the new snapshot replaced the damaged copy
    assert first["log"] == []
    # a fresh output folder: the comparison comes from the kept snapshot, not the folder
    again = _arena(sample, "bot", "publish", "--output", str(sample / "public2"))
    assert again.exit_code == 0, again.output
    assert "same inputs as the previous build" in again.output


def test_aggregate_without_a_matrix_is_a_no_op_and_needs_some_input(sample: Path) -> None:
    empty = _arena(sample, "bot", "aggregate", "--from", str(sample / "arena-units"))
    assert empty.exit_code == 0 and "no matrix ran" in empty.output
    assert not (sample / ".arena" / "results").exists()
    nothing = _arena(sample, "bot", "aggregate")
    assert nothing.exit_code == 2 and "--from FOLDER" in nothing.output


def test_comment_rejects_a_bundle_for_another_pr_with_exit_1(
    sample: Path, github: FakeGitHub
) -> None:
    from support.botdata import make_bundle

    from arena_bot.bot.bundle import write_bundle

    add_pull(github, number=7, sha="d" * 40)
    add_pull(github, number=8, sha=FORK_SHA)
    bundle = write_bundle(make_bundle(pr=7), sample / "artifact")
    env = {"GITHUB_API_URL": github.base, "GITHUB_REPOSITORY": "arena/board",
           "GITHUB_TOKEN": TOKEN, "GITHUB_EVENT_PATH": str(DATA / "workflow_run_fork.json")}
    result = _arena(sample, "bot", "comment", "--bundle", str(bundle), env=env)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "no pull request was touched" in result.output
    assert [m for m, _ in github.requests if m != "GET"] == []


def test_evaluate_pr_bundles_each_changed_submissions_result_for_its_current_files(
    sample: Path,
) -> None:
    """Three changed submissions: one with a stored result, one whose result was stored
    before an edit (stale: left off), one never evaluated. The bundle holds the first's."""
    from support.scoring_builders import make_result

    from arena_bot.core.settings import DEFAULT_BASE_IMAGE
    from arena_bot.evaluation.store import ResultStore, input_key
    from arena_bot.intake.submissions import load_submission
    from arena_bot.tasks.dataset import load_task

    changed = [SUB, "submissions/slugkit-options/2026-11-03_aider_gpt-5",
               "submissions/ttlcache-bugs/2026-11-06_codex-cli_gpt-5"]
    store = ResultStore(sample / ".arena" / "results")
    for path in changed[:2]:
        folder = load_submission(sample / path)
        task = load_task(sample / "dataset" / folder.spec.task)
        store.save(folder, input_key(folder, task, DEFAULT_BASE_IMAGE),
                   make_result(folder.spec, folder.id))
    edited = sample / changed[1] / "submission.yaml"
    edited.write_text(edited.read_text() + "# edited after evaluation\n", encoding="utf-8")
    assert _arena(sample, "score").exit_code == 0
    result = _arena(
        sample, "bot", "evaluate-pr", "--event", str(DATA / "pull_request_fork.json"),
        "--changed-files", str(_changed(sample, *(f"{p}/submission.yaml" for p in changed))),
        "--output", str(sample / "artifact"),
    )
    assert result.exit_code == 0, result.output
    bundle = load_bundle(sample / "artifact" / "bundle.json")
    assert [(r["task_id"], r["submission_id"]) for r in bundle.results] == [
        ("csvstat-summaries", "2026-11-04_claude-code_claude-sonnet-4-5")]
