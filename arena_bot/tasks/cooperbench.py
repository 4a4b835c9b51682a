"""Importing a CooperBench task folder as a task of this project.

A CooperBench task (``dataset/<repo>_task/task<id>/``) has a ``Dockerfile`` that clones the
upstream repository and checks out the base commit, a ``runner.sh`` whose test step runs the
tests, and ``feature<N>/{feature.md,feature.patch,tests.patch}``. The import keeps the
features and their patches, reads the upstream URL and base commit from the Dockerfile and
the test command and installed projects from the runner (:mod:`arena_bot.tasks.cooperbench_runner`;
or takes ``test_command``), and writes:

* ``task.yaml`` (validated by loading it back),
* a Dockerfile of this project's shape (``ARG BASE_IMAGE``, no ENTRYPOINT, the repository
  at ``/workspace/repo`` owned by uid 1000),
* ``repo.bundle`` made from ``source`` (a local clone or git bundle, for offline machines;
  default: the upstream URL). The bundle holds the history up to the base commit only, so
  tests cannot read "future" commits.

What is not carried over: the runner's network ``pip install`` steps and any secondary test
steps (the test files of the features' tests patches they would run are added to the test
command, each run when present). In their place the imported Dockerfile installs the task's
wheelhouse (:mod:`arena_bot.tasks.wheels`) and makes each project the runner installs importable
offline (:func:`install_steps`), with ``python`` where the base image has only ``python3``,
as real test suites call ``python``.
"""

from __future__ import annotations

import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import yaml
from pydantic import ValidationError

from arena_bot.core.errors import DatasetError, InputError, NoWheelError, UsageError
from arena_bot.core.gitcmd import run_git
from arena_bot.models.task import Task
from arena_bot.tasks.cooperbench_runner import (
    install_extras,
    install_fallbacks,
    install_requirements,
    peel,
    read_test_step,
    script_lines,
)
from arena_bot.tasks.dataset import (
    TaskFolder,
    collected_paths,
    collects,
    load_task,
    task_dockerfile,
)
from arena_bot.tasks.wheels import WHEELS_FILE, native_refusal, pytest_plugins, resolve_wheels

_CLONE = re.compile(
    r"\bgit\s+clone\s+(?:-{1,2}[\w-]+(?:[= ]\d+)?\s+)*(?P<url>(?:https?://|git@)\S+)"
)
_CHECKOUT = re.compile(
    r"\bgit\s+(?:-C\s+\S+\s+)?checkout\s+(?:-q\s+|--quiet\s+)?(?P<sha>[0-9a-f]{40})\b"
)
_FEATURE_DIR = re.compile(r"^feature(\d+)$")
_TESTS_PATCH_FILE = re.compile(r"^\+\+\+ b/(?P<path>[\w./-]*?(?:test_[\w.-]*|[\w.-]*_test)\.py)$",
                               re.MULTILINE)
_MARKDOWN_LABEL = re.compile(r"^(?:\*\*|__)?\s*(?:title|feature)\s*:?\s*(?:\*\*|__)?\s*:?\s*",
                             re.IGNORECASE)

def install_steps(folders: tuple[str, ...] = (".",)) -> str:
    """Dockerfile steps (run as root in /workspace/repo) making each of ``folders``
    (repository-relative: the projects the runner installs with ``pip install -e``)
    importable as its packaging says, offline (the steps' first comment says how)."""
    quoted = " ".join(shlex.quote(folder) for folder in folders)
    return f"""\
# Importable as its packaging says, offline: editable install if pip and the build backend are
# in the image, else a .pth line naming src/ (src layout) or the project folder (flat layout).
RUN command -v python >/dev/null || ln -s "$(command -v python3)" /usr/local/bin/python
RUN for project in {quoted}; do \\
        cd "/workspace/repo/$project" || exit 1; \\
        python3 -m pip install --quiet --no-index --no-build-isolation --no-deps -e . \\
            >>/tmp/arena-install.log 2>&1 \\
        || (dir="$PWD"; if [ -d src ]; then dir="$PWD/src"; fi; \\
            python3 -c "import os, site, sys; d = site.getsitepackages()[0]; \\
os.makedirs(d, exist_ok=True); \\
open(os.path.join(d, 'arena-task.pth'), 'a').write(sys.argv[1] + '\\\\n')" \\
            "$dir") || exit 1; \\
    done \\
    && chown -R 1000:1000 /workspace
"""


