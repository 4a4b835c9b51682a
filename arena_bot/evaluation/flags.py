"""Review flags read from a submission's patch text (pure logic, no Docker).

A patch that implements a feature has no reason to reach into the test machinery: pytest's
internals and hooks, interpreter exit paths, ``sys.modules`` games, ``/proc/self``, the
harness's ``$ARENA_*`` variables, JUnit files, entry points, or the feature's test files.
Every added line of a non-test file that does is reported with its file, its line in the
patched file and the reason, so a maintainer looks before the entry is trusted. A flag is not
a verdict: the tests still decide pass/fail; the flag says "a human must confirm".

Each :class:`~arena_bot.models.evaluation.ReviewFlag` carries ``source`` (``static``: these
checks, before anything runs; ``runtime``: the harness's guard in the test process, or the
verdict) and ``kind``, a stable short id of what was found:

* static: ``pytest_internals``, ``skip_from_code``, ``process_control``, ``import_system``,
  ``stack_inspection``, ``harness_files``, ``dynamic_code``, ``hidden_code``,
  ``test_files``, ``startup_files``, ``subprocess``, ``test_support``, ``source_encoding``,
  ``defeat_device``, ``always_equal``, ``computed_name``, ``introspection``, ``internals``,
  ``builtins``, ``import_hook``, ``import_time_effects``, ``too_deep``, ``answer_table``,
  ``unchecked_task`` (the task has no recorded expected ids);
* runtime: ``tampered`` (the verdict), ``stack_inspection``, ``reads_tests``,
  ``hidden_code``, ``dynamic_code``, ``introspection``, ``code_swap``, ``test_replaced``,
  ``defeat_device``, ``always_equal``, ``shadowed_module``, ``patched_module``,
  ``subprocess`` (a child process that runs pytest or names the tests), ``other``;
  ``hidden_code`` also for what the submission's code unpickles from ``unittest.mock``,
  pytest or the interpreter's machinery.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from arena_bot.evaluation.ast_flags import TestLiterals, literals_of, python_findings
from arena_bot.intake.patches import (
    DATASET_PATCH_BYTES,
    DATASET_PATCH_LINES,
    FilePatch,
    Patch,
    ProtectedPaths,
    decode_as_python,
    file_encoding,
    parse_patch,
)
from arena_bot.models.evaluation import ReviewFlag

#: (pattern, reason, kind): checked on every added line of every non-test file (decoded as
#: Python decodes it), and on what the code's names stand for through aliases and how its
#: strings read (:class:`~arena_bot.evaluation.ast_flags.CodeText`).
_RULES: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), reason, kind)
    for pattern, reason, kind in (
        (r"_pytest|\bpytest_\w+|\bpytest\s*\.\s*(hookimpl|main|exit)|\bpytest11\b",
         "reaches into pytest internals or hooks", "pytest_internals"),
        (r"pluginmanager|\bhookwrapper\b|\bTestReport\b|\bfrom_item_and_call\b",
         "touches pytest's plugin machinery or reports", "pytest_internals"),
        (r"\bSkipTest\b|\bpytest\s*\.\s*(skip|xfail|importorskip|fail)\b|\bskip\.Exception\b"
         r"|__unittest_skip",
         "skips or fails tests from the code under test", "skip_from_code"),
        (r"\bmock\s*\.\s*ANY\b|\bunittest\s*\.\s*mock\b",
         "uses unittest.mock in the code under test (mock.ANY compares equal to anything)",
         "always_equal"),
        (r"\batexit\b", "registers exit handlers (atexit)", "process_control"),
        # os.kill(child.pid, ...) signals a process the code started (an editor), not itself.
        (r"\bos\s*\.\s*_exit\b|\bos\s*\.\s*kill\b(?!\s*\(\s*[\w.]+\.pid\s*,)"
         r"|\bsignal\s*\.\s*signal\b",
         "ends or signals the process itself", "process_control"),
        (r"\bsys\s*\.\s*(exit|excepthook)\s*=|builtins\s*\.\s*(exit|quit)\s*=",
         "overrides sys.exit or the interpreter's exit paths", "process_control"),
        # ``"polars" in sys.modules`` asks whether a module is loaded, and no more.
        (r"(?<!\bin )\bsys\s*\.\s*modules\b|\bin sys\s*\.\s*modules\s*[.\[(]"
         r"|\bsys\s*\.\s*meta_path\b|\bsys\s*\.\s*path_hooks\b"
         r"|\bsys\s*\.\s*settrace\b|\bsys\s*\.\s*setprofile\b|\bsys\s*\.\s*addaudithook\b"
         # Python 3.12's tracing (each function's code handed to a callback, no audit
         # event), and threading's hooks that set a tracer in threads started later.
         r"|\bsys\s*\.\s*monitoring\b|\bthreading\s*\.\s*(settrace|setprofile)\w*"
         # sys's own namespace: sys.modules taken out of it by value, never named (the
         # tests' modules, their functions' parametrize marks, read in memory).
         r"|\bsys\s*\.\s*__dict__\b|\bvars\s*\(\s*sys\s*\)",
         "rewires the import system or traces the interpreter", "import_system"),
        (r"\binspect\s*\.\s*(stack|currentframe|getouterframes|getinnerframes|getframeinfo"
         r"|trace|getsource\w*|getclosurevars)\b|\btraceback\s*\.\s*(extract_stack|walk_stack|walk_tb"
         r"|extract_tb|format_stack|print_stack|StackSummary|FrameSummary)\b|\blinecache\b"
         r"|\bsys\s*\.\s*_getframe\b|\btb_frame\b|\btb_next\b|\bf_back\b"
         r"|\bf_locals\b|\bf_code\b|\bco_filename\b",
         "reads the call stack, tracebacks or source lines (a test-caller oracle reads the "
         "calling test's expected value there)", "stack_inspection"),
        (r"/proc/self|/proc/\d|/proc/\{", "reads the process's own /proc entries",
         "harness_files"),
        # A word of its own: ``my_arena_cache`` is not the harness's variable.
        (r"\bARENA_\w*", "reads the harness's $ARENA_ variables", "harness_files"),
        # A file name in a string (``"submission.patch"``), not ``version.patch``.
        (r"/workspace\b|/arena\b|\.arena\b|\.patch[\"']", "reads the harness's own files",
         "harness_files"),
        (r"junit|\.xml\b", "mentions JUnit/XML result files", "harness_files"),
        # Not a package's version or metadata (``importlib.metadata.version("x")``).
        (r"entry_points|iter_entry_points", "looks up installed entry points", "import_system"),
        # ``re.compile(`` is ordinary code: a method call is not the builtin, nor is a
        # definition (``def compile(self)``) or a class (``Eval(...)``: names are cased).
        (r"(?<![\w.])(?<!def )(?-i:exec|eval|compile)\s*\("
         r"|\bbuiltins\s*\.\s*(exec|eval|compile)\b"
         r"|__import__\s*\(|importlib\s*\.\s*import_module|\brunpy\b"
         # Other imports by a name given as data (a test module, found by walking the
         # repository, handed back with its functions and their parametrize marks).
         r"|\bpkgutil\s*\.\s*resolve_name\b|\bpydoc\s*\.\s*locate\b"
         r"|\bgetattr\s*\(\s*__builtins__",
         "runs dynamically built code (could hide any of the above)", "dynamic_code"),
        # base64, hex and decompression are read from the syntax tree instead: decoding a
        # literal, or a literal that is encoded text, code or packed data, whatever decodes
        # it. A call on data read at run time is honest (an image sent as base64: four
        # CooperBench gold patches of llama_index; dspy's gzip/zlib disk cache).
        (r"\b(rot.?13|codecs\s*\.\s*decode|marshal\s*\.\s*loads)\b",
         "decodes hidden data or code", "hidden_code"),
        # Feature code has no reason to find files by pytest's naming rule.
        (r"""["']test_["']|["']_test\.py["']|\btest_\*|\*_test\.py|startswith\(\s*["']test_?["']"""
         r"""|endswith\(\s*["']_test(\.py)?["']""",
         "looks for the test files by name", "test_files"),
        (r"\bconftest\b|\bsitecustomize\b|\busercustomize\b|\.pth\b",
         "mentions files that change how Python or pytest start", "startup_files"),
        # _posixsubprocess: the C function subprocess and multiprocessing start processes
        # with, called directly (no audit event of its own). multiprocessing itself is not
        # named: honest code parallelises with it; the guard watches what its children do.
        (r"\b(_?posixsubprocess|subprocess|pty\s*\.\s*(fork|spawn)"
         r"|os\s*\.\s*(system|popen|fork\w*|spawn\w*|posix_spawnp?|exec\w*))\b",
         "starts other processes", "subprocess"),
        # readline reads a file in C, with no audit event: the guard never sees a test file
        # read into its history (get_history_item hands back each line).
        (r"\breadline\s*\.\s*(read_history_file|read_init_file)\b",
         "reads a file through readline's C reader, which no audit event reports (a test "
         "file read there is unseen)", "test_files"),
        # object.__subclasses__(): every class alive, the tests' own among them (their
        # methods' globals); a class's own subclasses (a plugin registry) are no finding.
        (r"\bgc\s*\.\s*(get_objects|get_referrers|get_referents)\b"
         r"|\bobject\s*\.\s*__subclasses__\b|\btype\s*\.\s*__subclasses__\s*\(\s*object\b",
         "walks the interpreter's live objects (gc)", "introspection"),
    )
)
#: Checked on the code's own names and strings only (never comments or docstrings):
#: feature code has no reason to ask whether it runs under pytest.
_CODE_RULES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    # PYTEST_CURRENT_TEST found by its ending in a copy of the environment (the guard sees
    # a lookup of the name, not a scan of the items).
    (re.compile(r"pytest|py\.test|(?-i:CURRENT_TEST)", re.IGNORECASE),
     "depends on pytest from the code under test (code that behaves differently when it runs "
     "under pytest is a defeat device)", "defeat_device"),
)
#: Build, task-runner and documentation files: they name pytest honestly, and the tests do
#: not run them.
_TOOLING = re.compile(r"(^|/)(setup\.py|noxfile\.py|tasks\.py|fabfile\.py)$|^(docs?|\.github)/")
#: Modules a package ships for tests to import (``pkg/testing.py``, ``pkg/_testing/``,
#: ``test_utils.py``, a pytest plugin module): outside the protected test folders, yet an
#: ``assert_equal`` made lenient there turns failing tests into passing ones.
_TEST_SUPPORT = re.compile(
    r"(^|/)(_?testing|_?test_?utils?|_?testutils|_?test_?helpers?|_?test_?support"
    r"|pytest_?plugins?|fixtures)(\.py$|/)", re.IGNORECASE)
