"""``arena.yaml``: one optional file, typed, every number of the bot read from it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner, Result
from support.synthetic_board import generate

from arena_bot.cli import main
from arena_bot.core.config import DEFAULT_CONFIG, ArenaConfig, flat_settings, load_config
from arena_bot.core.errors import InputError

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "arena_bot" / "schemas" / "arena-config.schema.json"


def arena(root: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, ["--root", str(root), *args])
    assert "Traceback" not in result.output
    return result


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("board")
    generate(root, n_submissions=24, n_tasks=2)
    return root


@pytest.fixture()
def board(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "board"
    shutil.copytree(template, root)
    return root


def test_without_a_file_every_value_is_the_default(tmp_path: Path) -> None:
    loaded = load_config(tmp_path)
    assert loaded.config == DEFAULT_CONFIG and loaded.path is None
    result = arena(tmp_path, "config", "show")
    assert result.exit_code == 0
    assert "defaults only" in result.output
    assert "scoring.policy" in result.output and '"solved"' in result.output


def test_a_typo_names_the_line_and_suggests_the_key(tmp_path: Path) -> None:
    (tmp_path / "arena.yaml").write_text("scoring:\n  min_submisions: 3\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_config(tmp_path)
    assert "arena.yaml:2" in str(caught.value)
    assert "did you mean 'min_submissions'" in str(caught.value)
    for command in (["config", "show"], ["score"], ["validate"]):
        result = arena(tmp_path, *command)
        assert result.exit_code == 1, command
        assert "arena.yaml:2" in result.output


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("scoring:\n  default_weights: {efficiency: 0.5, speed: 0.5, cost: 0.5, "
         "correctness: 0}\n", "add up to 1"),
        ("scoring:\n  policy: fastest\n", "scoring.policy"),
        ("scoring:\n  confidence: 1.5\n", "scoring.confidence"),
        ("limits:\n  patch_bytes: '2MB'\n", "limits.patch_bytes"),
        ("outliers: [1, 2]\n", "outliers"),
    ],
)
def test_bad_values_are_refused_with_their_line(tmp_path: Path, text: str, fragment: str) -> None:
    (tmp_path / "arena.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_config(tmp_path)
    assert fragment in str(caught.value) and "arena.yaml:" in str(caught.value)


def test_a_table_entry_changes_only_that_entry(tmp_path: Path) -> None:
    (tmp_path / "arena.yaml").write_text(
        "scoring:\n  difficulty_multipliers:\n    advanced: 1.5\n", encoding="utf-8"
    )
    loaded = load_config(tmp_path)
    assert loaded.config.difficulty_multiplier("advanced") == 1.5
    assert loaded.config.difficulty_multiplier("intermediate") == 1.1
    origins = {key: origin for key, _, origin in loaded.origins()}
    assert origins["scoring.difficulty_multipliers.advanced"] == "arena.yaml:3"
    assert origins["scoring.difficulty_multipliers.beginner"] == "default"


def test_the_committed_schema_accepts_the_defaults_and_rejects_unknown_keys() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(DEFAULT_CONFIG.model_dump(mode="json"), schema)
    jsonschema.validate(yaml.safe_load((REPO / "arena.yaml").read_text("utf-8")), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"scoring": {"polcy": "solved"}}, schema)


def test_the_shipped_arena_yaml_is_the_defaults() -> None:
    assert load_config(REPO).config == DEFAULT_CONFIG


def _board(root: Path) -> dict:
    result = arena(root, "score")
    assert result.exit_code == 0, result.output
    return json.loads((root / ".arena" / "leaderboard.json").read_text(encoding="utf-8"))


def test_a_changed_weight_reaches_every_score_and_the_recorded_configuration(
    board: Path,
) -> None:
    before = _board(board)
    (board / "arena.yaml").write_text(
        "scoring:\n  category_weights:\n    backend_development:\n"
        "      {efficiency: 0.1, speed: 0.1, cost: 0.1, correctness: 0.7}\n",
        encoding="utf-8",
    )
    after = _board(board)
    recorded = after["options"]["configuration"]["scoring"]["category_weights"]
    assert recorded["backend_development"]["correctness"] == 0.7
    scored = [e for e in after["entries"] if e["status"] == "scored"]
    assert scored and all(e["scores"]["weights"]["correctness"] == 0.7 for e in scored)
    assert after["input_digest"] != before["input_digest"]
    # The cached parts of the board were not reused: the scores moved with the weights.
    old = {e["key"]: e["scores"]["composite"] for e in before["entries"] if e["scores"]}
    new = {e["key"]: e["scores"]["composite"] for e in scored}
    assert any(old[key] != new[key] for key in new)


def test_the_seed002_policy_from_arena_yaml(board: Path) -> None:
    (board / "arena.yaml").write_text("scoring:\n  policy: seed002\n", encoding="utf-8")
    data = _board(board)
    assert data["options"]["policy"] == "seed002"
    for entry in data["entries"]:
        if entry["scores"]:
            assert entry["scores"]["overall_unadjusted"] == entry["scores"]["composite"]


def test_default_policy_scores_failures_zero_and_ranks_them_last(board: Path) -> None:
    data = _board(board)
    for task in data["tasks"]:
        entries = [e for e in data["entries"] if e["task_id"] == task["task_id"] and e["rank"]]
        failed = [e for e in entries if e["scores"]["resolve_rate"] == 0]
        solved = [e for e in entries if e["scores"]["resolve_rate"] == 1]
        assert failed and solved
        assert all(e["scores"]["overall"] == 0 for e in failed)
        assert max(e["rank"] for e in solved) <= min(e["rank"] for e in failed)


def test_validation_limits_come_from_arena_yaml(board: Path) -> None:
    folder = sorted((board / "submissions").glob("*/*"))[0]
    assert arena(board, "validate", str(folder)).exit_code == 0
    (board / "arena.yaml").write_text("limits:\n  patch_bytes: 1024\n", encoding="utf-8")
    result = arena(board, "validate", str(folder))
    assert result.exit_code == 1
    assert "1,024" in result.output or "1024" in result.output


def test_configuration_is_part_of_every_cached_verdict() -> None:
    changed = ArenaConfig.model_validate({"limits": {"patch_bytes": 4096}})
    assert changed.digest() != DEFAULT_CONFIG.digest()


def test_a_price_table_named_in_arena_yaml_is_used(board: Path) -> None:
    before = _board(board)
    shipped = yaml.safe_load((REPO / "arena_bot" / "data" / "prices.yaml").read_text("utf-8"))
    for price in shipped["models"].values():  # everything ten times dearer
        for field in ("input", "cached_input", "output"):
            price[field] = price[field] * 10
    (board / "my-prices.yaml").write_text(yaml.safe_dump(shipped), encoding="utf-8")
    (board / "arena.yaml").write_text("prices: my-prices.yaml\n", encoding="utf-8")
    after = _board(board)
    flags = lambda data: sorted(  # noqa: E731
        (e["key"], f["code"]) for e in data["entries"] for f in e["outliers"]
    )
    assert after["input_digest"] != before["input_digest"]
    assert flags(after) != flags(before)  # the cost checks moved with the prices
    (board / "arena.yaml").write_text("prices: missing.yaml\n", encoding="utf-8")
    result = arena(board, "score")
    assert result.exit_code == 1 and "missing.yaml" in result.output


def test_every_setting_can_be_written_in_yaml(tmp_path: Path) -> None:
    # The effective configuration, written back as YAML, loads to the same model: no setting
    # has a type that YAML cannot spell (a tuple, for example).
    text = yaml.safe_dump(DEFAULT_CONFIG.model_dump(mode="json"))
    (tmp_path / "arena.yaml").write_text(text, encoding="utf-8")
    assert load_config(tmp_path).config == DEFAULT_CONFIG
    (tmp_path / "arena.yaml").write_text(
        "outliers:\n  cost_per_1k_tokens: [0.5, 0.1]\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match="low < high"):
        load_config(tmp_path)


def _methodology(root: Path) -> str:
    return (root / ".arena" / "methodology.md").read_text(encoding="utf-8")


def test_the_methodology_page_follows_arena_yaml_and_is_byte_identical(board: Path) -> None:
    _board(board)
    first = _methodology(board)
    assert "Policy: **`solved`**" in first
    assert "| backend_development | 0.35 | 0.3 | 0.2 | 0.15 |" in first
    assert _board(board) and _methodology(board) == first  # same inputs, same bytes
    (board / "arena.yaml").write_text(
        "scoring:\n  policy: seed002\n  min_submissions: 7\n  category_weights:\n"
        "    backend_development:\n"
        "      {efficiency: 0.1, speed: 0.1, cost: 0.1, correctness: 0.7}\n"
        "outliers:\n  fast_seconds: 2.5\n",
        encoding="utf-8",
    )
    _board(board)
    changed = _methodology(board)
    assert "Policy: **`seed002`**" in changed and "`solved`" not in changed
    assert "| backend_development | 0.1 | 0.1 | 0.1 | 0.7 |" in changed
    assert "at least **7**" in changed and "under 2.5 s" in changed
    shown = arena(board, "config", "show", "--format", "methodology")
    assert shown.exit_code == 0 and "Policy: **`seed002`**" in shown.output
    assert "| backend_development | 0.1 | 0.1 | 0.1 | 0.7 |" in shown.output


def test_the_worked_example_is_the_boards_own_entries(board: Path) -> None:
    data = _board(board)
    page = _methodology(board)
    rows = [line for line in page.splitlines() if line.startswith("| ") and " / " in line
            and not line.startswith("| rank")]
    task = next(e["task_id"] for e in data["entries"] if e["status"] == "scored")
    scored = [e for e in data["entries"] if e["task_id"] == task and e["status"] == "scored"]
    assert f"Task `{task}`" in page and len(rows) == min(len(scored), 8)
    for row, entry in zip(rows, scored, strict=False):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        scores = entry["scores"]
        assert cells[1] == entry["label"]
        assert float(cells[2]) == round(scores["composite"], 1)
        assert float(cells[4]) == round(scores["overall_unadjusted"], 1)
        # The policy the page explains is the one the numbers obey.
        solved = scores["composite"] * scores["resolve_rate"]
        assert abs(float(cells[4]) - solved) <= 0.06 + 1e-9


def test_a_broken_arena_yaml_leaves_the_written_methodology_alone(board: Path) -> None:
    _board(board)
    before = _methodology(board)
    (board / "arena.yaml").write_text("scoring:\n  polcy: seed002\n", encoding="utf-8")
    result = arena(board, "score")
    assert result.exit_code == 1 and "arena.yaml:2" in result.output
    assert _methodology(board) == before


def test_without_scored_entries_the_example_says_so() -> None:
    from arena_bot.site.methodology import render_methodology

    page = render_methodology(DEFAULT_CONFIG)
    assert "No task has two scored entries yet." in page
    assert "| advanced | 1.2 |" in page and "at least **5**" in page


def test_folder_size_limit_comes_from_arena_yaml(board: Path) -> None:
    folder = sorted((board / "submissions").glob("*/*"))[0]
    (board / "arena.yaml").write_text("limits:\n  folder_bytes: 2048\n", encoding="utf-8")
    result = arena(board, "validate", str(folder))
    assert result.exit_code == 1
    assert "2,048" in result.output


def test_evaluation_reads_patches_with_the_configured_limit(board: Path) -> None:
    from arena_bot.evaluation.engine import read_patch
    from arena_bot.intake.submissions import load_submission

    submission = load_submission(sorted((board / "submissions").glob("*/*"))[0])
    name = submission.spec.runs[0].patches[0]
    text, error = read_patch(submission, name)
    assert text and error is None
    text, error = read_patch(submission, name, max_bytes=1024)
    assert text == "" and error is not None and "1,024" in error


def test_an_arena_variable_set_but_empty_is_unset(tmp_path: Path) -> None:
    """`ARENA_CACHE=` (a workflow input left blank) made the current folder the cache: the
    memo, leaderboard.json and the rest were written beside the user's files."""
    from arena_bot.core.settings import DEFAULT_BASE_IMAGE, Settings

    empty = {name: "" for name in ("ARENA_ROOT", "ARENA_DATASET", "ARENA_SUBMISSIONS",
                                   "ARENA_CACHE", "ARENA_BASE_IMAGE")}
    settings = Settings.from_env(root=tmp_path, env=empty)
    root = tmp_path.resolve()
    assert (settings.dataset_dir, settings.submissions_dir, settings.cache_dir) == (
        root / "dataset", root / "submissions", root / ".arena")
    assert settings.base_image == DEFAULT_BASE_IMAGE
    set_ones = Settings.from_env(root=tmp_path, env={"ARENA_CACHE": "/x/cache"})
    assert set_ones.cache_dir == Path("/x/cache")