def wheel_steps(folders: tuple[str, ...] = (".",)) -> str:
    """Dockerfile steps installing the task's wheelhouse (``wheels/``: the wheels its
    ``wheels.txt`` names, put there by the image build on the host) with ``--no-index``,
    then :func:`install_steps` (the project editable, its build backend now installed): no
    network inside the build."""
    return """\
# Dependencies from the wheelhouse the host fetched (wheels.txt; `pip install --no-index`).
COPY wheels /opt/arena/wheels
RUN pip=$(ls /opt/arena/wheels/pip-*.whl | head -n 1) \\
    && python3 "$pip/pip" install --quiet --no-index --find-links /opt/arena/wheels \\
        --break-system-packages --root-user-action=ignore -r /opt/arena/wheels/wheels.txt
ENV PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore
""" + install_steps(folders)


#: Where a test command starts pytest: ``python3 -m pytest``, ``pytest``, ``py.test`` (a
#: path before it allowed).
_PYTEST_LAUNCH = re.compile(r"(?<![^\s;&|(])(?:\S*/)?(?:python3?(?:\.\d+)?\s+-m\s+pytest|"
                            r"py\.test|pytest)(?=\s|$)")


def load_plugins(command: str, plugins: list[str], *, given: bool) -> tuple[str, str | None]:
    """``command`` loading the wheelhouse's pytest ``plugins`` by name (``-p pytest_mock``)
    after its first pytest launcher, and a note for the user when the command was ``given``
    (--test-command) or has no launcher to add them to. The sandbox turns pytest's plugin
    autoloading off, and CooperBench's image, which autoloads every installed plugin, runs
    the tests with them (a ``mocker`` fixture is pytest-mock's). Plugins the command already
    names (``-p name``, ``-p no:name``) are left as they are."""
    named = set(re.findall(r"(?:^|\s)-p\s*(?:no:)?([\w.-]+)", command))
    wanted = [name for name in plugins if name not in named]
    if not wanted:
        return command, None
    flags = " ".join(f"-p {name}" for name in wanted)
    launch = next((found for found in _PYTEST_LAUNCH.finditer(command)
                   if not peel(re.split(r"[;&|(]", command[:found.start()])[-1].split())[1]),
                  None)  # a launcher of its own command (`pip install pytest` is not one)
    if launch is None:
        return command, (f"the test command runs no `pytest` or `python3 -m pytest` this import "
                         f"could add the wheelhouse's pytest plugins to: add `{flags}` to it "
                         "(pytest's plugin autoloading is off in the sandbox; a `mocker` "
                         "fixture is pytest-mock's)")
    loaded = f"{command[:launch.end()]} {flags}{command[launch.end():]}"
    if not given:
        return loaded, None
    return loaded, (f"added `{flags}` to --test-command: the wheelhouse's pytest plugins, "
                    "which CooperBench's image loads by itself and the sandbox, with pytest's "
                    "plugin autoloading off, only by name (task.yaml has the command)")


