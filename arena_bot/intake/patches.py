"""Parsing and safety checks of submitted patches (unified diffs in git format).

Pure code: no git, no Docker. :func:`parse_patch` (text) and :func:`load_patch` (file) return
a :class:`Patch` with every :class:`PatchProblem` found; :func:`protected_paths_for` collects
what a task protects (:meth:`ProtectedPaths.violations`).

Why not the ``unidiff`` package: it is lenient by design (it skips what it does not
understand) and does not report git's extended headers (modes, symlinks, submodules, binary
patches) as problems, which are exactly the cases that must be refused here. The parser below
follows ``git apply``'s reading of a diff (``-p1``: paths start with ``a/`` and ``b/``) and
turns everything unexpected into a problem with its line number instead of guessing.
"""

from __future__ import annotations

import codecs
import errno
import fnmatch
import functools
import io
import os
import re
import stat
import tokenize
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal, TypeVar

from arena_bot.core.config import DEFAULT_CONFIG
from arena_bot.core.files import read_at_most

if TYPE_CHECKING:  # only for type hints: keeps this module free of the dataset loader
    from arena_bot.tasks.dataset import TaskFolder

#: Patches of this project are source edits; anything bigger is a mistake or an attack.
#: The defaults of arena.yaml's ``limits`` (validation passes the configured values).
MAX_PATCH_BYTES = DEFAULT_CONFIG.limits.patch_bytes
MAX_PATCH_LINES = DEFAULT_CONFIG.limits.patch_lines
#: Caps for the dataset's own (trusted) patches.
DATASET_PATCH_BYTES = 64 * 1024 * 1024
DATASET_PATCH_LINES = 2_000_000
#: Problems reported per patch; more would only flood the pull request.
MAX_PROBLEMS = 50

_R = TypeVar("_R")

FileStatus = Literal["modified", "added", "deleted", "renamed", "copied"]

#: Problem codes (stable: the validator and the harness report them):
PatchProblemCode = Literal[
    "empty-patch",  # nothing but whitespace
    "not-a-diff",  # no file section, or a line that cannot be part of a unified diff
    "too-large",  # over MAX_PATCH_BYTES / MAX_PATCH_LINES
    "not-utf8",  # the file is not UTF-8 text
    "not-a-file",  # the patch file is missing, a symlink or not a regular file
    "unsafe-path",  # absolute, '..', '.git', backslash, control characters, no a/ b/ prefix
    "symlink",  # mode 120000
    "submodule",  # mode 160000 (gitlink)
    "binary",  # GIT binary patch / Binary files ... differ
    "bad-hunk",  # a hunk whose line counts do not match its header
]

#: What ``git diff`` writes instead of a/ and b/ with ``diff.mnemonicPrefix`` set: commit,
#: index, work tree, object, and the two sides of ``--no-index``.
_MNEMONIC_PREFIXES = frozenset({"c/", "i/", "w/", "o/", "1/", "2/"})
_SYMLINK_MODE = "120000"
_GITLINK_MODE = "160000"
_ALLOWED_MODES = {"100644", "100755", "100664"}

