"""The evaluation engine end to end on the fixture task, in real Docker containers."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from arena_bot.core.errors import SandboxError
from arena_bot.evaluation.engine import Evaluator, evaluate_submission, make_test_runner
from arena_bot.evaluation.repos import BaseRepoCache
from arena_bot.sandbox.images import TaskImages
from arena_bot.tasks.dataset import TaskFolder, load_task

pytestmark = pytest.mark.docker


class KIT:
    """Set from the ``task_kit`` fixture (the helpers of tests/conftest.py)."""

    git = None
    diff_of = None
    write_fixture_task = None


@pytest.fixture(autouse=True, scope="module")
def _kit(task_kit) -> None:
    KIT.git = task_kit.git
    KIT.diff_of = task_kit.diff_of
    KIT.write_fixture_task = task_kit.write_fixture_task


def gold(task: TaskFolder, feature_id: int) -> str:
    return task.feature(feature_id).gold_patch.read_text()


def evaluate(submission, task, *, engine, task_images, store, repos, force=False):
    return evaluate_submission(
        submission, task, engine=engine, images=task_images, store=store, repos=repos,
        force=force,
    )


def only_feature(result):
    (run,) = result.runs
    (feature,) = run.features
    return feature


def test_gold_patch_passes_with_structured_results(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    submission = write_submission("gold", patches=[gold(fixture_task, 1)])
    result = evaluate(submission, fixture_task, engine=engine, task_images=task_images,
                      store=store, repos=repos)
    feature = only_feature(result)
    assert (feature.status, feature.passed, feature.apply_status) == ("passed", True, "clean")
    # 1, not 0: the harness's failing canary test (left out of every count and list).
    assert feature.exit_code == 1
    assert (feature.tests_passed, feature.tests_failed, feature.tests_errored) == (2, 0, 0)
    assert {case.name for case in feature.tests} == {
        "tests.test_add::test_add", "tests.test_mul::test_mul"
    }
    assert result.image is not None and result.image.tag.startswith("arena-task-calc-fixture:")


def test_results_are_cached_by_content_and_rerun_on_change(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    submission = write_submission("cache", patches=[gold(fixture_task, 1)])
    evaluator = Evaluator(engine=engine, images=task_images, store=store, repos=repos)
    first = evaluator.evaluate([(submission, fixture_task)])[0]
    second = evaluator.evaluate([(submission, fixture_task)])[0]
    assert not first.cached and second.cached
    assert second.result == first.result
    assert first.path is not None and first.path.is_file()
    assert store.lookup(submission, fixture_task, task_images.base_image) == first.result
    assert store.lookup(submission, fixture_task) == first.result
    # Any change to the submission's files is a new input: evaluated again, not reused.
    (submission.root / "notes.txt").write_text("changed\n")
    third = evaluator.evaluate([(submission, fixture_task)])[0]
    assert not third.cached
    assert third.result.input_hash != first.result.input_hash
    forced = evaluator.evaluate([(submission, fixture_task)], force=True)[0]
    assert not forced.cached


def test_solo_patch_runs_each_feature_separately(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    both = gold(fixture_task, 1) + gold(fixture_task, 2)
    half = gold(fixture_task, 1)
    full = write_submission("solo-full", patches=[both], setting="solo", features=[1, 2])
    partial = write_submission("solo-half", patches=[half], setting="solo", features=[1, 2])
    evaluator = Evaluator(engine=engine, images=task_images, store=store, repos=repos)
    full_result, partial_result = (
        o.result for o in evaluator.evaluate([(full, fixture_task), (partial, fixture_task)],
                                             jobs=2)
    )
    assert [(f.feature, f.status) for f in full_result.runs[0].features] == [
        (1, "passed"), (2, "passed")
    ]
    assert [(f.feature, f.status) for f in partial_result.runs[0].features] == [
        (1, "passed"), (2, "failed")
    ]
    assert partial_result.runs[0].features[1].tests_errored == 1  # stats.py does not exist


def test_printed_passed_never_counts(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    liar = gold(fixture_task, 1).replace("return a * b", "print('PASSED ' * 50); return 0")
    submission = write_submission("liar", patches=[liar])
    feature = only_feature(evaluate(submission, fixture_task, engine=engine,
                                    task_images=task_images, store=store, repos=repos))
    assert feature.status == "failed" and not feature.passed
    assert feature.tests_failed == 1
    assert "PASSED" in feature.output


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"tests/test_add.py": "def test_add():\n    assert True\n"}, "tests/test_add.py"),
        ({"conftest.py": "collect_ignore = ['tests']\n"}, "conftest.py"),
        ({"tests/test_mul.py": "def test_mul():\n    pass\n"}, "tests/test_mul.py"),
    ],
    ids=["edits-tests", "adds-conftest", "pre-creates-test-file"],
)
def test_patches_touching_tests_are_rejected(
    changes, needle, fixture_task, write_submission, engine, task_images, store, repos, tmp_path
) -> None:
    repo = _clone(fixture_task, tmp_path)
    patch = gold(fixture_task, 1) + KIT.diff_of(repo, changes)
    submission = write_submission("sneaky", patches=[patch])
    feature = only_feature(evaluate(submission, fixture_task, engine=engine,
                                    task_images=task_images, store=store, repos=repos))
    assert feature.status == "rejected" and not feature.passed
    assert needle in (feature.reason or "")


def test_patch_that_does_not_apply(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    broken = gold(fixture_task, 1).replace("return a + b", "return a - b - c")
    submission = write_submission("broken", patches=[broken])
    feature = only_feature(evaluate(submission, fixture_task, engine=engine,
                                    task_images=task_images, store=store, repos=repos))
    assert (feature.status, feature.apply_status) == ("apply_failed", "failed")
    assert feature.tests == [] and "does not apply" in (feature.reason or "")


def test_stale_patch_applies_with_three_way_merge(
    fixture_task, write_submission, engine, task_images, store, repos, tmp_path
) -> None:
    repo = _clone(fixture_task, tmp_path)
    KIT.git("checkout", "--quiet", "HEAD~1", cwd=repo)  # the commit before: VERSION = 1
    old = (repo / "calc.py").read_text()
    # Inserted two lines below the line the base commit changed: inside the hunk's context
    # (so plain `git apply` fails) but not adjacent to it (so a 3-way merge is clean).
    new = old.replace("def add", "def mul(a, b):\n    return a * b\n\n\ndef add")
    stale = KIT.diff_of(repo, {"calc.py": new})
    assert " VERSION = 1" in stale
    submission = write_submission("stale", patches=[stale])
    feature = only_feature(evaluate(submission, fixture_task, engine=engine,
                                    task_images=task_images, store=store, repos=repos))
    assert (feature.status, feature.apply_status) == ("passed", "three_way")


def test_patch_with_windows_line_endings_applies_ignoring_whitespace(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    """A patch saved with CRLF line endings (its context no longer matches byte for byte)
    applies as CooperBench's runner.sh applies it, ``git apply --ignore-whitespace``."""
    crlf = gold(fixture_task, 1).replace("\n", "\r\n")
    submission = write_submission("crlf", patches=[crlf])
    feature = only_feature(evaluate(submission, fixture_task, engine=engine,
                                    task_images=task_images, store=store, repos=repos))
    assert (feature.status, feature.apply_status) == ("passed", "whitespace")


