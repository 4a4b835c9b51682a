"""A task whose dependencies cannot be installed from wheels says so at import, naming them.

Real packages on the real package index: pycrypto publishes only a source distribution (its
C extension needs a compiler), so a task image, which installs wheels with ``--no-index``,
cannot have it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result
from support.cooperbench_tasks import invoke, make_task
from support.gitrepo import commit_folder

import arena_bot
from arena_bot.tasks.cooperbench import load_plugins
from arena_bot.tasks.wheels import _local_sources, _on_index, native_build, resolve_wheels


def _point_at(upstream: Path, task: Path, *, message: str) -> None:
    """Commit ``upstream`` as it is now and make that commit the task's base."""
    sha = commit_folder(upstream, message=message)
    dockerfile = task / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text().replace(
        dockerfile.read_text().split("git checkout ")[1].split()[0], sha))


def _import_at(tmp_path: Path, upstream: Path, task: Path, *, message: str
               ) -> tuple[Result, Path]:
    """:func:`_point_at`, then the task imported into ``tmp_path/dataset``."""
    _point_at(upstream, task, message=message)
    dest = tmp_path / "dataset"
    return invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                  "--dest", str(dest)), dest


@pytest.mark.full  # the package index, tens of seconds
def test_a_dependency_with_only_a_source_release_is_named_at_import(tmp_path: Path) -> None:
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    pyproject = upstream / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'description = "x"', 'description = "x"\ndependencies = ["pycrypto==2.6.1"]'))
    result, dest = _import_at(tmp_path, upstream, task, message="depend on pycrypto")
    assert result.exit_code == 1, result.output
    assert "no wheel of pycrypto==2.6.1" in result.output
    assert "needs a compiler or system libraries" in result.output
    assert "Traceback" not in result.output
    assert not any(dest.glob("*/task.yaml"))  # nothing half-imported


@pytest.mark.full  # the package index, tens of seconds
def test_the_runners_fallback_install_is_taken_when_its_first_needs_a_compiler(
        tmp_path: Path) -> None:
    """CooperBench's outlines runners install `-e ".[test]"`, falling back to `-e .` when
    that fails (`||`, or `if ...; then ...; else ...; fi`); the test extra holds
    llama-cpp-python, which the index has only as source. The import takes the runner's
    fallback, naming why (before: it refused the task, though the runner itself goes on)."""
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    pyproject = upstream / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[project.optional-dependencies]\n'
                         'test = ["pycrypto==2.6.1", "six==1.16.0"]\n')
    runner = task / "runner.sh"
    runner.write_text(runner.read_text().replace(
        "pip install -e .\n", 'if pip install -e ".[test]" 2>/dev/null; then\n'
        '    echo "Installed test extras"\nelse\n    pip install -e .\nfi\n'))
    result, dest = _import_at(tmp_path, upstream, task, message="a test extra with pycrypto")
    assert result.exit_code == 0, result.output
    assert ("note: pycrypto==2.6.1 has no wheel (its source needs a compiler), so the "
            "wheelhouse installs `.` instead of `.[test]`: runner.sh's own fallback when that "
            "install fails") in result.output
    wheels = (dest / "textkit-task3" / "wheels.txt").read_text().split()
    assert not any(w.startswith(("pycrypto", "six")) for w in wheels), wheels
    assert "pytest==8.3.5" in wheels


