"""The test command of an imported task is derived from its runner.sh, in every shape the public
CooperBench dataset uses (fixtures in runners/, modelled on its runner.sh files), and refused
with a message naming runner.sh, the line and --test-command when only a run could tell."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.cooperbench_tasks import (
    DATA,
    OLD_SHA,
    TASK7,
    assert_gold_checked,
    invoke,
    make_task,
)
from support.gitrepo import commit_folder

from arena_bot.cli import main
from arena_bot.core.errors import DatasetError
from arena_bot.tasks.cooperbench import read_task
from arena_bot.tasks.cooperbench_runner import derive_test_step, read_test_step, split_commands

RUNNERS = Path(__file__).parent / "runners"
PREFIX = 'python3 -m pytest -p no:cacheprovider --junitxml="$ARENA_JUNIT"'
#: An imported task's command also loads its wheelhouse's pytest plugins (pytest-mock, always).
IMPORTED = PREFIX.replace("pytest -p", "pytest -p pytest_mock -p", 1)


@pytest.mark.parametrize(("runner", "command"), [
    ("plain.sh", f"{PREFIX} tests/test_termui.py -v"),
    ("timeout_quoted.sh",
     f"{PREFIX} tests/adapters/test_tool.py tests/adapters/test_chat_adapter.py -v --tb=short"),
    ("variable_deselect.sh",
     f"{PREFIX} tests/io/test_parquet.py -v "
     "--deselect tests/io/test_parquet.py::test_parquet_read_geoparquet"),
    ("tee_pipestatus.sh", f"{PREFIX} tests/backends/test_xgrammar.py -v"),
    ("array_cd_flags.sh",
     f"cd pkg-core && {PREFIX} tests/evaluation/test_metrics.py "
     "'tests/evaluation/test metrics extra.py' -v --tb=short"),
    ("glob_env.sh", f"PYTHONPATH=src:$PYTHONPATH {PREFIX} tests/test_*.py -q"),
])
def test_runner_shapes_give_the_command(runner: str, command: str) -> None:
    assert read_test_step(RUNNERS / runner).command == command


def test_dropped_flags_and_secondary_steps_are_said() -> None:
    flags = read_test_step(RUNNERS / "array_cd_flags.sh")
    assert [note.split(" from ")[0] for note in flags.notes] == [
        "dropped `-n auto`", "dropped `--cov=pkg_core`"]
    # CooperBench's dspy runners stop at the first failure: the harness's failing canary
    # would end the run before the feature's tests and the passing canary (gold "tampered").
    stop = read_test_step(RUNNERS / "timeout_quoted.sh")
    assert [note.split(" from ")[0] for note in stop.notes] == ["dropped `--maxfail=1`"]
    secondary = read_test_step(RUNNERS / "secondary_loops.sh")
    assert secondary.command == (f"{PREFIX} tests/teleprompt/test_utils.py "
                                 "tests/propose/test_grounded_proposer.py -v --tb=short")
    lines = (RUNNERS / "secondary_loops.sh").read_text().splitlines()
    assert "tests/teleprompt/test_utils.py" in lines[secondary.line - 1]
    assert len(secondary.notes) == 2
    assert all("not carried over" in note and "--test-command" in note
               for note in secondary.notes)


@pytest.mark.parametrize(("runner", "words"), [
    ("conditional_variable.sh", ["$UNIT_TEST_SPEC", "inside an if block"]),
    ("loop_only.sh", ["inside a loop"]),
    ("argument.sh", ["$TEST_SPEC", "$3"]),
])
def test_run_time_values_are_refused_naming_the_line(runner: str, words: list[str]) -> None:
    path = RUNNERS / runner
    with pytest.raises(DatasetError) as caught:
        read_test_step(path)
    error = caught.value
    assert error.path == path and error.line is not None
    assert "pytest" in path.read_text().splitlines()[error.line - 1]
    assert "runner.sh" in error.message and "--test-command" in error.message
    assert all(word in error.message for word in words), error.message
    assert error.hint is not None and "$ARENA_JUNIT" in error.hint


def test_array_variable_and_redirection_words() -> None:
    text = 'ARGS=(-k "not slow" tests/a.py)\ncd sub/../other\npytest "${ARGS[@]}" >/dev/null 2>&1\n'
    step = derive_test_step(text, path=Path("runner.sh"))
    assert step.command == f"cd other && {PREFIX} -k 'not slow' tests/a.py"
    assert split_commands('a "b c" | tee x 2>&1 && d; e') == [["a", '"b c"'], ["tee", "x"], ["d"],
                                                             ["e"]]


def test_cd_out_of_the_repository_is_refused() -> None:
    with pytest.raises(DatasetError, match=r"leaves the repository"):
        derive_test_step("cd /tmp\npytest tests\n", path=Path("runner.sh"))


@pytest.mark.parametrize("runner", ["plain.sh", "array_cd_flags.sh", "glob_env.sh",
                                    "variable_deselect.sh"])
def test_derived_words_are_what_bash_passes(runner: str, tmp_path: Path) -> None:
    """bash itself runs the runner with a `pytest` that prints its arguments: the derived
    command's pytest arguments are exactly those (flags this project sets left aside)."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "pkg-core").mkdir()
    for name in ("test_a.py", "test_b.py"):
        (repo / "tests" / name).write_text("")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    spy = bin_dir / "pytest"
    spy.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\nexit 0\n')
    spy.chmod(0o755)
    (bin_dir / "python").write_text('#!/bin/sh\nshift 2\nexec pytest "$@"\n')
    (bin_dir / "python").chmod(0o755)
    script = (RUNNERS / runner).read_text().replace("/workspace/repo", str(repo))
    marker = 'git apply --3way "/patches/$TEST_PATCH"\n'
    body = script[script.index(marker) + len(marker):]  # the runner after its patch steps
    body = "\n".join(line for line in body.splitlines()
                     if not line.lstrip().startswith(("pip ", "uv ")))
    done = subprocess.run(["bash", "-c", body], cwd=repo, capture_output=True, text=True,
                          env={"PATH": f"{bin_dir}:/usr/bin:/bin", "PYTHONPATH": ""},
                          check=False)
    passed = [line for line in done.stdout.splitlines()
              if line and not line.startswith(("Running", "RUNNING", "Test", "TEST"))]
    step = read_test_step(RUNNERS / runner)
    words = shlex.split(step.command.split(PREFIX, 1)[1])
    ours = [w for w in words if w not in {"-n", "auto", "-p", "no:cacheprovider"}
            and not w.startswith("--cov")]
    theirs = [w for w in passed if w not in {"-n", "auto", "-p", "no:cacheprovider"}
              and not w.startswith("--cov")]
    if "*" in step.command:  # the glob: bash expanded it in the repository
        assert theirs[:2] == ["tests/test_a.py", "tests/test_b.py"]
        assert ours[0] == "tests/test_*.py"
    else:
        assert ours == theirs


