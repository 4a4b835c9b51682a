"""Tests of submission validation (library level and through ``arena validate``).

Every test builds its own small repository in tmp_path: ``dataset/demo`` (a task with a real
git bundle and two features) and ``submissions/demo/<id>/``. Nothing depends on the sample
data of the repository.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from support.demo_task import (
    GOLD_PATCH,
    GOOD_PATCH,
    INVALID,
    demo_root,
    submission_yaml,
    valid_data,
    write_demo_task,
    write_submission,
)
from support.gitrepo import git

from arena_bot.cli import main
from arena_bot.intake.diagnostics import Diagnostic
from arena_bot.intake.validation import validate_changed_files, validate_submission
from arena_bot.models.submission import Submission
from arena_bot.tasks.dataset import Dataset


@pytest.fixture(scope="session")
def task_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo task folder, built once (support.demo_task)."""
    return write_demo_task(tmp_path_factory.mktemp("task-src"))


@pytest.fixture()
def root(tmp_path: Path, task_template: Path) -> Path:
    """A repository root with ``dataset/demo`` and an empty ``submissions/demo``."""
    return demo_root(tmp_path, task_template)


def run_cli(root: Path, *args: str, stdin: str | None = None) -> Result:
    """``arena --root ROOT validate ARGS``; fails the test on any traceback."""
    result = CliRunner().invoke(main, ["--root", str(root), "validate", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.output
    )
    assert "Traceback" not in result.output
    return result


def _check(folder: Path, root: Path) -> list[Diagnostic]:
    return validate_submission(
        folder, Dataset(root / "dataset"), submissions_root=root / "submissions"
    )


def _codes(diagnostics: list[Diagnostic], severity: str = "error") -> set[str]:
    return {d.code for d in diagnostics if d.severity == severity}


# -- the valid case ----------------------------------------------------------------------


def test_valid_submission_has_no_diagnostics(root: Path) -> None:
    assert _check(write_submission(root), root) == []
    result = run_cli(root)
    assert result.exit_code == 0, result.output
    assert "1 submission checked: 1 valid, 0 invalid, 0 warnings" in result.output


def test_a_feature_without_recorded_expected_ids_is_a_warning(root: Path) -> None:
    """The maintainer is told to run `arena dataset check`; the submission stays valid."""
    (root / "dataset" / "demo" / "feature1" / "expected_tests.json").unlink()
    (warning,) = _check(write_submission(root), root)
    assert (warning.code, warning.severity) == ("no-expected-tests", "warning")
    assert "feature 1 has no recorded expected test ids" in warning.message
    assert warning.hint == "a maintainer records them with `arena dataset check demo`"
    assert warning.path == root / "dataset" / "demo" / "feature1" / "expected_tests.json"
    result = run_cli(root)
    assert result.exit_code == 0, result.output
    assert "no-expected-tests" in result.output and "1 warning" in result.output


def test_coop_submission_with_two_patches_is_valid(root: Path) -> None:
    data = valid_data()
    data.update(setting="coop", features=[1, 2], models=["gpt-4o", "claude-sonnet-4"])
    data["runs"][0]["patches"] = ["agent1.patch", "agent2.patch"]
    folder = write_submission(
        root, data=data, patches={"agent1.patch": GOOD_PATCH, "agent2.patch": GOOD_PATCH}
    )
    assert _check(folder, root) == []


# -- the invalid examples ----------------------------------------------------------------

EXPECTED = {
    "unknown-key": ("schema", "unknown key 'toool'"),
    "tokens-do-not-add-up": ("schema", "must equal prompt + completion"),
    "cached-over-prompt": ("schema", "cannot exceed prompt"),
    "string-for-int": ("schema", "tool_calls"),
    "negative-count": ("schema", "tool_calls"),
    "nan-cost": ("schema", "estimated_cost"),
    "infinite-time": ("schema", "execution_time"),
    "list-for-mapping": ("schema", "tool"),
    "top-level-list": ("schema", "(document)"),
    "malformed-yaml": ("yaml", "YAML syntax error"),
    "anchor-bomb": ("yaml", "are not allowed"),
    "duplicate-key": ("yaml", "duplicate key 'setting'"),
    "impossible-date": ("yaml", "'2025-02-30' cannot be read"),
    "bidi-override-name": ("schema", "bidirectional-override"),
    "zero-width-contributor": ("schema", "zero-width"),
    "unknown-task": ("unknown-task", "no-such-task"),
    "unknown-feature": ("unknown-feature", "no feature 7"),
    "coop-with-one-patch": ("schema", "needs 2 patch file(s)"),
    "missing-patch": ("missing-patch", "run-1.patch"),
    "not-a-diff": ("patch-not-a-diff", "not a unified diff"),
    "patch-path-traversal": ("patch-unsafe-path", "'..'"),
    "patch-absolute-path": ("patch-unsafe-path", "absolute"),
    "patch-symlink": ("patch-symlink", "symbolic link"),
    "patch-binary": ("patch-binary", "binary"),
    "patch-touches-tests": ("protected-path", "tests/test_calc.py"),
    "patch-adds-conftest": ("protected-path", "conftest.py"),
    "unexpected-file": ("unexpected-file", "not referenced"),
    "task-folder-mismatch": ("task-mismatch", "'other'"),
}


def test_every_invalid_example_is_tested() -> None:
    folders = {p.name for p in INVALID.iterdir() if p.is_dir()}
    assert folders == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_invalid_example_is_reported_with_file_and_line(root: Path, name: str) -> None:
    code, fragment = EXPECTED[name]
    folder = root / "submissions" / "demo" / name
    shutil.copytree(INVALID / name, folder)
    diagnostics = _check(folder, root)
    matching = [d for d in diagnostics if d.code == code and d.severity == "error"]
    assert matching, diagnostics
    assert any(fragment in d.message for d in matching), matching
    for diagnostic in matching:
        assert diagnostic.path is not None and diagnostic.path.is_relative_to(folder)
        # File-level problems (a missing patch file, an extra file) have no line; all else does.
        if code not in {"unexpected-file"}:
            assert diagnostic.line is not None and diagnostic.line >= 1, diagnostic

    result = run_cli(root, str(folder))
    assert result.exit_code == 1
    assert f"submissions/demo/{name}/" in result.output
    assert f"[{code}]" in result.output
    assert "0 valid, 1 invalid" in result.output


def test_schema_error_points_at_the_offending_line(root: Path) -> None:
    folder = root / "submissions" / "demo" / "string-for-int"
    shutil.copytree(INVALID / "string-for-int", folder)
    lines = (folder / "submission.yaml").read_text().splitlines()
    expected_line = next(i for i, text in enumerate(lines, 1) if "tool_calls:" in text)
    (diagnostic,) = [d for d in _check(folder, root) if d.code == "schema"]
    assert diagnostic.line == expected_line
    assert diagnostic.message.startswith("runs.0.tool_calls:")


# -- hostile files made on the fly ---------------------------------------------------------


def test_non_utf8_yaml(root: Path) -> None:
    folder = write_submission(root, text="task: demo\n")
    (folder / "submission.yaml").write_bytes(b"task: demo\ntool: caf\xe9\n")
    result = run_cli(root, str(folder))
    assert result.exit_code == 1
    assert "submissions/demo/good/submission.yaml" in result.output
    assert "2: error [yaml] YAML file is not valid UTF-8" in result.output


def test_huge_sparse_yaml_is_refused_without_reading_it(root: Path) -> None:
    folder = write_submission(root)
    with (folder / "submission.yaml").open("r+b") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: instant, no disk used
    result = run_cli(root, str(folder))
    assert result.exit_code == 1
    assert "over the limit" in result.output
    assert "submission.yaml" in result.output


def test_huge_patch_and_folder_cap(root: Path) -> None:
    folder = write_submission(root)
    with (folder / "run-1.patch").open("r+b") as handle:
        handle.truncate(100 * 1024 * 1024)
    diagnostics = _check(folder, root)
    assert {"patch-too-large", "too-large"} <= _codes(diagnostics)


def test_a_bad_patch_shared_by_two_runs_is_reported_once(root: Path) -> None:
    data = valid_data()
    second = {**data["runs"][0], "id": "run-2"}
    data["runs"].append(second)  # both runs name run-1.patch
    folder = write_submission(root, data=data, patches={"run-1.patch": "not a diff\n"})
    diagnostics = [d for d in _check(folder, root) if d.path.name == "run-1.patch"]
    assert diagnostics
    assert len(diagnostics) == len(set(diagnostics))



def test_runs_sharing_a_protected_patch_get_the_diagnostics_of_one_run(root: Path) -> None:
    """A patch file named by several runs is read and checked once: the diagnostics are
    those of a single run naming it, and a missing file is still reported at each run's
    own line."""
    bad = (INVALID / "patch-touches-tests" / "run-1.patch").read_text()
    single = _check(write_submission(root, patches={"run-1.patch": bad}), root)
    data = valid_data()
    data["runs"].append({**data["runs"][0], "id": "run-2"})
    shutil.rmtree(root / "submissions" / "demo" / "good")
    shared = _check(write_submission(root, data=data, patches={"run-1.patch": bad}), root)
    assert [d for d in shared if d.code == "protected-path"] == [
        d for d in single if d.code == "protected-path"]
    assert any(d.code == "protected-path" for d in shared)

    shutil.rmtree(root / "submissions" / "demo" / "good")
    missing = _check(write_submission(root, data=data, patches={}), root)
    lines = [d.line for d in missing if d.code == "missing-patch"]
    assert len(lines) == 2 and lines[0] != lines[1], missing

def test_patch_file_that_is_a_symlink(root: Path) -> None:
    folder = write_submission(root, patches={})
    (folder / "real.txt").write_text(GOOD_PATCH)
    (folder / "run-1.patch").symlink_to(folder / "real.txt")
    result = run_cli(root, str(folder))
    assert result.exit_code == 1
    assert "[patch-not-a-file] patch file is a symbolic link" in result.output
    assert "submissions/demo/good/run-1.patch" in result.output


def test_symlinked_submission_yaml(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(submission_yaml())
    folder = write_submission(root)
    (folder / "submission.yaml").unlink()
    (folder / "submission.yaml").symlink_to(outside)
    assert _codes(_check(folder, root)) == {"symlink"}


def test_executable_file_and_sub_folder(root: Path) -> None:
    folder = write_submission(root)
    (folder / "run-1.patch").chmod(0o755)
    (folder / "nested").mkdir()
    assert {"executable-file", "unexpected-file"} <= _codes(_check(folder, root))


def test_deep_nesting(root: Path) -> None:
    folder = write_submission(root, text="notes: " + "[" * 5000 + "]" * 5000 + "\n")
    result = run_cli(root, str(folder))
    assert result.exit_code == 1
    assert "submission.yaml" in result.output


def test_merge_keys_are_refused_as_hidden_duplicates(root: Path) -> None:
    """``<<`` merges a mapping into its parent: with anchors refused it serves only to give a
    key a second, hidden value (``<<: {total: 5}`` beside ``total: 52000``) that the
    duplicate-key check never sees. Refused with its line, on either YAML parser."""
    import yaml

    plain = yaml.safe_dump(valid_data(), sort_keys=False)
    assert "  tokens:\n    total: " in plain
    for merged in ("  tokens:\n    <<: {total: 5}\n    total: ",   # C parser (no & or *)
                   "  tokens:\n    <<: {total: 5, note: '*'}\n    total: "):  # strict one
        text = plain.replace("  tokens:\n    total: ", merged, 1)
        folder = write_submission(root, text=text)
        (diagnostic,) = _check(folder, root)
        assert diagnostic.code == "yaml" and "merge keys (<<) are not allowed" in diagnostic.message
        assert diagnostic.line == text.splitlines().index("    <<: " + merged.split("<<: ")[1]
                                                          .split("\n")[0]) + 1
        result = run_cli(root, str(folder))
        assert result.exit_code == 1 and "submission.yaml" in result.output
    # a quoted "<<" is a plain key: an unknown one
    quoted = plain.replace("  tokens:\n", "  tokens:\n    '<<': 1\n", 1)
    folder = write_submission(root, text=quoted)
    assert _codes(_check(folder, root)) == {"schema"}


def test_a_number_in_e_notation_is_told_how_to_write_it(root: Path) -> None:
    """PyYAML (YAML 1.1) reads ``1e-3`` as text; the contributor meant a number."""
    import yaml

    plain = yaml.safe_dump(valid_data(), sort_keys=False)
    cost = next(line for line in plain.splitlines() if "estimated_cost:" in line)
    folder = write_submission(root, text=plain.replace(cost, cost.split(":")[0] + ": 2.1e-1"))
    assert _check(folder, root) == []  # with a dot, YAML reads a number
    folder = write_submission(root, text=plain.replace(cost, cost.split(":")[0] + ": 21e-2"))
    (diagnostic,) = _check(folder, root)
    assert "got '21e-2'" in diagnostic.message and "write the number out" in diagnostic.message


def test_empty_yaml(root: Path) -> None:
    folder = write_submission(root, text="")
    assert _codes(_check(folder, root)) == {"yaml"}


def test_trajectory_missing_and_present(root: Path) -> None:
    data = valid_data()
    data["runs"][0]["trajectory"] = "run-1.jsonl"
    folder = write_submission(root, data=data)
    assert _codes(_check(folder, root)) == {"missing-trajectory"}
    (folder / "run-1.jsonl").write_text('{"role": "user"}\n')
    assert _check(folder, root) == []


def test_folder_name_must_be_a_submission_id(root: Path) -> None:
    folder = write_submission(root, "My Submission")
    (diagnostic,) = _check(folder, root)
    assert diagnostic.code == "layout"
    assert "'My Submission' is not a valid submission id" in diagnostic.message


@pytest.mark.parametrize("name", ["2025-01-15_aider_gpt-4o\n", "2025-01-15_aider_\udcff"])
def test_a_folder_name_is_matched_whole(root: Path, name: str) -> None:
    """git stores any bytes in a name: a trailing newline once passed the id's ``$``, and a
    byte that is not UTF-8 (decoded with a surrogate escape) is refused too."""
    folder = write_submission(root, name)
    (diagnostic,) = _check(folder, root)
    assert diagnostic.code == "layout"
    assert f"{name!r} is not a valid submission id" in diagnostic.message


def test_wrong_folder_layout(root: Path) -> None:
    folder = root / "submissions" / "stray"
    folder.mkdir()
    (folder / "submission.yaml").write_text(submission_yaml())
    (folder / "run-1.patch").write_text(GOOD_PATCH)
    assert "layout" in _codes(_check(folder, root))


def test_broken_task_is_reported_on_the_submission(root: Path) -> None:
    (root / "dataset" / "demo" / "feature2" / "tests.patch").unlink()
    folder = write_submission(root)
    (diagnostic,) = _check(folder, root)
    assert diagnostic.code == "broken-task"
    assert diagnostic.path == folder / "submission.yaml"
    lines = (folder / "submission.yaml").read_text().splitlines()
    assert diagnostic.line == lines.index("task: demo") + 1
    assert "feature 2 is missing tests.patch" in diagnostic.message
    assert "tell a maintainer" in (diagnostic.hint or "")



def test_every_submission_of_a_broken_or_unknown_task_is_told_so(root: Path) -> None:
    """The task is looked up once per run; each of its submissions still gets the message."""
    from arena_bot.intake.validation import Validator

    (root / "dataset" / "demo" / "feature2" / "tests.patch").unlink()
    folders = [write_submission(root, name) for name in ("first", "second")]
    validator = Validator(dataset=Dataset(root / "dataset"),
                          submissions_root=root / "submissions")
    for folder in folders:
        (diagnostic,) = validator.submission(folder)
        assert diagnostic.code == "broken-task"
        assert diagnostic.path == folder / "submission.yaml"
    data = valid_data()
    data["task"] = "nowhere"
    for name in ("third", "fourth"):
        codes = {d.code for d in validator.submission(write_submission(root, name, data=data))}
        assert "unknown-task" in codes

# -- plausibility warnings (seed 002) ------------------------------------------------------


def test_seed_002_rules_are_warnings_not_errors(root: Path) -> None:
    data = valid_data()
    run = data["runs"][0]
    run.update(tokens={"total": 5}, execution_time=2.0, tool_calls=1, estimated_cost=0.0)
    folder = write_submission(root, data=data)
    diagnostics = _check(folder, root)
    assert _codes(diagnostics) == set()
    assert _codes(diagnostics, "warning") == {
        "low-tokens", "extremely-fast", "minimal-tool-usage", "not-recorded",
    }
    low = next(d for d in diagnostics if d.code == "low-tokens")
    assert "Suspiciously low token count" in low.message
    result = run_cli(root, str(folder))
    assert result.exit_code == 0
    assert "1 valid, 0 invalid, 4 warnings" in result.output


def test_implausible_cost_and_speed(root: Path) -> None:
    data = valid_data()
    data["runs"][0].update(estimated_cost=900.0, execution_time=0.5)
    diagnostics = _check(write_submission(root, data=data), root)
    assert {"implausible-cost", "implausible-speed"} <= _codes(diagnostics, "warning")


def test_files_created_must_come_from_the_patch(root: Path) -> None:
    data = valid_data()
    data["runs"][0]["files_created"] = ["src/new.py"]
    patch = (
        "diff --git a/src/other.py b/src/other.py\nnew file mode 100644\n--- /dev/null\n"
        "+++ b/src/other.py\n@@ -0,0 +1 @@\n+x = 1\n"
    )
    diagnostics = _check(write_submission(root, data=data, patches={"run-1.patch": patch}), root)
    assert _codes(diagnostics, "warning") == {"files-created"}


def test_copy_of_the_gold_patch_is_flagged(root: Path) -> None:
    # The same changes at other line numbers are still a copy.
    copy = GOLD_PATCH.replace("@@ -1,2 +1,5 @@", "@@ -7,2 +7,5 @@")
    diagnostics = _check(write_submission(root, patches={"run-1.patch": copy}), root)
    assert _codes(diagnostics, "warning") == {"copies-gold-patch"}
    assert "feature 1's gold patch" in diagnostics[0].message


def test_new_test_modules_are_flagged(root: Path) -> None:
    patch = GOOD_PATCH + (
        "diff --git a/src/test_helper.py b/src/test_helper.py\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/src/test_helper.py\n@@ -0,0 +1 @@\n+import calc\n"
    )
    diagnostics = _check(write_submission(root, patches={"run-1.patch": patch}), root)
    (warning,) = diagnostics
    assert (warning.code, warning.severity, warning.line) == ("adds-test-file", "warning", 10)
    assert "src/test_helper.py" in warning.message


def test_new_doctest_text_files_are_flagged(root: Path) -> None:
    # pytest collects test*.txt as doctests by default: their examples run in the session.
    patch = GOOD_PATCH + (
        "diff --git a/src/test_usage.txt b/src/test_usage.txt\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/src/test_usage.txt\n@@ -0,0 +1 @@\n+>>> import calc\n"
        "diff --git a/docs/usage.txt b/docs/usage.txt\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/docs/usage.txt\n@@ -0,0 +1 @@\n+>>> import calc\n"
    )
    diagnostics = _check(write_submission(root, patches={"run-1.patch": patch}), root)
    (warning,) = diagnostics
    assert (warning.code, warning.severity, warning.line) == ("adds-test-file", "warning", 10)
    assert "src/test_usage.txt" in warning.message and "doctests" in warning.message


def test_future_date_is_an_error(root: Path) -> None:
    data = valid_data()
    data["date"] = dt.date.today() + dt.timedelta(days=30)
    assert _codes(_check(write_submission(root, data=data), root)) == {"future-date"}


# -- output formats ------------------------------------------------------------------------


def test_json_output_shape(root: Path) -> None:
    write_submission(root)
    shutil.copytree(INVALID / "unknown-key", root / "submissions" / "demo" / "unknown-key")
    result = run_cli(root, "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["version"] == 1
    assert document["valid"] is False
    assert document["summary"] == {
        # 'toool' is unknown and 'tool' is then missing: two errors.
        "submissions": 2, "valid": 1, "invalid": 1, "errors": 2, "warnings": 0,
    }
    by_key = {s["key"]: s for s in document["submissions"]}
    assert by_key["demo/good"]["valid"] is True
    problem = next(
        d for d in by_key["demo/unknown-key"]["diagnostics"] if "unknown key" in d["message"]
    )
    assert problem["path"] == "submissions/demo/unknown-key/submission.yaml"
    assert problem["severity"] == "error" and problem["code"] == "schema"
    assert isinstance(problem["line"], int)
    assert set(problem) == {"severity", "code", "path", "line", "message", "hint"}


def test_github_annotations_escape_contributor_text(root: Path) -> None:
    data = valid_data()
    data["surprise, key: 100%\nx"] = 1
    write_submission(root, data=data)
    result = run_cli(root, "--format", "github")
    assert result.exit_code == 1
    (annotation,) = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert annotation.startswith(
        "::error file=submissions/demo/good/submission.yaml,line="
    )
    assert ",title=arena validate%3A schema::" in annotation
    assert "100%25" in annotation and "%0Ax" in annotation
    assert "\n" not in annotation


def test_text_output_escapes_invisible_characters(root: Path) -> None:
    data = valid_data()
    data["evil\u202ekey"] = 1
    write_submission(root, data=data)
    result = run_cli(root)
    assert "\u202e" not in result.output
    assert "\\u202e" in result.output


# -- command line: paths, usage, PR mode ---------------------------------------------------


def test_no_path_validates_all_submissions(root: Path) -> None:
    write_submission(root, "one")
    write_submission(root, "two")
    result = run_cli(root)
    assert result.exit_code == 0
    assert "2 submissions checked: 2 valid, 0 invalid, 0 warnings" in result.output


def test_empty_submissions_folder_is_valid(root: Path) -> None:
    result = run_cli(root)
    assert result.exit_code == 0
    assert "0 submissions checked" in result.output


def test_file_inside_a_submission_selects_its_folder(root: Path) -> None:
    folder = write_submission(root)
    result = run_cli(root, str(folder / "run-1.patch"))
    assert result.exit_code == 0
    assert "1 submission checked" in result.output


def test_folder_without_submission_is_an_error(root: Path) -> None:
    empty = root / "elsewhere"
    empty.mkdir()
    result = run_cli(root, str(empty))
    assert result.exit_code == 1
    assert "[no-submission]" in result.output


def test_usage_errors_exit_2(root: Path) -> None:
    changed = root / "changed.txt"
    changed.write_text("submissions/demo/good/submission.yaml\n")
    assert run_cli(root, "submissions", "--changed-files", str(changed)).exit_code == 2
    assert run_cli(root, str(root / "no-such-path")).exit_code == 2
    assert run_cli(root, "--format", "xml").exit_code == 2
    shutil.rmtree(root / "submissions")
    result = run_cli(root)
    assert result.exit_code == 2
    assert "no submissions/ folder" in result.output


def test_changed_files_mode(root: Path) -> None:
    write_submission(root, "mine")
    names = [
        "submissions/demo/mine/submission.yaml",
        "submissions/demo/mine/run-1.patch",
        "",
    ]
    result = run_cli(root, "--changed-files", "-", stdin="\n".join(names))
    assert result.exit_code == 0, result.output
    assert "1 submission checked: 1 valid" in result.output

    names += [".github/workflows/pr.yml", "submissions/demo/theirs/submission.yaml",
              "submissions/README.md"]
    result = run_cli(root, "--changed-files", "-", "--format", "json", stdin="\n".join(names))
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert [s["key"] for s in document["submissions"]] == ["demo/mine"]
    assert [(d["code"], d["path"]) for d in document["diagnostics"]] == [
        ("outside-submissions", ".github/workflows/pr.yml"),
        ("deletes-submission", "submissions/demo/theirs/submission.yaml"),
        ("outside-submissions", "submissions/README.md"),
    ]


def test_changed_files_library_level_rejects_traversal(root: Path) -> None:
    report = validate_changed_files(
        ["submissions/demo/../../action.yml"],
        root=root,
        dataset=Dataset(root / "dataset"),
        submissions_root=root / "submissions",
    )
    assert [d.code for d in report.other] == ["outside-submissions"]
    assert not report.valid


def test_colour_only_on_a_terminal(root: Path) -> None:
    shutil.copytree(INVALID / "unknown-key", root / "submissions" / "demo" / "unknown-key")
    result = run_cli(root)
    assert "\x1b[" not in result.output


def test_validation_does_not_depend_on_the_working_directory(root: Path) -> None:
    write_submission(root)
    previous = Path.cwd()
    try:
        os.chdir(root / "submissions")
        result = run_cli(root, "demo/good")
        changed = run_cli(
            root, "--changed-files", "-", "--format", "github", stdin="README.md\n"
        )
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output
    assert changed.stdout.startswith("::error file=README.md,title=")


# -- property-based: mutated submissions never crash the validator ---------------------------

line_edit = st.tuples(
    st.integers(min_value=0, max_value=200),
    st.sampled_from(["drop", "duplicate", "replace-value", "insert", "indent", "truncate"]),
    st.one_of(
        st.sampled_from([
            "2025-02-30", "!!int abc", "!!bool maybe", "!!timestamp x", "&a 1", "*a", "[",
            "{a: 1", "'", '"\\x"', "!!binary AAAA", "!!set {a}", "1e999", "-.inf", "0x1F",
            "- - -", "? x", "<<: {a: 1}", "\t", "|", ">-", "%YAML 1.1", "---", "...",
        ]),
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=15),
    ),
)


@settings(
    max_examples=int(os.environ.get("ARENA_PROPERTY_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(edits=st.lists(line_edit, min_size=1, max_size=3))
def test_text_level_edits_never_crash_validation(
    property_root: Path, edits: list[tuple]
) -> None:
    lines = submission_yaml().splitlines()
    for where, op, text in edits:
        index = where % max(len(lines), 1)
        if not lines:
            lines = [text]
        elif op == "drop":
            del lines[index]
        elif op == "duplicate":
            lines.insert(index, lines[index])
        elif op == "replace-value":
            key, _, _ = lines[index].partition(":")
            lines[index] = f"{key}: {text}"
        elif op == "insert":
            lines.insert(index, text)
        elif op == "indent":
            lines[index] = "  " + lines[index]
        else:
            lines[index] = lines[index][: len(text)]
    folder = write_submission(property_root, f"t{next(_counter)}", text="\n".join(lines) + "\n")
    try:
        diagnostics = _check(folder, property_root)
        for diagnostic in diagnostics:
            assert diagnostic.path is not None and diagnostic.message
    finally:
        shutil.rmtree(folder)


ODD_STRINGS = [
    "", " ", "\u202eevil", "zero\u200bwidth", "../../etc/passwd", "/abs", "a" * 300, "1e309",
    "-1", "null", "~", "yes", "2025-13-45", "run-1.patch", "\x07bell", "NaN", "{", "*x",
]
odd_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(ODD_STRINGS),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20),
    st.lists(st.integers(min_value=-5, max_value=5), max_size=3),
    st.dictionaries(st.sampled_from(["a", "id", "total"]), st.integers(), max_size=2),
    st.dates(),
)
mutation = st.tuples(
    st.integers(min_value=0, max_value=10_000),  # which node (modulo their number)
    st.sampled_from(["drop", "rename", "replace", "insert", "wrap"]),
    odd_values,
    st.sampled_from(["toool", "tool", "runs", "x", "tokens", "", "id"]),
)


def _nodes(data: object, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _nodes(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _nodes(value, (*path, index))
    return found


def _mutate(data: dict, change: tuple) -> object:
    which, op, value, new_key = change
    paths = _nodes(data)
    path = paths[which % len(paths)]
    if not path:
        return value if op == "replace" else [data] if op == "wrap" else data
    parent: object = data
    for part in path[:-1]:
        parent = parent[part]  # type: ignore[index]
    last = path[-1]
    assert isinstance(parent, dict | list)
    if op == "drop":
        del parent[last]  # type: ignore[arg-type]
    elif op == "rename" and isinstance(parent, dict):
        parent[new_key] = parent.pop(last)
    elif op == "insert" and isinstance(parent, dict):
        parent[new_key or "extra"] = value
    elif op == "wrap":
        parent[last] = [parent[last]]  # type: ignore[index]
    else:
        parent[last] = value  # type: ignore[index]
    return data


@pytest.fixture(scope="module")
def property_root(tmp_path_factory: pytest.TempPathFactory, task_template: Path) -> Path:
    base = tmp_path_factory.mktemp("property")
    shutil.copytree(task_template, base / "dataset" / "demo")
    (base / "submissions" / "demo").mkdir(parents=True)
    return base


_counter = itertools.count()


def _write_mutant(root: Path, changes: list[tuple]) -> tuple[Path, object]:
    data: object = valid_data()
    for change in changes:
        data = _mutate(data, change)  # type: ignore[arg-type]
    folder = write_submission(root, f"m{next(_counter)}", data=data)
    return folder, data


def _model_accepts(folder: Path) -> bool:
    try:
        Submission.model_validate(yaml.safe_load((folder / "submission.yaml").read_text()))
    except (ValidationError, yaml.YAMLError):
        return False
    return True


# ARENA_PROPERTY_EXAMPLES=2000 searches harder locally; CI keeps the count modest.
@settings(
    max_examples=int(os.environ.get("ARENA_PROPERTY_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(changes=st.lists(mutation, min_size=1, max_size=3))
def test_mutated_submissions_never_crash_validation(
    property_root: Path, changes: list[tuple]
) -> None:
    folder, _ = _write_mutant(property_root, changes)
    try:
        diagnostics = _check(folder, property_root)
        errors = [d for d in diagnostics if d.is_error]
        for diagnostic in errors:
            assert diagnostic.path is not None and diagnostic.message
        if not _model_accepts(folder):
            assert errors, "the model refuses this submission, so validation must too"
    finally:
        shutil.rmtree(folder)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.lists(mutation, min_size=1, max_size=3))
def test_mutated_submissions_through_the_cli(property_root: Path, changes: list[tuple]) -> None:
    folder, _ = _write_mutant(property_root, changes)
    try:
        result = run_cli(property_root, str(folder), "--format", "json")
        assert result.exit_code in (0, 1)
        document = json.loads(result.stdout)
        assert document["valid"] is (result.exit_code == 0)
    finally:
        shutil.rmtree(folder)


def test_changed_files_with_name_status(root: Path) -> None:
    mine = write_submission(root, "mine")
    (mine / "README.md").write_text("How I ran it.\n")
    (mine / "é.patch").write_text(GOOD_PATCH)
    write_submission(root, "merged")
    lines = [
        "A\tsubmissions/demo/mine/submission.yaml",
        "A\tsubmissions/demo/mine/run-1.patch",
        "M\tsubmissions/demo/merged/submission.yaml",
        "D\tsubmissions/demo/merged/notes.md",
        "R100\tsubmissions/demo/old/submission.yaml\tsubmissions/demo/mine/README.md",
        'A\t"submissions/demo/mine/\\303\\251.patch"',
        "A\tsubmissions/demo/elsewhere/submission.yaml",
    ]
    report = validate_changed_files(
        lines, root=root, dataset=Dataset(root / "dataset"), submissions_root=root / "submissions"
    )
    assert [(d.code, d.path.relative_to(root).as_posix()) for d in report.other] == [
        ("modifies-submission", "submissions/demo/merged/submission.yaml"),
        ("deletes-submission", "submissions/demo/merged/notes.md"),
        ("deletes-submission", "submissions/demo/old/submission.yaml"),
        ("not-in-checkout", "submissions/demo/elsewhere/submission.yaml"),
    ]
    assert [s.key for s in report.submissions] == ["demo/mine", "demo/merged"]


def test_protected_violations_are_capped_per_patch(root: Path) -> None:
    patch = "".join(
        f"--- a/tests/t{i}.py\n+++ b/tests/t{i}.py\n@@ -1 +1 @@\n-a\n+b\n" for i in range(30)
    )
    diagnostics = _check(write_submission(root, patches={"run-1.patch": patch}), root)
    protected = [d for d in diagnostics if d.code == "protected-path"]
    assert len(protected) == 21
    assert "changes 30 protected files" in protected[0].message


def test_a_patch_runs_share_is_opened_once_and_its_secret_reported_once(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins
    import io

    data = valid_data()
    data["runs"].append({**data["runs"][0], "id": "run-2"})
    leak = GOOD_PATCH.replace("+1,5", "+1,6") + "+STRIPE = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'\n"
    folder = write_submission(root, data=data, patches={"run-1.patch": leak})
    patch = folder / "run-1.patch"
    opened: list[object] = []
    real_open = io.open

    def counting_open(file: object, *args: object, **kwargs: object) -> object:
        if isinstance(file, str | Path) and Path(file) == patch:
            opened.append(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", counting_open)
    monkeypatch.setattr(builtins, "open", counting_open)
    found = [d for d in _check(folder, root) if d.code == "secret-in-patch"]
    monkeypatch.undo()
    assert len(opened) == 1
    assert [(d.path, d.line, d.severity) for d in found] == [(patch, 10, "error")]
    assert "stripe-access-key" in found[0].message


def test_every_diagnostic_code_is_documented_on_the_formats_page() -> None:
    # The codes are Literal types (mypy refuses a code outside them); every one is documented.
    from typing import get_args

    from arena_bot.intake.diagnostics import ValidationCode
    from arena_bot.intake.patches import PatchProblemCode
    from arena_bot.intake.validation import patch_diagnostic_code

    codes = sorted({*get_args(ValidationCode),
                    *(patch_diagnostic_code(code) for code in get_args(PatchProblemCode))})
    assert len(codes) > 30 and "patch-symlink" in codes and "cost-mismatch" in codes
    page = (Path(__file__).parents[1] / "site" / "docs" / "formats.md").read_text()
    assert [code for code in codes if f"`{code}`" not in page] == []


def test_hostile_file_names_in_the_folder_are_escaped_in_every_format(root: Path) -> None:
    folder = write_submission(root)
    (folder / "evil\u202e\nname,:%.txt").write_text("x")
    text = run_cli(root)
    assert text.exit_code == 1
    assert "evil\\u202e\\u000aname,:%.txt" in text.output
    github = run_cli(root, "--format", "github")
    (annotation,) = [line for line in github.stdout.splitlines() if line.startswith("::")]
    assert "file=submissions/demo/good/evil\u202e%0Aname%2C%3A%25.txt," in annotation
    document = json.loads(run_cli(root, "--format", "json").stdout)
    (problem,) = document["submissions"][0]["diagnostics"]
    assert problem["path"].endswith("evil\u202e\nname,:%.txt")


def test_pr_mode_with_a_real_git_diff(root: Path) -> None:
    """The file list exactly as a workflow gets it from git, for a PR with a stray change."""
    write_submission(root, "merged")
    git("init", "-q", "-b", "main", cwd=root)
    git("add", ".", cwd=root)
    git("commit", "-qm", "base", cwd=root)
    git("checkout", "-qb", "pr", cwd=root)
    write_submission(root, "new-one")
    (root / "submissions" / "demo" / "merged" / "run-1.patch").write_text(GOOD_PATCH + "\n")
    (root / "dataset" / "demo" / "task.yaml").write_text("id: demo\n")
    git("add", ".", cwd=root)
    git("commit", "-qm", "pr", cwd=root)
    listing = git("diff", "--name-status", "main...pr", cwd=root)
    result = run_cli(root, "--changed-files", "-", "--format", "json", stdin=listing + "\n")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert [(d["code"], d["path"]) for d in document["diagnostics"]] == [
        ("outside-submissions", "dataset/demo/task.yaml"),
        ("modifies-submission", "submissions/demo/merged/run-1.patch"),
    ]
    assert sorted(s["key"] for s in document["submissions"]) == ["demo/merged", "demo/new-one"]


def _validate_process(root: Path, *args: str,
                      stdin: bytes | None = None) -> tuple[int, str, str]:
    """``arena --root ROOT validate ARGS`` in a process of its own, its memory capped (a
    file read whole that should not be ends in a MemoryError there, not in the machine's
    memory running out): exit status, stdout, stderr."""
    import resource
    import subprocess
    import sys

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    result = subprocess.run(
        [sys.executable, "-c", "from arena_bot.cli import main; main()", "--root", str(root),
         "validate", *args],
        input=stdin, capture_output=True, timeout=60, preexec_fn=limits)
    return (result.returncode, result.stdout.decode(errors="replace"),
            result.stderr.decode(errors="replace"))


def test_changed_files_that_is_not_a_regular_file_is_refused_unread(root: Path) -> None:
    """/dev/zero was read until memory ran out; a FIFO was waited on for ever."""
    fifo = root / "changed.fifo"
    os.mkfifo(fifo)
    zero = root / "changed.txt"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero, Path("/dev/zero")):
        status, _, stderr = _validate_process(root, "--changed-files", str(path))
        assert status == 1, stderr
        assert "Traceback" not in stderr
        assert stderr.splitlines() == [
            f"error: {path}: the changed-files list is not a regular file",
            "  hint: pass the output of `git diff --name-status base...head` (or --name-only)",
        ]


def test_changed_files_over_the_limit_are_refused(root: Path) -> None:
    from arena_bot.cli.validate import MAX_CHANGED_FILES_BYTES

    big = root / "changed.txt"
    with big.open("wb") as handle:  # sparse: no disk taken
        handle.truncate(MAX_CHANGED_FILES_BYTES + 1)
    status, _, stderr = _validate_process(root, "--changed-files", str(big))
    assert status == 1 and "Traceback" not in stderr
    assert stderr.startswith(
        f"error: {big}: the changed-files list is {MAX_CHANGED_FILES_BYTES + 1:,} bytes, "
        f"over the limit of {MAX_CHANGED_FILES_BYTES:,} bytes\n")
    status, _, stderr = _validate_process(root, "--changed-files", "-",
                                          stdin=b"x" * (MAX_CHANGED_FILES_BYTES + 1))
    assert status == 1 and "Traceback" not in stderr
    assert stderr.startswith(
        "error: the changed-files list on standard input is over the limit of "
        f"{MAX_CHANGED_FILES_BYTES:,} bytes\n")
    # Under the limit, the list is read as before.
    write_submission(root, "mine")
    listing = b"submissions/demo/mine/submission.yaml\nsubmissions/demo/mine/run-1.patch\n"
    big.write_bytes(listing)
    for name, stdin in ((str(big), None), ("-", listing)):
        status, stdout, stderr = _validate_process(root, "--changed-files", name, stdin=stdin)
        assert status == 0, stderr
        assert "1 submission checked: 1 valid" in stdout


def test_changed_files_that_are_not_utf8_are_refused_naming_the_line(root: Path) -> None:
    """git writes the names it lists as UTF-8 (quoting the unusual ones); a list that is
    not UTF-8 is not git's, and is said so instead of being read with its bytes replaced."""
    listing = b"submissions/demo/mine/submission.yaml\nsubmissions/demo/\xff.patch\n"
    listed = root / "changed.txt"
    listed.write_bytes(listing)
    status, _, stderr = _validate_process(root, "--changed-files", str(listed))
    assert status == 1 and "Traceback" not in stderr
    assert stderr.startswith(f"error: {listed}:2: the changed-files list is not valid UTF-8 "
                             "(byte 55)\n")
    status, _, stderr = _validate_process(root, "--changed-files", "-", stdin=listing)
    assert status == 1 and "Traceback" not in stderr
    assert stderr.startswith("error: the changed-files list on standard input is not valid "
                             "UTF-8 (line 2, byte 55)\n")