@pytest.mark.full  # the package index, tens of seconds
def test_a_bare_editable_install_is_resolved_bare(tmp_path: Path) -> None:
    """A runner installing `pip install -e .` (outlines' task 1706, datasets', llama_index's)
    has nothing of the project's test extra in CooperBench's image, but the import resolved
    `.[test]` all the same: a source-only package there (outlines' llama-cpp-python) refused
    a task CooperBench runs, and its other packages (tensorflow, jax) were not the tests'
    environment. The test extra stays the guess for a runner that installs nothing."""
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    pyproject = upstream / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[project.optional-dependencies]\n'
                         'test = ["pycrypto==2.6.1", "six==1.16.0"]\n')
    assert "pip install -e .\n" in (task / "runner.sh").read_text()
    result, dest = _import_at(tmp_path, upstream, task, message="a test extra with pycrypto")
    assert result.exit_code == 0, result.output
    wheels = (dest / "textkit-task3" / "wheels.txt").read_text().split()
    assert not any(w.startswith(("pycrypto", "six")) for w in wheels), wheels
    assert "pytest==8.3.5" in wheels


@pytest.mark.full  # the package index, tens of seconds
def test_a_pip_without_the_dating_option_is_named_not_silently_undated(tmp_path: Path) -> None:
    """The dependencies are resolved as of the base commit with pip's --uploaded-prior-to
    (pip 26.0). A virtual environment made by `python3 -m venv` comes with the Python's
    bundled pip (23.2 here): the dated download failed on the unknown option and was taken
    for "nothing resolves as of that date", so today's releases were resolved in silence
    (dspy task 8563's gold patches then failed five tests on today's litellm)."""
    old = tmp_path / "old-pip"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(old)], check=True)
    site = next((old / "lib").glob("python3*/site-packages"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", str(site),
                    "pip==23.2.1"], check=True)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "dated"\nversion = "0.1"\n')
    # This environment's packages after the old one's own (its pip first on the path).
    paths = [str(Path(arena_bot.__file__).parents[1]), *sys.path[1:]]
    script = (f"import sys; sys.path.extend({paths!r})\n"
              "from pathlib import Path\n"
              "from arena_bot.core.errors import ArenaError\n"
              "from arena_bot.tasks.wheels import resolve_wheels\n"
              "try:\n"
              f"    resolve_wheels([Path({str(project)!r})], dest=Path({str(tmp_path)!r}) / 'w',"
              " as_of='2025-06-01T00:00:00Z')\n"
              "except ArenaError as exc:\n"
              "    print(exc)\n")
    done = subprocess.run([str(old / "bin" / "python"), "-c", script], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "does not know --uploaded-prior-to (pip 26.0 has it)" in done.stdout, done.stdout
    assert "-m pip install --upgrade 'pip>=26.0'" in done.stdout


@pytest.mark.full  # the package index, tens of seconds
def test_a_name_the_index_does_not_have_is_not_blamed_on_a_compiler() -> None:
    assert _on_index("pycrypto==2.6.1")
    assert not _on_index("arena-no-such-project-7f3c==1.0")


ASYNC_TESTS = '''\
diff --git a/tests/test_whisper.py b/tests/test_whisper.py
new file mode 100644
--- /dev/null
+++ b/tests/test_whisper.py
@@ -0,0 +1,16 @@
+import asyncio
+
+import pytest
+from textkit.core import whisper
+
+
+def test_whisper(mocker):
+    stub = mocker.stub()
+    stub(whisper("HeLLo"))
+    stub.assert_called_once_with("hello...")
+
+
+@pytest.mark.asyncio
+async def test_whisper_async():
+    import six  # installed by name in runner.sh
+    assert await asyncio.to_thread(whisper, six.ensure_str("HeLLo")) == "hello..."
'''


@pytest.mark.docker
@pytest.mark.full
def test_the_runners_extras_and_their_pytest_plugins_reach_the_tests(
        tmp_path: Path, base_image: str) -> None:
    """CooperBench's dspy runners install `-e ".[dev]"`, whose pytest-asyncio and pytest-mock
    the tests use (`@pytest.mark.asyncio`, `mocker`), and others install packages by name
    (datasets' `pip install "pyarrow==20.0.0"`): the import resolves the runner's extra and
    named packages and, pytest's plugin autoloading being off in the sandbox, the test
    command loads the wheelhouse's plugins by name. Before: async tests skipped, `mocker`
    not found, the named package missing."""
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    pyproject = upstream / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[project.optional-dependencies]\n'
                         'dev = ["pytest-asyncio==0.24.0"]\n')
    _point_at(upstream, task, message="dev extra")
    runner = task / "runner.sh"
    runner.write_text(runner.read_text().replace(
        "pip install -e .\n", 'pip install -e ".[dev]"\npip install pytest "six==1.16.0"\n'))
    (task / "feature1" / "tests.patch").write_text(ASYNC_TESTS)
    dest = tmp_path / "root" / "dataset"
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest), "--id", "tk-plugins")
    assert result.exit_code == 0, result.output
    wheels = (dest / "tk-plugins" / "wheels.txt").read_text().split()
    assert "pytest_asyncio==0.24.0" in wheels and "six==1.16.0" in wheels
    assert "-p asyncio " in result.output and "-p pytest_mock " in result.output
    check = invoke("--root", str(dest.parent), "dataset", "check", "--repeat", "1",
                   "--base-image", base_image)
    assert check.exit_code == 0, check.output
    expected = json.loads((dest / "tk-plugins" / "feature1" / "expected_tests.json").read_text())
    assert {"tests.test_whisper::test_whisper",
            "tests.test_whisper::test_whisper_async"} <= set(expected["fail_to_pass"])


