#!/usr/bin/env python3
"""Build the sample dataset (``dataset/``) and sample submissions (``submissions/``).

Everything is generated from the text in this file, reproducibly:

* each task's small project is committed with fixed author, committer and dates, so the base
  commit SHA never changes, and bundled (``repo.bundle`` holds the history up to the base
  commit only: agents cannot read "future" commits);
* gold patches (``feature.patch``), test patches (``tests.patch``) and the submissions'
  patches are real ``git diff`` output of edits applied to a clone of that repository;
* ``task.yaml``, ``Dockerfile`` and ``runner.sh`` name the base commit;
* submission costs are computed from the token counts and list prices (``PRICES``).

Run from the repository root::

    python3 scripts/build_sample_dataset.py            # (re)write dataset/ and submissions/
    python3 scripts/build_sample_dataset.py --check    # also verify fail-before / pass-after

Only the Python standard library, git and (for ``--check``) pytest are needed.
"""

# The sample projects' sources are embedded below with their own indentation, so some of
# their lines are longer than ours.
# ruff: noqa: E501

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing the project

from arena_bot.dataset import task_dockerfile  # noqa: E402

TEST_COMMAND = 'python3 -m pytest -q -p no:cacheprovider --junitxml="$ARENA_JUNIT" tests'

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Arena Samples",
    "GIT_AUTHOR_EMAIL": "samples@agentic-arena.invalid",
    "GIT_COMMITTER_NAME": "Arena Samples",
    "GIT_COMMITTER_EMAIL": "samples@agentic-arena.invalid",
}


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# --------------------------------------------------------------------------------------
# Edits: how commits, features and submissions change files
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """Replace the one occurrence of ``old`` in ``path`` by ``new``.

    ``old=None`` writes ``new`` as the whole file (creating it).
    """

    path: str
    old: str | None
    new: str


def write(path: str, content: str) -> Edit:
    return Edit(path=path, old=None, new=dedent(content))


def replace(path: str, old: str, new: str) -> Edit:
    """Replace a block written inside triple quotes in this script.

    The indentation of the closing quotes is the margin removed from every line of both
    blocks, so a block keeps the file's own indentation (a method body stays indented).
    """

    def strip(block: str) -> tuple[str, int]:
        body, _, closing = block.lstrip("\n").rpartition("\n")
        if closing.strip():
            raise ValueError(f"end the block with a newline and the closing quotes: {block!r}")
        margin = len(closing)
        lines = body.split("\n")
        if any(line.strip() and not line.startswith(" " * margin) for line in lines):
            raise ValueError(f"a line is indented less than the closing quotes: {block!r}")
        return "".join(line[margin:] + "\n" for line in lines), margin

    old_text, old_margin = strip(old)
    new_text, new_margin = strip(new)
    if old_margin != new_margin:
        raise ValueError(f"old and new blocks of {path} close at different indentation")
    return Edit(path=path, old=old_text, new=new_text)


def apply_edits(workdir: Path, edits: list[Edit]) -> None:
    for edit in edits:
        target = workdir / edit.path
        if edit.old is None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(edit.new, encoding="utf-8")
            continue
        text = target.read_text(encoding="utf-8")
        count = text.count(edit.old)
        if count != 1:
            raise SystemExit(f"edit of {edit.path}: expected one match, found {count}:\n{edit.old}")
        target.write_text(text.replace(edit.old, edit.new), encoding="utf-8")


@dataclass(frozen=True)
class Commit:
    message: str
    date: str
    edits: list[Edit]


# ======================================================================================
# Task 1: slugkit — a slug utility library (beginner, backend_development)
# ======================================================================================

SLUGKIT_CORE_V1 = '''\
"""Slug generation."""

from __future__ import annotations

import re
import unicodedata

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def _ascii_fold(text: str) -> str:
    """Drop accents and other marks: 'Crème brûlée' -> 'Creme brulee'."""
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


def slugify(text: str) -> str:
    """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

    >>> slugify("Hello, World!")
    'hello-world'
    """
    folded = _ascii_fold(text).lower()
    return _NON_ALNUM.sub("-", folded).strip("-")
'''

SLUGKIT_COMMITS = [
    Commit(
        message="Initial slugify",
        date="2026-09-14T09:12:00+00:00",
        edits=[
            write(".gitignore", "__pycache__/\n*.egg-info/\n"),
            write(
                "README.md",
                """
                # slugkit

                Turn titles into URL-friendly slugs.

                ```python
                >>> from slugkit import slugify
                >>> slugify("Crème Brûlée, à la carte!")
                'creme-brulee-a-la-carte'
                ```

                Run the tests with `python3 -m pytest tests`.
                """,
            ),
            write(
                "pyproject.toml",
                """
                [project]
                name = "slugkit"
                version = "0.3.0"
                description = "Turn titles into URL-friendly slugs"
                requires-python = ">=3.9"
                """,
            ),
            write(
                "slugkit/__init__.py",
                '''
                """slugkit: turn arbitrary text into URL-friendly slugs."""

                from slugkit.core import slugify

                __all__ = ["slugify"]
                __version__ = "0.3.0"
                ''',
            ),
            Edit(path="slugkit/core.py", old=None, new=SLUGKIT_CORE_V1),
            write(
                "tests/test_core.py",
                """
                from slugkit import slugify


                def test_basic():
                    assert slugify("Hello, World!") == "hello-world"


                def test_accents_are_folded():
                    assert slugify("Crème Brûlée à la carte") == "creme-brulee-a-la-carte"


                def test_runs_collapse_and_ends_are_stripped():
                    assert slugify("  --Many   spaces__and-dashes-- ") == "many-spaces-and-dashes"


                def test_nothing_left():
                    assert slugify("!!!") == ""
                """,
            ),
        ],
    ),
    Commit(
        message='Keep contractions together: "don\'t" becomes "dont", not "don-t"',
        date="2026-09-15T14:40:00+00:00",
        edits=[
            replace(
                "slugkit/core.py",
                """
                _NON_ALNUM = re.compile(r"[^a-z0-9]+")
                """,
                """
                _NON_ALNUM = re.compile(r"[^a-z0-9]+")
                _APOSTROPHES = re.compile("['\\u2019]")
                """,
            ),
            replace(
                "slugkit/core.py",
                """
                    folded = _ascii_fold(text).lower()
                """,
                """
                    folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
                """,
            ),
            replace(
                "tests/test_core.py",
                """
                def test_nothing_left():
                """,
                """
                def test_contractions_stay_whole():
                    assert slugify("Don't Stop Me Now") == "dont-stop-me-now"
                    assert slugify("It\\u2019s here") == "its-here"


                def test_nothing_left():
                """,
            ),
        ],
    ),
    Commit(
        message="Add unique_slug to de-duplicate slugs",
        date="2026-09-17T10:05:00+00:00",
        edits=[
            replace(
                "slugkit/core.py",
                """
                import re
                import unicodedata
                """,
                """
                import re
                import unicodedata
                from collections.abc import Iterable
                """,
            ),
            replace(
                "slugkit/core.py",
                """
                    return _NON_ALNUM.sub("-", folded).strip("-")
                """,
                """
                    return _NON_ALNUM.sub("-", folded).strip("-")


                def unique_slug(text: str, existing: Iterable[str]) -> str:
                    \"\"\"Slugify ``text``, adding ``-2``, ``-3``, ... until it is not in ``existing``.\"\"\"
                    taken = set(existing)
                    base = slugify(text)
                    candidate = base
                    counter = 2
                    while candidate in taken:
                        candidate = f"{base}-{counter}"
                        counter += 1
                    return candidate
                """,
            ),
            replace(
                "slugkit/__init__.py",
                """
                from slugkit.core import slugify

                __all__ = ["slugify"]
                """,
                """
                from slugkit.core import slugify, unique_slug

                __all__ = ["slugify", "unique_slug"]
                """,
            ),
            replace(
                "tests/test_core.py",
                """
                from slugkit import slugify
                """,
                """
                from slugkit import slugify, unique_slug
                """,
            ),
            Edit(
                path="tests/test_core.py",
                old='    assert slugify("!!!") == ""\n',
                new=dedent(
                    """
                        assert slugify("!!!") == ""


                    def test_unique_slug_counts_up():
                        assert unique_slug("Hello", []) == "hello"
                        assert unique_slug("Hello", ["hello", "hello-2"]) == "hello-3"
                    """
                ),
            ),
        ],
    ),
    Commit(
        message="Add a command line: python -m slugkit TEXT...",
        date="2026-09-21T16:30:00+00:00",
        edits=[
            write(
                "slugkit/__main__.py",
                '''
                """Command line: ``python -m slugkit "Some Title"`` prints ``some-title``."""

                from __future__ import annotations

                import argparse
                import sys

                from slugkit import __version__
                from slugkit.core import slugify


                def main(argv: list[str] | None = None) -> int:
                    parser = argparse.ArgumentParser(
                        prog="slugkit",
                        description="Print the slug of each TEXT (or of each line of standard input).",
                    )
                    parser.add_argument("text", nargs="*", help="text to turn into a slug")
                    parser.add_argument("--version", action="version", version=f"slugkit {__version__}")
                    args = parser.parse_args(argv)
                    lines = args.text or [line.rstrip("\\n") for line in sys.stdin]
                    for line in lines:
                        print(slugify(line))
                    return 0


                if __name__ == "__main__":
                    sys.exit(main())
                ''',
            ),
            write(
                "tests/test_cli.py",
                """
                import io

                from slugkit.__main__ import main


                def test_arguments(capsys):
                    assert main(["Hello World", "Ça va?"]) == 0
                    assert capsys.readouterr().out == "hello-world\\nca-va\\n"


                def test_standard_input(capsys, monkeypatch):
                    monkeypatch.setattr("sys.stdin", io.StringIO("First Post\\nSecond post!\\n"))
                    assert main([]) == 0
                    assert capsys.readouterr().out == "first-post\\nsecond-post\\n"
                """,
            ),
        ],
    ),
]

SLUGKIT_F1_MD = """
# Feature 1: limit the length of a slug (`max_length`)

Long titles make long URLs. Add an optional, keyword-only `max_length` argument to
`slugkit.slugify` and a matching `--max-length N` option to the command line
(`python -m slugkit`).

Behaviour:

- `max_length=None` (the default) keeps today's behaviour.
- When the slug is longer than `max_length`, shorten it to at most `max_length`
  characters, cutting at the last word boundary (hyphen) that fits:
  `slugify("The quick brown fox", max_length=12) == "the-quick"`.
- If the first word alone is longer than `max_length`, cut that word at `max_length`
  characters: `slugify("Supercalifragilistic", max_length=5) == "super"`.
- The result never ends with a hyphen.
- `max_length` smaller than 1 raises `ValueError`.
- `python -m slugkit --max-length 9 "The quick brown fox"` prints `the-quick`.

Do not change the tests; the maintainers' tests for this feature live in `tests/`.
"""

SLUGKIT_F2_MD = """
# Feature 2: choose the word separator (`separator`)

Some sites want `hello_world` or `hello.world` rather than `hello-world`. Add an optional,
keyword-only `separator` argument (default `"-"`) to `slugkit.slugify` and to
`slugkit.unique_slug`, and a `--separator SEP` option to the command line.

Behaviour:

- Words are joined by `separator`: `slugify("Hello, World!", separator="_") == "hello_world"`.
- No separator at either end, never two in a row between words.
- `unique_slug` puts the same separator before its counter:
  `unique_slug("Hello", ["hello", "hello_2"], separator="_") == "hello_3"`.
- A separator that is empty or contains a letter or a digit raises `ValueError`
  (it would be indistinguishable from the words).
- `python -m slugkit --separator _ "Hello World"` prints `hello_world`.

Do not change the tests; the maintainers' tests for this feature live in `tests/`.
"""

SLUGKIT_F1_GOLD = [
    replace(
        "slugkit/core.py",
        '''
        def slugify(text: str) -> str:
            """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

            >>> slugify("Hello, World!")
            'hello-world'
            """
            folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
            return _NON_ALNUM.sub("-", folded).strip("-")
        ''',
        '''
        def slugify(text: str, *, max_length: int | None = None) -> str:
            """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

            ``max_length`` caps the slug's length, cutting at the last word boundary that fits
            (or inside the first word when it alone is too long).

            >>> slugify("Hello, World!")
            'hello-world'
            >>> slugify("The quick brown fox", max_length=12)
            'the-quick'
            """
            if max_length is not None and max_length < 1:
                raise ValueError(f"max_length must be at least 1, got {max_length}")
            folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
            slug = _NON_ALNUM.sub("-", folded).strip("-")
            if max_length is None or len(slug) <= max_length:
                return slug
            if slug[max_length] == "-":
                # The cut falls exactly between two words.
                return slug[:max_length]
            head, sep, _ = slug[:max_length].rpartition("-")
            return head if sep else slug[:max_length]
        ''',
    ),
    replace(
        "slugkit/__main__.py",
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
        """,
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
            parser.add_argument(
                "--max-length", type=int, default=None, metavar="N", help="cut slugs to N characters"
            )
        """,
    ),
    replace(
        "slugkit/__main__.py",
        """
                print(slugify(line))
        """,
        """
                print(slugify(line, max_length=args.max_length))
        """,
    ),
]

SLUGKIT_F1_TESTS = [
    write(
        "tests/test_max_length.py",
        """
        import pytest

        from slugkit import slugify
        from slugkit.__main__ import main


        def test_short_slugs_are_unchanged():
            assert slugify("hello world", max_length=100) == "hello-world"
            assert slugify("hello world", max_length=11) == "hello-world"


        def test_cuts_at_the_last_word_boundary():
            assert slugify("The quick brown fox jumps", max_length=15) == "the-quick-brown"
            assert slugify("The quick brown fox jumps", max_length=14) == "the-quick"
            assert slugify("The quick brown fox", max_length=12) == "the-quick"


        def test_never_ends_with_a_hyphen():
            for n in range(1, 20):
                slug = slugify("a bb ccc dddd eeeee", max_length=n)
                assert len(slug) <= n
                assert not slug.endswith("-")
                assert slug


        def test_long_first_word_is_cut():
            assert slugify("Supercalifragilistic expialidocious", max_length=5) == "super"


        def test_default_keeps_everything():
            title = "word " * 50
            assert slugify(title) == "-".join(["word"] * 50)


        @pytest.mark.parametrize("bad", [0, -3])
        def test_rejects_non_positive_lengths(bad):
            with pytest.raises(ValueError):
                slugify("hello", max_length=bad)


        def test_command_line_option(capsys):
            assert main(["--max-length", "9", "The quick brown fox"]) == 0
            assert capsys.readouterr().out == "the-quick\\n"
        """,
    ),
]

