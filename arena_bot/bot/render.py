"""Render the sticky comment (and the job summary) from a :class:`CommentView`.

The template is package data of the installed bot (never one a PR supplied). Every ``{{ }}``
output passes through :func:`escape_markdown` (Jinja's ``finalize``), so contributor text
cannot inject Markdown, HTML, mentions or links, whatever the template author forgets.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from arena_bot.bot.view import CommentView
from arena_bot.core.markdown import fenced

#: The hidden marker the one bot comment is found by.
MARKER = "<!-- arena-bot:score -->"
#: GitHub rejects comment bodies over 65,536 characters.
COMMENT_LIMIT = 65_536
_CUT_NOTE = (
    "\n\n> [!NOTE]\n> This comment was cut to fit GitHub's 65,536-character limit; "
    "the job summary and the run's `bundle.json` artifact hold everything.\n"
)
TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#|~]|:(?=//))")
#: What becomes a link after the Markdown is parsed: github.com's mentions (``@name``) and
#: issue references (``#12``, ``GH-12``) are found in the rendered text, where a backslash
#: escape is already gone; cmark-gfm's autolinks take ``www.`` and e-mail addresses
#: (``a@b.c``, ``mailto:``, ``xmpp:``). A zero-width space after the trigger breaks each (what
#: Dependabot writes after an ``@``), and the reader sees the same text. ``www`` and
#: ``GH-`` count after anything but a letter or digit: cmark-gfm also starts an autolink
#: after ``_`` (a word character, so ``\b`` would miss ``_www.evil.example``).
_LINKERS = re.compile(r"@|#|(?<![A-Za-z0-9])(?:GH-|www(?=\.))", re.IGNORECASE)
_ZERO_WIDTH_SPACE = "&#8203;"
#: Bidirectional controls reorder the text around them (a name shown backwards): shown as
#: U+FFFD instead.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def escape_markdown(value: object) -> str:
    """Text as literal Markdown: specials backslash-escaped, line breaks flattened.

    Mentions, issue references and autolinks are broken by a zero-width space
    (:data:`_LINKERS`) and ``://`` by escaping its colon, so a name can neither ping
    someone nor form a link; ``<``/``>``/``&`` become entities so no HTML reaches GitHub's
    sanitizer; bidirectional controls are replaced.
    """
    if value is None:
        return ""
    if isinstance(value, bool | int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.2f}"
    text = str(value).replace("\r", " ").replace("\n", " ")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _SPECIAL.sub(lambda m: "\\" + m.group(1), _BIDI.sub("\ufffd", text))
    return _LINKERS.sub(lambda m: m.group(0) + _ZERO_WIDTH_SPACE, text)


class _Trusted(str):
    """Text the filters made, not escaped again."""


def _finalize(value: object) -> str:
    if isinstance(value, _Trusted):
        return str(value)
    return escape_markdown(value)


def _num(value: float | None, digits: int = 2) -> _Trusted:
    return _Trusted("–" if value is None or not math.isfinite(value)
                    else f"{value:.{digits}f}")


def _pct(value: float | None) -> _Trusted:
    return _Trusted("–" if value is None or not math.isfinite(value)
                    else f"{value * 100:.0f}%")


def _baseline(metric: object, unit: str = "") -> _Trusted:
    """``min – max (median m)`` of a metric baseline; ``–`` when the bundle lacks it.

    Scores are placed between the task's min and max (seed 002), so the range is what a
    contributor needs to read a score; ``unit`` is ``s`` (seconds) or ``$`` (dollars).
    """
    values = [getattr(metric, name, None) for name in ("min", "max", "median")]
    # a forged bundle's JSON may hold Infinity or NaN (Python's reader takes them)
    numbers = [float(v) for v in values
               if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)]
    if len(numbers) != 3:
        return _Trusted("–")
    low, high, median = (_amount(v, unit) for v in numbers)
    return _Trusted(f"{low} – {high} (median {median})")


def _amount(value: float, unit: str) -> str:
    if unit == "$":
        return f"${value:,.4f}" if 0 < value < 0.01 else f"${value:,.2f}"
    text = f"{value:,.0f}" if value >= 100 or value == int(value) else f"{value:,.1f}"
    return f"{text} {unit}" if unit else text


def _codeblock(text: str) -> _Trusted:
    """``text`` as a fenced block no backtick run inside it can close."""
    return _Trusted(fenced(text.rstrip(), "text"))


def _code(text: str) -> _Trusted:
    """``text`` on one line as inline code no backtick run inside it can close."""
    flat = " ".join(str(text).split())
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return _Trusted(f"{ticks}{pad}{flat}{pad}{ticks}")


def _environment() -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=FileSystemLoader(str(TEMPLATE_DIR)),
        undefined=StrictUndefined,
        finalize=_finalize,
        autoescape=False,  # Markdown, not HTML: escape_markdown does the escaping
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        num=_num, pct=_pct, codeblock=_codeblock, code=_code, baseline=_baseline,
        raw=_Trusted,  # template literals only, never data
        safe_marker=lambda value: _Trusted(MARKER) if value == MARKER else value,
    )
    return env


def render_comment(view: CommentView, *, template: str = "comment.md.j2") -> str:
    """The comment body, marker first, never over :data:`COMMENT_LIMIT` characters."""
    return fit(_environment().get_template(template).render(view=view))


def fit(body: str, *, limit: int = COMMENT_LIMIT) -> str:
    """``body`` cut (with a note) so it fits ``limit``. The cut closes what it leaves open:
    the code block it falls in, with that block's own fence, and each ``<details>``; outside
    a code block it goes back to the end of the last whole block, table row or list item, so
    no table is left without its delimiter row and no paragraph is cut in two."""
    if len(body) <= limit:
        return body
    budget = limit - len(_CUT_NOTE)
    while True:
        kept = _cut(body, budget)
        if len(kept) + len(_CUT_NOTE) <= limit or budget <= 0:
            return (kept + _CUT_NOTE)[:limit]
        budget -= len(kept) + len(_CUT_NOTE) - limit


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"(> )?\s*[-*] ")


def _cut(body: str, budget: int) -> str:
    """The first ``budget`` characters of ``body`` at a safe line end, then the closings."""
    kept = body[:budget]
    kept = kept[: kept.rfind("\n") + 1]
    fence: str | None = None  # the open code block's fence
    details = 0
    settled = (0, 0)  # (the last safe end outside a code block, <details> open there)
    position, previous = 0, ""
    for line in kept.splitlines(keepends=True):
        position += len(line)
        text = line.rstrip("\n")
        opener = _FENCE.match(text)
        if fence is None and opener is not None:
            fence = opener.group(1)
        elif fence is not None:
            closing = text.strip()
            if closing and set(closing) == {fence[0]} and len(closing) >= len(fence):
                fence = None
                settled = (position, details)
        else:
            details += len(re.findall(r"<details\b", text)) - text.count("</details>")
            row = text.startswith("|")
            if (not text.strip() or (row and previous.startswith("|")) or _ITEM.match(text)
                    or (position == len(line) and text.startswith("<!--"))):
                settled = (position, details)
        previous = text
    if fence is not None:
        return kept + fence + "\n" + "\n</details>\n" * max(details, 0)
    end, still_open = settled
    return kept[:end] + "\n</details>\n" * max(still_open, 0)
