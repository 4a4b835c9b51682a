"""The harness's canary insertion (``harness.sh canary``, awk) in a real sandbox, against the
reference placement it replaced (Python, kept below): same spot, same text, any file."""

from __future__ import annotations

import re

import pytest

from arena_bot.evaluation.harness import HARNESS_DIR
from arena_bot.evaluation.harness_status import harness_script
from arena_bot.sandbox.base import SandboxLimits
from arena_bot.sandbox.docker import DockerEngine

pytestmark = pytest.mark.docker

SNIPPET = "\n\ndef test_aaa111():\n    assert 7\n\n\ndef test_bbb222():\n    assert 7 < 0\n"

FILES = {
    "several": "import pytest\n\n\ndef test_one():\n    pass\n\n\n@pytest.mark.slow\n"
               "def test_decorated():\n    pass\n\n\nclass TestGroup:\n    def test_in(self):\n"
               "        pass\n\n\ndef helper():\n    pass\n\n\ndef test_last():\n    pass\n",
    "none": "def helper():\n    return 1\n",
    "unicode": "# é — ✓\ndef test_é():\n    assert 'ü'\n",
    "crlf": "def test_a():\r\n    pass\r\n\r\n\r\ndef test_b():\r\n    pass\r\n",
}


def reference(text: str, snippet: str, spot: int) -> str:
    """The Python placement the harness used before awk (its behaviour is the contract)."""
    lines = text.splitlines(keepends=True)
    spots = [i for i, line in enumerate(lines) if re.match(r"(def test|class Test)", line)
             and (i == 0 or not lines[i - 1].startswith("@"))]
    if spots:
        lines.insert(spots[spot % len(spots)], snippet.strip("\n") + "\n\n\n")
    else:
        lines.append(snippet)
    return "".join(lines)


def test_the_canaries_go_where_the_reference_puts_them(engine: DockerEngine,
                                                       base_image: str) -> None:
    cases = [(name, spot) for name in FILES for spot in (0, 1, 2, 3, 997)]
    script = 'printf "%s" "$1" > "$2" && sh /arena/harness.sh canary "$2" "$3" "$4" && cat "$2"'
    with engine.open(base_image, limits=SandboxLimits()) as sandbox:
        sandbox.write_files({"harness.sh": harness_script()}, directory=HARNESS_DIR)
        for name, spot in cases:
            run = sandbox.exec(["sh", "-c", script, "sh", FILES[name], f"/tmp/test_{name}.py",
                                SNIPPET, str(spot)], timeout=30)
            assert run.exit_code == 0, run.output
            assert run.output == reference(FILES[name], SNIPPET, spot), (name, spot)


def test_a_target_that_is_not_a_regular_file_is_refused(engine: DockerEngine,
                                                        base_image: str) -> None:
    with engine.open(base_image, limits=SandboxLimits()) as sandbox:
        sandbox.write_files({"harness.sh": harness_script()}, directory=HARNESS_DIR)
        run = sandbox.exec(["sh", "-c", "ln -s /etc/passwd /tmp/test_x.py && "
                            "sh /arena/harness.sh canary /tmp/test_x.py snippet 0"], timeout=30)
    assert run.exit_code != 0 and "not a regular file" in run.output
