"""A synthetic leaderboard repository: tasks copied from the sample task ``slugkit-options``
under new ids, N submissions spread over them, and a stored EvaluationResult for each written
through the real :class:`~arena_bot.evaluation.store.ResultStore` (content-addressed exactly
as ``arena evaluate`` addresses it). Used by the site and incremental-scoring tests and by the
scale and site benchmarks; the same seed gives the same repository."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import shutil
from pathlib import Path

from arena_bot.core.prices import load_price_table, token_cost
from arena_bot.core.settings import OFFLINE_BASE_IMAGE

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_TASK = ROOT / "dataset" / "slugkit-options"
TEMPLATE_PATCH = (
    ROOT / "submissions" / "slugkit-options" / "2026-11-02_claude-code_claude-sonnet-4-5"
    / "max-length.patch"
)
#: The image the stored results are addressed to (the offline base image).
BASE_IMAGE = OFFLINE_BASE_IMAGE
TOOLS = ["Claude Code", "Aider", "Cursor", "Codex CLI", "OpenHands", "SWE-agent"]
MODELS = ["claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro", "deepseek-v3", "claude-opus-4-1"]
_PRICES = load_price_table()


def _submission_yaml(*, task: str, tool: str, model: str, day: int, rng: random.Random) -> str:
    runs = []
    price = _PRICES.lookup(model)
    for index in range(rng.choice([1, 1, 1, 3])):
        prompt = rng.randint(8_000, 600_000)
        completion = rng.randint(500, 40_000)
        cached = rng.randint(0, prompt // 2)
        calls, iterations = rng.randint(2, 90), rng.randint(1, 8)
        seconds = rng.uniform(20, 1200)
        # A cost the price table finds plausible (within 25% of its rates): an honest board.
        cost = rng.uniform(0.8, 1.25) * (
            token_cost(price=price[1], uncached=prompt - cached, cache_read=cached,
                       cache_write=0, output=completion) if price is not None else 0.5)
        runs.append(
            f"""  - id: run-{index + 1}
    tokens:
      total: {prompt + completion}
      prompt: {prompt}
      completion: {completion}
      cached: {cached}
    tool_calls: {calls}
    iterations: {iterations}
    execution_time: {seconds:.1f}
    estimated_cost: {max(cost, 0.0001):.4f}
    success: true
    patches:
      - change.patch
"""
        )
    return f"""schema_version: 1
task: {task}
tool:
  name: "{tool}"
  version: "1.0.0"
models:
  - {model}
contributor:
  name: "Synthetic Contributor"
  github: synthetic-{day}
date: {dt.date(2026, 1, 1) + dt.timedelta(days=day % 300)}
setting: single
features: [1]
cost_source: tool_report
runs:
{"".join(runs)}"""


def _patch(number: int) -> str:
    """The sample's real feature patch plus a one-line new file, so no two patches match."""
    name = f"slugkit/_note_{number}.py"
    return TEMPLATE_PATCH.read_text(encoding="utf-8") + (
        f"diff --git a/{name} b/{name}\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        f"+++ b/{name}\n"
        "@@ -0,0 +1 @@\n"
        f"+NOTE = {number}\n"
    )


def generate(root: Path, *, n_submissions: int, n_tasks: int, seed: int = 7) -> None:
    """Write dataset/, submissions/ and .arena/results/ for a synthetic board under ``root``."""
    from arena_bot import HARNESS_VERSION
    from arena_bot.core.digest import folder_digest
    from arena_bot.evaluation.store import InputKey, ResultStore, content_hash
    from arena_bot.intake.submissions import load_submission
    from arena_bot.models.evaluation import EvaluationResult, FeatureResult, RunResult
    from arena_bot.tasks.dataset import Dataset

    rng = random.Random(seed)
    task_ids = [f"synthetic-{i:03d}" for i in range(n_tasks)]
    for task_id in task_ids:
        target = root / "dataset" / task_id
        shutil.copytree(TEMPLATE_TASK, target)
        spec = target / "task.yaml"
        spec.write_text(
            spec.read_text(encoding="utf-8").replace("id: slugkit-options", f"id: {task_id}"),
            encoding="utf-8",
        )
    tasks = {folder.id: folder for folder in Dataset(root / "dataset").all()}
    task_digests = {task_id: folder_digest(tasks[task_id].root) for task_id in task_ids}
    store = ResultStore(root / ".arena" / "results")
    image = hashlib.sha256(BASE_IMAGE.encode()).hexdigest()
    when = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    for number in range(n_submissions):
        task_id = task_ids[number % n_tasks]
        tool, model = rng.choice(TOOLS), rng.choice(MODELS)
        slug = f"{tool.lower().replace(' ', '-')}_{model}"
        folder = root / "submissions" / task_id / f"2026-{number:06d}_{slug}"
        folder.mkdir(parents=True)
        text = _submission_yaml(task=task_id, tool=tool, model=model, day=number, rng=rng)
        (folder / "submission.yaml").write_text(text, encoding="utf-8")
        (folder / "change.patch").write_text(_patch(number), encoding="utf-8")
        key = InputKey(
            content=content_hash(
                folder, tasks[task_id].root, harness_version=HARNESS_VERSION,
                task_digest=task_digests[task_id],
            ),
            image=image,
        )
        passed = rng.random() < 0.6
        runs = [
            RunResult(
                run_id=f"run-{index + 1}",
                features=[
                    FeatureResult(
                        feature=1,
                        status="passed" if passed else "failed",
                        passed=passed,
                        apply_status="clean",
                        exit_code=0 if passed else 1,
                        tests_passed=5 if passed else 3,
                        tests_failed=0 if passed else 2,
                    )
                ],
            )
            for index in range(text.count("  - id: run-"))
        ]
        result = EvaluationResult(
            task_id=task_id,
            submission_id=folder.name,
            input_hash=key.input_hash,
            harness_version=HARNESS_VERSION,
            evaluated_at=when,
            runs=runs,
        )
        store.save(load_submission(folder), key, result)


#: The folder name of the submission :func:`add_submission` adds.
NEW_ARRIVAL = "2026-999999_new-arrival"


def add_submission(root: Path) -> None:
    """A new submission lands (copied from an existing one, with its stored result)."""
    from arena_bot.evaluation.store import ResultStore

    source = sorted((root / "submissions").glob("*/*"))[0]
    target = source.with_name(NEW_ARRIVAL)
    shutil.copytree(source, target)
    results = root / ".arena" / "results" / source.parent.name
    for stored in ResultStore(results.parent).stored(source.parent.name, source.name):
        # Its own result, as evaluation would store it (the same files, so the same key):
        # the store credits a result to the submission it names, not to its file name.
        result = json.loads(stored.read_text(encoding="utf-8"))
        result["submission_id"] = target.name
        (results / f"{target.name}{stored.name[len(source.name):]}").write_text(
            json.dumps(result, indent=2), encoding="utf-8")