#: Control characters, bidi overrides/isolates and zero-width characters: a path containing
#: them can display as something it is not.
_INVISIBLE = re.compile(
    "[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)
_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_MODE_LINE = re.compile(
    r"^(old mode|new mode|deleted file mode|new file mode) ([0-7]{6})\s*$"
)
_INDEX_LINE = re.compile(r"^index [0-9a-fA-F]+\.\.[0-9a-fA-F]+(?: ([0-7]{6}))?\s*$")
_BINARY_LINE = re.compile(r"^Binary files .* differ\s*$")
_GIT_EXTENDED = (
    "similarity index ", "dissimilarity index ", "rename from ", "rename to ", "copy from ",
    "copy to ", "rename old ", "rename new ",
)
_HEADER_WORDS = (
    "old mode", "new mode", "deleted file mode", "new file mode", "index ", "similarity",
    "dissimilarity", "rename", "copy", "GIT binary", "Binary files",
)
_C_ESCAPES = {b"a": b"\a", b"b": b"\b", b"t": b"\t", b"n": b"\n", b"v": b"\v", b"f": b"\f",
              b"r": b"\r"}
#: The escapes git writes in a quoted name; a backslash before anything else is refused.
_QUOTED_ESCAPE = re.compile(rb'\\(?:([0-7]{3})|([abtnvfr"\\]))|\\')
#: A quoted name at the start of a header: up to the first unescaped quote.
_QUOTED_NAME = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


@dataclass(frozen=True)
class PatchProblem:
    """One reason a patch cannot be accepted, with the 1-based line where it was seen."""

    code: PatchProblemCode
    message: str
    line: int | None = None
    path: str | None = None


@dataclass(frozen=True)
class Hunk:
    """One ``@@`` hunk: its header numbers and body lines (with their +/-/space prefix)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    line: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class FilePatch:
    """One file section of a patch. Paths are repository-relative (``a/``/``b/`` removed);
    ``old_path`` is ``None`` for an added file and ``new_path`` for a deleted one."""

    old_path: str | None
    new_path: str | None
    status: FileStatus
    line: int
    old_mode: str | None = None
    new_mode: str | None = None
    added: int = 0
    removed: int = 0
    binary: bool = False
    hunks: tuple[Hunk, ...] = ()
    #: The section's text exactly as in the patch (so a harness can drop files and re-join).
    raw: str = ""

    @property
    def paths(self) -> tuple[str, ...]:
        """Every distinct path this section reads or writes (both sides of a rename)."""
        return tuple(dict.fromkeys(p for p in (self.old_path, self.new_path) if p is not None))

    @property
    def path(self) -> str:
        """The path after the patch (the old one for a deletion)."""
        return self.new_path or self.old_path or ""


@dataclass(frozen=True)
class Patch:
    """A parsed patch: its file sections and every problem found (empty when safe)."""

    files: tuple[FilePatch, ...]
    problems: tuple[PatchProblem, ...]
    #: The text parsed ("" when the file could not be read or was refused before parsing).
    text: str = field(default="", repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def paths(self) -> list[str]:
        """Every distinct repository path the patch touches, in order of appearance."""
        return list(dict.fromkeys(p for f in self.files for p in f.paths))


def parse_patch(
    text: str, *, max_bytes: int = MAX_PATCH_BYTES, max_lines: int = MAX_PATCH_LINES
) -> Patch:
    """Parse a unified diff (git format) and check it; never raises for bad input."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        message = f"patch is {size:,} bytes, over the limit of {max_bytes:,}"
        return Patch(files=(), problems=(PatchProblem(code="too-large", message=message),))
    lines = _split_lines(text)
    if len(lines) > max_lines:
        message = f"patch has {len(lines):,} lines, over the limit of {max_lines:,}"
        return Patch(files=(), problems=(PatchProblem(code="too-large", message=message),))
    if not text.strip():
        return Patch(files=(), problems=(PatchProblem("empty-patch", "patch is empty", line=1),))
    parser = _Parser(lines)
    parser.run()
    return Patch(files=tuple(parser.files), problems=tuple(parser.problems), text=text)


def read_patch_text(
    path: Path, *, max_bytes: int = MAX_PATCH_BYTES
) -> tuple[str, PatchProblem | None]:
    """The text of patch file ``path``, or ``("", the problem)``: a symbolic link, a missing
    or special file, over ``max_bytes`` (arena.yaml's ``limits.patch_bytes``), unreadable,
    or not UTF-8. The one reader of patch files: validation, evaluation and ``arena merge``
    apply the same rules. Never raises for bad input."""

    def refused(code: PatchProblemCode, message: str, *, line: int | None = None
                ) -> tuple[str, PatchProblem]:
        return "", PatchProblem(code=code, message=message, line=line)

    try:  # one lstat: a cold board reads thousands of patches
        info = os.lstat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        if isinstance(exc, OSError) and exc.errno not in _MISSING_ERRNOS:
            return refused("not-a-file", f"cannot read patch file: {exc.strerror}")
        return refused("not-a-file", "patch file is missing (not found)")
    if stat.S_ISLNK(info.st_mode):
        return refused("not-a-file", "patch file is a symbolic link; commit the file itself")
    if not stat.S_ISREG(info.st_mode):
        return refused("not-a-file", "patch path is not a regular file")
    try:
        size = info.st_size
        if size > max_bytes:
            return refused(
                "too-large", f"patch is {size:,} bytes, over the limit of {max_bytes:,}"
            )
        with open(path, "rb") as handle:
            raw = read_at_most(handle, max_bytes)
    except OSError as exc:
        return refused("not-a-file", f"cannot read patch file: {exc.strerror}")
    if len(raw) > max_bytes:  # grew since it was measured
        return refused("too-large", f"patch is over the limit of {max_bytes:,} bytes")
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return refused(
            "not-utf8",
            f"patch is not UTF-8 text (byte {exc.start}); binary content is not accepted",
            line=raw[: exc.start].count(b"\n") + 1,
        )


#: The errors pathlib's exists() and is_symlink() read as "no such file".
_MISSING_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def load_patch(
    path: Path, *, max_bytes: int = MAX_PATCH_BYTES, max_lines: int = MAX_PATCH_LINES
) -> Patch:
    """Read (:func:`read_patch_text`) and parse a patch file; every problem, reading
    included, is in ``Patch.problems`` (never raises for bad input)."""
    text, problem = read_patch_text(path, max_bytes=max_bytes)
    if problem is not None:
        return Patch(files=(), problems=(problem,))
    return parse_patch(text, max_bytes=max_bytes, max_lines=max_lines)


@dataclass
class _Section:
    """A file section being built."""

    line: int
    start: int
    git: bool
    header_old: str | None = None
    header_new: str | None = None
    old_path: str | None = None
    new_path: str | None = None
    have_minus: bool = False
    old_mode: str | None = None
    new_mode: str | None = None
    added_file: bool = False
    deleted_file: bool = False
    rename: bool = False
    copy: bool = False
    binary: bool = False
    added: int = 0
    removed: int = 0
    hunks: list[Hunk] = field(default_factory=list)


class _Parser:
    """A line-by-line reader of ``git diff`` / ``diff -u`` output."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.index = 0
        self.files: list[FilePatch] = []
        self.problems: list[PatchProblem] = []
        self.seen: set[tuple[str, str]] = set()
        self.section: _Section | None = None

    def problem(
        self, code: PatchProblemCode, message: str, *, line: int | None, path: str | None = None
    ) -> None:
        # The same bad name appears in up to four header lines; report it once. A hostile
        # patch can hold thousands of problems: the first MAX_PROBLEMS are enough to act on.
        if (code, message) in self.seen or len(self.problems) > MAX_PROBLEMS:
            return
        self.seen.add((code, message))
        if len(self.problems) == MAX_PROBLEMS:
            self.problems.append(
                PatchProblem(code=code, message="… and more problems; fix the ones above first",
                             line=line)
            )
            return
        self.problems.append(PatchProblem(code=code, message=message, line=line, path=path))

    def run(self) -> None:
        while self.index < len(self.lines):
            text = _strip_eol(self.lines[self.index])
            lineno = self.index + 1
            if text.startswith("diff --git "):
                self.finish()
                self.section = _Section(line=lineno, start=self.index, git=True)
                self.git_header(text, lineno)
                self.index += 1
            elif text.startswith("--- ") and self.next_is("+++ "):
                if self.section is None or self.section.have_minus or self.section.hunks:
                    # A plain ``diff -u`` section (no ``diff --git`` line before it).
                    self.finish()
                    self.section = _Section(line=lineno, start=self.index, git=False)
                self.file_names(lineno)
                self.index += 2
            elif text.startswith("@@"):
                self.hunk(text, lineno)
            elif text == "-- ":
                # The signature separator of ``git format-patch``: what follows is not diff.
                self.finish()
                self.index += 1
            elif self.section is not None and self.section.git and not self.section.hunks:
                self.extended_header(text, lineno)
                self.index += 1
            elif text.startswith(("+", "-", " ")) and self.section is not None:
                self.problem(
                    "not-a-diff",
                    "diff line outside a hunk (a hunk's line counts are probably wrong)",
                    line=lineno,
                )
                self.index += 1
            else:
                if text == "GIT binary patch" or _BINARY_LINE.match(text):
                    # Outside a git header too: refuse rather than rely on git ignoring it.
                    self.problem("binary", "binary patch: binary files cannot be submitted",
                                 line=lineno)
                # Text between sections (a commit message, a signature) is ignored, as
                # ``git apply`` does.
                self.index += 1
        self.finish()
        if not self.files and not self.problems:
            self.problem(
                "not-a-diff",
                "no file changes found: this is not a unified diff "
                "(create it with `git diff > my.patch`)",
                line=1,
            )

    def next_is(self, prefix: str) -> bool:
        return self.index + 1 < len(self.lines) and self.lines[self.index + 1].startswith(prefix)

    # -- headers -------------------------------------------------------------------------

    def git_header(self, text: str, lineno: int) -> None:
        assert self.section is not None
        if " --- a/" in text and " +++ b/" in text:
            # The whole section on one line: its line breaks were turned into spaces (a
            # trajectory viewer, a copy from a web page). git finds no patch in it either.
            self.problem(
                "not-a-diff", "this diff header runs on into its ---/+++ lines and hunks: the "
                "patch's line breaks were lost (save it as git wrote it)", line=lineno,
            )
            return
        names = _split_git_header(text[len("diff --git ") :])
        if names is None:
            self.problem("not-a-diff", "cannot read the file names of this diff header",
                         line=lineno)
            return
        old, new = names
        self.section.header_old = self.checked_name(old, prefix="a/", lineno=lineno)
        self.section.header_new = self.checked_name(new, prefix="b/", lineno=lineno)

    def extended_header(self, text: str, lineno: int) -> None:
        assert self.section is not None
        section = self.section
        if match := _MODE_LINE.match(text):
            kind, mode = match.groups()
            self.check_mode(mode, lineno)
            section.added_file |= kind == "new file mode"
            section.deleted_file |= kind == "deleted file mode"
            if kind in ("old mode", "deleted file mode"):
                section.old_mode = mode
            else:
                section.new_mode = mode
        elif match := _INDEX_LINE.match(text):
            if match.group(1):
                self.check_mode(match.group(1), lineno)
        elif text.startswith(_GIT_EXTENDED):
            key, _, value = text.partition(" ")
            second, _, value = value.partition(" ")
            name = self.checked_name(value, prefix=None, lineno=lineno)
            if second in {"from", "old"}:
                section.old_path = name
            elif second in {"to", "new"}:
                section.new_path = name
            if second in {"from", "old", "to", "new"}:
                section.rename = section.rename or key == "rename"
                section.copy = section.copy or key == "copy"
        elif text == "GIT binary patch" or _BINARY_LINE.match(text):
            section.binary = True
            self.problem(
                "binary", "binary patch: binary files cannot be submitted", line=lineno,
                path=section.header_new or section.header_old,
            )
        elif section.binary:
            pass  # the base85 body of a binary patch, already refused above
        elif text.startswith(_HEADER_WORDS):
            # git reads these leniently (e.g. extra spaces before a mode); refuse what we
            # cannot read exactly rather than guess differently from git.
            self.problem(
                "not-a-diff", f"malformed diff header line: {_shorten(text)!r}", line=lineno
            )
        else:
            # Anything else ends the header, as in ``git apply`` (e.g. an e-mail between
            # the patches of a ``git format-patch`` series).
            self.finish()

    def check_mode(self, mode: str, lineno: int) -> None:
        assert self.section is not None
        path = self.section.header_new or self.section.header_old
        if mode == _SYMLINK_MODE:
            self.problem("symlink", "patch creates or changes a symbolic link (mode 120000)",
                         line=lineno, path=path)
        elif mode == _GITLINK_MODE:
            self.problem("submodule", "patch changes a git submodule (mode 160000)",
                         line=lineno, path=path)
        elif mode not in _ALLOWED_MODES:
            self.problem("unsafe-path", f"unexpected file mode {mode}", line=lineno, path=path)

    def file_names(self, lineno: int) -> None:
        assert self.section is not None
        section = self.section
        old_text = _strip_eol(self.lines[self.index])[4:]
        new_text = _strip_eol(self.lines[self.index + 1])[4:]
        section.have_minus = True
        old = self.checked_name(_drop_timestamp(old_text), prefix="a/", lineno=lineno)
        new = self.checked_name(_drop_timestamp(new_text), prefix="b/", lineno=lineno + 1)
        old_null, new_null = old_text == "/dev/null", new_text == "/dev/null"
        if old_null and new_null:
            # git would read this as a file called "dev/null".
            self.problem("not-a-diff", "both sides of the diff are /dev/null", line=lineno)
        if section.git:
            # git reads /dev/null as a null name only after a "new file"/"deleted file"
            # header, and otherwise as the path "dev/null"; names must also agree with the
            # ``diff --git`` line. Refuse every disagreement rather than follow git there.
            if (old_null and not section.added_file) or (new_null and not section.deleted_file):
                self.problem(
                    "not-a-diff",
                    "/dev/null without a 'new file mode' / 'deleted file mode' header", line=lineno,
                )
            for name, header, null in (
                (old, section.header_old, old_null),
                (new, section.header_new, new_null),
            ):
                if not null and header is not None and name is not None and name != header:
                    self.problem(
                        "not-a-diff",
                        f"file name {_shorten(name)!r} differs from the diff header's "
                        f"{_shorten(header)!r}",
                        line=lineno,
                    )
        if old_null:
            section.added_file = True
        else:
            section.old_path = old
        if new_null:
            section.deleted_file = True
        else:
            section.new_path = new

    def checked_name(self, raw: str, *, prefix: str | None, lineno: int) -> str | None:
        """Unquote a file name, strip its ``a/``/``b/`` prefix and check it is safe."""
        # Spaces are part of a name for git (only a tab or the line end stops it): no strip.
        if raw == "/dev/null":
            return None
        try:
            name = unquote_git_name(raw) if raw.startswith('"') else raw
        except ValueError:
            self.problem("unsafe-path", f"cannot read quoted file name {_shorten(raw)!r}",
                         line=lineno)
            return None
        if prefix is not None:
            if not name.startswith(prefix):
                fix = "`git diff --src-prefix=a/ --dst-prefix=b/`"
                if name[:2] in _MNEMONIC_PREFIXES:
                    made = "`diff.mnemonicPrefix` set"
                elif self.section is None or self.section.git:
                    made = "`git diff --no-prefix` or `diff.noprefix` set"
                else:
                    made = "`diff -ru` of two folders not named a and b"
                    fix = "`diff -ruN a b` with the folders named a and b, or `git diff`"
                self.problem(
                    "unsafe-path", f"file name {_shorten(name)!r} does not start with {prefix!r}"
                    + ("" if name.startswith("/") else f" (made with {made}? make it with {fix})"),
                    line=lineno, path=name,
                )
                return None
            name = name[len(prefix) :]
        reason = unsafe_path_reason(name)
        if reason is None and " " in name and not (self.section and self.section.git):
            # Outside git's format, git reads "name 2024-01-01 ..." as a name plus a date;
            # rather than guess where the name ends, names with spaces need `git diff`.
            reason = "names with spaces are only accepted in `git diff` format"
        if reason is not None:
            self.problem("unsafe-path", f"unsafe path {_shorten(name)!r}: {reason}",
                         line=lineno, path=name)
            return None
        return name

    # -- hunks ---------------------------------------------------------------------------

    def hunk(self, text: str, lineno: int) -> None:
        match = _HUNK_HEADER.match(text)
        if self.section is None or not (self.section.have_minus or self.section.git):
            self.problem("not-a-diff", "hunk without a file header (--- / +++)", line=lineno)
            self.index += 1
            return
        if match is None:
            self.problem("bad-hunk", f"malformed hunk header {_shorten(text)!r}", line=lineno)
            self.index += 1
            return
        old_start, old_count, new_start, new_count = (
            int(group) if group is not None else 1 for group in match.groups()[:4])
        old_left, new_left = old_count, new_count
        body: list[str] = []
        # The loop every line of every patch goes through: locals only.
        lines, index, end = self.lines, self.index + 1, len(self.lines)
        added = removed = 0
        while (old_left > 0 or new_left > 0) and index < end:
            raw = lines[index]
            line = raw.rstrip("\r\n") if raw.endswith("\n") else raw.rstrip("\r")
            head = line[:1]
            if head == "-" and old_left > 0:
                old_left -= 1
                removed += 1
            elif head == "+" and new_left > 0:
                new_left -= 1
                added += 1
            elif (head == " " or raw == "\n") and old_left > 0 and new_left > 0:
                # An empty line is a context line whose trailing space an editor removed
                # (only "\n": git reads an empty line ending "\r\n" as a corrupt patch).
                old_left -= 1
                new_left -= 1
            elif head == "\\":
                pass  # "\ No newline at end of file"
            else:
                break
            body.append(line)
            index += 1
        self.index = index
        self.section.added += added
        self.section.removed += removed
        if body and index == end and not lines[-1].endswith("\n") and body[-1][:1] != "\\":
            # git apply reads a hunk line without its newline as "corrupt patch" (tools that
            # strip the patch text, OpenHands' git_patch for one, drop the last newline).
            self.problem(
                "bad-hunk",
                "the patch's last line has no newline at its end, so `git apply` reads it "
                "as a corrupt patch: end the file with a newline",
                line=index,
            )
        if (old_left > 0 or new_left > 0) and index < end and lines[index] == "\r\n":
            self.problem(
                "bad-hunk",
                "an empty line ending in a carriage return inside a hunk (CRLF line ends, "
                "and the context line's leading space removed): `git apply` reads it as a "
                "corrupt patch; save the patch with LF line ends as git wrote it",
                line=index + 1,
            )
        elif old_left > 0 or new_left > 0:
            self.problem(
                "bad-hunk",
                f"hunk ends early: {old_left} old and {new_left} new line(s) missing "
                "(was the patch edited by hand?)",
                line=lineno,
            )
        # A trailing "\ No newline at end of file" belongs to this hunk.
        while self.index < len(self.lines) and self.lines[self.index].startswith("\\"):
            body.append(_strip_eol(self.lines[self.index]))
            self.index += 1
        self.section.hunks.append(Hunk(old_start, old_count, new_start, new_count, lineno,
                                       tuple(body)))

    def finish(self) -> None:
        section = self.section
        self.section = None
        if section is None:
            return
        old = section.old_path
        new = section.new_path
        if not section.have_minus:
            # Git sections without ---/+++ (mode changes, renames, empty files, binaries)
            # name their files only in the ``diff --git`` line and the extended headers.
            if not (section.rename or section.copy) and self.lines[section.start].endswith(
                "\r\n"
            ):
                # The names are only in the header line, and git reads its carriage return
                # as part of the second name ("lacks filename information").
                self.problem(
                    "not-a-diff",
                    "this diff header ends in a carriage return (the patch was saved with "
                    "CRLF line ends) and names its file nowhere else: `git apply` cannot "
                    "read it; save the patch with LF line ends",
                    line=section.line,
                )
            elif (
                not (section.rename or section.copy)
                and section.header_old != section.header_new
            ):
                # git guesses where "a/x y b/z" splits; we refuse to guess.
                self.problem(
                    "not-a-diff",
                    "the diff header names two different files but is not a rename or copy",
                    line=section.line,
                )
            old = old or section.header_old
            new = new or section.header_new
        if section.added_file:
            old = None
        if section.deleted_file:
            new = None
        if old is None and new is None:
            return  # an unreadable header, already reported
        status: FileStatus = (
            "added" if section.added_file else "deleted" if section.deleted_file
            else "renamed" if section.rename else "copied" if section.copy else "modified")
        self.files.append(FilePatch(
            old_path=old, new_path=new, status=status, line=section.line,
            old_mode=section.old_mode, new_mode=section.new_mode, added=section.added,
            removed=section.removed, binary=section.binary, hunks=tuple(section.hunks),
            raw="".join(self.lines[section.start : self.index]),
        ))


def _remember_short(function: Callable[[str], _R]) -> Callable[[str], _R]:
    """``function`` remembering its answers for names up to 512 characters: a board's
    patches touch the same few files of each task again and again, and the cap keeps a
    hostile patch's long names from being held."""
    remembered = functools.lru_cache(maxsize=8192)(function)

    @functools.wraps(function)
    def answer(path: str) -> _R:
        return remembered(path) if len(path) <= 512 else function(path)

    return answer


@_remember_short
def unsafe_path_reason(path: str) -> str | None:
    """Why ``path`` (repository-relative, POSIX) is unsafe to write, or ``None``."""
    if not path:
        return "empty path"
    if _INVISIBLE.search(path):
        return "contains control, zero-width or bidirectional-override characters"
    if path != path.strip() or any(part != part.strip() for part in path.split("/")):
        return "a name starts or ends with white space"
    if "\\" in path:
        return "contains a backslash"
    if path.startswith("/"):
        return "absolute path"
    parts = path.split("/")
    if ".." in parts:
        return "contains a '..' component"
    if any(part in {"", "."} for part in parts):
        return "contains an empty or '.' component"
    if any(part.lower() == ".git" for part in parts):
        return "writes inside the .git folder"
    return None


# -- protected paths ---------------------------------------------------------------------

#: File names protected wherever they are: they change how pytest collects and runs tests,
#: or run code at interpreter start.
ALWAYS_PROTECTED_NAMES = frozenset(
    {"conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini",
     "sitecustomize.py", "usercustomize.py", ".gitattributes"}
)
#: Folder names protected wherever they are: a package ``sitecustomize/`` is imported at
#: interpreter start just as ``sitecustomize.py`` is.
ALWAYS_PROTECTED_PACKAGES = frozenset({"sitecustomize", "usercustomize"})
#: Name endings protected wherever they are: ``.pth`` files run code at interpreter start;
#: ``.dist-info``/``.egg-info`` folders can declare ``pytest11`` entry points that pytest
#: auto-loads when the repository is on ``sys.path``.
ALWAYS_PROTECTED_SUFFIXES = (".pth", ".dist-info", ".egg-info")
#: Config files that are often edited legitimately (dependencies, linters) but may also hold
#: pytest configuration: protected when a changed hunk mentions pytest settings.
PYTEST_CONFIG_CONTENT_FILES = frozenset({"pyproject.toml", "setup.cfg"})
_PYTEST_SETTING = re.compile(
    r"pytest|addopts|testpaths|python_files|python_classes|python_functions|norecursedirs"
    r"|confcutdir|usefixtures|required_plugins|xfail_strict|filterwarnings|minversion"
    r"|rootdir",
    re.IGNORECASE,
)
#: At the repository root (where the harness also compares the parsed settings before and
#: after the patch), a changed line counts only when it opens a pytest section or sets a key
#: pytest reads: adding ``"pytest>=8"`` to the dependencies is an honest edit.
_PYTEST_SECTION = re.compile(r"^\s*\[+[^\]]*pytest", re.IGNORECASE)
_PYTEST_KEY = re.compile(
    r"^\s*[\"']?(addopts|testpaths|python_files|python_classes|python_functions"
    r"|norecursedirs|confcutdir|usefixtures|required_plugins|xfail_strict|filterwarnings"
    r"|minversion|rootdir|pythonpath|markers|cache_dir|console_output_style|doctest_\w+"
    r"|junit_\w+|log_\w+|empty_parameter_set_mark|faulthandler_timeout"
    r"|consider_namespace_packages|tmp_path_\w+|verbosity_\w+|strict\w*)[\"']?\s*[=:]",
    re.IGNORECASE,
)
#: TOML and INI escapes a patch may use to spell ``pytest`` without its letters.
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})|\\x([0-9a-fA-F]{2})")
#: Letters from other scripts that look like Latin ones (the common Cyrillic and Greek
#: confusables): ``tеsts/`` must not dodge ``tests/*``.
CONFUSABLES = _CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁһ"
    "οαρυικντΑΒΕΗΙ"
    "ΚΜΝΟΡΤΧΥАВЕКМ"
    "НОРСТХı",
    "aeopcyxijsdhoapuiknt"
    "abehikmnoptxyabekmhopctxi",
)


