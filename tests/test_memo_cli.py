"""``arena memo show|clear`` on a memo the real memo code wrote (app/memo.py)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from arena_bot.app.memo import MEMO_FILE, MEMO_VERSION, open_memo
from arena_bot.cli import main


def arena(root: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--root", str(root), *args],
                              env={"ARENA_CACHE": str(root / ".arena")})


def test_show_counts_what_the_memo_remembers_and_clear_deletes_it(tmp_path: Path) -> None:
    cache = tmp_path / ".arena"
    assert "no memo yet" in arena(tmp_path, "memo", "show").output
    with open_memo(cache) as memo:
        memo.put("part:a", b"1")
        memo.put("part:b", b"2")
        memo.put("verdict:x", b"3")
    shown = arena(tmp_path, "memo", "show")
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0].startswith(f"{cache / MEMO_FILE}: ") and lines[0].endswith(" MB")
    assert lines[1:] == [f"  version {MEMO_VERSION}", "  2 remembered value(s) of kind part",
                         "  1 remembered value(s) of kind verdict"]

    cleared = arena(tmp_path, "memo", "clear")
    assert cleared.exit_code == 0 and "results were kept" in cleared.output
    assert not (cache / MEMO_FILE).exists()
    assert "no memo to delete" in arena(tmp_path, "memo", "clear").output


def test_show_says_an_unreadable_memo_is_rebuilt_and_changes_nothing(tmp_path: Path) -> None:
    memo = tmp_path / ".arena" / MEMO_FILE
    memo.parent.mkdir()
    memo.write_bytes(b"not sqlite at all " * 64)
    shown = arena(tmp_path, "memo", "show")
    assert shown.exit_code == 0, shown.output
    assert "not a readable memo" in shown.output and "the next run rebuilds it" in shown.output
    assert memo.read_bytes() == b"not sqlite at all " * 64


def test_clear_that_cannot_delete_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / ".arena" / MEMO_FILE).mkdir(parents=True)  # not a file: unlink refuses
    cleared = arena(tmp_path, "memo", "clear")
    assert cleared.exit_code == 1 and "Traceback" not in cleared.output
    assert f"{tmp_path / '.arena' / MEMO_FILE}: cannot delete the memo: " in cleared.output
    assert "delete the file by hand" in cleared.output
    assert (tmp_path / ".arena" / MEMO_FILE).is_dir()