MOCKER_TESTS = ASYNC_TESTS.split("\n\n\n@pytest.mark.asyncio")[0].replace(
    "@@ -0,0 +1,16 @@", "@@ -0,0 +1,10 @@") + "\n"


@pytest.mark.docker
@pytest.mark.full
def test_a_given_test_command_loads_the_wheelhouses_plugins(
        tmp_path: Path, base_image: str) -> None:
    """The plugins were added to the test command read from runner.sh only: a command given
    with --test-command ran with pytest's plugin autoloading off and no `-p`, and an honest
    task failed its gold check with "fixture 'mocker' not found" (outlines' tests/test_cache.py
    uses `mocker`). They are added to it too, saying so; one named already is kept."""
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    (task / "feature1" / "tests.patch").write_text(MOCKER_TESTS)
    dest = tmp_path / "root" / "dataset"
    given = 'python3 -m pytest -p no:cacheprovider --junitxml="$ARENA_JUNIT" tests/'
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest), "--id", "tk-given", "--test-command", given)
    assert result.exit_code == 0, result.output
    assert "note: added `-p pytest_mock` to --test-command" in result.output
    assert ("test command: python3 -m pytest -p pytest_mock -p no:cacheprovider"
            in result.output)
    check = invoke("--root", str(dest.parent), "dataset", "check", "--repeat", "1",
                   "--base-image", base_image)
    assert check.exit_code == 0, check.output
    expected = json.loads((dest / "tk-given" / "feature1" / "expected_tests.json").read_text())
    assert "tests.test_whisper::test_whisper" in expected["fail_to_pass"]


def test_plugins_go_after_the_commands_own_pytest_launcher() -> None:
    plugins = ["asyncio", "pytest_mock"]
    assert load_plugins("cd sub && X=1 timeout 300 python3 -m pytest tests", plugins,
                        given=True)[0] == ("cd sub && X=1 timeout 300 python3 -m pytest "
                                           "-p asyncio -p pytest_mock tests")
    assert load_plugins("pip install pytest && pytest -p no:pytest_mock t", plugins,
                        given=True)[0] == ("pip install pytest && pytest -p asyncio "
                                           "-p no:pytest_mock t")
    command, note = load_plugins("tox -e py", plugins, given=True)
    assert command == "tox -e py"
    assert note is not None and "add `-p asyncio -p pytest_mock` to it" in note