@_remember_short
def fold_path(path: str) -> str:
    """``path`` reduced to what it looks like: NFKC-normalised, Cyrillic/Greek look-alike
    letters mapped to Latin, case-folded. Protection compares folded paths."""
    return unicodedata.normalize("NFKC", path).translate(_CONFUSABLES).casefold()


@dataclass(frozen=True)
class ProtectedViolation:
    """A file of a patch that touches a protected path, and which rule protects it."""

    path: str
    rule: str
    line: int


@dataclass(frozen=True)
class ProtectedPaths:
    """What a task protects: glob patterns plus exact paths (from its tests patches).

    Matching is case-insensitive on purpose: a patch must not dodge ``tests/*`` by writing
    ``Tests/x.py`` on a case-insensitive file system.
    """

    patterns: tuple[str, ...] = ()
    exact: frozenset[str] = frozenset()

    @functools.cached_property
    def _folded_exact(self) -> frozenset[str]:
        return frozenset(fold_path(p) for p in self.exact)

    @functools.cached_property
    def _folded_patterns(self) -> tuple[tuple[str, str, str | None], ...]:
        """Each pattern with its folded glob and, for ``folder/*`` and ``folder/**``, the
        folded folder it protects whole (``None`` otherwise)."""
        rules = []
        for pattern in self.patterns:
            # ``tests/*`` protects the folder: a file in a sub-folder or the folder itself
            # (replaced by a file or a symlink) is protected too.
            folder = pattern.removesuffix("/**").removesuffix("/*")
            whole = (
                fold_path(folder)
                if folder != pattern and not any(c in folder for c in "*?[") else None
            )
            rules.append((pattern, fold_path(pattern), whole))
        return tuple(rules)

    def rule_for(self, path: str) -> str | None:
        """The rule that protects ``path`` (a repository-relative path), or ``None``."""
        folded = fold_path(path)
        if folded in self._folded_exact:
            return "a file of the task's tests patch"
        for part in folded.split("/"):  # "" and "." match no protected name
            if (part in ALWAYS_PROTECTED_NAMES or part in ALWAYS_PROTECTED_PACKAGES
                    or part.endswith(ALWAYS_PROTECTED_SUFFIXES)):
                return f"{part} (changes how tests run)"
        for pattern, folded_pattern, whole in self._folded_patterns:
            if fnmatch.fnmatchcase(folded, folded_pattern):
                return f"protected path pattern {pattern!r}"
            if whole is not None and (folded == whole or folded.startswith(whole + "/")):
                return f"protected path pattern {pattern!r}"
        return None

    def violations(self, patch: Patch) -> list[ProtectedViolation]:
        """Every file section of ``patch`` touching a protected path."""
        found: list[ProtectedViolation] = []
        for file in patch.files:
            for path in file.paths:
                rule = self.rule_for(path)
                if rule is None and (PurePosixPath(fold_path(path)).name
                                     in PYTEST_CONFIG_CONTENT_FILES):
                    rule = _pytest_settings_rule(file)
                if rule is not None:
                    found.append(ProtectedViolation(path=path, rule=rule, line=file.line))
        return found