def test_missing_patch_file_is_a_result_not_a_crash(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    submission = write_submission("lost", patches=[gold(fixture_task, 1)])
    (submission.root / "agent1.patch").unlink()
    feature = only_feature(evaluate(submission, fixture_task, engine=engine,
                                    task_images=task_images, store=store, repos=repos))
    assert (feature.status, feature.apply_status) == ("apply_failed", "missing")
    assert "missing" in (feature.reason or "")


def test_coop_runs_merge_analysis_and_tests_both_features(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    submission = write_submission(
        "coop", patches=[gold(fixture_task, 1), gold(fixture_task, 2)], setting="coop",
        features=[1, 2],
    )
    result = evaluate(submission, fixture_task, engine=engine, task_images=task_images,
                      store=store, repos=repos)
    (run,) = result.runs
    assert run.features == [] and run.merge is not None
    assert (run.merge.status, run.merge.both_passed) == ("clean", True)
    assert [f.status for f in run.merge.features] == ["passed", "passed"]


@pytest.fixture(scope="module")
def variant_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("variants")


def _variant(root: Path, task_id: str, **kwargs) -> TaskFolder:
    if not (root / task_id).is_dir():
        KIT.write_fixture_task(root, task_id=task_id, **kwargs)
    return load_task(root / task_id)


def test_infinite_loop_in_tests_is_a_timeout(
    variant_root, write_submission, engine, task_images, store, repos
) -> None:
    task = _variant(variant_root, "calc-timeout", timeout=3)
    looping = gold(task, 1).replace("return a * b", "while True: pass")
    submission = write_submission("loop", patches=[looping], task_id="calc-timeout")
    feature = only_feature(evaluate(submission, task, engine=engine, task_images=task_images,
                                    store=store, repos=repos))
    assert feature.status == "timeout" and not feature.passed
    assert feature.duration < 30


def test_memory_hog_in_tests_is_reported(
    variant_root, write_submission, engine, task_images, store, repos
) -> None:
    task = _variant(variant_root, "calc-small", extra_yaml="limits:\n  memory_mb: 128\n")
    hog = gold(task, 1).replace("return a * b", "return len(b'x' * (1 << 30))")
    submission = write_submission("hog", patches=[hog], task_id="calc-small")
    feature = only_feature(evaluate(submission, task, engine=engine, task_images=task_images,
                                    store=store, repos=repos))
    assert feature.status == "failed" and "out of memory" in (feature.reason or "")


def test_command_without_junit_report_is_no_tests(
    variant_root, write_submission, engine, task_images, store, repos
) -> None:
    task = _variant(variant_root, "calc-nojunit",
                    test_command="python3 -m pytest -q -p no:cacheprovider tests")
    submission = write_submission("nojunit", patches=[gold(task, 1)], task_id="calc-nojunit")
    feature = only_feature(evaluate(submission, task, engine=engine, task_images=task_images,
                                    store=store, repos=repos))
    assert feature.exit_code == 1  # the failing canary ran; no report was written
    assert feature.status == "no_tests" and "JUnit" in (feature.reason or "")


def test_criteria_observations_read_the_patched_repository(
    variant_root, write_submission, engine, task_images, store, repos
) -> None:
    criteria = (
        "success_criteria:\n"
        "  - type: tests_pass\n"
        "  - type: file_exists\n    path: calc.py\n"
        "  - type: file_exists\n    path: nope.py\n"
        "  - type: regex\n    pattern: mul\n    target: 'file:calc.py'\n"
        "  - type: boolean\n    expected: '12'\n"
        "    target: 'command:python3 -c \"import calc; print(calc.mul(3, 4))\"'\n"
        "  - type: boolean\n    target: answer\n"
    )
    task = _variant(variant_root, "calc-criteria", extra_yaml=criteria)
    submission = write_submission("observed", patches=[gold(task, 1)], task_id="calc-criteria")
    result = evaluate(submission, task, engine=engine, task_images=task_images, store=store,
                      repos=repos)
    observations = {o.criterion: o for o in result.runs[0].observations}
    assert sorted(observations) == [1, 2, 3, 4]  # answer targets are read by scoring
    assert observations[1].exists is True and observations[2].exists is False
    assert "def mul" in (observations[3].text or "")
    assert (observations[4].text or "").strip() == "12" and observations[4].error is None
    # A rejected patch is never applied: nothing is observed, and each says why.
    sneaky = gold(task, 1) + task.feature(1).tests_patch.read_text()
    rejected = write_submission("rejected", patches=[sneaky], task_id="calc-criteria")
    result = evaluate(rejected, task, engine=engine, task_images=task_images, store=store,
                      repos=repos)
    assert all("protected" in (o.error or "") for o in result.runs[0].observations)
    assert len(result.runs[0].observations) == 4


def test_test_runner_for_merge_uses_fresh_containers(fixture_task, engine, task_images) -> None:
    image = task_images.ensure(fixture_task)
    run_tests = make_test_runner(fixture_task, engine=engine, image=image.tag)
    assert run_tests(gold(fixture_task, 2), 2).passed
    # A second call must not see the first call's patch (stats.py) any more.
    assert run_tests(gold(fixture_task, 1), 2).status == "failed"


def test_unchanged_task_image_is_reused(fixture_task, docker_client, base_image) -> None:
    first = TaskImages(docker_client, base_image=base_image).ensure(fixture_task)
    again = TaskImages(docker_client, base_image=base_image).ensure(fixture_task)
    assert not again.built and again.tag == first.tag and again.id == first.id


def test_base_repo_cache_clones_the_base_commit(fixture_task, tmp_path) -> None:
    cache = BaseRepoCache(tmp_path / "repos")
    repo = cache.get(fixture_task)
    assert cache.get(fixture_task) == repo
    head = KIT.git("rev-parse", "HEAD", cwd=repo).strip()
    assert head == fixture_task.spec.source.commit
    assert "VERSION = 2" in (repo / "calc.py").read_text()


def _clone(task: TaskFolder, tmp_path: Path) -> Path:
    repo = tmp_path / "clone"
    if repo.exists():
        shutil.rmtree(repo)
    subprocess.run(["git", "clone", "--quiet", str(task.bundle), str(repo)], check=True)
    KIT.git("checkout", "--quiet", task.spec.source.commit, cwd=repo)
    return repo


def test_fifty_megabytes_of_output_are_truncated(
    fixture_task, write_submission, engine, task_images, store, repos
) -> None:
    noisy = gold(fixture_task, 1).replace(
        "return a * b", "print('x' * 50_000_000); return 0"
    )
    submission = write_submission("noisy", patches=[noisy])
    feature = only_feature(evaluate(submission, fixture_task, engine=engine,
                                    task_images=task_images, store=store, repos=repos))
    assert feature.status == "failed" and feature.tests_failed == 1
    assert feature.output_truncated
    limit = fixture_task.spec.limits.output_bytes
    assert len(feature.output.encode()) <= limit + 200


def test_broken_dockerfile_is_a_clear_error(
    variant_root, write_submission, engine, docker_client, base_image, store, repos
) -> None:
    task = _variant(variant_root, "calc-broken")
    dockerfile = task.dockerfile.read_text()
    if "about to fail" not in dockerfile:
        task.dockerfile.write_text(dockerfile + "RUN echo about to fail && exit 3\n")
    images = TaskImages(docker_client, base_image=base_image)
    with pytest.raises(SandboxError, match="building the image of task calc-broken failed") as e:
        images.ensure(task)
    assert "about to fail" in str(e.value)
    submission = write_submission("any", patches=[gold(task, 1)], task_id="calc-broken")
    result = evaluate(submission, task, engine=engine, task_images=images, store=store,
                      repos=repos)
    assert result.runs == [] and "could not be built" in (result.error or "")
    assert store.lookup(submission, task, base_image) is None  # harness failures: not stored


@pytest.mark.parametrize(
    ("setup", "status", "reason"),
    [
        ("echo SETUP-RAN", "passed", None),
        ("echo SETUP-RAN; exit 3", "failed", "setup command exited with status 3"),
    ],
    ids=["setup-ok", "setup-fails"],
)
def test_task_setup_command_runs_before_the_tests(
    setup, status, reason, variant_root, write_submission, engine, task_images, store, repos
) -> None:
    task_id = f"calc-setup-{status}"
    task = _variant(variant_root, task_id, setup=setup)
    assert task.spec.tests.setup == setup
    submission = write_submission("with-setup", patches=[gold(task, 1)], task_id=task_id)
    feature = only_feature(evaluate(submission, task, engine=engine, task_images=task_images,
                                    store=store, repos=repos))
    assert feature.status == status and feature.reason == (
        None if reason is None else f"the test {reason}"
    )
    assert "SETUP-RAN" in feature.output


#: What the task's setup command (run as the tester, after the owner's steps) tries to change.
_OWNED = ("tests/test_add.py", "tests/test_mul.py", "calc.py", "/arena/harness.sh",
          "/arena/arena_stream.py", "/arena/changed.json", "/arena/submission.patch")


def test_the_setup_command_cannot_change_what_the_owner_or_root_wrote(
    variant_root, write_submission, engine, task_images, store, repos
) -> None:
    """The harness's files arrive with the container's start (root), the workspace with the
    owner's first command: the tester's setup command, run after both, can change none of
    them (nor add a file beside them), and the tests still run against what was set."""
    attempts = " ".join(_OWNED)
    setup = (f"for f in {attempts}; do if (echo x >> $f) 2>/dev/null; then echo WROTE $f; "
             "else echo REFUSED $f; fi; done; "
             "for d in /arena tests .; do touch $d/planted.py 2>/dev/null && echo WROTE $d; done; "
             "true")
    task = _variant(variant_root, "calc-setup-writes", setup=setup)
    submission = write_submission("gold", patches=[gold(task, 1)], task_id=task.id)
    feature = only_feature(evaluate(submission, task, engine=engine, task_images=task_images,
                                    store=store, repos=repos))
    assert "WROTE" not in feature.output, feature.output
    assert sorted(line.split()[1] for line in feature.output.splitlines()
                  if line.startswith("REFUSED")) == sorted(_OWNED)
    assert feature.status == "passed", (feature.reason, feature.output[-2000:])


def test_a_test_command_ending_in_its_own_exit_still_has_its_report_read(
    variant_root, write_submission, engine, task_images, store, repos, task_kit
) -> None:
    """The report comes back at the end of the tests' own output, printed by the shell after
    the command. A command ending in ``exit $rc`` (after a burst on standard error) ends
    only itself (it runs in a subshell): the report is read, the gold patch passes, and
    nothing of the trailer is left in the stored output."""
    command = (task_kit.TEST_COMMAND + "; rc=$?; head -c 300000 /dev/zero | tr \"\\0\" e >&2; "
               "exit $rc")
    task = _variant(variant_root, "calc-stderr", test_command=command)
    submission = write_submission("gold", patches=[gold(task, 1)], task_id=task.id)
    feature = only_feature(evaluate(submission, task, engine=engine, task_images=task_images,
                                    store=store, repos=repos))
    assert feature.status == "passed", (feature.reason, feature.output[-500:])
    assert "eeee" in feature.output and "arena-junit" not in feature.output


FORK_BOMB = (
    "import os\n"
    "    import time\n"
    "    n = 0\n"
    "    try:\n"
    "        while True:\n"
    "            if os.fork() == 0:\n"
    "                time.sleep(30)\n"
    "                os._exit(0)\n"
    "            n += 1\n"
    "    except OSError:\n"
    "        pass\n"
    "    return n"
)
NETWORK_CALL = (
    "import socket\n"
    "    socket.create_connection(('1.1.1.1', 80), timeout=5)\n"
    "    return a * b"
)


@pytest.mark.parametrize(
    ("body", "message"),
    [(FORK_BOMB, r"assert (\d+) == 12"), (NETWORK_CALL, r"OSError")],
    ids=["fork-bomb", "network-call"],
)
def test_hostile_code_in_tests_fails_cleanly(
    body, message, variant_root, write_submission, engine, task_images, store, repos, tmp_path
) -> None:
    task = _variant(variant_root, "calc-tight", extra_yaml="limits:\n  pids: 64\n")
    repo = _clone(task, tmp_path)
    calc = (repo / "calc.py").read_text() + f"\n\ndef mul(a, b):\n    {body}\n"
    hostile = KIT.diff_of(repo, {"calc.py": calc})
    submission = write_submission("hostile", patches=[hostile], task_id="calc-tight")
    feature = only_feature(evaluate(submission, task, engine=engine, task_images=task_images,
                                    store=store, repos=repos))
    # A clear failure of the test (the pid limit held / no network), not a hang or a crash.
    assert feature.status == "failed" and feature.tests_failed == 1, (
        f"{feature.status}: {feature.reason}\n{feature.output[-2000:]}")
    assert feature.duration < 30
    failing = next(case for case in feature.tests if case.outcome == "failed")
    found = re.search(message, failing.message or "")
    assert found is not None, failing.message
    if found.groups():
        assert int(found.group(1)) < 64  # forks made before the pids limit stopped them


def test_coop_observations_read_the_merged_code(
    variant_root, write_submission, engine, task_images, store, repos
) -> None:
    criteria = (
        "success_criteria:\n"
        "  - type: tests_pass\n"
        "  - type: file_exists\n    path: stats.py\n"
        "  - type: regex\n    pattern: 'def mul'\n    target: 'file:calc.py'\n"
    )
    task = _variant(variant_root, "calc-coop-criteria", extra_yaml=criteria)
    submission = write_submission(
        "coop-observed", patches=[gold(task, 1), gold(task, 2)], setting="coop",
        features=[1, 2], task_id="calc-coop-criteria",
    )
    result = evaluate(submission, task, engine=engine, task_images=task_images, store=store,
                      repos=repos)
    (run,) = result.runs
    assert run.merge is not None and run.merge.both_passed
    observations = {o.criterion: o for o in run.observations}
    assert observations[1].exists is True  # agent 2's file, present in the merged code
    assert "def mul" in (observations[2].text or "")  # agent 1's change
