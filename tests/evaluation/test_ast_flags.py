"""The syntax-tree review flags (pure): what they see through renaming and spelling in pieces,
where they point, and what honest code they leave alone."""

from __future__ import annotations

import ast
import gc
import sys
import textwrap
import threading
from collections.abc import Callable

import pytest

from arena_bot.evaluation.ast_flags import python_findings
from arena_bot.evaluation.flags import review_flags
from arena_bot.intake.patches import ProtectedPaths, parse_patch


def _new_file(text: str, path: str = "pkg/mod.py") -> str:
    lines = textwrap.dedent(text).splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n"
            f"+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}")


def _reasons(text: str) -> dict[int, list[str]]:
    (file,) = parse_patch(_new_file(text)).files
    found: dict[int, list[str]] = {}
    for flag in python_findings(file).flags:
        found.setdefault(flag.line, []).append(flag.reason)
    return found


def test_an_always_equal_class_is_flagged_on_its_dunders() -> None:
    found = _reasons("""\
        class Anything:
            def __eq__(self, other):
                return True

            def __hash__(self):
                return 0

            def __contains__(self, item):
                return self is not None
        """)
    assert "__eq__ returns a constant" in found[2][0]
    assert "__hash__ returns a constant" in found[5][0]
    assert "__contains__" in found[8][0]  # ignores its argument


def test_honest_comparisons_are_not_flagged() -> None:
    assert _reasons("""\
        class Point:
            def __eq__(self, other):
                return (self.x, self.y) == (other.x, other.y)

            def __hash__(self):
                return hash((self.x, self.y))

            def __bool__(self):
                return False
        """) == {}


def test_names_spelled_in_pieces_are_flagged_plain_dynamic_names_are_not() -> None:
    found = _reasons("""\
        import sys
        mods = vars(sys)["mod" + "ules"]
        setattr(klass, name, value)
        value = getattr(obj, "from_item_" + "and_call")
        handler = getattr(self, "visit_" + kind)
        label = row[prefix + "_count"]
        key = "".join(["_py", "test"])
        """)
    assert "spelled in pieces" in found[2][0]
    assert "setattr with a computed attribute name" in found[3]
    assert "getattr with a name spelled in pieces" in found[4]
    assert 5 not in found and 6 not in found
    assert 7 not in found  # a join is only flagged where it names something


def test_interpreter_introspection_is_flagged() -> None:
    found = _reasons("""\
        import gc
        import ctypes
        import builtins
        import sys, inspect
        frame = sys._getframe(1)
        here = inspect.currentframe()
        builtins.len = lambda x: 1
        __builtins__["open"] = None
        """)
    # Importing gc is no finding (gc.collect() frees memory in data code); walking the live
    # objects is (the text rules, through an alias too: test_flags_on_honest_upstream_code).
    assert 1 not in found and "ctypes" in found[2][0] and "builtins" in found[3][0]
    assert any("call stack" in reason for reason in found[5])
    assert any("call stack" in reason for reason in found[6])
    assert any("built-in names" in reason for reason in found[7])
    assert any("built-in names" in reason for reason in found[8])


def test_threads_and_writes_at_import_are_flagged_inside_functions_they_are_not() -> None:
    found = _reasons("""\
        import threading
        threading.Timer(1.0, work).start()
        log = open("/tmp/x", "w")

        def later():
            threading.Thread(target=work).start()
            with open(path, mode="a") as handle:
                handle.write("x")
        """)
    assert "thread or timer" in found[2][0]
    assert "opens a file for writing" in found[3][0]
    assert 6 not in found and 7 not in found


def test_a_hunk_of_a_changed_file_is_parsed_tolerantly_and_only_added_lines_count() -> None:
    patch = (
        "diff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n"
        "@@ -10,4 +10,7 @@ class Cache:\n"
        "         self.items = {}\n"
        "         setattr(self, name, 1)\n"
        "+\n"
        "+    def __eq__(self, other):\n"
        "+        return True\n"
        "     def get(self, key):\n"
        "         return self.items[key]\n"
    )
    (file,) = parse_patch(patch).files
    flags = python_findings(file).flags
    # Line 13 of the patched file is the added __eq__; the old setattr (context) is not flagged.
    assert [(f.line, f.reason.split(" ")[0]) for f in flags] == [(13, "__eq__")]


