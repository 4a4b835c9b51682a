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
methods), and their bodies are varied small computations, one true and one false. The
chosen names and classes are printed as one JSON line for the harness's status.
"""

from __future__ import annotations

import ast
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


def _body(rng: random.Random, *, true: bool, indent: str) -> list[str]:
    a, b = rng.randint(2, 97), rng.randint(2, 97)
    kind = rng.randrange(3)
    if kind == 0:
        result = a + b if true else a + b + rng.randint(1, 9)
        lines = [f"result = {a} + {b}", f"assert result == {result}"]
    elif kind == 1:
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(a % 7 + 3))
        size = len(word) if true else len(word) + rng.randint(1, 5)
        lines = [f"value = {word!r}", f"assert len(value) == {size}"]
    else:
        items = [rng.randint(0, 50) for _ in range(b % 4 + 2)]
        low = min(items) if true else min(items) - rng.randint(1, 9)
        lines = [f"items = {items!r}", f"assert min(items) == {low}"]
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
                                                              indent=indent + "    ")]
            blank = [""] if kind == "method" else ["", ""]
            inserts.setdefault(line, []).extend([*block, *blank])
        else:
            appended.extend(["", "", f"def {name}():",
                             *_body(rng, true=role == "pass", indent="    ")])
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


def place_everywhere(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with a canary at every place :func:`spots` finds, all at once (insertions
    at distinct statement boundaries are independent: what proves one file's every place in
    one parse); and the ``(class, name)`` of each canary."""
    tree = ast.parse(text)
    lines = split_lines(text)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    rng = random.Random(0)
    taken = _names_in(tree, text)
    words = _test_words(tree)
    inserts: dict[int, list[str]] = {}
    placed: list[tuple[str, str]] = []
    for line, kind, cls in spots(tree):
        name = make_name(rng, words, taken)
        indent = _indent_of(lines[line - 1]) if kind == "method" else ""
        block = [f"{indent}def {name}({'self' if kind == 'method' else ''}):",
                 *_body(rng, true=True, indent=indent + "    ")]
        inserts.setdefault(line, []).extend([*block, *([""] if kind == "method" else ["", ""])])
        placed.append((cls, name))
    return _render(lines, inserts, [], newline), placed


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
