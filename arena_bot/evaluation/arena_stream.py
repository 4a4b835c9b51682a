"""Pytest plugin of the harness: streams each test's outcome out as it happens, and watches
the test process for in-process forgery.

Copied to the root-owned ``/arena`` and loaded explicitly (``-p arena_stream``; plugin
autoload is off, ``PYTHONSAFEPATH`` keeps the repository off ``sys.path`` until this plugin
is loaded). It writes to a duplicate of the real standard output taken when pytest loads it,
before output capture starts and before any code of the repository is imported, so the lines
reach the harness's reader on the host while the tests run.

Code imported by the tests runs in this very process, so it could forge outcomes before they
are streamed. Nothing here makes that impossible (in-process Python cannot be made
tamper-proof); these are tripwires that turn the known ways of doing it into a ``tamper``
event (the harness then scores the feature ``tampered``) or a ``review`` event (a review
flag):

* a snapshot, taken at load, of every function and class of ``pytest``, ``_pytest``,
  ``pluggy`` and this plugin (and each such class's methods), compared at collection finish,
  at every report and at session end: a swapped ``TestReport.from_item_and_call`` or
  ``_pytest.runner.call_and_report`` is seen whatever name was used to reach it;
* every plugin registration is checked: one made from a file the submission changed (or
  from code with a made-up file name), or one pytest was never told about, is tampering;
  so is a hook implementation whose function was replaced;
* an innermost hookwrapper around each test's setup, call and teardown records whether the
  phase really raised: a report saying ``passed`` for a phase that raised, or for a call
  that never ran, is forged;
* an audit hook (``sys.addaudithook``, irremovable) sees ``__code__`` swaps, ``gc``
  introspection, ``ctypes``, new audit hooks, ``/proc/*/mem`` opens, tracing and stack
  inspection, attributed to the submission's files (``/arena/changed.json``);
* processes the submission's code starts are read from their audit events (and from the
  C function ``subprocess`` and ``multiprocessing`` start them with, which has none): one
  that runs pytest, or names the tests or the harness's files, is a review; so is one that
  starts a Python past the start-up gate (``-I``, ``-E``, ``-S``, an environment without
  the gate's variables, ``env -i``, also behind a shell or a ``#!`` line), and a call of
  ``pytest.main`` from the submission's code;
* child processes stay watched: a forked child keeps this guard (its findings go out as a
  run of their own, never in the test process's numbering), and a Python the tests'
  process starts (``multiprocessing``'s spawn and forkserver, a pool's workers) loads it
  again through the harness's start-up gate (:func:`_install_child`), reporting on the
  test process's stream through ``/proc/<pid>/fd`` (``$ARENA_GUARD``); one the
  submission's code started is told its start site (``$ARENA_ORIGIN``), so what its own
  code does (``-c`` code, a script written at run time) is the submission's;
* threads and ``weakref.finalize`` callbacks the submission's code sets going carry the
  line that did (:func:`_watch_deferred_and_opens`): what runs there from a stack of its own
  (a pool's worker handed ``Path.read_text``) is attributed to it; ``os.open`` resolves a
  ``dir_fd``'s folder, which the ``open`` event does not carry;
* a doctest example (``test*.txt`` files run as tests) is the line of its file, when doctest's
  own runner runs it and the file holds it there; one no file holds is code built at run
  time (:func:`_build_guard`'s ``doctest_line``);
* what the interpreter runs on its own (finalisers, weak references' callbacks,
  ``gc.callbacks``, anything inside a garbage collection) is handed nothing by the test
  below it;
* the classes of the submission are probed for instances equal to unrelated values, the
  modules the patch adds for shadowing the standard library or installed packages, and what
  the tests read from modules outside the repository for the submission's code;
* every line carries a per-run random nonce and a sequence number: a line printed by the
  code under test is not the plugin's, and a suppressed line leaves a gap.

Everything it needs (``os.write``, the descriptor, ``json.dumps``) is bound at load inside
closures, so patching the ``os`` or ``json`` module later cannot silence it; dictionaries the
submission can add keys to (``sys.modules``, namespaces) are looked up by plain ``str`` keys
only (:func:`_module`), and a pathlib path's text is read from its slots
(:func:`_path_reader`). Standalone on purpose (stdlib only, Python 3.8+, no import of
``arena_bot``): it runs inside the task image's Python, whatever that is.
"""

from __future__ import annotations

import _thread
import contextlib
import json
import operator
import os
import re
import sys
import types
import weakref

#: Same as arena_bot.evaluation.stream.MARK (this file imports nothing of arena_bot).
MARK = "arena-result"
#: Version of the events; the harness reads it from the start event.
STREAM_VERSION = 2
#: Exit status of a test process whose stream descriptor was closed or replaced.
STREAM_LOST = 86
#: Repository-relative paths of the files the submission's patch creates or changes, and the
#: repository's root they are relative to, written by the harness beside this file
#: (``/arena``, root-owned).
CHANGED_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "changed.json")
_WATCHED_PREFIXES = ("_pytest", "pluggy", "json")
_WATCHED_NAMES = ("pytest", __name__)
#: Events that cost nothing to ignore: checked first in the audit hook.
_AUDITED = frozenset({
    "object.__setattr__", "sys.addaudithook", "gc.get_objects", "gc.get_referrers",
    "gc.get_referents", "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "ctypes.addressof",
    "ctypes.call_function", "sys._getframe", "sys._current_frames", "sys.settrace",
    "sys.setprofile", "open", "object.__getattr__", "compile", "subprocess.Popen", "os.system",
    "os.posix_spawn", "os.exec", "os.spawn", "pickle.find_class", "os.putenv", "os.unsetenv",
    "cpython.PyInterpreterState_New",
})
#: Where pytest's ``main`` is defined (``_pytest/config/__init__.py``).
_PYTEST_MAIN_FILE = os.sep + os.path.join("_pytest", "config", "__init__.py")
#: Audit events of a process start -> (index of the program, of its arguments, of its
#: environment, of its working folder).
_STARTS = {"subprocess.Popen": (0, 1, 3, 2), "os.system": (0, None, None, None),
           "os.posix_spawn": (0, 1, 2, None), "os.exec": (0, 1, 2, None),
           "os.spawn": (1, 2, 3, None)}
#: The variable that tells a Python started by the tests where the guard's stream is
#: (``pid:descriptor`` of the test process); see :func:`_install_child`.
GUARD_VARIABLE = "ARENA_GUARD"
#: The start site of a process the submission's code started (``file:line``), in that
#: process's environment: in a Python it starts, what the child's own code does (``-c`` code,
#: a script written at run time) is attributed there (:func:`_install_child`).
ORIGIN_VARIABLE = "ARENA_ORIGIN"
#: Python's name as a program (``python3``, ``python3.11``, ``pypy3``).
_PYTHON_PROGRAM = re.compile(r"^(?:python|pypy)[\d.]*[dmu]*$")
#: What a Python needs in its environment for the gate to load and find this run's stream.
_GATE_VARIABLES = frozenset({"ARENA_GUARD", "PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONHOME"})
#: Variables a Python started from the tests must see as the test process saw them (absent
#: or the lock-down's value): without PYTHONNOUSERSITE a ``.pth`` of the user's site runs
#: before the gate; PYTHONHOME names another standard library (another ``site``).
_LOCKED = ("PYTHONNOUSERSITE", "PYTHONHOME")
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"})
#: In a shell's text: a Python (by name or through an expansion, ``"$0" -I``) given
#: ``-I``, ``-E`` or ``-S``; ``env`` clearing or unsetting variables; ``unset`` or an
#: assignment of the variables the gate needs.
_SHELL_PYTHON = re.compile(
    r"""(?:^|[\s/;&|('"`])(?:python|pypy)[\d.]*[dmu]*["']?((?:\s+-[^\s;&|]+)+)"""
    r"""|\$(?:\{?\w+\}?|[@*])["']?((?:\s+-[^\s;&|]+)+)""")
_SHELL_ENV = re.compile(
    r"""(?:^|[\s;&|('"`])env(?:\s+-[^\s;&|]*)*?\s+(?:-\s|-[^\s;&|u-]*i|--ignore-environment"""
    r"""|(?:-u\s*|--unset[=\s]+)["']?(?:ARENA_GUARD|PYTHONPATH|PYTHONNOUSERSITE)\b)"""
    r"""|\bunset\b[^;&|\n]*\b(?:PYTHONPATH|PYTHONNOUSERSITE)\b""")
#: An assignment in a shell's text of a variable the gate needs, with its value.
_SHELL_ASSIGNMENT = re.compile(
    r"""\b(PYTHONPATH|PYTHONNOUSERSITE|PYTHONHOME)=(["']?)([^\s;&|]*)""")
#: What unpickled data must not name: an object equal to anything (``unittest.mock.ANY``,
#: unpickled from a data file the checks of the patch read as text), the test machinery, or
#: the callables a pickle runs code or reaches into the interpreter with.
_PICKLE_MODULES = ("unittest.mock", "_pytest", "pytest", "pluggy", "os", "posix", "nt",
                   "subprocess", "sys", "ctypes", "gc", "marshal", "runpy", "importlib",
                   "code", "codeop", "inspect", "pty", "shutil")
_PICKLE_PREFIXES = tuple(name + "." for name in _PICKLE_MODULES)
_PICKLE_BUILTINS = frozenset({"exec", "eval", "compile", "__import__", "setattr", "delattr",
                              "open", "globals", "vars", "breakpoint", "input"})
#: What a process the submission's code starts must not run or name: pytest (a second test
#: run, outside the guard, tells the canaries apart), the tests, the harness's files and
#: variables. Python itself is no sign (click's editor tests make ``python3 script.py`` the
#: editor the feature starts), and what a child reads without naming it (``git grep``) stays
#: unseen. Case matters, as in the paths it reads (click's tests run ``sed 's/$/Test/'``).
_CHILD = re.compile(
    r"""(?:^|[\s/'"=;&|(])py\.?test(?:$|[\s'";&|)])"""
    r"""|conftest|junit|ARENA_|/arena\b|(?:^|[\s/'"=])tests?/|test_\w*\.py|_test\.py""")
#: Attributes whose reading the interpreter audits that lead from a traceback or a
#: generator to a frame (and from there to the calling test's variables and source).
_FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
#: Standard library modules that fetch frames on their caller's behalf.
_FRAME_HELPERS = (os.sep + "inspect.py", os.sep + "traceback.py")
#: ... and that read a function's code object for its constants (``dis.get_instructions``);
#: ``inspect.signature`` of a test's function (a decorator under test) reads only its
#: arguments, so ``inspect`` is not one of them.
_CODE_HELPERS = (os.sep + "dis.py",)
#: ... and the standard library's Python wrapper of ``_signal.signal``.
_SIGNAL_HELPERS = (os.sep + "signal.py",)
#: ... and the functions of ``inspect`` that hand a function's attributes back whole
#: (``dict(inspect.getmembers(test))["__code__"]``).
_CODE_READERS = frozenset({"getmembers", "_getmembers", "getmembers_static"})
_INSPECT = os.sep + "inspect.py"
#: ``co_flags`` of a generator's, a coroutine's or an async generator's code: its frame is
#: resumed from wherever its next value is asked for.
_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200  # inspect.CO_GENERATOR, CO_COROUTINE,
# CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR (inspect is not imported for four numbers)


