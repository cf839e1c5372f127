"""Replies a careful provider must not take at face value (issue 11 items 10 and 12), against the fake API."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from pipeline.providers.anthropic_provider import AnthropicProvider, ProviderConfig, plain_reply_from_json
from pipeline.providers.base import (
    ModelRequest,
    ProviderError,
    SystemBlock,
    UnexpectedReplyError,
    UnfinishedReplyError,
    UserBlock,
    user_message,
)
from pipeline.providers.retry import run_with_stage_retry
from tests.fakeapi import FakeMessagesAPI, Reply

KEY = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _no_env_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "no_proxy", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
async def provider_api() -> AsyncIterator[tuple[AnthropicProvider, FakeMessagesAPI]]:
    with FakeMessagesAPI() as api:
        provider = AnthropicProvider(
            ProviderConfig(base_url=api.base_url, env={"ANTHROPIC_API_KEY": KEY}, max_retries=0)
        )
        yield provider, api
        await provider.aclose()


def request() -> ModelRequest:
    return ModelRequest(
        agent="chapter_writer",
        model="claude-sonnet-5-5",
        system=[SystemBlock("你是网文作者。")],
        messages=[user_message([UserBlock("写第一章。")])],
        max_tokens=1000,
    )


async def test_plain_json_reply_to_a_streaming_request_is_read(
    provider_api: tuple[AnthropicProvider, FakeMessagesAPI],
) -> None:
    provider, api = provider_api
    usage = {"input_tokens": 11, "output_tokens": 7}
    api.script(Reply("林凡睁开了眼睛。", usage=usage, json_for_stream=True))
    seen: list[str] = []
    result = await provider.run(request(), on_text=seen.append)
    assert api.requests[0].body["stream"] is True
    assert result.text == "林凡睁开了眼睛。" and seen == ["林凡睁开了眼睛。"]
    assert result.usage.input_tokens == 11 and result.usage.output_tokens == 7
    assert result.stop_reason == "end_turn"


async def test_plain_json_error_to_a_streaming_request_is_classified(
    provider_api: tuple[AnthropicProvider, FakeMessagesAPI],
) -> None:
    provider, api = provider_api
    body = {"type": "error", "error": {"type": "api_error", "message": "upstream exploded"}}
    api.script(Reply(json_body=body, json_for_stream=True), Reply("好的，第二次成功。"))
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    # classified and retryable: the stage retry takes it (no bare AssertionError from the SDK)
    result = await run_with_stage_retry(lambda: provider.run(request()), wait_s=1.0, sleep=sleep)
    assert result.text == "好的，第二次成功。" and waits == [1.0]


async def test_plain_json_that_is_not_a_message_is_a_provider_error(
    provider_api: tuple[AnthropicProvider, FakeMessagesAPI],
) -> None:
    provider, api = provider_api
    api.script(Reply(json_body={"choices": [{"message": {"content": "hi"}}]}, json_for_stream=True))
    with pytest.raises(UnexpectedReplyError) as info:
        await provider.run(request())
    assert isinstance(info.value, ProviderError) and info.value.retryable


def test_a_body_that_is_not_json_names_what_came() -> None:
    with pytest.raises(UnexpectedReplyError, match="<html>"):
        plain_reply_from_json(b"<html>Bad gateway</html>", where="proxy", request_id=None)


async def test_pause_turn_is_not_a_finished_reply(provider_api: tuple[AnthropicProvider, FakeMessagesAPI]) -> None:
    provider, api = provider_api
    api.script(Reply("写到一半", stop_reason="pause_turn"))
    with pytest.raises(UnfinishedReplyError) as info:
        await provider.run(request())
    assert info.value.partial_text == "写到一半"
