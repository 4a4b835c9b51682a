"""Time `plan` (units + shards) and `aggregate` on 5,000 evaluation units; prints figures.

Usage: .venv/bin/python benchmarks/bot_plan_aggregate.py [UNITS]
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from arena_bot.bot.plan import aggregate, shard, units_for


def main(count: int = 5000) -> None:
    specs = [(f"task{i % 20}/sub{i:05d}", "single", [1 + i % 5]) for i in range(count)]
    start = time.perf_counter()
    units = units_for(specs)
    matrix = shard(units)
    plan_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for unit in units:
            path = Path(tmp) / f"{len(paths)}.json"
            path.write_text(json.dumps({"unit": unit.id, "passed": True, "tests": 12}))
            paths.append(path)
        random.Random(1).shuffle(paths)
        start = time.perf_counter()
        merged = aggregate(paths)
        aggregate_s = time.perf_counter() - start
    print(f"units: {len(units)}  matrix jobs: {len(matrix)}")
    print(f"plan (units + shards): {plan_s * 1000:.1f} ms")
    print(f"aggregate ({len(merged['units'])} result files, shuffled): {aggregate_s * 1000:.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