def _pytest_settings_rule(file: FilePatch) -> str | None:
    """Whether a changed line of a config file may change pytest's settings. Below the root
    any mention counts; at the root, where the harness compares the parsed settings too, only
    a pytest section header or a pytest key does (a dependency named pytest-something does
    not). Spelling pytest settings with escapes is never an honest edit."""
    name = PurePosixPath(file.path).name
    if file.binary:
        return f"a binary change to {name}"
    at_root = all("/" not in path for path in file.paths)
    for hunk in file.hunks:
        for line in hunk.lines:
            if line[:1] not in "+-":
                continue
            text = unicodedata.normalize("NFKC", line[1:])
            decoded = _ESCAPE.sub(_unescape, text)
            if decoded != text and _PYTEST_SETTING.search(decoded):
                return f"pytest settings spelt with escapes in {name}"
            if (_PYTEST_SECTION.search(decoded) or _PYTEST_KEY.search(decoded) if at_root
                    else _PYTEST_SETTING.search(decoded)):
                return f"pytest settings in {name}"
    return None


def _unescape(match: re.Match[str]) -> str:
    code = int(next(group for group in match.groups() if group), 16)
    return chr(code) if code <= 0x10FFFF else match.group(0)


def protected_paths_for(task: TaskFolder) -> ProtectedPaths:
    """The task's ``protected_paths`` plus every path any feature's ``tests.patch`` touches.

    Tests patches are the maintainers' own files: they are read without the submission size
    caps, and every file section that parses counts even when another part of the patch has
    a problem, so a flaw in a tests patch never weakens the protection.
    """
    exact: set[str] = set()
    for feature in task.features.values():
        tests = load_patch(
            feature.tests_patch, max_bytes=DATASET_PATCH_BYTES, max_lines=DATASET_PATCH_LINES
        )
        exact.update(tests.paths)
    return ProtectedPaths(patterns=tuple(task.spec.protected_paths), exact=frozenset(exact))