#: A runner in several of the dataset's shapes at once: a glob in a variable, an array of
#: flags, `cd`, `timeout`, xdist's `-n auto` (not installed offline) and a pipe into `tee`.
MIXED_RUNNER = """#!/bin/bash
set -e
TEST_PATCH="$1"
FEATURE_PATCH="$2"
cd /workspace/repo
git apply "/patches/$TEST_PATCH"
pip install -e .
pip install pytest pytest-xdist
TEST_SPEC="tests/test_*.py"
FLAGS=(
    -v
    --tb=short
)
echo "Running tests..."
set +e
timeout 300 python -m pytest $TEST_SPEC "${FLAGS[@]}" -n auto 2>&1 | tee /tmp/pytest.log
exit ${PIPESTATUS[0]}
"""


@pytest.mark.docker
@pytest.mark.full
def test_mixed_runner_imports_and_checks_offline(tmp_path: Path, base_image: str) -> None:
    """The derived command runs for real: each feature's tests fail on the bare base and pass
    with its gold patch through the import and `arena dataset check`."""
    upstream, task = make_task(tmp_path, layout="src", backend="setuptools")
    (task / "runner.sh").write_text(MIXED_RUNNER)
    dest = tmp_path / "root" / "dataset"
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest), "--id", "tk-mixed")
    assert result.exit_code == 0, result.output
    assert f"test command: {IMPORTED} tests/test_*.py -v --tb=short" in result.output
    assert "note: dropped `-n auto` from runner.sh line 16" in result.output
    check = invoke("--root", str(dest.parent), "dataset", "check", "--repeat", "1",
                   "--base-image", base_image)
    assert check.exit_code == 0, check.output
    assert_gold_checked(check.output, dest / "tk-mixed")


