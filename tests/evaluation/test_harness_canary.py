"""The harness's canary insertion (``harness.sh canary``: ``canary_place.py`` run by the
image's python3 in a real sandbox) against the same placement on the host: same file, same
seed, same text and the same names reported, any file (decorated, classes, no test at all,
non-ASCII, CRLF)."""

from __future__ import annotations

import json

import pytest

from arena_bot.evaluation.canary_place import place
from arena_bot.evaluation.harness import HARNESS_DIR
from arena_bot.evaluation.stream import packaged
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
        sandbox.write_files({name: packaged(name) for name in ("harness.sh", "canary_place.py")},
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
        sandbox.write_files({name: packaged(name) for name in ("harness.sh", "canary_place.py")},
                            directory=HARNESS_DIR)
        run = sandbox.exec(["sh", "-c", "ln -s /etc/passwd /tmp/test_x.py && "
                            "sh /arena/harness.sh canary /tmp/test_x.py 0"], timeout=30)
    assert run.exit_code != 0 and "not a regular file" in run.output


def test_the_comment_explains_the_canaries_the_harness_stored(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    """A real run stores its two canaries' ids; the PR comment explains exactly those where
    the raw output shows them, and nothing where it does not."""
    from support.botdata import make_bundle, make_result

    from arena_bot.bot.bundle import trim_result
    from arena_bot.bot.render import MARKER, render_comment
    from arena_bot.bot.view import build_view
    from arena_bot.evaluation.engine import evaluate_submission

    gold = fixture_task.feature(1).gold_patch.read_text()
    submission = write_submission("canaries", patches=[gold])
    result = evaluate_submission(submission, fixture_task, engine=engine, images=task_images,
                                 store=store, repos=repos)
    (run,) = result.runs
    (feature,) = run.features
    assert feature.status == "passed" and feature.exit_code == 1  # the failing canary
    must_pass, must_fail = feature.canaries
    assert must_pass != must_fail
    assert {must_pass, must_fail}.isdisjoint(t.name for t in feature.tests)
    # JUnit ids in the feature's test file, as `tests` names its cases
    assert all(c.startswith("tests.") and "::" in c for c in feature.canaries)
    fail_name = must_fail.rpartition("::")[2]
    assert f"::{fail_name} - " in feature.output  # pytest's FAILED line shows it

    def comment(output: str) -> str:
        stored = result.model_dump(mode="json")
        stored["runs"][0]["features"][0]["output"] = output
        data = make_result()
        data["runs"][0]["features"] = stored["runs"][0]["features"]
        bundle = make_bundle().model_copy(update={"results": [trim_result(data)]})
        return render_comment(build_view(bundle, marker=MARKER, gate=[]))

    lines = [line for line in comment(feature.output).splitlines()
             if "the harness's canaries" in line]
    assert lines == [
        f"The tests `{must_pass}` (passes) and `{must_fail}` "
        "(fails on purpose) are the harness's canaries, placed to show the results are "
        "real; the counts above leave them out."]
    names = (must_pass.rpartition("::")[2], fail_name)
    quiet = "\n".join(line for line in feature.output.splitlines()
                      if not any(name in line for name in names))
    assert quiet.strip() and "the harness's canaries" not in comment(quiet)
