"""``arena images``: the offline base image and the task images."""

from __future__ import annotations

import click

from arena_bot.app.tasks import build_base, build_task_images
from arena_bot.core.settings import OFFLINE_BASE_IMAGE, Settings


@click.group()
def images() -> None:
    """Build the Docker images evaluation runs in."""


@images.command("base")
@click.option("--force", is_flag=True, help="Rebuild even if the image exists.")
@click.option("--tag", default=OFFLINE_BASE_IMAGE, show_default=True, help="Image tag.")
@click.option("--mirror", default=None, help="Debian mirror (default: the machine's apt source).")
def base(force: bool, tag: str, mirror: str | None) -> None:
    """Build the offline base image (Debian bookworm + python3, pytest, git) with debootstrap."""
    build_base(tag=tag, force=force, mirror=mirror, progress=click.echo)


@images.command("build")
@click.argument("task_ids", nargs=-1)
@click.option(
    "--base-image", default=None, help="Base image (default: settings / ARENA_BASE_IMAGE)."
)
@click.pass_obj
def build(settings: Settings, task_ids: tuple[str, ...], base_image: str | None) -> None:
    """Build the images of TASK_IDS (default: every task); unchanged tasks are reused."""
    for task, image in build_task_images(settings, task_ids, base_image=base_image,
                                         progress=click.echo):
        click.echo(f"{task.id}: {image.tag} ({'built' if image.built else 'unchanged'})")
