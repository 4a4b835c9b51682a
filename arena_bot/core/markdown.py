"""Markdown shared by the PR comment (GitHub's cmark-gfm) and the site (Python-Markdown)."""

from __future__ import annotations

import re


def fenced(text: str, info: str) -> str:
    """``text`` as a fenced code block, which shows it as written (a code block's HTML is
    escaped by the renderer itself). The fence is longer than any run of backticks in the
    text, so no line of it can close the block."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"
