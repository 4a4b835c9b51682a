"""Placing the two canary tests in a test file (stdlib only: it runs inside the sandbox as
``python3 -I -S /arena/canary_place.py TARGET SEED`` and on the host in tests).

Correct by construction: the file is parsed with :mod:`ast` and a canary goes only at a
statement boundary, before the first line of a test (its first decorator when it has any):
either a top-level ``def test*`` / ``class Test*`` (the canary is a function) or a
``def test*`` directly in the body of a top-level ``class Test*`` (the canary is a method of
that class, at its indentation, taking ``self``). A file that does not parse, or has no test,
gets both canaries appended at its end as functions. Nothing else in the file changes.

Indistinguishable from the file's own tests: each canary's name is made of words of the
file's real test names (never equal to a name already in the file), the two go to two
independent random places of the file's own shape (functions among functions, methods among
methods), and their bodies are written from the file's own test functions (:class:`Material`:
their literals, local names, assert forms, ``pytest.raises`` of builtin exceptions, statement
counts) with builtins the file does not rebind, never the code under test; each body is run
here as it is written and drawn again until the passing one passes and the failing one fails
with an AssertionError. The chosen names and classes are printed as one JSON line for the
harness's status.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import random
import re
import stat
import sys
import tokenize
from io import BytesIO

#: Words used when the file's own test names give too few.
_FALLBACK_WORDS = ("value", "default", "empty", "basic", "option", "nested", "simple",
                   "multiple", "invalid", "result", "format", "missing", "custom", "order")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """Lines as Python's tokenizer counts them (``\\n``, ``\\r\\n``, ``\\r``), ends kept."""
    return _LINE.findall(text)


def _is_test_def(node: ast.stmt) -> bool:
    return (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name.startswith("test"))


def _start(node: ast.stmt) -> int:
    """First line of ``node``, its decorators included (1-based)."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _plain_test_class(node: ast.stmt) -> bool:
    """A ``class Test*`` whose methods pytest collects as they are: no decorator (a class
    ``skipif`` or ``parametrize`` would change the canary), no ``__init__``, no class-level
    ``pytestmark`` or ``__test__``."""
    if not (isinstance(node, ast.ClassDef) and node.name.startswith("Test")
            and not node.decorator_list):
        return False
    for child in node.body:
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.name in (
                "__init__", "__new__"):
            return False
        targets = (child.targets if isinstance(child, ast.Assign)
                   else [child.target] if isinstance(child, (ast.AnnAssign, ast.AugAssign))
                   else [])
        if any(isinstance(t, ast.Name) and t.id in ("pytestmark", "__test__") for t in targets):
            return False
    return True


def spots(tree: ast.Module) -> list[tuple[int, str, str]]:
    """Every place a canary may go: ``(line, indent-class, class name)``, the canary going
    before ``line`` (1-based); class name empty for a top-level function."""
    found: list[tuple[int, str, str]] = []
    for node in tree.body:
        if _is_test_def(node) or (isinstance(node, ast.ClassDef)
                                  and node.name.startswith("Test")):
            found.append((_start(node), "", ""))
        if isinstance(node, ast.ClassDef) and _plain_test_class(node):
            for child in node.body:
                if _is_test_def(child):
                    found.append((_start(child), "method", node.name))
    return found


def _names_in(tree: ast.Module | None, text: str) -> set[str]:
    if tree is None:
        return set(re.findall(r"\w+", text))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.name for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    } | set(re.findall(r"\w+", text))


def _test_words(tree: ast.Module | None) -> list[str]:
    words: list[str] = []
    if tree is not None:
        for node in ast.walk(tree):
            if _is_test_def(node):  # type: ignore[arg-type]
                words.extend(w for w in node.name.split("_")[1:]  # type: ignore[attr-defined]
                             if w.isidentifier() and not w[0].isdigit())
    return sorted(set(words)) or list(_FALLBACK_WORDS)


def make_name(rng: random.Random, words: list[str], taken: set[str]) -> str:
    """``test_`` plus two to four of the file's words, not a name already in the file."""
    pool = words if len(words) >= 3 else sorted(set(words) | set(_FALLBACK_WORDS))
    while True:
        count = rng.randint(2, min(4, len(pool)))
        name = "test_" + "_".join(rng.sample(pool, count))
        if name not in taken:
            taken.add(name)
            return name


