"""``canonical`` spells every value exactly as ``json.dumps(indent=2, sort_keys=True,
ensure_ascii=False)`` does: the published bytes must not depend on which encoder ran."""

from __future__ import annotations

import enum
import json
import math
import random

import pytest

from arena_bot.scoring.export import canonical


def _reference(data: object) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)


class Level(enum.IntEnum):
    LOW = 1


class Colour(enum.StrEnum):
    RED = "red"


AWKWARD = [
    {}, [], (), "", 0, -0.0, 1e16, 1.5e-05, 0.1 + 0.2, 2**70, -(2**63), True, False, None,
    "naïve \u2028 \"quoted\" \\ \t\n\x00 \x1f 😀", {"z": 1, "a": {"m": [], "b": {}}},
    [[], [[]], {"": ""}], {"k": (1, 2)}, {"é": 1, "e": 2, "E": 3, "ä": [None]},
    {1: "int key"}, {None: 1, "a": 2}, {True: "bool key"}, {2.5: "float key"},
    float("nan"), {"x": float("inf")}, [-math.inf], Level.LOW, {"c": Colour.RED},
    {"nested": [{"deep": [1, 2.25, "three", [True, None]]}]},
]


@pytest.mark.parametrize("value", AWKWARD, ids=range(len(AWKWARD)))
def test_awkward_values_are_spelt_as_json_dumps_does(value: object) -> None:
    try:
        expected = _reference(value)
    except TypeError:  # keys json cannot sort: canonical refuses them the same way
        with pytest.raises(TypeError):
            canonical(value)
        return
    assert canonical(value) == expected


def _random_value(rng: random.Random, depth: int = 0) -> object:
    kinds = ["str", "int", "float", "bool", "none"]
    if depth < 4:
        kinds += ["list", "dict", "dict"]
    kind = rng.choice(kinds)
    if kind == "str":
        return "".join(rng.choice("ab \"\\\n\té😀\x01") for _ in range(rng.randint(0, 6)))
    if kind == "int":
        return rng.randint(-(10**20), 10**20)
    if kind == "float":
        return rng.choice([rng.uniform(-1e6, 1e6), rng.random() * 10 ** rng.randint(-12, 20)])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "none":
        return None
    if kind == "list":
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {_random_value(rng, 9) if rng.random() < 0.05 else str(rng.randint(0, 50)):
            _random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def test_random_documents_are_spelt_as_json_dumps_does() -> None:
    rng = random.Random(2026)
    for _ in range(2000):
        value = _random_value(rng)
        try:
            expected = _reference(value)
        except TypeError:  # a key json refuses: canonical refuses it the same way
            with pytest.raises(TypeError):
                canonical(value)
            continue
        assert canonical(value) == expected


def test_what_json_refuses_canonical_refuses() -> None:
    with pytest.raises(TypeError):
        canonical({"x": object()})