def test_review_flags_combine_text_and_tree_without_duplicates() -> None:
    patch = parse_patch(_new_file("""\
        import gc
        for o in gc.get_objects():
            setattr(o, "x" + "y", 1)
        """))
    flags = review_flags(patch, protected=ProtectedPaths(patterns=()))
    # gc.get_objects (text), setattr with a computed name (tree); importing gc is neither.
    assert {(f.file, f.line) for f in flags} == {("pkg/mod.py", 2), ("pkg/mod.py", 3)}
    assert len({(f.file, f.line, f.reason) for f in flags}) == len(flags)


def test_broken_python_is_not_an_error() -> None:
    assert _reasons("def (:\n  ???\n") == {}


def test_reaching_into_closures_globals_and_frames_is_flagged() -> None:
    found = _reasons("""\
        cells = hook.__closure__
        value = cells[0].cell_contents
        names = function.__globals__
        caller = frame.f_back.f_locals
        hidden = getattr(hook, "__closure__")
        hidden = getattr(hook, "".join(reversed("__erusolc__")))
        """)
    for line in range(1, 7):
        assert any("internals" in reason for reason in found[line]), (line, found)


def _deep_call(depth: int, work: Callable[[], object]) -> None:
    """``work`` called ``depth`` Python frames further down (the race needs two parses
    started at different depths)."""
    if depth:
        _deep_call(depth - 1, work)
    else:
        work()


def test_a_parse_in_another_thread_never_fails_an_honest_patch() -> None:
    """CPython 3.11's syntax-tree builder keeps its depth count once per interpreter. A parse
    that gives up the interpreter midway (here: a collector callback that waits, as a
    finaliser doing I/O would) let another thread's parse reset that count, and an honest
    feature's run failed with SystemError (seen in CI: the evaluator runs features in
    threads). Staged deterministically: the first collection inside the main thread's parse
    lets the other thread parse, and waits (at most 1 s) for it to finish."""
    body = "".join(f"def f{i}(x):\n    return [x, (x, {{x: x}})]\n" for i in range(10))
    (file,) = parse_patch(_new_file(body)).files
    main = threading.current_thread()
    go, done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def pause_inside_parse(phase: str, info: dict[str, int]) -> None:
        if (phase == "start" and threading.current_thread() is main and not go.is_set()
                and sys._getframe(1).f_code is ast.parse.__code__):
            go.set()
            done.wait(timeout=1)

    def other() -> None:
        go.wait(timeout=10)
        try:
            _deep_call(15, lambda: python_findings(file).flags)
        except BaseException as exc:  # asserted below
            errors.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=other)
    thread.start()
    threshold = gc.get_threshold()
    gc.callbacks.append(pause_inside_parse)
    gc.set_threshold(1)
    flags = None
    try:
        flags = python_findings(file).flags
    except BaseException as exc:  # asserted below
        errors.append(exc)
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(pause_inside_parse)
        go.set()
        thread.join()
    assert go.is_set() and errors == [] and flags == []


@pytest.mark.parametrize("added", [
    "x = " + "-" * 300_000 + "1",  # the parser runs out of memory (MemoryError)
    "x = 0" + " + 0" * 210_000,  # the tree builder runs out of depth (RecursionError)
])
def test_python_too_deep_to_parse_is_flagged_not_an_error(added: str) -> None:
    """Nesting that exhausts the parser would otherwise crash the feature's run (or, caught
    silently, hide its hunk from every syntax-tree check): it is a flag on its line."""
    found = _reasons(f"import os\n{added}\nfrom ctypes import CDLL\n")
    assert found == {1: [found[1][0]]} and "nested too deeply" in found[1][0]