#: Builtins a canary body may call (never one the test file binds at module level).
_CALLS = ("len", "str", "sorted", "list", "tuple", "set", "min", "max", "sum", "repr",
          "isinstance", "int", "bool", "dict", "abs")
#: Exceptions a ``pytest.raises`` canary block may expect, with how each is raised.
_RAISERS: dict[str, tuple[str, ...]] = {
    "KeyError": ("dict", "{d}[{missing}]"), "IndexError": ("list", "{l}[{size}]"),
    "ValueError": ("str", "int({s})"), "TypeError": ("int", "len({i})"),
    "ZeroDivisionError": ("int", "{i} // 0"), "AttributeError": ("int", "{i}.missing"),
}
_METHODS = ("upper", "lower", "strip", "split", "title")
_FALLBACK_VARS = ("value", "result", "expected", "data", "items", "text", "name", "output",
                  "actual", "parts", "key", "options")
_FALLBACK_STRS = ("foo", "bar", "hello", "a b", "x-y", "name", "value", "test")
_RESERVED = frozenset({"self", "cls", "pytest", "True", "False", "None", *_CALLS})


class Material:
    """What a canary body is made of, harvested from the file's own test functions: their
    literals, local names, assert forms, builtin exceptions expected by ``pytest.raises``,
    statement counts, and the module-level names a body must not rely on."""

    def __init__(self, tree: ast.Module | None) -> None:
        self.strs: list[str] = []
        self.ints: list[int] = []
        self.floats: list[float] = []
        self.bytes: list[bytes] = []
        self.names: list[str] = []
        self.forms: list[str] = []
        self.raises: list[str] = []
        self.lengths: list[int] = []
        self.messages = 0
        self.bound: set[str] = set()
        self.pytest = False
        self.star = False
        if tree is not None:
            self._harvest(tree)
        # ``from x import *`` may bind any name: then no builtin is relied upon.
        self.calls = [c for c in _CALLS if c not in self.bound] if not self.star else []
        self.raises = [e for e in self.raises if e in _RAISERS and e not in self.bound
                       ] if self.pytest and not self.star else []
        self.names = sorted(set(self.names) - _RESERVED - self.bound - set(dir(builtins))
                            ) or [
            n for n in _FALLBACK_VARS if n not in self.bound]
        self.strs = sorted(set(self.strs)) or list(_FALLBACK_STRS)
        self.ints = sorted(set(self.ints)) or [0, 1, 2, 3, 10, 42]

    def _harvest(self, tree: ast.Module) -> None:
        for node in tree.body:
            for sub in ast.walk(node) if isinstance(node, (ast.Import, ast.ImportFrom)) else ():
                for alias in getattr(sub, "names", []):
                    self.star = self.star or alias.name == "*"
                    self.bound.add((alias.asname or alias.name).split(".")[0])
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound.add(node.name)
            for target in (node.targets if isinstance(node, ast.Assign) else
                           [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign))
                           else []):
                self.bound.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        self.pytest = "pytest" in self.bound and any(
            isinstance(n, ast.Import) and any(a.name == "pytest" and a.asname is None
                                              for a in n.names) for n in tree.body)
        tests = [n for n in tree.body if _is_test_def(n)]
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                tests.extend(c for c in node.body if _is_test_def(c))
        for test in tests:
            self.lengths.append(len(test.body))  # type: ignore[attr-defined]
            for sub in ast.walk(test):
                self._literal(sub)
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    if sub.id.isidentifier() and not sub.id.startswith("_"):
                        self.names.append(sub.id)
                elif isinstance(sub, ast.Assert):
                    self.forms.append(_form(sub.test))
                    self.messages += sub.msg is not None
                elif isinstance(sub, ast.withitem):
                    call = sub.context_expr
                    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                            and call.func.attr == "raises" and call.args
                            and isinstance(call.args[0], ast.Name)):
                        self.raises.append(call.args[0].id)

    def _literal(self, node: ast.AST) -> None:
        if not isinstance(node, ast.Constant):
            return
        value = node.value
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, str) and 0 < len(value) <= 24 and value.isprintable():
            self.strs.append(value)
        elif isinstance(value, int) and abs(value) < 10**6:
            self.ints.append(value)
        elif isinstance(value, float) and abs(value) < 1e6 and value == value:
            self.floats.append(value)
        elif isinstance(value, bytes) and 0 < len(value) <= 16:
            self.bytes.append(value)


