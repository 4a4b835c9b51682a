"""Reading a CooperBench ``runner.sh``: its test step and the projects it installs.

CooperBench runners are bash scripts whose test step takes many shapes (all seen in the
public dataset): `python -m pytest tests/x.py -v`; `timeout 300 python -m pytest "a.py" "b.py"
-v --tb=short`; a path in a variable (`TEST_PATH="..."` then `pytest "$TEST_PATH"`); an array
(`TEST_FILES=(...)` then `pytest "${TEST_FILES[@]}"`); a backslash-continued `--deselect`; output
piped into `tee`; a `cd` into a sub-project. What can be read statically is read (variables
and arrays assigned once at the top level, `cd`, launchers, flags); what depends on the run
(a value set in a branch, from `$1` or `$(...)`, a loop over files) is refused, naming the
line, with --test-command as the way out.

Pure logic over the script's text (no shell is run): :func:`derive_test_step` gives this
project's test command, :func:`install_folders` the projects to make importable.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from arena_bot.core.errors import DatasetError

#: Repository folder of CooperBench task images (their Dockerfiles clone it there).
RUNNER_REPO = "/workspace/repo"
_ASSIGNMENT = re.compile(r"^(?P<name>[A-Za-z_]\w*)=(?P<value>.*)$", re.DOTALL)
_ARRAY_START = re.compile(r"^(?:export\s+|declare\s+-a\s+|local\s+)?[A-Za-z_]\w*=\(")
_ENV_WORD = re.compile(r"^[A-Za-z_]\w*=")
_PYTHON = re.compile(r"^(?:\S*/)?python(?:3(?:\.\d+)?)?$")
_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_]\w*|\d+|[@*#?])(?P<index>\[(?:[@*]|\d+)\])?\}"
                        r"|\$(?P<bare>[A-Za-z_]\w*|\d|[@*#?])")
_OPENERS = {"if": "an if block", "case": "a case block", "for": "a loop", "while": "a loop",
            "until": "a loop", "select": "a loop"}
_CLOSERS = {"fi", "esac", "done", "}"}
_OPERATORS = ("&&", "||", ";;", ";", "|", "&")
_REDIRECT = re.compile(r"^\d*(?:>>?|<|>&|<&|&>)(?P<target>.*)$")
_DECLARATIONS = {"export", "local", "readonly", "declare", "typeset"}
#: pytest options this project sets itself, whose plugins CooperBench installs over the
#: network (pytest-xdist, pytest-cov), or that stop the run at the first failure (the
#: harness's failing canary would end it): dropped with a note. Value: takes an argument.
_DROPPED_OPTIONS = {"-n": True, "--numprocesses": True, "--dist": True, "--maxprocesses": True,
                    "--junitxml": True, "--junit-xml": True, "-x": False, "--exitfirst": False,
                    "--maxfail": True}
_DROPPED_PREFIXES = ("--cov",)
#: Environment the evaluation harness sets for every test run; a runner's export of these is
#: not carried over (PYTHONPATH is, in front of the harness's own entries).
_HARNESS_ENV = {"PYTEST_ADDOPTS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTHONNOUSERSITE",
                "PYTHONDONTWRITEBYTECODE", "ARENA_JUNIT", "PATH", "HOME"}
_GLOB_SAFE = re.compile(r"^[\w./*?\[\]=:@%+,-]+$")
_RUNNER_HINT = ("give the test command with --test-command; it runs in the repository folder "
                "and must write JUnit XML to $ARENA_JUNIT, e.g. --test-command "
                "'python3 -m pytest -p no:cacheprovider --junitxml=\"$ARENA_JUNIT\" tests/'")


@dataclass(frozen=True)
class TestStep:
    """runner.sh's test step as this project's command, and what the import left out."""

    __test__ = False  # not a pytest test class

    command: str
    line: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Variable:
    values: tuple[str, ...] | None  # None: the value depends on the run (see ``why``)
    line: int
    why: str = ""


@dataclass(frozen=True)
class _Word:
    text: str
    glob: bool  # unquoted glob characters: the test command's shell expands them


@dataclass(frozen=True)
class _Call:
    line: int
    words: tuple[str, ...]  # raw words (quotes kept) of the simple command that runs pytest
    cwd: str | None  # relative to the repository ("" = its root); None: unknown (see why_cwd)
    why_cwd: str
    block: str  # innermost enclosing compound command ("" at the top level)
    after_banner: bool  # after an `echo "Running tests..."` line
    variables: dict[str, _Variable]
    exports: dict[str, int]  # variables exported at the top level -> line of the export


def script_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, logical line)``: ``\\`` continuations and multi-line arrays joined,
    whole-line comments dropped."""
    result: list[tuple[int, str]] = []
    current, start = "", 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not current:
            start = number
            if stripped.startswith("#") or not stripped:
                continue
        elif stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        current += stripped
        if _ARRAY_START.match(current) and current.count("(") > current.count(")"):
            current += " "
            continue
        result.append((start, current.strip()))
        current = ""
    if current.strip():
        result.append((start, current.strip()))
    return result