@dataclass(frozen=True)
class CooperBenchTask:
    """What the import reads from a CooperBench task folder."""

    root: Path
    upstream: str
    commit: str
    test_command: str
    features: dict[int, str]  # id -> title
    #: What the import read from runner.sh but left out (secondary test steps, dropped flags).
    notes: tuple[str, ...] = ()
    #: Projects the runner installs (``pip install -e``), repository-relative.
    install_folders: tuple[str, ...] = (".",)
    #: The extras the runner installs each of them with (None: the bare project, as a runner
    #: installing ``-e .`` has it; "": the ``test`` extra, for a runner installing nothing).
    extras: tuple[str | None, ...] = ("",)
    #: Whether ``test_command`` was read from runner.sh (not given with --test-command).
    derived: bool = True
    #: What the runner installs by name (``pip install "pyarrow==20.0.0"``).
    requirements: tuple[str, ...] = ()
    #: Per install folder, the extras the runner installs it with when the first install
    #: fails (``|| pip install -e .``: ``""``, the bare project), in order.
    fallbacks: tuple[tuple[str, ...], ...] = ()

    def suggested_id(self) -> str:
        """:func:`suggested_id` of the task's folder."""
        return suggested_id(self.root)


def suggested_id(root: Path) -> str:
    """``<repo>-task<id>`` from ``<repo>_task/task<id>``, as a valid task id."""
    repo = root.parent.name.removesuffix("_task")
    raw = f"{repo}-{root.name}".lower()
    cleaned = re.sub(r"[^a-z0-9._-]+", "-", raw).strip("-._")
    return cleaned[:80] or "cooperbench-task"


@dataclass(frozen=True)
class Imported:
    """An imported task and the notes on how it differs from CooperBench's runner."""

    task: TaskFolder
    notes: tuple[str, ...]


def read_dockerfile(path: Path) -> tuple[str, str]:
    """The upstream URL (``git clone URL``) and base commit (``git checkout SHA``)."""
    if not path.is_file():
        raise DatasetError("CooperBench task folder has no Dockerfile", path=path.parent)
    text = path.read_text(encoding="utf-8", errors="replace")
    url = commit = None
    for _, line in script_lines(text):
        for part in re.split(r"&&|;", line):
            if url is None and (match := _CLONE.search(part)):
                url = match.group("url").removesuffix(".git") + ".git"
            if commit is None and (match := _CHECKOUT.search(part)):
                commit = match.group("sha")
    if url is None:
        raise DatasetError(
            "no `git clone <url>` line found", path=path,
            hint="the Dockerfile must clone the upstream repository",
        )
    if commit is None:
        raise DatasetError(
            "no `git checkout <40-hex sha>` line found", path=path,
            hint="the Dockerfile must check out the base commit by its full sha",
        )
    return url, commit


def read_features(root: Path) -> dict[int, str]:
    """Feature ids (1..N, contiguous) and titles (first line of each feature.md)."""
    found: dict[int, str] = {}
    for child in sorted(root.iterdir()):
        match = _FEATURE_DIR.match(child.name)
        if not (match and child.is_dir()):
            continue
        for name in ("feature.md", "feature.patch", "tests.patch"):
            if not (child / name).is_file():
                raise DatasetError(f"{child.name} has no {name}", path=child)
        found[int(match.group(1))] = _title(child / "feature.md", fallback=child.name)
    ids = sorted(found)
    if not ids:
        raise DatasetError("no feature<N>/ folders found", path=root)
    if ids != list(range(1, len(ids) + 1)):
        raise DatasetError(f"feature folders must be numbered 1..N, found {ids}", path=root)
    return dict(sorted(found.items()))


def _title(path: Path, *, fallback: str) -> str:
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        text = line.strip().lstrip("#").strip()
        text = _MARKDOWN_LABEL.sub("", text).strip().strip("*_").strip()
        text = "".join(ch for ch in text if ch.isprintable())
        if text:
            return text[:100]
    return fallback


