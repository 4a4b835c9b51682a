"""``arena site build``: render the pages, then ``mkdocs build --strict`` over the project.

The generated pages live in ``site/docs/board/`` and the navigation that lists them in
``site/mkdocs.board.yml`` (``INHERIT: mkdocs.yml``); both are git-ignored, so the
hand-written ``mkdocs.yml`` and pages stay exactly as they are in git.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import yaml

from arena_bot.core.errors import ArenaError, InputError, UsageError
from arena_bot.core.gitcmd import run_git
from arena_bot.models.leaderboard import Leaderboard
from arena_bot.site import history, hooks, source
from arena_bot.site.details import evaluation_details
from arena_bot.site.render import GENERATED, RenderInputs, render
from arena_bot.site.source import BoardSource
from arena_bot.site.submission import kept_pages, stored_results, write_pages
from arena_bot.site.views import Slugs

CONFIG = "mkdocs.board.yml"

#: Theme settings the board needs: no Google Fonts (nothing fetched from a CDN at view
#: time), light and dark palettes with a toggle, and search.
_THEME = {
    "font": False,
    "palette": [
        {"media": "(prefers-color-scheme: light)", "scheme": "default",
         "toggle": {"icon": "material/weather-night", "name": "Switch to dark mode"}},
        {"media": "(prefers-color-scheme: dark)", "scheme": "slate",
         "toggle": {"icon": "material/weather-sunny", "name": "Switch to light mode"}},
    ],
}


class SiteError(ArenaError):
    """``mkdocs build --strict`` failed (a broken link, a missing page)."""


@dataclass(frozen=True)
class BuildTimes:
    render: float
    mkdocs: float
    pages: int
    changes: str = ""  # one line on the change record
    #: Submission pages written after MkDocs (and the seconds that took).
    submissions: int = 0
    submission_seconds: float = 0.0


def changes_line(before: history.Snapshot | None, after: history.Snapshot) -> str:
    """What the Changes page records for this build, in one line for the terminal."""
    if before is None:
        return "first build: no earlier snapshot to compare with (the Changes page says so)"
    if before.input_digest == after.input_digest:
        return "same inputs as the previous build: the change record is kept as it was"
    kinds = [c.kind for c in after.log[0].changes]
    counts = ", ".join(f"{kinds.count(k)} {k}" for k in
                       ("added", "removed", "rescored", "flagged", "unflagged"))
    return f"since the previous build: {counts}"


load_board = source.load


def empty_board() -> Leaderboard:
    """The board before anything is scored (the site's empty state)."""
    from arena_bot.models.leaderboard import LeaderboardOptions

    return Leaderboard(
        input_digest="0" * 64, tasks=[], entries=[], tools=[],
        options=LeaderboardOptions(weights="category", min_submissions=5, confidence=0.95,
                                   judge_model=None, cost_tolerance=0.1,
                                   robust_z_threshold=3.5),
    )


def commit_of(root: Path) -> str:
    """The commit the site is built from (``unknown`` outside a git checkout)."""
    out = run_git(["-C", str(root), "rev-parse", "--short=12", "HEAD"], timeout=10)
    return (out.text.strip() if out.ok else "") or "unknown"


#: The navigation: the board first, the hand-written pages after.
NAV: list[object] = [
    {"Leaderboard": f"{GENERATED}/index.md"},
    {"Compare": f"{GENERATED}/compare.md"},
    {"Tasks, tools and models": f"{GENERATED}/pages.md"},
    {"Submit": f"{GENERATED}/submit.md"},
    {"Data": f"{GENERATED}/data.md"},
    {"Changes": f"{GENERATED}/changes.md"},
    {"About": [
        {"Home": "index.md"},
        {"Submission and task formats": "formats.md"},
        {"Methodology": "methodology.md"},
        {"Methodology in numbers": f"{GENERATED}/methodology.md"},
        {"Architecture": "architecture.md"},
    ]},
]


def write_config(project: Path, site_dir: Path,
                 site_url: str | None = None) -> Path:
    """Write the git-ignored config that adds the generated pages to ``mkdocs.yml``;
    ``site_url`` gives the 404 page (served at any depth) absolute asset links."""
    config: dict[str, object] = {
        "INHERIT": "mkdocs.yml",
        "site_dir": str(site_dir.resolve()),
        "theme": _THEME,
        "plugins": ["search"],
        "hooks": [str(Path(hooks.__file__).resolve())],
        "extra_css": [f"{GENERATED}/assets/board.css"],
        "extra_javascript": [f"{GENERATED}/assets/board.js"],
        "not_in_nav": (f"/{GENERATED}/tasks/\n/{GENERATED}/tools/\n/{GENERATED}/models/\n"
                       f"/{GENERATED}/s/\n"),
        "nav": NAV,
    }
    if site_url:
        config["site_url"] = site_url
    path = project / CONFIG
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), "utf-8")
    return path


