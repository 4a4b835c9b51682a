"""CooperBench-shaped tasks for the import tests: the textkit task of tests/data/cooperbench
re-based onto a fresh upstream in a src or flat layout with a chosen build backend, and the
check that ``arena dataset check`` recorded every feature's gold run."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner, Result

from arena_bot.cli import main
from support.gitrepo import commit_folder

#: CooperBench-shaped test data: an upstream project and its task folder.
DATA = Path(__file__).resolve().parents[1] / "data" / "cooperbench"
TASK7 = DATA / "textkit_task" / "task7"
#: The upstream's base commit as TASK7's Dockerfile names it; reproducible from
#: DATA/upstream with the fixed identity and dates of tests/test_cooperbench.py.
OLD_SHA = "cbfe660fe43e261abb60be46140d77a25160f7d1"
BACKENDS = {
    "setuptools": 'requires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n',
    "hatchling": 'requires = ["hatchling"]\nbuild-backend = "hatchling.build"\n',
    "flit_core": 'requires = ["flit_core"]\nbuild-backend = "flit_core.buildapi"\n',
}




def make_task(tmp: Path, *, layout: str, backend: str) -> tuple[Path, Path]:
    """An upstream clone in ``layout`` with ``backend``, and its CooperBench task folder."""
    upstream = tmp / "upstream"
    shutil.copytree(DATA / "upstream", upstream)
    if layout == "src":
        (upstream / "src").mkdir()
        shutil.move(upstream / "textkit", upstream / "src" / "textkit")
    if backend != "none":  # "none": no packaging at all, as in many small repositories
        (upstream / "pyproject.toml").write_text(
            '[build-system]\n' + BACKENDS[backend]
            + '\n[project]\nname = "textkit"\nversion = "0.1.0"\ndescription = "x"\n'
        )
    sha = commit_folder(upstream)
    task = tmp / "cb" / "textkit_task" / "task3"
    shutil.copytree(TASK7, task)
    docker = task / "Dockerfile"
    docker.write_text(docker.read_text().replace(OLD_SHA, sha))
    if layout == "src":
        for patch in task.glob("feature*/feature.patch"):
            patch.write_text(patch.read_text().replace(" a/textkit/", " a/src/textkit/")
                             .replace(" b/textkit/", " b/src/textkit/"))
    return upstream, task


def invoke(*args: str) -> Result:
    """``arena ARGS`` through click's runner; exceptions propagate (a traceback fails)."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def assert_gold_checked(output: str, task: Path) -> None:
    """``arena dataset check`` ran every feature of ``task``: its tests fail on the bare base
    (at least one fail-to-pass id) and pass with the gold patch, and the ids were recorded."""
    features = sorted(int(p.name.removeprefix("feature")) for p in task.glob("feature*"))
    assert features, task
    for fid in features:
        match = re.search(rf"^{task.name} feature {fid}: (\d+) fail-to-pass", output, re.M)
        assert match and int(match.group(1)) >= 1, output
        recorded = json.loads((task / f"feature{fid}" / "expected_tests.json").read_text())
        assert len(recorded["fail_to_pass"]) == int(match.group(1))
        assert not recorded["flaky"]
