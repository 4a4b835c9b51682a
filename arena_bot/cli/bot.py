"""``arena bot evaluate-pr|comment|publish``: the modes the GitHub Action runs.

Each workflow step is one of these calls, so what the workflows do is tested in Python.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, TextIO

import click

from arena_bot.settings import Settings

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
    from arena_bot.bot.modes import build_bundle, env_path, evaluate_pr_outputs
    from arena_bot.bot.workflow import set_outputs, stop_commands, write_summary
    from arena_bot.config import load_config
    from arena_bot.errors import ArenaError, UsageError
    from arena_bot.index import open_index
    from arena_bot.intake.diagnostics import escape_data, render_github, to_model
    from arena_bot.intake.validation import parse_changed_files, validate_changed_files
    from arena_bot.tasks.dataset import Dataset

    if run_docker and leaderboard is not None:
        raise UsageError("--evaluate scores the board itself; drop --leaderboard")
    env = os.environ
    lines = _changed_lines(settings.root, changed_files, base)
    with open_index(settings.cache_dir) as index:
        report = validate_changed_files(
            lines, root=settings.root, dataset=Dataset(settings.dataset_dir, index),
            submissions_root=settings.submissions_dir, index=index,
            config=load_config(settings.root).config,
        )
        model = to_model(report, root=settings.root)
        changed = [s.path for s in model.submissions if s.valid]
        board_error = None
        if run_docker:
            try:
                leaderboard = _evaluate_and_score(
                    settings, [settings.root / p for p in changed], index,
                    jobs=jobs, base_image=base_image,
                )
            except ArenaError as exc:
                # The bundle, the summary and the annotations still go out: the comment
                # workflow needs them whatever went wrong here.
                board_error, leaderboard = exc, None
        results = _stored_results(settings, changed, index) if board_error is None else []
    bundle = build_bundle(
        event_path=env_path(env, event_path, "GITHUB_EVENT_PATH"),
        report=model,
        results=results,
        changed_files=[c.path for c in parse_changed_files(lines)],
        leaderboard_path=(None if board_error is not None
                          else leaderboard or settings.cache_dir / "leaderboard.json"),
    )
    path, summary, view = evaluate_pr_outputs(bundle, output or settings.cache_dir / "bundle")
    click.echo(render_github(report, root=settings.root))  # annotations: escaped already
    click.echo(stop_commands(summary))
    write_summary(env, summary)
    set_outputs(env, {"verdict": view.verdict, "bundle": str(path)})
    click.echo(f"verdict: {view.verdict}; wrote {path}")
    if board_error is not None:
        click.echo(f"::error title=Agentic Arena::{escape_data(str(board_error))}")
    if not report.valid or board_error is not None:
        sys.exit(1)


def _evaluate_and_score(
    settings: Settings, folders: list[Path], index: Any, *, jobs: int, base_image: str | None
) -> Path:
    """Evaluate only ``folders`` (the PR's valid submissions; the rest keep their stored
    results, restored from the data branch) and score every submission against them.

    Returns the leaderboard.json written (under the cache, never the published board).
    """
    from arena_bot.app.scoring import score_board, write_scored
    from arena_bot.app.validation import validate_submissions
    from arena_bot.bot.workflow import commands_stopped
    from arena_bot.cli.evaluation_output import run_evaluation

    if folders:
        # test names, reasons and build output are the submission's text
        with commands_stopped(os.environ, click.echo):
            run_evaluation(settings, folders, jobs=jobs, base_image=base_image, force=False,
                           index=index)
    # The board is scored as `arena pipeline` scores it: its valid submissions only. An
    # invalid one (the PR's own, reported above) is left off instead of failing the scoring.
    whole = validate_submissions(settings, index=index)
    valid = [s.folder for s in whole.submissions if s.valid]
    only = None if len(valid) == len(whole.submissions) else valid
    board = score_board(settings, index=index, only=only)
    folder = settings.cache_dir / "pr-board"
    write_scored(board, folder)
    return folder / "leaderboard.json"


def _stored_results(settings: Settings, paths: list[str], index: Any) -> list[dict[str, Any]]:
    """The stored evaluation results of these (valid) submission folders, as JSON data."""
    from arena_bot.scoring.loader import load_inputs

    if not paths:
        return []
    inputs = load_inputs(
        dataset_dir=settings.dataset_dir, submissions_dir=settings.submissions_dir,
        results_dir=settings.results_dir, only=[settings.root / p for p in paths], index=index,
    )
    return [s.result.model_dump(mode="json") for s in inputs.submissions if s.result]


def _changed_lines(root: Path, changed_files: TextIO | None, base: str | None) -> list[str]:
    """The PR's changed files from the file given or from git (exactly one of them)."""
    from arena_bot.errors import InputError, UsageError

    if (changed_files is None) == (base is None):
        raise UsageError("give exactly one of --changed-files and --base")
    if changed_files is not None:
        return changed_files.read().splitlines()
    import git

    try:
        output = git.Repo(root).git.diff("--name-status", "--no-renames", f"{base}...HEAD")
    except (git.GitCommandError, git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise InputError(
            f"cannot list the changed files against {base!r}: {exc}", path=root,
            hint="check out the PR with fetch-depth: 0 so the base commit is present",
        ) from None
    return str(output).splitlines()


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
    from arena_bot.bot.github import GitHubClient, GitHubSettings
    from arena_bot.bot.modes import env_path, run_comment
    from arena_bot.bot.workflow import set_outputs

    env = os.environ
    client = GitHubClient(GitHubSettings.from_env(env))
    outcome = run_comment(
        event_path=env_path(env, event_path, "GITHUB_EVENT_PATH"),
        bundle_path=bundle_path, client=client,
    )
    if outcome.skipped is not None:
        click.echo(outcome.skipped)
        return
    action = "created" if outcome.created else "updated"
    click.echo(f"PR #{outcome.pr_number}: {outcome.verdict}; {action} {outcome.url}")
    for reason in outcome.gate:
        click.echo(f"needs a maintainer: {reason}")
    click.echo(f"labels: {', '.join(sorted(outcome.labels))}")
    set_outputs(env, {"verdict": outcome.verdict, "comment-url": outcome.url})


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
    from arena_bot.app.scoring import describe_scored, score_board, write_scored
    from arena_bot.index import open_index

    with open_index(settings.cache_dir) as index:
        scored = score_board(settings, index=index)
    board_dir = settings.cache_dir / "publish-board"
    for line in describe_scored(scored, write_scored(scored, board_dir)):
        click.echo(line)
    has_site = (settings.root / "site" / "mkdocs.yml").is_file()
    if site and has_site:
        _build_site(settings, board_dir / "leaderboard.json", output)
        _keep_snapshot(output, published_snapshot(settings))
    elif site:
        click.echo("no site/ project in this repository (site/mkdocs.yml): publishing the "
                   "data files under a plain index page", err=True)
    data = output / "data"
    if data.exists():
        shutil.rmtree(data)
    from arena_bot.app.scoring import MANIFEST

    # The manifest of what `arena score` wrote (sizes, times, inodes) is the writer's own
    # bookkeeping, not data for readers.
    shutil.copytree(board_dir, data, ignore=shutil.ignore_patterns(MANIFEST))
    index_page = output / "index.html"
    if not index_page.exists():  # the site build writes the real one
        index_page.write_text(
            "<!doctype html><title>Agentic Arena</title><h1>Agentic Arena data</h1><ul>"
            '<li><a href="data/leaderboard.json">leaderboard.json</a></li>'
            '<li><a href="data/leaderboard.csv">leaderboard.csv</a></li>'
            '<li><a href="data/board.json">board.json</a></li></ul>\n',
            encoding="utf-8",
        )
    click.echo(f"published files under {output}")


def published_snapshot(settings: Settings) -> Path:
    """Where the last published site's change snapshot is kept between the site build and
    `arena bot store save|restore` (which carry it on the data branch)."""
    return settings.cache_dir / "published-snapshot.json"


def _previous_snapshot(path: Path) -> Any:
    """The snapshot kept at ``path`` (a ``Snapshot``), read once; ``None`` when there is none
    or it is damaged: a warning, not a failed publish (the Changes page then starts a new
    history, and says so)."""
    from arena_bot.errors import InputError
    from arena_bot.site.history import read_previous

    try:
        return read_previous(path)
    except InputError as exc:
        click.echo(f"warning: the last published snapshot is not used: {exc}", err=True)
        return None


def _keep_snapshot(output: Path, target: Path) -> None:
    """Copy the site's new board/snapshot.json to ``target`` for `arena bot store save`."""
    from arena_bot.site.history import SNAPSHOT
    from arena_bot.site.render import GENERATED

    built = output / GENERATED / SNAPSHOT
    if built.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


def _build_site(settings: Settings, leaderboard: Path, output: Path) -> None:
    """The site from ``leaderboard``, as `arena site build --leaderboard ... --output ...`,
    compared with the last published snapshot when `arena bot store restore` brought one."""
    from arena_bot.site.build import build, load_board

    results = settings.results_dir if settings.results_dir.is_dir() else None
    times = build(load_board(leaderboard), root=settings.root, site_dir=output,
                  results=results, previous=_previous_snapshot(published_snapshot(settings)))
    click.echo(f"site: {times.pages} pages rendered in {times.render:.2f} s, mkdocs build "
               f"in {times.mkdocs:.2f} s")
    click.echo(times.changes)


@bot.command("plan")
@click.option("--max-jobs", type=click.IntRange(1, 256), default=256, show_default=True,
              help="Matrix jobs at most (GitHub allows 256).")
@click.option("--pending", is_flag=True,
              help="Only submissions with no stored result for their current inputs "
              "(run `arena bot store restore` first).")
@click.option("--threshold", type=click.IntRange(0), default=None,
              help="Sets output `scale-out` to true when there are more units than this "
              "(the publish workflow then runs the matrix; otherwise one job evaluates).")
@click.pass_obj
def plan(settings: Settings, max_jobs: int, pending: bool, threshold: int | None) -> None:
    """Print the evaluation matrix (JSON) of every valid submission; sets output `matrix`
    (and `units`, `scale-out`).

    Scale-out: one unit per submission and feature (a coop pair stays one unit), dealt into
    at most ``--max-jobs`` matrix jobs; each job runs `arena bot evaluate-unit` on its units.
    """
    import json

    from arena_bot.bot.plan import shard, units_for
    from arena_bot.bot.workflow import set_outputs
    from arena_bot.index import open_index

    # The publish workflow's plan job restores the index from the cache: unchanged
    # submissions are then hashed, not parsed again (a large board's plan took minutes).
    with open_index(settings.cache_dir) as index:
        specs = [(loaded.key, loaded.spec.setting, loaded.spec.features)
                 for loaded in _planned_submissions(settings, pending=pending, index=index)]
    units = units_for(specs)
    matrix = json.dumps({"include": shard(units, max_jobs)}, sort_keys=True)
    click.echo(matrix)
    outputs = {"matrix": matrix, "units": str(len(units))}
    if threshold is not None:
        outputs["scale-out"] = "true" if len(units) > threshold else "false"
        click.echo(f"{len(units)} unit(s); threshold {threshold}: "
                   f"{'matrix' if len(units) > threshold else 'one job'}", err=True)
    set_outputs(os.environ, outputs)


def _planned_submissions(settings: Settings, *, pending: bool, index: Any) -> list[Any]:
    """Valid submission folders to plan (``pending``: those without a stored result)."""
    from arena_bot.app.evaluation import planned_base_image
    from arena_bot.errors import ArenaError
    from arena_bot.evaluation.store import ResultStore
    from arena_bot.intake.submissions import load_submission
    from arena_bot.intake.validation import all_submission_folders
    from arena_bot.tasks.dataset import Dataset

    dataset = Dataset(settings.dataset_dir, index)
    store = ResultStore(settings.results_dir, index)
    base_image = planned_base_image(settings) if pending else settings.base_image
    chosen = []
    for folder in all_submission_folders(settings.submissions_dir, index):
        try:
            loaded = load_submission(folder, index)
            task = dataset.get(loaded.spec.task) if pending else None
        except ArenaError as exc:
            click.echo(f"skipped (invalid): {exc}", err=True)
            continue
        if task is not None and store.lookup(loaded, task, base_image) is not None:
            continue
        chosen.append(loaded)
    return chosen


@bot.command("evaluate-unit")
@click.argument("units", nargs=-1, required=True)
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for the unit result files (one JSON file per unit).")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Sandboxes run in parallel.")
@click.option("--base-image", default=None,
              help="Base image of the task images (see `arena evaluate --help`).")
