"""``arena bot evaluate-pr|comment|publish``: the modes the GitHub Action runs.

Each workflow step is one of these calls, so what the workflows do is tested in Python.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TextIO

import click

from arena_bot.core.errors import InputError, UsageError
from arena_bot.core.settings import Settings

_event_option = click.option(
    "--event",
    "event_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The GitHub event payload (default: $GITHUB_EVENT_PATH).",
)


@click.group("bot")
def bot() -> None:
    """The GitHub bot's modes (run by action.yml; each can be tried locally with --event)."""


@bot.command("evaluate-pr")
@_event_option
@click.option(
    "--changed-files",
    type=click.File("r", encoding="utf-8", errors="replace"),
    default=None,
    help="The PR's changed files, as printed by `git diff --name-status base...head`.",
)
@click.option(
    "--base",
    default=None,
    help="Instead of --changed-files: the PR's base commit; the changed files are "
    "`git diff --name-status BASE...HEAD` of the repository root.",
)
@click.option(
    "--leaderboard",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="leaderboard.json written by `arena pipeline`/`arena score` (default: .arena/).",
)
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for bundle.json, the artifact the comment workflow reads "
    "(default: .arena/bundle).",
)
@click.option(
    "--evaluate", "run_docker", is_flag=True,
    help="Evaluate the PR's valid changed submissions in Docker (only those) and score them "
    "against the board of every stored result (restore main's first: `arena bot store "
    "restore`), instead of reading --leaderboard.",
)
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=2, show_default=True,
              help="With --evaluate: sandboxes run in parallel.")
@click.option("--base-image", default=None,
              help="With --evaluate: base image of the task images.")
@click.pass_obj
def evaluate_pr(
    settings: Settings, event_path: Path | None, changed_files: TextIO | None,
    base: str | None, leaderboard: Path | None, output: Path | None, run_docker: bool,
    jobs: int, base_image: str | None,
) -> None:
    """Untrusted PR run: validate the changed files, evaluate and score the changed
    submissions (--evaluate), write the bundle.

    Prints annotations on the offending lines, writes the job summary (the comment's
    content) and exits 1 when a submission is invalid. Needs no token.
    """
    from arena_bot.app.memo import open_memo
    from arena_bot.app.pr import changed_files_since, evaluate_pr
    from arena_bot.bot.workflow import commands_stopped, set_outputs, stop_commands, write_summary
    from arena_bot.cli.evaluation_output import run_evaluation
    from arena_bot.intake.diagnostics import escape_data, render_github

    if run_docker and leaderboard is not None:
        raise UsageError("--evaluate scores the board itself; drop --leaderboard")
    if (changed_files is None) == (base is None):
        raise UsageError("give exactly one of --changed-files and --base")
    env = os.environ
    event = _event_path(event_path, "evaluate-pr")  # a wrong trigger is refused first
    if base is not None and (not base.strip() or base.startswith("-")):
        # "" compared HEAD with itself: no file changed, and the PR was called valid
        raise UsageError(f"--base {base!r} is not a commit: pass the PR's base commit "
                         "(github.event.pull_request.base.sha)")
    changed = (changed_files.read().splitlines() if changed_files is not None
               else changed_files_since(settings.root, str(base)))
    with open_memo(settings.cache_dir) as memo:

        def evaluate(folders: list[Path]) -> None:
            # test names, reasons and build output are the submission's text
            with commands_stopped(env, click.echo):
                run_evaluation(settings, folders, jobs=jobs, base_image=base_image,
                               force=False, memo=memo)

        done = evaluate_pr(settings, changed=changed, event_path=event, memo=memo,
                           output=output or settings.cache_dir / "bundle",
                           leaderboard=leaderboard, evaluate=evaluate if run_docker else None)
    click.echo(render_github(done.report, root=settings.root))  # annotations: escaped already
    click.echo(stop_commands(done.summary))
    write_summary(env, done.summary)
    set_outputs(env, {"verdict": done.conclusion, "bundle": str(done.bundle)})
    click.echo(f"verdict: {done.conclusion}; wrote {done.bundle}")
    if done.board_error is not None:
        click.echo(f"::error title=Agentic Arena::{escape_data(str(done.board_error))}")
    if not done.report.valid or done.board_error is not None:
        sys.exit(1)


