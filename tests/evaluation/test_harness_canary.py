"""The harness's canary insertion (``harness.sh canary``: ``canary_place.py`` run by the
image's python3 in a real sandbox) against the same placement on the host: same file, same
seed, same text and the same names reported, any file (decorated, classes, no test at all,
non-ASCII, CRLF)."""

from __future__ import annotations

import json

import pytest

from arena_bot.evaluation.canary_place import place
from arena_bot.evaluation.harness import HARNESS_DIR
from arena_bot.evaluation.harness_status import harness_script
from arena_bot.evaluation.stream import canary_source
from arena_bot.sandbox.base import SandboxLimits
from arena_bot.sandbox.docker import DockerEngine

pytestmark = pytest.mark.docker

FILES = {
    "several": "import pytest\n\n\ndef test_one():\n    pass\n\n\n@pytest.mark.slow\n"
               "def test_decorated():\n    pass\n\n\nclass TestGroup:\n    def test_in(self):\n"
               "        pass\n\n\ndef helper():\n    pass\n\n\ndef test_last():\n    pass\n",
    "multiline": "import pytest\n\n\n@pytest.mark.skipif(\n    True,\n    reason='Windows',\n)\n"
                 "def test_windows_only():\n    pass\n",
    "none": "def helper():\n    return 1\n",
    "unicode": "# é — ✓\ndef test_é():\n    assert 'ü'\n",
    "crlf": "def test_a():\r\n    pass\r\n\r\n\r\ndef test_b():\r\n    pass\r\n",
}


def test_the_canaries_go_where_the_host_puts_them(engine: DockerEngine,
                                                  base_image: str) -> None:
    cases = [(name, seed) for name in FILES for seed in (0, 1, 2, 3, 997)]
    script = ('printf "%s" "$1" > "$2" && sh /arena/harness.sh canary "$2" "$3" '
              '&& echo ---- && cat "$2"')
    with engine.open(base_image, limits=SandboxLimits()) as sandbox:
        sandbox.write_files({"harness.sh": harness_script(), "canary_place.py": canary_source()},
                            directory=HARNESS_DIR)
        for name, seed in cases:
            run = sandbox.exec(["sh", "-c", script, "sh", FILES[name], f"/tmp/test_{name}.py",
                                str(seed)], timeout=30)
            assert run.exit_code == 0, run.output
            reported, _, text = run.output.partition("----\n")
            expected_text, chosen = place(FILES[name], seed)
            assert text == expected_text, (name, seed)
            assert json.loads(reported) == {**chosen, "target": f"/tmp/test_{name}.py"}


def test_a_target_that_is_not_a_regular_file_is_refused(engine: DockerEngine,
                                                        base_image: str) -> None:
    with engine.open(base_image, limits=SandboxLimits()) as sandbox:
        sandbox.write_files({"harness.sh": harness_script(), "canary_place.py": canary_source()},
                            directory=HARNESS_DIR)
        run = sandbox.exec(["sh", "-c", "ln -s /etc/passwd /tmp/test_x.py && "
                            "sh /arena/harness.sh canary /tmp/test_x.py 0"], timeout=30)
    assert run.exit_code != 0 and "not a regular file" in run.output