@click.pass_obj
def evaluate_unit_cmd(
    settings: Settings, units: tuple[str, ...], output: Path, jobs: int, base_image: str | None
) -> None:
    """Evaluate planned UNITS (ids from `arena bot plan`, e.g. `task/sub#f1`) in Docker.

    A matrix job's work: each unit's result is written to --output, for `arena bot
    aggregate` to assemble and store. A unit may also be given as one space-separated
    string (the matrix's `units` value).
    """
    from arena_bot.app.evaluation import docker_evaluator
    from arena_bot.bot.units import evaluate_unit, write_unit_result

    ids = [u for given in units for u in given.split()]
    resolved = [_resolve_unit(settings, unit_id) for unit_id in ids]  # all checked first
    setup = docker_evaluator(settings, base_image=base_image,
                             progress=lambda line: click.echo(line, err=True))
    evaluator, engine = setup.evaluator, setup.engine
    try:
        for submission, task, unit in resolved:
            result = evaluate_unit(evaluator, submission, task, unit, jobs=jobs)
            path = write_unit_result(result, output)
            statuses = ", ".join(f"{f.run_id} f{f.result.feature} {f.result.status}"
                                 for f in result.features)
            statuses += "".join(f", {m.run_id} merge {m.result.status}" for m in result.merges)
            click.echo(f"{unit.id}: {result.error or statuses or 'nothing to run'} -> {path}")
    finally:
        engine.drain()