def split_commands(line: str) -> list[list[str]]:
    """The simple commands of a shell line as raw words (quotes kept, redirections dropped).

    ``;``, ``&&``, ``||``, ``|`` and ``&`` separate commands; a ``#`` starting a word outside
    quotes ends the line; ``$(...)`` and ``(...)`` after ``=`` stay inside their word.
    Not :mod:`shlex`: it ends the line at a ``#`` inside a word (``tests/a#b.py``), splits
    ``$(...)`` and ``2>&1`` apart, and in POSIX mode drops the quotes :func:`expand_word` needs
    (a quoted ``"$VAR"`` is one word, an unquoted one is split).
    """
    return [words for words, _ in _commands_and_operators(line)]


def _commands_and_operators(line: str) -> list[tuple[list[str], str]]:
    """:func:`split_commands` with the operator that follows each command ("" at the end)."""
    commands: list[list[str]] = [[]]
    operators: list[str] = []
    word, quote, in_word, i = "", "", False, 0
    while i < len(line):
        char = line[i]
        if quote:
            word += char
            if char == "\\" and quote == '"' and i + 1 < len(line):
                word += line[i + 1]
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote, word, in_word = char, word + char, True
        elif char == "\\" and i + 1 < len(line):
            word, in_word = word + line[i : i + 2], True
            i += 1
        elif char == "#" and not in_word:
            break
        elif char == "(" and word.endswith(("$", "=")):  # $(...) or an array: one word
            end = _closing_paren(line, i)
            word, in_word = word + line[i : end + 1], True
            i = end
        elif char.isspace():
            if in_word:
                commands[-1].append(word)
            word, in_word = "", False
        elif (operator := _operator_at(line, i, word)) is not None:
            if in_word:
                commands[-1].append(word)
            word, in_word = "", False
            commands.append([])
            operators.append(operator)
            i += len(operator)
            continue
        else:
            word, in_word = word + char, True
        i += 1
    if in_word:
        commands[-1].append(word)
    operators.append("")
    return [(_without_redirections(words), operator)
            for words, operator in zip(commands, operators, strict=True) if words]


def _operator_at(line: str, i: int, word: str) -> str | None:
    operator = next((op for op in _OPERATORS if line.startswith(op, i)), None)
    if operator == "&" and (word.endswith((">", "<")) or line.startswith(">", i + 1)):
        return None  # 2>&1, &> file: part of a redirection
    return operator


def _closing_paren(line: str, start: int) -> int:
    depth, quote = 0, ""
    for index in range(start, len(line)):
        char = line[index]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
    return len(line) - 1


def _without_redirections(words: list[str]) -> list[str]:
    kept: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        match = _REDIRECT.match(word)
        if match:
            skip_next = not match.group("target")
            continue
        kept.append(word)
    return kept


def launcher_length(words: list[str]) -> int:
    """How many leading words launch pytest (``pytest``, ``python -m pytest``, ...); 0: none."""
    if not words:
        return 0
    if words[0] in {"pytest", "py.test"} or words[0].endswith("/pytest"):
        return 1
    if _PYTHON.match(words[0]) and words[1:3] == ["-m", "pytest"]:
        return 3
    if words[:2] in (["uv", "run"], ["poetry", "run"], ["pdm", "run"], ["hatch", "run"]):
        rest = launcher_length(words[2:])
        return rest + 2 if rest else 0
    return 0


