"""One planning call with the writing loop's stage retries and its cost (`priced_call`), the one definition for
every call outside the chapter loop: PlotArchitect and its contract batches (`plan_volume`, `plan_characters`),
the volume review, and, as the `Invoke` that `pipeline.structured.run_structured` takes (`priced_invoke`), the
quick start's agents (WorldBuilder, CharacterWeaver, StyleAnalyzer) and the import's extraction. The request is
sent with `stage` set (the spend ledger books it under that stage). The provider
`pipeline.providers.factory.build_provider` builds books every call in the spend ledger; the `CallRecord`s
returned here are what the callers add up and report."""

from __future__ import annotations

import time
from collections.abc import Awaitable
from dataclasses import replace

from pipeline.agents.protocol import CallRecord
from pipeline.agents.runner import request_text
from pipeline.providers.base import ModelRequest, ModelResult, Provider, ProviderError
from pipeline.providers.cost import cost_usd, price_for, settings_prices
from pipeline.providers.retry import RetryHook, run_with_stage_retry
from pipeline.structured import Invoke
from pipeline.tokens import estimate_tokens
from studio.models.settings import Settings

__all__ = ["RetryHook", "priced_call", "priced_invoke"]



async def priced_call(
    provider: Provider, settings: Settings, request: ModelRequest, stage: str, on_retry: RetryHook | None = None
) -> tuple[ModelResult, CallRecord]:
    """Run `request` as `stage` with the stage retries of the writing loop; the result and its call record (cost
    at the configured prices, estimated prompt tokens, offline or not)."""
    sent = replace(request, stage=stage)
    started = time.monotonic()

    def retried(n: int, error: ProviderError) -> None:
        if on_retry is not None:
            on_retry(stage, n, error)

    def call() -> Awaitable[ModelResult]:
        return provider.run(sent)

    result = await run_with_stage_retry(
        call, retries=settings.provider.stage_retries, wait_s=settings.provider.stage_retry_wait_s, on_retry=retried
    )
    record = CallRecord(
        stage=stage,
        model=result.model,
        duration_ms=result.duration_ms or int((time.monotonic() - started) * 1000),
        usage=result.usage,
        cost_usd=cost_usd(result.usage, price_for(result.model, settings_prices(settings))) if result.usage else None,
        prompt_id=request.prompt_id,
        prompt_version=request.prompt_version,
        estimated_prompt_tokens=estimate_tokens(request_text(request)),
        offline=bool(getattr(provider, "offline", False)),
    )
    return result, record


def priced_invoke(provider: Provider, settings: Settings, on_retry: RetryHook | None = None) -> Invoke:
    """`priced_call` as the `Invoke` of `pipeline.structured.run_structured`."""

    async def invoke(request: ModelRequest, stage: str) -> tuple[ModelResult, CallRecord]:
        return await priced_call(provider, settings, request, stage, on_retry)

    return invoke
