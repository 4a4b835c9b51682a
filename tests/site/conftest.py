"""A real board (synthetic repository scored by the real `arena score`), built into a site."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena_bot.models.leaderboard import Leaderboard

REPO = Path(__file__).resolve().parents[2]
#: Contributor text with HTML in it: it must show as text, never become markup.
HOSTILE = '<img src="x" onerror="window.__pwned=1"><b>bold</b>'


def _generate(root: Path) -> Leaderboard:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import bench_scale
    finally:
        sys.path.pop(0)
    bench_scale.generate(root, n_submissions=40, n_tasks=4)
    arena = [sys.executable, "-c", "from arena_bot.cli import main; main()"]
    subprocess.run([*arena, "--root", str(root), "score", "--output", str(root / "out")],
                   check=True, capture_output=True)
    board = Leaderboard.model_validate_json((root / "out" / "leaderboard.json").read_bytes())
    first = board.entries[0].model_copy(update={"contributor": HOSTILE})
    # The synthetic tasks are copies of one sample task; give them two categories so the
    # board's category filter has something to filter.
    tasks = [t.model_copy(update={"category": ("cli", "data")[i % 2]})
             for i, t in enumerate(board.tasks)]
    return board.model_copy(update={"entries": [first, *board.entries[1:]], "tasks": tasks})


@pytest.fixture(scope="session")
def hostile() -> str:
    return HOSTILE


@pytest.fixture(scope="session")
def board(tmp_path_factory: pytest.TempPathFactory) -> Leaderboard:
    return _generate(tmp_path_factory.mktemp("board"))


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's MkDocs project and sample submissions to build into."""
    root = tmp_path_factory.mktemp("repo")
    subprocess.run(["cp", "-r", str(REPO / "site"), str(root / "site")], check=True)
    subprocess.run(["cp", "-r", str(REPO / "submissions"), str(root / "submissions")],
                   check=True)
    for stale in ("docs/board", "mkdocs.board.yml"):
        subprocess.run(["rm", "-rf", str(root / "site" / stale)], check=True)
    return root


@pytest.fixture(scope="session")
def built(board: Leaderboard, project: Path) -> Path:
    from arena_bot.site.build import build

    out = project / "site_build"
    build(board, root=project, site_dir=out)
    return out


@pytest.fixture(scope="session")
def server(built: Path) -> Iterator[str]:
    """The built site over real HTTP (file:// would hide broken absolute links)."""
    handler = functools.partial(_QuietHandler, directory=str(built))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass
