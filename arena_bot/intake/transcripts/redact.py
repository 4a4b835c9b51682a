"""Secrets and e-mail addresses are redacted before a transcript is stored with a submission.

Agent sessions see environment variables, config files and git logs, so a transcript can
carry an API key. Detection is Yelp's maintained scanner ``detect-secrets``: its detectors
(AWS, basic-auth URLs, JWTs, Stripe, GitHub, Slack, npm, private keys, ...), its keyword
plugin (``DB_PASSWORD=...``, ``password: "..."``) and its Shannon entropy measure for
random-looking tokens, with its own false-positive filters. A few kinds it has no detector
for (Anthropic, OpenAI project, Hugging Face, bare npm and Google keys) are added here, and a
private key's whole body is redacted, also when Markdown (Aider's history) spreads it over
many lines. Each finding is replaced by ``[REDACTED:<kind>]``: the replacement holds no quote
or backslash, so a JSON line stays valid JSON and the importers read the same figures. The
copy streams line by line (bounded memory) and gzip-compresses large transcripts.

A line is scanned in time linear in its length: Python's regular expressions backtrack, and
where detect-secrets' patterns (or this module's) read a long run again from each of its
characters, equivalents that do not are used (tests/transcripts/test_redact_linear.py checks
that they find the same, test_redact_speed.py times crafted lines). Only a stored copy,
which replaces each finding wherever it occurs, takes longer on a line of very many (see
:class:`Redactor`).
"""

from __future__ import annotations

import bisect
import gzip
import re
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.filters import heuristic
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.keyword import (
    DENYLIST,
    QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
    REGEX_BY_FILETYPE,
)
from detect_secrets.settings import default_settings
from detect_secrets.util.filetype import FileType

from arena_bot.core.errors import InputError
from arena_bot.intake.patches import is_test_path
from arena_bot.intake.transcripts.metrics import read_lines


def _prefixed(prefix: str, rest: str) -> re.Pattern[str]:
    """``prefix`` + ``rest``, where ``prefix`` starts a token: not inside a word, but right
    after a JSON escape such as ``\n``. The literal comes first so the search is fast."""
    width = len(prefix)
    return re.compile(
        re.escape(prefix)
        + f"(?:(?<![A-Za-z0-9_].{{{width}}})|(?<=\\\\[nrt].{{{width}}}))"
        + rest
    )


#: Kinds detect-secrets has no detector for (it knows ``sk-...T3BlbkFJ...`` OpenAI keys and
#: ``//registry/:_authToken=npm_...`` lines only, and GitHub tokens of exactly 36 characters).
EXTRA_PATTERNS: dict[str, re.Pattern[str]] = {
    "anthropic-key": re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}"),
    "openai-key": _prefixed("sk-", r"(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    "huggingface-token": _prefixed("hf_", r"[A-Za-z0-9]{30,}"),
    "npm-token": _prefixed("npm_", r"[A-Za-z0-9]{36}\b"),
    "google-key": _prefixed("AIza", r"[0-9A-Za-z_-]{35}\b"),
    "github-token": re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    "bearer-token": re.compile(r"(?i)(?<=bearer )[A-Za-z0-9._~+/-]{20,}=*"),
}
#: A private key (PEM, OpenSSH, PGP) from its BEGIN line to its END line when both are on
#: one line (JSON with ``\n`` escapes); stops at a JSON string's closing quote otherwise.
#: The key's name is an atomic group: its last ``PRIVATE KEY`` is the only one that can end
#: at the dashes, and trying each of them in turn made ``-----BEGIN `` followed by 100 KB of
#: ``PRIVATE KEY `` take quadratic time.
KEY_NAME = r"(?>[A-Z0-9 ]*PRIVATE KEY[A-Z ]*)-----"
KEY_BEGIN = re.compile(r"-----BEGIN " + KEY_NAME)
KEY_END = re.compile(r"-----END " + KEY_NAME)
KEY_INLINE = re.compile(
    r"-----BEGIN " + KEY_NAME + r"(?:[^\"\\]|\\.)*?"
    r"(?:-----END " + KEY_NAME + r"|(?=\")|$)"
)
#: A line of a key's body: base64, or a PEM header such as ``Proc-Type: 4,ENCRYPTED`` (a line
#: that is neither ends a key that lost its END line, so the rest of the file is read).
#: Leading blanks are taken whole (``\s*+``): the rest matches after all of them when it
#: matches after a part of them, and giving them back one by one to the trailing ``\s*`` took
#: quadratic time on a long run of them.
KEY_MATERIAL = re.compile(r"^(?:> ?)?\s*+(?:[A-Za-z0-9+/=]*|[A-Za-z-]+: .*)\s*$")
#: An e-mail address; ``git@github.com:org/repo`` (an SSH remote, not an address) is not one.
#: The part before the ``@`` is at most 64 characters (RFC 5321's limit): unbounded, each
#: start of a long run of ``.a.a.a...`` scanned the run to its end (quadratic time); a longer
#: one (not an address) has its last 64 characters redacted.
EMAIL = re.compile(
    r"\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b(?!:[\w~/.-])"
)
#: Candidates for the entropy test: runs of base64/base64url characters, 20 to 200 long (longer
#: runs are images, signatures or encrypted reasoning, not credentials). A JSON escape such as
#: ``\n`` before a run does not glue its letter to it.
TOKEN = re.compile(
    r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9+/=_\\-]))[A-Za-z0-9+/_-]{20,200}={0,2}(?![A-Za-z0-9+/=_-])"
)
#: Identifiers the transcript formats are made of (tool-call, message, request ids): never
#: secrets, and redacting them would merge distinct calls.
ID_SHAPE = re.compile(r"^(?:[a-z][a-z0-9]{1,11}[_-]|[0-9a-f]{8}-[0-9a-f]{4}-)|^[0-9a-fA-F]+$")
ENTROPY_LIMIT = 4.5
#: Extends a finding over the rest of its token (detect-secrets' JWT pattern stops early).
TOKEN_TAIL = r"[A-Za-z0-9_\-+/=]*"
TOKEN_TAIL_RUN = re.compile(TOKEN_TAIL)
#: A run of text split where a JSON string escape or quote is, so a replacement never eats one.
PLAIN_RUN = re.compile(r"(?:[^\"\\]|\\[nrt])+")
#: Pieces of findings (see ``Redactor._redact``) on one line above which a scan that only
#: reports them replaces them in one pass: each replaced in turn reads the line once more.
MANY_PIECES = 100


def _piece_pattern(piece: str, kind: str) -> re.Pattern[str]:
    """Each occurrence of ``piece`` (a JWT's: with the rest of its token)."""
    return re.compile(re.escape(piece) + (TOKEN_TAIL if kind == "json-web-token" else ""))


#: Patterns of detect-secrets (1.5.0) that take quadratic time or worse on one long line, by
#: the exact text each replaces, with an equivalent that takes linear time (the same findings,
#: as ``findall`` gives them). Python's regular expressions backtrack: a pattern that can
#: start anywhere in a run and scans to the run's end before it fails reads a run of n
#: characters n times over. A library pattern whose text changes is used as it is, slow
#: (tests/transcripts/test_redact_linear.py says so).
LINEAR_EQUIVALENTS: dict[str, re.Pattern[str]] = {
    # npm: every ``//`` of a line scanned the line to its end (``'//' * 50000``: 33 s; a
    # Claude Code ``Write`` of a JavaScript file: seconds). Only a line's first ``//`` can
    # match (the others would find the same last ``/:_authToken=``): an atomic group finds
    # it, from the start of the line.
    r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*": re.compile(
        r"^(?>.*?//).+/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*", re.MULTILINE),
    # JWT and OpenAI: every ``eyJ`` / ``sk-`` of a run of their characters scanned the run
    # to its end. The first of a run is the only one that can match (the others end where
    # it does): an atomic group finds it from the run's start; the capture is the match.
    r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?": re.compile(
        r"(?<![A-Za-z0-9_=-])(?>[A-Za-z0-9_=-]*?(?=eyJ))"
        r"(eyJ[A-Za-z0-9_=-]++\.[A-Za-z0-9_=-]++\.?)"),
    r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}": re.compile(
        r"(?<![A-Za-z0-9_-])(?>[A-Za-z0-9_-]*?(?=sk-))"
        r"(sk-[A-Za-z0-9_-]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})"),
}
#: The assignment of ``RegexBasedDetector.build_assignment_regex`` (Cloudant, IBM, SoftLayer):
#: three runs of spaces tried against each other take cubic time on a long run of spaces
#: (``cos_secret_key`` and 800 spaces: 54 s). Each run taken whole (the secret and the quote
#: after it start with none of these characters) matches the same.
SPACED_ASSIGNMENT = "(?: *)(?:=|:|:=|=>| +|::)(?: *)"
LINEAR_ASSIGNMENT = "(?: *+(?:=>|:=|::|=|:) *+| ++)"


def _linear_pattern(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern``, or its equivalent that takes linear time (:data:`LINEAR_EQUIVALENTS`)."""
    equivalent = LINEAR_EQUIVALENTS.get(pattern.pattern)
    if equivalent is not None:
        return equivalent
    if SPACED_ASSIGNMENT in pattern.pattern:
        return re.compile(pattern.pattern.replace(SPACED_ASSIGNMENT, LINEAR_ASSIGNMENT),
                          pattern.flags)
    return pattern


def _linear_detector(plugin: type[RegexBasedDetector]) -> RegexBasedDetector:
    """A ``plugin`` scanning with :func:`_linear_pattern` of each of its patterns (its own
    ``analyze_string``, such as the JWT detector's validity filter, still applies)."""
    detector = plugin()
    patterns = list(detector.denylist)
    denylist = [_linear_pattern(pattern) for pattern in patterns]
    if denylist == patterns:
        return detector
    linear: type[RegexBasedDetector] = type(
        plugin.__name__, (plugin,), {"denylist": denylist, "__module__": __name__})
    return linear()


def _detector_spans(detector: RegexBasedDetector, body: str) -> Iterator[tuple[int, int]]:
    """Where the values ``detector.analyze_string(body)`` yields are, in its order: each
    pattern's ``findall`` (the match, its one group, or each of its groups that matched), the
    JWT detector's valid tokens only."""
    valid = JwtTokenDetector.is_formally_valid if isinstance(detector, JwtTokenDetector) else None
    for pattern in detector.denylist:
        for match in pattern.finditer(body):
            groups = [pattern.groups] if pattern.groups <= 1 else range(1, pattern.groups + 1)
            for group in groups:
                start, end = match.span(group)
                # An empty value (a group that matched nothing) redacts nothing.
                if end > start and (valid is None or valid(body[start:end])):
                    yield start, end


_PLUGINS: Mapping[str, type[object]] = get_mapping_from_secret_type_to_class()
#: detect-secrets' regex detectors by kind (its secret type as a slug), but those that only
#: make noise in transcripts.
DETECTORS: list[tuple[str, RegexBasedDetector]] = [
    (re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-"), _linear_detector(plugin))
    for secret_type, plugin in sorted(_PLUGINS.items())
    if secret_type not in {"Public IP (ipv4)", "Private Key", "Secret Keyword"}
    and issubclass(plugin, RegexBasedDetector)
]
#: Words one of detect-secrets' keywords (``DENYLIST``) contains: a text naming none of them is
#: skipped before the (much slower) keyword patterns run.
KEYWORD_WORDS = ("key", "pass", "pwd", "secret", "contrase")
#: Detectors that only match next to a word: skipped when the line has none (their patterns
#: are slow on long runs of letters, which tool outputs are full of).
CREDENTIAL_WORDS = ("key", "pass", "pwd", "pw", "token", "secret")
DETECTOR_WORDS = {
    "cloudant-credentials": (*CREDENTIAL_WORDS, "cloudant"),
    "ibm-cloud-iam-key": CREDENTIAL_WORDS,
    "ibm-cos-hmac-credentials": ("secret",),
    "softlayer-credentials": (*CREDENTIAL_WORDS, "softlayer"),
    "mailchimp-access-key": ("-us",),
}
#: The same, for detectors whose word is case-sensitive (looked for in the line as written).
DETECTOR_CASED_WORDS = {"artifactory-credentials": ("AKC", "AP")}
#: The keyword patterns detect-secrets uses for config files (``KEY=value``, ``key: value``,
#: quotes optional), then its quoted-value patterns: what :func:`_keyword_values` finds.
KEYWORD_REGEXES = {
    **REGEX_BY_FILETYPE[FileType.INI],
    **QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
}
#: Keyword values that are code, not secrets: a name, an attribute or a call
#: (``password = self.password``, ``token = get_token()``), a number, a placeholder.
CODE_VALUE = re.compile(
    r"^(?:[A-Za-z_][\w.]*(?:\(.*\))?|[\d.]+|<[^>]*>|\*+|x+|null|none|true|false)$", re.IGNORECASE,
)


#: An environment assignment (a shell line, a ``.env`` file) whose upper-case name says it
#: holds a secret: its value is a literal whatever it looks like (``DB_PASSWORD=opensesame``),
#: unless it refers to another variable or is a number (``PASSWORD_MIN_LENGTH=8``). The name
#: is read up to its first such word in an atomic group: trying each of them in turn, each
#: followed by the rest of the name, took quadratic time on a long name (``A_PASSWORD...``).
ENV_SECRET = re.compile(
    r"(?<![A-Za-z0-9_])[A-Z](?>[A-Z0-9_]*?(?:PASSWORD|PASSWD|PWD|SECRET|TOKEN|API_?KEY"
    r"|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?))[A-Z0-9_]*+="
    # quoted (the quote JSON-escaped inside a transcript line), or bare up to a space
    r"(?:\\?[\"'](?P<quoted>[^\"'\\$][^\"'\\]{3,}?)\\?[\"']"
    r"|(?P<bare>[^\s\"'$\\][^\s\"'\\]{3,}))"
)

#: Values of such an assignment that are not secrets: numbers, flags, and code (a call, an
#: index, an attribute: ``Client(API_KEY=settings.api_key)``).
ENV_NOT_SECRET = re.compile(
    r"[\d.]+|(?i:true|false|none|null)|.*[()\[\]{}].*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"
)


# -- detect-secrets' keyword patterns, in linear time ---------------------------------------
#
# KEYWORD_REGEXES take quadratic time or worse on a long text line: each keyword of a run of
# word characters reads the run to its end and back (``'PASSWORD' * 2500``: three minutes),
# and each quote reads the text up to the next one, from every start again. The same
# findings, pattern by pattern (``search``: the first match, its value's group), are had here
# with one start per run of word characters, and the ends of the values looked up in where
# the quotes are, read once.

KEYWORD_NAMES = "|".join(DENYLIST)
#: A run of word characters holding one of detect-secrets' keywords (``api_key``,
#: ``password``, ...), from its first keyword to the run's end: the keyword-first patterns
#: may start at any keyword of the run, and what follows the run decides the rest alike.
#: Lookaheads take what each pattern allows between the run and the value (closing quotes or
#: brackets, an assignment, blanks: only their longest match can be followed by a value), and
#: whether a quote comes within the semicolon pattern's ``[^\s]{0,50}?\s*``. ``(?=[adpskc])``
#: (the keywords' first letters) matches the same, ten times as fast.
KEYWORD_RUN = re.compile(
    f"(?=[adpskc])(?:{KEYWORD_NAMES})\\w*+"
    r"""(?:(?=(?P<colon>[]'"]{0,2}:\s*))|)"""
    r"""(?:(?=(?P<equals>[]'"]{0,2}\s*(?:={1,3}|!==?)\s*))|)"""
    r"""(?:(?=(?P<arrow>[]'"]{0,2}\s*=>?\s*))|)"""
    r"""(?:(?=(?P<semicolon>\S{0,50}?\s*['"`]))|)""",
    re.IGNORECASE,
)
#: The keyword-first patterns of KEYWORD_REGEXES in its order (the comparison, second there,
#: names its keyword last): what comes between the keyword and the value, whether the value
#: must be quoted.
KEYWORD_FIRST = (("colon", False), ("equals", False), ("semicolon", True),
                 ("colon", True), ("equals", True), ("arrow", True))
QUOTES = "'\"`"
WORD = re.compile(r"\w")
#: Characters a value stops at (it is ``(?=\w)[^\v'"]*[^\v,'"`]``), and its closing backquotes:
#: after a character a value may end with.
VALUE = r"""(?=\w)[^\v'"]*[^\v,'"`]"""
VALUE_STOP = re.compile(r"""[\v'"]""")
CLOSING_BACKQUOTE = re.compile(r"""(?<=[^\v,'"`])`""")
OPENING_BACKQUOTE = re.compile(r"`(?=\w)")
#: From a stop (or the start) to the first backquote that opens a value: a later one before
#: the next stop would end where it does, or not at all (atomic: it is tried alone).
FIRST_BACKQUOTE = r"""(?:^|(?<=[\v'"]))(?>[^\v'"]*?(?=`\w))`"""
#: ``(quote)value(\N);``: a quote's value ends at the next stop, a backquote's at the region's
#: last closing backquote (read once per region), so neither reads a stretch twice.
SEMICOLON_QUOTED = re.compile(f"(['\"])({VALUE})\\1;")
SEMICOLON_BACKQUOTED = re.compile(f"{FIRST_BACKQUOTE}({VALUE})`;")
#: The comparison ``'value' == password`` (case-sensitive), alike.
COMPARED = f"(?=\\s*[!=]{{2,3}}\\s*\\w*(?:{KEYWORD_NAMES}))"
COMPARISON_QUOTED = re.compile(f"(['\"])({VALUE})\\1{COMPARED}")
COMPARISON_BACKQUOTED = re.compile(f"{FIRST_BACKQUOTE}({VALUE})`{COMPARED}")
#: The semicolon pattern's ``[^\s]{0,50}?`` before its quote (one more: the 51st may be it).
NON_BLANKS = re.compile(r"\S{0,51}")
BLANKS = re.compile(r"\s*")


def _match_end(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where ``pattern`` (which may match nothing) matched at ``at`` ends."""
    found = pattern.match(text, at)
    return at if found is None else found.end()


class _Values:
    """Where the values of the keyword patterns but the semicolon's end in ``text``, looked
    up in where its quotes are (found once, when first needed), not read from each start."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._stops: list[int] | None = None
        self._closing_backquotes: list[int] | None = None

    def end(self, start: int, quote: str) -> int:
        """Where a value that starts at ``start`` (a word character), opened by ``quote`` or
        by none, ends; -1 when it has no end."""
        text = self.text
        if self._stops is None:
            self._stops = [found.start() for found in VALUE_STOP.finditer(text)]
        after = bisect.bisect_left(self._stops, start)
        stop = self._stops[after] if after < len(self._stops) else len(text)
        if quote == "`":
            # The value is greedy: the last closing backquote before the next stop.
            if self._closing_backquotes is None:
                self._closing_backquotes = [
                    found.start() for found in CLOSING_BACKQUOTE.finditer(text)]
            ends = self._closing_backquotes
            last = bisect.bisect_left(ends, stop) - 1
            return ends[last] if last >= 0 and ends[last] > start else -1
        if quote:
            closed = stop < len(text) and text[stop] == quote and text[stop - 1] not in ",`"
            return stop if closed else -1
        end = stop
        while text[end - 1] in ",`":
            end -= 1
        return end


class _SemicolonValues:
    r"""The values of ``keyword\w*[^\s]{0,50}?\s*(quote)value(\N);`` in ``text``: each quote
    that opens one (where it ends: the next stop), and each region between stops where
    backquotes open one (all those from its first to its last closing backquote, where the
    values end)."""

    def __init__(self, text: str) -> None:
        self.text = text
        quoted = list(SEMICOLON_QUOTED.finditer(text))
        self.quoted = [found.start() for found in quoted]
        self.quoted_end = {found.start(): found.end(2) for found in quoted}
        regions = list(SEMICOLON_BACKQUOTED.finditer(text))
        self.region_first = [found.start(1) - 1 for found in regions]
        self.region_end = [found.end(1) for found in regions]
        self.backquotes = [found.start() for found in OPENING_BACKQUOTE.finditer(text)]

    def any(self) -> bool:
        """Whether any quote or backquote opens a value."""
        return bool(self.quoted or self.region_end)

    def _first_from(self, at: int) -> tuple[int, int] | None:
        """The first quote or backquote at or after ``at`` that opens a value, and where
        the value ends."""
        found = []
        index = bisect.bisect_left(self.quoted, at)
        if index < len(self.quoted):
            found.append((self.quoted[index], self.quoted_end[self.quoted[index]]))
        region = bisect.bisect_right(self.region_end, at)  # the first one ending after ``at``
        if region < len(self.region_end):
            index = bisect.bisect_left(self.backquotes, max(at, self.region_first[region]))
            if index < len(self.backquotes) and self.backquotes[index] < self.region_end[region]:
                found.append((self.backquotes[index], self.region_end[region]))
            elif region + 1 < len(self.region_end):
                found.append((self.region_first[region + 1], self.region_end[region + 1]))
        return min(found) if found else None

    def after_run(self, run_end: int) -> tuple[int, int] | None:
        """Where the value for the keyword whose run ends at ``run_end`` is: the first quote
        that opens one among the next 51 characters but blanks, else after the blanks that
        end them (fewer than 51)."""
        found = self._first_from(run_end)
        if found is None:
            return None
        reach = _match_end(NON_BLANKS, self.text, run_end)
        if found[0] >= reach and (
                reach - run_end > 50 or found[0] != _match_end(BLANKS, self.text, reach)):
            return None
        return found[0] + 1, found[1]


def _compared_value(text: str) -> tuple[int, int] | None:
    """Where the value of detect-secrets' comparison ``'value' == password`` is: after the
    first quote or backquote that opens one."""
    found = []
    quoted = COMPARISON_QUOTED.search(text)
    if quoted is not None:
        found.append(quoted.span(2))
    backquoted = COMPARISON_BACKQUOTED.search(text)
    if backquoted is not None:
        found.append(backquoted.span(1))
    return min(found) if found else None


def _keyword_values(text: str) -> list[tuple[int, int]]:
    """Where the values ``KeywordDetector().analyze_string(text, KEYWORD_REGEXES)`` yields
    are (each pattern's first match's, in order), found in time linear in ``text``'s
    length."""
    values = _Values(text)
    semicolon = _SemicolonValues(text) if ";" in text else None
    # The patterns that can match at all: their assignment is in the text.
    pending = [index for index, (between, _) in enumerate(KEYWORD_FIRST)
               if (semicolon is not None and semicolon.any() if between == "semicolon"
                   else (":" if between == "colon" else "=") in text)]
    first: list[tuple[int, int] | None] = [None] * len(KEYWORD_FIRST)
    for run in KEYWORD_RUN.finditer(text):
        if not pending:
            break
        if run.lastindex is None:
            continue  # nothing after this run can lead to a value
        for index in list(pending):
            between, quoted = KEYWORD_FIRST[index]
            if run.group(between) is None:
                continue
            if semicolon is not None and between == "semicolon":
                value = semicolon.after_run(run.end())
            else:
                opening = run.end(between)
                quote = text[opening] if opening < len(text) and text[opening] in QUOTES else ""
                start = opening + len(quote)
                if (quoted and not quote) or not WORD.match(text, start):
                    continue
                end = values.end(start, quote)
                value = (start, end) if end >= 0 else None
            if value is not None:
                first[index] = value
                pending.remove(index)
    found = [first[0], _compared_value(text), *first[1:]]
    return [value for value in found if value is not None]


#: detect-secrets' ``heuristic.is_indirect_reference`` (``secret = get_secret_key()``) reads a
#: line of at most 1,000 characters (a longer one is none), with a pattern,
#: ``([^\v=!:]*)\s*(:=?|[!=]{1,3})\s*([\w.-]+[\[\(][^\v]*[\]\)])``, that reads it to its end
#: from each of its characters (``=a(=a(...``: 50 ms, for each text line of a transcript line
#: that has a keyword's value). It matches where an assignment is followed by a call or an
#: index (this) and then by a closing bracket before any vertical tab.
INDIRECT_MAX_LENGTH = 1000
INDIRECT_START = re.compile(r"(?::=?|[!=]{1,3})\s*+[\w.-]++[\[\(]")
CLOSING_BRACKET = re.compile(r"[\]\)\v]")


def _is_indirect_reference(text: str) -> bool:
    """``heuristic.is_indirect_reference(text)``, in time linear in ``text``'s length."""
    if len(text) > INDIRECT_MAX_LENGTH:
        return False
    closing = -1  # the first ``]``, ``)`` or vertical tab at or after the last start
    for start in INDIRECT_START.finditer(text):
        if closing < start.end():
            found = CLOSING_BRACKET.search(text, start.end())
            if found is None:
                return False
            closing = found.start()
        if text[closing] != "\v":
            return True
    return False


def _keyword_secrets(segment: str) -> Iterator[tuple[int, int]]:
    """Where ``DB_PASSWORD=hunter2`` and the like are in ``segment`` (their values), as
    detect-secrets reads config files."""
    lowered = segment.lower()
    for assignment in ENV_SECRET.finditer(segment):
        group = "quoted" if assignment.group("quoted") else "bare"
        if not ENV_NOT_SECRET.fullmatch(assignment.group(group)):
            yield assignment.span(group)
    if not any(word in lowered for word in KEYWORD_WORDS):
        return
    values = _keyword_values(segment)
    if values and _is_indirect_reference(segment):
        return
    for start, end in values:
        found = segment[start:end].strip()
        if not found:
            continue
        start += len(segment[start:end]) - len(segment[start:end].lstrip())
        # Unquoted, a value ends at a space (``A=1 B=2`` are two assignments).
        quoted = found[:1] in "\"'\\"
        value = found.strip("\"'\\") if quoted else found.split()[0]
        if quoted:
            start += len(found) - len(found.lstrip("\"'\\"))
        # Unquoted, the statement's own punctuation is not part of the value
        # (``password=None):``, ``this.password = password;``).
        value = value.strip("\"'\\") if quoted else value.rstrip(");,:]}")
        code = CODE_VALUE.match(value) is not None
        if (
            len(value) < 6
            or (code and (not re.search(r"\d", value) or "." in value))
            or heuristic.is_templated_secret(value)
            or heuristic.is_prefixed_with_dollar_sign(value)
        ):
            continue
        yield start, start + len(value)


#: Where a text line ends inside a transcript line: a JSON escape (``\n``, ``\r``, ``\t``).
LINE_BREAK = re.compile(r"\\[nrt]")
#: The words that make a text line worth the keyword patterns.
SEGMENT_WORDS = re.compile(r"key|pass|pwd|secret|contrase|token|credential")


def _segments_with_words(body: str, lowered: str) -> list[tuple[int, str]]:
    """The text lines of ``body`` (split at JSON escapes) that hold a keyword word, each
    with where it starts."""
    hits = [match.start() for match in SEGMENT_WORDS.finditer(lowered)]
    if not hits:
        return []
    starts = [0, *(match.end() for match in LINE_BREAK.finditer(body))]
    ends = [*(start - 2 for start in starts[1:]), len(body)]
    chosen = sorted({bisect.bisect_right(starts, hit) - 1 for hit in hits})
    return [(starts[i], body[starts[i]:ends[i]]) for i in chosen]


def _entropy_secrets(segment: str) -> Iterator[tuple[int, int]]:
    """Where random-looking tokens are (an AWS secret key on its own, a pasted API token)."""
    for found in TOKEN.finditer(segment):
        token = found.group().strip("=")
        if (
            ID_SHAPE.search(token)
            or not (re.search(r"\d", token) and re.search(r"[a-z]", token)
                    and re.search(r"[A-Z]", token))
            or heuristic.is_sequential_string(token)
            or heuristic.is_potential_uuid(token)
        ):
            continue
        if HighEntropyStringsPlugin.calculate_shannon_entropy(
            _ENTROPY, token
        ) >= ENTROPY_LIMIT:
            start = found.start() + len(found.group()) - len(found.group().lstrip("="))
            yield start, start + len(token)


class _Entropy(HighEntropyStringsPlugin):
    secret_type = "High Entropy String"

    def __init__(self) -> None:
        super().__init__(
            charset="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-",
            limit=ENTROPY_LIMIT,
        )


_ENTROPY = _Entropy()

#: Transcripts larger than this are stored gzip-compressed.
COMPRESS_ABOVE_BYTES = 1024 * 1024
#: A stored (possibly compressed) transcript larger than this is refused.
MAX_STORED_BYTES = 20 * 1024 * 1024


@dataclass
class RedactionReport:
    """Which lines were changed, by kind, so the contributor can check them."""

    lines: dict[str, list[int]] = field(default_factory=dict)

    def add(self, *, kind: str, line: int) -> None:
        found = self.lines.setdefault(kind, [])
        if not found or found[-1] != line:
            found.append(line)

    @property
    def changed(self) -> bool:
        return bool(self.lines)

    def describe(self) -> str:
        """``email on lines 3, 9; openai-key on line 12`` (first ten lines per kind)."""
        parts = []
        for kind, numbers in sorted(self.lines.items()):
            shown = ", ".join(str(n) for n in numbers[:10])
            more = f" and {len(numbers) - 10} more" if len(numbers) > 10 else ""
            parts.append(f"{kind} on line{'s' if len(numbers) > 1 else ''} {shown}{more}")
        return "; ".join(parts)


class Redactor:
    """Redacts a transcript line by line, remembering an open multi-line private key.
    ``placeholders``: keyword values that say they are made up (:data:`PLACEHOLDER_WORDS`)
    are left alone (for patches: see :func:`secrets_in_patch`). ``everywhere``: each finding
    is replaced wherever it occurs on its line, which takes time quadratic in the findings of
    a line; a scan that only reports them (of files anyone can send) passes False, and a line
    of more than :data:`MANY_PIECES` findings is redacted in one pass, where they were found
    (the longest ones wherever they are): the same findings are reported."""

    def __init__(self, report: RedactionReport, *, placeholders: bool = False,
                 everywhere: bool = True) -> None:
        self.report = report
        self.in_key = False
        self.placeholders = placeholders
        self.everywhere = everywhere

    def line(self, raw: bytes, number: int) -> bytes:
        """``raw`` with every secret replaced; each replacement is recorded."""
        text = raw.decode("utf-8", errors="surrogateescape")
        body = text.rstrip("\r\n")
        ending = text[len(body):]
        if self.in_key:
            end = KEY_END.search(body)
            if end is not None:
                self.in_key = False
                self.report.add(kind="private-key", line=number)
                body = "[REDACTED:private-key]" + body[end.end():]
                return (body + ending).encode("utf-8", errors="surrogateescape")
            if KEY_MATERIAL.match(body):
                if body.strip():
                    self.report.add(kind="private-key", line=number)
                    body = "[REDACTED:private-key]"
                return (body + ending).encode("utf-8", errors="surrogateescape")
            # Not key material (a key cut off without its END line): the key is over.
            self.in_key = False
        body = self._redact(body, number)
        return (body + ending).encode("utf-8", errors="surrogateescape")

    def _replace(self, body: str, *, kind: str, pattern: re.Pattern[str], number: int) -> str:
        body, count = pattern.subn(f"[REDACTED:{kind}]", body)
        if count:
            self.report.add(kind=kind, line=number)
        return body

    def _redact(self, body: str, number: int) -> str:
        begin = KEY_BEGIN.search(body)
        if begin and not KEY_END.search(body, begin.end()) and '"' not in body[begin.end():]:
            # A key whose body follows on the next lines (Markdown, a pasted PEM file).
            self.in_key = True
            self.report.add(kind="private-key", line=number)
            return body[: begin.start()] + "[REDACTED:private-key]"
        body = self._replace(body, kind="private-key", pattern=KEY_INLINE, number=number)
        for kind, pattern in EXTRA_PATTERNS.items():
            body = self._replace(body, kind=kind, pattern=pattern, number=number)
        found: dict[str, str] = {}  # each value found, with the kind it was first found as
        places: list[tuple[int, int]] = []  # where each was found

        def add(start: int, end: int, kind: str) -> None:
            found.setdefault(body[start:end], kind)
            places.append((start, end))

        lowered = body.lower()
        for kind, detector in DETECTORS:
            words = DETECTOR_WORDS.get(kind)
            if words is not None and not any(word in lowered for word in words):
                continue
            cased = DETECTOR_CASED_WORDS.get(kind)
            if cased is not None and not any(word in body for word in cased):
                continue
            for start, end in _detector_spans(detector, body):
                add(start, end, kind)
        # Keywords are judged per text line (a JSON string's ``\n`` ends one), and only on the
        # lines that name one.
        for offset, segment in _segments_with_words(body, lowered):
            for start, end in _keyword_secrets(segment):
                if not (self.placeholders and _says_made_up(segment[start:end])):
                    add(offset + start, offset + end, "secret-keyword")
        for start, end in _entropy_secrets(body):
            add(start, end, "high-entropy-string")
        # Each value's runs between JSON quotes and backslashes, longest values first.
        pieces = [(piece, kind)
                  for value, kind in sorted(found.items(), key=lambda item: -len(item[0]))
                  for piece in PLAIN_RUN.findall(value)
                  if len(piece) >= 4 and "REDACTED" not in piece]
        if len(pieces) > MANY_PIECES and not self.everywhere:
            body = self._replace_many(body, pieces=pieces, places=places, number=number)
        else:
            for piece, kind in pieces:
                body = self._replace(body, kind=kind, pattern=_piece_pattern(piece, kind),
                                     number=number)
        if "@" not in body:
            return body
        return self._replace(body, kind="email", pattern=EMAIL, number=number)

    def _replace_many(self, body: str, *, pieces: list[tuple[str, str]],
                      places: list[tuple[int, int]], number: int) -> str:
        """``body`` with its findings replaced in one pass, for a line of more than
        :data:`MANY_PIECES` of them (each replaced in turn reads the line once more: 10,000
        AWS key ids on a 200 KB line took 5 s). Every occurrence of the first
        :data:`MANY_PIECES` pieces is replaced, as each would be in turn; of the others,
        those where the scan found them (a keyword's value again further on in its text
        line, found only once, is left)."""
        first: dict[str, int] = {}  # each piece's first place in ``pieces``
        for index, (piece, _) in enumerate(pieces):
            first.setdefault(piece, index)
        spans: list[tuple[int, int, int]] = []  # (start, end, index of the piece)
        for index, (piece, kind) in enumerate(pieces[:MANY_PIECES]):
            spans.extend((match.start(), match.end(), index)
                          for match in _piece_pattern(piece, kind).finditer(body))
        for start, end in places:
            for run in PLAIN_RUN.finditer(body, start, end):
                index = first.get(run.group(), -1)
                if index < 0:
                    continue  # too short, or a marker
                stop = run.end()
                if pieces[index][1] == "json-web-token":
                    stop = _match_end(TOKEN_TAIL_RUN, body, stop)
                spans.append((run.start(), stop, index))
        # Overlapping spans are one, named for the first piece among them.
        merged: list[list[int]] = []
        for start, end, index in sorted(spans):
            if merged and start < merged[-1][1]:
                merged[-1][1:] = [max(merged[-1][1], end), min(merged[-1][2], index)]
            else:
                merged.append([start, end, index])
        parts, done = [], 0
        for start, end, index in merged:
            parts += [body[done:start], f"[REDACTED:{pieces[index][1]}]"]
            done = end
        for kind in {pieces[index][1] for _, _, index in merged}:
            self.report.add(kind=kind, line=number)
        return "".join([*parts, body[done:]])


def redact_text(text: str) -> str:
    """``text`` (several lines) with every secret replaced, as stored transcripts are."""
    redactor = Redactor(RedactionReport())
    with default_settings():
        return b"".join(redactor.line(line, number) for number, line in enumerate(
            text.encode("utf-8", "surrogateescape").splitlines(keepends=True), 1)
        ).decode("utf-8", "replace")


def find_secrets(path: Path) -> RedactionReport:
    """Scan a stored transcript; a non-empty report means it must not be committed."""
    report = RedactionReport()
    redactor = Redactor(report, everywhere=False)
    with default_settings():
        for number, raw in read_lines(path):
            redactor.line(raw, number)
    return report


def store_redacted(
    *, source: Path, folder: Path, stem: str, extra: list[Path] | None = None
) -> tuple[Path, RedactionReport]:
    """Copy ``source`` into ``folder`` as ``stem`` + its suffix, redacted; gzip it when large.

    ``extra`` files (Claude Code's sub-agent transcripts) are appended after it, each ending
    its last line. Returns the stored file and what was redacted (line numbers of the stored
    file). Raises :class:`InputError` when the stored file would exceed
    :data:`MAX_STORED_BYTES`.
    """
    report = RedactionReport()
    redactor = Redactor(report)
    suffix = "".join(s for s in source.suffixes[-1:] if s != ".gz") or ".log"
    if source.suffix == ".gz" and len(source.suffixes) > 1:
        suffix = source.suffixes[-2]
    plain = folder / f"{stem}{suffix}"
    number = 0
    with default_settings(), plain.open("wb") as out:
        for part in [source, *(extra or [])]:
            for _line, raw in read_lines(part):
                number += 1
                line = raw if raw.endswith(b"\n") else raw + b"\n"
                out.write(redactor.line(line, number))
            redactor.in_key = False
    stored = plain
    if plain.stat().st_size > COMPRESS_ABOVE_BYTES:
        stored = plain.with_name(plain.name + ".gz")
        with plain.open("rb") as raw_in, gzip.open(stored, "wb", compresslevel=9) as packed:
            shutil.copyfileobj(raw_in, packed)
        plain.unlink()
    if stored.stat().st_size > MAX_STORED_BYTES:
        raise InputError(
            f"transcript is {stored.stat().st_size:,} bytes stored, over the "
            f"{MAX_STORED_BYTES:,}-byte cap",
            path=source, hint="submit the session of this run only, not a whole history",
        )
    return stored, report


# -- secret-bearing files in a patch ------------------------------------------------------

#: Templates that are committed on purpose and hold no secret.
ENV_TEMPLATES = {".example", ".sample", ".template", ".dist", ".defaults", ".tmpl", ".in"}
SECRET_FILE_NAMES = {
    ".npmrc": "npm credentials", ".pypirc": "PyPI credentials", ".netrc": "login credentials",
    ".git-credentials": "git credentials", ".htpasswd": "password hashes",
    ".envrc": "a direnv environment file",
    ".pgpass": "PostgreSQL passwords", "credentials.json": "credentials",
    "id_rsa": "an SSH private key", "id_dsa": "an SSH private key",
    "id_ecdsa": "an SSH private key", "id_ed25519": "an SSH private key",
}
SECRET_FILE_SUFFIXES = {
    ".pem": "a key or certificate file", ".key": "a private key file",
    ".p12": "a key store", ".pfx": "a key store", ".jks": "a key store",
    ".keystore": "a key store", ".ppk": "a PuTTY private key",
}


def secret_file_reason(path: str) -> str | None:
    """Why the repository path ``path`` is a secret-bearing file, or None when it is not.

    ``.env`` and ``.env.*`` (templates such as ``.env.example`` excepted), key files and
    credential stores: an agent's work directory holds them, a patch must never publish them.
    """
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    lowered = name.lower()
    if lowered == ".env" or lowered.startswith(".env."):
        tail = lowered.removeprefix(".env")
        if tail and any(tail.endswith(t) for t in ENV_TEMPLATES):
            return None
        return "an environment file (.env)"
    if lowered in SECRET_FILE_NAMES:
        return SECRET_FILE_NAMES[lowered]
    if "/.aws/" in "/" + path.replace("\\", "/").lower() and lowered in {"credentials", "config"}:
        return "AWS credentials"
    for suffix, reason in SECRET_FILE_SUFFIXES.items():
        if lowered.endswith(suffix):
            return reason
    return None


#: Kinds not held against a patch: code legitimately carries e-mail addresses (authors) and
#: random-looking strings (hashes, test data); the named detectors and keywords still apply.
NOT_IN_PATCHES = {"email", "high-entropy-string"}
#: Credentials published as placeholders in vendors' documentation (tests use them with
#: mocks): not held against a patch.
DOCUMENTED_EXAMPLES = ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")


#: Words of a keyword's value that say it is made up: tests and sample settings hold
#: such values (click's tests: ``"api_key": "secret1"``; Django's ``startproject``:
#: ``SECRET_KEY = 'django-insecure-...'``). Read as whole words of the value's letters.
PLACEHOLDER_WORDS = frozenset({
    "secret", "test", "testing", "fake", "dummy", "example", "sample", "placeholder",
    "changeme", "insecure", "mock", "demo", "xxx", "notasecret", "redacted",
})
_LETTER_RUNS = re.compile(r"[a-z]+")


def _says_made_up(value: str) -> bool:
    return any(word in PLACEHOLDER_WORDS for word in _LETTER_RUNS.findall(value.lower()))


def secrets_in_patch(text: str) -> list[tuple[str, int, str]]:
    """``(file, patch line, kinds)`` for each added line of a unified diff holding a secret.
    A keyword's value that says it is made up (:data:`PLACEHOLDER_WORDS`) is none: code
    carries such values; nor is any keyword's value in a test file (a test's settings and
    logins are its data: OpenHands' ``SECRET_KEY = 'abcde12345'`` in Django's
    ``tests/settings.py``). The named detectors (a real key's shape) apply everywhere."""
    found: list[tuple[str, int, str]] = []
    current, in_tests = "", False
    report = RedactionReport()
    redactor = Redactor(report, placeholders=True, everywhere=False)
    with default_settings():
        for number, line in enumerate(text.splitlines(), start=1):
            if line.startswith("+++ "):
                current = line[4:].removeprefix("b/")
                in_tests = is_test_path(current)
                redactor.in_key = False
                continue
            if not line.startswith("+"):
                continue
            before = {kind: len(lines) for kind, lines in report.lines.items()}
            added = line[1:]
            for example in DOCUMENTED_EXAMPLES:
                added = added.replace(example, "EXAMPLE")
            redactor.line(added.encode("utf-8", errors="surrogateescape"), number)
            kinds = [kind for kind, lines in report.lines.items()
                     if len(lines) != before.get(kind, 0) and kind not in NOT_IN_PATCHES
                     and not (kind == "secret-keyword" and in_tests)]
            if kinds:
                found.append((current, number, ", ".join(sorted(kinds))))
    return found