# -- small helpers -----------------------------------------------------------------------


def _split_lines(text: str) -> list[str]:
    # Only "\n" ends a line for git; str.splitlines would also split on form feeds etc.
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    return lines


def _strip_eol(line: str) -> str:
    return line.rstrip("\r\n") if line.endswith("\n") else line.rstrip("\r")


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _drop_timestamp(name: str) -> str:
    # ``diff -u`` writes "--- a/x.py\t2024-01-01 ..."; git never puts a tab in an unquoted name
    # and ends a name holding a space with a tab, quoted ones too ("b/caf\303\251 x.md"\t).
    if not name.startswith('"'):
        return name.split("\t", 1)[0]
    quoted = _QUOTED_NAME.match(name)
    if quoted is not None and name[quoted.end() :].startswith("\t"):
        return quoted.group()
    return name


def unquote_git_name(raw: str, *, errors: str = "replace") -> str:
    """Undo git's C-style quoting of a file name (``"a/t\\303\\251st"``); ``ValueError``
    for anything git would not have written. Bytes that are not UTF-8 are decoded with
    ``errors`` (``surrogateescape``: as Python names the file on disk)."""
    if len(raw) < 2 or not raw.endswith('"'):
        raise ValueError("unterminated quote")

    def unescape(match: re.Match[bytes]) -> bytes:
        octal, letter = match.groups()
        if octal is not None:
            return bytes([int(octal, 8) & 0xFF])
        if letter is not None:
            return _C_ESCAPES.get(letter, letter)
        raise ValueError("bad escape")

    return _QUOTED_ESCAPE.sub(unescape, raw[1:-1].encode("utf-8")).decode("utf-8", errors)


