"""``arena merge``: merge analysis of two agents' patches on a task, outside a submission."""

from __future__ import annotations

from pathlib import Path

import click

from arena_bot.app.merge import MergeAnalysis, analyse_merge
from arena_bot.cli.evaluation_output import failure_lines
from arena_bot.core.errors import InputError
from arena_bot.core.settings import Settings


@click.command("merge")
@click.argument("patch1", type=click.Path(path_type=Path))
@click.argument("patch2", type=click.Path(path_type=Path))
@click.option("--task", "task_id", required=True, help="Task id (a folder under dataset/).")
@click.option(
    "--features",
    nargs=2,
    type=int,
    default=None,
    metavar="I J",
    help="Features of agent 1 and agent 2, I < J (default: 1 2).",
)
@click.option(
    "--no-tests", is_flag=True, help="Only the git part: no Docker, no tests on the merged code."
)
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write seed 003's merge report JSON to this file.",
)
@click.option("--verbose", "-v", is_flag=True,
              help="Also print each feature's test output on the merged code.")
@click.pass_obj
def merge(
    settings: Settings,
    patch1: Path,
    patch2: Path,
    task_id: str,
    features: tuple[int, int] | None,
    no_tests: bool,
    output: Path | None,
    verbose: bool,
) -> None:
    """Merge PATCH1 (agent 1, feature I) with PATCH2 (agent 2, feature J) on a task.

    Test files are dropped from both patches, each is committed on its own branch from the
    task's base commit, and agent 1's branch is merged into agent 2's. Conflicts are counted
    as CooperBench does and, on conflict, the merge is retried with the union strategy. Then
    both features' tests run on the merged code in Docker (unless --no-tests).
    """
    analysis = analyse_merge(
        settings, (patch1, patch2), task_id=task_id, features=features, run_tests=not no_tests,
        progress=lambda message: click.echo(message, err=True),
    )
    _print_summary(analysis, verbose=verbose)
    if output is not None:
        analysis.report.write(output)
        click.echo(f"merge report written to {output}")
    statuses = analysis.result.apply_status
    failed = [path for agent, path in (("agent1", patch1), ("agent2", patch2))
              if statuses.get(agent) in ("failed", "missing")]
    if failed:  # the analysis is reported; the command still failed on its input
        raise InputError(
            "the patch does not apply to the task's base commit"
            + (f" (nor does {failed[1]})" if len(failed) > 1 else "")
            + ": see the note above for git's words",
            path=failed[0],
            hint="make it with `git diff` in a checkout of the task's base commit",
        )


def _print_summary(analysis: MergeAnalysis, *, verbose: bool) -> None:
    result, report = analysis.result, analysis.report
    details = result.conflict_details
    click.echo(f"merge: {result.status} (strategy {result.strategy})")
    click.echo(
        f"  conflict score {result.conflict_score} ({result.severity}): "
        f"{details.conflict_sections} section(s), {details.conflict_lines} line(s), "
        f"{details.avg_lines_per_conflict:.2f} lines per section"
    )
    click.echo(
        "  patches: "
        + ", ".join(f"{agent} {status}" for agent, status in sorted(result.apply_status.items()))
    )
    results = {feature.feature: feature for feature in result.features}
    for feature in (report.feature1, report.feature2):
        if feature.tests_passed is None:
            tests = "tests not run"
        else:
            tests = "passed" if feature.tests_passed else "failed"
        tested = results.get(feature.number)
        reason = f" ({tested.reason})" if tested is not None and tested.reason else ""
        click.echo(f"  feature {feature.number}: {tests}{reason}")
        if tested is not None:
            for line in failure_lines(tested, indent="    "):
                click.echo(line)
            if verbose:
                click.echo(f"    --- feature {feature.number} test output ---")
                click.echo(tested.output.rstrip() or "(no output)")
    if result.error:
        click.echo(f"  note: {result.error}")
    if result.features:
        click.echo(f"  both passed: {'yes' if result.both_passed else 'no'}")
