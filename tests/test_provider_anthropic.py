"""AnthropicProvider against the loopback fake Messages API: no network, no real key."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from pipeline.providers.anthropic_provider import AnthropicProvider, ProviderConfig, build_params
from pipeline.providers.base import (
    AuthError,
    BadRequestError,
    ContentModerationError,
    EmptyReplyError,
    MissingApiKeyError,
    ModelRequest,
    OverloadedError,
    ProviderTimeoutError,
    RateLimitedError,
    RefusalError,
    StreamInterruptedError,
    SystemBlock,
    TruncatedReplyError,
    UserBlock,
    user_message,
)
from pipeline.providers.retry import run_with_stage_retry
from tests.fakeapi import FakeMessagesAPI, Reply

KEY = "sk-test-0123456789abcdef"
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy",
              "no_proxy", "ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS")


@pytest.fixture(autouse=True)
def _no_env_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)


_OPEN: list[AnthropicProvider] = []


@pytest.fixture
async def api() -> AsyncIterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as server:
        yield server
        while _OPEN:
            await _OPEN.pop().aclose()


def make_provider(api: FakeMessagesAPI, **overrides: object) -> AnthropicProvider:
    options: dict[str, object] = {"base_url": api.base_url, "env": {"ANTHROPIC_API_KEY": KEY}, "max_retries": 2}
    options.update(overrides)
    provider = AnthropicProvider(ProviderConfig(**options))  # type: ignore[arg-type]
    _OPEN.append(provider)  # closed by the `api` fixture
    return provider


def make_request(text: str = "写第一章。", **overrides: object) -> ModelRequest:
    options: dict[str, object] = {
        "agent": "chapter_writer",
        "model": "claude-sonnet-5-5",
        "system": [SystemBlock("你是网文作者。", cache=True)],
        "messages": [user_message([UserBlock(text)])],
        "max_tokens": 1000,
    }
    options.update(overrides)
    return ModelRequest(**options)  # type: ignore[arg-type]


async def test_stream_delivers_deltas_in_order_with_usage(api: FakeMessagesAPI) -> None:
    usage = {"input_tokens": 120, "output_tokens": 9, "cache_creation_input_tokens": 30,
             "cache_read_input_tokens": 50}
    api.script(Reply("林凡睁开了眼睛。", chunk_size=2, usage=usage))
    seen: list[str] = []
    provider = make_provider(api)
    result = await provider.run(make_request(), on_text=seen.append)
    assert seen == ["林凡", "睁开", "了眼", "睛。"]
    assert result.text == "林凡睁开了眼睛。"
    assert result.stop_reason == "end_turn"
    assert result.usage.input_tokens == 120 and result.usage.output_tokens == 9
    assert result.usage.cache_read_input_tokens == 50
    assert result.usage.cached_share() == pytest.approx(50 / 200)
    assert result.ttft_ms is not None and result.ttft_ms <= result.duration_ms
    assert result.request_id == "req_fake_1"
    assert result.model == "claude-sonnet-5-5"
    body = api.requests[0].body
    assert body["stream"] is True
    assert "temperature" not in body and "top_p" not in body and "output_config" not in body
    await provider.aclose()


async def test_async_callback_is_awaited(api: FakeMessagesAPI) -> None:
    api.script(Reply("abcdef", chunks=3))
    seen: list[str] = []

    async def on_text(delta: str) -> None:
        await asyncio.sleep(0)
        seen.append(delta)

    result = await make_provider(api).run(make_request(), on_text=on_text)
    assert seen == ["ab", "cd", "ef"] and result.text == "abcdef"


async def test_cache_control_placement_and_at_most_four(api: FakeMessagesAPI) -> None:
    api.script(Reply("ok"))
    request = make_request(
        system=[SystemBlock("s1", cache=True), SystemBlock("s2"), SystemBlock("s3", cache=True)],
        messages=[user_message([UserBlock("u1", cache=True), "u2", UserBlock("u3", cache=True),
                                UserBlock("u4", cache=True), UserBlock("u5")])],
    )
    await make_provider(api).run(request)
    body = api.requests[0].body
    system_marks = [b["text"] for b in body["system"] if "cache_control" in b]
    user_marks = [b["text"] for b in body["messages"][0]["content"] if "cache_control" in b]
    # five marks requested: the earliest (s1) is dropped
    assert system_marks == ["s3"]
    assert user_marks == ["u1", "u3", "u4"]
    assert body["system"][1] == {"type": "text", "text": "s2"}
    assert body["messages"][0]["content"][-1] == {"type": "text", "text": "u5"}
    assert all(b["cache_control"] == {"type": "ephemeral"} for b in body["messages"][0]["content"]
               if "cache_control" in b)
    # the request itself is left untouched
    assert "cache_control" in request.messages[0]["content"][0]


def test_build_params_keeps_caller_messages() -> None:
    request = make_request(system=[SystemBlock(str(i), cache=True) for i in range(6)])
    params = build_params(request)
    assert [b.get("cache_control") is not None for b in params["system"]] == [False, False, True, True, True, True]


async def test_headers_carry_key_both_ways(api: FakeMessagesAPI) -> None:
    api.script(Reply("ok"))
    await make_provider(api).run(make_request())
    headers = api.requests[0].headers
    assert headers["x-api-key"] == KEY
    assert headers["authorization"] == f"Bearer {KEY}"


async def test_missing_key_says_how_to_set_it(api: FakeMessagesAPI) -> None:
    provider = make_provider(api, env={}, api_key_env="DEEPSEEK_API_KEY")
    with pytest.raises(MissingApiKeyError) as info:
        await provider.run(make_request())
    assert "export DEEPSEEK_API_KEY=" in str(info.value)
    assert info.value.kind == "missing_api_key" and not info.value.retryable
    assert api.request_count == 0


async def test_401_names_the_env_var_and_never_the_key(api: FakeMessagesAPI) -> None:
    api.script(Reply.error(401, "authentication_error", f"invalid x-api-key {KEY}"))
    with pytest.raises(AuthError) as info:
        await make_provider(api).run(make_request())
    message = str(info.value)
    assert "ANTHROPIC_API_KEY" in message and "export ANTHROPIC_API_KEY=" in message
    assert KEY not in message
    assert info.value.status_code == 401 and not info.value.retryable
    assert api.request_count == 1  # 401 is not retried


async def test_429_with_retry_after_is_retried_by_the_sdk(api: FakeMessagesAPI) -> None:
    api.script(Reply.rate_limited(0.1), Reply("第二次成功"))
    started = time.monotonic()
    result = await make_provider(api).run(make_request())
    assert result.text == "第二次成功"
    assert api.request_count == 2
    assert time.monotonic() - started >= 0.1
    assert api.requests[1].headers["x-stainless-retry-count"] == "1"


@pytest.mark.parametrize("failure", [Reply.server_error(), Reply.overloaded()], ids=["500", "529"])
async def test_5xx_then_success(api: FakeMessagesAPI, failure: Reply) -> None:
    api.script(failure, Reply("ok"))
    result = await make_provider(api).run(make_request())
    assert result.text == "ok" and api.request_count == 2


async def test_529_forever_is_overloaded_after_sdk_retries(api: FakeMessagesAPI) -> None:
    api.script(Reply.overloaded(), Reply.overloaded(), Reply.overloaded())
    with pytest.raises(OverloadedError) as info:
        await make_provider(api, max_retries=1).run(make_request())
    assert api.request_count == 2
    assert info.value.retryable and info.value.kind == "overloaded"


async def test_429_forever_is_rate_limited(api: FakeMessagesAPI) -> None:
    api.script(Reply.rate_limited(), Reply.rate_limited())
    with pytest.raises(RateLimitedError) as info:
        await make_provider(api, max_retries=1).run(make_request())
    assert info.value.retryable


async def test_error_event_mid_stream_then_stage_retry_succeeds(api: FakeMessagesAPI) -> None:
    api.script(Reply("前半段后半段", chunk_size=3, error_event_after_chunks=1))
    provider = make_provider(api)
    with pytest.raises(StreamInterruptedError) as info:
        await provider.run(make_request())
    assert info.value.retryable and info.value.partial_text == "前半段"
    assert "overloaded_error" in str(info.value)
    assert api.request_count == 1  # the SDK does not retry a started stream

    api.script(Reply("前半段后半段", chunk_size=3, error_event_after_chunks=1), Reply("完整回复"))
    retries: list[int] = []

    async def no_wait(_: float) -> None:
        return None

    result = await run_with_stage_retry(lambda: provider.run(make_request()), sleep=no_wait,
                                        on_retry=lambda n, e: retries.append(n))
    assert result.text == "完整回复" and retries == [1]


async def test_connection_cut_mid_stream(api: FakeMessagesAPI) -> None:
    api.script(Reply("一二三四五六", chunk_size=2, cut_connection_after_chunks=2))
    seen: list[str] = []
    with pytest.raises(StreamInterruptedError) as info:
        await make_provider(api).run(make_request(), on_text=seen.append)
    assert seen == ["一二", "三四"]
    assert info.value.partial_text == "一二三四" and info.value.retryable


async def test_slow_first_byte_times_out(api: FakeMessagesAPI) -> None:
    api.script(Reply("太慢了", first_byte_delay_s=3.0))
    provider = make_provider(api, timeout_s=0.5, max_retries=0)
    started = time.monotonic()
    with pytest.raises(ProviderTimeoutError) as info:
        await provider.run(make_request())
    assert time.monotonic() - started < 2.0
    assert info.value.retryable and info.value.kind == "timeout"


async def test_request_timeout_overrides_config(api: FakeMessagesAPI) -> None:
    api.script(Reply("太慢了", first_byte_delay_s=3.0))
    provider = make_provider(api, timeout_s=600, max_retries=0)
    with pytest.raises(ProviderTimeoutError):
        await provider.run(make_request(timeout_s=0.3))


async def test_stall_mid_stream_times_out(api: FakeMessagesAPI) -> None:
    api.script(Reply("一二三四", chunk_size=2, delay_between_chunks_s=3.0))
    provider = make_provider(api, read_timeout_s=0.4, max_retries=0)
    with pytest.raises(ProviderTimeoutError):
        await provider.run(make_request())


async def test_max_tokens_is_truncated_with_partial_text(api: FakeMessagesAPI) -> None:
    api.script(Reply("很长很长的回复", stop_reason="max_tokens"))
    with pytest.raises(TruncatedReplyError) as info:
        await make_provider(api).run(make_request())
    assert info.value.partial_text == "很长很长的回复"
    assert not info.value.retryable and info.value.usage is not None


async def test_refusal(api: FakeMessagesAPI) -> None:
    api.script(Reply("", stop_reason="refusal"))
    with pytest.raises(RefusalError) as info:
        await make_provider(api).run(make_request())
    assert info.value.kind == "refusal" and not info.value.retryable


@pytest.mark.parametrize(
    ("error_type", "message"),
    [
        ("invalid_request_error", "Content Exists Risk: sensitive words detected"),
        ("data_inspection_failed", "Input data may contain inappropriate content."),
        ("invalid_request_error", "输入内容包含敏感信息"),
    ],
)
async def test_moderation_400(api: FakeMessagesAPI, error_type: str, message: str) -> None:
    api.script(Reply.error(400, error_type, message))
    with pytest.raises(ContentModerationError) as info:
        await make_provider(api).run(make_request())
    assert info.value.kind == "moderation" and not info.value.retryable


async def test_other_400_is_bad_request(api: FakeMessagesAPI) -> None:
    api.script(Reply.error(400, "invalid_request_error", "max_tokens: must be at most 128000"))
    with pytest.raises(BadRequestError) as info:
        await make_provider(api).run(make_request())
    assert "max_tokens" in str(info.value) and not info.value.retryable
    assert api.request_count == 1


async def test_empty_reply(api: FakeMessagesAPI) -> None:
    api.script(Reply(""))
    with pytest.raises(EmptyReplyError):
        await make_provider(api).run(make_request())


async def test_malformed_json_is_just_text(api: FakeMessagesAPI) -> None:
    api.script(Reply('{"ops": [ broken'))
    result = await make_provider(api).run(make_request(json_schema={"type": "object"}))
    assert result.text == '{"ops": [ broken'


async def test_json_schema_goes_out_as_output_config(api: FakeMessagesAPI) -> None:
    schema = {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]}
    api.script(Reply('{"score": 4.2}'), Reply('{"score": 4.2}'))
    await make_provider(api).run(make_request(json_schema=schema))
    assert api.requests[0].body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    await make_provider(api, supports_json_schema=False).run(make_request(json_schema=schema))
    assert "output_config" not in api.requests[1].body


async def test_cancellation_ends_the_stream_promptly(api: FakeMessagesAPI) -> None:
    api.script(Reply("一" * 40, chunk_size=1, delay_between_chunks_s=0.1))
    first = asyncio.Event()

    def on_text(_: str) -> None:
        first.set()

    task = asyncio.create_task(make_provider(api).run(make_request(), on_text=on_text))
    await asyncio.wait_for(first.wait(), 2.0)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 1.0
    deadline = time.monotonic() + 2.0
    while api.disconnects == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert api.disconnects == 1  # the server noticed the client hang up


async def test_configured_proxy_is_used(api: FakeMessagesAPI) -> None:
    # The fake also accepts absolute-form request targets, so it can stand in for a plain HTTP proxy.
    api.script(Reply("经代理"))
    provider = make_provider(api, base_url="http://api.example.invalid", proxy=api.base_url, max_retries=0)
    result = await provider.run(make_request())
    assert result.text == "经代理"
    assert api.requests[0].headers["host"] == "api.example.invalid"


async def test_moderation_error_event_mid_stream(api: FakeMessagesAPI) -> None:
    event = {"type": "error", "error": {"type": "invalid_request_error", "message": "output contains sensitive content"}}
    api.script(Reply("一二三四", chunk_size=2, error_event_after_chunks=1, error_event=event))
    with pytest.raises(ContentModerationError):
        await make_provider(api).run(make_request())


async def test_vendor_content_filter_stop_reason(api: FakeMessagesAPI) -> None:
    api.script(Reply("被截", stop_reason="content_filter"))
    with pytest.raises(ContentModerationError):
        await make_provider(api).run(make_request())


async def test_stream_without_message_stop_is_interrupted(api: FakeMessagesAPI) -> None:
    api.script(Reply("半截", stop_reason=None))
    with pytest.raises(StreamInterruptedError) as info:
        await make_provider(api).run(make_request())
    assert info.value.partial_text == "半截"
