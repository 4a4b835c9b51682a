"""Agentic Arena bot: validate, evaluate and score AI coding tool submissions."""

from __future__ import annotations

__version__ = "0.1.0"

#: Bumped whenever a change to evaluation could change a stored EvaluationResult.
#: Part of every result's content address, so a bump re-runs evaluations.
HARNESS_VERSION = "17"  # 2: canaries, review flags, wider protection (issue 8)
# 3: capped tmpfs workspace, tests as another uid, pytest locked down, JSON setup status
# 4: in-process guard in the pytest plugin, nonce-numbered stream, PYTHONSAFEPATH, AST flags
# 5: start-up gate (sitecustomize): the repository's PYTHONPATH entries held until the
#    plugin; report read in the tests' own exec; stored output without the stream's blank
#    lines; review flags for the package's test helpers
# 6: flags carry source and kind; checks read the applied files decoded as Python does
#    (renames by content), aliases, import hooks, oracles; the guard verifies the collected
#    tests' code against the test files' bytes (issue 25)
# 7: canary bodies derived from the target file's own tests (literals, names, assert forms)
# 8: the guard probes comparisons and shadowing modules; changed.json lists added files
# 9: the harness names the repository's root to the guard (changed.json "root"): a test
#    command that starts pytest in a sub-project is attributed as at the root; no
#    `subprocess` flag where the feature's tests stand in for the process API; the guard
#    flags child processes that run pytest or name the tests, and unpickled mock/pytest/
#    interpreter objects; asyncio's types.coroutine is no __code__ swap; the guard's
#    closures use a private copy of the plugin's namespace (rebinding its names is seen)
# 10: child processes watched: forked children's findings are runs of their own, a Python
#    the tests start loads the guard through the gate ($ARENA_GUARD), os.exec/os.spawn and
#    _posixsubprocess.fork_exec read, pytest.main from the submission's code flagged;
#    static: compressed, base64 and hex data in literals flagged, decoding run-time data no
#    longer; comments, docstrings, prose and lock files left out; the run that wrote the
#    JUnit report says so at its end: the report is checked against its outcomes alone (a
#    run printed whole by the code under test is no longer counted); a patch whose context
#    differs only in whitespace applies (`git apply --ignore-whitespace`, status "whitespace")
# 11: a Python started past the start-up gate (-I/-E/-S, an environment without its
#    variables, env -i, a shell or #! line doing either) is a runtime review; a child the
#    submission's code starts carries its start site ($ARENA_ORIGIN): its own code reading
#    the tests is flagged; doctest examples are attributed to their file's line and read by
#    the syntax-tree checks; a doctest file's JUnit id keeps its ending (a passing one was
#    scored tampered)
# 12: a program that is not Python started by the submission's code (grep, a shell: no guard
#    of its own) is a runtime review, unless the repository's own code starts it or the
#    file already starts processes (changed.json "processes"); os.posix_spawn is a static
#    `subprocess` finding
# 13: a test file read under another name (bytes, a link, /proc/<pid>/cwd, a dir_fd) or a
#    test function's code read in memory is a reads_tests review, and the static routes to
#    the tests in memory (vars(sys), resolve_name...) are findings
# 14: what a thread, a weakref.finalize or an asyncio callback the submission's code set
#    going does is attributed to the line that did (a pool's worker reading the tests with
#    Path.read_text); os.open's dir_fd is resolved (a decoy of the test's name in the
#    current folder); a test function's code handed back by inspect.getmembers is read; a
#    subinterpreter created, a built-in name replaced while the tests run and a signal
#    handler the submission's line installs are reviews; static: os.sys, test modules
#    imported by name, CURRENT_TEST, traceback.FrameSummary, the subinterpreter modules
# 15: the guard's walk of the stack passes over code it has seen is never the submission's
#    and finds what lies below pytest's frame of a test's phase once per phase: an
#    event loop's callbacks cost ~8 us instead of ~50 us (same verdicts; an async-heavy
#    suite that timed out may now finish); the audit hook reads a str/bytes subclass in an
#    event's arguments as its plain value (its methods read the tests unseen there)
# 16: a path object of a class of the submission's own (not pathlib's, not os.DirEntry)
#    given to io.FileIO, a process start or os.putenv is a reads_tests review, not asked
#    for its path again (its __fspath__ could name one file to the call, another to the
#    guard); os.open with dir_fd asks the path once; a start's argument list is copied
#    without running its methods; red team: no method of an object of the submission's runs
#    in the hook (environments of starts, pickle names, code file names, pathlib paths of
#    altered state), a function made under a test file's name hands no test file, os and
#    os.path are copies taken at load, fork_exec is judged by the program it runs
# 17: red team, five holes: sys.modules (and namespaces) looked up by plain str keys only;
#    a pathlib path's text read from its slots (3.12+ parsed it with sys.intern as it then
#    was); os.system's check reads os.environ's dictionary bound at load; a doctest example
#    is its file's line only when the file holds it (a DocTest built from a string is code
#    built at run time); no test hands a file to a gc callback, finaliser or weakref callback
#    (one run when a test drops the object too, weakref.finalize's function among them);
#    no garbage collection while the audit hook works (finalisers ran unseen inside it);
#    then a second red team: gc callbacks of any shape and *args, the collector's removal, a
#    sys.modules key of a str subclass (tampering), os.system past its wrapper whatever
#    os.environ's dictionary says, a repository's own doctest module left unshadowed
