"""The provider for the Anthropic Messages API and Anthropic-compatible vendors (SDK 2.x, httpx2 transport).

Timeouts follow httpx semantics: each is the longest wait for one network step, not a total. `read_timeout_s`
is therefore the longest silence allowed, which includes the wait for the first byte of the reply.

Proxy: the SDK's default transport already honours HTTPS_PROXY / HTTP_PROXY / ALL_PROXY / NO_PROXY from the
process environment. A configured `proxy` replaces those proxies (NO_PROXY exclusions still apply) by mounting
a proxy transport on the SDK's own `DefaultAsyncHttpxClient`.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import os
import time
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx2
from anthropic._models import FinalRequestOptions

from pipeline.providers.base import (
    MAX_CACHE_BREAKPOINTS,
    AuthError,
    BadRequestError,
    ContentModerationError,
    EmptyReplyError,
    MissingApiKeyError,
    ModelRequest,
    ModelResult,
    OverloadedError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    RefusalError,
    SdkRetryListener,
    SdkRetryWait,
    ServerError,
    StreamInterruptedError,
    TextCallback,
    TruncatedReplyError,
    UnexpectedReplyError,
    UnfinishedReplyError,
    UnusableApiKeyError,
    Usage,
    looks_like_moderation,
)
from pipeline.providers.redact import key_problem, redact, redact_url

TRUNCATION_STOP_REASONS = frozenset({"max_tokens", "model_context_window_exceeded"})
# The turn is not over: the server paused it and expects it to be continued.
UNFINISHED_STOP_REASONS = frozenset({"pause_turn"})


@dataclass(frozen=True)
class ProviderConfig:
    base_url: str | None = None  # None: the SDK default (api.anthropic.com, or ANTHROPIC_BASE_URL)
    api_key_env: str = "ANTHROPIC_API_KEY"
    timeout_s: float = 600.0  # write / pool / default read timeout
    connect_timeout_s: float = 10.0
    read_timeout_s: float | None = None  # longest silence, first byte included; None: timeout_s
    max_retries: int = 2  # the SDK's own retries of 408/409/429/5xx/529 and connection errors
    proxy: str | None = None  # overrides HTTP(S)_PROXY from the environment
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    supports_json_schema: bool = True  # False: vendors that ignore output_config get prompt-only JSON
    name: str = "anthropic"

    def httpx_timeout(self, override_s: float | None = None) -> httpx2.Timeout:
        base = override_s if override_s is not None else self.timeout_s
        read = override_s if override_s is not None else (self.read_timeout_s or self.timeout_s)
        return httpx2.Timeout(base, connect=min(self.connect_timeout_s, base), read=read)


# --------------------------------------------------------------------------------------------- wire format


def limit_cache_breakpoints(system: list[dict[str, Any]], messages: list[dict[str, Any]],
                            limit: int = MAX_CACHE_BREAKPOINTS) -> int:
    """Drop the earliest cache_control marks beyond `limit`, in prefix order (system, then messages).

    Works in place on wire dicts; returns how many marks were dropped.
    """
    marked: list[dict[str, Any]] = [b for b in system if "cache_control" in b]
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            marked.extend(b for b in content if isinstance(b, dict) and "cache_control" in b)
    extra = max(0, len(marked) - limit)
    for block in marked[:extra]:
        del block["cache_control"]
    return extra


def build_params(request: ModelRequest, *, supports_json_schema: bool = True) -> dict[str, Any]:
    """The keyword arguments of `messages.stream` for a request (never temperature: 2.x rejects it)."""
    system = [block.to_param() for block in request.system]
    messages = copy.deepcopy(request.messages)
    limit_cache_breakpoints(system, messages)
    params: dict[str, Any] = {"model": request.model, "max_tokens": request.max_tokens, "messages": messages}
    if system:
        params["system"] = system
    if request.json_schema is not None and supports_json_schema:
        params["output_config"] = {"format": {"type": "json_schema", "schema": request.json_schema}}
    return params


def _redact(text: str, secret: str | None) -> str:
    return redact(text, secret)


def usage_from_sdk(usage: Any) -> Usage:
    def count(name: str) -> int | None:
        value = getattr(usage, name, None)
        return value if isinstance(value, int) else None

    return Usage(
        input_tokens=count("input_tokens"),
        output_tokens=count("output_tokens"),
        cache_creation_input_tokens=count("cache_creation_input_tokens"),
        cache_read_input_tokens=count("cache_read_input_tokens"),
    )


@dataclass(frozen=True)
class PlainReply:
    """A whole Messages API reply read from a plain JSON body (what some proxies send to a stream request)."""

    text: str
    stop_reason: str | None
    usage: Usage
    model: str | None


def _count(data: Mapping[str, Any], name: str) -> int | None:
    value = data.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def plain_reply_from_json(raw: bytes, *, where: str, request_id: str | None) -> PlainReply:
    """Read a non-streamed reply body. An error object or anything that is not a message is a
    classified ProviderError, never an assertion deep inside the SDK's stream reader."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        snippet = raw[:200].decode("utf-8", "replace")
        raise UnexpectedReplyError(
            f"{where} answered the streaming request with a body that is neither an event stream nor JSON: "
            f"{snippet!r}", request_id=request_id,
        ) from None
    if isinstance(data, dict) and data.get("type") == "error":
        found_error = data.get("error")
        error: Mapping[str, Any] = found_error if isinstance(found_error, dict) else {}
        error_type = str(error.get("type") or "")
        detail = str(error.get("message") or "")
        if looks_like_moderation(error_type, detail):
            raise ContentModerationError(f"The reply was blocked by content moderation: {detail}",
                                         status_code=200, request_id=request_id)
        raise UnexpectedReplyError(f"{where} answered with an error ({error_type or 'unknown'}): {detail}",
                                   status_code=200, request_id=request_id)
    content = data.get("content") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("type", "message") != "message" or not isinstance(content, list):
        raise UnexpectedReplyError(
            f"{where} answered the streaming request with JSON that is not a Messages API reply.",
            request_id=request_id,
        )
    text = "".join(
        str(block.get("text") or "") for block in content if isinstance(block, dict) and block.get("type") == "text"
    )
    found_usage = data.get("usage")
    raw_usage: Mapping[str, Any] = found_usage if isinstance(found_usage, dict) else {}
    usage = Usage(
        input_tokens=_count(raw_usage, "input_tokens"),
        output_tokens=_count(raw_usage, "output_tokens"),
        cache_creation_input_tokens=_count(raw_usage, "cache_creation_input_tokens"),
        cache_read_input_tokens=_count(raw_usage, "cache_read_input_tokens"),
    )
    stop = data.get("stop_reason")
    model = data.get("model")
    return PlainReply(text, stop if isinstance(stop, str) else None, usage, model if isinstance(model, str) else None)


