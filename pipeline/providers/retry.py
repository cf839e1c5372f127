"""Stage-level retry around a whole model call (spec 10.3: wait 30 s, at most 2 retries).

The SDK already retries HTTP 408/409/429/5xx and connection errors inside one call; this layer covers what
it cannot: a stream that broke off after it started, a stalled stream, an empty reply, and a rate limit or
overload that outlasted the SDK's own retries. Anything else propagates at once, and so does cancellation,
including during the wait. The wait is `wait_s`, or longer when the server asked for more (`retry-after`):
`stage_wait_s` says how long, so whoever is told of a retry can say what it waits for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from pipeline.providers.base import ProviderError

T = TypeVar("T")

# Who is told of a stage retry above one call: (stage, attempt from 1, the error), the one shape every caller of
# `run_with_stage_retry` passes up (the agents, the planning calls, `continue`'s printer, the studio's runner).
RetryHook = Callable[[str, int, ProviderError], None]

DEFAULT_STAGE_RETRIES = 2
DEFAULT_STAGE_WAIT_S = 30.0


def stage_wait_s(error: ProviderError, wait_s: float) -> float:
    """How long the stage waits after `error`: `wait_s`, or the server's `retry-after` when longer."""
    return max(wait_s, error.retry_after_s or 0.0)


async def run_with_stage_retry(
    call: Callable[[], Awaitable[T]],
    *,
    retries: int = DEFAULT_STAGE_RETRIES,
    wait_s: float = DEFAULT_STAGE_WAIT_S,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    on_retry: Callable[[int, ProviderError], None] | None = None,
) -> T:
    """Await `call()`; on a retryable ProviderError wait `wait_s` and try again, at most `retries` times.

    `on_retry(attempt, error)` is told before each wait (attempt counts from 1). The last error is re-raised
    when the retries are used up, so the caller can pause the run for the author.
    """
    attempt = 0
    while True:
        try:
            return await call()
        except ProviderError as error:
            if not error.retryable or attempt >= retries:
                raise
            attempt += 1
            if on_retry is not None:
                on_retry(attempt, error)
            await sleep(stage_wait_s(error, wait_s))
