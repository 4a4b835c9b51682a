"""Whole-board work with the cyclic garbage collector out of the way.

A cold ``arena score`` (no index: the first run on a machine, or after a bot upgrade) parses
every submission and builds a scored part per task, and the parts stay alive until the files
are written. CPython's collector runs a young collection every 700 allocations and a full one
whenever the surviving objects grew by a quarter: on a board of 5,000 submissions that was
about a sixth of the run, spent re-walking objects that are never garbage (the imported
modules, the configuration, the parts already built). The work itself makes almost no
reference cycles (the maximum resident memory is the same with the collector off), so:

* :func:`gc.freeze` moves everything alive when the batch starts out of the collector's
  sight;
* young collections run every :data:`YOUNG_THRESHOLD` allocations instead of 700.

Both are undone when the batch ends; a batch inside a batch changes nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Allocations between young collections during a batch (CPython's default is 700).
YOUNG_THRESHOLD = 50_000

_depth = 0


@contextmanager
def batch_collection() -> Iterator[None]:
    """Run the body with the collector tuned for a long batch (see the module's note)."""
    global _depth
    if _depth:
        yield
        return
    thresholds = gc.get_threshold()
    _depth += 1
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, thresholds[1], thresholds[2])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        _depth -= 1
