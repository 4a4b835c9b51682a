"""`arena bot evaluate-pr --evaluate` on real Docker and real git: only the PR's changed
submissions are evaluated; the others keep main's trusted results, restored from the data
branch; the changed one is scored against that board."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.botdata import DATA
from support.fixture_task import copy_fixture_task, write_fixture_submission
from support.gitrepo import git, new_remote, push_main

from arena_bot.bot.bundle import load_bundle
from arena_bot.cli import main


def write_submission(root: Path, name: str, *, features: list[int], setting: str) -> str:
    write_fixture_submission(root, name, setting=setting, features=features,
                             tool=f"Fixture Tool {name}")
    return f"submissions/calc-fixture/{name}"


def arena(root: Path, base_image: str, *args: str,  # type: ignore[no-untyped-def]
          actions: bool = False):
    env = {"ARENA_CACHE": str(root / ".arena"), "ARENA_BASE_IMAGE": base_image,
           "GITHUB_OUTPUT": str(root / "gh_output"),
           "GITHUB_STEP_SUMMARY": str(root / "summary.md"),
           "GITHUB_ACTIONS": "true" if actions else ""}
    return CliRunner().invoke(main, ["--root", str(root), *args], env=env)


@pytest.mark.docker
def test_a_pr_evaluates_only_its_submission_against_mains_restored_results(
    tmp_path: Path, fixture_task_root: Path, base_image: str
) -> None:
    remote, main_repo = new_remote(tmp_path, clone="main")
    copy_fixture_task(fixture_task_root, main_repo)
    write_submission(main_repo, "merged", features=[1], setting="single")
    (main_repo / ".gitignore").write_text(".arena/\ngh_output\nsummary.md\n")
    base = push_main(main_repo, "main")
    # publish: evaluate main's submission and keep the result on the data branch
    assert arena(main_repo, base_image, "evaluate", "--all").exit_code == 0
    saved = arena(main_repo, base_image, "bot", "store", "save")
    assert saved.exit_code == 0, saved.output

    # the PR's runner: a fresh checkout of the PR head, empty store
    pr = tmp_path / "pr"
    git("clone", "--quiet", str(remote), str(pr), cwd=tmp_path)
    changed = write_submission(pr, "from-pr", features=[1, 2], setting="solo")
    git("add", "-A", cwd=pr)
    git("commit", "--quiet", "-m", "add a submission", cwd=pr)
    restored = arena(pr, base_image, "bot", "store", "restore", "--optional")
    assert restored.exit_code == 0 and "restored 1 result(s)" in restored.output
    done = arena(pr, base_image, "bot", "evaluate-pr", "--event",
                 str(DATA / "pull_request_fork.json"), "--base", base, "--evaluate",
                 "--output", str(tmp_path / "artifact"))
    assert done.exit_code == 0, done.output
    assert "1 submission(s), 1/2 feature runs passed" in done.output  # only the PR's
    assert "merged run1" not in done.output
    bundle = load_bundle(tmp_path / "artifact" / "bundle.json")
    assert [e["key"] for e in bundle.entries] == ["calc-fixture/from-pr"]
    entry = bundle.entries[0]
    assert entry["status"] == "scored"
    # Its feature-1 patch is main's (both are the gold patch): flagged as identical, so it
    # is under review and takes no rank until a maintainer clears it.
    assert entry["review_status"] == "under-review" and entry["rank"] is None
    assert [f["kind"] for f in entry["review_flags"]] == ["identical_patch"]
    assert [t["task_id"] for t in bundle.tasks] == ["calc-fixture"]
    assert bundle.tasks[0]["scored"] == 2  # scored against main's entry too
    assert [r["submission_id"] for r in bundle.results] == ["from-pr"]
    assert f"{changed}/submission.yaml" in bundle.changed_files
    summary = (pr / "summary.md").read_text()
    assert "Baseline it was measured against" in summary
    assert "evaluated submission(s) on calc-fixture" in summary

    # without main's results the PR is still evaluated; main's entry is then pending
    lone = tmp_path / "lone"
    shutil.copytree(pr, lone, ignore=shutil.ignore_patterns(".arena"))
    warn = arena(lone, base_image, "bot", "store", "restore", "--optional", "--remote", "gone")
    assert warn.exit_code == 0 and "warning: main's stored results were not restored" in (
        warn.output)
    alone = arena(lone, base_image, "bot", "evaluate-pr", "--event",
                  str(DATA / "pull_request_fork.json"), "--base", base, "--evaluate",
                  actions=True)
    assert alone.exit_code == 0, alone.output
    # inside Actions the evaluation's output (the submission's test names and reasons) is
    # plain text to the runner: it sits in a stop-commands block
    start = alone.output.index("::stop-commands::")
    token = alone.output[start:].split("\n", 1)[0].removeprefix("::stop-commands::")
    assert start < alone.output.index("feature runs passed") < alone.output.index(
        f"::{token}::")
    board = json.loads((lone / ".arena" / "pr-board" / "leaderboard.json").read_text())
    assert sorted(e["status"] for e in board["entries"]) == ["pending", "scored"]


def test_evaluate_and_leaderboard_do_not_mix(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [
        "--root", str(tmp_path), "bot", "evaluate-pr", "--changed-files", "-", "--evaluate",
        "--leaderboard", "x.json"], input="", env={"GITHUB_EVENT_PATH": ""})
    assert result.exit_code == 2 and "drop --leaderboard" in result.output
