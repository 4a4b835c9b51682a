"""What `arena site build` refuses, in one line naming the file, exit 1, never a traceback:
a board holding a number that is not finite, a board file that is a device, a FIFO or too
big, an output folder that cannot be written; and what it shows when MkDocs itself fails."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena_bot.site import source
from arena_bot.site.build import mkdocs_message

ARENA = [sys.executable, "-c", "from arena_bot.cli import main; main()"]
#: The address space a command under test may take: a file read whole that should not be
#: (``/dev/zero``) ends in a MemoryError here, not in the machine's memory running out.
MEMORY = 3 << 30


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _site_build(project: Path, *args: str | Path,
                timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, "--root", str(project), "site", "build",
                           *(str(a) for a in args)],
                          capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limited)


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and '  File "' not in stderr, stderr


# --- numbers that are not finite -------------------------------------------------------------

def _nan_copy(generated: Path, tmp_path: Path, case: str) -> tuple[Path, Path, str]:
    """A copy of the scored board with one NaN or infinity (Python's json writes them as
    ``NaN`` / ``Infinity`` and reads them back); the path to pass, the damaged file and the
    field the error must name."""
    out = tmp_path / "out"
    shutil.copytree(generated / "out", out)
    if case in ("full-overall", "full-cost"):
        alone = tmp_path / "alone"
        alone.mkdir()
        board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
        if case == "full-overall":
            board["entries"][0]["scores"]["overall"] = float("nan")
            field = "entries.0.scores.overall"
        else:
            board["entries"][0]["metrics"]["estimated_cost"] = float("inf")
            field = "entries.0.metrics.estimated_cost"
        path = alone / "leaderboard.json"
        path.write_text(json.dumps(board), encoding="utf-8")
        return path, path, field
    if case == "split-task":
        first = json.loads((out / "board.json").read_text())["tasks"][0]["task_id"]
        task_file = out / "tasks" / f"{first}.json"
        data = json.loads(task_file.read_text(encoding="utf-8"))
        data["entries"][0]["scores"]["overall"] = float("nan")
        task_file.write_text(json.dumps(data), encoding="utf-8")
        return out, task_file, "entries.0.scores.overall"
    head = json.loads((out / "board.json").read_text(encoding="utf-8"))
    head["tools"][0]["overall"]["mean"] = float("-inf")
    (out / "board.json").write_text(json.dumps(head), encoding="utf-8")
    return out, out / "board.json", "tools.0.overall.mean"


@pytest.mark.parametrize("case", ["full-overall", "full-cost", "split-task", "split-board"])
def test_a_number_that_is_not_finite_is_refused(generated: Path, project: Path,
                                                tmp_path: Path, case: str) -> None:
    """NaN crashed the score histogram (int(NaN)) and infinity the axis ticks (log10)."""
    path, culprit, field = _nan_copy(generated, tmp_path, case)
    assert "NaN" in culprit.read_text() or "Infinity" in culprit.read_text()
    result = _site_build(project, "--leaderboard", path, "--output", tmp_path / "site")
    assert result.returncode == 1, result.stderr
    _no_traceback(result.stderr)
    assert f"error: {culprit}: not " in result.stderr
    assert f"written by `arena score`: {field}: Input should be a finite number" \
        in result.stderr
    assert not (tmp_path / "site").exists()


def test_the_board_arena_score_wrote_is_finite_and_read(generated: Path) -> None:
    """The refusal costs honest boards nothing: the real `arena score`'s files are read."""
    loaded = source.load(generated / "out")
    scored = [e for e in loaded.board.entries if e.scores is not None]
    assert scored and loaded.kind == "split"
    assert "NaN" not in (generated / "out" / "leaderboard.json").read_text()


# --- board files that are not regular files, or too big ------------------------------------

def test_a_board_file_that_is_a_device_or_a_fifo_is_refused_unread(project: Path,
                                                                   tmp_path: Path) -> None:
    fifo = tmp_path / "leaderboard.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero, Path("/dev/zero")):
        result = _site_build(project, "--leaderboard", path, "--output", tmp_path / "site",
                             timeout=60)
        assert result.returncode == 1, result.stderr
        _no_traceback(result.stderr)
        assert f"error: {path}: the leaderboard is not a regular file" in result.stderr
        assert "hint: pass the leaderboard.json `arena score` wrote" in result.stderr