def test_refused_runner_stops_the_import_cleanly(tmp_path: Path) -> None:
    task = tmp_path / "cb" / "textkit_task" / "task7"
    shutil.copytree(TASK7, task)
    shutil.copy(RUNNERS / "conditional_variable.sh", task / "runner.sh")
    dest = tmp_path / "dataset"
    result = CliRunner().invoke(main, ["dataset", "import-cooperbench", str(task),
                                       "--dest", str(dest)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "runner.sh" in result.output and "--test-command" in result.output
    assert "$UNIT_TEST_SPEC" in result.output
    assert not dest.exists() or not any(dest.iterdir())


#: A monorepo runner (llama_index's shape): it installs and tests a sub-project.
SUBPROJECT_RUNNER = """#!/bin/bash
set -e
cd /workspace/repo
git apply "/patches/$1"
pip install --upgrade pip
pip install -e "./pkg-core[test]"
pip install pytest pytest-xdist
echo "Running tests..."
cd pkg-core
python -m pytest tests/test_*.py -v
"""


def _subproject_task(tmp: Path) -> tuple[Path, Path]:
    """Upstream with the project under pkg-core/ in a src layout; its CooperBench folder."""
    upstream = tmp / "upstream"
    project = upstream / "pkg-core"
    shutil.copytree(DATA / "upstream", project)
    (project / "src").mkdir()
    shutil.move(project / "textkit", project / "src" / "textkit")
    sha = commit_folder(upstream)
    task = tmp / "cb" / "mono_task" / "task1"
    shutil.copytree(TASK7, task)
    (task / "Dockerfile").write_text((task / "Dockerfile").read_text().replace(OLD_SHA, sha))
    (task / "runner.sh").write_text(SUBPROJECT_RUNNER)
    for patch in task.glob("feature*/*.patch"):
        text = patch.read_text()
        for side in ("a", "b"):
            text = text.replace(f" {side}/textkit/", f" {side}/pkg-core/src/textkit/")
            text = text.replace(f" {side}/tests/", f" {side}/pkg-core/tests/")
        patch.write_text(text)
    return upstream, task


def test_install_folders_follow_the_runner() -> None:
    from arena_bot.tasks.cooperbench_runner import install_extras, install_folders

    assert install_folders(SUBPROJECT_RUNNER) == ("pkg-core",)
    assert install_folders((RUNNERS / "plain.sh").read_text()) == (".",)
    assert install_folders("pip install -e $PKG\nuv pip install --system -e .\n") == (".",)
    assert install_folders("cd /workspace/repo/a\npip install -e ../b\npip install -e '.[x]'\n"
                           ) == ("b", "a")
    assert install_extras("pip install -e '.[dev]' || pip install -e .\npip install -e ./c\n"
                          ) == {".": "dev", "c": ""}


def test_install_fallbacks_are_the_installs_a_failure_leads_to() -> None:
    """An install whose failure the runner goes past (`||`, an `if` condition) leads to the
    next install of the same project; one after an install that must succeed is not a
    fallback (both run)."""
    from arena_bot.tasks.cooperbench_runner import install_fallbacks

    assert install_fallbacks("pip install -e '.[test]' || pip install -e .\n") == {".": ("",)}
    assert install_fallbacks('if uv pip install --system -e ".[test]" 2>/dev/null; then\n'
                             '  echo ok\nelse\n  uv pip install --system -e .\nfi\n'
                             ) == {".": ("",)}
    assert install_fallbacks("pip install -e '.[a]' || pip install -e '.[b]' || "
                             "pip install -e .\n") == {".": ("b", "")}
    assert install_fallbacks("pip install -e .\npip install -e '.[dev]'\n") == {}
    assert install_fallbacks("pip install -e ./c || true\npip install -e .\n") == {}


@pytest.mark.docker
@pytest.mark.full
def test_subproject_runner_imports_and_checks_offline(tmp_path: Path, base_image: str) -> None:
    """The sub-project the runner installs is the one made importable (its src/ layout is
    importable through nothing else), and its tests run from its folder."""
    upstream, task = _subproject_task(tmp_path)
    dest = tmp_path / "root" / "dataset"
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest))
    assert result.exit_code == 0, result.output
    assert f"test command: cd pkg-core && {IMPORTED} tests/test_*.py -v" in result.output
    assert "RUN for project in pkg-core; do" in (dest / "mono-task1" / "Dockerfile").read_text()
    check = invoke("--root", str(dest.parent), "dataset", "check", "--repeat", "1",
                   "--base-image", base_image)
    assert check.exit_code == 0, check.output
    assert_gold_checked(check.output, dest / "mono-task1")


