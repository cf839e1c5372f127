"""`pipeline.planning.invoke.priced_call`: the one planning call (plan, contracts, volume review, quick start,
extraction) with the stage retries, sent under its stage, priced in its call record."""

from __future__ import annotations

import asyncio

from pipeline.agents.protocol import CallRecord
from pipeline.planning.invoke import priced_call, priced_invoke
from pipeline.providers.base import (
    ModelRequest,
    ModelResult,
    OverloadedError,
    ProviderError,
    SystemBlock,
    TextCallback,
    Usage,
)
from studio.models.settings import SONNET, Settings


class _Flaky:
    """Overloaded once, then answers; records what it was sent."""

    name = "flaky"
    offline = False

    def __init__(self) -> None:
        self.sent: list[ModelRequest] = []

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        self.sent.append(request)
        if len(self.sent) == 1:
            raise OverloadedError("busy")
        usage = Usage(input_tokens=1_000_000, output_tokens=100_000)
        return ModelResult(text="好", stop_reason="end_turn", usage=usage, model=SONNET, duration_ms=5, ttft_ms=1)


def _request() -> ModelRequest:
    return ModelRequest(agent="plot_architect", model=SONNET, system=[SystemBlock("规则")],
                        messages=[{"role": "user", "content": "规划"}], max_tokens=100, prompt_id="plot-architect",
                        prompt_version="1")


def test_the_call_retries_sends_its_stage_and_prices_the_record() -> None:
    settings = Settings.model_validate({"provider": {"stage_retry_wait_s": 0}})
    provider, told = _Flaky(), []

    def on_retry(stage: str, attempt: int, error: ProviderError) -> None:
        told.append((stage, attempt, error.kind))

    result, record = asyncio.run(priced_call(provider, settings, _request(), "plan", on_retry))
    assert result.text == "好" and told == [("plan", 1, "overloaded")]
    assert [r.stage for r in provider.sent] == ["plan", "plan"]
    assert (record.stage, record.model, record.prompt_id, record.duration_ms) == ("plan", SONNET, "plot-architect", 5)
    assert record.cost_usd == 3.0  # 1M input at 2 + 0.1M output at 10 (USD per million)
    assert record.estimated_prompt_tokens and not record.offline


def test_priced_invoke_is_the_same_call_as_an_invoke() -> None:
    settings = Settings.model_validate({"provider": {"stage_retry_wait_s": 0}})
    provider = _Flaky()
    invoke = priced_invoke(provider, settings)

    async def once() -> CallRecord:
        return (await invoke(_request(), "world"))[1]

    record = asyncio.run(once())
    assert record.stage == "world" and [r.stage for r in provider.sent] == ["world", "world"]
