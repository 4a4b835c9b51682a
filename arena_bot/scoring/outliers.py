"""Outlier evidence that is not vectorised in :mod:`.core`: identical patches, and the
wording of every flag (each carries a reason a maintainer can check by hand)."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

#: Lines of a diff that carry no content: git's blob ids, mail headers of format-patch,
#: and the function context after a hunk header (it depends on the tool's diff settings).
_NOISE = ("index ", "similarity index", "rename from", "rename to", "From ", "Date: ",
          "Subject: ")
_HUNK = re.compile(r"^@@ [^@]* @@.*$")


def normalize_patch(text: str) -> str:
    """The content of a patch: line endings, trailing spaces and diff noise removed.

    Every patch of a cold board passes through here: prefixes are tested with one
    ``startswith`` (in C), and the hunk pattern only on lines that start like a hunk.
    """
    raw_lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [line for line in map(str.rstrip, raw_lines)
             if line and not line.startswith(_NOISE)]
    for at, line in enumerate(lines):
        if line.startswith("@@ ") and _HUNK.match(line):
            lines[at] = line[: line.index("@@", 2) + 2]
    return "\n".join(lines)


def patch_digest(text: str) -> str | None:
    """SHA-256 of the normalised patch; ``None`` for a patch with no content."""
    normalized = normalize_patch(text)
    if not normalized:
        return None
    return hashlib.sha256(normalized.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PatchRef:
    """One run's patch digest."""

    key: str  # submission key
    task_id: str
    run_id: str
    digest: str


def duplicate_patch_reasons(refs: Sequence[PatchRef]) -> dict[str, list[str]]:
    """Submission key → reasons, for runs whose patch equals a run of another submission
    of the same task (the same work submitted under different names)."""
    groups: dict[tuple[str, str], list[PatchRef]] = defaultdict(list)
    for ref in refs:
        groups[(ref.task_id, ref.digest)].append(ref)
    reasons: dict[str, set[str]] = defaultdict(set)
    for members in groups.values():
        keys = sorted({ref.key for ref in members})
        if len(keys) < 2:
            continue
        for ref in members:
            others = ", ".join(k for k in keys if k != ref.key)
            reasons[ref.key].add(
                f"run {ref.run_id}: patch identical (after normalisation) to a run of {others}"
            )
    return {key: sorted(values) for key, values in sorted(reasons.items())}


def robust_reason(*, metric: str, z: float, threshold: float) -> str:
    """Wording of a robust z-score flag."""
    direction = "low" if z < 0 else "high"
    return (
        f"{metric.replace('_', ' ')} unusually {direction} for this task: robust z = {z:+.1f} "
        f"(median/MAD of log values; flagged beyond ±{threshold:g})"
    )