def test_exported_variables_reach_the_tests() -> None:
    """What the runner exports before its test step is in the tests' environment (outlines'
    runner exports TRANSFORMERS_NO_TF=1 and friends); what the sandbox owns or only a run
    knows is left out, said in a note."""
    text = ("cleanup() {\n  export IN_FUNCTION=1\n}\n"
            "export TRANSFORMERS_NO_TF=1\nexport PANDAS_NO_USE_PYARROW=1 PYTHONPATH=src\n"
            "export PYTEST_ADDOPTS=-x\nSTAMP=$(date)\nexport STAMP\n"
            'echo "Running tests..."\npython -m pytest tests/a.py\n')
    step = derive_test_step(text, path=Path("runner.sh"))
    assert step.command == ("TRANSFORMERS_NO_TF=1 PANDAS_NO_USE_PYARROW=1 "
                            f"PYTHONPATH=src:$PYTHONPATH {PREFIX} tests/a.py")
    assert step.notes == (
        "left out `export PYTEST_ADDOPTS` (runner.sh line 6): the test sandbox sets it",
        "left out `export STAMP` (runner.sh line 8): its value depends on the run",
    )


def test_an_invalid_derived_task_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    task = tmp_path / "cb" / "textkit_task" / "task7"
    shutil.copytree(TASK7, task)
    files = " ".join(f"tests/test_{n:04}.py" for n in range(120))
    (task / "runner.sh").write_text(f'echo "Running tests..."\npython -m pytest {files}\n')
    dest = tmp_path / "dataset"
    result = CliRunner().invoke(main, ["dataset", "import-cooperbench", str(task),
                                       "--dest", str(dest), "--source", "/nonexistent"])
    assert result.exit_code == 1, result.output
    assert "task.yaml would not be valid: tests.command" in result.output
    assert "--test-command" in result.output and "Traceback" not in result.output
    assert not dest.exists()


@pytest.mark.docker
@pytest.mark.full
def test_feature_test_files_the_test_step_leaves_out_are_run(tmp_path: Path,
                                                            base_image: str) -> None:
    """CooperBench's dspy runners name some features' test files only in a later loop (run
    when a feature patch is given), which the import does not carry over: those files are
    added to the command, each run when its tests patch brought it, so every feature is
    checked (before: "no test goes from failing to passing", or its canaries missing). A
    test file runner.sh never names stays out, as in CooperBench (click task 2800's
    tests/test_imports.py, real)."""
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    runner = task / "runner.sh"
    runner.write_text(runner.read_text().replace('"tests/"', '"tests/test_core.py"') + (
        'for file in tests/test_whisper.py tests/test_words.py; do\n'
        '    [[ -e "$file" ]] && python -m pytest "$file" -v\ndone\n'))
    dest = tmp_path / "root" / "dataset"
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest), "--id", "tk-later")
    assert result.exit_code == 0, result.output
    assert ("tests/test_core.py -v --tb=short $(ls -d tests/test_whisper.py tests/test_words.py "
            "2>/dev/null)") in result.output
    assert "added tests/test_whisper.py, tests/test_words.py to the test command" in result.output
    check = invoke("--root", str(dest.parent), "dataset", "check", "--repeat", "1",
                   "--base-image", base_image)
    assert check.exit_code == 0, check.output
    assert_gold_checked(check.output, dest / "tk-later")
    with tarfile.open(DATA / "real" / "cooperbench-tasks.tar.xz") as archive:
        archive.extractall(tmp_path / "real", filter="data")
    click = read_task(next((tmp_path / "real").glob("**/pallets_click_task/task2800")))
    assert any("+++ b/tests/test_imports.py" in (path / "tests.patch").read_text()
               for path in click.root.glob("feature*"))
    assert "$(ls" not in click.test_command


def test_requirements_the_runner_installs_by_name_are_read() -> None:
    """As CooperBench's datasets runners write them: quoted pins, `||` alternatives, behind
    `if`; pip, pytest and pytest-xdist are this project's own, paths and variables are not
    requirements."""
    from arena_bot.tasks.cooperbench_runner import install_requirements

    text = ('pip install setuptools\npip install -e .\npip uninstall -y pyarrow || true\n'
            'pip install "pyarrow==20.0.0"\npip install pytest pytest-xdist\n'
            'uv pip install --system "numpy<2.0" || uv pip install --system numpy\n'
            'if uv pip install --system -r reqs.txt Pillow; then echo ok; fi\n'
            'pip install --upgrade pip ./local $EXTRA\n')
    assert install_requirements(text) == ("setuptools", "pyarrow==20.0.0", "numpy<2.0",
                                          "numpy", "Pillow")
