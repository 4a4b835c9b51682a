"""The committed JSON Schemas and the formats page stay in sync with the models."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from arena_bot.app.schema import MAX_SCHEMA_BYTES, SCHEMA_DIR, SCHEMAS, drifted
from arena_bot.cli import main
from arena_bot.core.yamlio import parse_yaml, validate_model
from arena_bot.intake.diagnostics import ReportOut
from arena_bot.models.submission import Submission
from arena_bot.models.task import Task

FORMATS_PAGE = Path(__file__).parents[1] / "site" / "docs" / "formats.md"


def test_committed_schemas_match_the_models() -> None:
    assert drifted(SCHEMA_DIR) == [], "run `arena schema --write` and commit the result"


def test_schema_command_check_and_write(tmp_path: Path) -> None:
    copy = tmp_path / "schemas"
    shutil.copytree(SCHEMA_DIR, copy)
    runner = CliRunner()
    assert runner.invoke(main, ["schema", "--check", "--dir", str(copy)]).exit_code == 0

    target = copy / "submission.schema.json"
    target.write_text(target.read_text().replace('"additionalProperties": false', "", 1))
    result = runner.invoke(main, ["schema", "--check", "--dir", str(copy)])
    assert result.exit_code == 1
    assert "submission.schema.json: differs from the models" in result.output

    (copy / "task.schema.json").unlink()
    result = runner.invoke(main, ["schema", "--write", "--dir", str(copy)])
    assert result.exit_code == 0
    assert sorted(p.name for p in copy.iterdir()) == sorted(s.name for s in SCHEMAS)
    assert runner.invoke(main, ["schema", "--check", "--dir", str(copy)]).exit_code == 0
    assert runner.invoke(main, ["schema"]).exit_code == 2


def test_schemas_forbid_unknown_keys() -> None:
    submission = json.loads((SCHEMA_DIR / "submission.schema.json").read_text())
    assert submission["additionalProperties"] is False
    assert submission["$defs"]["Run"]["additionalProperties"] is False
    assert set(submission["required"]) >= {"task", "tool", "runs", "setting"}


def _models(root: type[BaseModel]) -> list[type[BaseModel]]:
    found: dict[type[BaseModel], None] = {}

    def visit(annotation: object) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in found:
                found[annotation] = None
                for field in annotation.model_fields.values():
                    visit(field.annotation)
            return
        for arg in typing.get_args(annotation):
            visit(arg)

    visit(root)
    return list(found)


@pytest.mark.parametrize("root", [Submission, Task])
def test_every_field_is_documented(root: type[BaseModel]) -> None:
    page = FORMATS_PAGE.read_text(encoding="utf-8")
    missing = [
        f"{model.__name__}.{name}"
        for model in _models(root)
        for name in model.model_fields
        if f"`{name}`" not in page
    ]
    assert missing == []


def test_every_setting_category_and_criterion_type_is_documented() -> None:
    page = FORMATS_PAGE.read_text(encoding="utf-8")
    literals = [
        *typing.get_args(Submission.model_fields["setting"].annotation),
        *typing.get_args(Task.model_fields["category"].annotation),
        *typing.get_args(Task.model_fields["difficulty"].annotation),
    ]
    criterion_types = [
        typing.get_args(model.model_fields["type"].annotation)[0]
        for model in _models(Task)
        if "type" in model.model_fields
    ]
    assert len(criterion_types) == 9
    assert [word for word in [*literals, *criterion_types] if f"`{word}`" not in page] == []


def _example(marker: str) -> str:
    page = FORMATS_PAGE.read_text(encoding="utf-8")
    match = re.search(rf"<!-- example: {marker} -->\n```yaml\n(.*?)```", page, re.DOTALL)
    assert match, f"no {marker} example on the formats page"
    return match.group(1)


def test_page_examples_are_valid() -> None:
    submission = validate_model(
        Submission, parse_yaml(_example("submission"), path=FORMATS_PAGE)
    )
    assert len(submission.runs) == 2
    task = validate_model(Task, parse_yaml(_example("task"), path=FORMATS_PAGE))
    # The example spells out every top-level key, so a new field shows up here too.
    assert set(parse_yaml(_example("task"), path=FORMATS_PAGE).data) == set(Task.model_fields)
    assert task.feature_ids() == [1, 2]


def test_page_json_output_example_matches_the_output_model() -> None:
    page = FORMATS_PAGE.read_text(encoding="utf-8")
    match = re.search(r"```json\n(\{\n  \"version\".*?)```", page, re.DOTALL)
    assert match
    ReportOut.model_validate_json(match.group(1))


def test_json_schema_accepts_the_examples_and_refuses_mistakes() -> None:
    """What an editor using the committed schema would say about YAML files."""
    validator = jsonschema.Draft202012Validator(
        json.loads((SCHEMA_DIR / "submission.schema.json").read_text()),
        format_checker=jsonschema.FormatChecker(),
    )
    # YAML's unquoted date is text to an editor (JSON has no dates), as in the schema.
    example = parse_yaml(_example("submission"), path=FORMATS_PAGE).data
    example["date"] = example["date"].isoformat()
    assert list(validator.iter_errors(example)) == []

    wrong = dict(example, toool=1)
    assert any("toool" in error.message for error in validator.iter_errors(wrong))
    wrong = dict(example, setting="pair")
    assert any(list(error.path) == ["setting"] for error in validator.iter_errors(wrong))

    task_validator = jsonschema.Draft202012Validator(
        json.loads((SCHEMA_DIR / "task.schema.json").read_text())
    )
    task_example = parse_yaml(_example("task"), path=FORMATS_PAGE).data
    assert list(task_validator.iter_errors(task_example)) == []


# --- bad folders and files, and writes that fail ---------------------------------------------

ARENA = [sys.executable, "-c", "from arena_bot.cli import main; main()"]


def _schema_command(*args: str | Path, file_size: int | None = None,
                    timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``arena schema ARGS`` in a process of its own, its memory capped (a file read whole
    that should not be ends in a MemoryError there) and, with ``file_size``, the size of
    any file it writes (a write past it fails with EFBIG, as on a full disk)."""
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        if file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    return subprocess.run([*ARENA, "schema", *(str(a) for a in args)], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=limits)


