"""run_with_stage_retry with a fake sleep: no real waiting."""

from __future__ import annotations

import asyncio

import pytest

from pipeline.providers.base import (
    BadRequestError,
    ProviderError,
    ProviderTimeoutError,
    StreamInterruptedError,
    TruncatedReplyError,
)
from pipeline.providers.retry import run_with_stage_retry


class Script:
    """A call that fails with the given errors in turn, then returns 'ok'."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


class FakeSleep:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


async def test_success_needs_no_retry() -> None:
    call, sleep = Script(), FakeSleep()
    assert await run_with_stage_retry(call, sleep=sleep) == "ok"
    assert call.calls == 1 and sleep.waits == []


async def test_retryable_errors_are_retried_after_the_wait() -> None:
    call, sleep = Script(StreamInterruptedError("cut"), ProviderTimeoutError("slow")), FakeSleep()
    seen: list[tuple[int, str]] = []
    result = await run_with_stage_retry(call, sleep=sleep, on_retry=lambda n, e: seen.append((n, e.kind)))
    assert result == "ok"
    assert call.calls == 3
    assert sleep.waits == [30.0, 30.0]
    assert seen == [(1, "stream_interrupted"), (2, "timeout")]


async def test_gives_up_after_the_retries_and_reraises_the_last_error() -> None:
    last = ProviderTimeoutError("third")
    call, sleep = Script(ProviderTimeoutError("1"), ProviderTimeoutError("2"), last), FakeSleep()
    with pytest.raises(ProviderTimeoutError) as info:
        await run_with_stage_retry(call, retries=2, wait_s=5, sleep=sleep)
    assert info.value is last
    assert call.calls == 3 and sleep.waits == [5, 5]


@pytest.mark.parametrize(
    "error",
    [BadRequestError("bad"), TruncatedReplyError("long", partial_text="x"), ProviderError("generic")],
)
async def test_non_retryable_errors_propagate_at_once(error: ProviderError) -> None:
    call, sleep = Script(error), FakeSleep()
    with pytest.raises(type(error)):
        await run_with_stage_retry(call, sleep=sleep)
    assert call.calls == 1 and sleep.waits == []


async def test_other_exceptions_propagate_at_once() -> None:
    call, sleep = Script(ValueError("bug")), FakeSleep()
    with pytest.raises(ValueError):
        await run_with_stage_retry(call, sleep=sleep)
    assert call.calls == 1


async def test_retryable_can_be_overridden_per_error() -> None:
    call, sleep = Script(StreamInterruptedError("cut")), FakeSleep()
    call.errors[0].retryable = False  # type: ignore[attr-defined]
    with pytest.raises(StreamInterruptedError):
        await run_with_stage_retry(call, sleep=sleep)
    assert ProviderError("x", retryable=True).retryable


async def test_zero_retries() -> None:
    call, sleep = Script(ProviderTimeoutError("slow")), FakeSleep()
    with pytest.raises(ProviderTimeoutError):
        await run_with_stage_retry(call, retries=0, sleep=sleep)
    assert call.calls == 1


async def test_cancellation_propagates_from_the_call() -> None:
    call = Script(asyncio.CancelledError())
    with pytest.raises(asyncio.CancelledError):
        await run_with_stage_retry(call, sleep=FakeSleep())
    assert call.calls == 1


async def test_cancellation_during_the_wait_propagates() -> None:
    call = Script(ProviderTimeoutError("slow"))
    waiting = asyncio.Event()

    async def slow_sleep(seconds: float) -> None:
        waiting.set()
        await asyncio.sleep(3600)

    task = asyncio.create_task(run_with_stage_retry(call, sleep=slow_sleep))
    await asyncio.wait_for(waiting.wait(), 1.0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert call.calls == 1
