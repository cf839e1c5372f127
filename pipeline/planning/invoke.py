"""One planning call with the writing loop's stage retries and its cost: the `Invoke` that
`pipeline.structured.run_structured` takes, for the quick start's agents (WorldBuilder, CharacterWeaver,
StyleAnalyzer). The provider `pipeline.providers.factory.build_provider` builds books every call in the spend
ledger; the `CallRecord`s returned here are what the quick start adds up and reports."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from pipeline.agents.protocol import CallRecord
from pipeline.agents.runner import request_text
from pipeline.providers.base import ModelRequest, ModelResult, Provider, ProviderError
from pipeline.providers.cost import cost_usd, price_for, settings_prices
from pipeline.providers.retry import run_with_stage_retry
from pipeline.structured import Invoke
from pipeline.tokens import estimate_tokens
from studio.models.settings import Settings

__all__ = ["RetryHook", "priced_invoke"]

RetryHook = Callable[[str, int, ProviderError], None]


def priced_invoke(provider: Provider, settings: Settings, on_retry: RetryHook | None = None) -> Invoke:
    prices = settings_prices(settings)

    async def invoke(request: ModelRequest, stage: str) -> tuple[ModelResult, CallRecord]:
        sent = replace(request, stage=stage)
        started = time.monotonic()

        def retried(n: int, error: ProviderError) -> None:
            if on_retry is not None:
                on_retry(stage, n, error)

        def call() -> Awaitable[ModelResult]:
            return provider.run(sent)

        result = await run_with_stage_retry(
            call, retries=settings.provider.stage_retries, wait_s=settings.provider.stage_retry_wait_s,
            on_retry=retried,
        )
        record = CallRecord(
            stage=stage,
            model=result.model,
            duration_ms=result.duration_ms or int((time.monotonic() - started) * 1000),
            usage=result.usage,
            cost_usd=cost_usd(result.usage, price_for(result.model, prices)) if result.usage else None,
            prompt_id=request.prompt_id,
            prompt_version=request.prompt_version,
            estimated_prompt_tokens=estimate_tokens(request_text(request)),
            offline=bool(getattr(provider, "offline", False)),
        )
        return result, record

    return invoke