def test_schema_check_of_a_missing_folder_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    result = _schema_command("--check", "--dir", missing)
    assert result.returncode == 1
    assert "differs" not in result.stderr
    assert result.stderr.startswith(f"error: {missing}: no folder of schema files here\n")
    assert "Traceback" not in result.stderr


def test_schema_check_refuses_a_file_that_is_not_regular_or_too_big(tmp_path: Path) -> None:
    copy = tmp_path / "schemas"
    shutil.copytree(SCHEMA_DIR, copy)
    target = copy / "task.schema.json"
    target.unlink()
    target.symlink_to("/dev/zero")
    result = _schema_command("--check", "--dir", copy)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        f"error: {target}: schema file is not a regular file",
        "  hint: run `arena schema --write` to write the schema files again",
    ]
    target.unlink()
    os.mkfifo(target)
    result = _schema_command("--check", "--dir", copy)
    assert result.returncode == 1 and "is not a regular file" in result.stderr
    target.unlink()
    with target.open("wb") as handle:  # sparse: no disk taken
        handle.truncate(MAX_SCHEMA_BYTES + 1)
    result = _schema_command("--check", "--dir", copy)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{target}: schema file is {MAX_SCHEMA_BYTES + 1:,} bytes, over the limit" \
        in result.stderr
    # --write replaces what is there with the schema (the link itself, not /dev/zero).
    target.unlink()
    target.symlink_to("/dev/zero")
    assert _schema_command("--write", "--dir", copy).returncode == 0
    assert not target.is_symlink() and drifted(copy) == []


def test_schema_write_that_fails_keeps_the_old_file_whole(tmp_path: Path) -> None:
    """A write cut short (here: by a file-size limit, as a full disk cuts it) left half a
    task.schema.json, the old one gone, and ended in a traceback."""
    copy = tmp_path / "schemas"
    shutil.copytree(SCHEMA_DIR, copy)
    target = copy / "task.schema.json"
    old = target.read_bytes().replace(b'"additionalProperties": false', b"", 1)
    target.write_bytes(old)
    assert len(old) > 4096
    result = _schema_command("--write", "--dir", copy, file_size=4096)
    assert target.read_bytes() == old
    assert sorted(p.name for p in copy.iterdir()) == sorted(s.name for s in SCHEMAS)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: {target}: cannot write: File too large\n")


def test_schema_write_to_a_folder_that_cannot_be_made(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    result = _schema_command("--write", "--dir", blocker / "schemas")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        f"error: {blocker / 'schemas'}: cannot create the folder: Not a directory",
        "  hint: pass a folder you can write to with --dir",
    ]