#: A path into a test folder: ``tests/...`` anywhere, ``test/`` as a folder of files
#: (``test/test_x.py``, ``test/``), not an identifier such as the model id ``test/echo``.
_TEST_PATH = re.compile(r"(^|/)tests/|^test/([^/]*[./]|$)")
#: Prose (documentation, change logs) and lock files: no text of theirs runs, except a
#: doctest example (``>>> code``) when the task's pytest collects the file, so only such
#: lines are checked. Lock files are read by installers, before any patch is applied.
_PROSE = re.compile(r"\.(md|markdown|rst|adoc)$|(^|/)(CHANGES|CHANGELOG|HISTORY|NEWS|AUTHORS"
                    r"|CONTRIBUTORS)$", re.IGNORECASE)
_LOCK = re.compile(r"\.lock$")
#: Configuration files: the test folders they name are tool settings (linters, packaging);
#: pytest's own settings there are refused as protected (:mod:`arena_bot.intake.patches`).
_CONFIG = re.compile(r"\.(toml|cfg|ini)$")
_DOCTEST_LINE = re.compile(r"^\s*(>>>|\.\.\.)(\s|$)")
#: Writes to the task's test paths: checked against the protected paths of the task.
_PATH_LITERAL = re.compile(r"""["']([^"'\s]{1,200})["']""")
#: Flags per patch: enough to show the pattern, never a wall of text.
MAX_FLAGS = 50
#: The functions that start a process, as a test replaces them.
_PROCESS_API = (r"(?:run|Popen|call|check_call|check_output|getoutput|getstatusoutput|system"
                r"|popen|spawn\w*|exec\w*|posix_spawnp?)")
