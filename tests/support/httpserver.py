"""Real HTTP servers on localhost for the tests (the GitHub API stand-in, the built site)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import HTTPServer


@contextmanager
def serving(server: HTTPServer, *, poll_interval: float = 0.05) -> Iterator[str]:
    """Serve ``server`` from a daemon thread while the block runs; yields its base URL
    (``http://127.0.0.1:PORT``). Afterwards, also when the block fails, the server is shut
    down, its socket closed and its thread joined, so no test leaves a port or thread open."""
    thread = threading.Thread(target=server.serve_forever,
                              kwargs={"poll_interval": poll_interval}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