SLUGKIT_F2_GOLD = [
    replace(
        "slugkit/core.py",
        '''
        def slugify(text: str) -> str:
            """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

            >>> slugify("Hello, World!")
            'hello-world'
            """
            folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
            return _NON_ALNUM.sub("-", folded).strip("-")


        def unique_slug(text: str, existing: Iterable[str]) -> str:
            """Slugify ``text``, adding ``-2``, ``-3``, ... until it is not in ``existing``."""
            taken = set(existing)
            base = slugify(text)
            candidate = base
            counter = 2
            while candidate in taken:
                candidate = f"{base}-{counter}"
                counter += 1
            return candidate
        ''',
        '''
        def _check_separator(separator: str) -> None:
            if not separator or any(char.isalnum() for char in separator):
                raise ValueError(
                    f"separator must be non-empty and free of letters and digits, got {separator!r}"
                )


        def slugify(text: str, *, separator: str = "-") -> str:
            """Return a lowercase ASCII slug of ``text``, words joined by ``separator``.

            >>> slugify("Hello, World!")
            'hello-world'
            >>> slugify("Hello, World!", separator="_")
            'hello_world'
            """
            _check_separator(separator)
            folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
            return separator.join(word for word in _NON_ALNUM.split(folded) if word)


        def unique_slug(text: str, existing: Iterable[str], *, separator: str = "-") -> str:
            """Slugify ``text``, adding ``-2``, ``-3``, ... until it is not in ``existing``."""
            taken = set(existing)
            base = slugify(text, separator=separator)
            candidate = base
            counter = 2
            while candidate in taken:
                candidate = f"{base}{separator}{counter}"
                counter += 1
            return candidate
        ''',
    ),
    replace(
        "slugkit/__main__.py",
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
        """,
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
            parser.add_argument("--separator", default="-", metavar="SEP", help="word separator")
        """,
    ),
    replace(
        "slugkit/__main__.py",
        """
                print(slugify(line))
        """,
        """
                print(slugify(line, separator=args.separator))
        """,
    ),
]

SLUGKIT_F2_TESTS = [
    write(
        "tests/test_separator.py",
        """
        import pytest

        from slugkit import slugify, unique_slug
        from slugkit.__main__ import main


        def test_custom_separator():
            assert slugify("Hello, World!", separator="_") == "hello_world"
            assert slugify("  spaced   out  ", separator=".") == "spaced.out"


        def test_multi_character_separator():
            assert slugify("a b c", separator="--") == "a--b--c"


        def test_default_is_hyphen():
            assert slugify("Hello, World!") == "hello-world"


        def test_no_separator_at_the_ends():
            assert slugify("__Hello__", separator="_") == "hello"
            assert slugify("...", separator=".") == ""


        @pytest.mark.parametrize("bad", ["", "x", "1", "a_"])
        def test_rejects_separators_that_look_like_words(bad):
            with pytest.raises(ValueError):
                slugify("hello world", separator=bad)


        def test_unique_slug_uses_the_separator():
            assert unique_slug("Hello", ["hello", "hello_2"], separator="_") == "hello_3"
            assert unique_slug("Hello", ["hello"]) == "hello-2"


        def test_command_line_option(capsys):
            assert main(["--separator", "_", "Hello World"]) == 0
            assert capsys.readouterr().out == "hello_world\\n"
        """,
    ),
]


# ======================================================================================
# Task 2: csvstat — summary statistics of CSV columns (intermediate, data_analysis)
# ======================================================================================

CSVSTAT_READER_V1 = '''\
"""Reading CSV text into columns of numbers."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class Column:
    """One CSV column. ``text`` is True when a cell is not a number (no statistics then)."""

    name: str
    values: list[float] = field(default_factory=list)
    text: bool = False


def read_columns(lines: Iterable[str], *, delimiter: str = ",") -> list[Column]:
    """Parse CSV text whose first row is the header into one :class:`Column` per field."""
    reader = csv.reader(lines, delimiter=delimiter)
    header = next(reader, None)
    if header is None:
        return []
    columns = [Column(name=name.strip()) for name in header]
    for row in reader:
        if not row:
            continue
        if len(row) != len(header):
            raise ValueError(f"expected {len(header)} fields, got {len(row)}")
        for column, cell in zip(columns, row):
            if column.text:
                continue
            number = _parse_number(cell)
            if number is None:
                column.text = True
                column.values.clear()
            else:
                column.values.append(number)
    return columns


def _parse_number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None
'''

CSVSTAT_STATS_V1 = '''\
"""Summary statistics over a list of numbers."""

from __future__ import annotations

import math
from collections.abc import Sequence


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; ValueError for no values."""
    if not values:
        raise ValueError("mean of no values")
    return math.fsum(values) / len(values)


def summarize(values: Sequence[float]) -> dict[str, float]:
    """``count``, then ``mean``, ``min`` and ``max`` when there are values."""
    summary: dict[str, float] = {"count": len(values)}
    if values:
        summary["mean"] = mean(values)
        summary["min"] = min(values)
        summary["max"] = max(values)
    return summary
'''

CSVSTAT_COMMITS = [
    Commit(
        message="Initial CSV reader and summary statistics",
        date="2026-08-03T08:45:00+00:00",
        edits=[
            write(".gitignore", "__pycache__/\n*.egg-info/\n"),
            write(
                "README.md",
                """
                # csvstat

                Summary statistics of the numeric columns of a CSV file.

                    $ python3 -m csvstat prices.csv
                    item: text
                    price: count=4 mean=2.5 min=1 max=4 stdev=1.29099

                Run the tests with `python3 -m pytest tests`.
                """,
            ),
            write(
                "pyproject.toml",
                """
                [project]
                name = "csvstat"
                version = "0.4.0"
                description = "Summary statistics of the numeric columns of a CSV file"
                requires-python = ">=3.9"
                """,
            ),
            write(
                "csvstat/__init__.py",
                '''
                """csvstat: summary statistics of the numeric columns of a CSV file."""

                __version__ = "0.4.0"
                ''',
            ),
            Edit(path="csvstat/reader.py", old=None, new=CSVSTAT_READER_V1),
            Edit(path="csvstat/stats.py", old=None, new=CSVSTAT_STATS_V1),
            write(
                "tests/test_reader.py",
                """
                import pytest

                from csvstat.reader import read_columns


                def test_numeric_and_text_columns():
                    item, price = read_columns(["item,price", "tea,1.5", "cake,3"])
                    assert (item.name, item.text, item.values) == ("item", True, [])
                    assert (price.name, price.text, price.values) == ("price", False, [1.5, 3.0])


                def test_empty_input():
                    assert read_columns([]) == []


                def test_other_delimiter():
                    (a,) = read_columns(["a", "1", "2"], delimiter=";")
                    assert a.values == [1.0, 2.0]


                def test_ragged_rows_are_errors():
                    with pytest.raises(ValueError):
                        read_columns(["a,b", "1"])
                """,
            ),
            write(
                "tests/test_stats.py",
                """
                import pytest

                from csvstat.stats import mean, summarize


                def test_mean():
                    assert mean([1, 2, 3, 4]) == 2.5


                def test_mean_of_nothing():
                    with pytest.raises(ValueError):
                        mean([])


                def test_summary():
                    assert summarize([4.0, 1.0, 3.0]) == {
                        "count": 3, "mean": pytest.approx(8 / 3), "min": 1.0, "max": 4.0
                    }


                def test_summary_of_nothing():
                    assert summarize([]) == {"count": 0}
                """,
            ),
        ],
    ),
    Commit(
        message="Add the sample standard deviation to summaries",
        date="2026-08-05T13:20:00+00:00",
        edits=[
            replace(
                "csvstat/stats.py",
                '''
                def summarize(values: Sequence[float]) -> dict[str, float]:
                    """``count``, then ``mean``, ``min`` and ``max`` when there are values."""
                ''',
                '''
                def stdev(values: Sequence[float]) -> float:
                    """Sample standard deviation (n - 1 in the denominator); needs two values."""
                    if len(values) < 2:
                        raise ValueError("stdev needs at least two values")
                    centre = mean(values)
                    return math.sqrt(math.fsum((x - centre) ** 2 for x in values) / (len(values) - 1))


                def summarize(values: Sequence[float]) -> dict[str, float]:
                    """``count``, then ``mean``, ``min``, ``max`` and (from two values) ``stdev``."""
                ''',
            ),
            replace(
                "csvstat/stats.py",
                """
                        summary["max"] = max(values)
                    return summary
                """,
                """
                        summary["max"] = max(values)
                    if len(values) >= 2:
                        summary["stdev"] = stdev(values)
                    return summary
                """,
            ),
            replace(
                "tests/test_stats.py",
                """
                from csvstat.stats import mean, summarize
                """,
                """
                from csvstat.stats import mean, stdev, summarize
                """,
            ),
            replace(
                "tests/test_stats.py",
                """
                def test_summary():
                    assert summarize([4.0, 1.0, 3.0]) == {
                        "count": 3, "mean": pytest.approx(8 / 3), "min": 1.0, "max": 4.0
                    }
                """,
                """
                def test_stdev():
                    assert stdev([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(2.138089935)
                    with pytest.raises(ValueError):
                        stdev([1.0])


                def test_summary():
                    summary = summarize([4.0, 1.0, 3.0])
                    assert summary["count"] == 3
                    assert summary["mean"] == pytest.approx(8 / 3)
                    assert (summary["min"], summary["max"]) == (1.0, 4.0)
                    assert summary["stdev"] == pytest.approx(1.527525232)
                """,
            ),
        ],
    ),
    Commit(
        message="Add the command line: python -m csvstat FILE",
        date="2026-08-06T17:02:00+00:00",
        edits=[
            write(
                "csvstat/cli.py",
                '''
                """Command line: ``python -m csvstat data.csv`` prints one line per column."""

                from __future__ import annotations

                import argparse
                import sys

                from csvstat import __version__
                from csvstat.reader import Column, read_columns
                from csvstat.stats import summarize


                def format_column(column: Column) -> str:
                    """``name: key=value ...`` for a numeric column, ``name: text`` otherwise."""
                    if column.text:
                        return f"{column.name}: text"
                    parts = [f"{key}={value:g}" for key, value in summarize(column.values).items()]
                    return f"{column.name}: " + " ".join(parts)


                def main(argv: list[str] | None = None) -> int:
                    parser = argparse.ArgumentParser(
                        prog="csvstat", description="Summary statistics of the numeric columns of a CSV file."
                    )
                    parser.add_argument("file", help="CSV file, or - for standard input")
                    parser.add_argument("-d", "--delimiter", default=",", help="field delimiter (default: ,)")
                    parser.add_argument("--version", action="version", version=f"csvstat {__version__}")
                    args = parser.parse_args(argv)
                    if args.file == "-":
                        columns = read_columns(sys.stdin, delimiter=args.delimiter)
                    else:
                        with open(args.file, newline="", encoding="utf-8") as handle:
                            columns = read_columns(handle, delimiter=args.delimiter)
                    for column in columns:
                        print(format_column(column))
                    return 0
                ''',
            ),
            write(
                "csvstat/__main__.py",
                """
                import sys

                from csvstat.cli import main

                sys.exit(main())
                """,
            ),
            write(
                "tests/test_cli.py",
                """
                from csvstat.cli import main


                def test_prints_one_line_per_column(tmp_path, capsys):
                    data = tmp_path / "prices.csv"
                    data.write_text("item,price\\ntea,1\\ncake,2\\npie,3\\nbun,4\\n", encoding="utf-8")
                    assert main([str(data)]) == 0
                    item, price = capsys.readouterr().out.splitlines()
                    assert item == "item: text"
                    assert price.startswith("price: count=4 mean=2.5 ")
                    assert "min=1 " in price and "max=4" in price


                def test_delimiter_option(tmp_path, capsys):
                    data = tmp_path / "semi.csv"
                    data.write_text("a;b\\n1;2\\n3;4\\n", encoding="utf-8")
                    assert main(["-d", ";", str(data)]) == 0
                    assert capsys.readouterr().out.startswith("a: count=2 mean=2 ")
                """,
            ),
        ],
    ),
    Commit(
        message="Name the line of a ragged row in the error message",
        date="2026-08-10T11:15:00+00:00",
        edits=[
            replace(
                "csvstat/reader.py",
                """
                    for row in reader:
                        if not row:
                            continue
                        if len(row) != len(header):
                            raise ValueError(f"expected {len(header)} fields, got {len(row)}")
                """,
                """
                    for row in reader:
                        if not row:
                            continue
                        if len(row) != len(header):
                            raise ValueError(
                                f"line {reader.line_num}: expected {len(header)} fields, got {len(row)}"
                            )
                """,
            ),
            replace(
                "tests/test_reader.py",
                """
                    with pytest.raises(ValueError):
                        read_columns(["a,b", "1"])
                """,
                """
                    with pytest.raises(ValueError, match="line 3: expected 2 fields, got 1"):
                        read_columns(["a,b", "1,2", "1"])
                """,
            ),
        ],
    ),
]