#: A test standing in for the process API the code under test calls: click's
#: ``monkeypatch.setattr("subprocess.run", fake)``, ``mock.patch("pkg.cli.subprocess.Popen")``,
#: ``setattr(subprocess, "run", fake)``, ``mock.patch.object(os, "system")``.
_STANDS_IN = re.compile(
    rf"""\b(?:setattr|patch)\s*\(\s*["'](?:[\w.]+\.)?(?:subprocess|os)\.{_PROCESS_API}["']"""
    rf"""|\b(?:setattr|object)\s*\(\s*(?:subprocess|os)\s*,\s*["']{_PROCESS_API}["']""")


@dataclass(frozen=True)
class _Added:
    path: str
    line: int
    text: str


def review_flags(patch: Patch, *, protected: ProtectedPaths,
                 tests_literals: frozenset[str] = frozenset(),
                 processes_expected: bool = False) -> list[ReviewFlag]:
    """Every added line of ``patch`` (outside the task's protected test files) that reaches
    into test machinery, as :class:`ReviewFlag` records (source ``static``, at most
    :data:`MAX_FLAGS`). ``tests_literals``: the literal values of the task's tests
    (:func:`literals_of_patches`), for answer tables. ``processes_expected``: the feature's
    own tests stand in for the process API (:func:`stands_in_for_processes`), so starting a
    process is the feature, not a finding."""
    flags: list[ReviewFlag] = []
    seen: set[tuple[str, int, str]] = set()
    for path, line, reason, kind in _findings(patch, protected=protected,
                                              tests_literals=tests_literals,
                                              processes_expected=processes_expected):
        if (path, line, reason) in seen:
            continue
        seen.add((path, line, reason))
        flags.append(ReviewFlag(file=path, line=line, reason=reason, source="static",
                                kind=kind))
        if len(flags) >= MAX_FLAGS:
            break
    return flags


