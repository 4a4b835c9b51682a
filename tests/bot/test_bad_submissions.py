"""Issue 26, point 2: one bad submission in a PR, evaluation on (as the Action runs it).

Each kind of bad ``submission.yaml`` still gets its annotations, job summary and bundle;
the comment mode then writes the comment and the ``arena: invalid`` label, naming the file,
the line and what to do. Nothing here needs Docker: an invalid submission is never
evaluated, but the board around it is scored (what used to raise).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.botdata import DATA, add_pull
from support.fakegithub import TOKEN, FakeGitHub

from arena_bot.bot.bundle import load_bundle
from arena_bot.bot.render import MARKER
from arena_bot.bot.view import LABEL_INVALID, LABEL_VALID
from arena_bot.cli import main

REPO = Path(__file__).resolve().parents[2]
SOURCE = "submissions/csvstat-summaries/2026-11-04_claude-code_claude-sonnet-4-5"
NEW = "submissions/csvstat-summaries/2026-11-20_claude-code_mine"


def _break_yaml(text: str) -> str:
    return text.replace("setting: coop", "setting: [coop")


def _drop_date(text: str) -> str:
    return re.sub(r"^date:.*\n", "", text, flags=re.MULTILINE)


def _negative_tokens(text: str) -> str:
    # The first run's tool calls, whatever the sample says, made negative.
    broken = re.sub(r"^(\s*tool_calls: )(\d+)", r"\1-\2", text, count=1, flags=re.MULTILINE)
    assert broken != text, "the sample has no tool_calls line to break"
    return broken


def _other_task(text: str) -> str:
    return text.replace("task: csvstat-summaries", "task: slugkit-options")


BREAKS = {"yaml-error": _break_yaml, "missing-date": _drop_date,
          "negative-tool-calls": _negative_tokens, "task-not-its-folder": _other_task}


@pytest.fixture
def pr_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO / "dataset", root / "dataset")
    shutil.copytree(REPO / "submissions", root / "submissions")
    shutil.copytree(root / SOURCE, root / NEW)
    return root


def _arena(root: Path, *args: str, env: dict[str, str]):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["--root", str(root), *args], env={
        "ARENA_CACHE": str(root / ".arena"), "GITHUB_OUTPUT": str(root / "out.txt"),
        "GITHUB_STEP_SUMMARY": str(root / "summary.md"), "GITHUB_ACTIONS": "true", **env})


@pytest.mark.parametrize("kind", sorted(BREAKS))
def test_a_bad_submission_gets_its_comment_and_the_invalid_label(
    pr_repo: Path, github: FakeGitHub, kind: str
) -> None:
    yaml_path = pr_repo / NEW / "submission.yaml"
    yaml_path.write_text(BREAKS[kind](yaml_path.read_text()), encoding="utf-8")
    changed = pr_repo / "changed.txt"
    changed.write_text("".join(f"A\t{NEW}/{p.name}\n" for p in (pr_repo / NEW).iterdir()))
    done = _arena(pr_repo, "bot", "evaluate-pr", "--event",
                  str(DATA / "pull_request_fork.json"), "--changed-files", str(changed),
                  "--evaluate", "--output", str(pr_repo / "artifact"), env={})
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output
    # the annotation on the file and line
    annotation = re.search(rf"^::error file={re.escape(NEW)}/submission\.yaml,line=(\d+)",
                           done.output, flags=re.MULTILINE)
    assert annotation, done.output
    assert "verdict=invalid" in (pr_repo / "out.txt").read_text()
    assert MARKER in (pr_repo / "summary.md").read_text()
    bundle = load_bundle(pr_repo / "artifact" / "bundle.json")
    assert not bundle.validation.valid and bundle.entries == []

    pull = add_pull(github, files=[f"{NEW}/submission.yaml"])
    pull.labels = [LABEL_VALID]  # the previous head's verdict
    commented = _arena(pr_repo, "bot", "comment", "--bundle",
                       str(pr_repo / "artifact" / "bundle.json"), env={
                           "GITHUB_API_URL": github.base, "GITHUB_REPOSITORY": "arena/board",
                           "GITHUB_TOKEN": TOKEN,
                           "GITHUB_EVENT_PATH": str(DATA / "workflow_run_fork.json")})
    assert commented.exit_code == 0, commented.output
    assert pull.labels == [LABEL_INVALID]
    (comment,) = pull.comments
    body = comment["body"]
    assert "## Agentic Arena: invalid" in body
    # the table row: file, line and the problem with what to do
    line = annotation.group(1)
    row = next(r for r in body.splitlines() if r.startswith("| ❌ |"))
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[1].replace("\\", "") == f"{NEW}/submission.yaml" and cells[2] == line
    assert " — " in cells[3], "no hint saying what to do"


def test_a_file_name_that_is_not_utf8_is_reported_by_its_bytes(
    pr_repo: Path, github: FakeGitHub
) -> None:
    """git stores any bytes in a name, and quotes such a name in its file list. The list's
    name was decoded with replacement characters (the file "was not in the checkout"), and
    once decoded as the checkout names it, the JSON bundle could not hold it. Now the file
    is found and reported, its byte written as an escape in the bundle and the comment."""
    import os

    (pr_repo / NEW / os.fsdecode(b"notes-caf\xe9.txt")).write_text("x", encoding="utf-8")
    changed = pr_repo / "changed.txt"
    changed.write_text("".join(f"A\t{NEW}/{p.name}\n" for p in (pr_repo / NEW).iterdir()
                               if p.name.isascii())
                       + f'A\t"{NEW}/notes-caf\\351.txt"\n', encoding="utf-8")
    done = _arena(pr_repo, "bot", "evaluate-pr", "--event",
                  str(DATA / "pull_request_fork.json"), "--changed-files", str(changed),
                  "--evaluate", "--output", str(pr_repo / "artifact"), env={})
    assert done.exit_code == 1, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    shown = f"{NEW}/notes-caf\\udce9.txt"
    assert f"::error file={shown},title=arena validate%3A unexpected-file::" in done.output
    bundle = load_bundle(pr_repo / "artifact" / "bundle.json")
    assert shown in bundle.changed_files
    (problem,) = [d for s in bundle.validation.submissions for d in s.diagnostics]
    assert (problem.code, problem.path) == ("unexpected-file", shown)
    assert "notes-caf\\\\udce9.txt" in (pr_repo / "summary.md").read_text(encoding="utf-8")