def test_split_files_that_are_not_regular_or_too_big_are_refused(generated: Path,
                                                                 project: Path,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(generated / "out", out)
    first = json.loads((out / "board.json").read_text())["tasks"][0]["task_id"]
    task_file = out / "tasks" / f"{first}.json"
    task_file.unlink()
    task_file.symlink_to("/dev/zero")
    result = _site_build(project, "--leaderboard", out, "--output", tmp_path / "site",
                         timeout=60)
    assert result.returncode == 1, result.stderr
    _no_traceback(result.stderr)
    assert f"error: {task_file}: the task file is not a regular file" in result.stderr
    assert "arena score" in result.stderr

    task_file.unlink()
    with task_file.open("wb") as handle:  # sparse: no disk taken
        handle.truncate(source.MAX_BOARD_BYTES + 1)
    result = _site_build(project, "--leaderboard", out, "--output", tmp_path / "site",
                         timeout=60)
    assert result.returncode == 1, result.stderr
    _no_traceback(result.stderr)
    assert (f"error: {task_file}: the task file is {source.MAX_BOARD_BYTES + 1:,} bytes, over "
            f"the limit of {source.MAX_BOARD_BYTES:,} bytes") in result.stderr


def test_a_previous_snapshot_that_is_a_fifo_is_refused(generated: Path, project: Path,
                                                       tmp_path: Path) -> None:
    """The default snapshot (the output folder's board/snapshot.json) was waited on for
    ever when it was a FIFO."""
    site = tmp_path / "site"
    (site / "board").mkdir(parents=True)
    snapshot = site / "board" / "snapshot.json"
    os.mkfifo(snapshot)
    result = _site_build(project, "--leaderboard", generated / "out", "--output", site,
                         timeout=60)
    assert result.returncode == 1, result.stderr
    _no_traceback(result.stderr)
    assert f"error: {snapshot}: the previous snapshot is not a regular file" in result.stderr
    assert "--previous" in result.stderr


# --- the output folder, and MkDocs' own failures --------------------------------------------

def test_an_output_folder_that_cannot_be_made_is_one_line(generated: Path, project: Path,
                                                          tmp_path: Path) -> None:
    """Said before the render, not as MkDocs' traceback after it."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    target = blocker / "site"
    result = _site_build(project, "--leaderboard", generated / "out", "--output", target)
    assert result.returncode == 1, result.stderr
    _no_traceback(result.stderr)
    assert result.stderr.splitlines() == [
        f"error: {target}: cannot write the site here: Not a directory",
        "  hint: pass a folder you can write to with --output",
    ]
    assert "rendered" not in result.stdout


def test_a_crash_of_mkdocs_shows_its_message_not_its_traceback(generated: Path,
                                                               project: Path,
                                                               tmp_path: Path) -> None:
    """A hand-written page that is not UTF-8 makes MkDocs raise: its log lines and the
    exception's own line are shown, not the frames."""
    own = tmp_path / "repo"
    shutil.copytree(project / "site", own / "site",
                    ignore=shutil.ignore_patterns("board", "mkdocs.board.yml"))
    (own / "site" / "docs" / "broken.md").write_bytes(b"# \xff\xfe not UTF-8\n")
    result = _site_build(own, "--leaderboard", generated / "out",
                         "--output", tmp_path / "site", timeout=300)
    assert result.returncode == 1, result.stderr
    _no_traceback(result.stderr)
    lines = result.stderr.splitlines()
    assert lines[0] == "error: mkdocs build --strict failed:"
    assert any("Error reading page 'broken.md'" in line for line in lines), lines
    assert lines[-1].startswith("UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff")


def test_mkdocs_message_of_chained_exceptions_and_of_plain_errors() -> None:
    chained = "\n".join([
        "WARNING -  a warning first",
        "Traceback (most recent call last):",
        '  File "/x/mkdocs/a.py", line 1, in f',
        "    g()",
        "ValueError: the first",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        '  File "/x/mkdocs/b.py", line 2, in h',
        "    os.makedirs(path)",
        "    ^^^^^^^^^^^^^^^^^",
        "OSError: [Errno 28] No space left on device: '/full/site'",
    ])
    assert mkdocs_message(chained).splitlines() == [
        "WARNING -  a warning first",
        "OSError: [Errno 28] No space left on device: '/full/site'",
    ]
    plain = "ERROR   -  Config value 'theme': unknown\n\nAborted with a configuration error!\n"
    assert mkdocs_message(plain).splitlines() == [
        "ERROR   -  Config value 'theme': unknown", "Aborted with a configuration error!"]
    assert mkdocs_message("") == "(it printed nothing)"