def _resolve_unit(settings: Settings, unit_id: str) -> tuple[Any, Any, Any]:
    """(submission, task, plan unit) of a unit id; an unknown id is a clear error."""
    from arena_bot.bot.units import plan_units_of
    from arena_bot.errors import UsageError
    from arena_bot.intake.submissions import load_submission
    from arena_bot.tasks.dataset import Dataset

    key = unit_id.split("#", 1)[0]
    folder = settings.submissions_dir / key
    if "#" not in unit_id or ".." in key.split("/") or not (folder / "submission.yaml").is_file():
        raise UsageError(f"unknown unit {unit_id!r}", path=folder,
                         hint="use the ids `arena bot plan` prints (task/submission#f1)")
    submission = load_submission(folder)
    task = Dataset(settings.dataset_dir).get(submission.spec.task)
    for unit in plan_units_of(submission):
        if unit.id == unit_id:
            return submission, task, unit
    known = ", ".join(u.id for u in plan_units_of(submission))
    raise UsageError(f"unknown unit {unit_id!r}", path=folder / "submission.yaml",
                     hint=f"this submission's units are: {known}")


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
    import json

    from arena_bot.bot.plan import aggregate
    from arena_bot.bot.units import assemble, parse_units
    from arena_bot.errors import UsageError

    if not results and folder is None:
        raise UsageError("give unit result files or --from FOLDER")
    paths = list(results)
    if folder is not None and folder.is_dir():
        paths += sorted(p for p in folder.rglob("*.json") if p.is_file())
    if not paths:
        click.echo("no unit results (no matrix ran): nothing to aggregate")
        return
    merged = aggregate(paths)
    if output is not None:
        output.write_text(json.dumps(merged, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    units = parse_units(merged["units"])
    stored = _store_assembled(settings, assemble(units, _submissions_named(settings, units)))
    click.echo(f"merged {len(merged['units'])} unit result(s); stored {stored} "
               f"submission result(s)")


def _submissions_named(settings: Settings, units: list[Any]) -> dict[str, tuple[Any, Any]]:
    from arena_bot.errors import ArenaError
    from arena_bot.intake.submissions import load_submission
    from arena_bot.tasks.dataset import Dataset

    dataset = Dataset(settings.dataset_dir)
    found: dict[str, tuple[Any, Any]] = {}
    for key in sorted({u.submission for u in units}):
        folder = settings.submissions_dir / key
        if ".." in key.split("/") or not (folder / "submission.yaml").is_file():
            click.echo(f"{key}: no such submission any more; its units are ignored", err=True)
            continue
        try:
            submission = load_submission(folder)
            found[key] = (submission, dataset.get(submission.spec.task))
        except ArenaError as exc:
            click.echo(f"{key}: skipped ({exc})", err=True)
    return found


def _store_assembled(settings: Settings, assembled: Any) -> int:
    from arena_bot.evaluation.store import ResultStore

    store = ResultStore(settings.results_dir)
    for submission, address, result in assembled.results:
        store.save(submission, address, result)
        click.echo(f"{submission.key}: stored")
    for key in assembled.incomplete:
        click.echo(f"{key}: a unit is missing or failed; `arena pipeline` will evaluate it",
                   err=True)
    return len(assembled.results)


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
                          snapshot_to=published_snapshot(settings))
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

    sha = os.environ.get("GITHUB_SHA", "")
    text = message or ("Trusted evaluation results" + (f" for {sha[:12]}" if sha else ""))
    snapshot = published_snapshot(settings)
    outcome = save(repo=settings.root, results_dir=settings.results_dir, remote=remote,
                   branch=branch, message=text,
                   snapshot=snapshot if snapshot.is_file() else None)
    if not outcome.pushed:
        click.echo(f"{remote}/{branch} already holds these {outcome.files} result(s)"
                   + (" and this site snapshot" if snapshot.is_file() else ""))
        return
    click.echo(f"pushed {outcome.commit} to {remote}/{branch}: {outcome.files} result(s), "
               f"{outcome.added} new")
