"""A task's Python dependencies as a wheelhouse: resolved on the host, installed offline.

``arena dataset import-cooperbench`` resolves what CooperBench's runner installs (the
project with the runner's extras, the packages it names, pytest and pytest-mock) plus the
project's build backend, as of the base commit, with ``pip download --only-binary=:all:``
on the host, and records the exact wheels as ``name==version`` lines in ``wheels.txt``.
Building the task image fetches those wheels on the host into a cache (:func:`fetch_wheels`;
nothing is fetched when the cache has them, so a machine without network builds from the
cache) and installs them inside the build with ``pip install --no-index`` (the image itself
never needs a network). A dependency with no wheel for this platform needs a compiler or
system libraries: the import says which.
The tests run with pytest's plugin autoloading off; :func:`pytest_plugins` names the
wheelhouse's plugins for the test command to load.
"""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from arena_bot.core.errors import ArenaError, DatasetError, NoWheelError, SandboxError

#: pytest as the index has it, not Debian's 7.2.1 (`filterwarnings = error` breaks on it): the
#: one place its version is pinned, for task wheelhouses and the offline base image alike.
PYTEST_PIN = "pytest==8.3.5"
#: The pip of task images and the offline base image: the wheelhouse's pip installs the
#: wheelhouse with ``--break-system-packages`` (pip 23.0.1), so not one of an old base date.
PIP_PIN = "pip==26.3"
#: The offline base image's wheelhouse (``arena images base``): the pip that installs it and
#: :data:`PYTEST_PIN` with its dependencies on the base image's Python 3.11 (exceptiongroup
#: and tomli are for Python < 3.11 only), each pinned so that every build installs the same.
BASE_WHEELS = (PIP_PIN, PYTEST_PIN, "iniconfig==2.3.1", "packaging==26.4",
               "pluggy==1.7.0")
#: What CooperBench's Dockerfile installs besides the project (pytest-xdist is never used by
#: the test commands and is left out).
TEST_TOOLS = (PYTEST_PIN, "pytest-mock==3.14.0")
WHEELS_FILE = "wheels.txt"
#: The offline base image's Python (Debian bookworm's; the default base image's 3.11 is not
#: older). ``pip download`` evaluates environment markers with the host's Python only (its
#: ``--python-version`` does not reach them): what this one needs besides is added.
IMAGE_PYTHON = "3.11.2"
_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)-.*\.whl$")
_TIMEOUT = 900


def build_requires(project: Path) -> list[str]:
    """The project's ``[build-system] requires`` (setuptools + wheel when it has none)."""
    pyproject = project / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            data = {}
        requires = data.get("build-system", {}).get("requires")
        if isinstance(requires, list) and all(isinstance(r, str) for r in requires):
            return list(requires)
    return ["setuptools", "wheel"]


#: Build requirements that compile an extension module (Rust: the first two).
_NATIVE_BUILD = re.compile(r"^(maturin|setuptools[-_]rust|scikit[-_]build|meson[-_]python|"
                           r"cython|pybind11|nanobind|cffi|py[-_]build[-_]cmake)\b",
                           re.IGNORECASE)
_EXTENSION = re.compile(r"\b(?:Rust)?Extension\(")


def native_build(project: Path) -> str | None:
    """What in ``project`` compiles an extension module (a compiler task images do not
    have), or None. A setup.py whose extensions are optional speed-ups (a ``BuildFailed``
    fallback, ``optional=True``) builds without one and does not count."""
    for requirement in build_requires(project):
        if _NATIVE_BUILD.match(requirement.strip()):
            compiler = "Rust" if re.match(r"(?i)maturin|setuptools.rust", requirement) else "C"
            return f"a {compiler} compiler: its build requires {requirement} (pyproject.toml)"
    setup = project / "setup.py"
    text = setup.read_text(encoding="utf-8", errors="replace") if setup.is_file() else ""
    if re.search(r"BuildFailed|optional\s*=\s*True", text):
        return None
    for number, line in enumerate(text.splitlines(), start=1):
        if _EXTENSION.search(line) and not line.lstrip().startswith("#"):
            compiler = "Rust" if "RustExtension" in line else "C"
            return f"a {compiler} compiler: setup.py:{number} builds `{line.strip()[:80]}`"
    return None