def _split_git_header(rest: str) -> tuple[str, str] | None:
    """Split ``a/x b/x`` (possibly quoted) from a ``diff --git`` line into two names."""
    rest = rest.rstrip("\r\n")
    if rest.startswith('"'):
        quoted = _QUOTED_NAME.match(rest)
        if quoted is None:
            return None
        first, second = quoted.group(), rest[quoted.end() :].lstrip(" ")
        return (first, second) if second else None
    if rest.endswith('"'):
        start = rest.rfind(' "')
        if start < 0:
            return None
        return rest[:start], rest[start + 1 :]
    # Unquoted: names may contain spaces; git's own rule is that both names are equal
    # apart from their prefix, except for renames (whose names come from their headers).
    half = (len(rest) - 1) // 2
    if len(rest) % 2 == 1 and rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
        return rest[:half], rest[half + 1 :]
    position = rest.find(" b/")
    if position < 0:
        return None
    return rest[:position], rest[position + 1 :]


# -- Python's reading of a file's text ---------------------------------------------------

#: Newlines as Python's tokenizer splits lines (not str.splitlines: no form feeds, no
#: Unicode line separators).
_PY_NEWLINE = re.compile(r"\r\n|\r|\n")


def declared_encoding(head: list[str]) -> str | None:
    """The source encoding a Python file's first two lines declare (PEP 263, read as
    :func:`tokenize.detect_encoding` reads it), or ``None`` for UTF-8 (the default).
    ``"unknown"`` when Python would refuse the declaration."""
    data = b"".join(line.encode("utf-8", "surrogateescape") + b"\n" for line in head[:2])
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return "unknown"
    return None if encoding in ("utf-8", "utf-8-sig") else encoding


