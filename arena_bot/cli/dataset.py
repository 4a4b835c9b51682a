"""``arena dataset``: maintain tasks in dataset/ (import from CooperBench)."""

from __future__ import annotations

from pathlib import Path

import click

from arena_bot.cooperbench import import_task
from arena_bot.settings import Settings


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
@click.option("--dest", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Dataset folder to write into (default: dataset/).")
@click.pass_obj
def import_cooperbench(
    settings: Settings,
    task_dir: Path,
    source: str | None,
    test_command: str | None,
    task_id: str | None,
    dest: Path | None,
) -> None:
    """Turn the CooperBench task folder TASK_DIR into a task of this project."""
    task = import_task(task_dir, dest=dest or settings.dataset_dir, source=source,
                       test_command=test_command, task_id=task_id)
    click.echo(f"imported {task_dir} as {task.root}")
    click.echo(f"  base commit {task.spec.source.commit}, {len(task.features)} feature(s)")
    click.echo(f"  test command: {task.spec.tests.command}")
    click.echo("  next: review category/difficulty in task.yaml, then `arena images build "
               f"{task.id}` and check the gold patches with `arena evaluate`")