def literals_of_patches(tests_patches: list[str]) -> TestLiterals:
    """The literal values the Python test files of the task's tests patches add, with the
    pairs that share a row of the tests (see :class:`TestLiterals`)."""
    found = TestLiterals()
    for text in tests_patches:
        patch = parse_patch(text, max_bytes=DATASET_PATCH_BYTES, max_lines=DATASET_PATCH_LINES)
        for file in patch.files:
            if file.new_path is None or not file.new_path.endswith(".py"):
                continue
            for hunk in file.hunks:
                source = "\n".join(body[1:] for body in hunk.lines if body[:1] in ("+", " "))
                found = found.merged(literals_of(source))
    return found


def merged(first: list[ReviewFlag], second: list[ReviewFlag]) -> list[ReviewFlag]:
    """``first`` then the flags of ``second`` it does not have (same file, line, reason)."""
    keys = {(f.file, f.line, f.reason) for f in first}
    return [*first, *(f for f in second if (f.file, f.line, f.reason) not in keys)][:MAX_FLAGS]


def stands_in_for_processes(tests_patch: str) -> bool:
    """Whether a line the feature's tests patch adds replaces a function that starts a
    process (``monkeypatch.setattr("subprocess.run", fake)``, ``mock.patch("os.system")``):
    the task's own tests expect the feature to start processes (click's git branch
    completion), and a fake stands in for them while the tests run. The tests patch is the
    task's, never the submission's."""
    return any(body[:1] == "+" and _STANDS_IN.search(body) for body in tests_patch.splitlines())


