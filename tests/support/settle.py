"""Files that were not just written, for tests of what the index remembers."""

from __future__ import annotations

import os
import time
from pathlib import Path


def settle(root: Path) -> Path:
    """Date everything under ``root`` an hour back and return ``root``.

    The index never stores a signature modified within RACY_NS of the run's start (a second
    change in the same timestamp tick would go unseen), so files a test has just written are
    hashed again by every run; a board a user scores is not seconds old.
    """
    old = time.time_ns() - 3600 * 10**9
    for path in [root, *root.rglob("*")]:
        os.utime(path, ns=(old, old), follow_symlinks=False)
    return root