def _event_path(given: Path | None, mode: str) -> Path:
    """``given``, else $GITHUB_EVENT_PATH (the runner's event, which must be one ``mode``
    runs on); a clear error when neither is set."""
    from arena_bot.bot.workflow import check_trigger

    if given is None:
        check_trigger(mode, os.environ)
    value = given or os.environ.get("GITHUB_EVENT_PATH")
    if not value:
        raise InputError(
            "no --event given and GITHUB_EVENT_PATH is not set",
            hint="pass --event FILE (a GitHub event payload) or run inside GitHub Actions",
        )
    return Path(value)


@bot.command("comment")
@_event_option
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="bundle.json from the PR evaluation's artifact (treated as untrusted data).",
)
def comment(event_path: Path | None, bundle_path: Path) -> None:
    """Trusted workflow_run: check the bundle against the API, upsert the one comment, label.

    Reads GITHUB_API_URL, GITHUB_REPOSITORY and GITHUB_TOKEN from the environment.
    """
    from arena_bot.app.pr import comment_pr
    from arena_bot.bot.github import GitHubClient, GitHubSettings
    from arena_bot.bot.workflow import set_outputs

    env = os.environ
    event = _event_path(event_path, "comment")
    client = GitHubClient(GitHubSettings.from_env(env))
    outcome = comment_pr(event_path=event, bundle_path=bundle_path, client=client)
    if outcome.skipped is not None:
        click.echo(outcome.skipped)
        return
    action = "created" if outcome.created else "updated"
    click.echo(f"PR #{outcome.pr_number}: {outcome.conclusion}; {action} {outcome.url}")
    for reason in outcome.gate:
        click.echo(f"needs a maintainer: {reason}")
    click.echo(f"labels: {', '.join(sorted(outcome.labels))}")
    set_outputs(env, {"verdict": outcome.conclusion, "comment-url": outcome.url})


@bot.command("publish")
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("public"),
    show_default=True,
    help="Folder to deploy to GitHub Pages.",
)
@click.option("--site/--no-site", default=True, show_default=True,
              help="Build the MkDocs site into --output (what `arena site build` does) when "
              "the repository has its site/ project.")
@click.pass_obj
def publish(settings: Settings, output: Path, site: bool) -> None:
    """Trusted push to the default branch: rescore from the stored results, build the site
    and lay out the published files (data/: leaderboard.json, board.json, leaderboard.csv,
    tasks/).

    Run `arena pipeline` first: it evaluates whatever has no stored result. Only this mode
    writes the published board. A repository without the site/ project (it copied only the
    workflows) publishes the data files under a plain index page.
    """
    from arena_bot.app.memo import open_memo
    from arena_bot.app.publish import publish as run_publish
    from arena_bot.app.scoring import describe_scored
    from arena_bot.bot.workflow import check_trigger

    check_trigger("publish", os.environ)
    with open_memo(settings.cache_dir) as memo:
        done = run_publish(settings, output=output, site=site, memo=memo)
    click.echo("\n".join(describe_scored(done.scored, done.written)))
    if done.snapshot_problem is not None:
        click.echo(f"warning: the last published snapshot is not used: {done.snapshot_problem}",
                   err=True)
    if done.site is not None:
        click.echo(f"site: {done.site.pages} pages rendered in {done.site.render:.2f} s, "
                   f"mkdocs build in {done.site.mkdocs:.2f} s")
        click.echo(done.site.changes)
    elif site:
        click.echo("no site/ project in this repository (site/mkdocs.yml): publishing the "
                   "data files under a plain index page", err=True)
    click.echo(f"published files under {output}")


@bot.command("plan")
@click.option("--max-jobs", type=click.IntRange(1, 256), default=256, show_default=True,
              help="Matrix jobs at most (GitHub allows 256).")
@click.option("--pending", is_flag=True,
              help="Only submissions with no stored result for their current inputs "
              "(run `arena bot store restore` first).")
@click.option("--threshold", type=click.IntRange(0), default=None,
              help="Sets output `scale-out` to true when there are more units than this "
              "(the publish workflow then runs the matrix; otherwise one job evaluates).")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="DIR",
              help="Write DIR/plan.json: each shard's unit ids, for `arena bot evaluate-unit "
              "--plan DIR/plan.json --shard N` (stdout then says only how many).")
