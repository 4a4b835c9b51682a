"""A task whose dependencies cannot be installed from wheels says so at import, naming them.

Real packages on the real package index: pycrypto publishes only a source distribution (its
C extension needs a compiler), so a task image, which installs wheels with ``--no-index``,
cannot have it.
"""

from __future__ import annotations

from pathlib import Path

from support.cooperbench_tasks import invoke, make_task
from support.gitrepo import commit_folder

from arena_bot.tasks.wheels import _on_index


def test_a_dependency_with_only_a_source_release_is_named_at_import(tmp_path: Path) -> None:
    upstream, task = make_task(tmp_path, layout="flat", backend="setuptools")
    pyproject = upstream / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'description = "x"', 'description = "x"\ndependencies = ["pycrypto==2.6.1"]'))
    sha = commit_folder(upstream, message="depend on pycrypto")
    dockerfile = task / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text().replace(
        dockerfile.read_text().split("git checkout ")[1].split()[0], sha))
    dest = tmp_path / "dataset"
    result = invoke("dataset", "import-cooperbench", str(task), "--source", str(upstream),
                    "--dest", str(dest))
    assert result.exit_code == 1, result.output
    assert "no wheel of pycrypto==2.6.1" in result.output
    assert "needs a compiler or system libraries" in result.output
    assert "Traceback" not in result.output
    assert not any(dest.glob("*/task.yaml"))  # nothing half-imported


def test_a_name_the_index_does_not_have_is_not_blamed_on_a_compiler() -> None:
    assert _on_index("pycrypto==2.6.1")
    assert not _on_index("arena-no-such-project-7f3c==1.0")
