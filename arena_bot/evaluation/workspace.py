"""The tests' writable workspace (stdlib only: runs inside the sandbox as
``python3 -I -S /arena/workspace.py open|adopt|close RULES LIST``, before any submitted code).

The tests run as the tester, another uid than the owner of the repository, so that they
cannot rewrite the protected test files. Upstream runners give tests a writable checkout
(jinja's tests ``os.utime`` a template, which needs its owner), so every file that is not
protected is handed to the tester, in three steps no submitted code runs between:

* ``open`` (owner): lists the repository's files (``git ls-files``: tracked and new, not
  ignored), keeps those no rule protects, writes the list to LIST and makes their folders
  writable for a moment;
* ``adopt`` (tester): replaces each listed file with a copy of its own (same content and mode
  bits, owned by the tester);
* ``close`` (owner): makes those folders read-only again (no file can be added, removed or
  renamed in the repository, so no ``conftest.py`` can appear while the tests run).

Protected, so never handed over (RULES: the host's :class:`~arena_bot.intake.patches.ProtectedPaths`
as data, compared folded as the host folds): every file a tests patch touches, the names and
suffixes protected everywhere (``conftest.py``, ``.pth``...), every Python file (code
stays exactly as the harness set it: the submission's and the tests' alike), ``.git`` and
the project's configuration files. Data files, also under the task's protected patterns
(templates, fixtures), are handed over: patches cannot change them, the tests may (a known
limit: so may code under test while the tests run).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import unicodedata

_PYTHON = (".py", ".pyc", ".pyi", ".pth", ".pyx", ".so")
_CONFIG = ("pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "pytest.ini", "noxfile.py")


def _fold(path: str, confusables: dict[int, str]) -> str:
    return unicodedata.normalize("NFKC", path).translate(confusables).casefold()


def protected(path: str, rules: dict[str, object]) -> bool:
    """Whether ``path`` (repository-relative) stays the owner's."""
    parts = path.split("/")
    if parts[0] == ".git" or parts[-1] in _CONFIG:
        return True
    if path.endswith(_PYTHON):
        return True  # code stays as the harness set it (only data is the tests' to touch)
    confusables = {int(k): v for k, v in rules["confusables"].items()}  # type: ignore[attr-defined]
    folded = _fold(path, confusables)
    if folded in rules["exact"]:  # type: ignore[operator]
        return True
    for part in folded.split("/"):
        if part in rules["names"] or part.endswith(tuple(rules["suffixes"])):  # type: ignore[operator,arg-type]
            return True
    return False  # data under the task's protected patterns: see the module docstring


def handed_over(rules: dict[str, object]) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, check=True).stdout
    paths = sorted({p for p in listed.decode("utf-8", "surrogateescape").split("\0") if p})
    return [p for p in paths if "\n" not in p and not protected(p, rules)
            and os.path.isfile(p) and not os.path.islink(p)]


def folders(paths: list[str]) -> list[str]:
    return sorted({os.path.dirname(p) or "." for p in paths})


def main(argv: list[str]) -> int:
    step, rules_path, list_path = argv[1], argv[2], argv[3]
    if step == "open":
        with open(rules_path, encoding="utf-8") as handle:
            rules = json.load(handle)
        rules["exact"] = set(rules["exact"])
        rules["names"] = set(rules["names"])
        paths = handed_over(rules)
        with open(list_path, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write("\n".join(paths))
        for folder in folders(paths):
            os.chmod(folder, 0o777)
        return 0
    with open(list_path, encoding="utf-8", errors="surrogateescape") as handle:
        paths = [p for p in handle.read().split("\n") if p]
    if step == "adopt":
        for path in paths:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode):
                continue
            copy = f"{path}.arena-{os.getpid()}"
            shutil.copyfile(path, copy, follow_symlinks=False)
            os.chmod(copy, stat.S_IMODE(info.st_mode) | 0o600)
            os.utime(copy, ns=(info.st_atime_ns, info.st_mtime_ns))
            os.replace(copy, path)
        return 0
    if step == "close":
        for folder in folders(paths):
            os.chmod(folder, 0o755)
        return 0
    print(f"unknown step {step}")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
