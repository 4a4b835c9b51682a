"""What validation finds (:class:`Diagnostic`, its codes) and how a
:class:`~arena_bot.intake.validation.ValidationReport` of them is shown: text, JSON, GitHub
annotations.

Messages quote what contributors wrote (key names, file names), so every renderer escapes:
text output shows invisible and control characters as ``\\uXXXX``; annotations use GitHub's
workflow-command escaping; JSON is JSON.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NewType, get_args

from arena_bot.models.common import Level, RecordModel

if TYPE_CHECKING:  # validation builds reports of diagnostics: only their type is needed here
    from arena_bot.intake.validation import SubmissionReport, ValidationReport

#: Every code validation gives (its transcript checks included), besides ``patch-<problem>``
#: for each :data:`arena_bot.intake.patches.PatchProblemCode`; each is documented on the
#: formats page.
ValidationCode = Literal[
    "adds-test-file", "bad-transcript", "broken-task", "copies-gold-patch", "cost-mismatch",
    "deletes-submission", "executable-file", "extremely-fast", "files-created", "future-date",
    "implausible-cost", "implausible-speed", "layout", "low-tokens", "metric-mismatch",
    "minimal-tool-usage", "missing-patch", "missing-trajectory", "missing-transcript",
    "modifies-submission", "no-expected-tests", "no-submission", "not-in-checkout",
    "not-recorded", "outside-submissions", "protected-path", "schema", "secret-file",
    "secret-in-patch", "secret-in-transcript", "success-mismatch", "symlink", "task-mismatch",
    "too-large", "tool-mismatch", "transcript-mismatch", "unexpected-file", "unknown-feature",
    "unknown-task", "yaml",
]
#: ``patch-<problem>``: a problem the patch parser found.
PatchDiagnosticCode = NewType("PatchDiagnosticCode", str)
DiagnosticCode = ValidationCode | PatchDiagnosticCode


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a submission, with where it is and what to do about it."""

    severity: Level
    code: DiagnosticCode
    message: str
    path: Path | None = None
    line: int | None = None
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


OutputFormat = Literal["text", "json", "github"]
OUTPUT_FORMATS: tuple[str, ...] = get_args(OutputFormat)

#: Version of the JSON shape below; bump on any incompatible change.
JSON_VERSION = 1


class DiagnosticOut(RecordModel):
    """One diagnostic in ``--format json``."""

    severity: Level
    code: str
    path: str | None
    line: int | None
    message: str
    hint: str | None


class SubmissionOut(RecordModel):
    """One submission folder in ``--format json``."""

    path: str
    key: str
    valid: bool
    diagnostics: list[DiagnosticOut]


class SummaryOut(RecordModel):
    submissions: int
    valid: int
    invalid: int
    errors: int
    warnings: int


class ReportOut(RecordModel):
    """The whole ``--format json`` document."""

    version: int = JSON_VERSION
    valid: bool
    summary: SummaryOut
    submissions: list[SubmissionOut]
    #: Problems not tied to one submission (changes outside submissions/, bad paths).
    diagnostics: list[DiagnosticOut]


def display_path(path: Path | None, *, root: Path) -> str | None:
    """``path`` relative to ``root`` (POSIX) when it is inside it, else as given; a name
    that is not UTF-8 shows its bytes as escapes (:func:`utf8_text`)."""
    if path is None:
        return None
    # Absolute without resolving the path itself: a symlink must be shown as itself.
    absolute = Path(os.path.abspath(path))
    for base in (Path(os.path.abspath(root)), root.resolve()):
        for candidate in (absolute, absolute.parent.resolve() / absolute.name):
            if candidate.is_relative_to(base):
                return utf8_text(candidate.relative_to(base).as_posix())
    return utf8_text(path.as_posix())