def decode_as_python(lines: list[str], encoding: str | None) -> list[tuple[int, str]]:
    """``lines`` (a file's text as the patch shows it) as Python reads them under
    ``encoding``: (index of the shown line, decoded line). One shown line may decode to
    several (UTF-7 spells a newline ``+AAo-``); a line that does not decode is kept with
    its undecodable bytes replaced."""
    if encoding is None:
        return list(enumerate(lines))
    try:
        decoder = codecs.getincrementaldecoder(encoding)
    except LookupError:
        return list(enumerate(lines))
    out: list[tuple[int, str]] = []
    for index, line in enumerate(lines):
        data = line.encode("utf-8", "surrogateescape")
        try:
            text = decoder(errors="replace").decode(data, final=True)
        except (UnicodeError, ValueError):
            text = line
        out.extend((index, piece) for piece in _PY_NEWLINE.split(text))
    return out


def file_encoding(file: FilePatch) -> str | None:
    """The encoding the patched file declares, when a hunk shows its first two lines."""
    for hunk in file.hunks:
        if hunk.new_start <= 1:
            return declared_encoding([body[1:] for body in hunk.lines
                                      if body[:1] in ("+", " ")][:2])
    return None


_TEST_FILE_PATTERNS = ("test_*.py", "*_test.py", "conftest.py")


def is_test_path(path: str) -> bool:
    """Whether ``path`` (POSIX, relative to the repository root) is a test file, as
    CooperBench tells them: a folder ``tests`` on its way (``tests/x.py``,
    ``pkg/tests/data.json``), or a file named ``test_*.py``, ``*_test.py`` or
    ``conftest.py`` in any folder."""
    parts = [part for part in path.split("/") if part]
    if not parts:
        return False
    if "tests" in parts[:-1]:
        return True
    return any(fnmatch.fnmatchcase(parts[-1], pattern) for pattern in _TEST_FILE_PATTERNS)