def _is_event_stream(response: httpx2.Response) -> bool:
    return "text/event-stream" in response.headers.get("content-type", "").lower()


# --------------------------------------------------------------------------------------------- errors


MAX_RETRY_AFTER_S = 600.0  # a longer retry-after is capped: the author would rather be asked


def retry_after_s(exc: anthropic.APIStatusError) -> float | None:
    """The wait a 429/529 asked for (`retry-after-ms`, else `retry-after` in seconds), capped; None if absent."""
    headers = exc.response.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) * scale
        except ValueError:
            continue
        if value >= 0:
            return min(value, MAX_RETRY_AFTER_S)
    return None


def classify_status_error(exc: anthropic.APIStatusError, *, env_var: str, secret: str | None,
                          partial_text: str = "", retries: int = 0) -> ProviderError:
    """Map an SDK status error onto the provider errors. A status of 200 is an `event: error` mid-stream."""
    status = exc.status_code
    error_type = exc.type or ""
    detail = _redact(exc.api_message or str(exc.message), secret)
    rid = exc.request_id
    after = f" after {retries} automatic retries" if retries else ""

    if status == 200:
        if looks_like_moderation(error_type, detail):
            return ContentModerationError(f"The reply was blocked by content moderation: {detail}",
                                          status_code=status, request_id=rid)
        return StreamInterruptedError(
            f"The reply stream broke off with a server error ({error_type or 'unknown'}): {detail}",
            partial_text=partial_text, status_code=status, request_id=rid,
        )
    if status == 401:
        return AuthError(env_var, detail, status_code=status, request_id=rid)
    if status == 429:
        return RateLimitedError(f"Rate limited by the API (HTTP 429){after}: {detail}",
                                status_code=status, request_id=rid, retry_after_s=retry_after_s(exc))
    if status == 529 or error_type == "overloaded_error":
        return OverloadedError(f"The API is overloaded (HTTP {status}){after}: {detail}",
                               status_code=status, request_id=rid, retry_after_s=retry_after_s(exc))
    if status == 408:
        return ProviderTimeoutError(f"The API timed out the request (HTTP 408){after}: {detail}",
                                    status_code=status, request_id=rid)
    if status >= 500:
        return ServerError(f"The API failed with a server error (HTTP {status}){after}: {detail}",
                           status_code=status, request_id=rid)
    if looks_like_moderation(error_type, detail):
        return ContentModerationError(f"The request was blocked by content moderation (HTTP {status}): {detail}",
                                      status_code=status, request_id=rid)
    if status == 403:
        return AuthError(env_var, detail, status_code=status, request_id=rid)
    return BadRequestError(f"The API rejected the request (HTTP {status}): {detail}",
                           status_code=status, request_id=rid)


