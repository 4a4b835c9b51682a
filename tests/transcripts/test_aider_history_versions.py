"""Chat histories of older Aider versions, as they wrote them."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_bot.core.errors import InputError
from arena_bot.intake.transcripts import read_transcript
from arena_bot.intake.transcripts.edits import replay

#: The opening of a real Aider v0.47.1 chat history (2024-08-04): the public repository
#: hserranome/scrollcatcher, file aider.chat.history.public.md (commit 2779f50), its header
#: and first two exchanges, each line as Aider wrote it (Aider ends its ``> `` and ``#### ``
#: lines with two spaces, added by :func:`_history`), the replies shortened to one
#: SEARCH/REPLACE block each (their explanations and further blocks left out).
AIDER_0471 = (
    "# aider chat started at 2024-08-04 23:10:26",
    "",
    "> /home/hserrano/.local/bin/aider",
    "> Aider v0.47.1",
    "> Models: gpt-4o with diff edit format, weak model gpt-4o-mini",
    "> Git repo: .git with 3 files",
    "> Repo-map: using 1024 tokens",
    "> Use /help <question> for help, run \"aider --help\" to see cmd line args",
    "",
    "#### /add content.js",
    "> Added /home/hserrano/scrollcatcher/content.js to the chat",
    "",
    "#### trigger by scroll distance traveled instead of number of scrolls. make the"
    " required distance required to trigger the modal increase everytime the modal is dismissed",
    "",
    "Here are the *SEARCH/REPLACE* blocks:",
    "",
    "content.js",
    "```javascript",
    "<<<<<<< SEARCH",
    "let scrollCount = 0;",
    "const scrollLimit = 5; // Number of scrolls before showing the modal",
    "=======",
    "let scrollDistance = 0;",
    "let scrollLimit = 1000; // Initial scroll distance in pixels before showing the modal",
    ">>>>>>> REPLACE",
    "```",
    "",
    "> Tokens: 2,347 sent, 282 received. Cost: $0.02 request, $0.02 session.",
    "> Applied edit to content.js",
    "> Commit ea1fa53 feat: trigger modal based on scroll distance and increase"
    " distance on dismissal",
    "> You can use /undo to revert and discard commit ea1fa53.",
    "",
    "#### the intent is to remind users not to mindless scroll on websites that have"
    " infinite scroll. adjust the distances and limits for that intent",
    "",
    "Here are the *SEARCH/REPLACE* blocks:",
    "",
    "content.js",
    "```javascript",
    "<<<<<<< SEARCH",
    "let scrollLimit = 1000; // Initial scroll distance in pixels before showing the modal",
    "=======",
    "let scrollLimit = 500; // Initial scroll distance in pixels before showing the modal",
    ">>>>>>> REPLACE",
    "```",
    "",
    "> Tokens: 2,803 sent, 165 received. Cost: $0.02 request, $0.03 session.",
    "> Applied edit to content.js",
    "> Commit 15fec97 fix: adjust scroll limits to reduce mindless scrolling on"
    " infinite scroll websites",
    "> You can use /undo to revert and discard commit 15fec97.",
    "",
)


def _history(lines: tuple[str, ...]) -> str:
    return "".join(line + ("  \n" if line.startswith(("> ", "#### ")) else "\n")
                   for line in lines)


def test_aider_0471_history_with_thousands_separators_and_a_models_header(
        tmp_path: Path) -> None:
    """Aider v0.47.1 (hserranome/scrollcatcher, aider.chat.history.public.md) writes its
    figures with thousands separators (``2,347 sent``), refused as an unrecognised figure,
    and names its model on a ``> Models: <main> with <format> edit format, weak model
    <weak>`` line, from which no model was read."""
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(_history(AIDER_0471))
    metrics = read_transcript(path=path, format_name="aider-history")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (2347 + 2803, 282 + 165)
    assert (metrics.cache_read_tokens, metrics.cache_write_tokens) == (0, 0)
    assert (metrics.iterations, metrics.tool_calls) == (2, 2)
    assert metrics.models == ["gpt-4o"]
    assert metrics.edited_files == {"content.js"}
    activity = metrics.activity
    assert activity is not None
    assert [(r.input_tokens, r.output_tokens) for r in activity.requests] == [
        (2347, 282), (2803, 165)]
    base = {"content.js": "let scrollCount = 0;\nconst scrollLimit = 5; // Number of scrolls "
                          "before showing the modal\n"}
    files = replay(activity.edits, base=base.get, cwd="/repo", known=lambda name: False)
    assert files == {"content.js": "let scrollDistance = 0;\nlet scrollLimit = 500; // Initial "
                                   "scroll distance in pixels before showing the modal\n"}


def test_aider_figures_over_a_million_and_separators_in_the_wrong_place(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text("# aider chat started at 2024-08-04 23:10:26\n\n"
                    "> Tokens: 1,234,567 sent, 12,000 received.  \n")
    metrics = read_transcript(path=path, format_name="aider-history")
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (1_234_567, 12_000)
    path.write_text("# aider chat started at 2024-08-04 23:10:26\n\n"
                    "> Tokens: 1,23 sent, 12 received.  \n")
    with pytest.raises(InputError, match="unrecognised token figure '1,23 sent'") as caught:
        read_transcript(path=path, format_name="aider-history")
    assert caught.value.line == 3


def test_aider_models_header_with_prompt_cache_and_prefill_marks(tmp_path: Path) -> None:
    """Aider about 0.50 (``Coder.get_announcements``) marks a cached model's name with ``⚡``
    and a model that takes an assistant prefill with ``♾️`` before the edit format: the
    name is the model's without the mark, and the edit format is read (here ``whole``)."""
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2024-08-20 10:00:00\n\n> Aider v0.50.1  \n"
        "> Models: claude-3-5-sonnet-20240620\u26a1 with \u267e\ufe0f whole edit format, weak "
        "model claude-3-haiku-20240307  \n\n#### add a file  \n\nhello.py\n```\nprint(1)\n```\n\n"
        "> Tokens: 1,200 sent, 30 received.  \n> Applied edit to hello.py  \n")
    metrics = read_transcript(path=path, format_name="aider-history")
    assert metrics.models == ["claude-3-5-sonnet-20240620"]
    assert metrics.activity is not None
    files = replay(metrics.activity.edits, base={}.get, cwd="/repo", known=lambda name: False)
    assert files == {"hello.py": "print(1)\n"}
