"""JSON Schemas of the public formats, generated from the models and committed.

Editors validate YAML against them (``# yaml-language-server: $schema=...``); a test and
``arena schema --check`` fail when the committed files drift from the models.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from arena_bot.bot.bundle import Bundle
from arena_bot.bot.unit_result import UnitResult
from arena_bot.core.config import ArenaConfig
from arena_bot.core.errors import InputError
from arena_bot.core.files import write_atomically
from arena_bot.core.yamlio import read_text_capped
from arena_bot.models.evaluation import EvaluationResult
from arena_bot.models.leaderboard import Leaderboard
from arena_bot.models.review import ReviewFile
from arena_bot.models.submission import Submission
from arena_bot.models.task import Task
from arena_bot.site.history import Snapshot

#: Where the committed schemas live (package data).
SCHEMA_DIR = Path(__file__).parents[1] / "schemas"
_DRAFT = "https://json-schema.org/draft/2020-12/schema"
#: The largest schema is some 30 KB: a file far bigger is not one of them.
MAX_SCHEMA_BYTES = 1024 * 1024
_REWRITE = "run `arena schema --write` to write the schema files again"


@dataclass(frozen=True)
class SchemaFile:
    """One generated schema: its file name and the model it describes."""

    name: str
    model: type[BaseModel]
    title: str

    def render(self) -> str:
        """The schema as the exact text committed (stable key order, trailing newline)."""
        schema = self.model.model_json_schema(mode="validation")
        document = {"$schema": _DRAFT, "$id": self.name, **schema, "title": self.title}
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


SCHEMAS: tuple[SchemaFile, ...] = (
    SchemaFile(name="task.schema.json", model=Task, title="Agentic Arena task (task.yaml)"),
    SchemaFile(
        name="arena-config.schema.json",
        model=ArenaConfig,
        title="Agentic Arena repository configuration (arena.yaml)",
    ),
    SchemaFile(
        name="submission.schema.json",
        model=Submission,
        title="Agentic Arena submission (submission.yaml)",
    ),
    SchemaFile(
        name="evaluation-result.schema.json",
        model=EvaluationResult,
        title="Agentic Arena evaluation result (arena evaluate output)",
    ),
    SchemaFile(
        name="bot-bundle.schema.json",
        model=Bundle,
        title="Agentic Arena PR evaluation bundle (arena bot evaluate-pr output)",
    ),
    SchemaFile(
        name="site-snapshot.schema.json",
        model=Snapshot,
        title="Agentic Arena site snapshot (board/snapshot.json of arena site build)",
    ),
    SchemaFile(
        name="review.schema.json",
        model=ReviewFile,
        title="Agentic Arena review file (reviews/<task>/<submission>.yaml)",
    ),
    SchemaFile(
        name="leaderboard.schema.json",
        model=Leaderboard,
        title="Agentic Arena leaderboard (leaderboard.json of arena score)",
    ),
    SchemaFile(
        name="bot-unit-result.schema.json",
        model=UnitResult,
        title="Agentic Arena unit result (arena bot evaluate-unit output)",
    ),
)


def drifted(directory: Path = SCHEMA_DIR) -> list[str]:
    """Names of schema files in ``directory`` that are missing or differ from the models.

    A folder that is not there is an error (not every file "differs"), and so is a schema
    file that is not a regular file (a device or a FIFO, never read), is over
    :data:`MAX_SCHEMA_BYTES` or is not UTF-8 text."""
    if not directory.is_dir():
        raise InputError("no folder of schema files here", path=directory,
                         hint="pass the folder the schema files are in (--dir), or create "
                              "them with `arena schema --write --dir DIR`")
    stale = []
    for schema in SCHEMAS:
        path = directory / schema.name
        if not path.exists():
            stale.append(schema.name)
            continue
        try:
            current = read_text_capped(path, limit=MAX_SCHEMA_BYTES, what="schema file")
        except InputError as exc:  # its hint is a contributor's (large logs and the like)
            raise InputError(exc.message, path=path, line=exc.line, hint=_REWRITE) from None
        if current != schema.render():
            stale.append(schema.name)
    return stale


def write_all(directory: Path = SCHEMA_DIR) -> list[Path]:
    """(Re)write every schema file into ``directory``; return the paths written.

    Each file is replaced whole (written beside it, then renamed over it): a full disk or
    an interrupted run leaves the old file, never half a new one."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder: {exc.strerror or exc}", path=directory,
                         hint="pass a folder you can write to with --dir") from None
    written = []
    for schema in SCHEMAS:
        path = directory / schema.name
        try:
            write_atomically(path, schema.render().encode("utf-8"))
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", path=path,
                             hint="this file and those after it are as they were; free "
                                  "space, or pass a folder you can write to with --dir, and "
                                  "run it again") from None
        written.append(path)
    return written
