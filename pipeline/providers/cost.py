"""List prices and the cost of one reply."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pipeline.providers.base import Usage
from studio.models.settings import Settings

CACHE_WRITE_FACTOR = 1.25  # 5-minute cache writes cost 1.25x input
CACHE_READ_FACTOR = 0.1


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float

    @classmethod
    def from_list(cls, input: float, output: float) -> Price:  # noqa: A002 - mirrors the field name
        """A price with the standard cache factors applied to the input price."""
        return cls(input, output, input * CACHE_WRITE_FACTOR, input * CACHE_READ_FACTOR)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Price:
        """From settings: `input` and `output` required, cache prices derived when absent."""
        base = cls.from_list(float(data["input"]), float(data["output"]))
        return cls(
            base.input,
            base.output,
            float(data.get("cache_write", base.cache_write)),
            float(data.get("cache_read", base.cache_read)),
        )


DEFAULT_PRICES: dict[str, Price] = {
    "claude-opus-5-5": Price.from_list(4.0, 20.0),
    "claude-sonnet-5-5": Price.from_list(2.0, 10.0),
    "claude-haiku-5-5": Price.from_list(0.10, 0.50),
}


def price_table(overrides: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Price]:
    """The default prices with the settings' `model -> {input, output[, cache_write, cache_read]}` on top."""
    table = dict(DEFAULT_PRICES)
    for model, data in (overrides or {}).items():
        table[model] = Price.from_dict(data)
    return table


def settings_prices(settings: Settings) -> dict[str, Price]:
    """The price table of the effective settings (`[prices]` over the defaults)."""
    overrides = {
        model: {k: v for k, v in price.model_dump().items() if v is not None}
        for model, price in settings.prices.items()
    }
    return price_table(overrides)


def price_for(model: str, table: Mapping[str, Price] | None = None) -> Price | None:
    """The price of a model id; a dated id such as `claude-sonnet-5-5-20261001` falls back to its base."""
    prices = DEFAULT_PRICES if table is None else table
    if model in prices:
        return prices[model]
    matches = [name for name in prices if model.startswith(name + "-")]
    return prices[max(matches, key=len)] if matches else None


def cost_usd(usage: Usage, price: Price | None) -> float | None:
    """What a reply cost in USD (unknown token counts as 0), or None when the price is unknown."""
    if price is None:
        return None
    per_token = 1_000_000
    return (
        (usage.input_tokens or 0) * price.input
        + (usage.output_tokens or 0) * price.output
        + (usage.cache_creation_input_tokens or 0) * price.cache_write
        + (usage.cache_read_input_tokens or 0) * price.cache_read
    ) / per_token
