"""Ctrl-C (SIGINT) and SIGTERM held back for the length of a block, then raised.

Python raises KeyboardInterrupt wherever the main thread happens to be, even inside the
standard library's lock and condition code (``threading.Condition`` re-acquiring its lock:
a lock left held, or "release unlocked lock"), and in a block that must not be cut short
(a container being created or removed). Inside :func:`deferred_signals` the two signals are
only recorded; they are raised by their own handlers (KeyboardInterrupt, the CLI's
Terminated) right after the block, at a safe point. A waiting loop checks the list it is
given and leaves at once when a signal came.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def deferred_signals() -> Iterator[list[int]]:
    """Record SIGINT and SIGTERM arriving in the block (the list yielded, in order) and
    raise the first one as the block ends. Only the main thread receives them: elsewhere
    (or under a handler Python cannot restore) nothing is deferred and the list stays
    empty."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread() or any(
        signal.getsignal(sig) is None for sig in SIGNALS
    ):
        yield received
        return

    def remember(signum: int, _frame: object) -> None:
        received.append(signum)

    previous = {sig: signal.signal(sig, remember) for sig in SIGNALS}
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if received:
            signal.raise_signal(received[0])