def read_task(root: Path, *, test_command: str | None = None) -> CooperBenchTask:
    """Read everything the import needs from a CooperBench task folder."""
    if not root.is_dir():
        raise InputError("CooperBench task folder not found", path=root)
    upstream, commit = read_dockerfile(root / "Dockerfile")
    step = None if test_command else read_test_step(root / "runner.sh")
    runner = root / "runner.sh"
    script = runner.read_text(encoding="utf-8", errors="replace") if runner.is_file() else ""
    # A bare `pip install -e .` is the bare project: CooperBench's image has nothing of its
    # test extra then (outlines' source-only llama-cpp-python, datasets' tensorflow).
    installs: dict[str, str | None] = {folder: extras or None for folder, extras
                                       in install_extras(script).items()} or {".": ""}
    fallbacks = install_fallbacks(script)
    named = install_requirements(script)
    task = CooperBenchTask(root=root, upstream=upstream, commit=commit,
                           test_command=test_command or (step.command if step else ""),
                           features=read_features(root),
                           install_folders=tuple(installs), extras=tuple(installs.values()),
                           derived=not test_command, requirements=named,
                           fallbacks=tuple(fallbacks.get(folder, ()) for folder in installs),
                           notes=step.notes if step else ())
    return _with_feature_tests(task, script) if task.derived else task


def _with_feature_tests(task: CooperBenchTask, script: str) -> CooperBenchTask:
    """The task with the test files of its features' tests patches that runner.sh runs in a
    later step the import does not carry over (CooperBench's dspy runners loop over them
    when a feature patch is given) added to its command, each run when present: the
    feature's tests and canaries must run, or the feature cannot be checked. A file
    runner.sh (``script``) never names is left out, as CooperBench leaves it."""
    named = collected_paths(task.test_command)
    if named is None or task.test_command.startswith("cd "):
        return task  # every test file is collected / paths are relative to another folder
    missing: list[str] = []
    for fid in task.features:
        text = (task.root / f"feature{fid}" / "tests.patch").read_text(encoding="utf-8",
                                                                       errors="replace")
        for path in _TESTS_PATCH_FILE.findall(text):
            if not collects(path, named) and path in script and path not in missing:
                missing.append(path)
    if not missing:
        return task
    note = (f"added {', '.join(missing)} to the test command, each run when it exists: "
            "test files of the features' tests patches that runner.sh runs in a later step "
            "(change with --test-command)")
    return replace(task, test_command=f"{task.test_command} $(ls -d {' '.join(missing)} "
                   "2>/dev/null)", notes=(*task.notes, note))


def make_bundle(*, source: str, commit: str, target: Path) -> None:
    """Write a bundle of ``source`` (clone, bundle or URL) holding history up to ``commit``."""
    with tempfile.TemporaryDirectory(prefix="arena-import-") as temp:
        clone = Path(temp) / "repo"
        _git("clone", "--quiet", "--no-checkout", source, str(clone), what=f"clone {source}")
        _git("-C", str(clone), "cat-file", "-e", f"{commit}^{{commit}}",
             what=f"find the base commit {commit} in {source}")
        shallow = run_git(("-C", str(clone), "rev-parse", "--is-shallow-repository"))
        if shallow.ok and shallow.text.strip() == "true":
            raise InputError(
                f"{source} is a shallow clone: the task's bundle holds the history up to the "
                "base commit, and a shallow clone cuts it off (the bundle would not clone)",
                hint=f"fetch the whole history (git -C {source} fetch --unshallow) or clone "
                "without --depth, then import again")
        # update-ref, not `branch -f`: the clone of an earlier import has it checked out.
        _git("-C", str(clone), "update-ref", "refs/heads/arena-base", commit, what="branch")
        _git("-C", str(clone), "symbolic-ref", "HEAD", "refs/heads/arena-base", what="HEAD")
        done = run_git(("-C", str(clone), "bundle", "create", "--quiet", str(target), "HEAD",
                        "arena-base"), timeout=900)
        if not done.ok:
            raise _bundle_error(done.stderr, clone=clone, source=source, commit=commit)


