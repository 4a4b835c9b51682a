"""Site build time and page weight, for a small board and a large synthetic one.

Generates a synthetic repository with ``bench_scale.generate`` (N submissions over T tasks,
real stored results), scores it with ``arena score``, then builds the site the way
``arena site build`` does (board read from the split ``board.json`` + ``tasks/<task>.json``,
per-feature details from the stored results, the change log against the previous build)
and prints the time split into reading the board, rendering (Jinja2) and ``mkdocs build
--strict``, the number of pages, and the weight of the pages a reader loads (HTML bytes of
the home page and of the largest task, tool and model pages; the shared theme assets are
counted once). A second build over the first shows the cost with a previous snapshot.

    .venv/bin/python benchmarks/bench_site.py                  # 40/4 and 5,000/200
    .venv/bin/python benchmarks/bench_site.py --sizes 5000:200 20000:400

Target (issue 14, one core): 5,000 submissions over 200 tasks under 30 s in total.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_scale  # benchmarks/ is on sys.path: this runs as a script beside it

from arena_bot.models.leaderboard import Leaderboard
from arena_bot.site import source
from arena_bot.site.build import build

REPO = Path(__file__).resolve().parents[1]

ARENA = [sys.executable, "-c", "from arena_bot.cli import main; main()"]


def _cpu() -> float:
    """CPU seconds of this process and its finished children (mkdocs): a figure that a busy
    machine's wall clock does not blur."""
    own, children = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                      resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _largest(folder: Path) -> int:
    sizes = [p.stat().st_size for p in folder.glob("*/index.html")]
    return max(sizes, default=0)


def bench(n_submissions: int, n_tasks: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="arena-site-"))
    try:
        bench_scale.generate(root, n_submissions=n_submissions, n_tasks=n_tasks)
        subprocess.run([*ARENA, "--root", str(root), "score", "--output", str(root / "out")],
                       check=True, capture_output=True)
        shutil.copytree(REPO / "site", root / "site", ignore=shutil.ignore_patterns(
            "board", "mkdocs.board.yml"))
        start = time.perf_counter()
        Leaderboard.model_validate_json((root / "out" / "leaderboard.json").read_bytes())
        full_read = time.perf_counter() - start
        start = time.perf_counter()
        cpu_start = _cpu()
        loaded = source.load(root / "out")
        split_read = time.perf_counter() - start
        board = loaded.board
        times = build(loaded, root=root, site_dir=root / "site_build",
                      results=root / ".arena" / "results")
        total = time.perf_counter() - start
        cpu = _cpu() - cpu_start
        again = time.perf_counter()
        rebuilt = build(source.load(root / "out"), root=root, site_dir=root / "site_build",
                        results=root / ".arena" / "results")
        second = time.perf_counter() - again
        cli = bench_scale.run(
            [*ARENA, "--root", str(root), "site", "build", "--leaderboard",
             str(root / "out"), "--output", str(root / "site_build")], cwd=root)
        out = root / "site_build"
        html = list(out.rglob("*.html"))
        assets = sum(p.stat().st_size for p in (out / "assets").rglob("*") if p.is_file())
        board_dir = out / "board"
        print(f"\n{n_submissions:,} submissions over {n_tasks} tasks "
              f"({len(board.tools)} tool / model labels)")
        print(f"  read board.json + tasks/ {split_read:8.2f} s  "
              f"(leaderboard.json alone: {full_read:.2f} s)")
        print(f"  render (Jinja2)          {times.render:8.2f} s  ({times.pages} pages)")
        print(f"  mkdocs build --strict    {times.mkdocs:8.2f} s  ({len(html)} HTML files)")
        print(f"  submission pages         {times.submission_seconds:8.2f} s  "
              f"({times.submissions} pages written into the theme's shell)")
        print(f"  total                    {total:8.2f} s  (CPU {cpu:.2f} s, mkdocs included; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        print(f"  second build (snapshot)  {second:8.2f} s  (render {rebuilt.render:.2f} s, "
              f"mkdocs {rebuilt.mkdocs:.2f} s, {rebuilt.submissions} submission pages "
              f"rewritten in {rebuilt.submission_seconds:.2f} s)")
        print(f"  arena site build (CLI)   {cli.seconds:8.2f} s  peak RSS {cli.max_rss_mb:.0f} MB "
              "(the largest of its processes)")
        home = (board_dir / "index.html").stat().st_size
        print(f"  home page HTML           {home / 1024:8.1f} KiB")
        for kind in ("tasks", "tools", "models", "s"):
            name = "submission" if kind == "s" else kind[:-1]
            print(f"  largest {name} page HTML  {_largest(board_dir / kind) / 1024:8.1f} KiB")
        print(f"  theme assets (shared)    {assets / 1024:8.1f} KiB")
        print(f"  search index             "
              f"{(out / 'search' / 'search_index.json').stat().st_size / 1024:8.1f} KiB")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["40:4", "5000:200"],
                        help="SUBMISSIONS:TASKS pairs")
    args = parser.parse_args()
    for size in args.sizes:
        n, t = (int(x) for x in size.split(":"))
        bench(n, t)


if __name__ == "__main__":
    main()