def _build_guard(listed, channel=None, started_by=None):
    """Create the emitter and the guard; everything they use is bound here, at load.

    Long on purpose: the guard's functions are closures over names bound in this one call
    (never module globals), so code that later replaces a module attribute cannot reach what
    the guard runs. Splitting it into module-level helpers would reopen exactly that.

    ``listed``: the harness's list of the submission's files (:func:`_listed`, read once).
    ``channel``: in a Python process the tests' process started (:func:`_install_child`),
    the descriptor of the test process's stream it writes to; then every finding goes out
    as a run of its own (as it does from a forked child of the test process).
    ``started_by``: there, the submission's line that started this process (``None``: the
    tests' own start): what the process's own code does is the submission's.
    """
    write, fstat, getframe, exit_now = os.write, os.fstat, sys._getframe, os._exit
    getpid, urandom = os.getpid, os.urandom
    encode = json.JSONEncoder(sort_keys=True).encode
    isfile, realpath = os.path.isfile, os.path.realpath
    out = os.dup(1) if channel is None else channel
    pid = getpid()
    harness = os.path.dirname(CHANGED_FILES)
    # A child's stack holds the start machinery below the submission's code: look deeper.
    depth_limit = 60 if channel is None else 200
    audited = _AUDITED if channel is None else _AUDITED | {"import"}
    first = fstat(out)
    identity = (first.st_dev, first.st_ino)
    nonce = os.urandom(12).hex()
    repo = _read_root(listed)
    here = realpath(os.getcwd())  # where pytest started: a sub-project of a monorepo
    changed = _read_changed(listed, root=repo)
    # The files whose starting of programs is the feature's business (see changed_files).
    processes = _read_changed(listed, "processes")
    other_program = _other_program
    getcwd, join, normpath, readlink = os.getcwd, os.path.join, os.path.normpath, os.readlink
    counter = [0]
    busy = set()  # threads inside the audit hook: per thread, so no thread can mask another
    get_ident = _thread.get_ident
    said = set()
    function_type, type_type = types.FunctionType, type
    child_words, direntry = _CHILD.search, os.DirEntry
    # os.fsdecode's own work (it looks os.fspath up in the os module at each call).
    decode, fs_codec = bytes.decode, (sys.getfilesystemencoding(),
                                      sys.getfilesystemencodeerrors())
    unpickled = (_PICKLE_MODULES, _PICKLE_PREFIXES, _PICKLE_BUILTINS)
    # What a Python started from here needs to load the guard (see _install_child).
    guard_value = (str(pid) + ":" + str(out) if channel is None
                   else os.environ.get(GUARD_VARIABLE, ""))
    locked = {key: os.environ.get(key) for key in _LOCKED}
    skips, env_skips, environ = _skips_gate, _env_skips, os.environ
    # os.environ's own dictionary (bytes to bytes on POSIX), as bound at load: its methods
    # (get, encodekey) are attributes the submission's code can replace, and the hook
    # called them inside its busy window (os.system's event).
    environ_data = vars(environ).get("_data") if hasattr(environ, "__dict__") else None
    environ_data = environ_data if type_type(environ_data) is dict else {}
    watched_variables = frozenset(name.encode() for name in (GUARD_VARIABLE, ORIGIN_VARIABLE))
    may_run_python = _may_run_python
    putenv = os.putenv
    read_attributes = _FRAME_ATTRIBUTES | {"__code__"}
    str_slice, bytes_slice, everything = str.__getitem__, bytes.__getitem__, slice(None)
    list_slice, tuple_slice, first_words = list.__getitem__, tuple.__getitem__, slice(64)
    dict_items, dict_get = dict.items, dict.get
    from collections import OrderedDict as ordered
    from collections import defaultdict as default_dict
    module_type, module_named = types.ModuleType, _module
    module_dict = vars(module_type)["__dict__"].__get__
    # The standard library's own path objects (os.DirEntry, pathlib's exact classes) read
    # by their slots, with no code of pathlib's: see _path_reader.
    path_text, unchanged = _path_reader()
    direntry_fspath = os.fspath
    # py.path's LocalPath (pytest's tmpdir; py's own before pytest 7.2), when loaded: its
    # __fspath__ returns its strpath, read here from its instance's namespace while its
    # class is as loaded (no method of it runs).
    local_paths = {}
    for module, name in (("_pytest._py.path", "LocalPath"), ("py._path.local", "LocalPath")):
        kind = getattr(sys.modules.get(module), name, None)
        spaces = [vars(base) for base in getattr(kind, "__mro__", ())[:-1]]
        holder = next((space["__dict__"] for space in spaces if "__dict__" in space), None)
        if isinstance(kind, type) and holder is not None:
            local_paths[id(kind)] = (kind, holder.__get__,
                                     [(space, dict(space)) for space in spaces])

    def emit(payload):
        if channel is not None or (getpid() != pid and payload.get("event") in (
                "review", "tamper")):
            # A child process: the finding goes out as a run of its own (start, the finding,
            # end, under a nonce of its own) in one write, never in the test process's
            # numbering, which a forked child shares. Outcomes a forked child streams stay
            # in that numbering: they repeat its numbers, and the run is seen broken.
            own = urandom(12).hex()
            parts = ({"event": "start", "version": STREAM_VERSION, "child": True}, payload,
                     {"event": "end"})
            line = "".join("\n" + MARK + " " + encode(dict(part, n=own, seq=index)) + "\n"
                           for index, part in enumerate(parts, 1))
        else:
            counter[0] += 1
            payload["n"] = nonce
            payload["seq"] = counter[0]
            line = "\n" + MARK + " " + encode(payload) + "\n"
        try:
            now = fstat(out)
        except OSError:
            now = None
        if now is None or (now.st_dev, now.st_ino) != identity:
            # The descriptor was closed or pointed elsewhere: only code in this process
            # does that. End the process at once, before that code can write a report
            # or forge the rest of the stream (atexit handlers do not run).
            exit_now(STREAM_LOST)
        try:
            write(out, line.encode("utf-8", "replace"))
        except OSError:
            exit_now(STREAM_LOST)

    def tamper(reason):
        if reason not in said:
            said.add(reason)
            emit({"event": "tamper", "reason": reason})

    def review(where, reason, kind="other"):
        key = (where, reason)
        if key not in said and len(said) < 200:
            said.add(key)
            emit({"event": "review", "file": where[0], "line": where[1], "reason": reason,
                  "kind": kind})

    def known_file(name, seen={}):  # noqa: B006  (a cache: one stat per code file)
        """Whether code compiled as ``name`` comes from a file (made-up names do not); the
        first answer stands (creating the file later only hides what was seen)."""
        found = seen.get(name)
        if found is None:
            found = seen[name] = isfile(name)
        return found

    # Code objects whose frames origin passes over whatever their line and its flags (a file
    # outside the repository that exists, one of the repository the patch did not touch):
    # by id, the object held so the id cannot be reused.
    passing = {}
    # A live frame of pytest's below the running test (:func:`anchor`) and, by origin's
    # flags, what climb found from it down. An event loop's every callback walks the stack
    # (carried): an honest test awaiting asyncio.sleep(0) 400,000 times took 26 s instead of
    # 1 s when each walk went down the ~50 frames of asyncio and pytest.
    anchored = [(None, {})]  # one pair, replaced whole: a walk reads frame and memo together

    # Threads inside a garbage collection (between gc's "start" and "stop" callbacks):
    # finalisers and callbacks run there from whatever frame allocated (a test's).
    import gc

    collecting, gc_callbacks = set(), gc.callbacks
    gc_enabled, gc_disable, gc_enable = gc.isenabled, gc.disable, gc.enable
    weak_reference, method_type = weakref.ref, types.MethodType
    callback_of = vars(weakref.ref)["__callback__"].__get__
    # A weak reference's object (None once it is gone), by the built-in type's own call.
    referent_of = vars(weakref.ref)["__call__"]
    # What a function frame's f_locals is: a dict, or on 3.13+ a C proxy of the frame (its
    # own get, when it has one: else such locals are read as unknown).
    frame_locals = type(getframe().f_locals)
    locals_get = vars(frame_locals).get("get")
    function_code = vars(types.FunctionType)["__code__"].__get__
    method_function = vars(types.MethodType)["__func__"].__get__
    mro_of, class_dict = vars(type)["__mro__"].__get__, vars(type)["__dict__"].__get__

    lifted = set()  # threads whose busy window a garbage collection opened (collector)
    callbacks_at_load = list_slice(gc_callbacks, everything)

    def collector(phase, info):
        # The hook turns the collector off while it works, but that switch is the
        # interpreter's: another thread can turn it back on. A collection that starts inside
        # the window runs the submission's finalisers there: they are watched as anywhere
        # else, the window opened for the collection's length. gc.callbacks run in order:
        # one put before this one ran at the start with the window shut, one after it runs
        # at the stop with the window shut again; either is a review then.
        thread = get_ident()
        if phase == "start":
            collecting.add(thread)
            if thread in busy:
                try:
                    before = []
                    for callback in list_slice(gc_callbacks, everything):
                        if callback is collector:
                            break
                        if not holds(callbacks_at_load, callback):
                            before.append(callback)
                    if before:
                        unwatched_callbacks(before)
                except Exception:
                    pass
                busy.discard(thread)
                lifted.add(thread)
        else:
            collecting.discard(thread)
            if thread in lifted:
                try:
                    after, passed = [], False
                    for callback in list_slice(gc_callbacks, everything):
                        if passed:
                            after.append(callback)
                        passed = passed or callback is collector
                    if after:
                        unwatched_callbacks(after)
                except Exception:
                    pass
                finally:
                    lifted.discard(thread)
                    busy.add(thread)

    def holds(items, wanted):
        """Whether ``wanted`` is one of ``items`` by identity (no ``==`` of theirs, no
        ``any``: a builtin the submission's code can replace)."""
        for item in items:  # noqa: SIM110
            if item is wanted:
                return True
        return False

    def class_attribute(kind, name):
        """``name`` as ``kind``'s classes define it (their namespaces read along its MRO by
        descriptor, no ``getattr`` of theirs), or ``None``."""
        for klass in mro_of(kind):
            found = class_dict(klass).get(name, class_dict)
            if found is not class_dict:
                return found
        return None

    def unwatched_callbacks(callbacks):
        """A review of ``gc.callbacks`` entries that run with the window shut, at the first
        one's definition when it is the submission's (a function, a method, or a class's
        ``__call__``, found through its class's namespaces), else at the submission's line
        the hook was working for."""
        where = None
        for callback in callbacks:
            code = code_of(callback)
            if code is None:
                code = code_of(class_attribute(type_type(callback), "__call__"))
            path = realpath(file_of(code)) if code is not None else ""
            if path.startswith(repo + os.sep) and path[len(repo) + 1:] in changed:
                where = (path[len(repo) + 1:], code.co_firstlineno)
                break
        where = where or origin(3, exact=True)
        if where is not None:
            review(where, "a garbage collection started inside the guard's audit hook (the "
                   "collector, turned off there, was turned back on by another thread), and "
                   "gc.callbacks put before or after the guard's ran in it unwatched",
                   "introspection")

    gc_callbacks.append(collector)

    def locals_of(frame):
        """``frame.f_locals``, read with the hook's window open for this thread (the read
        raises no audit event). Before 3.13 it refreshes the frame's locals dictionary: an
        entry a ``locals()`` call left for a name deleted since is dropped, and a finaliser
        of the object it held runs there, watched as anywhere else."""
        thread = get_ident()
        held = thread in busy
        if held:
            busy.discard(thread)
        try:
            return frame.f_locals
        finally:
            if held:
                busy.add(thread)
    # doctest's own runner and records, as loaded (see doctest_line). What its import
    # brings along (pdb, cmd, code, codeop) is taken out of sys.modules again: a module of
    # the repository of such a name (a root code.py) stays the one its tests import. Not
    # at all when the repository has a module named doctest where its tests import from
    # (kept in sys.modules, the standard library's would shadow it; no doctest of the
    # standard library's runs there then, and an example's frame is no file's line).
    run_code = doctest_test = doctest_example = instance_of_test = instance_of_example = None
    if not _has_module(repo, here, "doctest"):
        loaded_before = set(sys.modules)
        import doctest

        for name in [name for name in sys.modules if name not in loaded_before]:
            if name != "doctest":
                del sys.modules[name]
        run_code = vars(doctest.DocTestRunner)["_DocTestRunner__run"].__code__
        doctest_test, doctest_example = doctest.DocTest, doctest.Example
        instance_of_test = vars(doctest.DocTest)["__dict__"].__get__
        instance_of_example = vars(doctest.Example)["__dict__"].__get__
    doctest_name, example_lines, open_file = _DOCTEST_NAME.match, {}, open

    def anchor(on=True):
        """Remember the frame that called the caller (``on=False``: forget it), the first
        below it that is not a generator's or a coroutine's: pytest's, which stays on the
        stack while a test's phase runs above it. While it does, the frames below it do not
        change (such a frame runs once, and its callers wait at their calls), so what
        :func:`climb` finds below it is found once per phase. Held only while the phase
        runs, and only a frame of code the walk passes over whatever its line: the frame
        itself goes on running (the submission's code driving this plugin's hook wrapper
        itself made its own frame the anchor, and a line it then ran was judged by the line
        the frame was at when first walked)."""
        frame = getframe(2) if on else None
        while frame is not None and frame.f_code.co_flags & _RESUMABLE:
            frame = frame.f_back
        if frame is not None:
            code = frame.f_code
            climb(frame, 1, False, False)  # passes over it from now on, or finds it
            if passing.get(id(code)) is not code:
                frame = None
        anchored[0] = (frame, {})

    def climb(frame, depth, exact, handed, below=None, memo=None):
        """:func:`origin`'s walk from ``frame`` down at most ``depth`` frames: ``(found,
        frames of depth left)``, ``found`` ``None`` when nothing is the submission's.
        ``below``: the anchor, where the walk goes on from what was found below it before
        (``memo``, the anchor's own: another thread may set another anchor meanwhile)."""
        while frame is not None and depth > 0:
            if frame is below:
                known = memo.get((exact, handed))
                if known is None:
                    known = memo[(exact, handed)] = climb(frame, depth_limit, exact, handed)
                found, left = known
                used = depth_limit - left
                return (found, depth - used) if found is not None and used <= depth else (
                    None, 0)
            depth -= 1
            code = frame.f_code
            if passing.get(id(code)) is code:
                frame = frame.f_back
                continue
            name = code.co_filename
            if type_type(name) is not str:
                name = plain(name)  # a str subclass's methods would run here (file_of)
            line = frame.f_lineno
            passes = code is not deferred_code
            if name.startswith("<doctest "):
                name, line = doctest_line(frame)[:2]
                passes = False
            if not name.startswith(("<", os.sep)):
                name = join(here, name)  # imported through a relative sys.path entry
            if name.startswith(repo + os.sep):
                relative = name[len(repo) + 1:]
                if changed.at(relative, line) if exact else relative in changed:
                    return (relative, line), depth
                passes = passes and relative not in changed
            elif not name.startswith("<") and not known_file(name):
                return (name, line), depth
            if handed and code is deferred_code:
                # A thread or a callback the submission's code set going: what it runs, the
                # standard library's own functions among it, runs on the submission's behalf.
                return locals_of(frame).get("where"), depth
            if passes:
                if len(passing) > 20000:
                    passing.clear()
                passing[id(code)] = code
            frame = frame.f_back
        return None, depth

    def origin(start=2, depth=None, exact=False, inherited=False, handed=True):
        """The first frame of the stack (from ``start`` up) in a file the submission
        changed (``exact``: at a line it added, for review flags: the upstream code of a
        file the patch touches is not the submission's; a doctest example of such a file
        counts as its line) or in code whose file does not exist (made up for
        ``compile``), as ``(file, line)``; ``None`` when the stack holds neither.
        ``inherited``: in a process the submission's code started, its start site when
        nothing on the stack is the submission's (the process's own code is). ``handed``:
        in a thread or callback the submission's code set going (:func:`carried`), the line
        that did, when nothing above it on the stack is the submission's."""
        thread = get_ident()
        mine = thread not in busy
        collects = mine and gc_enabled()
        if mine:
            busy.add(thread)  # the audit hook passes over this sys._getframe (a few µs)
            if collects:
                gc_disable()  # no finaliser runs in that window (see audit)
        try:
            frame = getframe(start)
        except ValueError:
            return None
        finally:
            if mine:
                busy.discard(thread)
                if collects:
                    gc_enable()
        below, memo = anchored[0]
        found = climb(frame, depth_limit if depth is None else depth, exact, handed, below,
                      memo)[0]
        return found if found is not None or not inherited else started_by

    def deferred(where, function, args, kwargs):
        """Runs what a thread or a callback set going by the submission's line ``where``
        runs: its frame tells :func:`origin` and :func:`caller` whose call it is."""
        return function(*args, **kwargs)

    deferred_code = deferred.__code__

    def carried(function, start=3, handed=True):
        """``function`` (what a new thread or a callback runs later, from a stack of its
        own: a pool's worker handed ``Path.read_text``, a ``weakref.finalize`` callback the
        garbage collector runs inside pytest's code) carrying the submission's line that set
        it going, when there is one (``handed=False``: only the submission's own frame, not
        a thread or callback it set going: an event loop's callbacks schedule the next)."""
        where = origin(start, exact=True, inherited=True, handed=handed)
        if where is None or not callable(function):
            return function

        def boot(*args, **kwargs):
            return deferred(where, function, args, kwargs)

        return boot

    def by_upstream(start):
        """Whether the nearest code of the repository (or made-up code) on the stack from
        ``start`` up is upstream code, a line the patch did not add: the repository starting
        a process by its own design (click's editor), which the submission only called."""
        try:
            frame = getframe(start)
        except ValueError:
            return False
        while frame is not None:
            name = file_of(frame.f_code)
            if not name.startswith(("<", os.sep)):
                name = join(here, name)
            if name.startswith(repo + os.sep):
                return not changed.at(name[len(repo) + 1:], frame.f_lineno)
            if not name.startswith("<") and not known_file(name):
                return False
            frame = frame.f_back
        return False

    def caller(start, helpers=_FRAME_HELPERS, readers=frozenset(), handed=False):
        """The direct Python caller ``start`` frames up, skipping ``helpers`` (by default
        ``inspect``'s and ``traceback``'s) and the functions of ``inspect`` named in
        ``readers``. ``handed``: also the submission's line that set going the thread or
        callback this runs in, when no code of the repository is on its stack (what needs no
        caller of the repository to be the submission's: a library's ``logging`` calls
        ``sys._getframe`` in an honest pool's worker, and reaches only that worker's frames).
        """
        try:
            frame = getframe(start)
        except ValueError:
            return None
        while (file_of(frame.f_code).endswith(helpers) or (
                plain(frame.f_code.co_name) in readers
                and file_of(frame.f_code).endswith(_INSPECT))) and frame.f_back:
            frame = frame.f_back
        name, line = file_of(frame.f_code), frame.f_lineno
        if name.startswith("<doctest "):
            name, line, made_up = doctest_line(frame)
            if made_up:
                # Code built at run time, run by doctest's runner: whoever ran it.
                return climb(frame.f_back, depth_limit, True, False)[0]
        if name.startswith(repo + os.sep) and changed.at(name[len(repo) + 1:], line):
            return (name[len(repo) + 1:], line)
        if not handed:
            return None
        # A thread or callback the submission's code set going, running only code from
        # outside the repository (sys._current_frames handed to a pool's worker): the
        # submission's call.
        while frame is not None:
            if frame.f_code is deferred_code:
                return locals_of(frame).get("where")
            if file_of(frame.f_code).startswith(repo + os.sep):
                return None
            frame = frame.f_back
        return None

    def doctest_line(frame):
        """The file and line of a doctest example's frame, and whether the example is made
        up: ``(file, line, False)`` when its runner's DocTest holds it (the frame below is
        doctest's own runner, as loaded) and the file it names is the submission's or holds
        the example at that line; ``(compiled name, frame line, made_up)`` otherwise, made
        up when the runner ran a DocTest whose file does not hold the example (one the
        submission's code built from a string, named after a test file)."""
        code = frame.f_code
        found = doctest_name(file_of(code))
        runner = frame.f_back
        if found is None or runner is None or runner.f_code is not run_code:
            return file_of(code), frame.f_lineno, False
        place = doctest_place(runner, found.group(1), int(found.group(2)))
        if place is None:
            return file_of(code), frame.f_lineno, True
        return place[0], place[1] + frame.f_lineno, False

    def built_for_doctest(runner, name):
        """Whether ``runner`` (the frame compiling ``name``, ``<doctest NAME[k]>``) is
        doctest's runner compiling an example no file holds where its DocTest says."""
        found = doctest_name(name)
        return (found is not None and runner.f_code is run_code
                and doctest_place(runner, found.group(1), int(found.group(2))) is None)

    def doctest_place(runner, name, index):
        """``(file, line before the example)`` of example ``index`` of the DocTest named
        ``name`` that doctest's ``runner`` frame runs, read with no code of the objects'
        own (exact classes, their instances' dictionaries); ``None`` when the DocTest is
        not one whose named file holds the example at that line (or the submission's file,
        which it then counts as, whatever the file holds)."""
        values = locals_of(runner)
        get = type_type(values).get  # a dict (a C proxy of the frame on 3.13+)
        test, example = get(values, "test"), get(values, "example")
        if (type_type(test) is not doctest_test or type_type(example) is not doctest_example
                or get(values, "examplenum") != index):
            return None
        fields, own = instance_of_test(test), instance_of_example(example)
        if type_type(fields) is not dict or type_type(own) is not dict:
            return None
        filename, start = _entry(fields, "filename"), _entry(fields, "lineno")
        offset, source = _entry(own, "lineno"), _entry(own, "source")
        called = _entry(fields, "name")  # compared as a plain str (no __ne__ of a subclass)
        if (type_type(called) is not str or called != name or type_type(filename) is not str
                or type_type(offset) is not int or type_type(source) is not str):
            return None
        start = start if type_type(start) is int else 0
        path = realpath(filename)
        if path.startswith(repo + os.sep) and path[len(repo) + 1:] in changed:
            return path, start + offset
        lines = example_lines.get(path)
        if lines is None:
            if len(example_lines) > 500:
                example_lines.clear()
            try:
                with open_file(path, "rb") as handle:
                    lines = decode(handle.read(), "utf-8", "replace").split("\n")
            except (OSError, ValueError):
                lines = []
            example_lines[path] = lines
        at = start + offset
        first = source.split("\n")[0].strip()
        if 0 <= at < len(lines) and lines[at].strip() == (">>> " + first).strip():
            return path, at
        return None

    def collector_runs(frame):
        """Whether ``frame`` runs code the interpreter called on its own, not the code below
        it: a ``gc.callbacks`` entry (a function of the list, or any frame handed what the
        collector hands its callbacks: ``"start"``/``"stop"`` and its info dictionary, so a
        callable instance, a class or a partial is seen too), a finaliser (``__del__``, found
        through its ``self``'s class), a weak reference's callback (handed the reference,
        whose object is gone by then: ``weakref.finalize`` is handed it too). Arguments are
        read whether named or gathered by ``*args``, with no method of the objects' own
        (their classes' namespaces read by descriptor). What cannot be read so (a frame's
        locals of another shape) counts as such code."""
        try:
            code = frame.f_code
            for callback in list_slice(gc_callbacks, everything):
                if code_of(callback) is code:
                    return True
            names, count = code.co_varnames, code.co_argcount
            gathered = code.co_flags & _VARARGS
            if (count < 1 and not gathered) or type_type(names) is not tuple or not names:
                return False
            values = locals_of(frame)
            get = (dict_get if type_type(values) is dict
                   else locals_get if type_type(values) is frame_locals else None)
            if get is None:
                return True
            arguments = []
            for name in tuple_slice(names, slice(count)):
                if type_type(name) is not str:
                    return True
                arguments.append(get(values, name))
            if gathered:
                name = tuple_slice(names, everything)[count + code.co_kwonlyargcount]
                if type_type(name) is not str:
                    return True
                rest = get(values, name)
                arguments += tuple_slice(rest, everything) if type_type(rest) is tuple else ()
            phases = False
            for value in arguments:
                kind = type_type(value)
                if issubclass(kind, weak_reference) and (
                        referent_of(value) is None or code_of(callback_of(value)) is code):
                    return True
                if kind is str and (value == "start" or value == "stop"):
                    phases = True
                elif phases and kind is dict and len(value) == 3 and dict_get(
                        value, "generation", value) is not value and dict_get(
                        value, "uncollectable", value) is not value:
                    return True  # (phase, info): what the collector hands its callbacks
            if not arguments:
                return False
            finaliser = class_attribute(type_type(arguments[0]), "__del__")
            return finaliser is not None and code_of(finaliser) is code
        except Exception:
            return True

    def code_of(function):
        """A Python function's (or a bound method's) code object, or ``None``."""
        if type_type(function) is method_type:
            function = method_function(function)
        return function_code(function) if type_type(function) is function_type else None

    def given_by_a_test(path):
        """Whether a test on the stack names its own file (``__file__``) and ``path`` lies
        beside it: a test handing its file to the code under test as a sample input (click's
        ``default=__file__, type=click.File()``). An oracle reading test files from any other
        call is still seen, and one that first finds its caller inspects the stack. Nothing
        the garbage collector runs (finalisers, weak references' callbacks, ``gc.callbacks``)
        while the test is on the stack, nor a finaliser or callback run when the test drops
        the last reference, was handed anything by the test."""
        # The collector still one of gc.callbacks: a list the submission's code can clear,
        # and with it the record of collections.
        if get_ident() in collecting or not holds(list_slice(gc_callbacks, everything),
                                                  collector):
            return False
        try:
            frame = getframe(2)
        except ValueError:
            return False
        folder = os.path.dirname(path)
        found = False
        while frame is not None:
            code = frame.f_code
            name = file_of(code)
            if not found and collector_runs(frame):
                return False
            if found:
                # Below the test's frame, no code of the submission's: a function it made
                # under a test file's name (code.replace(co_filename=...)) called nothing
                # of the tests.
                if not name.startswith(("<", os.sep)):
                    name = join(here, name)
                if code is deferred_code or (
                        name[len(repo) + 1:] in changed if name.startswith(repo + os.sep)
                        else not name.startswith("<") and not known_file(name)):
                    return False
            elif named_file(code) and _is_test_source(name, repo, changed):
                own = plain(dict_get(frame.f_globals, "__file__"))
                found = type_type(own) is str and os.path.dirname(realpath(own)) == folder
            frame = frame.f_back
        return found

    def opened_at(path, dir_fd):
        """``os.open(path, dir_fd=fd)``: the file a relative name reaches from the folder of
        the descriptor. The ``open`` event carries the name alone, judged from the current
        folder: a decoy of that name there (``/tmp/test_x.py``, the current folder moved)
        hid a test file read through a descriptor of the tests' folder."""
        name = named(path)
        if not name or name.startswith(os.sep) or type_type(dir_fd) is not int:
            return
        try:
            folder = readlink("/proc/self/fd/" + str(dir_fd))
        except OSError:
            return
        real = realpath(join(folder, name))
        if _is_test_source(real, repo, changed) and not given_by_a_test(real):
            where = origin(3, exact=True, inherited=True)
            if where is not None:
                review(where, "reads a test file (" + real[len(repo) + 1:] + ") through a "
                       "descriptor of its folder (dir_fd) from the code under test: a "
                       "test-caller oracle reads expected values there", "reads_tests")

    def signalled(handler):
        """A signal handler installed (``signal.signal``, however it was looked up): it is
        called with the frame the signal interrupts, the calling test's among them, and no
        audit event reports what it reads there. Not ``SIG_DFL``/``SIG_IGN``, and only from
        the submission's own line (``asyncio.run`` installs a SIGINT handler of its own)."""
        if not callable(handler):
            return
        where = caller(3, _SIGNAL_HELPERS)
        if where is not None:
            review(where, "installs a signal handler (it is handed the interrupted frame: the "
                   "calling test's variables and code, read with no audit event)",
                   "stack_inspection")

    def started(words, env=None, cwd=None):
        """A process start (``words``: its program then its arguments; ``env``: the
        environment it is given, ``None`` when inherited): a review when it runs pytest or
        names the tests or the harness's files, starts a Python past the harness's gate, or
        runs a program that is not Python (no guard of its own; not where the repository's
        own code starts it or the file is one whose starting of programs is the feature's),
        at the submission's line that started it (once per line: the C function behind
        ``subprocess`` sees the start its audit event saw). Returns that line, or ``None``
        when the submission's code did not start it."""
        words = [named(word) for word in words]
        folder = named(cwd) if cwd is not None else getcwd()
        where = origin(2, exact=True, inherited=True)
        if where is None:
            return None
        if None in words or folder is None:
            if ("unreadable", where) not in said:
                said.add(("unreadable", where))
                unreadable(where, "starts a process named, given an argument or a folder")
            words = [word if word is not None else "?" for word in words]
            folder = folder if folder is not None else getcwd()
        command = " ".join(words)
        given = environment(env) if may_run_python(words) else None
        if given is False:
            review(where, "starts a process given an environment of a class of its own: its "
                   "methods, asked again, can answer otherwise than to the start, so the guard "
                   "cannot tell what it holds", "subprocess")
            given = None
        why = skips(words) or (env_skips(given, guard_value, harness, repo, folder, locked)
                               if given is not None else None)
        if why and ("skips", where) not in said:
            said.add(("skips", where))
            review(where, "starts a Python past the harness's start-up gate (" + why + "; "
                   + command[:120] + "): what it does is outside the guard", "subprocess")
        if _multiprocessing_start(words):
            # Its command carries sys.path (names of the tests' folder) as data; what the
            # child runs is watched there. Its flags are checked above all the same: the
            # shape with -I is no multiprocessing start of this interpreter's.
            return where
        if child_words(command) and ("started", where) not in said:
            said.add(("started", where))
            review(where, "starts a process that runs pytest or names the tests or "
                   "the harness's files (" + command[:120] + "): what a child "
                   "process does is outside the guard", "subprocess")
        elif (not why and ("started", where) not in said and where[0] not in processes
              and other_program(words) and not by_upstream(2)):
            # No guard of its own: a grep or a shell reads the tests unseen.
            said.add(("started", where))
            review(where, "starts a program that is not Python (" + command[:120] + "): "
                   "what it does, reading the tests among it, is outside the guard",
                   "subprocess")
        return where

    def mark(env, where):
        """``env`` (a start's environment, ``None``: inherited) carrying the submission's
        start site for the child's guard, when it carries the guard itself."""
        try:
            # Inherited: the list _posixsubprocess takes (3.13's posix_spawn wrapper makes
            # it a mapping).
            given = [key + b"=" + value for key, value in os.environb.items()] if (
                env is None) else env
            if hasattr(given, "items"):
                if given.get(GUARD_VARIABLE) != guard_value:
                    return env
                marked = dict(given)
                marked[ORIGIN_VARIABLE] = where[0] + ":" + str(where[1] or 0)
                return marked
            key = GUARD_VARIABLE.encode() + b"="
            if key + guard_value.encode() not in given:
                return env
            origin_key = ORIGIN_VARIABLE.encode() + b"="
            return [entry for entry in given if not entry.startswith(origin_key)] + [
                origin_key + (where[0] + ":" + str(where[1] or 0)).encode(
                    "utf-8", "surrogateescape")]
        except Exception:
            return env

    def importer():
        """The submission's line (an added one) whose import statement raised the current
        ``import`` event, past the import machinery's frames."""
        frame = getframe(1)
        own = file_of(frame.f_code)  # this plugin's file: the guard's own frames
        while frame is not None and (file_of(frame.f_code) == own
                                     or file_of(frame.f_code).startswith("<frozen ")):
            frame = frame.f_back
        name = file_of(frame.f_code) if frame is not None else ""
        if name.startswith(repo + os.sep) and changed.at(name[len(repo) + 1:],
                                                         frame.f_lineno):
            return (name[len(repo) + 1:], frame.f_lineno)
        return None

    def in_pytest_main():
        """Whether pytest's ``main`` is on the stack (a test run in this process)."""
        frame = getframe(4)
        while frame is not None:
            code = frame.f_code
            if plain(code.co_name) == "main" and file_of(code).endswith(_PYTEST_MAIN_FILE):
                return True
            frame = frame.f_back
        return False

    def ran_pytest(what):
        """pytest run again by the submission's code: in this process or a child of it."""
        where = origin(2, exact=True, inherited=True)
        if where is not None:
            review(where, "runs pytest again from the code under test (" + what + "): a "
                   "second run, outside the guard, tells the canaries from the feature's "
                   "tests", "subprocess")

    def plain(value):
        """``value``, a ``str`` or ``bytes`` of a subclass copied to the built-in type (by
        the built-in type's own slicing): the hook then calls no method of the submission's
        inside its busy window, where what that method does is unseen (a ``str`` subclass
        as ``open``'s path whose ``startswith`` read the tests there)."""
        kind = type_type(value)
        if kind is str or kind is bytes:
            return value
        if issubclass(kind, str):
            return str_slice(value, everything)
        if issubclass(kind, bytes):
            return bytes_slice(value, everything)
        return value

    def file_of(code):
        """A code object's file name as a plain ``str``: ``code.replace(co_filename=...)``
        takes a ``str`` subclass, whose ``startswith`` the walks of the stack called inside
        the hook's busy window (it read the tests unseen)."""
        return plain(code.co_filename)

    def named_file(code):
        """Whether ``code`` reads a global ``__file__`` (its names compared as plain
        ``str``, no ``__eq__`` of a subclass's)."""
        return any(type_type(name) is str and name == "__file__" for name in code.co_names)

    def named(value):
        """The text of a path (or a word of a command) in an event's arguments, read with
        no code of the submission's: a ``str`` or ``bytes`` as it is, a path object of the
        standard library's own classes by its path; ``None`` for any other object. Its
        ``__fspath__``, asked again here, may name another file than the one the call used
        (``io.FileIO`` asks it before its event), and would run in the hook's busy window."""
        value = plain(value)
        kind = type_type(value)
        if kind is str:
            return value
        if kind is bytes:
            return decode(value, *fs_codec)
        local = local_paths.get(id(kind))
        if local is not None and local[0] is kind:
            return local_path(value, *local[1:])
        if kind is not direntry:
            return path_text(value)
        # os.fspath itself (not os.fsdecode, whose isinstance asks the result's __class__):
        # a DirEntry's is C code returning its own path.
        value = plain(direntry_fspath(value))
        return decode(value, *fs_codec) if type_type(value) is bytes else value

    def local_path(path, namespace_of, spaces):
        """A py.path LocalPath's text (its ``strpath``), or ``None``."""
        if not unchanged(spaces):
            return None
        space = namespace_of(path)
        if type_type(space) is not dict:
            return None
        for key in space:
            if type_type(key) is not str:
                return None  # a key of a class of its own: its __eq__ runs in a lookup
        text = dict_get(space, "strpath")
        return text if type_type(text) is str else None

    def environment(env):
        """An environment given to a process start as ``{str: str}``, read with no code
        of the submission's (see :func:`named`): a ``dict``, or the ``KEY=VALUE`` list
        ``_posixsubprocess`` takes, of str, bytes or the standard library's paths; ``None``
        when inherited (or ``os.environ`` itself, whose changes the hook sees);
        ``False`` for anything else (a mapping of a class of its own: its ``items`` ran
        inside the hook's busy window and read the tests unseen)."""
        if env is None or env is environ:
            return None
        kind = type_type(env)
        entries = copied(env)
        if kind is dict or kind is ordered or kind is default_dict:  # C types: no patching
            pairs = [(named(key), named(value)) for key, value in dict_items(env)]
        elif entries is not None:
            pairs = []
            for entry in entries:
                entry = named(entry)
                pairs.append((None, None) if entry is None else entry.partition("=")[::2])
        else:
            return False
        found = {}
        for key, value in pairs:
            if key is None or value is None:
                return False
            found[key] = value
        return found

    def inherited():
        """The guard's variables in this process's environment (what ``os.system``'s shell
        inherits), read from ``os.environ``'s dictionary with no method of it: its keys
        compared as plain ``bytes`` (a key of a subclass runs no ``__eq__``)."""
        found = {}
        for key, value in _items(environ_data):
            if type_type(key) is bytes and type_type(value) is bytes and (
                    key in watched_variables):
                found[decode(key, *fs_codec)] = decode(value, *fs_codec)
        return found

    def copied(value, span=everything):
        """The items (``span`` of them) of a list or tuple, or of a subclass's, as a plain
        list, by the built-in types' own slicing (no ``__iter__`` of the submission's runs);
        ``None`` for anything else."""
        kind = type_type(value)
        if issubclass(kind, list):
            return list_slice(value, span)
        if issubclass(kind, tuple):
            return [*tuple_slice(value, span)]
        return None

    def unreadable(where, what):
        review(where, what + " through a path object of a class of its own (or a pathlib "
               "path whose state or classes changed): asked for its path again, its "
               "__fspath__ can name another file than the one used, so the guard cannot tell "
               "which", "reads_tests")

    def audit(event, args):
        if event not in audited:
            return
        if event == "object.__getattr__" and (
                len(args) < 2 or type_type(args[1]) is not str
                or args[1] not in read_attributes):
            # frame.f_code raises it: every walk of the stack does, the guard's own.
            # CPython names the attribute by a str; anything else was raised by hand.
            return
        thread = get_ident()
        if thread in busy:
            return  # the hook's own sys._getframe calls
        if event != "object.__getattr__":
            args = tuple(plain(value) for value in args)
        busy.add(thread)
        # No garbage collection while the hook works: one started by the hook's own
        # allocations ran the submission's finalisers (and gc.callbacks) inside the busy
        # window, where their reads of the tests went unseen (an attacker calibrates
        # gc.set_threshold so that the collection falls there).
        collects = gc_enabled()
        if collects:
            gc_disable()
        try:
            _on_event(event, args)
        except Exception:
            pass  # an audit hook that raises would break the audited call itself
        finally:
            if collects:
                gc_enable()
            busy.discard(thread)

    def _on_event(event, args):
        if event == "sys._getframe" or event == "sys._current_frames":
            # Only _current_frames reaches another thread's frames (the test's, from a
            # pool's worker handed it).
            where = caller(3, handed=event == "sys._current_frames")
            if where is not None:
                review(where, "inspects the call stack (sys._getframe)", "stack_inspection")
            return
        if event == "object.__getattr__":
            if args[1] in _FRAME_ATTRIBUTES:
                where = caller(3)
                if where is not None:
                    review(where, "walks a traceback or generator to its frames (" + args[1]
                           + "): a test-caller oracle reads the calling test there",
                           "stack_inspection")
            elif args[1] == "__code__" and type_type(args[0]) is function_type:
                code = args[0].__code__
                if plain(code.co_name).startswith("test") and _is_test_source(
                        realpath(file_of(code)), repo, changed):
                    where = caller(3, _CODE_HELPERS, _CODE_READERS, handed=True)
                    if where is not None:
                        review(where, "reads the code of a test function (its constants "
                               "are the test's inputs and expected values)", "reads_tests")
            return
        if event == "compile":
            name = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
            relative = name[len(repo) + 1:] if name.startswith(repo + os.sep) else name
            if relative in changed and not (relative.endswith((".py", ".pyw"))
                                            and isfile(name)):
                where = caller(3) or (relative, None)
                review(where, "runs Python stored in a file not named as Python or inside an "
                       "archive (" + relative + "): the checks of the patch read it as data",
                       "hidden_code")
            elif name.startswith("<doctest ") and built_for_doctest(getframe(2), name):
                # Compiled by doctest's runner from an example no file holds where its
                # DocTest says (built at run time): the submission's line that ran it.
                where = climb(getframe(2), depth_limit, True, False)[0]
                if where is not None:
                    review(where, "runs code built while the tests run through doctest's "
                           "runner (a DocTest whose examples are not in the file it names)",
                           "dynamic_code")
            elif name.startswith("<"):
                where = caller(3)
                if where is not None:
                    review(where, "compiles code built while the tests run (exec, eval or "
                           "compile)", "dynamic_code")
            return
        if event == "open":
            # A path as bytes or a path object is the same path (open(b"tests/x.py")).
            given = args[0] if args else ""
            path = named(given) if type_type(given) is not int else ""
            if path is None:
                where = origin(3, exact=True, inherited=True)
                if where is not None:
                    unreadable(where, "opens a file")
                return
            relative = bool(path) and not path.startswith(os.sep)
            if relative:  # relative to the current folder (or to a dir_fd: below)
                path = normpath(join(getcwd(), path))
            if path.startswith("/proc/") and (path.endswith("/mem") or "/fd/" in path):
                where = origin(3)
                if where is not None:
                    tamper("the submission's code opened " + path + " (" + _at(where) + ")")
                return
            # The file it names, not its spelling: a symbolic link in /tmp, /dev/fd/N,
            # /proc/<pid>/cwd/..., a leading "//" all reach a test file under other names.
            real = realpath(path) if path else ""
            if _is_test_source(real, repo, changed):
                shown = real[len(repo) + 1:]
            elif relative and _dir_fd_test(path, args):
                shown = named(given)  # its name relative to a directory descriptor
            else:
                return
            if not given_by_a_test(real):
                where = origin(3, exact=True, inherited=True)
                if where is not None:
                    review(where, "reads a test file (" + shown + ") from the "
                           "code under test: a test-caller oracle reads expected values there",
                           "reads_tests")
            return
        if event in _STARTS:
            program, rest, given, folder = _STARTS[event]
            rest = args[rest] if rest is not None else ()
            # Copied by the built-in types' own slicing, each word read by named() alone:
            # no method of an object of the submission's (__iter__, __class__, __eq__,
            # __bool__) runs here, where the hook's busy window hides what it does.
            words = copied(rest, first_words)
            if words is None:
                words = [rest]
            if event == "os.system":
                words = ["/bin/sh", "-c", args[0]]
            elif args[program] is not None:
                # The argv's first word names the program as it was asked for; an
                # explicit executable different from it is what runs.
                asked = named(args[program])
                if asked != "" and (asked is None or not words or named(words[0]) != asked):
                    words = [args[program], *words[1:]]
            env = args[given] if given is not None and len(args) > given else None
            where = started(words, env, args[folder] if folder is not None else None)
            if where is None:
                return
            site = where[0] + ":" + str(where[1] or 0)
            if env is None and event == "os.exec" and (getpid() != pid or channel is not None):
                # A process about to be replaced: the program it becomes inherits this.
                putenv(ORIGIN_VARIABLE, site)
            elif event != "subprocess.Popen" and event != "os.spawn":
                # The wrappers of os.execve, os.posix_spawn and os.system put the site in
                # before these events: a start without it went past them (posix.system).
                # os.system's shell inherits the process's own environment, whatever
                # os.environ's dictionary (the submission's to edit) says of the guard.
                given = inherited() if event == "os.system" else environment(env)
                guarded = event == "os.system" or (
                    given and given.get(GUARD_VARIABLE) == guard_value)
                if (guarded and given.get(ORIGIN_VARIABLE) != site
                        and ("unmarked", where) not in said):
                    said.add(("unmarked", where))
                    review(where, "starts a process past the guard's wrappers (" + event
                           + "): a Python it runs is watched, but not known as the "
                           "submission's", "subprocess")
            return
        if event == "import":  # only in a child process (see ``audited``)
            # pytest's internals imported by the submission's code itself; any import while
            # pytest's main runs (a run imports the tests, its conftest files, its plugins).
            where = importer() if str(args[0]).startswith("_pytest") else None
            if where is not None:
                review(where, "imports pytest's internals in a child process", "subprocess")
            elif in_pytest_main():
                ran_pytest("pytest.main in a child process")
            return
        if event == "os.putenv" or event == "os.unsetenv":
            name = named(args[0])
            value = named(args[1]) if event == "os.putenv" and len(args) > 1 else ""
            if name is None or value is None:
                where = origin(3, exact=True)
                if where is not None:
                    unreadable(where, "changes an environment variable")
                return
            # PYTHONPATH without the harness's folder first (past the repository's own
            # entries), or the lock-down's PYTHONNOUSERSITE dropped: a Python then started
            # skips the gate.
            if name == GUARD_VARIABLE or (name == "PYTHONPATH" and _path_skips(
                    value, harness, repo, getcwd())) or (name in locked and (
                        value if event == "os.putenv" else None) != locked[name]):
                where = origin(3, exact=True)
                if where is not None:
                    review(where, "changes $" + name + ": a Python process it then starts "
                           "is outside the guard", "subprocess")
            return
        if event == "pickle.find_class":
            # Names as plain str only, a module's file read from its namespace: str(), or
            # getattr of a module object of the submission's, ran its code unseen here.
            module = args[0] if args and type_type(args[0]) is str else ""
            name = args[1] if len(args) > 1 and type_type(args[1]) is str else ""
            suspect = (module in unpickled[0] or module.startswith(unpickled[1])
                       or (module in ("builtins", "__builtin__") and name in unpickled[2]))
            if not suspect:
                loaded = module_named(module)
                found = named(dict_get(module_dict(loaded), "__file__")) if issubclass(
                    type_type(loaded), module_type) else None
                suspect = _is_test_source(realpath(found or ""), repo, changed)
            if suspect:
                # Not in a thread the submission's code started: a process pool's threads
                # unpickle what its workers send back (a result, pytest's ExitCode).
                where = origin(3, exact=True, handed=False)
                if where is not None:
                    review(where, "unpickles " + module + "." + name + " (data that stands for "
                           "code, an object equal to anything or an object of the tests, "
                           "hidden from the checks of the patch)", "hidden_code")
            return
        if event == "object.__setattr__":
            target, name = args[0], args[1]
            if name != "__code__" or type_type(target) is not function_type:
                return
            if _made_a_coroutine(target.__code__, args[2]):
                return  # types.coroutine (asyncio's import) marks a generator awaitable
            where = origin(3)
            if where is None:
                return
            owner = file_of(target.__code__)
            own = owner.startswith(repo + os.sep) and owner[len(repo) + 1:] in changed
            what = getattr(target, "__qualname__", "?")
            if own:
                review(where, "swaps the code object of its own function " + what,
                       "code_swap")
            else:
                tamper("the submission's code swapped the __code__ of " + what + " ("
                       + _at(where) + ")")
            return
        where = origin(3, exact=True)
        if where is None:
            return
        if event.startswith("gc."):
            review(where, "walks the interpreter's live objects (" + event + ")",
                   "introspection")
        elif event.startswith("ctypes."):
            review(where, "uses ctypes (raw memory and C calls)", "introspection")
        elif event == "sys.addaudithook":
            review(where, "adds an audit hook (watches the interpreter)", "introspection")
        elif event == "cpython.PyInterpreterState_New":
            # An audit hook is the interpreter's own: code run in a subinterpreter
            # (_xxsubinterpreters.run_string) reads the tests past every check of the guard.
            review(where, "creates a subinterpreter (the code it runs is outside the guard's "
                   "audit hook: it read the test files unseen)", "introspection")
        else:
            review(where, "traces the interpreter (" + event + ")", "introspection")

    return emit, tamper, review, origin, audit, repo, changed, (
        started, ran_pytest, out, mark, carried, (opened_at, signalled), anchor)


