"""What `arena site build` refuses, in one line naming the file, exit 1, never a traceback:
a board holding a number that is not finite."""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena_bot.site import source

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