def peel(words: list[str]) -> tuple[list[str], list[str]]:
    """``(environment assignments, command)``: ``timeout N``, ``env``, ``exec`` peeled off."""
    env: list[str] = []
    rest = list(words)
    while rest:
        if _ENV_WORD.match(rest[0]):
            env.append(rest.pop(0))
        elif rest[0] in {"exec", "env", "command", "time"}:
            rest.pop(0)
        elif rest[0] == "timeout":
            rest.pop(0)
            while rest and rest[0].startswith("-"):
                if rest.pop(0) in {"-s", "--signal", "-k", "--kill-after"} and rest:
                    rest.pop(0)
            if rest:
                rest.pop(0)  # the duration
        else:
            break
    return env, rest


def expand_word(raw: str, variables: dict[str, _Variable], *, path: Path,
                line: int) -> list[_Word]:
    """The words ``raw`` becomes once its variables are expanded, split as bash splits them
    (unquoted values split on blanks; ``"${ARR[@]}"`` one word per element)."""
    words: list[list[tuple[str, bool]]] = [[]]  # word -> its parts (text, quoted)
    i, quote = 0, ""
    while i < len(raw):
        char = raw[i]
        if quote == "'":
            if char == "'":
                quote = ""
            else:
                words[-1].append((char, True))
        elif char == "'" and not quote:
            quote = "'"
            words[-1].append(("", True))
        elif char == '"':
            quote = "" if quote else '"'
            words[-1].append(("", True))
        elif char == "\\" and i + 1 < len(raw):
            words[-1].append((raw[i + 1], True))
            i += 1
        elif char == "`" or raw.startswith("$(", i):
            raise _refusal(f"the test step runs a command substitution: {raw}", path, line)
        elif char == "$" and (match := _REFERENCE.match(raw, i)):
            name = match.group("name") or match.group("bare")
            values = list(_lookup(name, variables, path=path, line=line))
            index = match.group("index") or ""
            if index[1:-1].isdigit():
                number = int(index[1:-1])
                values = values[number : number + 1]
            elif not index and name not in {"@", "*"}:
                values = values[:1]  # $ARR is its first element
            pieces = values if quote else " ".join(values).split()
            if quote and not (index in {"[@]"} or name == "@"):
                pieces = [" ".join(values)]
            for number, piece in enumerate(pieces):
                if number:
                    words.append([])
                words[-1].append((piece, bool(quote)))
            i = match.end()
            continue
        elif char == "$" and raw.startswith("${", i):
            raise _refusal(f"the test step uses a parameter expansion bash computes at run "
                           f"time: {raw}", path, line)
        else:
            words[-1].append((char, bool(quote)))
        i += 1
    return [_Word(text="".join(text for text, _ in parts),
                  glob=any(not quoted and any(c in text for c in "*?[") for text, quoted in parts))
            for parts in words if parts]


def _render(word: _Word) -> str:
    if word.glob and _GLOB_SAFE.match(word.text):
        return word.text
    return shlex.quote(word.text)


def _lookup(name: str, variables: dict[str, _Variable], *, path: Path,
            line: int) -> tuple[str, ...]:
    variable = variables.get(name)
    if variable is None:
        what = "a runner argument" if name.isdigit() or name in "@*#?" else "never assigned"
        raise _refusal(f"the test step uses ${name}, {what} before it", path, line)
    if variable.values is None:
        raise _refusal(f"the test step uses ${name}, whose value depends on the run "
                       f"({variable.why} on line {variable.line})", path, line)
    return variable.values


def _refusal(message: str, path: Path, line: int) -> DatasetError:
    return DatasetError(f"{message}; the test command cannot be read from runner.sh "
                        "(use --test-command)", path=path, line=line, hint=_RUNNER_HINT)


