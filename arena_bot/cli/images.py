"""``arena images``: the offline base image and the task images."""

from __future__ import annotations

from pathlib import Path

import click

from arena_bot.core.settings import OFFLINE_BASE_IMAGE, Settings
from arena_bot.sandbox.engine import docker_client
from arena_bot.sandbox.images import TaskImages, build_base_image, resolve_base_image
from arena_bot.tasks.dataset import Dataset


@click.group()
def images() -> None:
    """Build the Docker images evaluation runs in."""


@images.command("base")
@click.option("--force", is_flag=True, help="Rebuild even if the image exists.")
@click.option("--tag", default=OFFLINE_BASE_IMAGE, show_default=True, help="Image tag.")
@click.option("--mirror", default=None, help="Debian mirror (default: the machine's apt source).")
def base(force: bool, tag: str, mirror: str | None) -> None:
    """Build the offline base image (Debian bookworm + python3, pytest, git) with debootstrap."""
    client = docker_client()
    build_base_image(client, tag=tag, force=force, mirror=mirror, progress=click.echo)


@images.command("build")
@click.argument("task_ids", nargs=-1)
@click.option(
    "--base-image", default=None, help="Base image (default: settings / ARENA_BASE_IMAGE)."
)
@click.pass_obj
def build(settings: Settings, task_ids: tuple[str, ...], base_image: str | None) -> None:
    """Build the images of TASK_IDS (default: every task); unchanged tasks are reused."""
    dataset = Dataset(Path(settings.dataset_dir))
    tasks = [dataset.get(task_id) for task_id in task_ids] if task_ids else dataset.all()
    client = docker_client()
    resolved = resolve_base_image(
        client,
        base_image or settings.base_image,
        explicit=base_image is not None,
        progress=click.echo,
    )
    builder = TaskImages(client, base_image=resolved, progress=click.echo)
    for task in tasks:
        image = builder.ensure(task)
        state = "built" if image.built else "unchanged"
        click.echo(f"{task.id}: {image.tag} ({state})")
