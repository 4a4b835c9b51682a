"""Deterministic ``leaderboard.json`` and ``leaderboard.csv``.

Same Leaderboard → same bytes: keys sorted, lists already sorted by the builder, floats
already rounded (JSON) or printed with fixed decimals (CSV), ``\\n`` line endings.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import orjson

from arena_bot.models.leaderboard import Entry, Leaderboard

CSV_COLUMNS = (
    "task_id", "rank", "rank_shared", "key", "label", "tool", "tool_version", "model",
    "contributor",
    "setting", "status", "runs", "overall", "overall_unadjusted", "efficiency",
    "token_efficiency", "tool_call_efficiency", "iteration_efficiency", "speed", "cost",
    "correctness", "percentile", "ci_low", "ci_high", "statistically_tied",
    "significance_rank", "pass_at_1", "tokens", "tool_calls", "iterations",
    "execution_time", "estimated_cost", "baseline", "review_status", "flags",
    "metrics_level", "composite", "resolve_rate",
)


def canonical(data: object) -> str:
    """The one JSON spelling of everything published: sorted keys, 2-space indent, the
    bytes of ``json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)``, encoded by
    orjson (the json module indents in pure Python: a cold board's tenth)."""
    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # what orjson refuses (an int past 64 bits, a key that is not text)
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)
    if "0.0000" not in text and not _SMALL_EXPONENT.search(text):
        return text
    return _SPELT_APART.sub(lambda number: repr(float(number[0])), text)


#: The floats orjson spells unlike Python, all below 0.0001: ``0.00001`` (Python: ``1e-05``)
#: and one-digit exponents (``1e-7``, not ``1e-07``). Looked for in the whole text first (a
#: literal search); then matched as a whole value ending its line, never within a string
#: (JSON text has no line break inside one), and spelt by Python again.
_SMALL_EXPONENT = re.compile(r"e-\d")
_SPELT_APART = re.compile(r"(?<![^ \n])-?(?:0\.0000\d*|\d[\d.]*e[-+]?\d+)(?=,?\n|,?$)")


def to_json(leaderboard: Leaderboard) -> str:
    """The leaderboard as canonical JSON text."""
    return canonical(leaderboard.model_dump(mode="json")) + "\n"


def entry_fragment(entry: Entry) -> str:
    """One entry's canonical JSON."""
    return canonical(entry.model_dump(mode="json"))


#: Stands in for the entries while the rest of a document is encoded.
_SLOT = "@@arena:entries@@"


def indent_fragments(fragments: Sequence[str]) -> str:
    """Entries' canonical JSON as they sit in a document's ``entries`` list, joined by
    ``,\n`` (``""`` for none): what :func:`stream_indented` places."""
    return ",\n".join("    " + fragment.replace("\n", "\n    ") for fragment in fragments)


def stream_indented(document: dict[str, Any], texts: Iterable[str]) -> Iterator[str]:
    """``canonical(document)`` as a stream of chunks, its ``entries`` list spelt from
    :func:`indent_fragments` texts (stored ready to write) without decoding them: a board of
    50,000 entries is written one task's stored text at a time, never held whole."""
    text = canonical({**document, "entries": [_SLOT]})
    slot = f'    "{_SLOT}"'
    before, after = text.split(slot)
    first = True
    for chunk in texts:
        if not chunk:
            continue
        if first:
            yield before
            first = False
        else:
            yield ",\n"
        yield chunk
    if first:  # no entries at all: json spells an empty list "[]"
        yield text.replace(f'[\n{slot}\n  ]', "[]")
        return
    yield after


def _fixed(value: float | None, digits: int = 2) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def to_csv(leaderboard: Leaderboard) -> str:
    """One row per entry (pending and errored entries included, with empty scores)."""
    return csv_header() + csv_rows(leaderboard)


def csv_header() -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(CSV_COLUMNS)
    return buffer.getvalue()


#: What makes a spreadsheet read a cell as a formula (``=HYPERLINK(...)`` in a tool's name).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _text_cell(text: str) -> str:
    """A contributor's text as a CSV cell no spreadsheet runs: one that would start a formula
    gets a leading ``'`` (OWASP's advice for CSV injection); any other is as written."""
    return f"'{text}" if text.startswith(_FORMULA_START) else text


def csv_rows(leaderboard: Leaderboard) -> str:
    """The CSV rows of every entry, without the header."""
    baselines = {board.task_id: board.baseline.source for board in leaderboard.tasks}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for e in leaderboard.entries:
        s = e.scores
        m = e.metrics
        pass1 = next((p.value for p in e.pass_at_k if p.k == 1), None)
        writer.writerow([
            e.task_id, "" if e.rank is None else e.rank,
            "" if e.rank_shared is None else str(e.rank_shared).lower(), e.key,
            *map(_text_cell, (e.label, e.tool, e.tool_version, e.model, e.contributor)),
            e.setting, e.status, e.run_count,
            _fixed(s.overall if s else None), _fixed(s.overall_unadjusted if s else None),
            _fixed(s.efficiency if s else None),
            _fixed(s.efficiency_parts.token if s else None),
            _fixed(s.efficiency_parts.tool_call if s else None),
            _fixed(s.efficiency_parts.iteration if s else None),
            _fixed(s.speed if s else None), _fixed(s.cost if s else None),
            _fixed(s.correctness if s else None), _fixed(e.percentile, 1),
            _fixed(e.interval.low if e.interval else None),
            _fixed(e.interval.high if e.interval else None),
            "" if e.statistically_tied is None else str(e.statistically_tied).lower(),
            "" if e.significance_rank is None else e.significance_rank,
            _fixed(pass1, 4), _fixed(m.tokens, 1), _fixed(m.tool_calls, 2),
            _fixed(m.iterations, 2), _fixed(m.execution_time, 2), _fixed(m.estimated_cost, 4),
            baselines.get(e.task_id, ""), e.review_status,
            ";".join(f.code for f in e.outliers), e.metrics_level,
            _fixed(s.composite if s else None), _fixed(s.resolve_rate if s else None, 4),
        ])
    return buffer.getvalue()