def _bundle_error(stderr: str, *, clone: Path, source: str, commit: str) -> InputError:
    """What stopped ``git bundle create``: an object the source lacks (a partial clone made
    with --filter, a mirror without its large files, a damaged repository) is named, with the
    file it is at the base commit when it is one; anything else as git said it."""
    missing = re.search(r"(?:unable to read|missing \w+ object '?)\s*([0-9a-f]{40})", stderr)
    if missing is None:
        return InputError(f"git could not bundle: {stderr.strip()[-500:]}",
                          hint="--source takes a local clone or a git bundle that contains "
                          "the base commit")
    sha = missing[1]
    listed = run_git(("-C", str(clone), "ls-tree", "-r", commit), timeout=900)
    where = next((line.split("\t", 1)[1] for line in listed.text.splitlines()
                  if line.split("\t", 1)[0].endswith(f" {sha}")), None)
    at = (f"{where} at the base commit" if where
          else "a file of the history before the base commit")
    return InputError(
        f"{source} lacks git object {sha} ({at}): an incomplete clone (a partial clone made "
        "with --filter, or one whose large files are missing); the task's bundle needs every "
        "object up to the base commit",
        hint="import from a complete clone of the upstream repository (git clone without "
        "--filter or --depth)")


def import_task(
    root: Path,
    *,
    dest: Path,
    source: str | None = None,
    test_command: str | None = None,
    task_id: str | None = None,
    force: bool = False,
    wheels: bool = True,
) -> Imported:
    """Import the CooperBench task at ``root`` into ``dest/<id>``; return the loaded task
    and what the import read, left out or replaced (notes for the user).

    An existing ``dest/<id>`` is an error unless ``force``: then it is replaced only once the
    new folder is complete, so a failed import loses nothing. With ``wheels`` (the default)
    the dependencies are resolved on the host into ``wheels.txt`` (:mod:`arena_bot.tasks.wheels`);
    without, the image only makes the project importable (no dependencies).
    """
    try:
        task = read_task(root, test_command=test_command)
    except DatasetError as unreadable:
        if test_command is None and (root / "runner.sh").is_file():
            # runner.sh's test step could not be read: --test-command is the way out,
            # unless the project cannot be built here at all, which is said first.
            compiled = _compiler_refusal(root, source=source)
            if compiled is not None:
                raise compiled from unreadable
        raise
    dest = dest.resolve()  # git runs in other folders: a relative path would land there
    task_id = task_id or task.suggested_id()
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,79}", task_id):
        raise UsageError(f"task id {task_id!r} is not valid",
                         hint="use lower-case letters, digits, '.', '_' and '-' (--id)")
    target = dest / task_id
    if target.exists() and not force:
        raise UsageError(f"task {task_id} already exists", path=target,
                         hint="use --force to replace it, or choose another --id")
    spec_text = _task_yaml(task, task_id=task_id)  # checked before anything is written
    notes = list(task.notes)
    dest.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{task_id}-", dir=dest))
    try:
        for fid in task.features:
            shutil.copytree(root / f"feature{fid}", staging / f"feature{fid}",
                            ignore=shutil.ignore_patterns("resolution_patches"))
        if (root / "runner.sh").is_file():
            shutil.copy2(root / "runner.sh", staging / "runner.sh")  # kept for compatibility
        make_bundle(source=source or task.upstream, commit=task.commit,
                    target=staging / "repo.bundle")
        steps = install_steps(task.install_folders)
        if not wheels and (refused := _native_refusal_at(
                staging / "repo.bundle", commit=task.commit,
                folders=task.install_folders)) is not None:
            raise refused  # without its wheels the image still cannot build the extension
        if task.requirements:
            notes.append(f"runner.sh installs {', '.join(task.requirements)}: "
                         + ("resolved into the wheelhouse too" if wheels
                            else "not installed (--no-wheels)"))
        if wheels:
            lines, plugins, resolved = _resolve(staging / "repo.bundle", task)
            notes.extend(resolved)
            (staging / WHEELS_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
            steps = wheel_steps(task.install_folders)
            command, note = load_plugins(task.test_command, plugins, given=not task.derived)
            if note:
                notes.append(note)
            if command != task.test_command:
                task = replace(task, test_command=command)
                spec_text = _task_yaml(task, task_id=task_id)
        (staging / "Dockerfile").write_text(
            task_dockerfile(
                task.commit,
                comment=f"Imported from CooperBench ({task.upstream}); generated by "
                "`arena dataset import-cooperbench`.",
            )
            + steps
        )
        (staging / "task.yaml").write_text(spec_text)
        _match_permissions(staging, like=dest)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Imported(task=load_task(target), notes=tuple(notes))


def _compiler_refusal(root: Path, *, source: str | None) -> DatasetError | None:
    """The compiler refusal of :func:`~arena_bot.tasks.wheels.native_refusal` for the
    projects runner.sh installs, read from the base commit; None when they build or the
    source cannot be read (the import's other errors say so)."""
    try:
        upstream, commit = read_dockerfile(root / "Dockerfile")
        script = (root / "runner.sh").read_text(encoding="utf-8", errors="replace")
        with tempfile.TemporaryDirectory(prefix="arena-import-") as temp:
            bundle = Path(temp) / "repo.bundle"
            make_bundle(source=source or upstream, commit=commit, target=bundle)
            return _native_refusal_at(bundle, commit=commit,
                                      folders=tuple(install_extras(script) or {".": ""}))
    except InputError:
        return None


def _native_refusal_at(bundle: Path, *, commit: str,
                       folders: tuple[str, ...]) -> DatasetError | None:
    """:func:`~arena_bot.tasks.wheels.native_refusal` of the first of ``folders`` that
    compiles an extension module, in a checkout of ``bundle`` at ``commit``."""
    with tempfile.TemporaryDirectory(prefix="arena-import-") as temp:
        checkout = Path(temp) / "repo"
        _git("clone", "--quiet", "--no-checkout", str(bundle), str(checkout),
             what="check out the bundle")
        _git("-C", str(checkout), "checkout", "--quiet", commit, what="check out the base")
        for folder in folders:
            if (refused := native_refusal(checkout / folder)) is not None:
                return refused
    return None


def _resolve(bundle: Path, task: CooperBenchTask) -> tuple[list[str], list[str], list[str]]:
    """The ``wheels.txt`` lines of the task, resolved from a checkout of the base commit,
    the pytest plugins among them and notes on what was taken. An install a dependency
    without a wheel stops is replaced by the runner's own fallback for it, when it has one
    (:func:`_installs_to_try`)."""
    with tempfile.TemporaryDirectory(prefix="arena-wheels-") as temp:
        checkout = Path(temp) / "repo"
        _git("clone", "--quiet", str(bundle), str(checkout), what="check out the bundle")
        _git("-C", str(checkout), "checkout", "--quiet", task.commit, what="check out the base")
        projects = [checkout / folder for folder in task.install_folders]
        dated = run_git(("-C", str(checkout), "log", "-1", "--format=%cI", task.commit))
        attempts = _installs_to_try(task)
        notes: list[str] = []
        for number, extras in enumerate(attempts):
            wheels = Path(temp) / f"wheels{number}"
            as_of = dated.text.strip() if dated.ok else None
            try:
                resolution = resolve_wheels(projects, dest=wheels,
                                            extras=dict(zip(projects, extras, strict=True)),
                                            named=task.requirements, as_of=as_of)
            except NoWheelError as exc:
                if number + 1 == len(attempts):
                    raise
                changed = [(folder, old, new) for folder, old, new
                           in zip(task.install_folders, extras, attempts[number + 1],
                                  strict=True) if old != new]
                notes.append(
                    f"{', '.join(exc.missing)} has no wheel (its source needs a compiler), "
                    "so the wheelhouse installs "
                    + ", ".join(f"{_spec(folder, new)} instead of {_spec(folder, old)}"
                                for folder, old, new in changed)
                    + ": runner.sh's own fallback when that install fails")
                continue
            if as_of and resolution.undated:
                notes.append(f"the dependencies did not resolve as of the base commit ({as_of}"
                             "): today's releases are in the wheelhouse")
            elif as_of and resolution.newer:
                notes.append(f"the dependencies are resolved as of the base commit ({as_of}) "
                             "but for " + ", ".join(resolution.newer) + ": newer (this "
                             "project's pins, what they need, or no wheel of that date for "
                             "Python 3.11), each the oldest release that fits")
            if as_of and resolution.local_sources and not resolution.undated:
                notes.append("pip's configuration reads local packages, which pip does not "
                             "date: " + ", ".join(resolution.local_sources) + "; their "
                             "releases may be newer than the base commit (check wheels.txt)")
            return resolution.lines, pytest_plugins(wheels), notes
    raise AssertionError("unreachable: the last attempt returns or raises")


def _installs_to_try(task: CooperBenchTask) -> list[tuple[str | None, ...]]:
    """The extras of each install folder, per attempt: the runner's first install (``""``:
    the ``test`` extra), then its fallbacks (:attr:`CooperBenchTask.fallbacks`; ``None``: the
    bare project) one at a time, a folder without more keeping its last."""
    first: tuple[str | None, ...] = task.extras
    attempts = [first]
    depth = max((len(fallback) for fallback in task.fallbacks), default=0)
    for step in range(depth):
        attempts.append(tuple(
            (fallback[min(step, len(fallback) - 1)] or None) if fallback else extras
            for extras, fallback in zip(task.extras, task.fallbacks or
                                        ((),) * len(task.extras), strict=True)))
    return attempts


def _spec(folder: str, extras: str | None) -> str:
    """How runner.sh names an install: ``.[test]``, ``./pkg``."""
    name = "." if folder == "." else f"./{folder}"
    return f"`{name}`" if extras is None else f"`{name}[{extras or 'test'}]`"


def _match_permissions(folder: Path, *, like: Path) -> None:
    """Give the imported folder the dataset folder's permissions (mkdtemp makes it 0700)."""
    mode = like.stat().st_mode & 0o777
    for path in [folder, *folder.rglob("*")]:
        path.chmod(mode if path.is_dir() else mode & 0o666)


def _task_yaml(task: CooperBenchTask, *, task_id: str) -> str:
    repo = task.root.parent.name.removesuffix("_task")
    document = {
        "schema_version": 1,
        "id": task_id,
        "title": f"CooperBench {repo} {task.root.name}"[:100],
        "description": (
            f"Imported from CooperBench ({task.root.parent.name}/{task.root.name}); "
            f"upstream {task.upstream} at {task.commit}."
        ),
        "category": "backend_development",
        "difficulty": "intermediate",
        "language": "Python",
        "source": {"bundle": "repo.bundle", "commit": task.commit},
        "tests": {"command": task.test_command, "timeout": 600},
        "features": [{"id": fid, "title": title} for fid, title in task.features.items()],
    }
    try:
        Task.model_validate(document)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, error['loc']))}: {error['msg']}"
                             for error in exc.errors())
        raise DatasetError(
            f"the imported task.yaml would not be valid: {problems}", path=task.root,
            hint="a test command read from runner.sh that is too long can be given with "
            "--test-command; an id with --id",
        ) from None
    header = "# Imported by `arena dataset import-cooperbench`; review category and difficulty.\n"
    return header + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)


def _git(*args: str, what: str) -> None:
    done = run_git(args, timeout=900)
    if not done.ok:
        raise InputError(
            f"git could not {what}: {done.stderr.strip()[-500:]}",
            hint="--source takes a local clone or a git bundle that contains the base commit",
        )