def _findings(patch: Patch, *, protected: ProtectedPaths, tests_literals: frozenset[str],
              processes_expected: bool = False) -> Iterator[tuple[str, int, str, str]]:
    """(file, line, reason, kind) of each finding, in order: the text rules line by line,
    then per file its declared encoding, a changed test-support module, the syntax tree's
    findings and the text rules on what its code stands for."""
    # A file whose unchanged or removed lines start processes already: the feature edits that
    # code (click's editor and pager), so its process lines are no finding; nor are they
    # anywhere when the feature's tests stand in for the process API.
    running = {file.path for file in patch.files
               if processes_expected or starts_processes(file)}
    python = {file.path: python_findings(file, tests_literals=tests_literals)
              for file in patch.files
              if file.new_path is not None and protected.rule_for(file.path) is None}
    docstrings = {path: found.docstring_lines for path, found in python.items()}
    for added in _added_lines(patch, protected=protected, docstrings=docstrings):
        text = unicodedata.normalize("NFKC", added.text)
        for pattern, reason, kind in _RULES:
            if pattern.search(text) and not (kind == "subprocess" and added.path in running):
                yield added.path, added.line, reason, kind
        for literal in _PATH_LITERAL.findall(text) if not _CONFIG.search(added.path) else ():
            candidate = literal.removeprefix("./").lstrip("/")
            if "/" in candidate and protected.rule_for(candidate) is not None:
                yield (added.path, added.line, f"names a protected test path ({literal})",
                       "test_files")
            elif _TEST_PATH.search(candidate):
                yield added.path, added.line, f"names a test path ({literal})", "test_files"
    for file in patch.files:
        if file.path not in python:
            continue
        yield from _encoding_findings(file)
        if _TEST_SUPPORT.search(file.path) and file.hunks:
            yield (file.path, file.hunks[0].new_start,
                   "changes a test-support module of the package (tests import its "
                   "helpers: a lenient one turns failing tests into passing ones)",
                   "test_support")
        # What survives renaming and spelling in pieces: the syntax tree of the added Python.
        findings = python[file.path]
        for flag in findings.flags:
            yield file.path, flag.line, flag.reason, flag.kind
        tooling = _TOOLING.search(file.path) is not None
        for code in findings.texts:
            if code.code_only and tooling:
                continue  # a build or docs file names pytest honestly (tests_require=...)
            text = unicodedata.normalize("NFKC", code.text)
            for pattern, reason, kind in (_CODE_RULES if code.code_only else _RULES):
                if pattern.search(text) and not (kind == "subprocess" and file.path in running):
                    yield file.path, code.line, reason, kind


def starts_processes(file: FilePatch) -> bool:
    """Whether the lines of ``file`` the patch keeps or removes start processes."""
    rule = next(pattern for pattern, _, kind in _RULES if kind == "subprocess")
    return any(body[:1] in (" ", "-") and rule.search(body[1:])
               for hunk in file.hunks for body in hunk.lines)


def _encoding_findings(file: FilePatch) -> Iterator[tuple[str, int, str, str]]:
    """A declared source encoding under which Python reads the file differently from the
    text the patch shows (``# coding: utf-7`` hides code from a reader of the diff)."""
    encoding = file_encoding(file)
    if encoding is None:
        return
    if encoding == "unknown":
        yield (file.path, 1, "declares a source encoding Python does not know",
               "source_encoding")
        return
    for hunk in file.hunks:
        shown = [body[1:] for body in hunk.lines if body[:1] == "+"]
        decoded: dict[int, list[str]] = {}
        for index, text in decode_as_python(shown, encoding):
            decoded.setdefault(index, []).append(text)
        if any(decoded.get(i) != [line] for i, line in enumerate(shown)):
            yield (file.path, 1, f"declares the source encoding {encoding}, under which "
                   "Python reads this file differently from the text the patch shows (the "
                   "checks read it decoded)", "source_encoding")
            return


def _added_lines(patch: Patch, *, protected: ProtectedPaths,
                 docstrings: dict[str, frozenset[int]]) -> list[_Added]:
    lines: list[_Added] = []
    for file in patch.files:
        path = file.path
        if file.new_path is None or protected.rule_for(path) is not None:
            # Deletions add nothing; protected files are refused before anything runs.
            continue
        encoding = file_encoding(file)
        for hunk in file.hunks:
            new_line = hunk.new_start
            numbered: list[tuple[int, str]] = []
            for body in hunk.lines:
                marker, text = body[:1], body[1:]
                if marker == "+":
                    numbered.append((new_line, text))
                    new_line += 1
                elif marker == " ":
                    new_line += 1
            # As Python reads them: one shown line may decode into several.
            decoded = decode_as_python([text for _, text in numbered], encoding)
            prose = docstrings.get(path, frozenset())
            lines.extend(_Added(path=path, line=numbered[index][0], text=text)
                         for index, text in decoded
                         if not _inert(path, text, numbered[index][0] in prose))
    return lines


def _inert(path: str, text: str, in_docstring: bool) -> bool:
    """Whether an added line cannot run: a comment of a Python file (a line ``#`` starts),
    a docstring's or a prose file's line outside doctest examples, a lock file's line."""
    if in_docstring or _PROSE.search(path):
        return not _DOCTEST_LINE.match(text)
    if path.endswith((".py", ".pyi")):
        return text.lstrip().startswith("#")
    return _LOCK.search(path) is not None