def utf8_text(text: str) -> str:
    """``text`` with each lone surrogate written as its ``\\udcXX`` escape. Python decodes
    a file name that is not UTF-8 (git stores any bytes) with such surrogates, which no
    UTF-8 output takes: JSON, the bundle and GitHub's API refused the whole report."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def summary_line(report: ValidationReport) -> str:
    """``N submissions checked: X valid, Y invalid, Z warnings``."""
    total = len(report.submissions)
    valid = sum(1 for s in report.submissions if s.valid)
    line = (
        f"{total} submission{'s' if total != 1 else ''} checked: {valid} valid, "
        f"{total - valid} invalid, {report.warning_count} warning"
        f"{'s' if report.warning_count != 1 else ''}"
    )
    other_errors = sum(1 for d in report.other if d.is_error)
    if other_errors:
        line += f"; {other_errors} other error{'s' if other_errors != 1 else ''}"
    return line


def to_model(report: ValidationReport, *, root: Path) -> ReportOut:
    """The JSON view of a report (paths relative to ``root``)."""

    def out(diagnostic: Diagnostic) -> DiagnosticOut:
        return DiagnosticOut(
            severity=diagnostic.severity, code=diagnostic.code,
            path=display_path(diagnostic.path, root=root), line=diagnostic.line,
            message=utf8_text(diagnostic.message),
            hint=utf8_text(diagnostic.hint) if diagnostic.hint is not None else None,
        )

    def submission(item: SubmissionReport) -> SubmissionOut:
        return SubmissionOut(
            path=display_path(item.folder, root=root) or "", key=item.key, valid=item.valid,
            diagnostics=[out(d) for d in item.diagnostics],
        )

    valid = sum(1 for s in report.submissions if s.valid)
    return ReportOut(
        valid=report.valid,
        summary=SummaryOut(
            submissions=len(report.submissions), valid=valid,
            invalid=len(report.submissions) - valid, errors=report.error_count,
            warnings=report.warning_count,
        ),
        submissions=[submission(s) for s in report.submissions],
        diagnostics=[out(d) for d in report.other],
    )


def printable(text: str) -> str:
    """Show control, zero-width and bidi characters as ``\\uXXXX`` so a terminal shows them."""
    return "".join(
        char if char.isprintable() or char == " " else f"\\u{ord(char):04x}" for char in text
    )


def render_text(report: ValidationReport, *, root: Path, color: bool = False) -> str:
    """``--format text``: diagnostics grouped per file, then the summary line."""

    def paint(text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    groups: dict[str, list[Diagnostic]] = defaultdict(list)
    for diagnostic in report.diagnostics:
        groups[display_path(diagnostic.path, root=root) or "(no file)"].append(diagnostic)
    out: list[str] = []
    for path, diagnostics in groups.items():
        out.append(paint(printable(path), "1"))
        for d in sorted(diagnostics, key=lambda d: (d.line or 0, d.severity != "error")):
            where = f"{d.line}: " if d.line else ""
            label = paint(d.severity, "31" if d.is_error else "33")
            out.append(f"  {where}{label} [{d.code}] {printable(d.message)}")
            if d.hint:
                out.append(f"      hint: {printable(d.hint)}")
    if out:
        out.append("")
    summary = summary_line(report)
    out.append(paint(summary, "32" if report.valid else "31"))
    return "\n".join(out)


def escape_data(text: str) -> str:
    """GitHub's escaping of a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render_github(report: ValidationReport, *, root: Path) -> str:
    """``--format github``: one ``::error``/``::warning`` annotation per diagnostic."""
    def escape_property(text: str) -> str:
        return escape_data(text).replace(":", "%3A").replace(",", "%2C")

    lines = []
    for d in report.diagnostics:
        properties = []
        path = display_path(d.path, root=root)
        if path:
            properties.append(f"file={escape_property(path)}")
        if d.line:
            properties.append(f"line={d.line}")
        properties.append(f"title={escape_property(f'arena validate: {d.code}')}")
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        lines.append(f"::{d.severity} {','.join(properties)}::{escape_data(message)}")
    lines.append(summary_line(report))
    return "\n".join(lines)


def render(report: ValidationReport, *, fmt: OutputFormat, root: Path, color: bool) -> str:
    if fmt == "json":  # see ReportOut (documented on the formats page)
        return to_model(report, root=root).model_dump_json(indent=2)
    if fmt == "github":
        return render_github(report, root=root)
    return render_text(report, root=root, color=color)