@click.pass_obj
def plan(settings: Settings, max_jobs: int, pending: bool, threshold: int | None,
         output: Path | None) -> None:
    """Plan the evaluation matrix of every valid submission; sets outputs `matrix`, `units`
    (how many) and, with --threshold, `scale-out`.

    Scale-out: one unit per submission and feature (a coop pair stays one unit), dealt
    round-robin into at most --max-jobs matrix jobs (shards); each job runs `arena bot
    evaluate-unit` on its shard.

    Output `matrix` holds shard indices only ({"include": [{"shard": 0}, ...]}): GitHub caps
    a job's outputs at 1 MB, which a large board's unit ids exceed. The unit ids go to
    --output DIR/plan.json (the publish workflow uploads it for the matrix jobs). Without
    --output, stdout is the matrix with each shard's units ({"include": [{"shard": 0,
    "units": "id id ..."}, ...]}), to read or to hand to `arena bot evaluate-unit UNITS`.
    """
    from arena_bot.app.memo import open_memo
    from arena_bot.app.scaleout import plan as plan_units
    from arena_bot.bot.workflow import check_trigger, set_outputs

    check_trigger("plan", os.environ)
    # The publish workflow's plan job restores the memo: an unchanged board parses nothing.
    with open_memo(settings.cache_dir) as memo:
        planned = plan_units(settings, pending=pending, max_jobs=max_jobs, memo=memo)
    for problem in planned.skipped:
        click.echo(f"skipped (invalid): {problem}", err=True)
    units = planned.units
    if output is None:
        click.echo(json.dumps(planned.listing(), sort_keys=True))
    else:
        path = planned.write(output)
        click.echo(f"{len(units)} unit(s) in {len(planned.shards)} shard(s): {path}")
    outputs = {"matrix": json.dumps(planned.matrix(), sort_keys=True), "units": str(len(units))}
    if threshold is not None:
        outputs["scale-out"] = "true" if len(units) > threshold else "false"
        click.echo(f"{len(units)} unit(s); threshold {threshold}: "
                   f"{'matrix' if len(units) > threshold else 'one job'}", err=True)
    set_outputs(os.environ, outputs)


@bot.command("evaluate-unit")
@click.argument("units", nargs=-1)
@click.option("--plan", "plan_path", type=click.Path(path_type=Path), default=None,
              metavar="FILE",
              help="The plan.json `arena bot plan --output` wrote (with --shard, instead "
              "of UNITS).")
@click.option("--shard", type=click.IntRange(0), default=None, metavar="N",
              help="Evaluate the units --plan lists for this shard (`matrix.shard`).")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the unit result files (one JSON file per unit).")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Sandboxes run in parallel.")
@click.option("--base-image", default=None,
              help="Base image of the task images (see `arena evaluate --help`).")
@click.pass_obj
def evaluate_unit_cmd(
    settings: Settings, units: tuple[str, ...], plan_path: Path | None, shard: int | None,
    output: Path, jobs: int, base_image: str | None
) -> None:
    """Evaluate planned units in Docker: UNITS (ids from `arena bot plan`, e.g.
    `task/sub#f1`), or a matrix job's shard (--plan FILE --shard N); one or the other.

    A matrix job's work: each unit's result is written to --output, for `arena bot
    aggregate` to assemble and store. A unit may also be given as one space-separated
    string (a shard's `units` as `arena bot plan` prints them without --output).
    """
    from arena_bot.app.scaleout import evaluate_units, shard_units
    from arena_bot.bot.workflow import check_trigger

    check_trigger("evaluate-unit", os.environ)
    usage = "give UNITS, or --plan FILE --shard N (a matrix job's share of plan.json)"
    if plan_path is None and shard is None:
        if not units:
            raise UsageError(f"no unit to evaluate: {usage}")
        ids = [u for given in units for u in given.split()]
    elif units:
        raise UsageError(f"UNITS and --plan/--shard both given: {usage}, not both")
    elif plan_path is None or shard is None:
        raise UsageError(f"{'--plan' if plan_path is None else '--shard'} is missing: "
                         "--plan FILE and --shard N go together")
    else:
        ids = shard_units(plan_path, shard)
        click.echo(f"shard {shard} of {plan_path}: {len(ids)} unit(s)", err=True)
    for result, path in evaluate_units(settings, ids, output=output, jobs=jobs,
                                       base_image=base_image,
                                       progress=lambda line: click.echo(line, err=True)):
        statuses = ", ".join(f"{f.run_id} f{f.result.feature} {f.result.status}"
                             for f in result.features)
        statuses += "".join(f", {m.run_id} merge {m.result.status}" for m in result.merges)
        click.echo(f"{result.unit}: {result.error or statuses or 'nothing to run'} -> {path}")