#: The programs ``multiprocessing`` starts a Python with (``-c``), by module.
_MULTIPROCESSING_MAINS = {"multiprocessing.spawn": "spawn_main",
                          "multiprocessing.forkserver": "main",
                          "multiprocessing.resource_tracker": "main"}


def _multiprocessing_start(words):
    """Whether ``words`` is a start of one of ``multiprocessing``'s own programs and nothing
    else: ``python [flags] -c 'from multiprocessing.X import main; main(<literals>)'``. The
    forkserver's carries ``sys.path`` (the harness's folder, the tests' folder) as data; the
    child it starts is watched by its own guard (:func:`_install_child`)."""
    import ast

    if "-c" not in words:
        return False
    at = words.index("-c")
    if at + 1 >= len(words) or not all(word.startswith("-") for word in words[1:at]) or (
            words[at + 2:] not in ([], ["--multiprocessing-fork"])):
        return False
    try:
        body = ast.parse(words[at + 1]).body
        if len(body) != 2 or not isinstance(body[0], ast.ImportFrom) or not isinstance(
                body[1], ast.Expr) or not isinstance(body[1].value, ast.Call):
            return False
        main = _MULTIPROCESSING_MAINS.get(body[0].module or "")
        call = body[1].value
        if main is None or [(a.name, a.asname) for a in body[0].names] != [(main, None)] or (
                not isinstance(call.func, ast.Name) or call.func.id != main):
            return False
        for node in [*call.args, *(keyword.value for keyword in call.keywords)]:
            ast.literal_eval(node)
        return True
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return False


