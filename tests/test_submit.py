"""``arena submit`` against real git working trees of the shipped slugkit-options task."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from support.gitrepo import GIT_ENV, commit_folder, git

from arena_bot.cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent
TASK = "slugkit-options"
SAMPLE = REPO_ROOT / "submissions" / TASK / "2026-11-02_claude-code_claude-sonnet-4-5"
SAMPLE_PATCH = SAMPLE / "max-length.patch"
FOLDER = "2026-11-20_claude-code_claude-sonnet-4-5"




@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A leaderboard repository with the real task and no submissions yet."""
    root = tmp_path / "board"
    shutil.copytree(REPO_ROOT / "dataset" / TASK, root / "dataset" / TASK)
    (root / "submissions").mkdir()
    return root


def agent_workdir(project: Path, where: Path) -> Path:
    """A clone of the task repository at its base commit, changed as an agent would."""
    spec = yaml.safe_load((project / "dataset" / TASK / "task.yaml").read_text())
    git("clone", "-q", str(project / "dataset" / TASK / "repo.bundle"), str(where), cwd=project)
    git("checkout", "-q", spec["source"]["commit"], cwd=where)
    git("apply", str(SAMPLE_PATCH), cwd=where)
    (where / "slugkit" / "notes_helper.py").write_text("HELPER = True\n")  # untracked, kept
    tests = sorted((where / "tests").glob("test_*.py"))[0]
    tests.write_text(tests.read_text() + "\n# the agent touched a test file\n")  # left out
    git("add", str(tests), cwd=where)  # staged on purpose: the contributor's index is not used
    return where


def metrics_levels(project: Path, folders: list[Path], tmp_path: Path
                   ) -> dict[str, tuple[str, list[str]]]:
    """Each folder's metrics level and reasons as the board gives them: scored with the
    task's base commit checked out clean to replay the transcripts' edits on."""
    from arena_bot.evaluation.store import ResultStore
    from arena_bot.scoring.incremental import score_task
    from arena_bot.scoring.inputs import ScoringOptions
    from arena_bot.tasks.dataset import Dataset

    checkout = tmp_path / "base"
    agent_workdir(project, checkout)
    git("checkout", "-q", "--", ".", cwd=checkout)
    git("reset", "-q", "--hard", cwd=checkout)
    git("clean", "-qfd", cwd=checkout)
    part = score_task(Dataset(project / "dataset").get(TASK), folders,
                      ResultStore(tmp_path / "results").lookup,
                      ScoringOptions(base_checkout=lambda task: checkout))
    return {entry["submission_id"]: (entry["metrics_level"], entry["metrics_reasons"])
            for entry in part.entries()}


