"""The MkDocs site builds with --strict (a broken link or nav entry fails the build)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_site_builds_strictly(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
         "-f", str(REPO / "site" / "mkdocs.yml"), "--site-dir", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    for page in ("index.html", "formats/index.html", "methodology/index.html"):
        assert (tmp_path / "out" / page).is_file(), page
    formats = (tmp_path / "out" / "formats" / "index.html").read_text(encoding="utf-8")
    assert "submission.yaml" in formats