def check_stop_reason(text: str, stop_reason: str | None, usage: Usage, request_id: str | None) -> None:
    """Raise for a finished reply that cannot be used as it is."""
    if stop_reason is None:
        raise StreamInterruptedError("The reply stream ended before the model finished (no stop reason).",
                                     partial_text=text, request_id=request_id)
    if stop_reason in TRUNCATION_STOP_REASONS:
        raise TruncatedReplyError(
            f"The reply was cut off at the output token limit (stop reason {stop_reason}).",
            partial_text=text, usage=usage, request_id=request_id,
        )
    if stop_reason in UNFINISHED_STOP_REASONS:
        raise UnfinishedReplyError(
            f"The model paused before finishing its reply (stop reason {stop_reason}).",
            partial_text=text, request_id=request_id,
        )
    if stop_reason == "refusal":
        raise RefusalError("The model declined to answer this request.", partial_text=text, request_id=request_id)
    if looks_like_moderation(stop_reason):
        raise ContentModerationError(f"The reply was blocked by content moderation (stop reason {stop_reason}).",
                                     request_id=request_id)
    if not text.strip():
        raise EmptyReplyError("The model returned an empty reply.", request_id=request_id)


# --------------------------------------------------------------------------------------------- SDK retries


# The request being run in this task, so a retry the SDK makes inside it can be told with its stage.
_RUNNING: ContextVar[ModelRequest | None] = ContextVar("novel_studio_running_request", default=None)


class _ReportingAsyncAnthropic(anthropic.AsyncAnthropic):
    """The SDK client, telling `listener` before each of its own retry waits (otherwise silent).

    Overrides the SDK's `_sleep_for_retry` (anthropic 2.x): the same three steps, with the listener told of
    the one computed wait before sleeping it."""

    listener: SdkRetryListener | None = None

    async def _sleep_for_retry(
        self, *, retries_taken: int, max_retries: int, options: FinalRequestOptions, response: httpx2.Response | None
    ) -> None:
        remaining = max_retries - retries_taken
        timeout = self._calculate_retry_timeout(remaining, options, response.headers if response else None)
        if self.listener is not None:
            request = _RUNNING.get()
            self.listener(SdkRetryWait(
                wait_s=timeout,
                attempt=retries_taken + 1,
                status_code=response.status_code if response is not None else None,
                stage=request.stage if request is not None else None,
                chapter=request.chapter if request is not None else None,
            ))
        await asyncio.sleep(timeout)


# --------------------------------------------------------------------------------------------- provider