def transcript(
    path: Path, *, output: int = 40, secret: bool = True, edited: str = "/w/slugkit/__main__.py"
) -> Path:
    """A small Claude Code session (one model) with a key and an e-mail in a tool result; its
    replies' lines carry their stop_reason (final output counts), as 2.1.328 writes them."""
    leak = "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123 by dev@example.com"
    lines = [
        {"type": "user", "uuid": "u1", "timestamp": "2026-11-20T10:00:00Z", "cwd": "/w",
         "message": {"role": "user", "content": "add --max-length"}},
        {"type": "assistant", "uuid": "u2", "timestamp": "2026-11-20T10:00:05Z", "cwd": "/w",
         "message": {"id": "msg_1", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
                     "content": [
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "env"}}],
             "usage": {"input_tokens": 1200, "output_tokens": output,
                       "cache_creation_input_tokens": 3000, "cache_read_input_tokens": 0}}},
        {"type": "user", "uuid": "u3", "timestamp": "2026-11-20T10:00:07Z", "cwd": "/w",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t1", "content": leak if secret else "ok"}]}},
        {"type": "assistant", "uuid": "u4", "timestamp": "2026-11-20T10:01:10Z", "cwd": "/w",
         "message": {"id": "msg_2", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
                     "content": [
             {"type": "tool_use", "id": "t2", "name": "Edit", "input": {"file_path": edited}}],
             "usage": {"input_tokens": 300, "output_tokens": 500,
                       "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000}}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def run_submit(project: Path, *pairs: tuple[Path, Path]) -> tuple[int, str]:
    args = ["--root", str(project), "submit", "--task", TASK, "--format", "claude-code",
            "--tool", "Claude Code", "--tool-version", "2.0.40", "--contributor", "Test Person",
            "--date", "2026-11-20"]
    for workdir, session in pairs:
        args += ["--workdir", str(workdir), "--transcript", str(session)]
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def validate(project: Path, folder: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--root", str(project), "validate", str(folder)])
    return result.exit_code, result.output


def leftovers(project: Path) -> list[Path]:
    return sorted((project / "submissions").glob(".arena-submit-*"))


def submitted(project: Path, tmp_path: Path) -> Path:
    """Submit one agent run (a changed working tree and its transcript); the folder written."""
    workdir = agent_workdir(project, tmp_path / "work")
    code, output = run_submit(project, (workdir, transcript(tmp_path / "s.jsonl")))
    assert code == 0, output
    return project / "submissions" / TASK / FOLDER


def edit_spec(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Apply ``change`` to the folder's submission.yaml, as a contributor editing it would."""
    spec = yaml.safe_load((folder / "submission.yaml").read_text())
    change(spec)
    (folder / "submission.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))


def test_submit_writes_a_folder_that_validates_as_is(project: Path, tmp_path: Path) -> None:
    workdir = agent_workdir(project, tmp_path / "work")
    code, output = run_submit(project, (workdir, transcript(tmp_path / "s.jsonl")))
    assert code == 0, output
    folder = project / "submissions" / TASK / FOLDER
    spec = yaml.safe_load((folder / "submission.yaml").read_text())
    run = spec["runs"][0]
    # Every figure comes from the transcript: 1500 uncached + 3000 read + 3200 written.
    assert run["tokens"] == {"total": 7700 + 540, "prompt": 7700, "completion": 540,
                             "cached": 3000}
    assert (run["tool_calls"], run["iterations"], run["execution_time"]) == (2, 2, 70.0)
    expected_cost = (1500 * 3.00 + 3000 * 0.30 + 3200 * 3.75 + 540 * 15.00) / 1e6
    assert run["estimated_cost"] == pytest.approx(expected_cost, abs=1e-4)
    assert spec["models"] == ["claude-sonnet-4-5"] and spec["setting"] == "single"
    patch = (folder / "run-1.patch").read_text()
    assert "b/slugkit/__main__.py" in patch and "b/slugkit/notes_helper.py" in patch
    assert "tests/" not in patch
    stored = (folder / run["transcript"]["file"]).read_text()
    assert "sk-proj-" not in stored and "dev@example.com" not in stored
    assert "[REDACTED:openai-key]" in stored and "[REDACTED:email]" in stored
    assert "redacted email on line 3; openai-key on line 3" in output
    assert "Could not read" not in output
    assert validate(project, folder)[0] == 0
    # The contributor's own index is untouched: the staged test change is still staged.
    assert git("diff", "--cached", "--name-only", cwd=workdir).strip().startswith("tests/")
    assert leftovers(project) == []


def messy_changes(where: Path) -> None:
    """Every kind of change an agent's working tree can hold that a text patch carries."""
    git("mv", "README.md", "README.rst", cwd=where)  # a staged rename
    (where / "slugkit" / "core.py").rename(where / "slugkit" / "engine.py")  # a plain mv...
    init = where / "slugkit" / "__init__.py"
    init.write_text(init.read_text().replace(".core", ".engine"))
    main_module = where / "slugkit" / "__main__.py"
    main_module.write_text(main_module.read_text().replace(".core", ".engine"))
    with (where / "slugkit" / "engine.py").open("a") as engine:  # ... with an edit
        engine.write("\n# moved\n")
    (where / ".gitignore").unlink()  # a deletion
    (where / "pyproject.toml").chmod(0o755)  # a mode change only
    (where / "slugkit" / "crlf.py").write_bytes(b"x = 1\r\ny = 2\r\n")  # CRLF
    with main_module.open("ab") as handle:  # CRLF lines added to an LF file
        handle.write(b"# one\r\n# two\r\n")
    (where / "slugkit" / "empty.py").write_text("")  # an empty new file
    (where / "slugkit" / "nonl.py").write_text("END = 1")  # no newline at its end
    (where / "slugkit" / "caf\u00e9.py").write_text("NAME = 'caf\u00e9'\n")  # quoted by git
    (where / "docs with space.md").write_text("notes\n")
    (where / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (where / "run.sh").chmod(0o755)  # a new executable


def files_of(tree: Path, *, leave_out: set[str]) -> dict[str, tuple[bytes, bool]]:
    """Each file's bytes and executable bit, by path (the .git folder left out)."""
    return {str(path.relative_to(tree)): (path.read_bytes(), bool(path.stat().st_mode & 0o100))
            for path in tree.rglob("*") if path.is_file() and ".git" not in path.parts
            and str(path.relative_to(tree)) not in leave_out}


def test_the_submitted_patch_applies_back_to_the_agents_tree_exactly(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The contributor's git config: no context lines in diffs, and a textconv driver (as git's
    # documentation suggests for notebooks or images) on Python files. Neither may shape the
    # patch: git apply refuses hunks without context, and a textconv's text is not the file's.
    (tmp_path / "attributes").write_text("*.py diff=upper\n")
    (tmp_path / "gitconfig").write_text(
        f"[diff]\n\tcontext = 0\n[core]\n\tattributesFile = {tmp_path / 'attributes'}\n"
        "[diff \"upper\"]\n\ttextconv = tr a-z A-Z <\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    workdir = agent_workdir(project, tmp_path / "work")
    messy_changes(workdir)
    code, output = run_submit(project, (workdir, transcript(tmp_path / "s.jsonl")))
    assert code == 0, output
    folder = project / "submissions" / TASK / FOLDER
    assert validate(project, folder)[0] == 0
    patch = folder / "run-1.patch"
    # Applied as the evaluation applies it (harness.sh, the first plain git apply), on a
    # clean clone at the base commit: the agent's tree, byte for byte, modes included.
    monkeypatch.delenv("GIT_CONFIG_GLOBAL")
    clean = tmp_path / "clean"
    spec = yaml.safe_load((project / "dataset" / TASK / "task.yaml").read_text())
    git("clone", "-q", str(project / "dataset" / TASK / "repo.bundle"), str(clean), cwd=tmp_path)
    git("checkout", "-q", spec["source"]["commit"], cwd=clean)
    harness = REPO_ROOT / "arena_bot" / "evaluation" / "harness.sh"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **GIT_ENV}
    applied = subprocess.run(["sh", str(harness), "apply", str(patch)], cwd=clean, env=env,
                             capture_output=True, text=True, check=False)
    assert (applied.returncode, applied.stdout) == (0, ""), applied.stdout
    test_file = sorted((workdir / "tests").glob("test_*.py"))[0]
    left_out = {str(test_file.relative_to(workdir))}  # the agent's test edit is not submitted
    assert files_of(clean, leave_out=left_out) == files_of(workdir, leave_out=left_out)


def test_second_submit_adds_a_run_to_the_same_submission(project: Path, tmp_path: Path) -> None:
    first = agent_workdir(project, tmp_path / "one")
    second = agent_workdir(project, tmp_path / "two")
    assert run_submit(project, (first, transcript(tmp_path / "a.jsonl")))[0] == 0
    code, output = run_submit(project, (second, transcript(tmp_path / "b.jsonl", output=90)))
    assert code == 0, output
    folder = project / "submissions" / TASK / FOLDER
    spec = yaml.safe_load((folder / "submission.yaml").read_text())
    assert [run["id"] for run in spec["runs"]] == ["run-1", "run-2"]
    assert spec["runs"][1]["tokens"]["completion"] == 590
    assert validate(project, folder)[0] == 0


def test_several_runs_in_one_call(project: Path, tmp_path: Path) -> None:
    pairs = [
        (agent_workdir(project, tmp_path / f"w{n}"), transcript(tmp_path / f"t{n}.jsonl"))
        for n in range(3)
    ]
    code, output = run_submit(project, *pairs)
    assert code == 0, output
    spec = yaml.safe_load((project / "submissions" / TASK / FOLDER / "submission.yaml").read_text())
    assert len(spec["runs"]) == 3


def test_ten_times_too_low_tokens_are_flagged_with_the_transcripts_figure(
    project: Path, tmp_path: Path
) -> None:
    folder = submitted(project, tmp_path)

    def tenth(spec: dict[str, Any]) -> None:
        tokens = spec["runs"][0]["tokens"]
        spec["runs"][0]["tokens"] = {key: value // 10 for key, value in tokens.items()}

    edit_spec(folder, tenth)
    code, output = validate(project, folder)
    assert code == 1
    assert "metric-mismatch" in output and "reported tokens.total = 824" in output
    assert "gives 8,240" in output and "lines 1-4" in output


def test_clean_working_tree_is_refused_and_nothing_is_written(
    project: Path, tmp_path: Path
) -> None:
    spec = yaml.safe_load((project / "dataset" / TASK / "task.yaml").read_text())
    clean = tmp_path / "clean"
    git("clone", "-q", str(project / "dataset" / TASK / "repo.bundle"), str(clean), cwd=tmp_path)
    git("checkout", "-q", spec["source"]["commit"], cwd=clean)
    code, output = run_submit(project, (clean, transcript(tmp_path / "s.jsonl")))
    assert code == 1
    assert "no changes against the task's base commit" in output and str(clean) in output
    assert not (project / "submissions" / TASK).exists() or not any(
        (project / "submissions" / TASK).iterdir()
    )
    assert leftovers(project) == []


def test_folder_that_is_not_a_git_tree_is_refused(project: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    code, output = run_submit(project, (plain, transcript(tmp_path / "s.jsonl")))
    assert code == 1 and "not a git working tree" in output and "Traceback" not in output


def test_a_folder_inside_the_working_tree_is_refused(project: Path, tmp_path: Path) -> None:
    """Its diff would be only part of the run's changes."""
    workdir = agent_workdir(project, tmp_path / "work")
    code, output = run_submit(project, (workdir / "slugkit", transcript(tmp_path / "s.jsonl")))
    assert code == 1 and "not a git working tree" in output and "Traceback" not in output
    assert leftovers(project) == []


def test_a_tree_without_the_base_commit_is_refused(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.py").write_text("X = 1\n")
    commit_folder(other, message="unrelated")
    code, output = run_submit(project, (other, transcript(tmp_path / "s.jsonl")))
    assert code == 1 and "base commit" in output and "is not in this repository" in output
    assert str(other) in output and "Traceback" not in output


def test_changes_that_are_not_utf8_are_refused_by_name(project: Path, tmp_path: Path) -> None:
    workdir = agent_workdir(project, tmp_path / "work")
    (workdir / "slugkit" / "latin1.py").write_bytes("NAME = 'caf\u00e9'\n".encode("latin-1"))
    code, output = run_submit(project, (workdir, transcript(tmp_path / "s.jsonl")))
    assert code == 1 and "not UTF-8" in output and str(workdir) in output
    assert "Traceback" not in output and leftovers(project) == []
    assert not (project / "submissions" / TASK).exists() or not any(
        (project / "submissions" / TASK).iterdir()
    )


def test_truncated_transcript_names_file_and_line_and_keeps_existing_runs(
    project: Path, tmp_path: Path
) -> None:
    workdir = agent_workdir(project, tmp_path / "work")
    assert run_submit(project, (workdir, transcript(tmp_path / "ok.jsonl")))[0] == 0
    folder = project / "submissions" / TASK / FOLDER
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    broken = tmp_path / "cut.jsonl"
    text = transcript(tmp_path / "full.jsonl").read_text()
    broken.write_text(text[: len(text) - 40])
    code, output = run_submit(project, (workdir, broken))
    assert code == 1
    assert f"{broken}:4" in output and "truncated" in output
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert leftovers(project) == []


def test_mismatched_pairs_are_a_usage_error(project: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [
        "--root", str(project), "submit", "--task", TASK, "--format", "claude-code",
        "--tool", "Claude Code", "--tool-version", "1", "--contributor", "X",
        "--workdir", str(tmp_path), "--workdir", str(tmp_path),
        "--transcript", str(tmp_path / "a.jsonl"),
    ])
    assert result.exit_code == 2 and "one --transcript per --workdir" in result.output


def test_a_sketchy_transcript_leaves_the_entry_self_reported_with_its_reasons(
    project: Path, tmp_path: Path
) -> None:
    """The submitted figures agree with the transcript (validation passes), but a four-line
    session whose Edit carries no text cannot reproduce the patch: no level, reasons
    stated; the sample without a transcript says so."""
    submitted(project, tmp_path)
    shutil.copytree(SAMPLE, project / "submissions" / TASK / SAMPLE.name)  # no transcript
    marks = metrics_levels(project, sorted((project / "submissions" / TASK).iterdir()),
                           tmp_path)
    level, reasons = marks[FOLDER]
    assert level == "self-reported"
    # Its Edit changes __main__.py, which the session never read (Claude Code refuses that).
    assert any("never read" in r and "slugkit/__main__.py" in r for r in reasons), reasons
    level, reasons = marks[SAMPLE.name]
    assert level == "self-reported" and reasons
    assert all(reason.endswith(": no transcript") for reason in reasons)


def test_a_secret_left_in_a_stored_transcript_fails_validation(
    project: Path, tmp_path: Path
) -> None:
    folder = submitted(project, tmp_path)
    stored = folder / "run-1-transcript.jsonl"
    stored.write_text(stored.read_text().replace("[REDACTED:openai-key]", "sk-" + "a" * 40))
    code, output = validate(project, folder)
    assert code == 1 and "secret-in-transcript" in output and "openai-key on line 3" in output


def test_large_transcript_is_stored_compressed_and_still_verifies(
    project: Path, tmp_path: Path
) -> None:
    session = transcript(tmp_path / "s.jsonl", secret=False)
    filler = json.dumps({"type": "system", "content": "x" * 1000}) + "\n"
    with session.open("a") as handle:
        handle.write(filler * 1500)  # ~1.5 MB of events that carry no usage
    code, output = run_submit(project, (agent_workdir(project, tmp_path / "w"), session))
    assert code == 0, output
    folder = project / "submissions" / TASK / FOLDER
    spec = yaml.safe_load((folder / "submission.yaml").read_text())
    assert spec["runs"][0]["transcript"]["file"] == "run-1-transcript.jsonl.gz"
    assert (folder / "run-1-transcript.jsonl.gz").stat().st_size < 100_000
    assert validate(project, folder)[0] == 0


def test_transcript_of_another_run_is_refused(project: Path, tmp_path: Path) -> None:
    """Its edits share no file with the working tree's patch: copied from elsewhere."""
    workdir = agent_workdir(project, tmp_path / "work")
    other = transcript(tmp_path / "other.jsonl", edited="/w/csvstat/stats.py")
    code, output = run_submit(project, (workdir, other))
    assert code == 1
    assert "transcript-mismatch" in output and "csvstat/stats.py" in output
    assert not (project / "submissions" / TASK / FOLDER).exists()
    assert leftovers(project) == []


def test_cost_three_times_off_is_a_warning_naming_the_price_table(
    project: Path, tmp_path: Path
) -> None:
    folder = submitted(project, tmp_path)

    def tripled(spec: dict[str, Any]) -> None:
        spec["runs"][0]["estimated_cost"] = round(spec["runs"][0]["estimated_cost"] * 3, 4)

    edit_spec(folder, tripled)
    code, output = validate(project, folder)
    assert code == 0
    assert "cost-mismatch" in output and "price table 2026-11-26" in output


def test_secret_bearing_files_are_left_out_of_the_patch_and_named(
    project: Path, tmp_path: Path
) -> None:
    workdir = agent_workdir(project, tmp_path / "work")
    (workdir / ".env").write_text("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123\n")
    (workdir / "deploy").mkdir()
    (workdir / "deploy" / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\nx\n")
    (workdir / ".env.example").write_text("OPENAI_API_KEY=\n")  # a template: kept
    code, output = run_submit(project, (workdir, transcript(tmp_path / "s.jsonl")))
    assert code == 0, output
    assert "Left out of the patch" in output
    assert ".env (an environment file (.env))" in output and "deploy/server.pem" in output
    folder = project / "submissions" / TASK / FOLDER
    patch = (folder / "run-1.patch").read_text()
    assert "b/.env\n" not in patch and "server.pem" not in patch and "b/.env.example" in patch
    assert validate(project, folder)[0] == 0


def test_binary_files_are_left_out_of_the_patch_and_named(
    project: Path, tmp_path: Path
) -> None:
    """An agent that also wrote an image (or left a compiled file behind) gets its run
    submitted with the text changes, the binary files named; validation refuses binary
    patches, so submitting them would only have failed."""
    workdir = agent_workdir(project, tmp_path / "work")
    (workdir / "docs").mkdir()
    (workdir / "docs" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (workdir / "slugkit" / "cache.pyc").write_bytes(b"\x00" * 16)
    code, output = run_submit(project, (workdir, transcript(tmp_path / "s.jsonl")))
    assert code == 0, output
    assert "Left out of the patch" in output
    assert "docs/logo.png (a binary file" in output and "slugkit/cache.pyc (a binary" in output
    folder = project / "submissions" / TASK / FOLDER
    patch = (folder / "run-1.patch").read_text()
    assert "logo.png" not in patch and "cache.pyc" not in patch and "diff --git" in patch
    assert validate(project, folder)[0] == 0


def test_a_repository_the_agent_cloned_into_its_tree_is_left_out_and_named(
    project: Path, tmp_path: Path
) -> None:
    """An agent that cloned something inside its working tree (to read a library's code):
    git adds the clone as a submodule entry, which validation refuses; it is named instead."""
    workdir = agent_workdir(project, tmp_path / "work")
    git("clone", "-q", str(project / "dataset" / TASK / "repo.bundle"),
        str(workdir / "ref_clone"), cwd=tmp_path)
    code, output = run_submit(project, (workdir, transcript(tmp_path / "s.jsonl")))
    assert code == 0, output
    assert "ref_clone (a git repository inside the working tree" in output
    folder = project / "submissions" / TASK / FOLDER
    patch = (folder / "run-1.patch").read_text()
    assert "ref_clone" not in patch and "b/slugkit/__main__.py" in patch
    assert validate(project, folder)[0] == 0


def test_a_transcript_of_another_tool_than_the_one_named_is_a_warning(
    project: Path, tmp_path: Path
) -> None:
    """A Claude Code session handed in as an Aider run would credit Aider with Claude
    Code's work: a warning naming both; any spelling of the right tool is fine."""
    folder = submitted(project, tmp_path)
    for name in ("claude-code", "Claude Code CLI", "CLAUDE CODE"):
        edit_spec(folder, lambda spec, name=name: spec["tool"].update(name=name))
        code, output = validate(project, folder)
        assert code == 0 and "tool-mismatch" not in output, output
    edit_spec(folder, lambda spec: spec["tool"].update(name="Aider"))
    code, output = validate(project, folder)
    assert code == 0 and "warning [tool-mismatch]" in output
    assert "run 'run-1'" in output and "claude-code session" in output and "'Aider'" in output
    assert "submission.yaml" in output


def test_a_symbolic_link_the_agent_made_is_refused_by_name(
    project: Path, tmp_path: Path
) -> None:
    workdir = agent_workdir(project, tmp_path / "work")
    (workdir / "slugkit" / "shortcut.py").symlink_to("/etc/passwd")
    code, output = run_submit(project, (workdir, transcript(tmp_path / "s.jsonl")))
    assert code == 1 and "nothing was written" in output
    assert "symbolic link" in output and "'slugkit/shortcut.py'" in output
    assert not (project / "submissions" / TASK).exists() and leftovers(project) == []


def test_a_secret_written_into_a_source_file_is_refused(project: Path, tmp_path: Path) -> None:
    workdir = agent_workdir(project, tmp_path / "work")
    (workdir / "slugkit" / "settings.py").write_text('DB_PASSWORD = "hunter2-Correct-77"\n')
    code, output = run_submit(project, (workdir, transcript(tmp_path / "s.jsonl")))
    assert code == 1
    assert "slugkit/settings.py (secret-keyword" in output and "nothing was written" in output
    assert not (project / "submissions" / TASK).exists() and leftovers(project) == []


def test_validation_refuses_a_patch_adding_a_secret_file_or_a_secret(
    project: Path, tmp_path: Path
) -> None:
    folder = submitted(project, tmp_path)
    patch = folder / "run-1.patch"
    original = patch.read_text()
    patch.write_text(original + (
        "diff --git a/.env b/.env\nnew file mode 100644\n--- /dev/null\n+++ b/.env\n"
        "@@ -0,0 +1 @@\n+STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc\n"))
    code, output = validate(project, folder)
    assert code == 1 and "secret-file" in output and "'.env'" in output
    assert "secret-in-patch" in output and "stripe-access-key" in output


def test_claude_code_sub_agent_files_are_counted_and_stored_with_the_session(
    project: Path, tmp_path: Path
) -> None:
    session = transcript(tmp_path / "abc-session.jsonl", secret=False)
    agents = tmp_path / "abc-session" / "subagents"
    agents.mkdir(parents=True)
    (agents / "agent-a1.jsonl").write_text(json.dumps(
        {"type": "assistant", "uuid": "sub-1", "isSidechain": True, "agentId": "a1",
         "timestamp": "2026-11-20T10:00:30Z",
         "message": {"id": "msg_sub", "model": "claude-sonnet-4-5", "content": [
             {"type": "tool_use", "id": "t-sub", "name": "Grep", "input": {}}],
             "usage": {"input_tokens": 1000, "output_tokens": 60}}}) + "\n")
    code, output = run_submit(project, (agent_workdir(project, tmp_path / "w"), session))
    assert code == 0, output
    assert "1 sub-agent file stored with the session: agent-a1.jsonl" in output
    assert "were not found beside the session" not in output
    folder = project / "submissions" / TASK / FOLDER
    run = yaml.safe_load((folder / "submission.yaml").read_text())["runs"][0]
    assert (run["tool_calls"], run["iterations"]) == (3, 3)
    assert run["tokens"]["completion"] == 540 + 60
    assert "msg_sub" in (folder / "run-1-transcript.jsonl").read_text()
    assert validate(project, folder)[0] == 0


def test_a_session_whose_sub_agent_files_are_missing_says_so(
    project: Path, tmp_path: Path
) -> None:
    session = transcript(tmp_path / "lone.jsonl", secret=False)
    with session.open("a") as handle:
        handle.write(json.dumps({
            "type": "user", "uuid": "u9", "timestamp": "2026-11-20T10:01:20Z",
            "toolUseResult": {"agentId": "a7f3", "status": "completed"},
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "done"}]}}) + "\n")
    code, output = run_submit(project, (agent_workdir(project, tmp_path / "w"), session))
    assert code == 0, output
    assert "Could not read" in output and "sub-agent(s) a7f3" in output
    assert "copy the session's folder too" in output


def test_a_cost_left_unestimated_names_the_models_the_price_table_lacks(
    project: Path, tmp_path: Path
) -> None:
    """A session of several models, one of them unpriced, said "several models" (though
    several models are priced each at its own rates): the reason is the model the price table
    lacks."""
    session = transcript(tmp_path / "s.jsonl", secret=False)
    lines = session.read_text().splitlines()
    last = json.loads(lines[-1])
    last["message"]["model"] = "in-house-7b"
    session.write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n")
    code, output = run_submit(project, (agent_workdir(project, tmp_path / "w"), session))
    assert code == 0, output
    assert "estimated_cost (not in the price table: in-house-7b;" in output


HEADLESS = REPO_ROOT / "tests" / "transcripts" / "corpus"


def submit_headless(
    project: Path, workdir: Path, output: Path, *, fmt: str, tool: str, model: str | None = None
) -> tuple[int, str]:
    args = ["--root", str(project), "submit", "--task", TASK, "--format", fmt, "--tool", tool,
            "--tool-version", "2.1.7", "--contributor", "Test Person", "--date", "2026-11-20",
            "--workdir", str(workdir), "--transcript", str(output)]
    result = CliRunner().invoke(main, args + (["--model", model] if model else []))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_a_headless_claude_code_stream_is_submitted_with_its_result_events_figures(
    project: Path, tmp_path: Path
) -> None:
    """CooperBench's `<agent>_stream.jsonl` (stdout and stderr of `claude -p --output-format
    stream-json --verbose`): the output and time of its `result` event, not the partial
    counts printed mid-stream; the stored copy validates."""
    stream = tmp_path / "agent1_stream.jsonl"
    real = (HEADLESS / "claude-code/headless-2.1/basic_query.ndjson").read_text()
    stream.write_text("(node:42) Warning: a warning on stderr\n" + real)
    code, output = submit_headless(project, agent_workdir(project, tmp_path / "w"), stream,
                                   fmt="claude-code", tool="Claude Code")
    assert code == 0, output
    folder = next((project / "submissions" / TASK).iterdir())
    run = yaml.safe_load((folder / "submission.yaml").read_text())["runs"][0]
    assert run["tokens"] == {"total": 10 + 21570 + 25, "prompt": 10 + 21570, "completion": 25,
                             "cached": 0}
    assert (run["iterations"], run["execution_time"]) == (1, 2.4)  # rounded as submit does
    assert validate(project, folder)[0] == 0


def test_a_headless_claude_code_stream_cut_off_is_refused_naming_the_session_file(
    project: Path, tmp_path: Path
) -> None:
    stream = tmp_path / "agent1_stream.jsonl"
    real = (HEADLESS / "claude-code/headless-2.1/basic_query.ndjson").read_text()
    stream.write_text("".join(real.splitlines(keepends=True)[:-1]))
    code, output = submit_headless(project, agent_workdir(project, tmp_path / "w"), stream,
                                   fmt="claude-code", tool="Claude Code")
    assert code == 1 and "Traceback" not in output
    assert str(stream) in output and "no final `result` event" in output
    assert "<agent>_session.jsonl" in output
    assert not (project / "submissions" / TASK).exists() or not any(
        (project / "submissions" / TASK).iterdir())


def test_codex_exec_output_is_submitted_with_the_model_named_on_the_command_line(
    project: Path, tmp_path: Path
) -> None:
    """`codex exec --json` names no model and has no time: --model names it, the time is
    recorded as not recorded, and the entry validates."""
    exec_output = HEADLESS / "codex/exec/03_write_schema.jsonl"
    code, output = submit_headless(project, agent_workdir(project, tmp_path / "w"), exec_output,
                                   fmt="codex", tool="Codex", model="gpt-5")
    assert code == 0, output
    assert "execution_time (the format does not record it)" in output
    folder = next((project / "submissions" / TASK).iterdir())
    spec = yaml.safe_load((folder / "submission.yaml").read_text())
    run = spec["runs"][0]
    assert spec["models"] == ["gpt-5"]
    assert run["tokens"] == {"total": 65116 + 237, "prompt": 65116, "completion": 237,
                             "cached": 41856}
    assert run["tool_calls"] == 3
    assert validate(project, folder)[0] == 0


def test_a_run_its_transcript_says_ended_in_an_error_is_no_success(
    project: Path, tmp_path: Path
) -> None:
    """Claude Code 2.1.328 sent SIGINT mid-reply (a real capture): its last `result` has
    `is_error` (`error_during_execution`, `aborted_streaming`). Submitted without --failed,
    the run is recorded as `success: false`, and submit says why; the folder validates. The
    same run edited back to `success: true` is a `success-mismatch` error."""
    stream = HEADLESS / "claude-code/claude-code-2.1.328-interrupt/stream.jsonl"
    code, output = submit_headless(project, agent_workdir(project, tmp_path / "w"), stream,
                                   fmt="claude-code", tool="Claude Code")
    assert code == 0, output
    assert "recorded as success: false: the transcript says the run ended in an error" in output
    assert "aborted_streaming" in output
    folder = next((project / "submissions" / TASK).iterdir())
    spec = yaml.safe_load((folder / "submission.yaml").read_text())
    assert spec["runs"][0]["success"] is False
    assert validate(project, folder)[0] == 0

    edit_spec(folder, lambda spec: spec["runs"][0].update(success=True))
    code, output = validate(project, folder)
    assert code == 1 and "success-mismatch" in output
    assert "reported success: true but the transcript says the run ended in an error" in output


def submit_as(project: Path, workdir: Path, session: Path, *, task: str = TASK,
              tool: str = "Claude Code", model: str | None = None) -> tuple[int, str]:
    """``arena submit`` of one run with the task, tool and model given (no traceback)."""
    args = ["--root", str(project), "submit", "--task", task, "--format", "claude-code",
            "--tool", tool, "--tool-version", "2.0.40", "--contributor", "Test Person",
            "--date", "2026-11-20", "--workdir", str(workdir), "--transcript", str(session)]
    result = CliRunner().invoke(main, args + (["--model", model] if model is not None else []))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def tree_of(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


@pytest.mark.parametrize("task", ["absolute", f"../dataset/{TASK}", f"{TASK}/", "x" * 300])
def test_a_task_that_is_not_a_task_id_is_refused_before_anything_is_written(
    project: Path, tmp_path: Path, task: str
) -> None:
    """A path names a folder outside dataset/ (or a task of it by a detour): the staging
    folder and the submission went where the path pointed, then pydantic's traceback; a
    300-character id was the file system's ENAMETOOLONG."""
    task = str(project / "dataset" / TASK) if task == "absolute" else task
    workdir = agent_workdir(project, tmp_path / "work")
    before = tree_of(project)
    code, output = submit_as(project, workdir, transcript(tmp_path / "s.jsonl"), task=task)
    assert code == 1
    assert "is not a task id" in output and repr(task)[:40] in output
    assert f"known tasks: {TASK}" in output
    assert tree_of(project) == before


@pytest.mark.parametrize(("model", "problem"), [
    ("x\ny", "must be a single line"), ("m" * 101, "at most 100 characters"),
])
def test_a_model_name_a_submission_cannot_hold_is_a_usage_error(
    project: Path, tmp_path: Path, model: str, problem: str
) -> None:
    """As --tool and --contributor are (it was pydantic's traceback)."""
    workdir = agent_workdir(project, tmp_path / "work")
    before = tree_of(project)
    code, output = submit_as(project, workdir, transcript(tmp_path / "s.jsonl"), model=model)
    assert code == 2 and "--model: " in output and problem in output
    assert tree_of(project) == before


def test_a_model_name_from_the_transcript_a_submission_cannot_hold_names_it(
    project: Path, tmp_path: Path
) -> None:
    session = transcript(tmp_path / "s.jsonl")
    session.write_text(session.read_text().replace('"claude-sonnet-4-5"', f'"{"m" * 120}"'))
    workdir = agent_workdir(project, tmp_path / "work")
    before = tree_of(project)
    code, output = submit_as(project, workdir, session)
    assert code == 1 and "at most 100 characters" in output
    assert str(session) in output and "pass --model" in output
    assert tree_of(project) == before


def test_a_long_tool_and_model_name_make_a_folder_name_that_is_a_submission_id(
    project: Path, tmp_path: Path
) -> None:
    """The folder name was their slugs whole: over 80 characters it was no submission id
    (validation refused the folder), over 255 bytes the file system's ENAMETOOLONG."""
    tool = "Claude Code " + "very long edition " * 4 + "x" * 16  # 100 characters
    workdir = agent_workdir(project, tmp_path / "work")
    code, output = submit_as(project, workdir, transcript(tmp_path / "s.jsonl"), tool=tool)
    assert code == 0, output
    (folder,) = (project / "submissions" / TASK).iterdir()
    assert len(folder.name) <= 80
    assert folder.name.startswith("2026-11-20_claude-code-very-long-edition-very")
    assert folder.name.endswith("_claude-sonnet-4-5")
    assert yaml.safe_load((folder / "submission.yaml").read_text())["tool"]["name"] == tool
    assert validate(project, folder)[0] == 0
    # The same names again add a run to it.
    code, output = submit_as(project, workdir, transcript(tmp_path / "s2.jsonl"), tool=tool)
    assert code == 0, output
    assert [f.name for f in (project / "submissions" / TASK).iterdir()] == [folder.name]
    # A model name too long for the rest of the name is cut after the tool's first 32.
    code, output = submit_as(project, workdir, transcript(tmp_path / "s3.jsonl"),
                             tool="T" * 100, model="claude-sonnet-4-5-" + "m" * 80)
    assert code == 0, output
    cut = project / "submissions" / TASK / ("2026-11-20_" + "t" * 32 + "_claude-sonnet-4-5-"
                                            + "m" * 18)
    assert len(cut.name) == 80 and validate(project, cut)[0] == 0


def test_more_runs_than_a_submission_holds_are_refused_without_a_traceback(
    project: Path, tmp_path: Path
) -> None:
    """51 runs in one call: the Submission model refuses them (at most 50); that is an
    error naming the folder, not pydantic's traceback."""
    workdir = agent_workdir(project, tmp_path / "work")
    session = transcript(tmp_path / "s.jsonl")
    code, output = run_submit(project, *[(workdir, session)] * 51)
    assert code == 1 and "at most 50 items" in output and "nothing was written" in output
    assert "Traceback" not in output and str(project / "submissions" / TASK / FOLDER) in output
    assert not (project / "submissions" / TASK).exists() and leftovers(project) == []


def test_validate_and_submit_check_costs_against_the_price_table_of_arena_yaml(
    project: Path, tmp_path: Path
) -> None:
    """Both used the shipped table whatever arena.yaml's `prices` named (score used it):
    a cost right by the board's table was a mismatch to validate, and submit estimated
    costs the board would not."""
    folder = submitted(project, tmp_path)  # estimated with the shipped table
    shipped_cost = yaml.safe_load((folder / "submission.yaml").read_text())["runs"][0][
        "estimated_cost"]
    table = yaml.safe_load((REPO_ROOT / "arena_bot" / "data" / "prices.yaml").read_text())
    table["version"] = "tenfold-test"
    for price in table["models"].values():
        for key in ("input", "cached_input", "cache_write", "output"):
            if price.get(key) is not None:
                price[key] = price[key] * 10
    (project / "prices.yaml").write_text(yaml.safe_dump(table))
    (project / "arena.yaml").write_text("prices: prices.yaml\n")
    code, output = validate(project, folder)
    assert code == 0 and "cost-mismatch" in output and "price table tenfold-test" in output
    code, output = run_submit(project, (agent_workdir(project, tmp_path / "work2"),
                                        transcript(tmp_path / "s2.jsonl")))
    assert code == 0, output
    assert "(price table tenfold-test)" in output
    runs = yaml.safe_load((folder / "submission.yaml").read_text())["runs"]
    assert runs[1]["estimated_cost"] == pytest.approx(shipped_cost * 10, abs=1e-3)
    # The new run's cost is the table's: only the first run (the shipped table's) is off.
    assert output.count("cost-mismatch") == 1
    assert "cost-mismatch: run 'run-1': reported estimated_cost = $0.0255" in output
    (project / "arena.yaml").write_text("prices: ../prices.yaml\n")
    code, output = run_submit(project, (agent_workdir(project, tmp_path / "work3"),
                                        transcript(tmp_path / "s3.jsonl")))
    assert code == 1 and "arena.yaml:1: prices: '../prices.yaml'" in output
    assert len(yaml.safe_load((folder / "submission.yaml").read_text())["runs"]) == 2