CSVSTAT_F1_MD = """
# Feature 1: median and percentiles

`csvstat` reports the mean but not the median, which is what people want for skewed data
such as prices or response times. Add two functions to `csvstat/stats.py` and report the
median in every summary.

- `median(values)`: the middle value of the sorted values, or the mean of the two middle
  values for an even count. `median([3, 1, 2]) == 2`, `median([4, 1, 3, 2]) == 2.5`.
- `percentile(values, p)`: the `p`-th percentile, `0 <= p <= 100`, by linear interpolation
  between closest ranks (the method of `numpy.percentile`'s default and of
  `statistics.quantiles(..., method="inclusive")`): with the values sorted as
  `x[0] <= ... <= x[n-1]`, the rank is `r = p / 100 * (n - 1)` and the result
  `x[floor(r)] + (r - floor(r)) * (x[floor(r) + 1] - x[floor(r)])`.
  `percentile([1, 2, 3, 4], 25) == 1.75`; `percentile(v, 0) == min(v)`;
  `percentile(v, 100) == max(v)`.
- Both raise `ValueError` for an empty list; `percentile` also for `p` outside `[0, 100]`.
- `summarize(values)` gains a `"median"` entry right after `"mean"` (when there are values),
  so the command line prints `median=...` for every numeric column.

Do not change the tests; the maintainers' tests for this feature live in `tests/`.
"""

CSVSTAT_F2_MD = """
# Feature 2: missing values

Real CSV exports mark missing data with empty cells or markers such as `NA`. Today a single
`NA` turns a whole numeric column into "text". Treat missing values as missing:

- A cell is missing when, after stripping surrounding spaces, it is empty or one of `na`,
  `n/a`, `nan`, `null`, `none` (case-insensitive).
- Missing cells are skipped: they neither make a column "text" nor add a value.
- `Column` gains an integer field `missing` (default `0`) counting the missing cells of the
  column; it is counted for text columns too.
- The command line appends `missing=N` to a numeric column's line when `N > 0`, e.g.
  `price: count=3 mean=2 min=1 max=3 stdev=1 missing=2`. Lines without missing cells are
  unchanged.

Do not change the tests; the maintainers' tests for this feature live in `tests/`.
"""

CSVSTAT_F1_GOLD = [
    replace(
        "csvstat/stats.py",
        '''
        def summarize(values: Sequence[float]) -> dict[str, float]:
            """``count``, then ``mean``, ``min``, ``max`` and (from two values) ``stdev``."""
            summary: dict[str, float] = {"count": len(values)}
            if values:
                summary["mean"] = mean(values)
                summary["min"] = min(values)
        ''',
        '''
        def percentile(values: Sequence[float], p: float) -> float:
            """The ``p``-th percentile (0-100), interpolating linearly between closest ranks."""
            if not values:
                raise ValueError("percentile of no values")
            if not 0 <= p <= 100:
                raise ValueError(f"percentile must be between 0 and 100, got {p}")
            ordered = sorted(values)
            rank = p / 100 * (len(ordered) - 1)
            low = math.floor(rank)
            high = min(low + 1, len(ordered) - 1)
            return ordered[low] + (rank - low) * (ordered[high] - ordered[low])


        def median(values: Sequence[float]) -> float:
            """The middle value (mean of the two middle values for an even count)."""
            if not values:
                raise ValueError("median of no values")
            return percentile(values, 50)


        def summarize(values: Sequence[float]) -> dict[str, float]:
            """``count``, then ``mean``, ``median``, ``min``, ``max`` and (from two values) ``stdev``."""
            summary: dict[str, float] = {"count": len(values)}
            if values:
                summary["mean"] = mean(values)
                summary["median"] = median(values)
                summary["min"] = min(values)
        ''',
    ),
]

CSVSTAT_F1_TESTS = [
    write(
        "tests/test_percentiles.py",
        """
        import statistics

        import pytest

        from csvstat.cli import main
        from csvstat.stats import median, percentile, summarize


        def test_median_odd_and_even():
            assert median([3, 1, 2]) == 2
            assert median([4, 1, 3, 2]) == 2.5
            assert median([7.5]) == 7.5


        def test_percentile_interpolates():
            assert percentile([1, 2, 3, 4], 25) == pytest.approx(1.75)
            assert percentile([1, 2, 3, 4], 75) == pytest.approx(3.25)
            assert percentile([10, 20], 10) == pytest.approx(11.0)


        def test_percentile_ends():
            values = [5, -2, 9, 3]
            assert percentile(values, 0) == -2
            assert percentile(values, 100) == 9
            assert percentile([42], 90) == 42


        def test_matches_statistics_quantiles():
            values = [2.5, 9, 1, 7, 3.25, 8, 4, 4]
            quartiles = statistics.quantiles(values, n=4, method="inclusive")
            assert [percentile(values, p) for p in (25, 50, 75)] == pytest.approx(quartiles)


        @pytest.mark.parametrize("p", [-1, 100.5])
        def test_percentile_range(p):
            with pytest.raises(ValueError):
                percentile([1, 2], p)


        def test_empty_inputs():
            with pytest.raises(ValueError):
                median([])
            with pytest.raises(ValueError):
                percentile([], 50)


        def test_summary_has_median_after_mean():
            summary = summarize([1.0, 2.0, 3.0, 40.0])
            assert list(summary)[:3] == ["count", "mean", "median"]
            assert summary["median"] == 2.5
            assert "median" not in summarize([])


        def test_command_line_prints_median(tmp_path, capsys):
            data = tmp_path / "t.csv"
            data.write_text("ms\\n10\\n12\\n300\\n", encoding="utf-8")
            assert main([str(data)]) == 0
            assert " median=12 " in capsys.readouterr().out
        """,
    ),
]

CSVSTAT_F2_GOLD = [
    replace(
        "csvstat/reader.py",
        '''
        @dataclass
        class Column:
            """One CSV column. ``text`` is True when a cell is not a number (no statistics then)."""

            name: str
            values: list[float] = field(default_factory=list)
            text: bool = False
        ''',
        '''
        #: Cells meaning "no value" (compared stripped and lowercased).
        MISSING_MARKERS = frozenset({"", "na", "n/a", "nan", "null", "none"})


        @dataclass
        class Column:
            """One CSV column. ``text`` is True when a cell is not a number (no statistics then).

            ``missing`` counts the cells that hold no value (see :data:`MISSING_MARKERS`).
            """

            name: str
            values: list[float] = field(default_factory=list)
            text: bool = False
            missing: int = 0
        ''',
    ),
    replace(
        "csvstat/reader.py",
        """
                for column, cell in zip(columns, row):
                    if column.text:
                        continue
        """,
        """
                for column, cell in zip(columns, row):
                    if cell.strip().lower() in MISSING_MARKERS:
                        column.missing += 1
                        continue
                    if column.text:
                        continue
        """,
    ),
    replace(
        "csvstat/cli.py",
        """
            parts = [f"{key}={value:g}" for key, value in summarize(column.values).items()]
        """,
        """
            parts = [f"{key}={value:g}" for key, value in summarize(column.values).items()]
            if column.missing:
                parts.append(f"missing={column.missing}")
        """,
    ),
]

CSVSTAT_F2_TESTS = [
    write(
        "tests/test_missing.py",
        """
        from csvstat.cli import main
        from csvstat.reader import read_columns


        def test_missing_cells_are_skipped_and_counted():
            price, _ = read_columns(
                ["price,id", "1,a", ",b", "NA,c", "3,d", " n/a ,e", "Null,f", "NaN,g", "none,h"]
            )
            assert price.text is False
            assert price.values == [1.0, 3.0]
            assert price.missing == 6


        def test_text_columns_count_missing_too():
            name, _ = read_columns(["name,n", "tea,1", ",2", "cake,3"])
            assert name.text is True
            assert name.missing == 1


        def test_column_of_only_missing_values():
            empty, _ = read_columns(["x,y", ",1", "NA,2"])
            assert (empty.text, empty.values, empty.missing) == (False, [], 2)


        def test_default_is_zero():
            (a,) = read_columns(["a", "1"])
            assert a.missing == 0


        def test_command_line_reports_missing(tmp_path, capsys):
            data = tmp_path / "t.csv"
            data.write_text("price,qty\\n1,5\\nNA,6\\n3,7\\n,8\\n2,9\\n", encoding="utf-8")
            assert main([str(data)]) == 0
            price, qty = capsys.readouterr().out.splitlines()
            assert price.startswith("price: count=3 mean=2 ")
            assert price.endswith(" missing=2")
            assert "missing" not in qty
        """,
    ),
]


# ======================================================================================
# Task 3: ttlcache — an LRU cache with expiry, two bug reports (advanced, debugging)
# ======================================================================================

TTLCACHE_CACHE_V1 = '''\
"""A cache that keeps the ``maxsize`` most recently used entries."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

_MISSING = object()


class TTLCache:
    """Keeps at most ``maxsize`` entries; the least recently used one is evicted first."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self._data: OrderedDict[Hashable, Any] = OrderedDict()

    def set(self, key: Hashable, value: Any) -> None:
        if key in self._data:
            del self._data[key]
        elif len(self._data) >= self.maxsize:
            self._data.popitem(last=False)
        self._data[key] = value

    def get(self, key: Hashable, default: Any = None) -> Any:
        value = self._data.get(key, _MISSING)
        if value is _MISSING:
            return default
        return value

    def delete(self, key: Hashable) -> bool:
        """Remove ``key``; True if it was there."""
        return self._data.pop(key, _MISSING) is not _MISSING

    def clear(self) -> None:
        self._data.clear()

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)
'''

