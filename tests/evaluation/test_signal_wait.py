"""The cause of the hang of issue 30: Ctrl-C sent while the main thread waits for evaluation
units that start threads (every sandbox command starts a reader thread). A thread that
starts takes the pending signal off the queue before the main thread runs; Python's handler
only flags it for the main thread, whose untimed lock wait the kernel resumes, so an untimed
wait (``Future.result()``) ignored Ctrl-C until a unit ended: about one signal in four here.
The engine's wait (``_wait_for_units``) is timed and must see every one.

Each child process runs the real ``_wait_for_units`` on two such workers and is sent SIGINT;
it must end with KeyboardInterrupt (exit 130), never hang until it is killed. (The children
run at once: each one's workers keep starting threads, so the machine is loaded while the
signals land, as in a full test run.)"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""\
    import signal, sys, threading, time
    # Python leaves SIGINT ignored when it starts so (a background job of a script): take it
    # as a terminal's Ctrl-C would be taken.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from concurrent.futures import ThreadPoolExecutor
    from arena_bot.evaluation.engine import _wait_for_units

    stop = threading.Event()

    def unit():  # a sandbox command's poll loop: a new reader thread each time
        while not stop.is_set():
            reader = threading.Thread(target=time.sleep, args=(0.001,))
            reader.start()
            reader.join()

    pool = ThreadPoolExecutor(2)
    futures = [pool.submit(unit) for _ in range(2)]
    try:
        print("ready", flush=True)  # the signal comes after this line: it is caught below
        _wait_for_units(futures)
    except KeyboardInterrupt:
        stop.set()
        sys.exit(130)
""")
#: Signals sent (one per child); with an untimed wait, about a quarter hung (12: 98 % to see it).
SIGNALS = 12
#: A hang lasts for ever: this only has to be long enough for a loaded machine.
HUNG_AFTER = 30


def test_ctrl_c_taken_by_a_starting_thread_still_stops_the_wait() -> None:
    # All at once: the children's start (an interpreter and the engine module each) is the
    # slow part.
    children = [subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE,
                                 text=True) for _ in range(SIGNALS)]
    statuses = []
    for child in children:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        child.send_signal(signal.SIGINT)
    for child in children:
        try:
            statuses.append(child.wait(timeout=HUNG_AFTER))
        except subprocess.TimeoutExpired:
            child.kill()
            statuses.append(child.wait())
    assert statuses == [130] * SIGNALS