def _items(space, items=dict.items, listed=list, kind=type, attempts=range(100),
           error=RuntimeError):
    """The items of a dictionary (or of a class's namespace) as a list, copied with no code
    of the keys' own; copied again when another thread changed it meanwhile ("dictionary
    changed size during iteration": a thread importing while a check copies sys.modules,
    seen in dspy's streaming tests); ``[]`` if it never holds still."""
    for _ in attempts:
        try:
            return listed(items(space) if kind(space) is dict else space.items())
        except error:
            continue
    return []


#: ``co_flags`` of a code object taking ``*args`` (inspect.CO_VARARGS).
_VARARGS = 0x04


def _module_and_odd_keys(name, modules=sys.modules, kind=type, text=str.__getitem__,
                         everything=slice(None, 60)):
    """``(module, odd)`` in one scan of ``sys.modules``: the module under the plain key
    ``name`` (as :func:`_module` finds it) and the keys of a ``str`` subclass, as plain text
    (their first 60 characters, read with no code of theirs). Python's imports use plain
    ``str`` names: such a key is there to be compared, its ``__eq__`` (with a colliding
    ``__hash__``) answering for a name (``import pytest`` served a module of the
    submission's while the guard's lookups by plain keys still found the real one)."""
    found, odd = None, []
    for key, value in _items(modules):
        if kind(key) is str:
            if key == name:
                found = value
        elif issubclass(kind(key), str):
            odd.append(text(key, everything))
    return found, odd


def _has_module(repo, here, name):
    """Whether the repository has a top-level module ``name`` where its tests import from:
    its root, the folder pytest started in, ``src/``, the ``sys.path`` entries inside it."""
    roots = {repo, here, os.path.join(repo, "src")} | {
        os.path.realpath(entry) for entry in list(sys.path) if type(entry) is str
        and os.path.realpath(entry).startswith(repo + os.sep)}
    return any(os.path.isfile(os.path.join(root, name + ".py"))
               or os.path.isfile(os.path.join(root, name, "__init__.py")) for root in roots)


def _module(name, modules=sys.modules, kind=type):
    """``sys.modules[name]`` (``None`` when absent), comparing ``name`` with the keys that are
    plain ``str`` only. A dictionary lookup compares the keys of the same hash: a key of a
    ``str`` subclass hashing as a module's name had its ``__eq__`` called by the lookup (run
    inside the audit hook's busy window, unseen, or answering ``True`` for a decoy module).
    ``name``: a plain ``str``. A scan (~100 us for 3,000 modules; gathering the keys' types
    first to use the dictionary's own lookup when all are plain saved a quarter of it). What
    it uses is bound at definition (the defaults)."""
    for key, value in _items(modules):
        if kind(key) is str and key == name:
            return value
    return None


def _path_reader():
    """``(text, unchanged)``: ``text(path)``, the text of a path object of pathlib's own
    classes (exactly ``PurePosixPath`` or ``PosixPath``: a subclass's methods are anyone's),
    read from its slots by their descriptors with no code of pathlib's, or ``None`` when it
    cannot be read so; ``unchanged(spaces)``, whether namespaces hold what they held at
    load. Everything is bound here, at load, before any code of the repository runs.

    Why not ``os.fspath(path)``: on Python 3.12+ pathlib parses a path when its text is
    first asked for, calling ``sys.intern`` and ``os.fspath`` (through ``posixpath``) as they
    are then, so code the submission put there ran inside the audit hook's busy window,
    unseen. The text is computed here as pathlib computes it (3.8-3.11: ``_drv``, ``_root``,
    ``_parts``, set at construction; 3.12+: the ``_raw_paths`` given, joined and parsed as
    ``posixpath.join`` and ``PurePath._parse_path`` do), or taken from ``_str`` once pathlib
    computed it. A path whose slots hold other than built-in values of exact types, whose
    classes (or ``_flavour``, or on 3.12+ ``sys.intern`` and ``os.fspath``, which pathlib's own
    parsing of the call used) changed since load, is read as unknown (``None``): the call may
    have used another text than the one read here."""
    import pathlib

    kind_of, slot_get, join_words = type, types.MemberDescriptorType.__get__, "/".join
    known = {id(kind): kind for kind in (pathlib.PurePosixPath, pathlib.PosixPath)}
    slots, spaces = {}, []
    pure = pathlib.PurePosixPath.__mro__
    for kind in pathlib.PosixPath.__mro__[:-1]:
        # The path's own state (3.8-3.10's Path also keeps an _accessor object in a slot).
        names = vars(kind).get("__slots__", ()) if kind in pure else ()
        for name in ((names,) if kind_of(names) is str else names):
            if name in vars(kind):
                slots[name] = vars(kind)[name]
        spaces.append(vars(kind))
    flavour = getattr(pathlib.PurePosixPath, "_flavour", None) or getattr(  # 3.13: parser
        pathlib.PurePosixPath, "parser", None)
    if hasattr(flavour, "__dict__"):
        spaces.append(vars(flavour))
    lazy = "_raw_paths" in slots  # 3.12+: parsed on first use, with these
    # (_OS_MODULE: the os module itself; this module's ``os`` is a sealed copy of it.)
    functions = ((sys, "intern"), (_OS_MODULE, "fspath")) if lazy else ()
    functions = [(vars(module), name, vars(module).get(name)) for module, name in functions]
    spaces = [(space, dict(space)) for space in spaces]
    order = [slots.get(name) for name in ("_str", "_drv", "_root", "_tail_cached", "_parts",
                                          "_raw_paths")]

    def unchanged(spaces):
        """Whether each namespace holds what it held at load: its keys compared as plain
        ``str`` (a key of a subclass would have its ``__eq__`` run by a lookup)."""
        for space, loaded in spaces:
            if len(space) != len(loaded):
                return False
            for key, value in _items(space):
                if kind_of(key) is not str or loaded.get(key, loaded) is not value:
                    return False
        return True

    def held(path, slot):
        """The slot's value (``None`` when unset or absent); ``False`` when it holds
        anything but a str, int, bool, None, or a list or tuple of str (exact types)."""
        if slot is None:
            return None
        try:
            value = slot_get(slot, path)
        except AttributeError:
            return None
        kind = kind_of(value)
        if kind is list or kind is tuple:
            for part in value:
                if kind_of(part) is not str:
                    return False
            return value
        return value if kind is str or kind is int or kind is bool or value is None else False

    def text(path):
        kind = kind_of(path)
        if known.get(id(kind)) is not kind:
            return None
        values = [held(path, slot) for slot in order]
        if any(value is False for value in values) or not unchanged(spaces):
            return None
        for space, name, value in functions:
            if _entry(space, name) is not value:
                return None
        known_text, drive, root, tail, parts, raw = values
        if kind_of(known_text) is str:
            return known_text
        if tail is None and parts is not None and kind_of(drive) is str and (
                kind_of(root) is str):
            tail = parts[1:] if drive or root else parts  # 3.8-3.11: parts[0] is drv+root
        if tail is None:
            if raw is None:
                return None
            drive, (root, tail) = "", _parsed_posix(raw)
        if kind_of(drive) is not str or kind_of(root) is not str:
            return None
        return (drive + root + join_words(tail) if drive or root else join_words(tail)) or "."

    return text, unchanged