#: Every setting that is a number with a fraction (or a list of them), by its dotted key.
FLOAT_SETTINGS = [
    key for key, value in flat_settings(DEFAULT_CONFIG)
    if isinstance(value, float)
    or (isinstance(value, list) and value and all(isinstance(v, float) for v in value))
]


@pytest.mark.parametrize("number", [".inf", "-.inf", ".nan"])
@pytest.mark.parametrize("key", FLOAT_SETTINGS)
def test_every_number_setting_must_be_finite_and_the_error_names_its_line(
    tmp_path: Path, key: str, number: str
) -> None:
    """YAML spells infinity and not-a-number as floats: the unbounded settings took them,
    and `arena score` then wrote null into leaderboard.json and crashed reading it back."""
    *parents, last = key.split(".")
    listed = isinstance(dict(flat_settings(DEFAULT_CONFIG))[key], list)
    text = "".join(f"{'  ' * depth}{name}:\n" for depth, name in enumerate(parents))
    text += f"{'  ' * len(parents)}{last}: {f'[0.0, {number}]' if listed else number}\n"
    (tmp_path / "arena.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="must be a finite number") as err:
        load_config(tmp_path)
    assert f"arena.yaml:{len(parents) + 1}: {key}" in str(err.value)


def test_an_infinite_setting_stops_score_before_anything_is_written(board: Path) -> None:
    (board / "arena.yaml").write_text("outliers:\n  max_tokens_per_second: .inf\n",
                                      encoding="utf-8")
    for command in (("config", "show"), ("score",), ("validate",)):
        result = arena(board, *command)
        assert result.exit_code == 1, result.output
        assert "arena.yaml:2: outliers.max_tokens_per_second: must be a finite number" in (
            result.output)
    assert not (board / ".arena" / "leaderboard.json").exists()


@pytest.mark.parametrize("prices", [
    "/etc/passwd", "../outside.yaml", "tables/../../outside.yaml", "link.yaml", "~/prices.yaml",
    "missing.yaml", "tables",
])
def test_a_price_table_that_is_not_a_file_of_the_repository_is_refused_naming_the_line(
    board: Path, prices: str
) -> None:
    """`prices: /etc/passwd` made `arena score` read it (and show its first line in the
    error); `arena validate` and `config show` passed a table that did not exist."""
    (board.parent / "outside.yaml").write_text(
        (REPO / "arena_bot" / "data" / "prices.yaml").read_text("utf-8"), encoding="utf-8")
    (board / "link.yaml").symlink_to(board.parent / "outside.yaml")
    (board / "tables").mkdir()
    (board / "arena.yaml").write_text(f"schema_version: 1\nprices: {prices}\n",
                                      encoding="utf-8")
    with pytest.raises(InputError, match=r"arena\.yaml:2: prices: ") as err:
        load_config(board)
    assert repr(prices) in str(err.value) and "hint: name a price table file" in str(err.value)
    for command in (("config", "show"), ("validate",), ("score",)):
        result = arena(board, *command)
        assert result.exit_code == 1, (command, result.output)
        assert f"arena.yaml:2: prices: {prices!r}" in result.output and "root:" not in (
            result.output)
    assert not (board / ".arena" / "leaderboard.json").exists()


def test_a_price_table_of_the_repository_is_part_of_the_configurations_digest(
    tmp_path: Path
) -> None:
    """Verdicts are remembered under the configuration's digest, and validation checks
    costs against the table: a changed table must not keep an old verdict."""
    table = tmp_path / "tables" / "prices.yaml"
    table.parent.mkdir()
    shipped = (REPO / "arena_bot" / "data" / "prices.yaml").read_text("utf-8")
    table.write_text(shipped, encoding="utf-8")
    (tmp_path / "arena.yaml").write_text("prices: tables/prices.yaml\n", encoding="utf-8")
    before = load_config(tmp_path).config.digest()
    assert before != DEFAULT_CONFIG.digest()
    table.write_text(shipped.replace("version:", "# changed\nversion:", 1), encoding="utf-8")
    assert load_config(tmp_path).config.digest() != before