def _assignment(words: list[str], *, variables: dict[str, _Variable], block: str, line: int,
                path: Path) -> None:
    """Record ``NAME=value`` / ``NAME=(a b)`` (a value set in a block or twice is uncertain)."""
    words = words[1:] if words[0] in _DECLARATIONS else words
    for word in words:
        match = _ASSIGNMENT.match(word)
        if match is None:
            continue
        name, raw = match.group("name"), match.group("value")
        if block:
            variables[name] = _Variable(None, line, f"assigned inside {block}")
            continue
        if name in variables:
            variables[name] = _Variable(None, line, "assigned more than once")
            continue
        try:
            if raw.startswith("(") and raw.endswith(")"):
                elements = [w for command in split_commands(raw[1:-1]) for w in command]
                values = tuple(piece.text for element in elements
                               for piece in expand_word(element, variables, path=path,
                                                        line=line))
            else:
                values = (" ".join(piece.text for piece in expand_word(
                    raw, variables, path=path, line=line)),)
        except DatasetError as exc:
            why = exc.message.split("; the test command", 1)[0]
            variables[name] = _Variable(None, line, why.replace("the test step", "its value"))
            continue
        variables[name] = _Variable(values, line)


def _change_directory(words: list[str], cwd: str | None) -> tuple[str | None, str]:
    """The repository-relative folder after ``cd WORDS`` (None: unknown), and why."""
    if len(words) != 2 or any(c in words[1] for c in "$`*?") or words[1] == "-":
        return None, f"`{' '.join(words)}` goes to a folder known only at run time"
    target = shlex.split(words[1])[0] if words[1] else ""
    if target.startswith("/"):
        if target.rstrip("/") != RUNNER_REPO and not target.startswith(RUNNER_REPO + "/"):
            return None, f"`cd {target}` leaves the repository ({RUNNER_REPO})"
        target, cwd = target[len(RUNNER_REPO):], ""
    if cwd is None:
        return None, "a relative cd after an unknown one"
    parts = [part for part in cwd.split("/") if part]
    for part in target.split("/"):
        if part == "..":
            if not parts:
                return None, f"`cd {target}` leaves the repository"
            parts.pop()
        elif part not in {"", "."}:
            parts.append(part)
    return "/".join(parts), ""


def _pytest_calls(text: str, *, path: Path) -> list[_Call]:
    """Every simple command of the script that runs pytest, with its context."""
    variables: dict[str, _Variable] = {}
    blocks: list[str] = []
    cwd: str | None = ""
    why_cwd = ""
    banner = False
    exports: dict[str, int] = {}
    calls: list[_Call] = []
    for number, line in script_lines(text):
        for words in split_commands(line):
            head = words[0]
            if head in {"then", "do", "else", "elif"} and len(words) > 1:
                words = words[1:]
                head = words[0]
            if head in _OPENERS:
                blocks.append(_OPENERS[head])
            elif head in _CLOSERS:
                if blocks:
                    blocks.pop()
                continue
            elif head.endswith("()") or head == "function" or words[1:2] == ["()"]:
                blocks.append("a function")
            elif head == "{":
                blocks.append("a group")
            if head == "echo" and re.search(r"running[ _]tests", line, re.IGNORECASE):
                banner = True
            block = blocks[-1] if blocks else ""
            if head in _DECLARATIONS or all(_ENV_WORD.match(w) for w in words):
                _assignment(words, variables=variables, block=block, line=number, path=path)
                if head == "export" and not block:
                    exports.update({word.split("=", 1)[0]: number for word in words[1:]
                                    if re.match(r"^[A-Za-z_]\w*(=|$)", word)})
                continue
            if head == "cd":
                if block:
                    cwd, why_cwd = None, f"`cd` inside {block} on line {number}"
                else:
                    cwd, why_cwd = _change_directory(words, cwd)
                    why_cwd = f"{why_cwd} (line {number})" if why_cwd else ""
                continue
            _, command = peel(words)
            if launcher_length(command):
                calls.append(_Call(line=number, words=tuple(words), cwd=cwd, why_cwd=why_cwd,
                                   block=block, after_banner=banner, variables=dict(variables),
                                   exports=dict(exports)))
    return calls


#: Test runners of other languages' projects (CooperBench has Go, Rust and TypeScript tasks),
#: with the language each means; launchers before them (``timeout 300``, ``npx``) allowed.
_OTHER_RUNNERS = re.compile(
    r"(?:^|[\s;&|(])(?P<command>(?P<tool>go|cargo|npm|pnpm|yarn|mvn|gradle|dotnet)(?:@\S+)?"
    r"(?:\s+run)?\s+(?:test|nextest)|(?P<js>jest|vitest|mocha)|(?P<ruby>rspec))(?=$|[\s;&|)])")