@pytest.mark.full  # the package index, tens of seconds
def test_a_dependency_the_images_python_needs_is_resolved_on_any_host(tmp_path: Path) -> None:
    """redis 8.1.0 needs async-timeout on Python < 3.11.3, the offline base image's 3.11.2:
    `pip download` on a newer host (3.11.7 here) judged the marker with its own Python, and
    the real dspy task's image build then failed (`No matching distribution found for
    async-timeout>=4.0.3 (from redis)`)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "needs-redis"\nversion = "0.1"\ndependencies = ["redis==8.1.0"]\n')
    lines = resolve_wheels([project], dest=tmp_path / "wheels").lines
    assert any(line.lower().startswith(("async_timeout==", "async-timeout==")) for line in lines)


def test_a_project_that_compiles_an_extension_is_refused_at_import(tmp_path: Path) -> None:
    """Pillow's setup.py builds C extensions and tiktoken builds Rust (setuptools-rust): task
    images have no compiler, so the import refuses them naming what is missing and where
    (before: imported, and every test then failed on the missing compiled module)."""
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    (upstream / "setup.py").write_text(
        "from setuptools import Extension, setup\n\n"
        'setup(ext_modules=[Extension("textkit._speed", ["textkit/_speed.c"])])\n')
    result, dest = _import_at(tmp_path, upstream, task, message="a C extension")
    assert result.exit_code == 1, result.output
    assert "compiles an extension module, which needs a C compiler: setup.py:3" in result.output
    assert not any(dest.glob("*/task.yaml"))
    rust = tmp_path / "rust"
    rust.mkdir()
    (rust / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools", '
                                         '"setuptools-rust>=1.5.2"]\n')
    assert native_build(rust) == ("a Rust compiler: its build requires setuptools-rust>=1.5.2 "
                                  "(pyproject.toml)")
    (upstream / "setup.py").write_text((upstream / "setup.py").read_text()
                                       .replace('["textkit/_speed.c"]', '["x.c"], optional=True'))
    assert native_build(upstream) is None  # optional speed-ups build without a compiler


def test_a_compiled_project_is_refused_without_wheels_too(tmp_path: Path) -> None:
    """The refusal lived in the wheel resolution, which --no-wheels skips: Pillow's task was
    imported without a word, and every test then failed on the missing compiled module.
    A package runner.sh installs by name was said to be "resolved into the wheelhouse"
    though there is none."""
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    runner = task / "runner.sh"
    runner.write_text(runner.read_text().replace(
        "pip install -e .\n", 'pip install -e .\npip install "six==1.16.0"\n'))
    plain = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                   "--dest", str(tmp_path / "plain"), "--no-wheels")
    assert plain.exit_code == 0, plain.output
    assert "note: runner.sh installs six==1.16.0: not installed (--no-wheels)" in plain.output
    (upstream / "setup.py").write_text(
        "from setuptools import Extension, setup\n\n"
        'setup(ext_modules=[Extension("textkit._speed", ["textkit/_speed.c"])])\n')
    _point_at(upstream, task, message="a C extension")
    dest = tmp_path / "dataset"
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest), "--no-wheels")
    assert result.exit_code == 1, result.output
    assert "compiles an extension module, which needs a C compiler: setup.py:3" in result.output
    assert "Traceback" not in result.output
    assert not any(dest.glob("*/task.yaml"))


def test_a_compiled_project_is_refused_before_its_unreadable_test_step(tmp_path: Path) -> None:
    """tiktoken's runner picks its test files in an if block: the import said to give
    --test-command, and only with one did it say the project needs a Rust compiler, which no
    option mends. The compiler is named first now; a project that builds still gets the
    --test-command hint."""
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    runner = task / "runner.sh"
    step = next(line for line in runner.read_text().splitlines() if "pytest" in line)
    runner.write_text(runner.read_text().replace(
        step, 'if compgen -G "tests/test_feature*.py" > /dev/null; then\n'
        '    SPEC="tests/test_feature*.py"\nelse\n    SPEC="tests/"\nfi\n'
        "python -m pytest $SPEC -v"))
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(tmp_path / "dataset"))
    assert result.exit_code == 1, result.output
    assert "the test step uses $SPEC" in result.output and "--test-command" in result.output
    (upstream / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools", "setuptools-rust>=1.5.2"]\n')
    _point_at(upstream, task, message="a Rust extension")
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(tmp_path / "dataset"))
    assert result.exit_code == 1, result.output
    assert ("compiles an extension module, which needs a Rust compiler: its build requires "
            "setuptools-rust>=1.5.2") in result.output
    assert "$SPEC" not in result.output and "Traceback" not in result.output
    assert not any((tmp_path / "dataset").glob("*/task.yaml"))


@pytest.mark.full  # the package index, tens of seconds
def test_dependencies_are_resolved_as_of_the_base_commit(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The real dspy task 8563 (base commit of 2025-07-21): today's litellm fails five of its
    tests under the gold patch, the litellm of the commit's day passes them all. Releases
    uploaded before the base commit are taken."""
    _index_with_upload_times(monkeypatch)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "dated"\nversion = "0.1"\ndependencies = ["json-repair"]\n')
    dated = resolve_wheels([project], dest=tmp_path / "dated", as_of="2025-06-01T00:00:00Z")
    assert "json_repair==0.46.0" in dated.lines  # the last before June 2025
    assert "pytest==8.3.5" in dated.lines and not dated.undated