def native_refusal(project: Path) -> DatasetError | None:
    """The error refusing ``project`` when it compiles an extension module
    (:func:`native_build`), or None."""
    if (needs := native_build(project)) is None:
        return None
    return DatasetError(
        f"the project compiles an extension module, which needs {needs}; "
        "task images have no compiler",
        hint="a task needing a compiler cannot be imported as it is: leave it out")


def _pip(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True,
                          timeout=_TIMEOUT, check=False)


@dataclass(frozen=True)
class Resolution:
    """What :func:`resolve_wheels` resolved."""

    #: The wheels as sorted ``name==version`` lines (``wheels.txt``).
    lines: list[str]
    #: The releases taken newer than ``as_of`` (``name==version``), each the oldest with a
    #: wheel for this platform that meets what required it: this project's pins, what they
    #: need, a dependency with no wheel of the date for the image's Python.
    newer: tuple[str, ...] = ()
    #: Whether today's releases were taken for everything (the date did not resolve).
    undated: bool = False
    #: The local folders and file:// indexes pip's configuration reads, whose releases pip
    #: does not date (``--uploaded-prior-to`` skips local files): they may be newer.
    local_sources: tuple[str, ...] = ()


def resolve_wheels(projects: list[Path], *, dest: Path,
                   extras: Mapping[Path, str | None] | None = None,
                   named: tuple[str, ...] = (), as_of: str | None = None) -> Resolution:
    """Download (into ``dest``) the wheels that install ``projects`` with their extras (the
    runner's, ``extras``; default ``test``; None: none), the requirements the runner installs
    by name (``named``), the test tools, pip and the build backends. A missing wheel is a
    DatasetError naming the package (a NoWheelError when the index has only its source).

    ``as_of`` (an ISO date: the base commit's) resolves the releases uploaded before it,
    the packages the base commit was written against (today's may break its tests: litellm
    1.108 fails five of dspy's tests that 1.74, of the commit's day, passes). A requirement
    nothing before the date meets (this project's ``pytest==8.3.5``, of 2025-03; a runner's
    ``pyarrow==20.0.0``; MarkupSafe 2.0, whose wheels of 2021 stop at Python 3.10) gets the
    oldest release after it that does, and the rest stays dated (:func:`_dated_download`).
    An index without upload times is not dated: pip's ``--uploaded-prior-to`` skips local
    files and fails on a remote index without them (then today's releases are taken)."""
    requirements = [PIP_PIN, *TEST_TOOLS]
    for project in projects:
        if not any((project / name).is_file()
                   for name in ("pyproject.toml", "setup.py", "setup.cfg")):
            continue  # no packaging: made importable by a .pth line, nothing to resolve
        if (refused := native_refusal(project)) is not None:
            raise refused
        requirements.extend(build_requires(project))
        wanted = (extras or {}).get(project, "")
        requirements.append(str(project) if wanted is None else f"{project}[{wanted or 'test'}]")
    newer: list[str] = []
    links = dest.parent / f"{dest.name}.newer"  # the releases taken newer than the date
    undated = as_of is None
    try:
        if as_of is None:
            _download([*requirements, *named], dest=dest)
        else:
            try:
                newer += _dated_download([*requirements, *named], dest=dest, as_of=as_of,
                                         links=links)
            except _Undatable:
                shutil.rmtree(dest, ignore_errors=True)
                newer, undated = [], True
                _download([*requirements, *named], dest=dest)
        for _ in range(5):  # each round adds what the last one's wheels need (one, in practice)
            gaps = _marker_gaps(dest)
            if not gaps:
                break
            if undated or as_of is None:
                _download(["--no-deps", *gaps], dest=dest)
            else:
                newer += _dated_download(["--no-deps", *gaps], dest=dest, as_of=as_of,
                                         links=links)
    finally:
        shutil.rmtree(links, ignore_errors=True)
    lines = set()
    for wheel in dest.glob("*.whl"):
        match = _WHEEL.match(wheel.name)
        if match:
            lines.add(f"{match['name']}=={match['version']}")
    return Resolution(lines=sorted(lines, key=str.lower), newer=tuple(newer), undated=undated,
                      local_sources=() if as_of is None else _local_sources())


def _local_sources() -> tuple[str, ...]:
    """The local folders and ``file:`` indexes pip's configuration (files, environment)
    names: ``--find-links``, ``--index-url``, ``--extra-index-url``."""
    listed = _pip(["config", "list"])
    found: list[str] = []
    for line in listed.stdout.splitlines():
        key, _, value = line.partition("=")
        if not key.endswith(("find-links", "index-url")):
            continue
        for source in value.strip().strip("'\"").split():
            if (source.startswith("file:") or "://" not in source) and source not in found:
                found.append(source)
    return tuple(found)