class AnthropicProvider:
    """Streams one request at a time through `AsyncAnthropic.messages.stream`."""

    offline = False

    def __init__(self, config: ProviderConfig | None = None, *, on_sdk_retry: SdkRetryListener | None = None) -> None:
        self.config = config or ProviderConfig()
        self.name = self.config.name
        self.on_sdk_retry = on_sdk_retry  # told before each retry wait the SDK makes inside one call
        self._client: anthropic.AsyncAnthropic | None = None
        self._key: str | None = None

    def api_key(self) -> str:
        """The key from the configured environment variable; raises MissingApiKeyError when unset."""
        key = (self.config.env.get(self.config.api_key_env) or "").strip()
        if not key:
            raise MissingApiKeyError(self.config.api_key_env)
        problem = key_problem(key)
        if problem is not None:  # httpx would echo the header value in its error
            raise UnusableApiKeyError(self.config.api_key_env, problem)
        return key

    def client(self) -> anthropic.AsyncAnthropic:
        if self._client is None:
            key = self.api_key()
            cfg = self.config
            timeout = cfg.httpx_timeout()
            http_client: httpx2.AsyncClient | None = None
            if cfg.proxy:
                proxied = httpx2.AsyncHTTPTransport(proxy=cfg.proxy)
                http_client = anthropic.DefaultAsyncHttpxClient(
                    timeout=timeout,
                    mounts={"all://": proxied, "http://": proxied, "https://": proxied},
                )
            client = _ReportingAsyncAnthropic(
                api_key=key,
                base_url=cfg.base_url,
                timeout=timeout,
                max_retries=cfg.max_retries,
                default_headers={"x-api-key": key},
                http_client=http_client,
            )
            client.listener = self.on_sdk_retry
            self._client = client
            self._key = key
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        cfg = self.config
        client = self.client()
        params = build_params(request, supports_json_schema=cfg.supports_json_schema)
        timeout = cfg.httpx_timeout(request.timeout_s)
        started = time.monotonic()
        ttft_ms: int | None = None
        parts: list[str] = []
        request_id: str | None = None
        where = redact_url(cfg.base_url) or "the Anthropic API"
        running = _RUNNING.set(request)
        try:
            async with client.messages.stream(**params, timeout=timeout) as stream:
                request_id = stream.request_id
                if not _is_event_stream(stream.response):
                    # A proxy (litellm) may answer a streaming request with one JSON reply.
                    plain = plain_reply_from_json(await stream.response.aread(), where=where,
                                                  request_id=request_id)
                    ttft_ms = int((time.monotonic() - started) * 1000)
                    if plain.text and on_text is not None:
                        maybe = on_text(plain.text)
                        if inspect.isawaitable(maybe):
                            await maybe
                    return self._finish(request, plain.text, plain.stop_reason, plain.usage,
                                        plain.model, started, ttft_ms, request_id)
                async for delta in stream.text_stream:
                    if ttft_ms is None:
                        ttft_ms = int((time.monotonic() - started) * 1000)
                    parts.append(delta)
                    if on_text is not None:
                        maybe = on_text(delta)
                        if inspect.isawaitable(maybe):
                            await maybe
                message = await stream.get_final_message()
        except anthropic.APIStatusError as exc:
            raise classify_status_error(exc, env_var=cfg.api_key_env, secret=self._key,
                                        partial_text="".join(parts), retries=cfg.max_retries) from exc
        except anthropic.APITimeoutError as exc:
            raise ProviderTimeoutError(f"No reply from {where} within the time limit "
                                       f"({timeout.read:g} s).", request_id=request_id) from exc
        except anthropic.APIConnectionError as exc:
            raise ProviderConnectionError(f"Could not reach {where}: {_redact(str(exc.__cause__ or exc), self._key)}",
                                          request_id=request_id) from exc
        except httpx2.TimeoutException as exc:
            raise ProviderTimeoutError(f"The reply stream from {where} stalled for more than {timeout.read:g} s.",
                                       request_id=request_id) from exc
        except httpx2.TransportError as exc:
            raise StreamInterruptedError(f"The connection to {where} broke off mid-reply: {exc}",
                                         partial_text="".join(parts), request_id=request_id) from exc
        finally:
            _RUNNING.reset(running)

        text = "".join(block.text for block in message.content if block.type == "text")
        return self._finish(request, text, message.stop_reason, usage_from_sdk(message.usage), message.model,
                            started, ttft_ms, request_id)

    @staticmethod
    def _finish(request: ModelRequest, text: str, stop_reason: str | None, usage: Usage, model: str | None,
                started: float, ttft_ms: int | None, request_id: str | None) -> ModelResult:
        check_stop_reason(text, stop_reason, usage, request_id)
        return ModelResult(
            text=text,
            stop_reason=stop_reason,
            usage=usage,
            model=model or request.model,
            duration_ms=int((time.monotonic() - started) * 1000),
            ttft_ms=ttft_ms,
            request_id=request_id,
        )