_LANGUAGES = {"go": "Go", "cargo": "Rust", "npm": "JavaScript", "pnpm": "JavaScript",
              "yarn": "JavaScript", "mvn": "Java", "gradle": "Java", "dotnet": ".NET"}


def _other_runner(text: str) -> tuple[int, str, str] | None:
    """The first line of runner.sh that runs another language's tests: (line, command,
    language)."""
    for number, line in enumerate(text.splitlines(), 1):
        found = _OTHER_RUNNERS.search(line.split("#", 1)[0])
        if found is not None:
            tool = found["tool"]
            language = (_LANGUAGES[tool] if tool else "JavaScript" if found["js"] else "Ruby")
            return number, found["command"], language
    return None


def derive_test_step(text: str, *, path: Path) -> TestStep:
    """runner.sh's test step as this project's command (pytest writing ``$ARENA_JUNIT``).

    The step is the first pytest call after an ``echo "Running tests..."`` line (or the first
    at all) outside loops and functions; later pytest calls are secondary steps, left out and
    said in the notes. Raises DatasetError (naming runner.sh and the line) when the step can
    only be known by running the script.
    """
    calls = _pytest_calls(text, path=path)
    if not calls:
        other = _other_runner(text)
        if other is not None:
            number, command, language = other
            raise DatasetError(
                f"runner.sh runs its tests with `{command}` (line {number}): a {language} "
                "task, and task images here hold Python and pytest only (evaluation reads "
                "pytest's JUnit report)", path=path,
                hint="import a Python task of CooperBench; this one cannot be evaluated here")
        raise DatasetError("no pytest test step found in runner.sh", path=path, hint=_RUNNER_HINT)
    usable = [call for call in calls if call.block not in {"a loop", "a function"}]
    if not usable:
        first = calls[0]
        raise _refusal(f"its pytest calls run only inside {first.block}, over values known "
                       "at run time", path, first.line)
    chosen = next((call for call in usable if call.after_banner), usable[0])
    notes = [f"runner.sh line {call.line} runs more tests ({' '.join(call.words)}): not "
             "carried over; fold them into --test-command if they matter"
             for call in calls if call is not chosen]
    command, dropped = _test_command(chosen, path=path)
    notes += dropped
    return TestStep(command=command, line=chosen.line, notes=tuple(notes))


def _test_command(call: _Call, *, path: Path) -> tuple[str, list[str]]:
    if call.cwd is None:
        raise _refusal(f"the test step runs in a folder known only at run time: {call.why_cwd}",
                       path, call.line)
    env, command = peel(list(call.words))
    args = command[launcher_length(command):]
    expanded = [word for raw in args
                for word in expand_word(raw, call.variables, path=path, line=call.line)]
    exported, notes = _exported_env(call, given={raw.split("=", 1)[0] for raw in env})
    prefix = "".join(word + " " for word in
                     [*exported, *(_env_word(raw, call, path=path) for raw in env)])
    kept, dropped = _pytest_options(expanded)
    rendered = " ".join(_render(word) for word in kept)
    pytest = (f'{prefix}python3 -m pytest -p no:cacheprovider --junitxml="$ARENA_JUNIT" '
              f"{rendered}").strip()
    if call.cwd:
        pytest = f"cd {shlex.quote(call.cwd)} && {pytest}"
    notes += [f"dropped `{' '.join(option)}` from runner.sh line {call.line} (a plugin not "
              "installed, an option this project sets itself, or a stop at the first failure, "
              "which the harness's failing canary would be)" for option in dropped]
    return pytest, notes