TTLCACHE_COMMITS = [
    Commit(
        message="Bounded cache with least-recently-used eviction",
        date="2026-07-20T10:00:00+00:00",
        edits=[
            write(".gitignore", "__pycache__/\n*.egg-info/\n"),
            write(
                "README.md",
                """
                # ttlcache

                A small in-memory cache: at most `maxsize` entries, least recently used evicted
                first, entries optionally expiring `ttl` seconds after they were set.

                ```python
                from ttlcache import TTLCache, cached

                cache = TTLCache(maxsize=256, ttl=30.0)

                @cached(cache)
                def lookup(user_id):
                    ...
                ```

                Run the tests with `python3 -m pytest tests`.
                """,
            ),
            write(
                "pyproject.toml",
                """
                [project]
                name = "ttlcache"
                version = "1.2.0"
                description = "An LRU cache whose entries can expire"
                requires-python = ">=3.9"
                """,
            ),
            write(
                "ttlcache/__init__.py",
                '''
                """ttlcache: an LRU cache whose entries can expire."""

                from ttlcache.cache import TTLCache

                __all__ = ["TTLCache"]
                __version__ = "1.2.0"
                ''',
            ),
            Edit(path="ttlcache/cache.py", old=None, new=TTLCACHE_CACHE_V1),
            write(
                "tests/test_cache.py",
                """
                import pytest

                from ttlcache import TTLCache


                def test_set_and_get():
                    cache = TTLCache(maxsize=2)
                    cache.set("a", 1)
                    assert cache.get("a") == 1
                    assert cache.get("zzz") is None
                    assert cache.get("zzz", "fallback") == "fallback"


                def test_oldest_entry_is_evicted():
                    cache = TTLCache(maxsize=2)
                    for key in "abc":
                        cache.set(key, key.upper())
                    assert "a" not in cache
                    assert len(cache) == 2


                def test_setting_again_refreshes_recency():
                    cache = TTLCache(maxsize=2)
                    cache.set("a", 1)
                    cache.set("b", 2)
                    cache.set("a", 10)
                    cache.set("c", 3)
                    assert cache.get("a") == 10
                    assert "b" not in cache


                def test_delete_and_clear():
                    cache = TTLCache(maxsize=3)
                    cache.set("a", 1)
                    assert cache.delete("a") is True
                    assert cache.delete("a") is False
                    cache.set("b", 2)
                    cache.clear()
                    assert len(cache) == 0


                def test_none_is_a_value():
                    cache = TTLCache(maxsize=1)
                    cache.set("k", None)
                    assert "k" in cache
                    assert cache.get("k", "default") is None


                def test_maxsize_must_be_positive():
                    with pytest.raises(ValueError):
                        TTLCache(maxsize=0)
                """,
            ),
        ],
    ),
    Commit(
        message="Let entries expire: ttl and an injectable clock",
        date="2026-07-22T15:30:00+00:00",
        edits=[
            replace(
                "ttlcache/cache.py",
                '''
                """A cache that keeps the ``maxsize`` most recently used entries."""

                from __future__ import annotations

                from collections import OrderedDict
                from collections.abc import Hashable
                from typing import Any
                ''',
                '''
                """A cache that keeps the ``maxsize`` most recently used entries, optionally expiring."""

                from __future__ import annotations

                import time
                from collections import OrderedDict
                from collections.abc import Callable, Hashable
                from typing import Any
                ''',
            ),
            replace(
                "ttlcache/cache.py",
                '''
                class TTLCache:
                    """Keeps at most ``maxsize`` entries; the least recently used one is evicted first."""

                    def __init__(self, maxsize: int) -> None:
                        if maxsize < 1:
                            raise ValueError("maxsize must be at least 1")
                        self.maxsize = maxsize
                        self._data: OrderedDict[Hashable, Any] = OrderedDict()

                    def set(self, key: Hashable, value: Any) -> None:
                        if key in self._data:
                            del self._data[key]
                        elif len(self._data) >= self.maxsize:
                            self._data.popitem(last=False)
                        self._data[key] = value

                    def get(self, key: Hashable, default: Any = None) -> Any:
                        value = self._data.get(key, _MISSING)
                        if value is _MISSING:
                            return default
                        return value
                ''',
                '''
                class TTLCache:
                    """Keeps at most ``maxsize`` entries; the least recently used one is evicted first.

                    With ``ttl`` (seconds), an entry expires ``ttl`` seconds after it was last set.
                    ``clock`` returns the current time in seconds; tests pass a fake one.
                    """

                    def __init__(
                        self,
                        maxsize: int,
                        ttl: float | None = None,
                        *,
                        clock: Callable[[], float] = time.monotonic,
                    ) -> None:
                        if maxsize < 1:
                            raise ValueError("maxsize must be at least 1")
                        if ttl is not None and ttl <= 0:
                            raise ValueError("ttl must be positive")
                        self.maxsize = maxsize
                        self.ttl = ttl
                        self._clock = clock
                        # key -> (value, expiry time or None), least recently used first
                        self._data: OrderedDict[Hashable, tuple[Any, float | None]] = OrderedDict()

                    def _expiry(self) -> float | None:
                        return None if self.ttl is None else self._clock() + self.ttl

                    def _expired(self, expires_at: float | None) -> bool:
                        return expires_at is not None and self._clock() >= expires_at

                    def set(self, key: Hashable, value: Any) -> None:
                        if key in self._data:
                            del self._data[key]
                        elif len(self._data) >= self.maxsize:
                            self._data.popitem(last=False)
                        self._data[key] = (value, self._expiry())

                    def get(self, key: Hashable, default: Any = None) -> Any:
                        entry = self._data.get(key, _MISSING)
                        if entry is _MISSING:
                            return default
                        value, expires_at = entry
                        if self._expired(expires_at):
                            del self._data[key]
                            return default
                        return value
                ''',
            ),
            write(
                "tests/conftest.py",
                """
                import pytest


                class FakeClock:
                    \"\"\"A clock that only moves when told to.\"\"\"

                    def __init__(self) -> None:
                        self.now = 1000.0

                    def __call__(self) -> float:
                        return self.now

                    def advance(self, seconds: float) -> None:
                        self.now += seconds


                @pytest.fixture
                def clock():
                    return FakeClock()
                """,
            ),
            write(
                "tests/test_expiry.py",
                """
                import pytest

                from ttlcache import TTLCache


                def test_entries_expire_after_ttl(clock):
                    cache = TTLCache(maxsize=4, ttl=10, clock=clock)
                    cache.set("a", 1)
                    clock.advance(9.5)
                    assert cache.get("a") == 1
                    clock.advance(0.5)
                    assert cache.get("a") is None


                def test_setting_again_restarts_the_ttl(clock):
                    cache = TTLCache(maxsize=4, ttl=10, clock=clock)
                    cache.set("a", 1)
                    clock.advance(8)
                    cache.set("a", 2)
                    clock.advance(8)
                    assert cache.get("a") == 2


                def test_no_ttl_never_expires(clock):
                    cache = TTLCache(maxsize=4, clock=clock)
                    cache.set("a", 1)
                    clock.advance(10**9)
                    assert cache.get("a") == 1


                @pytest.mark.parametrize("ttl", [0, -1])
                def test_ttl_must_be_positive(ttl):
                    with pytest.raises(ValueError):
                        TTLCache(maxsize=1, ttl=ttl)
                """,
            ),
        ],
    ),
    Commit(
        message="Count hits, misses and evictions",
        date="2026-07-24T09:50:00+00:00",
        edits=[
            replace(
                "ttlcache/cache.py",
                """
                from collections.abc import Callable, Hashable
                from typing import Any

                _MISSING = object()
                """,
                '''
                from collections.abc import Callable, Hashable
                from dataclasses import dataclass
                from typing import Any

                _MISSING = object()


                @dataclass
                class CacheStats:
                    """How the cache was used. Expired entries that are dropped are not evictions."""

                    hits: int = 0
                    misses: int = 0
                    evictions: int = 0
                ''',
            ),
            replace(
                "ttlcache/cache.py",
                """
                        self._data: OrderedDict[Hashable, tuple[Any, float | None]] = OrderedDict()
                """,
                """
                        self._data: OrderedDict[Hashable, tuple[Any, float | None]] = OrderedDict()
                        self.stats = CacheStats()
                """,
            ),
            replace(
                "ttlcache/cache.py",
                """
                        elif len(self._data) >= self.maxsize:
                            self._data.popitem(last=False)
                        self._data[key] = (value, self._expiry())

                    def get(self, key: Hashable, default: Any = None) -> Any:
                        entry = self._data.get(key, _MISSING)
                        if entry is _MISSING:
                            return default
                        value, expires_at = entry
                        if self._expired(expires_at):
                            del self._data[key]
                            return default
                        return value
                """,
                """
                        elif len(self._data) >= self.maxsize:
                            self._data.popitem(last=False)
                            self.stats.evictions += 1
                        self._data[key] = (value, self._expiry())

                    def get(self, key: Hashable, default: Any = None) -> Any:
                        entry = self._data.get(key, _MISSING)
                        if entry is _MISSING:
                            self.stats.misses += 1
                            return default
                        value, expires_at = entry
                        if self._expired(expires_at):
                            del self._data[key]
                            self.stats.misses += 1
                            return default
                        self.stats.hits += 1
                        return value
                """,
            ),
            replace(
                "ttlcache/__init__.py",
                """
                from ttlcache.cache import TTLCache

                __all__ = ["TTLCache"]
                """,
                """
                from ttlcache.cache import CacheStats, TTLCache

                __all__ = ["CacheStats", "TTLCache"]
                """,
            ),
            write(
                "tests/test_stats.py",
                """
                from ttlcache import CacheStats, TTLCache


                def test_hits_misses_and_evictions(clock):
                    cache = TTLCache(maxsize=2, ttl=5, clock=clock)
                    cache.set("a", 1)
                    cache.set("b", 2)
                    cache.get("a")
                    cache.get("nope")
                    cache.set("c", 3)
                    clock.advance(5)
                    cache.get("c")
                    assert cache.stats == CacheStats(hits=1, misses=2, evictions=1)
                """,
            ),
        ],
    ),
    Commit(
        message="Add the cached() decorator",
        date="2026-07-27T14:10:00+00:00",
        edits=[
            write(
                "ttlcache/decorators.py",
                '''
                """Memoize a function in a :class:`~ttlcache.cache.TTLCache`."""

                from __future__ import annotations

                import functools
                from collections.abc import Callable
                from typing import Any, TypeVar

                from ttlcache.cache import TTLCache

                F = TypeVar("F", bound=Callable[..., Any])
                _MISSING = object()


                def cached(cache: TTLCache) -> Callable[[F], F]:
                    """Cache the function's results by its positional and keyword arguments."""

                    def decorate(function: F) -> F:
                        @functools.wraps(function)
                        def wrapper(*args: Any, **kwargs: Any) -> Any:
                            key = (args, tuple(sorted(kwargs.items())))
                            result = cache.get(key, _MISSING)
                            if result is _MISSING:
                                result = function(*args, **kwargs)
                                cache.set(key, result)
                            return result

                        return wrapper  # type: ignore[return-value]

                    return decorate
                ''',
            ),
            replace(
                "ttlcache/__init__.py",
                """
                from ttlcache.cache import CacheStats, TTLCache

                __all__ = ["CacheStats", "TTLCache"]
                """,
                """
                from ttlcache.cache import CacheStats, TTLCache
                from ttlcache.decorators import cached

                __all__ = ["CacheStats", "TTLCache", "cached"]
                """,
            ),
            write(
                "tests/test_decorators.py",
                """
                from ttlcache import TTLCache, cached


                def test_results_are_reused(clock):
                    calls = []

                    @cached(TTLCache(maxsize=8, ttl=60, clock=clock))
                    def square(x, *, offset=0):
                        calls.append(x)
                        return x * x + offset

                    assert square(3) == 9
                    assert square(3) == 9
                    assert square(3, offset=1) == 10
                    assert calls == [3, 3]
                    clock.advance(60)
                    assert square(3) == 9
                    assert calls == [3, 3, 3]
                """,
            ),
        ],
    ),
]

TTLCACHE_F1_MD = """
# Bug 1: reading an entry does not make it "recently used"

`TTLCache` promises least-recently-used eviction, but reading an entry with `get()` does not
count as a use: the cache evicts in insertion order (first in, first out). A service that
reads a hot key on every request still loses it as soon as enough other keys are set.

Reproduce:

```python
cache = TTLCache(maxsize=2)
cache.set("hot", 1)
cache.set("b", 2)
cache.get("hot")        # a use: "hot" is now the most recently used entry
cache.set("c", 3)       # should evict "b"
assert "hot" in cache   # fails today: "hot" was evicted
```

Expected behaviour:

- A successful `get()` (a hit) marks the entry as most recently used.
- A miss, or reading an expired entry, changes nothing else.
- Reading does not restart an entry's `ttl`: entries still expire `ttl` seconds after they
  were last **set**.
- Hit/miss/eviction statistics keep their meaning.

Fix `ttlcache/cache.py`; do not change the tests (the maintainers' tests for this bug live
in `tests/`).
"""

TTLCACHE_F2_MD = """
# Bug 2: expired entries are still counted, tested and kept

Expired entries are only removed when `get()` reads them. Until then:

- `len(cache)` counts them;
- `key in cache` is `True` for an expired key;
- when the cache is full, `set()` evicts the least recently used entry even if other
  entries have already expired, so a live entry is thrown away while dead ones stay, and
  `stats.evictions` counts it.

Expected behaviour:

- `len(cache)` is the number of entries that have not expired.
- `key in cache` is `False` once the key's entry has expired.
- `set()` of a new key into a full cache first drops expired entries; only if the cache is
  still full does it evict the least recently used entry. Dropping an expired entry is not
  an eviction (`stats.evictions` counts evictions of live entries only).
- `in` and `len()` do not count as hits or misses.

Fix `ttlcache/cache.py`; do not change the tests (the maintainers' tests for this bug live
in `tests/`).
"""

TTLCACHE_F1_GOLD = [
    replace(
        "ttlcache/cache.py",
        """
                self.stats.hits += 1
                return value
        """,
        """
                self._data.move_to_end(key)
                self.stats.hits += 1
                return value
        """,
    ),
]

TTLCACHE_F1_TESTS = [
    write(
        "tests/test_recency.py",
        """
        from ttlcache import CacheStats, TTLCache, cached


        def test_get_marks_an_entry_as_recently_used():
            cache = TTLCache(maxsize=2)
            cache.set("hot", 1)
            cache.set("b", 2)
            assert cache.get("hot") == 1
            cache.set("c", 3)
            assert "hot" in cache
            assert "b" not in cache
            assert cache.stats == CacheStats(hits=1, misses=0, evictions=1)


        def test_eviction_follows_reads():
            cache = TTLCache(maxsize=3)
            for key in "abc":
                cache.set(key, key)
            cache.get("a")
            cache.get("b")
            cache.set("d", "d")
            cache.set("e", "e")
            assert sorted(key for key in "abcde" if key in cache) == ["b", "d", "e"]


        def test_misses_do_not_reorder():
            cache = TTLCache(maxsize=2)
            cache.set("a", 1)
            cache.set("b", 2)
            assert cache.get("zzz") is None
            cache.set("c", 3)
            assert "a" not in cache
            assert "b" in cache


        def test_reading_does_not_extend_the_ttl(clock):
            cache = TTLCache(maxsize=4, ttl=10, clock=clock)
            cache.set("a", 1)
            clock.advance(6)
            assert cache.get("a") == 1
            clock.advance(6)
            assert cache.get("a") is None


        def test_decorated_hot_key_survives(clock):
            calls = []

            @cached(TTLCache(maxsize=2, clock=clock))
            def double(x):
                calls.append(x)
                return 2 * x

            double(1)
            double(2)
            double(1)
            double(3)
            double(1)
            assert calls == [1, 2, 3]
        """,
    ),
]

TTLCACHE_F2_GOLD = [
    replace(
        "ttlcache/cache.py",
        """
            def _expired(self, expires_at: float | None) -> bool:
                return expires_at is not None and self._clock() >= expires_at

            def set(self, key: Hashable, value: Any) -> None:
                if key in self._data:
                    del self._data[key]
                elif len(self._data) >= self.maxsize:
        """,
        """
            def _expired(self, expires_at: float | None) -> bool:
                return expires_at is not None and self._clock() >= expires_at

            def _purge_expired(self) -> None:
                if self.ttl is None:
                    return
                dead = [key for key, (_, expires_at) in self._data.items() if self._expired(expires_at)]
                for key in dead:
                    del self._data[key]

            def set(self, key: Hashable, value: Any) -> None:
                if key in self._data:
                    del self._data[key]
                else:
                    self._purge_expired()
                if len(self._data) >= self.maxsize:
        """,
    ),
    replace(
        "ttlcache/cache.py",
        """
            def __contains__(self, key: object) -> bool:
                return key in self._data

            def __len__(self) -> int:
                return len(self._data)
        """,
        """
            def __contains__(self, key: object) -> bool:
                entry = self._data.get(key, _MISSING)  # type: ignore[call-overload]
                return entry is not _MISSING and not self._expired(entry[1])

            def __len__(self) -> int:
                self._purge_expired()
                return len(self._data)
        """,
    ),
]

TTLCACHE_F2_TESTS = [
    write(
        "tests/test_expired_entries.py",
        """
        from ttlcache import CacheStats, TTLCache


        def test_len_skips_expired_entries(clock):
            cache = TTLCache(maxsize=4, ttl=10, clock=clock)
            cache.set("a", 1)
            clock.advance(5)
            cache.set("b", 2)
            assert len(cache) == 2
            clock.advance(5)
            assert len(cache) == 1
            clock.advance(5)
            assert len(cache) == 0


        def test_in_is_false_after_expiry(clock):
            cache = TTLCache(maxsize=4, ttl=10, clock=clock)
            cache.set("a", 1)
            assert "a" in cache
            clock.advance(10)
            assert "a" not in cache


        def test_full_cache_drops_expired_entries_before_evicting(clock):
            cache = TTLCache(maxsize=2, ttl=10, clock=clock)
            cache.set("old", 1)
            clock.advance(20)
            cache.set("a", 2)
            cache.set("b", 3)
            assert "a" in cache and "b" in cache
            assert cache.stats.evictions == 0


        def test_full_cache_of_live_entries_still_evicts(clock):
            cache = TTLCache(maxsize=2, ttl=100, clock=clock)
            for key in "abc":
                cache.set(key, key)
            assert len(cache) == 2
            assert cache.stats.evictions == 1


        def test_membership_and_len_are_not_hits_or_misses(clock):
            cache = TTLCache(maxsize=2, ttl=10, clock=clock)
            cache.set("a", 1)
            assert "a" in cache
            assert "zzz" not in cache
            assert len(cache) == 1
            assert cache.stats == CacheStats()
        """,
    ),
]


# ======================================================================================
# Agent patches of the sample submissions (different from the gold patches on purpose)
# ======================================================================================

