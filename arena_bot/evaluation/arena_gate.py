"""Start-up gate of the harness, installed in the sandbox as ``/arena/sitecustomize.py``.

Python's ``site`` imports ``sitecustomize`` while the interpreter starts, before ``-m pytest``
is resolved and before any module of the repository can run. A task's test command may put
folders of the repository on ``sys.path`` (``PYTHONPATH=src:$PYTHONPATH``, or ``.``; an
editable install's path entry): a patch could then add ``src/pytest/__init__.py`` or a module
named like one pytest imports (``json.py``), have it imported in place of the real one, and
adjust pytest before the harness's plugin takes its snapshot, so the snapshot would see the
forged state as the original. ``PYTHONSAFEPATH`` only keeps the working directory off the
path.

In a Python process the tests' process started (``multiprocessing``'s spawn and forkserver
workers, a process pool's, a ``python -c``: ``$ARENA_GUARD`` names the test process and its
stream's descriptor) the gate loads the harness's plugin in its child mode before anything
of the process runs (``arena_stream._install_child``): what the submission's code does
there is watched as in the test process, and reported on that process's stream.

In a pytest process this gate takes every path entry inside the repository off ``sys.path``
and keeps them in :data:`ARENA_HELD`; the harness's plugin (``arena_stream``) puts them back
where they were once it is loaded. Until then nothing can be imported
from the repository: pytest, its dependencies, the standard library and the plugin come from
the image. Other processes (a test's own ``python -m mypkg``) keep their path as it is.

Runs in the task image's own Python (3.8 and up): standard library only. It must never fail
start-up: anything unexpected leaves the path as it was (the plugin still reports modules
of the repository loaded before it).
"""

import contextlib
import os
import sys

#: The repository's checkout in the sandbox (set to the harness's REPO_DIR when copied).
REPO = "/workspace/repo"
#: (index, entry) of every sys.path entry held back, in their original order; the plugin
#: knows the gate ran by finding this list on the ``sitecustomize`` module.
ARENA_HELD = []  # type: list[tuple[int, str]]

_PYTEST_NAMES = ("pytest", "py.test")


def _command_line():
    argv = getattr(sys, "orig_argv", None)
    if argv:
        return list(argv)
    try:
        with open("/proc/self/cmdline", "rb") as handle:
            raw = handle.read()
    except OSError:
        return list(sys.argv)
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def _runs_pytest(argv):
    """``python -m pytest ...`` (also under ``coverage run -m pytest``), or a ``pytest``
    console script run by this interpreter."""
    for index, word in enumerate(argv):
        if word == "-m" and index + 1 < len(argv) and argv[index + 1] in _PYTEST_NAMES:
            return True
        if word in ("-mpytest", "-mpy.test"):
            return True
    return len(argv) > 1 and os.path.basename(argv[1]) in _PYTEST_NAMES


def _inside_repo(entry):
    path = os.path.realpath(entry or os.getcwd())
    return path == REPO or path.startswith(REPO + os.sep)


def _hold():
    kept = []
    for index, entry in enumerate(sys.path):
        if isinstance(entry, str) and _inside_repo(entry):
            ARENA_HELD.append((index, entry))
        else:
            kept.append(entry)
    sys.path[:] = kept


def _chain():
    """Run the image's own ``sitecustomize`` (Debian ships one), found past this folder
    and the held entries, as site would have without the gate."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.realpath(__file__))
    path = [p for p in sys.path if isinstance(p, str) and os.path.realpath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


def _guard_child():
    """In a child process of a test run (``$ARENA_GUARD`` is ``pid:fd`` of the test process's
    stream, set by its plugin), open that stream through ``/proc`` and load the plugin from
    this folder in its child mode. Nothing when the variable is absent (the task's setup,
    the test command's own processes) or the stream cannot be opened."""
    pid, _, fd = os.environ.get("ARENA_GUARD", "").partition(":")
    if not (pid.isdigit() and fd.isdigit()) or int(pid) == os.getpid():
        return
    import importlib.util

    channel = os.open("/proc/" + pid + "/fd/" + fd, os.O_WRONLY | os.O_CLOEXEC)
    here = os.path.dirname(os.path.realpath(__file__))
    spec = importlib.util.spec_from_file_location("arena_stream",
                                                  os.path.join(here, "arena_stream.py"))
    if spec is None or spec.loader is None:
        os.close(channel)
        return
    module = importlib.util.module_from_spec(spec)
    module.ARENA_CHILD_CHANNEL = channel
    sys.modules["arena_stream"] = module
    spec.loader.exec_module(module)


def _install():
    # Never break start-up. A failure here leaves the path as it was; the plugin's check of
    # repository modules loaded before it still stands behind it.
    with contextlib.suppress(Exception):
        if _runs_pytest(_command_line()):
            _hold()
        else:
            _guard_child()
    with contextlib.suppress(Exception):
        _chain()


_install()