def _exported_env(call: _Call, *, given: set[str]) -> tuple[list[str], list[str]]:
    """``NAME=value`` words for the variables the runner exports before its test step (the
    tests see them: ``export TRANSFORMERS_NO_TF=1``), and notes for those left out: set by
    the harness (its pytest lock-down) or known only at run time. ``PYTHONPATH`` keeps the
    harness's entries after the runner's."""
    words: list[str] = []
    notes: list[str] = []
    for name, line in call.exports.items():
        variable = call.variables.get(name)
        if name in given:
            continue
        if name in _HARNESS_ENV:
            notes.append(f"left out `export {name}` (runner.sh line {line}): the test "
                         "sandbox sets it")
        elif variable is None or variable.values is None:
            notes.append(f"left out `export {name}` (runner.sh line {line}): its value depends "
                         "on the run")
        elif name == "PYTHONPATH":
            words.append(f"PYTHONPATH={shlex.quote(' '.join(variable.values))}:$PYTHONPATH")
        else:
            words.append(f"{name}={shlex.quote(' '.join(variable.values))}")
    return words, notes


def _env_word(raw: str, call: _Call, *, path: Path) -> str:
    """An environment assignment of the test step (``PYTHONPATH=src:$PYTHONPATH``): the
    script's own variables expanded, the image's environment (never assigned in the script)
    left for the test command's shell."""
    name, _, value = raw.partition("=")
    if not any((ref.group("name") or ref.group("bare")) in call.variables
               for ref in _REFERENCE.finditer(value)) and "`" not in value \
            and "$(" not in value:
        return raw
    words = expand_word(value, call.variables, path=path, line=call.line)
    return f"{name}={shlex.quote(' '.join(word.text for word in words))}"


def _pytest_options(words: list[_Word]) -> tuple[list[_Word], list[list[str]]]:
    """The pytest arguments to keep, and the options dropped (see :data:`_DROPPED_OPTIONS`)."""
    kept: list[_Word] = []
    dropped: list[list[str]] = []
    index = 0
    while index < len(words):
        text = words[index].text
        name = text.split("=", 1)[0]
        following = words[index + 1].text if index + 1 < len(words) else None
        if [text, following] == ["-p", "no:cacheprovider"] or text == "-pno:cacheprovider":
            index += 1 if text == "-pno:cacheprovider" else 2  # the command sets it already
            continue
        if name in _DROPPED_OPTIONS or name.startswith(_DROPPED_PREFIXES) \
                or (name.startswith("-n") and not name.startswith("--")):
            takes = _DROPPED_OPTIONS.get(name, False) and text == name
            option = [text] + ([following] if takes and following is not None else [])
            dropped.append(option)
            index += len(option)
            continue
        kept.append(words[index])
        index += 1
    return kept, dropped


def install_folders(text: str) -> tuple[str, ...]:
    """The projects runner.sh installs with ``pip install -e DIR`` (``uv pip``, ``python -m
    pip`` alike), repository-relative; ``(".",)`` when it names none (or only ones known at
    run time). A monorepo runner installs a sub-project (``pip install -e ./pkg-core``)."""
    return tuple(install_extras(text)) or (".",)


def install_extras(text: str) -> dict[str, str]:
    """:func:`install_folders` -> the extras the runner first installs each with
    (``pip install -e ".[dev]"``: ``dev``; ``""`` when it names none)."""
    found: dict[str, str] = {}
    for folder, extras, _ in _editable_installs(text):
        found.setdefault(folder, extras)
    return found


def install_fallbacks(text: str) -> dict[str, tuple[str, ...]]:
    """The extras the runner installs a project with when its first install fails, in
    order: a failure the runner goes past (``pip install -e ".[test]" || pip install -e .``,
    ``if pip install -e ".[test]"; then ...; else pip install -e .; fi``: outlines' runners)
    leads to the next install of the same project (``""``: the bare project). Projects
    without one are left out."""
    installs: dict[str, list[tuple[str, bool]]] = {}
    for folder, extras, tolerated in _editable_installs(text):
        installs.setdefault(folder, []).append((extras, tolerated))
    found: dict[str, tuple[str, ...]] = {}
    for folder, chain in installs.items():
        after = [extras for index, (extras, _) in enumerate(chain[1:])
                 if all(tolerated for _, tolerated in chain[: index + 1])]
        if after:
            found[folder] = tuple(dict.fromkeys(after))
    return found