def _parsed_posix(raw):
    """The root and the parts of the POSIX path made of ``raw`` (a list of ``str``), as
    ``posixpath.join`` and pathlib's ``_parse_path`` make them (3.12+; the same text as
    3.8-3.11's parsing): a part starting with ``/`` starts over, exactly two leading
    slashes are kept, empty and ``.`` parts dropped. String methods alone."""
    path = raw[0] if raw else ""
    for word in raw[1:]:
        if word[:1] == "/":
            path = word
        elif not path or path[-1:] == "/":
            path += word
        else:
            path += "/" + word
    if path[:1] != "/":
        root, rest = "", path
    elif path[1:2] != "/" or path[2:3] == "/":
        root, rest = "/", path[1:]
    else:
        root, rest = "//", path[2:]
    return root, [word for word in rest.split("/") if word and word != "."]


def _entry(space, name, kind=type):
    """``space[name]`` (``None`` when absent) of a dictionary (a module's namespace),
    comparing ``name`` with its plain ``str`` keys only (see :func:`_module`)."""
    for key, value in _items(space):
        if kind(key) is str and key == name:
            return value
    return None


def _str_keyed(modules=sys.modules, kind=type):
    """A copy of ``sys.modules`` holding its plain ``str`` keys only (see :func:`_module`):
    looked up many times in one check, a copy costs less than a scan per name."""
    return {key: value for key, value in _items(modules) if kind(key) is str}


_DOCTEST_NAME = re.compile(r"^<doctest (.+)\[(\d+)\]>$")


def _python_letters(argv):
    """The one-letter options of a Python command line before its script, ``-c`` or ``-m``
    (``-BsS`` is ``B``, ``s``, ``S``)."""
    letters = []
    index = 1
    while index < len(argv):
        word = argv[index]
        if not word.startswith("-") or word in ("-", "--"):
            break
        if word.startswith("--"):
            index += 2 if word == "--check-hash-based-pycs" else 1
            continue
        for at, letter in enumerate(word[1:]):
            if letter in "cm":
                return letters
            if letter in "WX":  # an option with a value: the rest of the word, or the next
                index += word[at + 2:] == ""
                break
            letters.append(letter)
        index += 1
    return letters


def _is_python(program):
    """Whether ``program`` (a name or a path) is a Python interpreter."""
    name = os.path.basename(program)
    if _PYTHON_PROGRAM.match(name):
        return True
    if os.sep not in program:
        return False
    real, interpreter = os.path.realpath(program), os.path.realpath(sys.executable)
    return real == interpreter or bool(_PYTHON_PROGRAM.match(os.path.basename(real))) or (
        _copy_of(real, interpreter))


def _copy_of(path, interpreter, head=65536):
    """Whether ``path`` starts with the same bytes as the interpreter's file (a copy of it
    under another name, bytes appended or not)."""
    try:
        if os.stat(path).st_size < os.stat(interpreter).st_size:
            return False
        with open(path, "rb") as one, open(interpreter, "rb") as other:
            known = other.read(head)
            return one.read(len(known)) == known
    except (OSError, ValueError):
        return False