@bot.command("aggregate")
@click.argument("results", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--from", "folder", type=click.Path(file_okay=False, path_type=Path),
              default=None,
              help="Also every *.json under this folder (the downloaded matrix artifacts); "
              "a missing or empty folder means no matrix ran.")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the merged unit results to this file.")
@click.pass_obj
def aggregate_cmd(
    settings: Settings, results: tuple[Path, ...], folder: Path | None, output: Path | None
) -> None:
    """Merge the matrix jobs' unit result files (any order) and store each submission's
    assembled EvaluationResult in the result store (.arena/results).

    A submission with a missing or failed unit is not stored: `arena pipeline` evaluates it.
    """
    from arena_bot.app.scaleout import aggregate_units
    from arena_bot.bot.workflow import check_trigger

    check_trigger("aggregate", os.environ)
    if not results and folder is None:
        raise UsageError("give unit result files or --from FOLDER")
    done = aggregate_units(settings, results, also_from=folder, output=output)
    if done is None:
        click.echo("no unit results (no matrix ran): nothing to aggregate")
        return
    for line in done.skipped:
        click.echo(line, err=True)
    for key in done.stored:
        click.echo(f"{key}: stored")
    for key in done.incomplete:
        click.echo(f"{key}: a unit is missing or failed; `arena pipeline` will evaluate it",
                   err=True)
    click.echo(f"merged {len(done.merged['units'])} unit result(s); stored "
               f"{len(done.stored)} submission result(s)")


@bot.group("store")
def store() -> None:
    """Keep the trusted result store on a data branch between publish runs.

    `restore` before evaluating, `save` after (publish only: it pushes). A missing branch is
    an empty store: everything is re-evaluated, never taken from a PR's artifact.
    """


_remote_option = click.option("--remote", default="origin", show_default=True,
                              help="The git remote holding the data branch.")
_branch_option = click.option("--branch", default="arena-data", show_default=True,
                              help="The data branch (written only by the publish workflow).")


@store.command("restore")
@_remote_option
@_branch_option
@click.option("--optional", is_flag=True,
              help="An unreachable remote is a warning, not an error (the PR evaluation: "
              "without main's results, unevaluated entries are shown pending).")
@click.pass_obj
def store_restore(settings: Settings, remote: str, branch: str, optional: bool) -> None:
    """Copy the data branch's results missing from the local store (.arena/results)."""
    from arena_bot.bot.datastore import DataBranchError, restore

    try:
        outcome = restore(repo=settings.root, results_dir=settings.results_dir,
                          remote=remote, branch=branch,
                          snapshot_to=settings.published_snapshot)
    except DataBranchError as exc:
        if not optional:
            raise
        click.echo(f"warning: main's stored results were not restored: {exc}", err=True)
        return
    if not outcome.found:
        click.echo(f"no {branch} branch on {remote} yet: every submission without a local "
                   "result will be evaluated")
        return
    click.echo(f"restored {outcome.restored} result(s) from {remote}/{branch} "
               f"({outcome.present} already present)"
               + ("; the last published site snapshot" if outcome.snapshot else ""))
    for name in outcome.skipped:
        click.echo(f"skipped {name}: not a result file of the store's layout", err=True)


@store.command("save")
@_remote_option
@_branch_option
@click.option("--message", default=None,
              help="Commit message (default: names the commit of the default branch).")
@click.pass_obj
def store_save(settings: Settings, remote: str, branch: str, message: str | None) -> None:
    """Commit the local store (plus what the branch already holds) to the data branch, push.

    The last site snapshot `arena bot publish` kept (.arena/published-snapshot.json) goes
    with it, so the next publish run's Changes page continues the published history.
    """
    from arena_bot.bot.datastore import save
    from arena_bot.bot.workflow import check_trigger

    check_trigger("publish", os.environ)
    sha = os.environ.get("GITHUB_SHA", "")
    text = message or ("Trusted evaluation results" + (f" for {sha[:12]}" if sha else ""))
    snapshot = settings.published_snapshot
    outcome = save(repo=settings.root, results_dir=settings.results_dir, remote=remote,
                   branch=branch, message=text,
                   snapshot=snapshot if snapshot.is_file() else None)
    if not outcome.pushed:
        click.echo(f"{remote}/{branch} already holds these {outcome.files} result(s)"
                   + (" and this site snapshot" if snapshot.is_file() else ""))
        return
    click.echo(f"pushed {outcome.commit} to {remote}/{branch}: {outcome.files} result(s), "
               f"{outcome.added} new")
