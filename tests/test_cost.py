"""Prices and cost of a reply."""

from __future__ import annotations

import pytest

from pipeline.providers.base import Usage
from pipeline.providers.cost import DEFAULT_PRICES, Price, cost_usd, price_for, price_table
from pipeline.providers.presets import PRESETS, preset_base_url


def test_default_prices() -> None:
    sonnet = DEFAULT_PRICES["claude-sonnet-5-5"]
    assert (sonnet.input, sonnet.output) == (2.0, 10.0)
    assert sonnet.cache_write == pytest.approx(2.5) and sonnet.cache_read == pytest.approx(0.2)
    assert DEFAULT_PRICES["claude-opus-5-5"].output == 20.0
    assert DEFAULT_PRICES["claude-haiku-5-5"].input == pytest.approx(0.10)


def test_cost_counts_every_kind_of_token() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, cache_creation_input_tokens=200_000,
                  cache_read_input_tokens=500_000)
    # 2.0 + 1.0 + 0.5 + 0.1
    assert cost_usd(usage, DEFAULT_PRICES["claude-sonnet-5-5"]) == pytest.approx(3.6)


def test_unknown_counts_are_zero_and_unknown_price_is_none() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=None)
    assert cost_usd(usage, DEFAULT_PRICES["claude-opus-5-5"]) == pytest.approx(4.0)
    assert cost_usd(usage, None) is None
    assert cost_usd(Usage(), DEFAULT_PRICES["claude-opus-5-5"]) == 0.0


def test_price_lookup_and_overrides() -> None:
    assert price_for("claude-sonnet-5-5-20261001") == DEFAULT_PRICES["claude-sonnet-5-5"]
    assert price_for("deepseek-chat") is None
    table = price_table({"deepseek-chat": {"input": 0.28, "output": 0.42},
                         "claude-haiku-5-5": {"input": 0.2, "output": 1.0, "cache_read": 0.01}})
    deepseek = price_for("deepseek-chat", table)
    assert deepseek == Price(0.28, 0.42, pytest.approx(0.35), pytest.approx(0.028))  # type: ignore[arg-type]
    haiku = table["claude-haiku-5-5"]
    assert haiku.cache_read == 0.01 and haiku.cache_write == pytest.approx(0.25)
    assert "claude-haiku-5-5" in DEFAULT_PRICES and DEFAULT_PRICES["claude-haiku-5-5"].input == 0.10


def test_usage_helpers() -> None:
    assert Usage(input_tokens=10, cache_read_input_tokens=30, cache_creation_input_tokens=60).cached_share() == 0.3
    assert Usage(input_tokens=10).cached_share() is None
    assert Usage(input_tokens=0, cache_read_input_tokens=0).cached_share() is None
    assert Usage(input_tokens=5, cache_read_input_tokens=None, cache_creation_input_tokens=2).total_in() == 7


def test_presets() -> None:
    assert PRESETS["anthropic"].base_url is None
    assert preset_base_url("deepseek") == "https://api.deepseek.com/anthropic"
    assert preset_base_url("local") == "http://localhost:11434"
    assert set(PRESETS) == {"anthropic", "deepseek", "moonshot", "zhipu", "qwen", "minimax", "local", "offline"}
    with pytest.raises(KeyError, match="known"):
        preset_base_url("nope")