def _shebang(path):
    """The words of ``path``'s ``#!`` line, and its text when it is a shell script (both
    read from its first 8 KiB); ``([], "")`` for anything else."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(8192)
    except (OSError, ValueError, TypeError):
        return [], ""
    if not head.startswith(b"#!"):
        return [], ""
    text = head.decode("utf-8", "replace")
    words = text[2:].split("\n", 1)[0].split()
    shell = bool(words) and os.path.basename(words[0]) in _SHELLS
    return words, text if shell else ""


def _skips_gate(argv, depth=0):
    """Why the command line ``argv`` starts a Python past the harness's start-up gate (its
    ``-I``, ``-E`` or ``-S``; ``env`` clearing or unsetting the gate's variables; a shell
    text or a script's ``#!`` line doing either), or ``None``. What a command computes at
    run time stays unseen: this reads the known ways, one wrapper deep at a time."""
    if not argv or depth > 4:
        return None
    program = argv[0]
    name = os.path.basename(program)
    if _is_python(program):
        skipped = sorted(set(_python_letters(argv)) & set("IES"))
        if skipped:
            return "-" + "".join(skipped) + " makes it ignore the gate"
        return None
    if name == "env":
        index = 1
        while index < len(argv):
            word = argv[index]
            if word in ("-i", "-", "--ignore-environment") or (
                    word.startswith("-") and not word.startswith("--") and "i" in word[1:]):
                return "env clears the environment the gate needs"
            if word in ("-u", "--unset") or word.startswith(("-u", "--unset=")):
                unset = argv[index + 1] if word in ("-u", "--unset") and index + 1 < len(
                    argv) else word[2:].lstrip("=") if word.startswith("-u") else word[8:]
                if unset in _GATE_VARIABLES:
                    return "env unsets $" + unset
                index += 1 + (word in ("-u", "--unset"))
                continue
            if word in ("-S", "--split-string") and index + 1 < len(argv):
                return _skips_gate(argv[index + 1].split() + argv[index + 2:], depth + 1)
            if word in ("-C", "--chdir"):
                index += 1
            elif "=" in word and not word.startswith("-"):
                key, _, value = word.partition("=")
                harness = os.path.dirname(CHANGED_FILES)
                if key in _GATE_VARIABLES and not (
                        key == "PYTHONPATH" and harness in value.split(os.pathsep)):
                    return "env sets $" + key
            elif not word.startswith("-"):
                return _skips_gate(argv[index:], depth + 1)
            index += 1
        return None
    if name in _SHELLS and "-c" in argv[1:3]:
        text = argv[argv.index("-c") + 1] if argv.index("-c") + 1 < len(argv) else ""
        return _shell_skips(text)
    if name in _SHELLS and len(argv) > 1 and not argv[1].startswith("-"):
        return _shell_skips(_shebang_text(argv[1]))
    words, text = _shebang(program) if os.sep in program else ([], "")
    if words:
        return _skips_gate(words + argv, depth + 1) or (_shell_skips(text) if text else None)
    # A wrapper (timeout, nohup, setsid, nice...) naming the Python among its words.
    for index in range(1, min(len(argv), 16)):
        if _PYTHON_PROGRAM.match(os.path.basename(argv[index])):
            found = _skips_gate(argv[index:], depth + 1)
            if found:
                return found
    return None


#: Programs that run the command they are given (their words name it).
_RUNNERS = frozenset({"env", "nohup", "timeout", "setsid", "nice", "ionice", "stdbuf",
                      "xargs", "time", "chrt", "taskset", "flock", "unshare", "script",
                      "make", "su", "sudo", "runuser", "doas"})


def _may_run_python(argv):
    """Whether the process ``argv`` starts may be a Python, or start one with its
    environment: Python itself, a shell, a program that runs a command, a script (``#!``),
    or a command line naming Python. Another program given an environment of its own
    (``git`` with ``GIT_DIR`` alone) is honest code's business."""
    if not argv:
        return False
    name = os.path.basename(argv[0])
    if name in _SHELLS or name in _RUNNERS or _is_python(argv[0]):
        return True
    if any(_PYTHON_PROGRAM.match(os.path.basename(word)) for word in argv[1:16]):
        return True
    return os.sep in argv[0] and bool(_shebang(argv[0])[0])


def _other_program(argv):
    """Whether the process ``argv`` starts runs a program other than a Python (which loads
    a guard of its own): a shell, any other program, or a runner (``env``, ``timeout``...)
    of one; a script by its ``#!`` line."""
    if not argv:
        return False
    if _is_python(argv[0]):
        return False
    name = os.path.basename(argv[0])
    if name in _SHELLS:
        return True
    if name in _RUNNERS:
        return not any(_is_python(word) for word in argv[1:16]) or any(
            os.path.basename(word) in _SHELLS for word in argv[1:16])
    words = _shebang(argv[0])[0] if os.sep in argv[0] else []
    return not words or _other_program(words)


def _shebang_text(path):
    """The text of a script a shell is asked to run (its first 8 KiB)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(8192).decode("utf-8", "replace")
    except (OSError, ValueError, TypeError):
        return ""


def _shell_skips(text):
    """Why a shell's ``text`` starts a Python past the gate (see :func:`_skips_gate`)."""
    if _SHELL_ENV.search(text):
        return "the shell clears or changes the environment the gate needs"
    harness = os.path.dirname(CHANGED_FILES)
    for name, _, value in _SHELL_ASSIGNMENT.findall(text):
        if name == "PYTHONHOME" or not value.strip("'\"") if name != "PYTHONPATH" else not (
                "$PYTHONPATH" in value or "${PYTHONPATH" in value or harness in value):
            return "the shell sets $" + name
    for found in _SHELL_PYTHON.finditer(text):
        options = (found.group(1) or found.group(2) or "").split()
        if set(_python_letters(["python", *options])) & set("IES"):
            return "the shell starts a Python with -I, -E or -S"
    return None


def _env_skips(env, guard, harness, repo, cwd, locked):
    """Why an environment given to a process start leaves a Python it runs past the gate:
    no ``$ARENA_GUARD`` of this run, the harness's folder missing from ``$PYTHONPATH`` or a
    folder outside the repository ahead of it (its ``sitecustomize`` would load instead), a
    variable of the lock-down (``$PYTHONNOUSERSITE``) dropped; or ``None``."""
    if env.get(GUARD_VARIABLE) != guard:
        return "$" + GUARD_VARIABLE + " is not this run's"
    path_skip = _path_skips(env.get("PYTHONPATH", ""), harness, repo, cwd)
    if path_skip:
        return path_skip
    for key, value in locked.items():
        if env.get(key) != value:
            return "$" + key + (" is dropped" if value is not None else " is set")
    return None


def _path_skips(value, harness, repo, cwd):
    """Why ``$PYTHONPATH`` set to ``value`` skips the gate, or ``None``."""
    for entry in value.split(os.pathsep):
        if entry == harness:
            return None
        real = os.path.realpath(os.path.join(cwd, entry))
        if real != repo and not real.startswith(repo + os.sep):
            return "$PYTHONPATH puts " + (entry or "the working folder") + " ahead of the gate"
    return "$PYTHONPATH lacks the harness's folder"


def _watch_process_starts(started, ran_pytest, mark=None):
    """Process starts without an audit event of their own, and pytest run again.

    ``multiprocessing`` (spawn, forkserver, its resource tracker) and ``subprocess`` start
    processes through ``_posixsubprocess.fork_exec``, which raises no audit event (3.11);
    ``subprocess`` binds it at import as ``_fork_exec``. Both names get a wrapper that
    reads the command line first, and gives a process the submission's code starts its
    start site (``$ARENA_ORIGIN``); so do ``os.posix_spawn`` (subprocess's other path),
    ``os.execve`` and ``os.system`` (whose audit events come after their environment is
    taken). ``pytest.main`` (``_pytest.config.main``, which
    ``console_main`` calls) gets one that notes a call from the submission's code. Put in
    place before the snapshot of pytest is taken (the wrappers are what it holds)."""
    try:
        import _posixsubprocess
    except ImportError:  # not a POSIX Python: nothing to wrap
        _posixsubprocess = None
    original = getattr(_posixsubprocess, "fork_exec", None)
    if original is not None:

        def fork_exec(*args, **kwargs):
            where = None
            if len(args) > 5:
                # What is judged is what runs: the arguments, the programs tried and the
                # environment copied once to plain lists (the C function reads a list
                # subclass's items past its __iter__, and any other sequence again).
                args = (_plain_list(args[0]), _plain_list(args[1]), *args[2:5],
                        _plain_list(args[5]), *args[6:])
            with contextlib.suppress(Exception):
                where = started(_run_words(args[0] or [], args[1] or [])[:64], args[5],
                                args[4])
            if where is not None and len(args) > 5:
                # The child's guard attributes its own code to this start (ARENA_ORIGIN).
                args = (*args[:5], mark(args[5], where), *args[6:])
            return original(*args, **kwargs)

        _posixsubprocess.fork_exec = fork_exec
        # subprocess binds it when imported: a later import binds the wrapper.
        subprocess = sys.modules.get("subprocess")
        if getattr(subprocess, "_fork_exec", None) is original:
            subprocess._fork_exec = fork_exec
    # The starts that take an environment of their own (subprocess's posix_spawn path
    # passes os.environ) carry the start site too; os.system's shell inherits it.
    for name in ("posix_spawn", "posix_spawnp", "execve"):
        function = getattr(os, name, None)
        if function is not None:
            # 3.13's posix_spawn takes None for the inherited environment (its subprocess
            # passes it so); execve, and posix_spawn before 3.13, refuse None themselves.
            setattr(_OS_MODULE, name, _marking(function, started, mark, env_at=2, inherits=(
                name != "execve" and sys.version_info >= (3, 13))))
    system = getattr(os, "system", None)
    if system is not None:
        _OS_MODULE.system = _marking_system(system, started, mark)
    config = sys.modules.get("_pytest.config")
    main = getattr(config, "main", None)
    if main is None:
        return

    def wrapped_main(*args, **kwargs):
        with contextlib.suppress(Exception):
            ran_pytest("pytest.main")
        return main(*args, **kwargs)

    wrapped_main.__doc__, wrapped_main.__wrapped__ = main.__doc__, main
    config.main = wrapped_main
    pytest_module = sys.modules.get("pytest")
    if getattr(pytest_module, "main", None) is main:
        pytest_module.main = wrapped_main


def _watch_deferred_and_opens(carried, watchers):
    """Code the submission's code sets going to run from a stack of its own, and ``os.open``
    given a directory descriptor.

    A thread's stack starts at its own function: a pool's worker running the standard
    library's ``Path.read_text`` over the test files has no frame of the submission, so the
    guard attributed nothing; nor when the garbage collector ran a ``weakref.finalize``
    callback (``list.extend`` over that ``map``) inside pytest's code. ``_thread``'s start
    functions (and ``threading``'s names for them, bound at its import) and
    ``weakref.finalize`` get wrappers that hand what runs later the submission's line that
    set it going (:func:`_build_guard`'s ``carried``). ``os.open`` (and ``posix``'s, and its
    entry in ``os.supports_dir_fd``) gets one that reads the folder of a ``dir_fd``
    (``opened_at``), which the ``open`` audit event does not carry; ``_signal.signal``
    (what ``signal.signal`` calls) one that notes a handler the submission's code installs
    (``signalled``).
    ``watchers``: ``(opened_at, signalled)``."""
    import threading
    import weakref

    opened_at, signalled = watchers
    # signal.signal (signal.py's) looks _signal.signal up at each call: one wrapper sees both.
    signals = sys.modules.get("_signal")
    if callable(getattr(signals, "signal", None)):
        signals.signal = _installing(signals.signal, signalled)

    for name, bound in (("start_new_thread", "_start_new_thread"), ("start_new", None),
                        ("start_joinable_thread", "_start_joinable_thread")):
        original = getattr(_thread, name, None)
        if original is None:
            continue
        wrapper = _starting(original, carried)
        setattr(_thread, name, wrapper)
        if bound is not None and getattr(threading, bound, None) is original:
            setattr(threading, bound, wrapper)
    base = weakref.finalize

    class finalize(base):  # weakref's own name
        __doc__ = base.__doc__
        __slots__ = ()

        def __init__(self, obj, func, /, *args, **kwargs):
            with contextlib.suppress(Exception):
                func = carried(func)
            base.__init__(self, obj, func, *args, **kwargs)

    finalize.__module__, finalize.__qualname__ = base.__module__, base.__qualname__
    weakref.finalize = finalize
    original_open, fspath = os.open, os.fspath

    def open_(*args, **kwargs):
        dir_fd = kwargs.get("dir_fd")
        if dir_fd is not None:
            # The path as os.open reads it, asked once: what is judged is what is opened.
            if args:
                args = (fspath(args[0]), *args[1:])
            elif "path" in kwargs:
                kwargs["path"] = fspath(kwargs["path"])
            with contextlib.suppress(Exception):
                opened_at(args[0] if args else kwargs.get("path"), dir_fd)
        return original_open(*args, **kwargs)

    open_.__name__, open_.__qualname__, open_.__doc__ = "open", "open", original_open.__doc__
    posix = sys.modules.get(os.name)
    for module in (_OS_MODULE, posix):
        if getattr(module, "open", None) is original_open:
            module.open = open_
    supports = getattr(os, "supports_dir_fd", None)
    if isinstance(supports, set) and original_open in supports:
        supports.discard(original_open)
        supports.add(open_)
    done = []

    def late():
        """An event loop's callbacks (``loop.call_soon(box.extend, map(Path.read_text,
        paths))`` runs inside the loop the tests run, with no frame of the submission's
        suspended coroutine on the stack) carry the submission's line that scheduled them:
        ``asyncio.events.Handle`` (what every ``call_soon``, ``call_later`` and future
        callback makes) once asyncio is imported (checked at collection end and before each
        test's setup and call: the plugin does not import asyncio itself)."""
        if done:
            return
        events = _module("asyncio.events")
        handle = getattr(events, "Handle", None)
        if not isinstance(handle, type):
            return
        done.append(True)
        init = handle.__init__

        def __init__(self, callback, *args, **kwargs):
            # Not contextlib.suppress: every callback of the loop comes here.
            try:  # noqa: SIM105
                callback = carried(callback, handed=False)
            except Exception:
                pass
            init(self, callback, *args, **kwargs)

        __init__.__qualname__, __init__.__doc__ = init.__qualname__, init.__doc__
        handle.__init__ = __init__

    late()
    return late


def _installing(install, signalled):
    """``signal.signal`` noting the handler it installs."""

    def signal(signalnum, handler):
        with contextlib.suppress(Exception):
            signalled(handler)
        return install(signalnum, handler)

    signal.__doc__ = install.__doc__
    return signal


def _starting(start, carried):
    """``start`` (a function of ``_thread`` starting a thread with a function) handing the
    thread the submission's line that started it."""

    def wrapper(function, *args, **kwargs):
        with contextlib.suppress(Exception):
            function = carried(function)
        return start(function, *args, **kwargs)

    wrapper.__name__, wrapper.__doc__ = start.__name__, start.__doc__
    return wrapper


def _plain_list(value):
    """``value`` (a sequence handed to ``_posixsubprocess.fork_exec``) as a plain list, read
    once; ``None`` as it is."""
    if value is None:
        return None
    kind = type(value)
    if issubclass(kind, list):
        return list.__getitem__(value, slice(None))
    if issubclass(kind, tuple):
        return [*tuple.__getitem__(value, slice(None))]
    return list(value)


def _run_words(argv, executables):
    """The words of a start by ``_posixsubprocess.fork_exec``: its ``argv`` with the program
    it runs first, one of ``executables`` (the paths it tries) when that is another program
    than ``argv`` names (``[b"/bin/sh"]`` running ``[sys.executable, "-c", "cat ..."]`` was
    judged as a Python)."""
    words = list(argv)
    named = os.path.basename(os.fsdecode(words[0])) if words and isinstance(
        words[0], (str, bytes)) else None
    for program in executables:
        if isinstance(program, (str, bytes)) and os.path.basename(os.fsdecode(program)) != named:
            return [program, *words[1:]]
    return words


def _marking(function, started, mark, env_at, inherits=False):
    """``function`` (``os.posix_spawn``, ``os.execve``) giving the process the submission's
    code starts the start site in its environment (see :data:`ORIGIN_VARIABLE`);
    ``inherits``: ``None`` for the environment means the inherited one, marked as a mapping."""

    def wrapper(*args, **kwargs):
        if len(args) == env_at and "env" in kwargs:  # os.execve(path, argv, env=...)
            args, kwargs = (*args, kwargs.pop("env")), kwargs
        where = None
        if len(args) > env_at:
            with contextlib.suppress(Exception):
                where = started([args[0], *list(args[1])[1:64]], args[env_at])
            # None where the function refuses it: left for it to refuse, as it would.
            if where is not None and (inherits or args[env_at] is not None):
                env = mark(args[env_at], where)
                if args[env_at] is None and type(env) is list:
                    env = dict(entry.split(b"=", 1) for entry in env)
                args = (*args[:env_at], env, *args[env_at + 1:])
        return function(*args, **kwargs)

    wrapper.__name__, wrapper.__doc__, wrapper.__wrapped__ = (
        function.__name__, function.__doc__, function)
    return wrapper


def _marking_system(system, started, mark):
    """``os.system`` whose shell, started by the submission's code, inherits the start site
    (set in this process's environment for the length of the call)."""

    def wrapper(command):
        where = None
        with contextlib.suppress(Exception):
            where = started(["/bin/sh", "-c", command])
        if where is None:
            return system(command)
        before = os.environ.get(ORIGIN_VARIABLE)
        os.environ[ORIGIN_VARIABLE] = where[0] + ":" + str(where[1] or 0)
        try:
            return system(command)
        finally:
            if before is None:
                os.environ.pop(ORIGIN_VARIABLE, None)
            else:
                os.environ[ORIGIN_VARIABLE] = before

    wrapper.__name__, wrapper.__doc__, wrapper.__wrapped__ = "system", system.__doc__, system
    return wrapper


def _build_verifier(tamper, review, repo, changed):
    """What makes sure the tests that run are the protected tests: every collected test's
    function (and each function it wraps) runs a code object compiled from the bytes of
    the file it names, its globals are its module's, the names its module imports still
    hold what they imported, and no import hook of the submission's code was installed.

    Everything it uses is bound here, at load (the same reasoning as :func:`_build_guard`).
    """
    import ast as _ast

    try:
        from _pytest.assertion.rewrite import rewrite_asserts
    except ImportError:  # a pytest without assertion rewriting: plain compiles only
        rewrite_asserts = None
    compile_, open_, parse = compile, open, _ast.parse
    isfile, realpath, getattr_, type_ = os.path.isfile, os.path.realpath, getattr, type
    code_type, module_type = types.CodeType, types.ModuleType
    trusted = _trusted_dirs()
    path_text = _path_reader()[0]
    pytest_module = sys.modules.get("pytest")
    pytest_names = dict(vars(pytest_module)) if pytest_module is not None else {}
    loaded = dict(sys.modules)
    hooks_at_load = (list(sys.meta_path), list(sys.path_hooks))
    compiled = {}
    imports = {}  # id(module dict) -> [(dict, name, expected object, what)]

    def all_codes(top):
        found, stack = set(), [top]
        while stack:
            code = stack.pop()
            found.add(code)
            stack.extend(c for c in code.co_consts if type_(c) is code_type)
        return found

    def compiled_from(path, code, config):
        """Whether ``code`` is compiled from ``path``'s bytes, plainly or (tried only when
        the plain compile lacks it) with pytest's assertion rewriting; ``None`` when the file
        cannot be read or compiled."""
        entry = compiled.get(path)
        if entry is None:
            try:
                with open_(path, "rb") as handle:
                    source = handle.read()
                entry = compiled[path] = [source, all_codes(
                    compile_(source, path, "exec", dont_inherit=True)), None]
            except (OSError, SyntaxError, ValueError, TypeError):
                compiled[path] = entry = [None, None, None]
        if entry[1] is None:
            return None
        if code in entry[1]:
            return True
        if entry[2] is None:
            entry[2] = set()
            if rewrite_asserts is not None:
                try:
                    tree = parse(entry[0], filename=path)
                    rewrite_asserts(tree, entry[0], path, config)
                    entry[2] = all_codes(compile_(tree, path, "exec", dont_inherit=True))
                except Exception:
                    pass
        return code in entry[2]

    def own(path):
        """Whether ``path`` is a file of the submission (relative to the repository)."""
        if path.startswith(repo + os.sep):
            return path[len(repo) + 1:] in changed
        return path in changed

    def problem(item, config):
        """Why ``item`` does not run the protected test it names: ``(True, why)`` when it
        surely does not (tampering), ``(False, why)`` when it runs through a wrapper the
        verifier cannot vouch for but still reaches the file's own code (a review: a
        library such as hypothesis builds such wrappers), or ``None``."""
        obj = vars(item).get("_obj")
        if obj is None:
            return None
        function = getattr_(obj, "__func__", obj)
        given = getattr_(item, "path", None) or getattr_(item, "fspath", "")
        # pathlib's own code asked for the text on 3.12+ runs sys.intern as it is now.
        test_file = realpath(path_text(given) or str(given))
        if own(test_file):
            return None  # a test the submission added: not one the verdict rests on
        module = getattr_(item, "module", None)
        doubt = None
        depth = 0
        while function is not None and depth < 12:
            depth += 1
            code = getattr_(function, "__code__", None)
            if type_(code) is not code_type:
                return None  # a callable object: nothing of it claims to be the file's
            name = code.co_filename
            path = realpath(name) if name and not name.startswith("<") else name
            namespace = getattr_(function, "__globals__", None) or {}
            globals_file = str(namespace.get("__file__") or "")
            if own(path) or (globals_file and own(realpath(globals_file))):
                return True, "it runs code of the submission (" + name + ")"
            verdict = (compiled_from(path, code, config)
                       if not path.startswith("<") and isfile(path) else None)
            verified = verdict is True
            if path == test_file and verified:
                if module is not None and namespace is not vars(module):
                    return True, "its function runs with globals that are not its module's"
                return None if doubt is None else (False, doubt)
            if path == test_file:
                doubt = doubt or ("it runs through a function claiming its file whose code is "
                                  "not compiled from the file's bytes")
            elif verdict is False:
                return True, "it runs code that is not compiled from the bytes of " + name
            elif verdict is None and not path.startswith(trusted):
                doubt = doubt or ("it runs through code compiled at run time or from outside "
                                  "the installed packages (" + name + ")")
            inner = getattr_(function, "__wrapped__", None)
            if inner is None:  # hypothesis keeps the test it wraps here
                inner = getattr_(getattr_(function, "hypothesis", None), "inner_test", None)
            function = inner
        if doubt is not None:
            return True, doubt + ", and never reaches the test's own code"
        return None

    def record_imports(module):
        """The names a test module imports from pytest, with what they held when the
        plugin loaded."""
        namespace = vars(module)
        if id(namespace) in imports:
            return
        entries = imports[id(namespace)] = []
        path = str(getattr_(module, "__file__", "") or "")
        try:
            with open_(path, "rb") as handle:
                tree = parse(handle.read())
        except (OSError, SyntaxError, ValueError):
            return
        for node in tree.body:
            # Only what pytest provides: libraries swap other names honestly (freezegun
            # replaces every module's `datetime`), none swaps a test module's pytest.
            if isinstance(node, _ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] not in ("pytest", "_pytest"):
                        continue
                    top = alias.name.split(".")[0]
                    bound = alias.asname or top
                    target = alias.name if alias.asname else top
                    expected = loaded.get(target, _module(target))
                    if expected is not None and not _from_repo_module(expected, repo):
                        entries.append((namespace, bound, expected, target))
            elif isinstance(node, _ast.ImportFrom) and node.module and not node.level:
                if node.module.split(".")[0] not in ("pytest", "_pytest"):
                    continue
                source = loaded.get(node.module, _module(node.module))
                if source is None or _from_repo_module(source, repo):
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    if node.module == "pytest" and alias.name in pytest_names:
                        expected = pytest_names[alias.name]
                    else:
                        expected = getattr_(source, alias.name, None)
                    if expected is not None:
                        entries.append((namespace, alias.asname or alias.name, expected,
                                        node.module + "." + alias.name))

    def swapped_imports(module):
        """The names of ``module``'s imports that no longer hold what they imported."""
        entries = imports.get(id(vars(module)), ())
        return [what for namespace, name, expected, what in entries
                if namespace.get(name) is not expected]

    def verify(items, config):
        for item in items:
            found = problem(item, config)
            if found is not None and found[0]:
                tamper("the test " + item.nodeid + " is not the protected test: " + found[1])
            elif found is not None:
                where = str(getattr_(item, "path", "") or "")
                where = where[len(repo) + 1:] if where.startswith(repo + os.sep) else where
                review((where, None), "the test " + item.nodeid + " may not be the protected "
                       "test: " + found[1], "test_replaced")
            module = getattr_(item, "module", None)
            if isinstance(module, module_type):
                record_imports(module)
                check_imports(item, "collection")
        check_hooks("collection finish")

    def check_imports(item, when):
        module = getattr_(item, "module", None)
        if not isinstance(module, module_type):
            return
        swapped = swapped_imports(module)
        if swapped:
            tamper("names the test module " + str(module.__name__) + " imported were replaced ("
                   + ", ".join(swapped[:3]) + ", seen at " + when + " of " + item.nodeid + ")")
        named, odd = _module_and_odd_keys("pytest")
        if named is not pytest_module:
            tamper("sys.modules['pytest'] was replaced (seen at " + when + ")")
        if odd:
            tamper("sys.modules holds a key of a str subclass (" + ", ".join(odd[:3])
                   + "): an import of a name it compares equal to gets its module, which the "
                   "guard's lookups by plain names do not see (seen at " + when + ")")

    def check_hooks(when):
        for now, before, label in ((sys.meta_path, hooks_at_load[0], "sys.meta_path"),
                                   (sys.path_hooks, hooks_at_load[1], "sys.path_hooks")):
            for entry in list(now):
                if any(entry is old for old in before):
                    continue
                holder = entry if isinstance(entry, type_) else type_(entry)
                functions = [entry] + [getattr_(v, "__func__", v)
                                       for v in vars(holder).values()]
                for function in functions:
                    code = getattr_(function, "__code__", None)
                    if type_(code) is not code_type:
                        continue
                    name = code.co_filename
                    path = realpath(name) if not name.startswith("<") else name
                    if own(path) or name.startswith("<") or not isfile(path):
                        tamper("an import hook of the submission's code is in " + label
                               + " (" + name + ", seen at " + when + "): it can hand the tests "
                               "stand-ins")
                        break

    return verify, check_imports, check_hooks


def _build_probes(review, repo, changed, added):
    """What the tests compare with and import, checked by its effect (code written to look
    ordinary passes the static checks): a class of the submission whose instances compare
    equal to an object they cannot equal (an always-equal object satisfies any ``assert x ==
    expected``, whatever its ``__eq__`` spells); a module the patch adds that shadows one of
    the standard library or of the installed packages, and a function of such a module that
    a test reads replaced by the submission's (a test's ``statistics.quantiles``, computing
    its expected values, would be the submission's). All are review flags.

    Bound at load like the rest of the guard. A class is probed once, with an instance made
    by a built-in ``__new__`` (never the submission's own, which may keep state, nor for a
    class with a finaliser) or, failing that, its Python ``__eq__`` called on a stand-in."""
    import ast
    import functools
    from importlib.machinery import PathFinder

    find_spec, realpath, sep = PathFinder.find_spec, os.path.realpath, os.sep
    getattr_, vars_, isinstance_, type_ = getattr, vars, isinstance, type
    subclasses, qualname = type.__subclasses__, vars(type)["__qualname__"].__get__
    function_type, builtin_type = types.FunctionType, types.BuiltinFunctionType
    stdlib = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(
        sys.builtin_module_names)
    ref, open_, parse = weakref.ref, open, ast.parse
    # sys.modules with its plain str keys alone, copied at each probe (see _str_keyed).
    named = [{}]
    method_types = (types.MethodType, functools.partial)
    probed, files, uses = {}, {}, {}  # probed: id -> a weak reference (keeps nothing alive)
    import builtins

    # The built-in names as they were at load (before any code of the repository ran).
    builtin_names = vars(builtins)
    builtins_at_load = dict(builtin_names)
    builtins_told = set()

    def seen(thing):
        known = probed.get(id(thing))
        if known is not None and known() is thing:
            return True
        try:
            probed[id(thing)] = ref(thing)
        except TypeError:  # no weak reference to it: kept, so its id is not reused
            probed[id(thing)] = (lambda: thing)
        return False

    class _Unrelated:
        """Equal to nothing but itself."""

    # Values an instance made by a built-in __new__ (0, "", b"", no attribute) never equals.
    others = (_Unrelated(), 104729, 0.5172, 3j, "\0arena probe", b"\0arena probe",
              (_Unrelated(),), [_Unrelated()], {"\0arena probe": _Unrelated()})

    def relative(path):
        """``path`` relative to the repository, or ``None`` outside it (memoised)."""
        if type_(path) is not str:
            return None
        found = files.get(path, sep)
        if found is sep:
            real = realpath(path)
            found = files[path] = (real[len(repo) + 1:] if real.startswith(repo + sep)
                                   else "" if real == repo else None)
        return found

    def shadowed():
        for name, module in list(named[0].items()):
            if "." in name or seen(module):
                continue
            where = relative(getattr_(module, "__file__", None))
            if where not in added:
                continue
            outside = [p for p in sys.path if relative(p) is None]
            try:
                elsewhere = name in stdlib or find_spec(name, outside) is not None
            except Exception:
                elsewhere = True
            if elsewhere:
                review((where, None), "the patch adds a module " + name + " that shadows the "
                       "one of the standard library or the installed packages: code importing "
                       + name + " (the tests too) runs this file", "shadowed_module")

    def own(cls):
        """Where ``cls`` is the submission's: its module's file, or its __eq__'s."""
        function = vars_(cls).get("__eq__")
        code = getattr_(function, "__code__", None)
        if code is not None and relative(code.co_filename) in changed:
            return relative(code.co_filename), code.co_firstlineno
        name = getattr_(cls, "__module__", None)
        module = named[0].get(name) if type_(name) is str else None
        where = relative(getattr_(module, "__file__", None))
        return (where, None) if where in changed else None

    def lenient(cls):
        """Whether instances of ``cls`` equal what they cannot equal."""
        try:
            # No instance of a class with a finaliser: its __del__ would run uninitialised.
            maker = None if hasattr(cls, "__del__") else getattr_(cls, "__new__")
            instance = maker(cls) if isinstance_(maker, builtin_type) else None
        except Exception:
            instance = None
        function = vars_(cls).get("__eq__")
        if instance is None and not isinstance_(function, function_type):
            return False
        for other in others:
            try:
                result = (instance == other if instance is not None
                          else function(_Unrelated(), other))
                if result is not NotImplemented and result is not False and bool(result):
                    return True
            except Exception:
                continue
        return False

    def submitted(value):
        """Where ``value`` (a function, method, partial or class) is the submission's code."""
        if isinstance_(value, method_types):
            value = value.__func__ if hasattr(value, "__func__") else value.func
        if isinstance_(value, type_):
            return own(value)
        code = value.__code__ if isinstance_(value, function_type) else None
        where = relative(code.co_filename) if code is not None else None
        return (where, code.co_firstlineno) if where in changed else None

    def used(module):
        """What test ``module`` reads from the modules it imports, parsed once: (module name,
        name in it, name bound in the test module for ``from ... import``, else ``None``)."""
        found = uses.get(id(module))
        if found is None:
            found = uses[id(module)] = []
            try:
                with open_(str(getattr_(module, "__file__", ""))) as handle:
                    tree = parse(handle.read())
            except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
                return found
            names = {}
            for node in tree.body:
                if isinstance_(node, ast.Import):
                    for alias in node.names:
                        names[alias.asname or alias.name.split(".")[0]] = (
                            alias.name if alias.asname else alias.name.split(".")[0])
                elif isinstance_(node, ast.ImportFrom) and node.module and not node.level:
                    found.extend((node.module, alias.name, alias.asname or alias.name)
                                 for alias in node.names if alias.name != "*")
            found.extend({(names[node.value.id], node.attr, None) for node in ast.walk(tree)
                          if isinstance_(node, ast.Attribute) and isinstance_(node.value, ast.Name)
                          and node.value.id in names})
        return found

    def patched(module):
        """What test ``module`` reads from modules outside the repository (``statistics.
        quantiles``, ``from statistics import quantiles``) that is the submission's code."""
        namespace = vars_(module)
        for name, key, bound in used(module):
            source = named[0].get(name) if type_(name) is str else None
            try:
                if source is None or relative(getattr_(source, "__file__", None)) is not None:
                    continue
                where = (submitted(vars_(source).get(key))
                         or (submitted(namespace.get(bound)) if bound else None))
            except Exception:  # what cannot be looked at is not vouched for
                where = (name, None)
            if where is not None:
                review(where, "the tests use " + name + "." + key + " from outside the "
                       "repository, and it is the submission's code (what the tests compute "
                       "expected values with is the submission's)", "patched_module")

    def the_tests(value):
        """Whether ``value`` (a replacement of a built-in name) is the tests' own: code of a
        test file, or a ``unittest.mock`` object (``monkeypatch.setattr("builtins.open",
        mock_open())``)."""
        if isinstance_(value, method_types):
            value = value.__func__ if hasattr(value, "__func__") else value.func
        code = getattr_(value, "__code__", None) if isinstance_(value, function_type) else None
        if code is not None:
            return _is_test_source(realpath(code.co_filename), repo, changed)
        kind = value if isinstance_(value, type_) else type_(value)
        name = str(getattr_(kind, "__module__", "") or "")
        module = named[0].get(name)
        return name.startswith("unittest.mock") or _is_test_source(
            realpath(str(getattr_(module, "__file__", "") or "")), repo, changed)

    def builtins_replaced():
        """Built-in names the tests call (``all``, ``len``, ``isinstance``) replaced while
        they run: through ``vars(len.__self__)`` or ``globals()["__builtins__"]`` no audit
        event and no static rule sees it, and ``all = operator.truth`` passes every ``assert
        all(...)``. The submission's code in their place is flagged at its line; anything
        else not the tests' own (a function of the standard library) as the built-in's."""
        for key, value in list(builtin_names.items()):
            before = builtins_at_load.get(key, builtin_names)
            if before is builtin_names or value is before or key in builtins_told:
                continue
            try:
                where = submitted(value) or (None if the_tests(value) else ("builtins", None))
            except Exception:
                where = ("builtins", None)
            if where is not None:
                builtins_told.add(key)
                review(where, "the built-in " + key + " was replaced while the tests ran (the "
                       "tests' own calls of it, asserts among them, run the replacement)",
                       "builtins")

    def probe(module=None):
        if not changed:
            return
        named[0] = _str_keyed()
        shadowed()
        builtins_replaced()
        if module is not None:
            patched(module)
        stack, walked = [object], set()
        while stack:
            for cls in subclasses(stack.pop()):
                if id(cls) in walked:
                    continue
                walked.add(id(cls))
                stack.append(cls)
                if seen(cls):
                    continue
                where, label = None, "?"
                try:
                    where = own(cls)
                    found = where is not None and lenient(cls)
                    label = str(qualname(cls))
                except Exception:  # a class that cannot even be looked at is not vouched for
                    found = where is not None
                if found:
                    review(where, "instances of " + label + " compare equal to an unrelated "
                           "object (an always-equal object satisfies any assert)", "always_equal")

    return probe


def _trusted_dirs():
    """Folders of the interpreter's standard library and installed packages."""
    import sysconfig

    paths = sysconfig.get_paths()
    dirs = {os.path.realpath(paths[key]) + os.sep for key in (
        "stdlib", "platstdlib", "purelib", "platlib") if paths.get(key)}
    return tuple(dirs.union(_package_dirs())) or (os.sep + "usr" + os.sep,)


def _from_repo_module(module, repo):
    path = str(getattr(module, "__file__", "") or "")
    return os.path.realpath(path).startswith(repo + os.sep) if path else False


def _listed():
    """The harness's ``changed.json`` (``{}`` when it wrote none)."""
    try:
        with open(CHANGED_FILES, encoding="utf-8") as handle:
            listed = json.load(handle)
    except (OSError, ValueError):
        return {}
    return listed if isinstance(listed, dict) else {}


def _cwd():
    """The folder pytest started in (a sub-project of a monorepo, or the root)."""
    return os.path.realpath(os.getcwd())


def _read_root(listed):
    """The repository's root, the folder the changed files' paths are relative to: the
    harness names it (``root``), since a test command may start pytest in a sub-project
    (``cd pkg-core && python -m pytest``) while the patch's paths start at the root. It sits
    in the root-owned ``/arena``, so nothing in the patch or the repository can move it.
    Without it (a run the harness did not list), the working directory. ``listed``: the
    harness's list (:func:`_listed`)."""
    root = listed.get("root")
    if isinstance(root, str) and os.path.isabs(root) and os.path.isdir(root):
        return os.path.realpath(root)
    return _cwd()


def _read_changed(listed, key="changed", root=None):
    """The submission's changed (or, with ``key="added"``, newly added) files (relative to
    the repository's root) in the harness's list (:func:`_listed`); none when the harness
    wrote no list (the dataset check's bare runs)."""
    names = listed.get(key, ())
    files = _Files(name for name in (names if isinstance(names, list) else ())
                   if isinstance(name, str))
    if key == "changed":
        files.exact = _added_lines(listed.get("lines"), root or _cwd())
    return files


def _added_lines(listed, root):
    """The lines each changed file gained, as ``{path: frozenset(line numbers)}``, for the
    files whose lines on disk are the ones the patch added (each line's digest checked: a
    3-way apply or a hunk header that lies moves them, and then the whole file counts)."""
    import hashlib

    exact = {}
    for path, lines in (listed.items() if isinstance(listed, dict) else ()):
        try:
            with open(os.path.join(root, path), "rb") as handle:
                text = handle.read().split(b"\n")
            if all(hashlib.sha1(text[number - 1].rstrip(b"\r")).hexdigest()[:12] == digest
                   for number, digest in lines):
                exact[path] = frozenset(number for number, _ in lines)
        except (OSError, TypeError, ValueError, IndexError):
            continue
    return exact


class _Files(frozenset):  # type: ignore[type-arg]  # (frozenset[str] needs Python 3.9)
    """Repository-relative paths of the patch's files. A path inside one of them is the
    patch's too: ``zipimport`` runs a module of a zip archive the patch adds, compiled under
    the name ``archive.zip/module.py``, which no file of the repository has."""

    exact = types.MappingProxyType({})  # type: ignore[var-annotated]  # see _read_changed

    def __contains__(self, path, has=frozenset.__contains__):
        while type(path) is str and path:
            if has(self, path):
                return True
            path = path.rpartition("/")[0]
        return False

    def at(self, path, line):
        """Whether line ``line`` of ``path`` is the submission's: a line the patch added, or
        any line of a file it added or whose added lines are not known."""
        lines = self.exact.get(path)
        return path in self and (lines is None or line in lines)


def _is_test_source(path, repo, changed):
    """Whether ``path`` is a test module of the repository the submission did not write
    (``test_*.py``, ``*_test.py`` or ``conftest.py``)."""
    if not path.startswith(repo + os.sep) or not path.endswith(".py"):
        return False
    relative = path[len(repo) + 1:]
    name = os.path.basename(relative)
    return relative not in changed and (name.startswith("test_") or name.endswith("_test.py")
                                        or name == "conftest.py")


def _dir_fd_test(path, args):
    """Whether an open of a relative name (``path``: joined to the current folder, where
    no file is; ``args``: the ``open`` event's) reads a file named as a test module:
    ``os.open(name, dir_fd=fd)`` opens it in the folder of a descriptor the event does not
    carry, so the guard cannot tell which folder that is (the current folder moved out of
    the repository first). Opening a missing file of that name to read it is no honest
    need either."""
    name = os.path.basename(path)
    if not ((name.startswith("test_") and name.endswith(".py")) or name.endswith("_test.py")
            or name == "conftest.py") or os.path.lexists(path):
        return False
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
    if isinstance(mode, str):
        return not any(letter in mode for letter in "wax+")
    return flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) == 0