def _form(test: ast.expr) -> str:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return "not"
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and (
            test.func.id == "isinstance"):
        return "isinstance"
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op = test.ops[0]
        if isinstance(op, (ast.Eq, ast.NotEq)):
            return "eq"
        if isinstance(op, (ast.In, ast.NotIn)):
            return "in"
        if isinstance(op, (ast.Is, ast.IsNot)):
            return "is"
        return "order"
    return "truth"


class _Raises:
    """``pytest.raises`` for checking a body where pytest cannot be imported."""

    def __init__(self, kind: type[BaseException]) -> None:
        self.kind = kind

    def __enter__(self) -> _Raises:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> bool:
        if kind is None or not issubclass(kind, self.kind):
            raise AssertionError("DID NOT RAISE")
        return True


class _Pytest:
    raises = _Raises


def _fits(value: object) -> bool:
    """A value a canary may spell as a literal: small, and ``repr`` gives it back."""
    text = repr(value)
    if len(text) > 60:
        return False
    try:
        return bool(ast.literal_eval(text) == value) and type(ast.literal_eval(text)) is type(
            value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


class _Writer:
    """One canary body: statements whose values are computed here, as they are written."""

    def __init__(self, rng: random.Random, mat: Material) -> None:
        self.rng, self.mat = rng, mat
        self.scope: dict[str, object] = {}
        self.lines: list[str] = []
        self.free = list(mat.names)
        rng.shuffle(self.free)

    def literal(self) -> str:
        rng, mat = self.rng, self.mat
        pools: list[list[object]] = [list(mat.strs), list(mat.ints)]
        pools += [list(p) for p in (mat.floats, mat.bytes) if p]
        pool = rng.choice(pools)
        return repr(rng.choice(pool))

    def expression(self) -> str:
        rng = self.rng
        lit = self.literal
        known = [n for n in self.scope if isinstance(self.scope[n], (str, list, dict, int))]
        shapes = [
            lambda: lit(),
            lambda: f"[{', '.join(lit() for _ in range(rng.randint(1, 4)))}]",
            lambda: "{" + ", ".join(f"{rng.choice(self.mat.strs)!r}: {lit()}"
                                    for _ in range(rng.randint(1, 3))) + "}",
            lambda: f"{rng.choice(self.mat.strs)!r} + {rng.choice(self.mat.strs)!r}",
            lambda: f"f\"{{{rng.choice(known) if known else lit()}}}-{{{lit()}}}\"",
            lambda: f"{rng.choice(self.mat.strs)!r}.{rng.choice(_METHODS)}()",
            lambda: f"{rng.choice(self.mat.calls)}({rng.choice(known) if known else lit()})",
            lambda: f"({lit()}, {lit()})",
        ]
        if not self.mat.calls:
            del shapes[-2]
        return rng.choice(shapes)()

    def run(self, source: str) -> bool:
        """Run one statement in the body's scope; ``False`` (scope unchanged) if it fails."""
        scope = dict(self.scope)
        try:
            exec(compile(source, "<canary>", "exec"),
                 {"__builtins__": builtins, "pytest": _Pytest}, scope)
        except Exception:
            return False
        if not all(_fits(v) or (isinstance(v, (set, tuple)) and _fits(sorted(v, key=repr)))
                   for v in scope.values()):
            return False
        self.scope = scope
        return True

    def assign(self) -> None:
        if not self.free:
            return
        name = self.free.pop()
        for _ in range(6):
            line = f"{name} = {self.expression()}"
            if self.run(line):
                self.lines.append(line)
                return

    def truth(self, wanted: bool) -> str | None:
        """An assert whose test is ``wanted`` in the body's scope, of one of the file's
        forms."""
        rng, scope = self.rng, self.scope
        if not scope:
            return None
        name = rng.choice(sorted(scope))
        value = scope[name]
        form = rng.choice(self.mat.forms or ["eq"])
        calls = self.mat.calls
        if form == "eq" and _fits(value):
            other = value if wanted else _other(rng, value)
            test = (f"{name} == {other!r}" if rng.random() < 0.8 or "len" not in calls
                    or not isinstance(value, (str, list, dict))
                    else f"len({name}) == {len(value) + (0 if wanted else 1)}")
        elif form == "in" and isinstance(value, (str, list, dict, tuple)) and value:
            if wanted:
                item = (value[rng.randrange(len(value)):][: rng.randint(1, 4)]
                        if isinstance(value, str) else rng.choice(list(value)))
            else:
                item = _other(rng, rng.choice(list(value)) if not isinstance(value, str)
                              else value + "x")
            test = f"{item!r} in {name}"
        elif form == "isinstance" and "isinstance" in calls and _other_type(value) in calls:
            kind = type(value).__name__ if wanted else _other_type(value)
            if kind in self.mat.bound:
                return None
            test = f"isinstance({name}, {kind})"
        elif form == "is":
            test = f"{name} is {'not ' if wanted else ''}None"
        elif form == "order" and isinstance(value, (int, float)) and not isinstance(
                value, bool):
            bound = value - 1 if wanted else value + 1
            test = f"{name} {rng.choice(('>', '>='))} {bound!r}"
        else:
            test = name if bool(value) == wanted else f"not {name}"
        line = f"assert {test}"
        if self.mat.messages and rng.random() < 0.3:
            line += f", {rng.choice(self.mat.strs)!r}"
        return line

    def raises(self) -> list[str] | None:
        rng = self.rng
        exc = rng.choice(self.mat.raises)
        _, template = _RAISERS[exc]
        source = template.format(d=repr({rng.choice(self.mat.strs): 1}),
                                 missing=repr(rng.choice(self.mat.strs) + "_"),
                                 l=repr([rng.choice(self.mat.ints)]), size=1,
                                 s=repr(rng.choice(self.mat.strs) + "!"),
                                 i=rng.choice([i for i in self.mat.ints if i >= 0] or [1]))
        lines = [f"with pytest.raises({exc}):", f"    {source}"]
        return lines if self.run("\n".join(lines) + "\n") else None


def _other(rng: random.Random, value: object) -> object:
    """A value of ``value``'s type that is not equal to it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.randint(1, 9)
    if isinstance(value, float):
        return value + rng.choice((0.5, 1.0, 2.0))
    if isinstance(value, str):
        return value + rng.choice(("s", "_", "1", " ")) if value else "x"
    if isinstance(value, bytes):
        return value + b"x"
    if isinstance(value, list):
        return [*value, value[0] if value else 0]
    if isinstance(value, tuple):
        return (*value, 0)
    if isinstance(value, dict):
        return {**value, "missing": 0}
    return [value]


def _other_type(value: object) -> str:
    return "list" if isinstance(value, str) else "str"


def _check(lines: list[str], true: bool) -> bool:
    """Whether the body (lines at no indent) passes when ``true``, and fails with an
    AssertionError when not, run on its own with builtins and a stand-in ``pytest``."""
    source = "def _canary():\n" + "".join(f"    {line}\n" for line in lines)
    space: dict[str, object] = {"__builtins__": builtins, "pytest": _Pytest}
    try:
        exec(compile(source, "<canary>", "exec"), space)
        space["_canary"]()  # type: ignore[operator]
    except AssertionError:
        return not true
    except Exception:
        return False
    return true


def _write(rng: random.Random, mat: Material, true: bool) -> list[str]:
    size = min(10, max(2, rng.choice(mat.lengths) if mat.lengths else rng.randint(2, 5)))
    writer = _Writer(rng, mat)
    asserts = max(1, round(size * rng.uniform(0.3, 0.6)))
    writer.assign()
    while len(writer.lines) < size - asserts:
        if mat.raises and rng.random() < 0.25:
            block = writer.raises()
            if block:
                writer.lines.extend(block)
                continue
        before = len(writer.lines)
        writer.assign()
        if len(writer.lines) == before:
            break
    body = writer.lines
    falsy = rng.randrange(asserts) if not true else -1
    for number in range(asserts):
        line = writer.truth(number != falsy)
        if line is not None:
            body.append(line)
    return body


def _body(rng: random.Random, *, true: bool, indent: str, mat: Material | None = None
          ) -> list[str]:
    """A canary body shaped like the file's tests (``mat``), that passes when ``true`` and
    fails with an AssertionError when not: checked by running it here, drawn again until it
    does (a plain body of the same kind after a few tries)."""
    mat = mat or Material(None)
    for _ in range(12):
        lines = _write(rng, mat, true)
        if any(line.startswith("assert") for line in lines) and _check(lines, true):
            return [indent + line for line in lines]
    a, b = rng.randint(2, 97), rng.randint(2, 97)
    lines = [f"{rng.choice(mat.names)} = {a} + {b}"]
    lines.append(f"assert {lines[0].split(' ')[0]} == {a + b if true else a + b + 1}")
    return [indent + line for line in lines]


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def place(text: str, seed: int, at: tuple[int, int] | None = None
          ) -> tuple[str, dict[str, str]]:
    """``text`` with the two canaries in, and what was placed: the names of the passing and
    failing canary and their classes (``""``: a top-level function). ``at`` picks the two
    places by index into :func:`spots` (tests); else they are drawn from ``seed``."""
    rng = random.Random(seed)
    try:
        tree: ast.Module | None = ast.parse(text)
    except (SyntaxError, ValueError):
        tree = None
    lines = split_lines(text)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    taken = _names_in(tree, text)
    words = _test_words(tree)
    mat = Material(tree)
    places = spots(tree) if tree is not None else []
    chosen = {}
    inserts: dict[int, list[str]] = {}
    appended: list[str] = []
    for number, role in enumerate(("pass", "fail")):
        name = make_name(rng, words, taken)
        line, kind, cls = ((places[at[number]] if at is not None else rng.choice(places))
                           if places else (0, "", ""))
        chosen[role], chosen[role + "_class"] = name, cls
        if line:
            indent = _indent_of(lines[line - 1]) if kind == "method" else ""
            args = "self" if kind == "method" else ""
            block = [f"{indent}def {name}({args}):", *_body(rng, true=role == "pass",
                                                              indent=indent + "    ", mat=mat)]
            blank = [""] if kind == "method" else ["", ""]
            inserts.setdefault(line, []).extend([*block, *blank])
        else:
            appended.extend(["", "", f"def {name}():",
                             *_body(rng, true=role == "pass", indent="    ", mat=mat)])
    return _render(lines, inserts, appended, newline), chosen


def _render(lines: list[str], inserts: dict[int, list[str]], appended: list[str],
            newline: str) -> str:
    out: list[str] = []
    for number, original in enumerate(lines, start=1):
        for added in inserts.get(number, []):
            out.append(added + newline)
        out.append(original)
    if appended:
        if out and not out[-1].endswith(("\n", "\r")):
            out[-1] += newline
        out.extend(added + newline for added in appended)
    return "".join(out)


def _skips_whole_module(text: str) -> bool:
    """Whether the module skips or marks all its tests at once (``pytestmark``, a top-level
    ``importorskip`` or ``skip``): canaries there would share that fate."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    for node in tree.body:
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign))
                   else [])
        if any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
            return True
        for call in ast.walk(node) if not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ():
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("importorskip", "skip")):
                return True
    return False