SLUGIFY_BASE = '''
def slugify(text: str) -> str:
    """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

    >>> slugify("Hello, World!")
    'hello-world'
    """
    folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
    return _NON_ALNUM.sub("-", folded).strip("-")
'''

UNIQUE_SLUG_BASE = '''
def unique_slug(text: str, existing: Iterable[str]) -> str:
    """Slugify ``text``, adding ``-2``, ``-3``, ... until it is not in ``existing``."""
    taken = set(existing)
    base = slugify(text)
    candidate = base
    counter = 2
    while candidate in taken:
        candidate = f"{base}-{counter}"
        counter += 1
    return candidate
'''

CLI_MAX_LENGTH = [
    replace(
        "slugkit/__main__.py",
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
        """,
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
            parser.add_argument(
                "--max-length",
                type=int,
                metavar="N",
                help="shorten each slug to at most N characters, cutting between words",
            )
        """,
    ),
    replace(
        "slugkit/__main__.py",
        """
                print(slugify(line))
        """,
        """
                print(slugify(line, max_length=args.max_length))
        """,
    ),
]

# Claude Code: a helper that adds whole words while they fit.
SLUGKIT_CLAUDE_F1 = [
    Edit(
        "slugkit/core.py",
        dedent(SLUGIFY_BASE),
        dedent(
            '''
            def slugify(text: str, *, max_length: int | None = None) -> str:
                """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

                If ``max_length`` is given, the slug is shortened to at most that many characters,
                preferring to cut between words.

                >>> slugify("Hello, World!")
                'hello-world'
                """
                if max_length is not None and max_length < 1:
                    raise ValueError("max_length must be a positive integer")
                folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
                slug = _NON_ALNUM.sub("-", folded).strip("-")
                if max_length is not None and len(slug) > max_length:
                    slug = _truncate(slug, max_length)
                return slug


            def _truncate(slug: str, max_length: int) -> str:
                """Keep whole words while they fit; hard-cut a first word that is too long."""
                words = slug.split("-")
                kept = words[0][:max_length]
                for word in words[1:]:
                    if len(kept) + 1 + len(word) > max_length:
                        break
                    kept = f"{kept}-{word}"
                return kept
            '''
        ),
    ),
    *CLI_MAX_LENGTH,
]

# OpenHands + DeepSeek: cuts hard and strips the trailing hyphen; words get cut in half (bug).
SLUGKIT_DEEPSEEK_F1 = [
    Edit(
        "slugkit/core.py",
        dedent(SLUGIFY_BASE),
        dedent(
            '''
            def slugify(text: str, *, max_length: int | None = None) -> str:
                """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

                >>> slugify("Hello, World!")
                'hello-world'
                """
                if max_length is not None and max_length <= 0:
                    raise ValueError("max_length must be > 0")
                folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
                slug = _NON_ALNUM.sub("-", folded).strip("-")
                if max_length:
                    slug = slug[:max_length].rstrip("-")
                return slug
            '''
        ),
    ),
    *CLI_MAX_LENGTH,
]

# Codex CLI agent 1 (coop): rfind for the last hyphen that fits.
SLUGKIT_CODEX_F1 = [
    Edit(
        "slugkit/core.py",
        dedent(SLUGIFY_BASE),
        dedent(
            '''
            def slugify(text: str, *, max_length: int | None = None) -> str:
                """Return a lowercase ASCII slug of ``text``, words joined by hyphens.

                >>> slugify("Hello, World!")
                'hello-world'
                >>> slugify("Hello, World!", max_length=7)
                'hello'
                """
                folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
                slug = _NON_ALNUM.sub("-", folded).strip("-")
                if max_length is not None:
                    if max_length < 1:
                        raise ValueError(f"max_length must be >= 1 (got {max_length})")
                    if len(slug) > max_length:
                        # Last hyphen at or before the cut; none means one long first word.
                        cut = slug.rfind("-", 0, max_length + 1)
                        slug = slug[:cut] if cut > 0 else slug[:max_length]
                return slug
            '''
        ),
    ),
    *CLI_MAX_LENGTH,
]


def _separator_edits(*, validate: bool) -> list[Edit]:
    """Aider + GPT-5: rewrite hyphens of the finished slug; ``validate=False`` is run 2's bug."""
    check = (
        """    if not separator or _ALNUM.search(separator):
        raise ValueError(f"invalid separator {separator!r}: use punctuation such as '_' or '.'")
"""
        if validate
        else ""
    )
    return [
        replace(
            "slugkit/core.py",
            """
            _APOSTROPHES = re.compile("['\\u2019]")
            """,
            """
            _APOSTROPHES = re.compile("['\\u2019]")
            _ALNUM = re.compile(r"[A-Za-z0-9]")
            """,
        ),
        Edit(
            "slugkit/core.py",
            dedent(SLUGIFY_BASE) + "\n\n" + dedent(UNIQUE_SLUG_BASE),
            dedent(
                '''
                def slugify(text: str, *, separator: str = "-") -> str:
                    """Return a lowercase ASCII slug of ``text``, words joined by ``separator``.

                    >>> slugify("Hello, World!")
                    'hello-world'
                    """
                '''
            )
            + check
            + dedent(
                '''
                    folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
                    slug = _NON_ALNUM.sub("-", folded).strip("-")
                    return slug if separator == "-" else slug.replace("-", separator)


                def unique_slug(text: str, existing: Iterable[str], separator: str = "-") -> str:
                    """Slugify ``text``, adding a counter (2, 3, ...) until it is not in ``existing``."""
                    taken = set(existing)
                    base = slugify(text, separator=separator)
                    candidate = base
                    counter = 2
                    while candidate in taken:
                        candidate = f"{base}{separator}{counter}"
                        counter += 1
                    return candidate
                '''
            ),
        ),
        replace(
            "slugkit/__main__.py",
            """
                parser.add_argument("text", nargs="*", help="text to turn into a slug")
            """,
            """
                parser.add_argument("text", nargs="*", help="text to turn into a slug")
                parser.add_argument(
                    "--separator", default="-", help="string placed between words (default: -)"
                )
            """,
        ),
        replace(
            "slugkit/__main__.py",
            """
                    print(slugify(line))
            """,
            """
                    print(slugify(line, separator=args.separator))
            """,
        ),
    ]


# Codex CLI agent 2 (coop): validate with a regex, join the words.
SLUGKIT_CODEX_F2 = [
    Edit(
        "slugkit/core.py",
        dedent(SLUGIFY_BASE) + "\n\n" + dedent(UNIQUE_SLUG_BASE),
        dedent(
            '''
            def slugify(text: str, *, separator: str = "-") -> str:
                """Return a lowercase ASCII slug of ``text``, words joined by ``separator``.

                >>> slugify("Hello, World!", separator="_")
                'hello_world'
                """
                if not separator or re.search(r"[^\\W_]", separator):
                    raise ValueError("separator must not be empty or contain letters or digits")
                folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
                words = [word for word in _NON_ALNUM.split(folded) if word]
                return separator.join(words)


            def unique_slug(text: str, existing: Iterable[str], *, separator: str = "-") -> str:
                """Slugify ``text``, adding ``-2``, ``-3``, ... until it is not in ``existing``."""
                taken = set(existing)
                base = slugify(text, separator=separator)
                candidate = base
                counter = 2
                while candidate in taken:
                    candidate = f"{base}{separator}{counter}"
                    counter += 1
                return candidate
            '''
        ),
    ),
    replace(
        "slugkit/__main__.py",
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
        """,
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
            parser.add_argument("--separator", default="-", help="word separator (default: -)")
        """,
    ),
    replace(
        "slugkit/__main__.py",
        """
                print(slugify(line))
        """,
        """
                print(slugify(line, separator=args.separator))
        """,
    ),
]

