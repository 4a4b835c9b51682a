"""MkDocs hooks for the generated pages: their big HTML skips the Markdown and search passes.

A generated page holds blocks of HTML already rendered and escaped by Jinja2 (tables,
charts) between :data:`START` and :data:`END`. Python-Markdown would re-parse them tag by
tag and search would index every cell: at 5,000 submissions two thirds of ``mkdocs build``
(Markdown 11.7 s, search 7.9 s of 23 s). Each block is swapped for a numbered slot before
Markdown runs and put back into the finished page. Loaded by MkDocs from its file path, it
imports nothing from the package.
"""

from __future__ import annotations

import re
from typing import Any

#: Around a block of pre-rendered HTML. Contributor text cannot forge either marker:
#: Jinja2 escapes ``<`` in everything it renders.
START = "<!-- arena:html -->"
END = "<!-- arena:end -->"
_BLOCK = re.compile(re.escape(START) + r"(.*?)" + re.escape(END), re.S)

_deferred: dict[str, list[str]] = {}


def _slot(number: int) -> str:
    return f"<!-- arena:slot {number} -->"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Keep each HTML block aside; Markdown sees a slot (an HTML comment) in its place."""
    blocks: list[str] = []

    def keep(match: re.Match[str]) -> str:
        blocks.append(match.group(1))
        return f"\n\n{_slot(len(blocks) - 1)}\n\n"

    text = _BLOCK.sub(keep, markdown)
    if blocks:
        _deferred[page.file.src_uri] = blocks
    return text


def on_post_page(output: str, page: Any, **_: Any) -> str:
    """Put the page's HTML blocks back where their slots are, in the finished page."""
    blocks = _deferred.pop(page.file.src_uri, None)
    if blocks is None:
        return output
    for number, html in enumerate(blocks):
        output = output.replace(_slot(number), html, 1)
    return output