def _at(where):
    return str(where[0]) + ":" + str(where[1])


def _watched(name):
    return name in _WATCHED_NAMES or name.startswith(_WATCHED_PREFIXES)


#: Modules on the path of every test's report: checked at every report (the others at
#: configure, collection end, every FULL_CHECK_EVERY reports and session end).
_HOT_MODULES = frozenset({
    "_pytest.runner", "_pytest.reports", "_pytest.python", "_pytest.main", "_pytest.nodes",
    "_pytest.outcomes", "_pytest.skipping", "_pytest.unittest", "_pytest.junitxml",
    "_pytest.terminal", "_pytest.fixtures", "_pytest.logging", "_pytest.capture",
    "pluggy._callers", "pluggy._hooks", "pluggy._manager", "pluggy._result", "pluggy.callers",
    "pluggy.hooks", "pluggy.manager", "json", "json.encoder", __name__,
    # What the tests' own assertions call (``pytest.approx`` and its classes).
    "pytest", "_pytest.python_api",
})
#: Classes of those modules that every report goes through (other classes: full checks).
_HOT_CLASSES = frozenset({
    "TestReport", "BaseReport", "CallInfo", "Function", "Item", "Node", "Session",
    "HookCaller", "_HookCaller", "HookImpl", "Result", "_Result", "PluginManager",
    "LogXML", "_NodeReporter", "TerminalReporter", "JSONEncoder", "FixtureRequest",
    "SubRequest", "FixtureDef", "ApproxBase", "ApproxScalar", "ApproxDecimal", "ApproxMapping",
    "ApproxSequenceLike", "ApproxNumpy", "RaisesContext",
})
#: Hooks on the path of every test's report (their implementations checked at each report).
_HOT_HOOKS = ("pytest_runtest_protocol", "pytest_runtest_makereport",
              "pytest_runtest_logreport", "pytest_runtest_call", "pytest_runtest_setup",
              "pytest_runtest_teardown", "pytest_pyfunc_call", "pytest_report_teststatus")
FULL_CHECK_EVERY = 50


class _Group:
    """One namespace (a module's or a class's dict, a live view) and the objects it held,
    compared by identity in C (``map``), so a check of thousands costs well under a ms."""

    __slots__ = ("hot", "keys", "label", "mapping", "values")

    def __init__(self, label, mapping, items, hot):
        self.label, self.mapping, self.hot = label, mapping, hot
        self.keys = tuple(key for key, _ in items)
        self.values = tuple(value for _, value in items)

    def changed(self, is_not=operator.is_not):
        if not any(map(is_not, map(self.mapping.get, self.keys), self.values)):
            return []
        return [self.label + "." + key for index, key in enumerate(self.keys)
                if self.mapping.get(key) is not self.values[index]]


_KINDS = (types.FunctionType, types.BuiltinFunctionType, type, classmethod, staticmethod,
          property)


def _snapshot():
    """Every function and class of the watched modules, and each watched class's methods,
    as :class:`_Group` records; compared by identity later."""
    groups = []
    for name, module in list(sys.modules.items()):
        if module is None or not _watched(name):
            continue
        hot = name in _HOT_MODULES
        namespace = vars(module)
        # this plugin's every name (its tables too: rebinding one is an attack on it)
        items = [(key, value) for key, value in list(namespace.items())
                 if name == __name__ or isinstance(value, _KINDS)]
        groups.append(_Group(name, namespace, items, hot))
        for key, value in items:
            if isinstance(value, type) and getattr(value, "__module__", None) == name:
                members = [(attribute, member) for attribute, member in
                           list(vars(value).items()) if isinstance(member, _KINDS)]
                groups.append(_Group(name + "." + key, vars(value), members,
                                     hot and key in _HOT_CLASSES))
    return groups


def _pytest_dirs():
    """The folders of pytest, _pytest and pluggy and the installed packages (third-party
    pytest plugins that the task's configuration loads): code there is not the submission's.
    """
    paths = [getattr(sys.modules.get(name), "__file__", None)
             for name in ("pytest", "_pytest", "pluggy")]
    dirs = [os.path.dirname(os.path.realpath(path)) + os.sep for path in paths if path]
    return tuple(dirs + _package_dirs())


def _package_dirs():
    return [os.path.realpath(entry) + os.sep for entry in sys.path
            if entry.endswith(("site-packages", "dist-packages"))]


def _rebaseline(groups, trusted):
    """Accept the replacements pytest itself (``legacypath`` patches ``Config`` and
    friends) and installed plugins make while pytest configures; return the labels of all
    other replacements."""
    foreign = []
    for group in groups:
        values = list(group.values)
        for index, key in enumerate(group.keys):
            now = group.mapping.get(key)
            if now is values[index]:
                continue
            function = getattr(now, "__func__", None) or getattr(now, "fget", None) or now
            code = getattr(function, "__code__", None)
            if code is not None and code.co_filename.startswith(trusted):
                values[index] = now
            else:
                foreign.append(group.label + "." + key)
        group.values = tuple(values)
    return foreign