# Cursor + Claude Opus, solo: both features in one pass.
SLUGKIT_CURSOR_SOLO = [
    Edit(
        "slugkit/core.py",
        dedent(SLUGIFY_BASE) + "\n\n" + dedent(UNIQUE_SLUG_BASE),
        dedent(
            '''
            def slugify(text: str, *, separator: str = "-", max_length: int | None = None) -> str:
                """Return a lowercase ASCII slug of ``text``.

                Words are joined by ``separator`` (no letters or digits allowed in it). With
                ``max_length``, whole words are kept while they fit; a first word longer than
                ``max_length`` is cut.

                >>> slugify("Hello, World!")
                'hello-world'
                >>> slugify("The quick brown fox", separator="_", max_length=12)
                'the_quick'
                """
                if not separator or any(ch.isalnum() for ch in separator):
                    raise ValueError(f"separator {separator!r} must be non-empty punctuation")
                if max_length is not None and max_length < 1:
                    raise ValueError(f"max_length must be at least 1, not {max_length}")
                folded = _ascii_fold(_APOSTROPHES.sub("", text)).lower()
                words = [word for word in _NON_ALNUM.split(folded) if word]
                if max_length is None:
                    return separator.join(words)
                slug = ""
                for word in words:
                    candidate = f"{slug}{separator}{word}" if slug else word
                    if len(candidate) > max_length:
                        break
                    slug = candidate
                if not slug and words:
                    slug = words[0][:max_length]
                return slug


            def unique_slug(text: str, existing: Iterable[str], *, separator: str = "-") -> str:
                """Slugify ``text``, adding ``-2``, ``-3``, ... until it is not in ``existing``."""
                taken = set(existing)
                base = slugify(text, separator=separator)
                candidate = base
                counter = 2
                while candidate in taken:
                    candidate = f"{base}{separator}{counter}"
                    counter += 1
                return candidate
            '''
        ),
    ),
    replace(
        "slugkit/__main__.py",
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
        """,
        """
            parser.add_argument("text", nargs="*", help="text to turn into a slug")
            parser.add_argument("--separator", default="-", help="word separator (default: -)")
            parser.add_argument("--max-length", type=int, default=None, help="maximum slug length")
        """,
    ),
    replace(
        "slugkit/__main__.py",
        """
                print(slugify(line))
        """,
        """
                print(slugify(line, separator=args.separator, max_length=args.max_length))
        """,
    ),
]

# --- csvstat ------------------------------------------------------------------------------

CSV_SUMMARIZE_BASE = '''
def summarize(values: Sequence[float]) -> dict[str, float]:
    """``count``, then ``mean``, ``min``, ``max`` and (from two values) ``stdev``."""
    summary: dict[str, float] = {"count": len(values)}
    if values:
        summary["mean"] = mean(values)
        summary["min"] = min(values)
'''

# Claude Code agent 1 (coop): median from the sorted middle, percentile with math.modf.
CSVSTAT_CLAUDE_F1 = [
    Edit(
        "csvstat/stats.py",
        dedent(CSV_SUMMARIZE_BASE),
        dedent(
            '''
            def median(values: Sequence[float]) -> float:
                """Middle value of the sorted values; mean of the two middle ones for even counts."""
                if not values:
                    raise ValueError("median of no values")
                ordered = sorted(values)
                middle = len(ordered) // 2
                if len(ordered) % 2:
                    return ordered[middle]
                return (ordered[middle - 1] + ordered[middle]) / 2


            def percentile(values: Sequence[float], p: float) -> float:
                """``p``-th percentile (0 <= p <= 100), linear interpolation between closest ranks."""
                if not values:
                    raise ValueError("percentile of no values")
                if p < 0 or p > 100:
                    raise ValueError(f"p must be in [0, 100], got {p}")
                ordered = sorted(values)
                fraction, index = math.modf(p / 100 * (len(ordered) - 1))
                lower = ordered[int(index)]
                if fraction == 0:
                    return lower
                return lower + fraction * (ordered[int(index) + 1] - lower)


            def summarize(values: Sequence[float]) -> dict[str, float]:
                """``count``, then ``mean``, ``median``, ``min``, ``max`` and (from two values) ``stdev``."""
                summary: dict[str, float] = {"count": len(values)}
                if values:
                    summary["mean"] = mean(values)
                    summary["median"] = median(values)
                    summary["min"] = min(values)
            '''
        ),
    ),
]

# Claude Code agent 2 (coop): a helper that classifies a cell.
CSVSTAT_CLAUDE_F2 = [
    replace(
        "csvstat/reader.py",
        """
            name: str
            values: list[float] = field(default_factory=list)
            text: bool = False
        """,
        """
            name: str
            values: list[float] = field(default_factory=list)
            text: bool = False
            missing: int = 0
        """,
    ),
    replace(
        "csvstat/reader.py",
        """
                for column, cell in zip(columns, row):
                    if column.text:
                        continue
        """,
        """
                for column, cell in zip(columns, row):
                    if _is_missing(cell):
                        column.missing += 1
                        continue
                    if column.text:
                        continue
        """,
    ),
    replace(
        "csvstat/reader.py",
        """
        def _parse_number(cell: str) -> float | None:
        """,
        """
        _MISSING_MARKERS = {"", "na", "n/a", "nan", "null", "none"}


        def _is_missing(cell: str) -> bool:
            \"\"\"Empty cells and the usual "no data" markers, whatever their case or padding.\"\"\"
            return cell.strip().lower() in _MISSING_MARKERS


        def _parse_number(cell: str) -> float | None:
        """,
    ),
    replace(
        "csvstat/cli.py",
        """
            parts = [f"{key}={value:g}" for key, value in summarize(column.values).items()]
            return f"{column.name}: " + " ".join(parts)
        """,
        """
            parts = [f"{key}={value:g}" for key, value in summarize(column.values).items()]
            if column.missing > 0:
                parts.append(f"missing={column.missing}")
            return f"{column.name}: " + " ".join(parts)
        """,
    ),
]

# Cursor + Gemini: correct but sprawling (a Percentile enum, a quantiles helper, comments).
CSVSTAT_GEMINI_F1 = [
    replace(
        "csvstat/stats.py",
        """
        import math
        from collections.abc import Sequence
        """,
        """
        import math
        from collections.abc import Iterable, Sequence
        """,
    ),
    Edit(
        "csvstat/stats.py",
        dedent(CSV_SUMMARIZE_BASE),
        dedent(
            '''
            def _sorted_checked(values: Iterable[float], what: str) -> list[float]:
                """Sort the values, refusing an empty input with a clear message."""
                ordered = sorted(values)
                if len(ordered) == 0:
                    raise ValueError(f"{what} of no values")
                return ordered


            def _interpolate(ordered: Sequence[float], rank: float) -> float:
                """Value at fractional ``rank`` of sorted data (linear between neighbours)."""
                below = int(math.floor(rank))
                above = int(math.ceil(rank))
                if below == above:
                    return ordered[below]
                weight = rank - below
                return ordered[below] * (1 - weight) + ordered[above] * weight


            def percentile(values: Sequence[float], p: float) -> float:
                """The ``p``-th percentile of ``values``.

                Uses linear interpolation between closest ranks, like ``numpy.percentile`` with
                its default method and ``statistics.quantiles(method="inclusive")``.
                """
                if p < 0 or p > 100:
                    raise ValueError(f"percentile must be within [0, 100], got {p!r}")
                ordered = _sorted_checked(values, "percentile")
                return _interpolate(ordered, (len(ordered) - 1) * (p / 100))


            def quantiles(values: Sequence[float], ps: Iterable[float]) -> list[float]:
                """Several percentiles at once (sorts only once)."""
                ordered = _sorted_checked(values, "quantiles")
                result = []
                for p in ps:
                    if p < 0 or p > 100:
                        raise ValueError(f"percentile must be within [0, 100], got {p!r}")
                    result.append(_interpolate(ordered, (len(ordered) - 1) * (p / 100)))
                return result


            def median(values: Sequence[float]) -> float:
                """The 50th percentile."""
                ordered = _sorted_checked(values, "median")
                return _interpolate(ordered, (len(ordered) - 1) / 2)


            def summarize(values: Sequence[float]) -> dict[str, float]:
                """``count``, then ``mean``, ``median``, ``min``, ``max`` and (from two values) ``stdev``."""
                summary: dict[str, float] = {"count": len(values)}
                if values:
                    summary["mean"] = mean(values)
                    # The median is robust to outliers, unlike the mean.
                    summary["median"] = median(values)
                    summary["min"] = min(values)
            '''
        ),
    ),
]

# Codex CLI + GPT-5: compact and correct.
CSVSTAT_CODEX_F1 = [
    Edit(
        "csvstat/stats.py",
        dedent(CSV_SUMMARIZE_BASE),
        dedent(
            '''
            def percentile(values: Sequence[float], p: float) -> float:
                """``p``-th percentile, 0 <= p <= 100, by linear interpolation between closest ranks."""
                if not values:
                    raise ValueError("percentile of no values")
                if not 0 <= p <= 100:
                    raise ValueError(f"p must be between 0 and 100, got {p}")
                xs = sorted(values)
                rank = (len(xs) - 1) * p / 100
                i = int(rank)
                if i + 1 >= len(xs):
                    return xs[-1]
                return xs[i] + (rank - i) * (xs[i + 1] - xs[i])


            def median(values: Sequence[float]) -> float:
                """50th percentile."""
                return percentile(values, 50)


            def summarize(values: Sequence[float]) -> dict[str, float]:
                """``count``, then ``mean``, ``median``, ``min``, ``max`` and (from two values) ``stdev``."""
                summary: dict[str, float] = {"count": len(values)}
                if values:
                    summary["mean"] = mean(values)
                    summary["median"] = median(values)
                    summary["min"] = min(values)
            '''
        ),
    ),
]

# Aider + DeepSeek: made on a stale checkout (before "Name the line of a ragged row"), so
# its context lines do not match the base commit.
CSVSTAT_DEEPSEEK_F2_STALE = [
    replace(
        "csvstat/reader.py",
        """
            text: bool = False
        """,
        """
            text: bool = False
            missing: int = 0


        NA_VALUES = ("", "na", "n/a", "nan", "null", "none")
        """,
    ),
    replace(
        "csvstat/reader.py",
        """
                if len(row) != len(header):
                    raise ValueError(f"expected {len(header)} fields, got {len(row)}")
                for column, cell in zip(columns, row):
                    if column.text:
                        continue
        """,
        """
                if len(row) != len(header):
                    raise ValueError(f"expected {len(header)} fields, got {len(row)} in {row!r}")
                for column, cell in zip(columns, row):
                    if cell.strip().lower() in NA_VALUES:
                        column.missing += 1
                        continue
                    if column.text:
                        continue
        """,
    ),
    replace(
        "csvstat/cli.py",
        """
            return f"{column.name}: " + " ".join(parts)
        """,
        """
            if column.missing:
                parts.append(f"missing={column.missing}")
            return f"{column.name}: " + " ".join(parts)
        """,
    ),
]

# --- ttlcache ------------------------------------------------------------------------------

# OpenHands + Sonnet: re-insert the entry on a hit.
TTLCACHE_OPENHANDS_F1 = [
    replace(
        "ttlcache/cache.py",
        """
                self.stats.hits += 1
                return value
        """,
        """
                # A hit makes the entry the most recently used (re-insert at the end).
                self._data[key] = self._data.pop(key)
                self.stats.hits += 1
                return value
        """,
    ),
]

# Codex CLI + GPT-5: expiry handled in one helper used by set, __contains__ and __len__.
TTLCACHE_CODEX_F2 = [
    replace(
        "ttlcache/cache.py",
        """
            def set(self, key: Hashable, value: Any) -> None:
                if key in self._data:
                    del self._data[key]
                elif len(self._data) >= self.maxsize:
                    self._data.popitem(last=False)
                    self.stats.evictions += 1
                self._data[key] = (value, self._expiry())
        """,
        """
            def _drop_expired(self) -> None:
                \"\"\"Forget expired entries (not an eviction).\"\"\"
                now = self._clock()
                for key in [k for k, (_, exp) in self._data.items() if exp is not None and now >= exp]:
                    del self._data[key]

            def set(self, key: Hashable, value: Any) -> None:
                if key in self._data:
                    del self._data[key]
                else:
                    if len(self._data) >= self.maxsize:
                        self._drop_expired()
                    if len(self._data) >= self.maxsize:
                        self._data.popitem(last=False)
                        self.stats.evictions += 1
                self._data[key] = (value, self._expiry())
        """,
    ),
    replace(
        "ttlcache/cache.py",
        """
            def __contains__(self, key: object) -> bool:
                return key in self._data

            def __len__(self) -> int:
                return len(self._data)
        """,
        """
            def __contains__(self, key: object) -> bool:
                if key not in self._data:
                    return False
                _, expires_at = self._data[key]  # type: ignore[index]
                return not self._expired(expires_at)

            def __len__(self) -> int:
                self._drop_expired()
                return len(self._data)
        """,
    ),
]

# Aider + Gemini: fixes len() and `in`, but a full cache still evicts live entries (bug).
TTLCACHE_GEMINI_F2 = [
    replace(
        "ttlcache/cache.py",
        """
            def __contains__(self, key: object) -> bool:
                return key in self._data

            def __len__(self) -> int:
                return len(self._data)
        """,
        """
            def __contains__(self, key: object) -> bool:
                entry = self._data.get(key)  # type: ignore[call-overload]
                return entry is not None and not self._expired(entry[1])

            def __len__(self) -> int:
                return sum(1 for _, expires_at in self._data.values() if not self._expired(expires_at))
        """,
    ),
]


# ======================================================================================
# Task and submission specifications
# ======================================================================================


@dataclass(frozen=True)
class Feature:
    title: str
    description: str
    gold: list[Edit]
    tests: list[Edit]


@dataclass(frozen=True)
class TaskSpec:
    id: str
    title: str
    description: str
    category: str
    difficulty: str
    commits: list[Commit]
    features: list[Feature]
    criteria: str  # YAML lines of success_criteria
    baseline: str  # YAML lines of baseline


TASKS = [
    TaskSpec(
        id="slugkit-options",
        title="slugkit: length limit and custom separator for slugs",
        description=(
            "slugkit is a small pure-Python library (and `python -m slugkit` command) that turns\n"
            "titles into URL-friendly slugs. Add two keyword options to `slugify`: a length limit\n"
            "that cuts between words (feature 1) and a custom word separator (feature 2).\n"
            "Both features change the signature and body of `slugify` and the command line, so\n"
            "two agents working on them in parallel will produce conflicting patches.\n"
        ),
        category="backend_development",
        difficulty="beginner",
        commits=SLUGKIT_COMMITS,
        features=[
            Feature(
                "Limit the length of a slug (max_length)",
                SLUGKIT_F1_MD,
                SLUGKIT_F1_GOLD,
                SLUGKIT_F1_TESTS,
            ),
            Feature(
                "Choose the word separator (separator)",
                SLUGKIT_F2_MD,
                SLUGKIT_F2_GOLD,
                SLUGKIT_F2_TESTS,
            ),
        ],
        criteria="""\
  - type: tests_pass
    weight: 3
    description: The feature's tests pass
  - type: no_errors
    weight: 1
    description: The run finished and evaluation hit no error or timeout
""",
        baseline="""\
  median_tokens: 90000
  min_tokens: 15000
  max_tokens: 600000
  median_tool_calls: 12
  min_tool_calls: 3
  max_tool_calls: 80
  median_execution_time: 120
  min_execution_time: 30
  max_execution_time: 900
  median_cost: 0.10
  min_cost: 0.01
  max_cost: 1.00
  median_iterations: 2
""",
    ),
    TaskSpec(
        id="csvstat-summaries",
        title="csvstat: medians, percentiles and missing values",
        description=(
            "csvstat is a small pure-Python command line tool (`python -m csvstat data.csv`) that\n"
            "prints summary statistics of the numeric columns of a CSV file. Add the median and a\n"
            "percentile function to its statistics (feature 1, `csvstat/stats.py`) and teach its\n"
            "reader to skip missing values such as empty cells and `NA` (feature 2,\n"
            "`csvstat/reader.py` and `csvstat/cli.py`). The two features touch different files\n"
            "and merge cleanly.\n"
        ),
        category="data_analysis",
        difficulty="intermediate",
        commits=CSVSTAT_COMMITS,
        features=[
            Feature("Median and percentiles", CSVSTAT_F1_MD, CSVSTAT_F1_GOLD, CSVSTAT_F1_TESTS),
            Feature("Missing values", CSVSTAT_F2_MD, CSVSTAT_F2_GOLD, CSVSTAT_F2_TESTS),
        ],
        criteria="""\
  - type: tests_pass
    weight: 3
    description: The feature's tests pass
  - type: no_errors
    weight: 1
    description: The run finished and evaluation hit no error or timeout
  - type: regex
    weight: 1
    description: The command line still starts and reports its version
    pattern: '^csvstat \\d+\\.\\d+\\.\\d+$'
    target: 'command:python3 -m csvstat --version'
""",
        baseline="""\
  median_tokens: 150000
  min_tokens: 20000
  max_tokens: 900000
  median_tool_calls: 18
  min_tool_calls: 4
  max_tool_calls: 120
  median_execution_time: 200
  min_execution_time: 45
  max_execution_time: 1200
  median_cost: 0.18
  min_cost: 0.02
  max_cost: 1.50
  median_iterations: 2
""",
    ),
    TaskSpec(
        id="ttlcache-bugs",
        title="ttlcache: fix recency and expiry bugs in an LRU cache",
        description=(
            "ttlcache is a small pure-Python LRU cache whose entries can expire (`TTLCache`,\n"
            "`@cached`). Two bug reports: reading an entry does not make it recently used, so\n"
            "eviction is first-in-first-out (feature 1), and expired entries are still counted by\n"
            "`len()`, found by `in` and kept while live entries are evicted (feature 2). Both fixes\n"
            "are in `ttlcache/cache.py`, in different methods; they merge cleanly.\n"
        ),
        category="debugging",
        difficulty="advanced",
        commits=TTLCACHE_COMMITS,
        features=[
            Feature(
                "get() does not refresh recency",
                TTLCACHE_F1_MD,
                TTLCACHE_F1_GOLD,
                TTLCACHE_F1_TESTS,
            ),
            Feature(
                "Expired entries are counted, found and kept",
                TTLCACHE_F2_MD,
                TTLCACHE_F2_GOLD,
                TTLCACHE_F2_TESTS,
            ),
        ],
        criteria="""\
  - type: tests_pass
    weight: 3
    description: The bug's regression tests pass
  - type: no_errors
    weight: 1
    description: The run finished and evaluation hit no error or timeout
  - type: exact_match
    weight: 0.5
    description: The package still imports and keeps its version
    expected: '1.2.0'
    target: 'command:python3 -c "import ttlcache; print(ttlcache.__version__)"'
""",
        baseline="""\
  median_tokens: 220000
  min_tokens: 30000
  max_tokens: 1200000
  median_tool_calls: 25
  min_tool_calls: 5
  max_tool_calls: 150
  median_execution_time: 300
  min_execution_time: 60
  max_execution_time: 1800
  median_cost: 0.25
  min_cost: 0.03
  max_cost: 2.00
  median_iterations: 3
""",
    ),
]

#: US dollars per million tokens: (input, output, cached input read). Public list prices of
#: November 2026's sample data; cache writes are billed as input.
PRICES: dict[str, tuple[float, float, float]] = {
    "claude-sonnet-4-5": (3.00, 15.00, 0.30),
    "claude-haiku-4-5": (1.00, 5.00, 0.10),
    "claude-opus-4-1": (15.00, 75.00, 1.50),
    "gpt-5": (1.25, 10.00, 0.125),
    "gpt-5-codex": (1.25, 10.00, 0.125),
    "gemini-2.5-pro": (1.25, 10.00, 0.31),
    "deepseek-v3": (0.27, 1.10, 0.07),
}


@dataclass(frozen=True)
class Usage:
    """Tokens one agent used in one run."""

    model: str
    prompt: int
    completion: int
    cached: int

    def cost(self) -> float:
        price_in, price_out, price_cached = PRICES[self.model]
        uncached = self.prompt - self.cached
        return (
            uncached * price_in + self.cached * price_cached + self.completion * price_out
        ) / 1e6


@dataclass(frozen=True)
class Patch:
    """A submission patch: ``edits`` applied to the base commit (or to ``base_rev``)."""

    name: str
    edits: list[Edit]
    base_rev: str | None = None  # e.g. "HEAD~1": a stale checkout


@dataclass(frozen=True)
class RunSpec:
    id: str
    patches: list[str]
    usage: list[Usage]
    tool_calls: int
    iterations: int
    execution_time: float
    #: What evaluation should find, checked by ``--check`` and documented in the README:
    #: "pass", "fail" (tests fail), "no_apply" (a patch does not apply), "conflict" (coop merge).
    expect: str
    success: bool = True
    trajectory: str | None = None


@dataclass(frozen=True)
class SubmissionSpec:
    task: str
    id: str
    tool: str
    tool_version: str
    models: list[str]
    contributor: str
    github: str
    date: str
    setting: str
    features: list[int]
    patches: list[Patch]
    runs: list[RunSpec]
    notes: str | None = None
    cost_source: str = "tool_report"
    extra_files: dict[str, str] = field(default_factory=dict)


def u(model: str, prompt: int, completion: int, cached: int) -> list[Usage]:
    return [Usage(model, prompt, completion, cached)]


CSVSTAT_TRAJECTORY = (
    "\n".join(
        [
            '{"step": 1, "agent": 1, "t": 0.0, "kind": "tool", "tool": "read_file", "input": "csvstat/stats.py"}',
            '{"step": 2, "agent": 2, "t": 0.4, "kind": "tool", "tool": "read_file", "input": "csvstat/reader.py"}',
            '{"step": 3, "agent": 1, "t": 6.1, "kind": "tool", "tool": "grep", "input": "summarize"}',
            '{"step": 4, "agent": 2, "t": 7.9, "kind": "tool", "tool": "read_file", "input": "csvstat/cli.py"}',
            '{"step": 5, "agent": 1, "t": 21.5, "kind": "message", "text": "Plan: add median() and percentile() to stats.py, add median to summarize()."}',
            '{"step": 6, "agent": 2, "t": 24.0, "kind": "message", "text": "Plan: count missing cells in reader.py, print missing=N in cli.py. I will not touch stats.py."}',
            '{"step": 7, "agent": 1, "t": 40.2, "kind": "tool", "tool": "edit_file", "input": "csvstat/stats.py"}',
            '{"step": 8, "agent": 2, "t": 44.8, "kind": "tool", "tool": "edit_file", "input": "csvstat/reader.py"}',
            '{"step": 9, "agent": 2, "t": 52.3, "kind": "tool", "tool": "edit_file", "input": "csvstat/cli.py"}',
            '{"step": 10, "agent": 1, "t": 58.0, "kind": "tool", "tool": "bash", "input": "python3 -m pytest -q tests", "exit_code": 0}',
            '{"step": 11, "agent": 2, "t": 66.7, "kind": "tool", "tool": "bash", "input": "python3 -m pytest -q tests", "exit_code": 0}',
            '{"step": 12, "agent": 1, "t": 71.2, "kind": "message", "text": "Done: median and percentile with linear interpolation."}',
            '{"step": 13, "agent": 2, "t": 74.9, "kind": "message", "text": "Done: missing values skipped and counted."}',
        ]
    )
    + "\n"
)

SUBMISSIONS = [
    # ---------------------------------------------------------------- slugkit-options
    SubmissionSpec(
        task="slugkit-options",
        id="2026-11-02_claude-code_claude-sonnet-4-5",
        tool="Claude Code",
        tool_version="2.0.31",
        models=["claude-sonnet-4-5"],
        contributor="Maya Lindqvist",
        github="mlindqvist",
        date="2026-11-02",
        setting="single",
        features=[1],
        patches=[Patch("max-length.patch", SLUGKIT_CLAUDE_F1)],
        runs=[
            RunSpec(
                "run-1",
                ["max-length.patch"],
                u("claude-sonnet-4-5", 61240, 3120, 48900),
                tool_calls=11,
                iterations=1,
                execution_time=74.2,
                expect="pass",
            ),
            RunSpec(
                "run-2",
                ["max-length.patch"],
                u("claude-sonnet-4-5", 83410, 4480, 66150),
                tool_calls=15,
                iterations=2,
                execution_time=101.8,
                expect="pass",
            ),
            RunSpec(
                "run-3",
                ["max-length.patch"],
                u("claude-sonnet-4-5", 58770, 2960, 47210),
                tool_calls=10,
                iterations=1,
                execution_time=69.5,
                expect="pass",
            ),
        ],
        notes=(
            "Three runs from a clean checkout with the default system prompt; all three runs\n"
            "produced the same diff, so they share one patch file.\n"
        ),
    ),
    SubmissionSpec(
        task="slugkit-options",
        id="2026-11-03_aider_gpt-5",
        tool="Aider",
        tool_version="0.86.1",
        models=["gpt-5"],
        contributor="Tomás Herrera",
        github="therrera-dev",
        date="2026-11-03",
        setting="single",
        features=[2],
        patches=[
            Patch("run-1.patch", _separator_edits(validate=True)),
            Patch("run-2.patch", _separator_edits(validate=False)),
        ],
        runs=[
            RunSpec(
                "run-1",
                ["run-1.patch"],
                u("gpt-5", 24310, 5870, 9216),
                tool_calls=4,
                iterations=2,
                execution_time=88.0,
                expect="pass",
            ),
            RunSpec(
                "run-2",
                ["run-2.patch"],
                u("gpt-5", 19880, 4120, 7680),
                tool_calls=3,
                iterations=1,
                execution_time=63.4,
                expect="fail",
            ),
            RunSpec(
                "run-3",
                ["run-1.patch"],
                u("gpt-5", 26040, 6330, 9216),
                tool_calls=4,
                iterations=2,
                execution_time=95.7,
                expect="pass",
            ),
        ],
        notes="aider --model gpt-5 --edit-format diff, reasoning effort medium. Run 3 reproduced run 1's diff.\n",
    ),
    SubmissionSpec(
        task="slugkit-options",
        id="2026-11-05_openhands_deepseek-v3",
        tool="OpenHands",
        tool_version="0.59.0",
        models=["deepseek-v3"],
        contributor="Wei Zhang",
        github="weizhang-oss",
        date="2026-11-05",
        setting="single",
        features=[1],
        patches=[Patch("agent.patch", SLUGKIT_DEEPSEEK_F1)],
        runs=[
            RunSpec(
                "run-1",
                ["agent.patch"],
                u("deepseek-v3", 182400, 7350, 121600),
                tool_calls=27,
                iterations=3,
                execution_time=412.0,
                expect="fail",
            ),
        ],
        cost_source="provider_invoice",
    ),
    SubmissionSpec(
        task="slugkit-options",
        id="2026-11-06_codex-cli_gpt-5-codex",
        tool="Codex CLI",
        tool_version="0.53.0",
        models=["gpt-5-codex"],
        contributor="Priya Natarajan",
        github="priyanat",
        date="2026-11-06",
        setting="coop",
        features=[1, 2],
        patches=[
            Patch("agent1-max-length.patch", SLUGKIT_CODEX_F1),
            Patch("agent2-separator.patch", SLUGKIT_CODEX_F2),
        ],
        runs=[
            RunSpec(
                "run-1",
                ["agent1-max-length.patch", "agent2-separator.patch"],
                [
                    Usage("gpt-5-codex", 41200, 6840, 28160),
                    Usage("gpt-5-codex", 38950, 6210, 26880),
                ],
                tool_calls=19,
                iterations=2,
                execution_time=143.0,
                expect="conflict",
            ),
        ],
        notes=(
            "Two Codex CLI sessions in separate worktrees, no shared channel. Each patch passes\n"
            "its own feature's tests alone; both rewrite the signature of slugify().\n"
        ),
    ),
    SubmissionSpec(
        task="slugkit-options",
        id="2026-11-07_cursor_claude-opus-4-1",
        tool="Cursor",
        tool_version="2.0.43",
        models=["claude-opus-4-1"],
        contributor="Jonas Becker",
        github="jbecker",
        date="2026-11-07",
        setting="solo",
        features=[1, 2],
        patches=[Patch("both-features.patch", SLUGKIT_CURSOR_SOLO)],
        runs=[
            RunSpec(
                "run-1",
                ["both-features.patch"],
                u("claude-opus-4-1", 97300, 5420, 80640),
                tool_calls=16,
                iterations=2,
                execution_time=128.0,
                expect="pass",
            ),
        ],
        notes="Agent mode, both feature descriptions pasted in one prompt.\n",
    ),
    # ---------------------------------------------------------------- csvstat-summaries
    SubmissionSpec(
        task="csvstat-summaries",
        id="2026-11-04_claude-code_claude-sonnet-4-5",
        tool="Claude Code",
        tool_version="2.0.31",
        models=["claude-sonnet-4-5", "claude-haiku-4-5"],
        contributor="Maya Lindqvist",
        github="mlindqvist",
        date="2026-11-04",
        setting="coop",
        features=[1, 2],
        patches=[
            Patch("agent1-percentiles.patch", CSVSTAT_CLAUDE_F1),
            Patch("agent2-missing.patch", CSVSTAT_CLAUDE_F2),
        ],
        runs=[
            RunSpec(
                "run-1",
                ["agent1-percentiles.patch", "agent2-missing.patch"],
                [
                    Usage("claude-sonnet-4-5", 72480, 4210, 58300),
                    Usage("claude-haiku-4-5", 66120, 3980, 51870),
                ],
                tool_calls=23,
                iterations=2,
                execution_time=96.0,
                expect="pass",
                trajectory="trajectory.jsonl",
            ),
        ],
        notes=(
            "Agent 1 (Sonnet 4.5) took feature 1, agent 2 (a Haiku 4.5 subagent) feature 2;\n"
            "they announced the files they would edit before starting. Trajectory attached.\n"
        ),
        extra_files={"trajectory.jsonl": CSVSTAT_TRAJECTORY},
    ),
    SubmissionSpec(
        task="csvstat-summaries",
        id="2026-11-05_cursor_gemini-2.5-pro",
        tool="Cursor",
        tool_version="2.0.40",
        models=["gemini-2.5-pro"],
        contributor="Aisha Bello",
        github="aishab",
        date="2026-11-05",
        setting="single",
        features=[1],
        patches=[Patch("percentiles.patch", CSVSTAT_GEMINI_F1)],
        runs=[
            RunSpec(
                "run-1",
                ["percentiles.patch"],
                u("gemini-2.5-pro", 512300, 18950, 301400),
                tool_calls=64,
                iterations=6,
                execution_time=742.0,
                expect="pass",
            ),
            RunSpec(
                "run-2",
                ["percentiles.patch"],
                u("gemini-2.5-pro", 438700, 16420, 262100),
                tool_calls=55,
                iterations=5,
                execution_time=655.0,
                expect="pass",
            ),
            RunSpec(
                "run-3",
                ["percentiles.patch"],
                u("gemini-2.5-pro", 601250, 21030, 355900),
                tool_calls=71,
                iterations=7,
                execution_time=868.0,
                expect="pass",
            ),
        ],
        notes="Agent mode with auto-run. The agent re-ran the whole test suite after every edit.\n",
    ),
    SubmissionSpec(
        task="csvstat-summaries",
        id="2026-11-08_aider_deepseek-v3",
        tool="Aider",
        tool_version="0.86.1",
        models=["deepseek-v3"],
        contributor="Wei Zhang",
        github="weizhang-oss",
        date="2026-11-08",
        setting="single",
        features=[2],
        patches=[Patch("missing-values.patch", CSVSTAT_DEEPSEEK_F2_STALE, base_rev="HEAD~1")],
        runs=[
            RunSpec(
                "run-1",
                ["missing-values.patch"],
                u("deepseek-v3", 31870, 3940, 12160),
                tool_calls=5,
                iterations=2,
                execution_time=118.0,
                expect="no_apply",
            ),
        ],
        notes=(
            "Run on a checkout one commit behind the task's base commit by mistake: the patch\n"
            "does not apply to the base commit.\n"
        ),
    ),
    SubmissionSpec(
        task="csvstat-summaries",
        id="2026-11-09_codex-cli_gpt-5",
        tool="Codex CLI",
        tool_version="0.55.0",
        models=["gpt-5"],
        contributor="Priya Natarajan",
        github="priyanat",
        date="2026-11-09",
        setting="single",
        features=[1],
        patches=[Patch("percentiles.patch", CSVSTAT_CODEX_F1)],
        runs=[
            RunSpec(
                "run-1",
                ["percentiles.patch"],
                u("gpt-5", 52640, 7820, 39680),
                tool_calls=9,
                iterations=1,
                execution_time=84.0,
                expect="pass",
            ),
        ],
    ),
    # ---------------------------------------------------------------- ttlcache-bugs
    SubmissionSpec(
        task="ttlcache-bugs",
        id="2026-11-03_openhands_claude-sonnet-4-5",
        tool="OpenHands",
        tool_version="0.59.0",
        models=["claude-sonnet-4-5"],
        contributor="Lena Fischer",
        github="lenafischer",
        date="2026-11-03",
        setting="single",
        features=[1],
        patches=[Patch("recency-fix.patch", TTLCACHE_OPENHANDS_F1)],
        runs=[
            RunSpec(
                "run-1",
                ["recency-fix.patch"],
                u("claude-sonnet-4-5", 148900, 6230, 121400),
                tool_calls=21,
                iterations=2,
                execution_time=196.0,
                expect="pass",
            ),
            RunSpec(
                "run-2",
                ["recency-fix.patch"],
                u("claude-sonnet-4-5", 121350, 5110, 99800),
                tool_calls=17,
                iterations=2,
                execution_time=171.0,
                expect="pass",
            ),
            RunSpec(
                "run-3",
                ["recency-fix.patch"],
                u("claude-sonnet-4-5", 176200, 7480, 143900),
                tool_calls=26,
                iterations=3,
                execution_time=244.0,
                expect="pass",
            ),
        ],
        notes="CodeActAgent, max 50 iterations. The agent wrote a reproduction script first.\n",
    ),
    SubmissionSpec(
        task="ttlcache-bugs",
        id="2026-11-06_codex-cli_gpt-5",
        tool="Codex CLI",
        tool_version="0.53.0",
        models=["gpt-5"],
        contributor="Priya Natarajan",
        github="priyanat",
        date="2026-11-06",
        setting="single",
        features=[2],
        patches=[Patch("expiry-fix.patch", TTLCACHE_CODEX_F2)],
        runs=[
            RunSpec(
                "run-1",
                ["expiry-fix.patch"],
                u("gpt-5", 96400, 11250, 70400),
                tool_calls=18,
                iterations=2,
                execution_time=232.0,
                expect="pass",
            ),
        ],
    ),
    SubmissionSpec(
        task="ttlcache-bugs",
        id="2026-11-08_aider_gemini-2.5-pro",
        tool="Aider",
        tool_version="0.86.1",
        models=["gemini-2.5-pro"],
        contributor="Aisha Bello",
        github="aishab",
        date="2026-11-08",
        setting="single",
        features=[2],
        patches=[Patch("expiry-fix.patch", TTLCACHE_GEMINI_F2)],
        runs=[
            RunSpec(
                "run-1",
                ["expiry-fix.patch"],
                u("gemini-2.5-pro", 45210, 6890, 16384),
                tool_calls=6,
                iterations=3,
                execution_time=151.0,
                expect="fail",
                success=True,
            ),
        ],
        notes="The agent declared success after fixing len() and `in`.\n",
    ),
]


# ======================================================================================
# Building
# ======================================================================================


RUNNER = """\
#!/bin/bash
# CooperBench-style runner, kept for compatibility (the arena harness has its own runner):
#   runner.sh <tests_patch> [feature_patch]
# Patches are looked up under /patches/. Resets the repository, applies the feature patch
# (if any) then the tests patch, runs the tests and exits with the test command's status.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: runner.sh <tests_patch> [feature_patch]" >&2
    exit 2
fi
TESTS_PATCH="/patches/$1"
FEATURE_PATCH="${{2:+/patches/$2}}"

cd /workspace/repo || exit 2
rm -f .git/index.lock
git reset --hard --quiet
git clean -fdxq

apply_patch() {{
    git apply --ignore-whitespace --ignore-space-change "$1" || git apply --3way "$1"
}}

if [ -n "$FEATURE_PATCH" ]; then
    apply_patch "$FEATURE_PATCH" || {{ echo "runner: feature patch does not apply" >&2; exit 2; }}
fi
apply_patch "$TESTS_PATCH" || {{ echo "runner: tests patch does not apply" >&2; exit 2; }}

export ARENA_JUNIT="${{ARENA_JUNIT:-/tmp/arena-junit.xml}}"
{command}
exit $?
"""

TASK_YAML = """\
# {title}
# Generated by scripts/build_sample_dataset.py: edit the script, not this file.
schema_version: 1
id: {id}
title: "{title}"
description: |
{description}category: {category}
difficulty: {difficulty}
language: Python
source:
  bundle: repo.bundle
  commit: {sha}
tests:
  command: 'python3 -m pytest -q -p no:cacheprovider --junitxml="$ARENA_JUNIT" tests'
  timeout: 120
features:
{features}success_criteria:
{criteria}# Used while the task has fewer than 5 accepted submissions (seed 002).
baseline:
{baseline}protected_paths:
  - "tests/*"
  - "**/conftest.py"
  - "conftest.py"
limits:
  memory_mb: 1024
  pids: 256
  cpus: 1.0
"""


def git_env() -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") and key not in {"EMAIL"}
    }
    env.update(GIT_IDENTITY)
    # Ignore the machine's git configuration so output is the same everywhere.
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["TZ"] = "UTC"
    return env


def git(repo: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    result = subprocess.run(
        ["git", "-c", "core.autocrlf=false", "-c", "pack.threads=1", *args],
        cwd=repo,
        env=env or git_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if check and result.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed in {repo}:\n{result.stderr}")
    return result.stdout


def build_repo(spec: TaskSpec, repo: Path) -> str:
    """Commit the task's history in ``repo``; return the base (HEAD) commit SHA."""
    repo.mkdir(parents=True)
    git(repo, "init", "--quiet", "--initial-branch=main")
    for commit in spec.commits:
        apply_edits(repo, commit.edits)
        git(repo, "add", "--all")
        env = git_env() | {"GIT_AUTHOR_DATE": commit.date, "GIT_COMMITTER_DATE": commit.date}
        git(repo, "commit", "--quiet", "--no-verify", "-m", commit.message, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


def diff_of(repo: Path, edits: list[Edit], *, base_rev: str = "main") -> str:
    """``git diff`` of ``edits`` applied on ``base_rev``; the clone is left clean on main."""
    git(repo, "checkout", "--quiet", "--detach", base_rev)
    apply_edits(repo, edits)
    git(repo, "add", "--all")
    patch = git(
        repo,
        "diff",
        "--cached",
        "--no-color",
        "--no-ext-diff",
        "--src-prefix=a/",
        "--dst-prefix=b/",
    )
    git(repo, "reset", "--quiet", "--hard")
    git(repo, "clean", "--quiet", "-fdx")
    git(repo, "checkout", "--quiet", "main")
    if not patch:
        raise SystemExit(f"empty diff for edits {edits[0].path} ...")
    return patch


def feature_yaml(spec: TaskSpec) -> str:
    return "".join(
        f'  - id: {number}\n    title: "{feature.title}"\n'
        for number, feature in enumerate(spec.features, start=1)
    )


def write_task(spec: TaskSpec, repo: Path, out: Path, sha: str) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    git(repo, "bundle", "create", "--quiet", str(out / "repo.bundle"), "--all")
    description = "".join(f"  {line}\n" for line in spec.description.splitlines())
    (out / "task.yaml").write_text(
        TASK_YAML.format(
            id=spec.id,
            title=spec.title,
            description=description,
            category=spec.category,
            difficulty=spec.difficulty,
            sha=sha,
            features=feature_yaml(spec),
            criteria=spec.criteria,
            baseline=spec.baseline,
        ),
        encoding="utf-8",
    )
    (out / "Dockerfile").write_text(task_dockerfile(sha), encoding="utf-8")
    runner = out / "runner.sh"
    runner.write_text(RUNNER.format(command=TEST_COMMAND), encoding="utf-8")
    runner.chmod(0o755)
    for number, feature in enumerate(spec.features, start=1):
        folder = out / f"feature{number}"
        folder.mkdir()
        (folder / "feature.md").write_text(dedent(feature.description), encoding="utf-8")
        (folder / "feature.patch").write_text(diff_of(repo, feature.gold), encoding="utf-8")
        (folder / "tests.patch").write_text(diff_of(repo, feature.tests), encoding="utf-8")


def quote(text: str) -> str:
    """A double-quoted YAML scalar."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_submission(spec: SubmissionSpec) -> str:
    lines = [
        "# Sample submission generated by scripts/build_sample_dataset.py.",
        "schema_version: 1",
        f"task: {spec.task}",
        "tool:",
        f"  name: {quote(spec.tool)}",
        f"  version: {quote(spec.tool_version)}",
        "models:",
        *[f"  - {model}" for model in spec.models],
        "contributor:",
        f"  name: {quote(spec.contributor)}",
        f"  github: {spec.github}",
        f"date: {spec.date}",
        f"setting: {spec.setting}",
        f"features: [{', '.join(str(feature) for feature in spec.features)}]",
        f"cost_source: {spec.cost_source}",
    ]
    if spec.notes:
        lines.append("notes: |")
        lines.extend(f"  {line}" for line in spec.notes.splitlines())
    lines.append("runs:")
    for run in spec.runs:
        prompt = sum(usage.prompt for usage in run.usage)
        completion = sum(usage.completion for usage in run.usage)
        cached = sum(usage.cached for usage in run.usage)
        cost = sum(usage.cost() for usage in run.usage)
        lines += [
            f"  - id: {run.id}",
            "    tokens:",
            f"      total: {prompt + completion}",
            f"      prompt: {prompt}",
            f"      completion: {completion}",
            f"      cached: {cached}",
            f"    tool_calls: {run.tool_calls}",
            f"    iterations: {run.iterations}",
            f"    execution_time: {run.execution_time}",
            f"    estimated_cost: {cost:.4f}",
            f"    success: {'true' if run.success else 'false'}",
            "    patches:",
            *[f"      - {name}" for name in run.patches],
        ]
        if run.trajectory:
            lines.append(f"    trajectory: {run.trajectory}")
    return "\n".join(lines) + "\n"


def write_submission(spec: SubmissionSpec, repos: dict[str, Path], out: Path) -> None:
    out.mkdir(parents=True)
    repo = repos[spec.task]
    for patch in spec.patches:
        text = diff_of(repo, patch.edits, base_rev=patch.base_rev or "main")
        (out / patch.name).write_text(text, encoding="utf-8")
    for name, content in spec.extra_files.items():
        (out / name).write_text(content, encoding="utf-8")
    (out / "submission.yaml").write_text(render_submission(spec), encoding="utf-8")


def build(root: Path, work: Path) -> dict[str, str]:
    """Write every task and submission under ``root``; return task id -> base SHA."""
    repos: dict[str, Path] = {}
    shas: dict[str, str] = {}
    for spec in TASKS:
        repo = work / "repos" / spec.id
        shas[spec.id] = build_repo(spec, repo)
        repos[spec.id] = repo
        write_task(spec, repo, root / "dataset" / spec.id, shas[spec.id])
    for task_id in repos:
        target = root / "submissions" / task_id
        if target.exists():
            shutil.rmtree(target)
    for submission in SUBMISSIONS:
        folder = root / "submissions" / submission.task / submission.id
        write_submission(submission, repos, folder)
    return shas


# ======================================================================================
# Checking (without Docker: host git + host python3 -m pytest)
# ======================================================================================


def run_tests(repo: Path) -> bool:
    junit = repo.parent / f"{repo.name}-junit.xml"
    env = dict(os.environ, ARENA_JUNIT=str(junit), PYTHONDONTWRITEBYTECODE="1")
    result = subprocess.run(
        ["bash", "-c", TEST_COMMAND],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode == 0


def fresh_clone(bundle: Path, sha: str, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    subprocess.run(["git", "clone", "--quiet", str(bundle), str(target)], check=True, env=git_env())
    git(target, "checkout", "--quiet", sha)
    return target


def apply(repo: Path, patch: Path) -> bool:
    return (
        subprocess.run(
            ["git", "apply", str(patch)], cwd=repo, capture_output=True, env=git_env(), check=False
        ).returncode
        == 0
    )


def merges_cleanly(repo: Path, first: Path, second: Path) -> bool:
    """CooperBench's merge: a branch per agent from the base, merge agent 1 into agent 2."""
    base = git(repo, "rev-parse", "HEAD").strip()
    for branch, patch in (("agent1", first), ("agent2", second)):
        git(repo, "checkout", "--quiet", "-B", branch, base)
        if not apply(repo, patch):
            raise SystemExit(f"{patch} does not apply")
        git(repo, "add", "--all")
        git(repo, "commit", "--quiet", "-m", branch)
    merged = subprocess.run(
        ["git", "merge", "--no-commit", "--no-ff", "agent1"],
        cwd=repo,
        env=git_env(),
        capture_output=True,
        check=False,
    )
    return merged.returncode == 0


def check(root: Path, work: Path, shas: dict[str, str]) -> list[str]:
    """Verify fail-before / pass-after for every feature and each submission's expectation."""
    problems: list[str] = []
    for spec in TASKS:
        task_dir = root / "dataset" / spec.id
        bundle = task_dir / "repo.bundle"
        for number in range(1, len(spec.features) + 1):
            folder = task_dir / f"feature{number}"
            clone = fresh_clone(bundle, shas[spec.id], work / "check")
            if not apply(clone, folder / "tests.patch") or run_tests(clone):
                problems.append(f"{spec.id} feature {number}: tests do not fail on the base")
            clone = fresh_clone(bundle, shas[spec.id], work / "check")
            if not (
                apply(clone, folder / "feature.patch")
                and apply(clone, folder / "tests.patch")
                and run_tests(clone)
            ):
                problems.append(f"{spec.id} feature {number}: gold patch does not pass")
            print(f"checked {spec.id} feature {number}")
    for sub in SUBMISSIONS:
        folder = root / "submissions" / sub.task / sub.id
        bundle = root / "dataset" / sub.task / "repo.bundle"
        task_dir = root / "dataset" / sub.task
        for run in sub.runs:
            patches = [folder / name for name in run.patches]
            clone = fresh_clone(bundle, shas[sub.task], work / "check")
            if sub.setting == "coop":
                outcome = "pass" if merges_cleanly(clone, *patches) else "conflict"
                if outcome == "pass":
                    for number in sub.features:
                        if not apply(
                            clone, task_dir / f"feature{number}" / "tests.patch"
                        ) or not run_tests(clone):
                            outcome = "fail"
                        git(clone, "checkout", "--quiet", "--", ".")
                        git(clone, "clean", "--quiet", "-fdx")
            elif not all(apply(clone, patch) for patch in patches):
                outcome = "no_apply"
            else:
                outcome = "pass"
                for number in sub.features:
                    if not apply(clone, task_dir / f"feature{number}" / "tests.patch"):
                        outcome = "no_apply"
                if outcome == "pass" and not run_tests(clone):
                    outcome = "fail"
            status = "ok" if outcome == run.expect else "MISMATCH"
            print(f"{status}: {sub.task}/{sub.id} {run.id}: {outcome} (expected {run.expect})")
            if outcome != run.expect:
                problems.append(f"{sub.task}/{sub.id} {run.id}: {outcome}, expected {run.expect}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root to write into")
    parser.add_argument("--check", action="store_true", help="verify every expectation after")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-samples-") as tmp:
        work = Path(tmp)
        shas = build(args.root, work)
        for task_id, sha in shas.items():
            print(f"{task_id}: base commit {sha}")
        if args.check:
            problems = check(args.root, work, shas)
            for problem in problems:
                print(f"PROBLEM: {problem}", file=sys.stderr)
            return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