def check_site_url(site_url: str) -> str:
    """``http(s)://host/path/`` with the trailing slash MkDocs needs for sub-paths."""
    parsed = urlparse(site_url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise UsageError(f"--site-url {site_url!r} is not an http(s) URL",
                         hint="e.g. --site-url https://owner.github.io/arena/")
    return site_url if site_url.endswith("/") else f"{site_url}/"


def build(board: Leaderboard | BoardSource, *, root: Path, site_dir: Path,
          mkdocs: bool = True, raw_json: str | None = None, site_url: str | None = None,
          previous: Path | history.Snapshot | None = None,
          results: Path | None = None) -> BuildTimes:
    """Render the pages into ``root/site`` and build the static site into ``site_dir``.

    ``previous``: the last published ``board/snapshot.json`` (default: ``site_dir``'s), or
    that snapshot already read; ``results``: the stored evaluation results folder.
    """
    src = board if isinstance(board, BoardSource) else BoardSource(board=board)
    project = root / "site"
    if not (project / "mkdocs.yml").is_file():
        raise InputError("no MkDocs project here (site/mkdocs.yml)", path=project,
                         hint="run from the repository root or pass --root")
    if mkdocs:
        check_output(site_dir)
    start = time.perf_counter()
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    built_from = commit_of(root)
    before = (previous if isinstance(previous, history.Snapshot)
              else history.read_previous(previous or site_dir / GENERATED / history.SNAPSHOT))
    snapshot = history.next_snapshot(src.board, before, built_from=built_from, updated=stamp)
    stored = stored_results(src.board, results)
    details = evaluation_details(stored)
    extra = RenderInputs(root=root, built_from=built_from, updated=stamp, snapshot=snapshot,
                         first=before is None, details=details)
    pages = render(src, project / "docs", extra, raw_json=raw_json)
    config = write_config(project, site_dir,
                          check_site_url(site_url) if site_url else None)
    rendered = time.perf_counter()
    written, built = 0, rendered
    if mkdocs:
        with kept_pages(site_dir / GENERATED):
            run_mkdocs(config)
            built = time.perf_counter()
        written = write_pages(src.board, root=root, site_board=site_dir / GENERATED,
                              slugs=Slugs.of(src.board), results=stored)
    done = time.perf_counter()
    return BuildTimes(render=rendered - start, mkdocs=built - rendered,
                      pages=len(pages), changes=changes_line(before, snapshot),
                      submissions=written, submission_seconds=done - built)


def check_output(site_dir: Path) -> None:
    """The site folder can be made and written to, said in one line before anything is
    rendered (MkDocs would find out after the render, and fail with a Python traceback)."""
    try:
        site_dir.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(prefix=".arena-probe-", dir=site_dir)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        reason = "not a folder" if site_dir.exists() and not site_dir.is_dir() \
            else exc.strerror or str(exc)
        raise InputError(f"cannot write the site here: {reason}", path=site_dir,
                         hint="pass a folder you can write to with --output") from None


def run_mkdocs(config: Path) -> None:
    """``mkdocs build --strict``; its own messages become the error when it fails."""
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config)],
        capture_output=True, text=True, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    if result.returncode != 0:
        raise SiteError(f"mkdocs build --strict failed:\n{mkdocs_message(result.stderr)}")


#: How many of MkDocs' own lines an error shows (its warnings, then why it stopped).
MESSAGE_LINES = 15
_TRACEBACK = "Traceback (most recent call last):"


def mkdocs_message(stderr: str) -> str:
    """What MkDocs said, without a Python traceback: its log lines (warnings, errors,
    ``Aborted with ...``) and, when it crashed, the exception's own line (``OSError: [Errno
    30] Read-only file system: '...'``) instead of the frames that led to it."""
    lines = [line.rstrip() for line in stderr.splitlines() if line.strip()]
    if _TRACEBACK in lines:
        before = lines[: lines.index(_TRACEBACK)]
        last = len(lines) - 1 - lines[::-1].index(_TRACEBACK)
        frames = lines[last + 1:]
        # The frames are indented ("  File ...", their code, the carets); the exception's
        # line and any lines of its message follow the last of them, unindented.
        indented = [i for i, line in enumerate(frames) if line[:1].isspace()]
        raised = frames[indented[-1] + 1:] if indented else frames
        lines = before + raised
    shown = lines[-MESSAGE_LINES:]
    return "\n".join(shown) if shown else "(it printed nothing)"