def _hooks(emit, tamper, origin, snapshot, repo, verifier):
    """The plugin's hook functions, closed over the guard (never module globals: replacing
    ``arena_stream._emit`` later changes nothing the registered hooks use). Long for the same
    reason as :func:`_build_guard`: every hook must be a closure created here."""
    from pytest import hookimpl  # pytest loads this plugin: it is imported already

    verify, check_imports, check_hooks, probe, late, anchor = verifier
    # The report the harness reads ($ARENA_JUNIT, as the test command was started) and
    # whether this run writes it (pytest's --junitxml, read when pytest is configured).
    report_path = os.environ.get("ARENA_JUNIT") or ""
    writes_report = [False]
    realpath, expandvars = os.path.realpath, os.path.expandvars
    plugins = {}
    impls = {}
    ran = set()
    raised = {}
    manager_box = []
    reports = [0]
    collected = {}

    def check(when, full=True):
        """Compare the snapshot and the hook implementations with what was approved
        (``full=False``: only what every report goes through)."""
        replaced = [label for group in snapshot if full or group.hot
                    for label in group.changed()]
        if replaced:
            tamper("pytest internals were replaced during the run (" + ", ".join(replaced[:3])
                   + ", seen at " + when + ")")
        if not manager_box:
            return
        manager = manager_box[0]
        for plugin in manager.get_plugins():
            if id(plugin) not in plugins:
                tamper("a pytest plugin was registered without pytest's notification (seen "
                       "at " + when + ")")
                plugins[id(plugin)] = plugin
        relay = vars(manager.hook)
        callers = list(relay.values()) if full else [relay.get(name) for name in _HOT_HOOKS]
        for hook_caller in callers:
            get = getattr(hook_caller, "get_hookimpls", None)
            if get is None:
                continue
            for impl in get():
                known = impls.get(id(impl))
                if known is None:
                    impls[id(impl)] = (impl, impl.function)
                elif known[1] is not impl.function:
                    tamper("the function of a registered pytest hook was replaced ("
                           + str(getattr(impl, "plugin_name", "?")) + ", seen at " + when
                           + ")")

    def pytest_plugin_registered(plugin, manager):
        if not manager_box:
            manager_box.append(manager)
        plugins[id(plugin)] = plugin
        where = origin(2)
        if where is not None:
            tamper("a pytest plugin was registered by the submission's code ("
                   + _at(where) + ")")

    @hookimpl(trylast=True)
    def pytest_configure(config):
        # Between load and now only pytest's own plugins and the task's (protected)
        # conftest files ran: pytest's own patches are accepted, anything else is not.
        foreign = _rebaseline(snapshot, _pytest_dirs())
        if foreign:
            tamper("pytest internals were replaced before the tests were configured ("
                   + ", ".join(foreign[:3]) + ")")
        check("configure")
        if writes_report[1:]:
            return  # a run of pytest inside this one (pytester's inline runs): not the report's
        target = getattr(config.option, "xmlpath", None)
        writes_report[0] = bool(report_path and target and realpath(
            expandvars(str(target))) == realpath(report_path))
        writes_report.append(config)

    def pytest_collection_finish(session):
        late()
        for item in getattr(session, "items", ()):
            # What each test runs, as collected (compared again when it is called).
            collected[id(item)] = (item, _function_of(vars(item).get("_obj")))
        check("collection finish")
        verify(getattr(session, "items", ()), session.config)
        for module in {id(m): m for m in (getattr(i, "module", None) for i in getattr(
                session, "items", ())) if isinstance(m, types.ModuleType)}.values():
            probe(module)

    def replaced_test(item):
        """Why ``item`` no longer runs the test it was collected with, or ``None``."""
        if "runtest" in vars(item):
            return "its runtest method was replaced on the item"
        known = collected.get(id(item))
        if known is not None and known[1] is not None and (
                _function_of(vars(item).get("_obj")) is not known[1]):
            return "its test function was replaced after collection"
        return None

    def phase_wrapper(when):
        """An innermost hookwrapper recording whether the phase itself raised."""

        @hookimpl(hookwrapper=True, trylast=True)
        def wrapper(item):
            key = (item.nodeid, when)
            ran.add(key)
            late()
            anchor()  # pluggy's frame calling the phase's hooks
            if when == "call":
                why = replaced_test(item)
                if why is not None:
                    tamper("the test " + item.nodeid + " was swapped before its call: " + why)
                check_imports(item, "the call")
            outcome = yield
            anchor(on=False)
            if when == "call":
                check_imports(item, "the end of the call")
                module = getattr(item, "module", None)
                probe(module if isinstance(module, types.ModuleType) else None)
            excinfo = getattr(outcome, "excinfo", None)
            failed = excinfo is not None and not _is_skip(excinfo[1])
            # unittest.TestCase failures are collected into item._excinfo, not raised.
            if when == "call" and getattr(item, "_excinfo", None):
                failed = True
            raised[key] = failed

        return wrapper

    @hookimpl(tryfirst=True)
    def pytest_runtest_logreport(report):
        nodeid, when, outcome = str(report.nodeid), str(report.when), str(report.outcome)
        key = (nodeid, when)
        if outcome == "passed":
            if raised.get(key):
                tamper("the report of " + nodeid + " (" + when + ") says passed, but the "
                       "test raised: the outcome was forged in-process")
            elif when == "call" and key not in ran:
                tamper("the report of " + nodeid + " says passed, but its test never ran")
        if when == "call" or outcome != "passed":
            # A passed setup or teardown adds nothing the harness reads (each write to the
            # container's output costs a few hundred microseconds).
            emit({"id": nodeid, "when": when, "outcome": outcome})
        if when == "call":
            # Every test's call report (setup and teardown pass through the same code).
            reports[0] += 1
            check("report of " + nodeid, full=reports[0] % FULL_CHECK_EVERY == 0)

    def pytest_sessionfinish(session, exitstatus):
        check("session end")
        check_hooks("session end")
        probe()
        # Which run wrote the report: the harness checks the report against its outcomes
        # alone (a run printed whole by the code under test announces a nonce of its own).
        emit({"event": "end", "junit": writes_report[0]})

    return {
        "pytest_plugin_registered": pytest_plugin_registered,
        "pytest_configure": pytest_configure,
        "pytest_collection_finish": pytest_collection_finish,
        "pytest_runtest_setup": phase_wrapper("setup"),
        "pytest_runtest_call": phase_wrapper("call"),
        "pytest_runtest_teardown": phase_wrapper("teardown"),
        "pytest_runtest_logreport": pytest_runtest_logreport,
        "pytest_sessionfinish": pytest_sessionfinish,
    }


def _made_a_coroutine(old, new):
    """Whether ``new`` is the generator code ``old`` with only ``CO_ITERABLE_COROUTINE``
    added, what ``types.coroutine`` does (asyncio's ``__sleep0`` when asyncio is first
    imported): the function runs the same bytecode. Any other change is a swap."""
    try:
        return (old.co_flags & 0x20 and new.co_flags == old.co_flags | 0x100
                and new == old.replace(co_flags=new.co_flags))
    except (AttributeError, TypeError):
        return False


def _function_of(obj):
    """The function behind a test object (a method is bound anew to each test's instance)."""
    return getattr(obj, "__func__", obj)


def _is_skip(exc):
    """Whether ``exc`` is pytest's skip or xfail exception (or unittest's): not a failure."""
    names = {klass.__name__ for klass in type(exc).__mro__}
    return bool(names & {"Skipped", "XFailed", "SkipTest"})


def _from_repo(repo):
    """Modules already loaded from the repository (before any of its code should run)."""
    return sorted(
        name for name, module in list(sys.modules.items())
        if (getattr(module, "__file__", None) or "").startswith(repo + os.sep)
    )


def _gate():
    """The harness's start-up gate (``/arena/sitecustomize.py``), or ``None`` when it did not
    run in this process (``python -S``, or another ``sitecustomize`` first on the path)."""
    gate = sys.modules.get("sitecustomize")
    return gate if isinstance(getattr(gate, "ARENA_HELD", None), list) else None


def _restore_repo_path(cwd, gate):
    """The gate and ``PYTHONSAFEPATH`` kept the repository off ``sys.path`` while pytest
    started (no file of it can shadow pytest, its dependencies or this plugin); the task's
    own entries (``PYTHONPATH=src``) and, for ``python -m pytest``, the working directory
    go back where they were, which test suites rely on."""
    if gate is not None:
        for index, entry in gate.ARENA_HELD:
            sys.path.insert(min(index, len(sys.path)), entry)
        del gate.ARENA_HELD[:]
    safe = getattr(sys.flags, "safe_path", False)
    if safe and "-m" in getattr(sys, "orig_argv", []) and cwd not in sys.path:
        sys.path.insert(0, cwd)


def _watch_environment(review, repo, changed):
    """Reads of ``$PYTEST*`` variables (``PYTEST_CURRENT_TEST``: set only while a test runs)
    by the submission's code become a review: code that behaves differently under pytest is
    a defeat device. ``os.environ`` gets a subclass of its own class whose item lookup (what
    ``get``, ``in`` and ``os.getenv`` go through) notes such a read; nothing else changes."""
    environ = os.environ
    base = type(environ)
    getframe, startswith = sys._getframe, str.startswith
    from opcode import opname

    bulk_ops = {"CALL", "CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_FUNCTION_EX", "CALL_METHOD",
                "CALL_KW", "PRECALL", "DICT_UPDATE", "DICT_MERGE", "BUILD_MAP_UNPACK"}
    # (3.11 runs both frozen: their frames say "<frozen os>")
    plumbing = (os.sep + "os.py", os.sep + "_collections_abc.py", "<frozen os>",
                "<frozen _collections_abc>")

    def reader():
        frame, inner = getframe(2), None
        while frame is not None and frame.f_code.co_filename.endswith(plumbing):
            inner = inner or frame.f_code.co_name
            frame = frame.f_back
        if frame is None:
            return None
        name = frame.f_code.co_filename
        relative = name[len(repo) + 1:] if startswith(name, repo + os.sep) else name
        if not changed.at(relative, frame.f_lineno) or copied(frame, inner):
            return None
        return (relative, frame.f_lineno)

    def copied(frame, inner):
        """Whether the lookup is one of a copy of the whole environment (``os.environ.copy()``,
        ``dict(os.environ)``, ``{**os.environ}``, its items or values iterated), as code that
        starts a process makes, not a lookup of the name."""
        if inner is not None:
            return inner in ("copy", "__iter__", "__eq__")
        try:  # called from C: a subscript reads the name, a call or merge copies the whole
            return opname[frame.f_code.co_code[frame.f_lasti]] in bulk_ops
        except (IndexError, AttributeError):
            return False

    class _Environ(base):
        def __getitem__(self, key):
            if isinstance(key, str) and startswith(key.upper(), "PYTEST"):
                where = reader()
                if where is not None:
                    review(where, "reads $" + key + " (code that behaves differently under "
                           "pytest is a defeat device)", "defeat_device")
            return base.__getitem__(self, key)

    # An environ of another shape stays as it is: the static checks still read the code.
    with contextlib.suppress(TypeError):
        environ.__class__ = _Environ


def _install(public):
    """Start the guard; its hooks go into ``public``, this module's namespace (pytest reads
    them there)."""
    listed = _listed()  # read once: the root, the changed and the added files
    emit, tamper, _review, origin, audit, repo, changed, (
        started, ran_pytest, out, mark, carried, watchers, anchor) = _build_guard(listed)
    sys.addaudithook(audit)
    # Emitted at load, before any code of the repository (even a conftest.py) runs: the
    # nonce of this run is the first thing the harness reads.
    emit({"event": "start", "version": STREAM_VERSION, "python": sys.version.split()[0]})
    early = _from_repo(repo)
    if early:
        tamper("modules of the repository were imported before the harness's plugin "
               "(shadowing pytest or the standard library): " + ", ".join(early[:5]))
    gate = _gate()
    if gate is None:
        tamper("the harness's start-up gate did not run (python -S, or a sitecustomize "
               "module ahead of the harness's on the path)")
    _restore_repo_path(_cwd(), gate)
    # Where a Python started by the tests reports (the gate reads it: _install_child).
    os.environ[GUARD_VARIABLE] = str(os.getpid()) + ":" + str(out)
    _watch_environment(_review, repo, changed)
    _watch_process_starts(started, ran_pytest, mark)
    late = _watch_deferred_and_opens(carried, watchers)
    snapshot = []
    verifier = _build_verifier(tamper, _review, repo, changed)
    probe = _build_probes(_review, repo, changed, _read_changed(listed, "added"))
    hooks = _hooks(emit, tamper, origin, snapshot, repo, (*verifier, probe, late, anchor))
    public.update(hooks)
    # Taken last, so it holds this module's own hook functions too.
    snapshot.extend(_snapshot())
    return hooks


def _install_child(channel):
    """The guard in a Python process the tests' process started: a worker of
    ``multiprocessing`` (spawn, forkserver) or of a process pool, a ``python -c``. Loaded by
    the harness's start-up gate (``sitecustomize``) before anything else of the process
    runs, with ``channel`` open on the test process's stream (``/proc/<pid>/fd/<fd>`` from
    ``$ARENA_GUARD``). The same audit hook as in the test process (reads of the tests,
    process starts, code built at run time, ctypes...), and any import of pytest by the
    submission's code (it runs pytest again there); each finding is a run of its own on the
    stream. No pytest hooks: this process runs no test of the harness's."""
    site, _, line = os.environ.get(ORIGIN_VARIABLE, "").rpartition(":")
    started_by = (site, int(line) or None) if site and line.isdigit() else None
    argv = [str(word) for word in getattr(sys, "orig_argv", ())]
    if started_by is not None and _multiprocessing_start(argv) and "spawn_main" not in " ".join(
            argv):
        # multiprocessing's forkserver (and resource tracker) serves every later start of
        # the test process, the tests' own too: its children are attributed by their code.
        started_by = None
    _emit, _tamper, _review, _origin, audit, _repo, _changed, (
        started, ran_pytest, _out, mark, carried, watchers, _anchor) = _build_guard(
            _listed(), channel, started_by)
    sys.addaudithook(audit)
    _watch_process_starts(started, ran_pytest, mark)
    _watch_deferred_and_opens(carried, watchers)
    return {}


#: The os module itself, where the guard's wrappers go (``os`` in the guard's own namespace is
#: a copy of it as loaded: :func:`_sealed_os`).
_OS_MODULE = os


def _sealed_os():
    """A copy of the ``os`` module's namespace as loaded, whose ``path`` (``posixpath``) is a
    copy too, its functions (and ``genericpath``'s) run over copies of their modules'
    namespaces whose ``os`` and ``stat`` are these copies. The guard reads ``os.sep`` and
    calls ``os.path.realpath`` inside its audit hook's busy window; ``realpath`` looks up
    ``os.fspath`` and ``os.lstat`` in the ``os`` module at each call, so a function the
    submission's code put there (``os.fspath = reader``) ran there unseen and read the tests."""
    import genericpath
    import posixpath
    import stat

    copy = types.SimpleNamespace(**vars(os))
    stat_copy = types.SimpleNamespace(**vars(stat))

    def sealed(module, names, other=None):
        private = dict(vars(module), **names)
        for name, value in vars(module).items():
            if type(value) is types.FunctionType:
                if value.__globals__ is vars(module):
                    rebound = types.FunctionType(value.__code__, private, value.__name__,
                                                 value.__defaults__, value.__closure__)
                    rebound.__kwdefaults__ = value.__kwdefaults__
                    private[name] = rebound
                elif other is not None and name in vars(other):
                    private[name] = getattr(other, name)
        return types.SimpleNamespace(**private)

    generic = sealed(genericpath, {"os": copy, "stat": stat_copy})
    copy.path = sealed(posixpath, {"os": copy, "stat": stat_copy, "genericpath": generic},
                       generic)
    return copy


def _sealed(namespace):
    """This module's functions, and its classes' methods, over a private copy of its
    namespace. The guard's closures are made by them, so rebinding a name of the module from
    the code under test changes nothing they use: ``arena_stream._AUDITED = frozenset()``
    silenced the audit hook (a swap of the tests' code then passed unseen), and a helper or
    ``os`` replaced for the length of one call would escape the checks between reports."""
    private = dict(namespace)
    if os.path.__name__ == "posixpath":  # the plugin runs on POSIX; anything else as it is
        private["os"] = _sealed_os()

    def rebound(function):
        copy = types.FunctionType(function.__code__, private, function.__name__,
                                  function.__defaults__, function.__closure__)
        copy.__kwdefaults__, copy.__qualname__ = function.__kwdefaults__, function.__qualname__
        return copy

    for name, value in namespace.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is namespace:
            private[name] = rebound(value)
        elif isinstance(value, type) and value.__module__ == namespace["__name__"]:
            for attribute, member in list(vars(value).items()):
                if isinstance(member, types.FunctionType):
                    setattr(value, attribute, rebound(member))
    return private


#: Set by the start-up gate in a child process of the tests (see :func:`_install_child`).
_CHANNEL = globals().get("ARENA_CHILD_CHANNEL")
if isinstance(_CHANNEL, int):
    _HOOKS = _sealed(globals())["_install_child"](_CHANNEL)
else:
    _HOOKS = _sealed(globals())["_install"](globals())