@pytest.mark.full  # the package index, tens of seconds
def test_only_what_the_date_cannot_meet_is_taken_newer(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """jinja's task 1559 (base commit of 2021-12-26) needs MarkupSafe>=2.0, whose releases of
    that date have no wheel for Python 3.11, and this project pins pytest 8.3.5 (2025-03):
    the whole task was resolved with today's releases (MarkupSafe 3, setuptools 80+, what
    outlines' task 1371 got as torch 2.14). Now each requirement the date cannot meet gets
    the oldest release that meets it, and the rest stays of the date."""
    _index_with_upload_times(monkeypatch)
    project = tmp_path / "project"
    project.mkdir()
    # Metadata in setup.cfg, as jinja's then: the setuptools of 2021 predates [project].
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n')
    (project / "setup.cfg").write_text("[metadata]\nname = old\nversion = 0.1\n"
                                       "[options]\ninstall_requires = MarkupSafe>=2.0\n")
    resolved = resolve_wheels([project], dest=tmp_path / "w",
                              as_of="2021-12-26T07:48:45-07:00")
    assert not resolved.undated
    # Newer than the date: the pins, what pytest 8.3.5 needs, the first MarkupSafe with a
    # Python 3.11 wheel (2023-01).
    assert {"pytest==8.3.5", "pluggy==1.5.0", "MarkupSafe==2.1.2"} <= set(resolved.newer)
    assert {"MarkupSafe==2.1.2", "pluggy==1.5.0"} <= set(resolved.lines)
    # Of the date: the last releases before 2021-12-26.
    assert {"packaging==21.3", "setuptools==60.1.0", "iniconfig==1.1.1"} <= set(resolved.lines)


def test_local_packages_pip_does_not_date_are_named(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """pip's --uploaded-prior-to skips local files: on a machine whose pip configuration
    reads a local mirror (here: file:///opt/pypi/simple, /opt/wheels with torch 2.13), its
    releases mix into a dated resolution in silence (outlines' task 1371 of 2025-01 got
    torch 2.14.1). The import names those sources."""
    config = tmp_path / "pip.conf"
    config.write_text("[global]\nextra-index-url = file:///srv/mirror/simple "
                      "https://example.org/simple\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "wheels"))
    assert {"file:///srv/mirror/simple", str(tmp_path / "wheels")} <= set(_local_sources())
    _index_with_upload_times(monkeypatch)
    assert _local_sources() == ()


def _index_with_upload_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """pip's configuration files left out: a machine's local mirror (a file:// index, a
    find-links folder) is never dated by pip, and its releases would mix in."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