class _Undatable(Exception):
    """The dated resolution failed in a way no newer release of one requirement mends (a
    conflict, an index without upload times)."""


#: How many requirements may be taken newer than the date, one pip run each.
_NEWER_ROUNDS = 40


def _dated_download(requirements: list[str], *, dest: Path, as_of: str,
                    links: Path) -> list[str]:
    """``pip download`` of the releases uploaded before ``as_of``; return the releases taken
    newer. Each requirement nothing before the date meets (pip: "No matching distribution
    found for pluggy<2,>=1.5") gets the oldest release that does, put in ``links``, a local
    folder pip reads beside the index and does not date; then the download is tried again.
    The rest stays as of the date, not the whole resolution today's. Raises
    :class:`_Undatable` when the failure is not such a requirement (a conflict, an index
    without upload times), the download's DatasetError when no release has a wheel."""
    links.mkdir(parents=True, exist_ok=True)
    taken: list[str] = []
    tried: set[str] = set()
    for _ in range(_NEWER_ROUNDS):
        done = _pip(["download", "--quiet", "--only-binary=:all:", "--dest", str(dest),
                     f"--uploaded-prior-to={as_of}", "--find-links", str(links),
                     *requirements])
        if done.returncode == 0:
            return taken
        _refuse_old_pip(done)
        if "does not provide upload-time metadata" in done.stderr:
            raise _Undatable(done.stderr)
        missing = [req for req in _MISSING.findall(done.stderr) if req not in tried]
        if not missing:
            break
        tried.add(missing[0])
        release = _oldest_wheel(missing[0])
        if release is None:
            _raise_download_error(done)  # no release at all has a wheel: named as before
        fetched = _pip(["download", "--quiet", "--only-binary=:all:", "--no-deps",
                        "--dest", str(links), release])
        if fetched.returncode != 0:
            _raise_download_error(fetched)
        taken.append(release)
    raise _Undatable(done.stderr)


_MISSING = re.compile(r"No matching distribution found for ([^\s;]+)")


def _oldest_wheel(requirement: str) -> str | None:
    """``name==version`` of the oldest release meeting ``requirement`` that has a wheel for
    this platform and Python (closest to a date nothing before which meets it), or None."""
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        return None
    listed = _pip(["index", "versions", "--pre", "--only-binary=:all:", parsed.name])
    found = re.search(r"^Available versions: (.+)$", listed.stdout, re.MULTILINE)
    if listed.returncode != 0 or found is None:
        return None
    versions = []
    for text in found[1].split(","):
        try:
            versions.append(Version(text.strip()))
        except InvalidVersion:
            continue
    meeting = sorted(parsed.specifier.filter(versions))
    return f"{parsed.name}=={meeting[0]}" if meeting else None


def _download(requirements: list[str], *, dest: Path) -> None:
    """``pip download`` wheels only; a failure is a DatasetError naming what is missing."""
    done = _pip(["download", "--quiet", "--only-binary=:all:", "--dest", str(dest),
                 *requirements])
    if done.returncode != 0:
        _refuse_old_pip(done)
        _raise_download_error(done)


def _refuse_old_pip(done: subprocess.CompletedProcess[str]) -> None:
    """Not a resolution failure (the dated download would take today's releases and the
    tests meet packages newer than the base commit): this pip is too old."""
    if unknown := re.search(r"no such option: (\S+)", done.stderr):
        raise ArenaError(
            f"the pip of {sys.executable} does not know {unknown[1]} (pip 26.0 has it)",
            hint=f"upgrade it: {sys.executable} -m pip install --upgrade 'pip>=26.0'")


