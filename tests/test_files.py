"""Reading files up to a limit, and the folder digest built on it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from arena_bot.core.digest import folder_digest
from arena_bot.core.files import read_at_most


def test_a_file_under_the_limit_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "small"
    path.write_bytes(b"twelve bytes")
    with open(path, "rb") as handle:
        assert read_at_most(handle, 1000) == b"twelve bytes"


def test_a_file_over_the_limit_gives_one_byte_more_than_it(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 100)
    with open(path, "rb") as handle:
        assert read_at_most(handle, 10) == b"x" * 11


def test_what_its_size_does_not_show_is_read_on_up_to_the_limit() -> None:
    # A pipe's size is 0 to fstat: as for a file that grew since it was measured, the read
    # goes on past the size measured, and stops one byte past the limit.
    for limit, expected in ((100, b"0123456789"), (4, b"01234")):
        reader, writer = os.pipe()
        os.write(writer, b"0123456789")
        os.close(writer)
        with os.fdopen(reader, "rb", buffering=0) as handle:
            assert read_at_most(handle, limit) == expected


@pytest.mark.parametrize("size", [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 << 20])
def test_folder_digest_hashes_every_byte_of_files_of_any_size(tmp_path: Path, size: int
                                                               ) -> None:
    content = os.urandom(size)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "data.bin").write_bytes(content)
    (tmp_path / "a.txt").write_bytes(b"first")
    expected = hashlib.sha256()
    for relative, data in ((b"a.txt", b"first"), (b"sub/data.bin", content)):
        expected.update(len(relative).to_bytes(4, "big") + relative)
        expected.update(hashlib.sha256(data).digest())
    assert folder_digest(tmp_path) == expected.hexdigest()
    (tmp_path / "sub" / "data.bin").write_bytes(content + b"!")  # the last byte counts
    assert folder_digest(tmp_path) != expected.hexdigest()


def test_folder_digest_hashes_a_name_that_is_not_utf8_by_its_bytes(tmp_path: Path) -> None:
    """git stores any bytes in a file name; Python decodes such a name with surrogate
    escapes, which plain UTF-8 cannot encode (scoring stopped with a traceback)."""
    name = os.fsdecode(b"caf\xe9.txt")
    (tmp_path / name).write_bytes(b"x")
    expected = hashlib.sha256()
    expected.update(len(b"caf\xe9.txt").to_bytes(4, "big") + b"caf\xe9.txt")
    expected.update(hashlib.sha256(b"x").digest())
    assert folder_digest(tmp_path) == expected.hexdigest()


def test_write_atomically_never_replaces_a_device_a_fifo_or_a_folder(tmp_path: Path) -> None:
    """The rename replaced whatever was at the target: `arena merge --output /dev/null`, run
    as root, turned /dev/null into a regular file for the whole machine."""
    import stat

    from arena_bot.core.errors import InputError
    from arena_bot.core.files import write_atomically

    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    for target in (device, fifo, folder):
        kind = os.lstat(target).st_mode
        with pytest.raises(InputError, match="is not a regular file") as caught:
            write_atomically(target, b"report")
        assert caught.value.path == target
        assert os.lstat(target).st_mode == kind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "folder", "null"]
    link = tmp_path / "link"  # a link is replaced, its target left alone
    link.symlink_to(folder)
    write_atomically(link, b"report")
    assert link.read_bytes() == b"report" and not link.is_symlink() and folder.is_dir()