def _editable_installs(text: str) -> list[tuple[str, str, bool]]:
    """Each ``pip install -e`` of the runner in order: the folder (repository-relative),
    the extras and whether the runner goes on when it fails (the left of ``||``, an ``if``
    condition)."""
    found: list[tuple[str, str, bool]] = []
    cwd: str | None = ""
    for _, line in script_lines(text):
        for words, operator in _commands_and_operators(line):
            if words[0] == "cd":
                cwd, _ = _change_directory(words, cwd)
                continue
            _, command = peel(words)
            target = _editable_target(command)
            if target is None or cwd is None:
                continue
            folder, _ = _change_directory(["cd", shlex.quote(target[0])], cwd)
            if folder is not None:
                found.append((folder or ".", target[1], operator == "||" or words[0] == "if"))
    return found


#: ``pip install`` options whose value is the next word.
_PIP_VALUE_OPTIONS = {"-e", "--editable", "-r", "--requirement", "-c", "--constraint", "-i",
                      "--index-url", "--extra-index-url", "-f", "--find-links", "-t",
                      "--target", "--python", "-p"}
#: What runner.sh may install by name that the wheelhouse has its own way: pip and pytest
#: (pinned by this project), pytest-xdist (its options are dropped from the test step).
_OWN_TOOLS = {"pip", "pytest", "pytest-xdist", "uv"}


def install_requirements(text: str) -> tuple[str, ...]:
    """The requirements runner.sh installs by name (``pip install "pyarrow==20.0.0" Pillow``,
    every alternative of an ``||``), in order: CooperBench's image has them, and the tests
    may need them (a pin the project's own metadata does not make, a test-only package)."""
    found: list[str] = []
    for _, line in script_lines(text):
        for words in split_commands(line):
            _, command = peel(words)
            rest = _pip_install_args(command)
            skip = False
            for word in rest or []:
                if skip or word.startswith("-"):
                    skip = not skip and word in _PIP_VALUE_OPTIONS
                    continue
                if any(c in word for c in "$`"):
                    continue
                requirement = shlex.split(word)[0] if word.strip("'\"") else ""
                name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
                if name is None or "/" in requirement or requirement.startswith("."):
                    continue  # a path or URL: the project itself or not static
                if re.sub(r"[-_.]+", "-", name[0]).lower() not in _OWN_TOOLS \
                        and requirement not in found:
                    found.append(requirement)
    return tuple(found)


def _pip_install_args(words: list[str]) -> list[str] | None:
    """The words after ``pip install`` (``uv pip``, ``python -m pip`` alike; behind ``if``,
    ``then``, ``!``), or None."""
    while words[:1] in (["if"], ["then"], ["else"], ["!"]):
        words = words[1:]
    if words[:1] in (["pip"], ["pip3"]):
        rest = words[1:]
    elif words[:2] == ["uv", "pip"]:
        rest = words[2:]
    elif words and _PYTHON.match(words[0]) and words[1:3] == ["-m", "pip"]:
        rest = words[3:]
    else:
        return None
    return rest[1:] if rest[:1] == ["install"] else None


def _editable_target(words: list[str]) -> tuple[str, str] | None:
    """The folder and extras of ``pip install -e FOLDER[extras]``, or None (not one, or not
    static)."""
    rest = _pip_install_args(words)
    if rest is None:
        return None
    for index, word in enumerate(rest):
        if word in {"-e", "--editable"} and index + 1 < len(rest):
            raw = rest[index + 1]
        elif word.startswith(("-e", "--editable=")) and word not in {"-e", "--editable"}:
            raw = word.removeprefix("--editable=").removeprefix("-e")
        else:
            continue
        if any(c in raw for c in "$`"):
            return None
        spec = shlex.split(raw)[0] if raw.strip() else ""
        extras = re.search(r"\[(.*)\]$", spec)
        target = spec[: extras.start()] if extras else spec
        if "://" in target or target.startswith("git+"):
            return None
        return target or ".", extras.group(1).replace(" ", "") if extras else ""
    return None


def read_test_step(path: Path) -> TestStep:
    """:func:`derive_test_step` of the file ``path``."""
    if not path.is_file():
        raise DatasetError("CooperBench task folder has no runner.sh", path=path.parent,
                           hint="or give the test command with --test-command")
    return derive_test_step(path.read_text(encoding="utf-8", errors="replace"), path=path)
