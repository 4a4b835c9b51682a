"""``arena config show``: the effective arena.yaml and where each value came from."""

from __future__ import annotations

import json

import click

from arena_bot.core.config import CONFIG_FILE, load_config
from arena_bot.core.settings import Settings
from arena_bot.site.methodology import render_methodology


@click.group("config")
def config() -> None:
    """Inspect the repository's configuration (arena.yaml)."""


@config.command("show")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "markdown", "methodology"]),
    default="text",
    show_default=True,
    help="text: one setting per line; json: the effective configuration; markdown: a "
    "table; methodology: the methodology page's generated part (policy, weights, limits).",
)
@click.pass_obj
def show(settings: Settings, fmt: str) -> None:
    """Print every setting, its value and where it came from (arena.yaml:LINE or default).

    A typo in arena.yaml is an error naming the line (exit status 1).
    """
    loaded = load_config(settings.root)
    if fmt == "json":
        click.echo(json.dumps(loaded.config.model_dump(mode="json"), indent=2, sort_keys=True))
        return
    if fmt == "methodology":
        click.echo(render_methodology(loaded.config), nl=False)
        return
    rows = list(loaded.origins())
    if fmt == "markdown":
        click.echo("| setting | value | from |\n| --- | --- | --- |")
        for key, value, origin in rows:
            click.echo(f"| `{key}` | `{json.dumps(value)}` | {origin} |")
        return
    where = loaded.path if loaded.path is not None else f"no {CONFIG_FILE}: defaults only"
    click.echo(f"configuration: {where}")
    width = max(len(key) for key, _, _ in rows)
    for key, value, origin in rows:
        click.echo(f"  {key:<{width}}  {json.dumps(value):<24} {origin}")
