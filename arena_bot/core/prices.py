"""The model price table shipped as ``arena_bot/data/prices.yaml``."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from arena_bot.core.yamlio import load_yaml, parse_yaml, validate_model
from arena_bot.models.common import StrictModel

Price = Annotated[float, Field(ge=0, le=1000, allow_inf_nan=False)]


class ModelPrice(StrictModel):
    """US dollars per million tokens."""

    input: Price
    cached_input: Price
    #: Writing a prompt to the cache; ``None``: charged as ordinary input.
    cache_write: Price | None = None
    output: Price
    aliases: list[str] = Field(default_factory=list)


class PriceTableFile(StrictModel):
    schema_version: Literal[1] = 1
    #: Dated version of the prices, quoted wherever a cost computed from them is shown.
    version: str = "unversioned"
    models: dict[str, ModelPrice]

    @model_validator(mode="after")
    def _unique_names(self) -> PriceTableFile:
        seen: dict[str, str] = {}
        for name, price in self.models.items():
            for spelling in (name, *price.aliases):
                key = normalize_model_name(spelling)
                if key in seen and seen[key] != name:
                    raise ValueError(f"{spelling!r} names both {seen[key]!r} and {name!r}")
                seen[key] = name
        return self


_DATE_SUFFIX = re.compile(r"(?:[-@](?:\d{8}|\d{4}-\d{2}-\d{2})|-latest)$")


def normalize_model_name(name: str) -> str:
    """Lower case, without a ``provider/`` prefix or a date / ``-latest`` suffix."""
    name = name.strip().lower().rsplit("/", 1)[-1]
    return _DATE_SUFFIX.sub("", name)


@dataclass(frozen=True)
class PriceTable:
    """Model name (any listed spelling) → price."""

    by_name: dict[str, tuple[str, ModelPrice]]
    version: str = "unversioned"

    def digest(self) -> str:
        """SHA-256 of the table's content (part of every cached score's key)."""
        rows = sorted((name, entry[0], entry[1].model_dump_json()) for name, entry in
                      self.by_name.items())
        return hashlib.sha256(json.dumps(rows).encode()).hexdigest()

    def lookup(self, model: str) -> tuple[str, ModelPrice] | None:
        """The canonical name and price of ``model``, or ``None`` when it is not listed."""
        return self.by_name.get(normalize_model_name(model))


def _table(spec: PriceTableFile) -> PriceTable:
    by_name: dict[str, tuple[str, ModelPrice]] = {}
    for name, price in spec.models.items():
        for spelling in (name, *price.aliases):
            by_name[normalize_model_name(spelling)] = (name, price)
    return PriceTable(by_name=by_name, version=spec.version)


def token_cost(
    *, price: ModelPrice, uncached: int, cache_read: int, cache_write: int, output: int
) -> float:
    """US dollars for one model's tokens, each kind at its own rate.

    Cached reads are priced separately because ignoring them overstates (or, when counted as
    free, understates) published costs several times over on long agent sessions.
    """
    write_rate = price.input if price.cache_write is None else price.cache_write
    return (
        uncached * price.input
        + cache_read * price.cached_input
        + cache_write * write_rate
        + output * price.output
    ) / 1_000_000


def load_price_table(path: Path | None = None) -> PriceTable:
    """The shipped table, or the one at ``path``. Errors name the file and line."""
    if path is not None:
        return _table(validate_model(PriceTableFile, load_yaml(path)))
    shipped = resources.files("arena_bot") / "data" / "prices.yaml"
    text = shipped.read_text(encoding="utf-8")
    loaded = parse_yaml(text, path=Path("arena_bot/data/prices.yaml"))
    return _table(validate_model(PriceTableFile, loaded))