def _read(path: str) -> tuple[str, str] | None:
    """The text of the regular file ``path`` and its encoding (``None``: not a regular
    file)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
        return data.decode(encoding), encoding
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return data.decode("utf-8", errors="surrogateescape"), "utf-8"


def choose_target(paths: list[str], seed: int) -> str | None:
    """The file the canaries go into: in an order drawn from ``seed``, the first regular
    file that does not skip or mark its whole module, else the first regular file."""
    order = list(paths)
    random.Random(seed ^ 0x5EED).shuffle(order)
    readable = [p for p in order if _read(p) is not None]
    for path in readable:
        read = _read(path)
        if read is not None and not _skips_whole_module(read[0]):
            return path
    return readable[0] if readable else None


def main(argv: list[str]) -> int:
    paths, seed = [p for p in argv[1].split("\n") if p], int(argv[2])
    path = choose_target(paths, seed)
    if path is None:
        print(f"the canary target {argv[1]!r} is not a regular file")
        return 1
    read = _read(path)
    assert read is not None
    text, encoding = read
    placed, chosen = place(text, seed)
    chosen["target"] = path
    with open(path, "r+b") as handle:  # in place: the file keeps its inode and mode
        handle.write(placed.encode(encoding, errors="surrogateescape"))
        handle.truncate()
    print("arena-canaries " + json.dumps(chosen, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
