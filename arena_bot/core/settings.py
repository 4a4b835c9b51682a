"""Settings: where things live and how to reach outside services.

Built once at the CLI boundary from options and the environment (``ARENA_*`` variables) and
passed down; nothing reads the environment at import time.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_BASE_IMAGE = "python:3.11-slim-bookworm"
OFFLINE_BASE_IMAGE = "arena-base:bookworm"


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Paths and endpoints used by the commands. Secrets are hidden from ``repr``."""

    root: Path
    dataset_dir: Path
    submissions_dir: Path
    cache_dir: Path
    base_image: str = DEFAULT_BASE_IMAGE
    #: The environment as it was when the command started: read here once, never again
    #: (arena.yaml's ``judge`` section names the variables the judge is reached by).
    environ: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def results_dir(self) -> Path:
        """Content-addressed EvaluationResult JSON files."""
        return self.cache_dir / "results"

    @property
    def published_snapshot(self) -> Path:
        """The last published site's change snapshot, kept between the site build and
        `arena bot store save|restore` (which carry it on the data branch)."""
        return self.cache_dir / "published-snapshot.json"

    @classmethod
    def from_env(
        cls, *, root: Path | None = None, env: Mapping[str, str] | None = None
    ) -> Settings:
        env = os.environ if env is None else env

        def given(name: str) -> str | None:
            # set but empty (a workflow's `${{ inputs.x }}` left blank) is unset, not "."
            return env.get(name) or None

        root = (root or Path(given("ARENA_ROOT") or ".")).resolve()
        return cls(
            root=root,
            dataset_dir=Path(given("ARENA_DATASET") or root / "dataset"),
            submissions_dir=Path(given("ARENA_SUBMISSIONS") or root / "submissions"),
            cache_dir=Path(given("ARENA_CACHE") or root / ".arena"),
            base_image=given("ARENA_BASE_IMAGE") or DEFAULT_BASE_IMAGE,
            environ=dict(env),
        )
