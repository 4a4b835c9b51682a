"""Scale-out: the plan's units and shards, and order-independent aggregation."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_bot.bot.plan import aggregate, shard, units_for
from arena_bot.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_units_split_single_and_solo_per_feature_and_keep_coop_pairs() -> None:
    units = units_for([("t/b", "solo", [1, 3]), ("t/a", "coop", [1, 2]), ("t/c", "single", [2])])
    assert [u.id for u in units] == ["t/a#coop-1-2", "t/b#f1", "t/b#f3", "t/c#f2"]
    assert units[0].features == (1, 2)


def test_shards_cover_every_unit_once_within_the_job_cap() -> None:
    units = units_for((f"t/s{i}", "solo", [1, 2, 3]) for i in range(500))
    shards = shard(units, max_jobs=256)
    assert len(shards) == 256
    ids = [u for job in shards for u in job]
    assert sorted(ids) == sorted(u.id for u in units) and len(ids) == 1500
    # round-robin in unit id order, the same every time
    assert shards[0][:2] == [units[0].id, units[256].id] and shard(units, 256) == shards
    assert shard(units[:3], max_jobs=256) == [[units[0].id], [units[1].id], [units[2].id]]
    assert shard([], max_jobs=256) == []


def _write(folder: Path, n: int) -> list[Path]:
    paths = []
    for i in range(n):
        path = folder / f"r{i}.json"
        path.write_text(json.dumps({"unit": f"t/s{i:03d}#f1", "passed": i % 2 == 0}))
        paths.append(path)
    return paths


def test_aggregate_is_the_same_whatever_the_order(tmp_path: Path) -> None:
    paths = _write(tmp_path, 60)
    shuffled = paths[:]
    random.Random(7).shuffle(shuffled)
    assert aggregate(paths) == aggregate(shuffled) == aggregate(shuffled + paths[:5])
    assert [u["unit"] for u in aggregate(shuffled)["units"]][:2] == ["t/s000#f1", "t/s001#f1"]


def test_aggregate_refuses_two_different_results_for_one_unit(tmp_path: Path) -> None:
    paths = _write(tmp_path, 2)
    clash = tmp_path / "clash.json"
    clash.write_text(json.dumps({"unit": "t/s000#f1", "passed": False}))
    result = CliRunner().invoke(
        main, ["bot", "aggregate", *map(str, paths), str(clash), "--output", str(tmp_path / "o")]
    )
    assert result.exit_code == 1 and "two different results" in result.output
    assert "clash.json" in result.output


def test_aggregate_reports_a_malformed_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    result = CliRunner().invoke(
        main, ["bot", "aggregate", str(bad), "--output", str(tmp_path / "o")]
    )
    assert result.exit_code == 1 and "bad.json" in result.output and "not JSON" in result.output
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    result = CliRunner().invoke(main, ["bot", "aggregate", str(deep)])
    assert result.exit_code == 1 and "deep.json" in result.output
    assert "nested too deep" in result.output and "Traceback" not in result.output


def test_plan_on_the_sample_data(tmp_path: Path) -> None:
    """Without --output stdout shows each shard's units (for a person); the `matrix` output
    is shard indices alone either way, and --output's plan.json holds the same shards."""
    out = tmp_path / "gh_output"
    result = CliRunner().invoke(main, ["--root", str(ROOT), "bot", "plan", "--max-jobs", "3"],
                                env={"GITHUB_OUTPUT": str(out)})
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert [job["shard"] for job in printed["include"]] == [0, 1, 2]
    assert any("#coop-" in job["units"] for job in printed["include"])
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert json.loads(outputs["matrix"]) == {"include": [{"shard": 0}, {"shard": 1},
                                                         {"shard": 2}]}
    count = int(outputs["units"])

    out.write_text("")
    written = CliRunner().invoke(main, ["--root", str(ROOT), "bot", "plan", "--max-jobs", "3",
                                        "--output", str(tmp_path / "arena-plan")],
                                 env={"GITHUB_OUTPUT": str(out)})
    assert written.exit_code == 0, written.output
    path = tmp_path / "arena-plan" / "plan.json"
    assert written.stdout == f"{count} unit(s) in 3 shard(s): {path}\n"
    document = json.loads(path.read_text())
    assert document["schema_version"] == 1
    assert [(job["shard"], " ".join(job["units"])) for job in document["shards"]] == [
        (job["shard"], job["units"]) for job in printed["include"]]
    assert outputs["matrix"] in out.read_text()


def test_a_second_plan_parses_no_submission_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The publish workflow's plan job restores the memo: a plan over an unchanged board
    parses none of its files; a changed task's submissions are parsed again."""
    root = tmp_path / "repo"
    for part in ("dataset", "submissions", "arena.yaml"):
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, root / part, symlinks=True)
        elif source.exists():
            shutil.copy2(source, root / part)
    args = ["--root", str(root), "bot", "plan", "--max-jobs", "3"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output

    import arena_bot.app.scaleout as evaluation

    parsed: list[Path] = []
    real = evaluation.load_submission

    def counting(folder: Path) -> object:
        parsed.append(folder)
        return real(folder)

    monkeypatch.setattr(evaluation, "load_submission", counting)
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert again.stdout == first.stdout
    assert parsed == []
    spec = next((root / "submissions" / "slugkit-options").glob("*/submission.yaml"))
    spec.write_text(spec.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    third = CliRunner().invoke(main, args)
    assert third.exit_code == 0, third.output
    assert third.stdout == first.stdout
    assert parsed and {folder.parent.name for folder in parsed} == {"slugkit-options"}
