"""Static review flags of a submission as the files are, not only as the patch shows them.

The patch text does not show everything Python will run. A rename or copy at 100%
similarity carries a whole file of the base commit and shows none of it; a file may declare
its source encoding on a line no hunk shows. So after ``harness.sh setup`` applied the patch
(as the owner, before any submitted code ran), the harness reads back what ``git apply``
wrote: every renamed or copied file whole (judged by its content, every line as added), and
the first two lines of each changed file whose hunks do not show them (its declared
encoding). The checks of :mod:`.flags` then run on that view too.

``static_flags`` is the pre-run entry point (the patch text plus the literal values of the
task's tests, for answer tables).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import secrets
import shlex
from functools import lru_cache

from arena_bot.evaluation.flags import literals_of_patches, review_flags
from arena_bot.intake.patches import FilePatch, Hunk, Patch, ProtectedPaths, parse_patch
from arena_bot.models.evaluation import ReviewFlag
from arena_bot.sandbox.base import Sandbox
from arena_bot.tasks.dataset import TaskFolder

#: A carried file larger than this is read up to here (the checks need its code, not data).
MAX_CARRIED_BYTES = 2 * 1024 * 1024
#: Files read back per patch (a patch renaming thousands of files is read in part).
MAX_FILES = 200
_TIMEOUT = 60.0


def static_flags(patch_text: str, *, task: TaskFolder, protected: ProtectedPaths,
                 processes: bool = False) -> list[ReviewFlag]:
    """The review flags of the patch text (see :func:`arena_bot.evaluation.flags.review_flags`)
    with the task's tests' literal values; ``processes``: the feature's tests stand in for
    the process API (:func:`arena_bot.evaluation.flags.stands_in_for_processes`)."""
    return review_flags(parse_patch(patch_text), protected=protected,
                        tests_literals=task_literals(task), processes_expected=processes)


def task_literals(task: TaskFolder) -> frozenset[str]:
    """The literal values of every feature's tests patch of ``task`` (cached per content)."""
    texts = tuple(task.feature(f).tests_patch.read_text(encoding="utf-8", errors="replace")
                  for f in task.spec.feature_ids())
    return _literals(texts)


@lru_cache(maxsize=32)
def _literals(texts: tuple[str, ...]) -> frozenset[str]:
    return literals_of_patches(list(texts))


def applied_flags(sandbox: Sandbox, patch_text: str, *, protected: ProtectedPaths,
                  literals: frozenset[str], repo_dir: str,
                  processes: bool = False) -> list[ReviewFlag]:
    """The review flags of what ``git apply`` wrote that the patch does not show: renamed
    and copied files whole, and the declared encoding of changed files (see the module)."""
    patch = parse_patch(patch_text)
    wanted: list[tuple[FilePatch, bool]] = []  # (file, whole)
    for file in patch.files:
        if file.new_path is None or file.binary or protected.rule_for(file.new_path):
            continue
        if file.status in ("renamed", "copied"):
            wanted.append((file, True))
        elif (file.status == "modified" and file.new_path.endswith((".py", ".pyw"))
              and not any(h.new_start <= 1 for h in file.hunks)):
            wanted.append((file, False))
    if not wanted:
        return []
    contents = _read_back(sandbox, [(f.new_path or "", whole) for f, whole in
                                    wanted[:MAX_FILES]], repo_dir=repo_dir)
    files: list[FilePatch] = []
    for (file, whole), data in zip(wanted, contents, strict=False):
        if data is None:
            continue
        lines = data.decode("utf-8", "surrogateescape").splitlines()
        if whole:
            files.append(FilePatch(
                old_path=None, new_path=file.new_path, status="added", line=file.line,
                added=len(lines), hunks=(Hunk(0, 0, 1, len(lines), file.line,
                                              tuple("+" + line for line in lines)),)))
        elif lines:
            first = file.hunks[0].new_start if file.hunks else 3
            head = lines[: max(0, min(2, first - 1))]
            shown = Hunk(1, len(head), 1, len(head), file.line,
                         tuple(" " + line for line in head))
            files.append(dataclasses.replace(file, hunks=(shown, *file.hunks)))
    if not files:
        return []
    flags = review_flags(Patch(files=tuple(files), problems=()), protected=protected,
                         tests_literals=literals, processes_expected=processes)
    carried = {f.new_path for f, whole in wanted if whole}
    return [flag.model_copy(update={"reason": f"{flag.reason} (in the content a rename or "
                                              "copy carries)"})
            if flag.file in carried else flag for flag in flags]


def _read_back(sandbox: Sandbox, files: list[tuple[str, bool]], *,
               repo_dir: str) -> list[bytes | None]:
    """Each file's bytes as the owner reads them in the sandbox (whole, or its first two
    lines); ``None`` for one that could not be read."""
    nonce = secrets.token_hex(8)
    script = []
    for index, (path, whole) in enumerate(files):
        quoted = shlex.quote(path)
        read = (f"head -c {MAX_CARRIED_BYTES} -- {quoted}" if whole
                else f"head -n 2 -- {quoted}")
        script.append(f"printf '\\narena-file {nonce} {index}\\n'; "
                      f"if [ -f {quoted} ] && [ ! -L {quoted} ]; then {read} | base64 -w0; fi")
    result = sandbox.exec(["sh", "-c", "\n".join(script)], timeout=_TIMEOUT, workdir=repo_dir)
    found: list[bytes | None] = [None] * len(files)
    marker = f"arena-file {nonce} "
    for chunk in result.output.split(marker)[1:]:
        number, _, body = chunk.partition("\n")
        if not number.strip().isdigit() or int(number) >= len(files):
            continue
        try:
            found[int(number)] = base64.b64decode(body.strip(), validate=True)
        except (binascii.Error, ValueError):
            continue
    return found
