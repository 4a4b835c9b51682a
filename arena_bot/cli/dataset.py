"""``arena dataset``: maintain tasks in dataset/ (import from CooperBench)."""

from __future__ import annotations

from pathlib import Path

import click

from arena_bot.core.errors import DatasetError
from arena_bot.core.settings import Settings
from arena_bot.tasks.cooperbench import import_task, suggested_id


@click.group("dataset")
def dataset() -> None:
    """Maintain the tasks under dataset/."""


@dataset.command("import-cooperbench")
@click.argument("task_dir", type=click.Path(path_type=Path))
@click.option("--source", default=None,
              help="Local clone or git bundle of the upstream repository (offline machines); "
              "default: the URL in the task's Dockerfile.")
@click.option("--test-command", default=None,
              help="Test command (must write JUnit XML to $ARENA_JUNIT); default: read from "
              "runner.sh's test step.")
@click.option("--id", "task_id", default=None, help="Task id (default: <repo>-task<N>).")
@click.option("--force", is_flag=True, help="Replace a task of the same id already there.")
@click.option("--wheels/--no-wheels", default=True, show_default=True,
              help="Resolve the project's dependencies on the host into wheels.txt (needs the "
              "package index at import and at the first image build).")
@click.option("--dest", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Dataset folder to write into (default: dataset/).")
@click.pass_obj
def import_cooperbench(
    settings: Settings,
    task_dir: Path,
    source: str | None,
    test_command: str | None,
    task_id: str | None,
    force: bool,
    wheels: bool,
    dest: Path | None,
) -> None:
    """Turn the CooperBench task folder TASK_DIR into a task of this project."""
    folder = dest or settings.dataset_dir
    if task_id is None and task_dir.is_dir():
        task_id = suggested_id(task_dir)
        click.echo(f"task id {task_id} (from the folder names {task_dir.resolve().parent.name}"
                   f"/{task_dir.resolve().name}; choose another with --id)")
    replacing = force and task_id is not None and (folder / task_id).exists()
    imported = import_task(task_dir, dest=folder, source=source, test_command=test_command,
                           task_id=task_id, force=force, wheels=wheels)
    task = imported.task
    if replacing:
        click.echo(f"replaced the existing task {task.id} (--force)")
    click.echo(f"imported {task_dir} as {task.root}")
    click.echo(f"  base commit {task.spec.source.commit}, {len(task.features)} feature(s)")
    click.echo(f"  test command: {task.spec.tests.command}")
    for note in imported.notes:
        click.echo(f"  note: {note}")
    click.echo("  next: review category/difficulty in task.yaml, then check the gold patches "
               f"with `arena dataset check {task.id}`")


@dataset.command("check")
@click.argument("task_ids", nargs=-1)
@click.option("--repeat", default=2, show_default=True, type=click.IntRange(1, 10),
              help="Gold runs per feature (ids with differing outcomes are flaky).")
@click.option("--write/--no-write", default=True, show_default=True,
              help="Record the expected test ids in feature<N>/expected_tests.json.")
@click.option("--base-image", default=None, help="Base image (default: the configured one).")
@click.pass_obj
def check(
    settings: Settings, task_ids: tuple[str, ...], repeat: int, write: bool,
    base_image: str | None,
) -> None:
    """Run every feature's gold patch and the bare base commit of TASK_IDS (default: all) in
    Docker; report gold patches that fail and tests that pass without the feature; record
    the test ids a passing submission must reproduce. Exit status 1 on any problem."""
    from arena_bot.app.tasks import check_tasks

    if repeat == 1 and write:
        click.echo("warning: with one gold run a flaky test id cannot be told (a random or "
                   "time-based parameter differs on every run): it is recorded as expected "
                   "and fails later gold runs; record with --repeat 2 or more", err=True)
    failing = 0
    for checked in check_tasks(settings, task_ids, repeat=repeat, write=write,
                               base_image=base_image,
                               progress=lambda line: click.echo(line, err=True)):
        ids, feature_id = checked.check.expected, checked.check.feature
        click.echo(f"{checked.task.id} feature {feature_id}: {len(ids.fail_to_pass)} "
                   f"fail-to-pass, {len(ids.pass_to_pass)} pass-to-pass, {len(ids.flaky)} flaky")
        for note in checked.check.notes:
            click.echo(f"  note: {note}")
        for problem in checked.check.problems:
            click.echo(f"  problem: {problem}")
        failing += bool(checked.check.problems)
        if checked.recorded is not None:
            click.echo(f"  recorded {checked.recorded}")
    if failing:
        raise DatasetError(f"{failing} feature(s) have problems (see above); nothing was "
                           "recorded for them", path=settings.dataset_dir)