def _raise_download_error(done: subprocess.CompletedProcess[str]) -> NoReturn:
    """The DatasetError of a failed ``pip download``, naming what is missing."""
    said = done.stderr.strip().splitlines()
    tail = "\n".join([line for line in said if line.startswith("ERROR:")] or said[-8:])
    missing = _MISSING.findall(done.stderr)
    absent = [req for req in missing if not _on_index(req)]
    if absent:
        what = f"{', '.join(absent)} is not on the package index"
        hint = "check the requirement's name and the network to the package index"
    elif missing:
        what = (f"no wheel of {', '.join(missing)} for this platform, only its source: "
                "building it needs a compiler or system libraries, which task images "
                "do not have")
        hint = ("a task needing a compiler cannot be imported as it is: pin a version "
                "of it that publishes wheels, or leave the task out")
    else:
        what = "pip could not download the dependencies"
        hint = "check the network to the package index"
    if missing and not absent:
        raise NoWheelError(f"{what}:\n{tail}", missing=tuple(missing), hint=hint)
    raise DatasetError(f"{what}:\n{tail}", hint=hint)


def _marker_gaps(dest: Path) -> list[str]:
    """Requirements of the wheels in ``dest`` that :data:`IMAGE_PYTHON` needs and the host's
    resolution left out (``redis``'s ``async-timeout; python_full_version < "3.11.3"``), and
    those of the wheels added for them (downloaded without their dependencies)."""
    have = {_norm(match["name"]) for wheel in dest.glob("*.whl")
            if (match := _WHEEL.match(wheel.name))}
    environment = {"python_full_version": IMAGE_PYTHON, "extra": "",
                   "python_version": IMAGE_PYTHON.rsplit(".", 1)[0]}
    gaps: list[str] = []
    for wheel in sorted(dest.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            metadata = next((archive.read(name).decode("utf-8", "replace")
                             for name in archive.namelist()
                             if name.count("/") == 1 and name.endswith(".dist-info/METADATA")),
                            "")
        for line in metadata.splitlines():
            if not line.startswith("Requires-Dist:"):
                continue
            try:
                requirement = Requirement(line.removeprefix("Requires-Dist:").strip())
            except InvalidRequirement:
                continue
            wanted = f"{requirement.name}{requirement.specifier}"
            if _norm(requirement.name) not in have and wanted not in gaps and (
                    requirement.marker is None or requirement.marker.evaluate(environment)):
                gaps.append(wanted)
    return gaps


def pytest_plugins(wheelhouse: Path) -> list[str]:
    """The pytest plugins (``pytest11`` entry-point names) of the wheels in ``wheelhouse``:
    the tests run with autoloading off, so the test command loads these by name (``-p``),
    as CooperBench's image, which autoloads every installed plugin, has them."""
    names: set[str] = set()
    for wheel in sorted(wheelhouse.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.count("/") == 1 and member.endswith(".dist-info/entry_points.txt"):
                    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
                    parser.optionxform = str  # type: ignore[assignment,method-assign]
                    parser.read_string(archive.read(member).decode("utf-8", "replace"))
                    if parser.has_section("pytest11"):
                        names.update(name for name in parser.options("pytest11")
                                     if re.fullmatch(r"[A-Za-z0-9_.-]+", name))
    return sorted(names)


def _on_index(requirement: str) -> bool:
    """Whether the index has any release of ``requirement``'s project, source ones included
    (``pip download --only-binary`` says "no matching distribution" for both)."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    return name is not None and _pip(["index", "versions", name[0]]).returncode == 0


def fetch_wheels(requirements: Path, *, cache: Path) -> Path:
    """The wheels ``requirements`` (a ``wheels.txt``) names, in ``cache`` (fetched from the
    index only when the cache does not already have them all)."""
    cache.mkdir(parents=True, exist_ok=True)
    args = ["download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", str(cache),
            "-r", str(requirements)]
    offline = _pip([*args[:1], "--no-index", "--find-links", str(cache), *args[1:]])
    if offline.returncode == 0:
        return cache
    online = _pip(args)
    if online.returncode != 0:
        tail = "\n".join(online.stderr.strip().splitlines()[-6:])
        raise SandboxError(
            f"the task's wheels could not be fetched into {cache}:\n{tail}",
            path=requirements,
            hint="the first build needs the package index (or a cache filled elsewhere: "
            "ARENA_CACHE)",
        )
    return cache


def wheel_files(requirements: Path, cache: Path) -> list[Path]:
    """The cached wheel files of ``requirements``' lines."""
    wanted = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        name, _, version = line.strip().partition("==")
        if name and version:
            wanted[(_norm(name), version)] = line
    found = []
    for wheel in sorted(cache.glob("*.whl")):
        match = _WHEEL.match(wheel.name)
        if match and (_norm(match["name"]), match["version"]) in wanted:
            found.append(wheel)
    return found


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
