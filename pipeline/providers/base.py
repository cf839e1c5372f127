"""What every model provider speaks: the request, the result, token usage, the protocol and the errors.

Nothing here knows about a particular vendor or SDK; `anthropic_provider` maps the SDK onto these types and
an offline provider can produce them from `ModelRequest.context` without any network.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from studio.errors import StudioError

# Anthropic accepts at most this many cache_control breakpoints per request.
MAX_CACHE_BREAKPOINTS = 4
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}

TextCallback = Callable[[str], Awaitable[None] | None]


@dataclass(frozen=True)
class TextBlock:
    """One text content block; `cache=True` puts a cache breakpoint after it. The system prompt and user turns
    hold the same blocks; the two subclasses say where a block goes."""

    text: str
    cache: bool = False

    def to_param(self) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "text", "text": self.text}
        if self.cache:
            block["cache_control"] = dict(EPHEMERAL)
        return block


@dataclass(frozen=True)
class SystemBlock(TextBlock):
    """One block of the system prompt."""


@dataclass(frozen=True)
class UserBlock(TextBlock):
    """One text block of a user turn."""


def user_message(blocks: Sequence[UserBlock | str]) -> dict[str, Any]:
    """An Anthropic user message dict made of text blocks (plain strings are uncached blocks)."""
    content = [(UserBlock(b) if isinstance(b, str) else b).to_param() for b in blocks]
    return {"role": "user", "content": content}


@dataclass(frozen=True)
class ModelRequest:
    """One call to a model, as the orchestrator builds it.

    `context` is never sent: it is the structured input the prompt was rendered from, kept for the offline
    provider and the pipeline log. `json_schema` asks for structured output where the vendor supports it.
    """

    agent: str
    model: str
    system: list[SystemBlock]
    messages: list[dict[str, Any]]
    max_tokens: int
    json_schema: dict[str, Any] | None = None
    prompt_id: str | None = None
    prompt_version: str | None = None
    context: dict[str, Any] = field(default_factory=dict)
    timeout_s: float | None = None
    # Bookkeeping only, never sent: the pipeline stage and chapter of the call, for the spend ledger.
    stage: str | None = None
    chapter: int | None = None


@dataclass(frozen=True)
class Usage:
    """Token counts of one reply. A count is None when the vendor did not report it."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    estimated: bool = False

    def total_in(self) -> int:
        """All input tokens: uncached + cache writes + cache reads (unknown counts as 0)."""
        return (
            (self.input_tokens or 0)
            + (self.cache_creation_input_tokens or 0)
            + (self.cache_read_input_tokens or 0)
        )

    def cached_share(self) -> float | None:
        """Share of the input read from the cache, or None when the vendor reports no cache figures."""
        if self.cache_read_input_tokens is None or self.input_tokens is None:
            return None
        total = self.total_in()
        if total == 0:
            return None
        return self.cache_read_input_tokens / total


@dataclass(frozen=True)
class ModelResult:
    text: str
    stop_reason: str | None
    usage: Usage
    model: str
    duration_ms: int
    ttft_ms: int | None
    request_id: str | None = None


@dataclass(frozen=True)
class SdkRetryWait:
    """The SDK is about to wait before retrying a request itself (a 429 with `retry-after: 66` waits 66 s)."""

    wait_s: float
    attempt: int  # the retry about to be made, from 1
    status_code: int | None  # None: a connection error
    stage: str | None
    chapter: int | None


SdkRetryListener = Callable[[SdkRetryWait], None]


@runtime_checkable
class Provider(Protocol):
    """Something that runs a `ModelRequest`, streaming text deltas to `on_text`.

    Cancelling the awaiting task must end the underlying stream at once and propagate CancelledError.
    """

    name: str
    offline: bool

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult: ...


# --------------------------------------------------------------------------------------------- errors


class ProviderError(StudioError):
    """A model call failed. `kind` is a stable key the UI translates; `retryable` drives stage retries."""

    kind: str = "provider"
    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        request_id: str | None = None,
        retryable: bool | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.request_id = request_id
        self.retry_after_s = retry_after_s  # the server's retry-after, when it sent one
        if retryable is not None:
            self.retryable = retryable


class MissingApiKeyError(ProviderError):
    kind = "missing_api_key"

    def __init__(self, env_var: str) -> None:
        self.env_var = env_var
        super().__init__(
            f"No API key found: the environment variable {env_var} is not set. "
            f"Set it before starting, e.g. `export {env_var}=...`."
        )


class UnusableApiKeyError(ProviderError):
    """The key is set but cannot be sent (a line break or space pasted with it). Never echoes the key."""

    kind = "unusable_api_key"

    def __init__(self, env_var: str, problem: str) -> None:
        self.env_var = env_var
        super().__init__(f"The API key in {env_var} cannot be used: {problem} (e.g. `export {env_var}=...`).")


class AuthError(ProviderError):
    kind = "auth"

    def __init__(self, env_var: str, detail: str = "", *, status_code: int | None = None,
                 request_id: str | None = None) -> None:
        self.env_var = env_var
        text = f"The API rejected the key in {env_var} (HTTP {status_code}). "
        text += f"Check it and set it again, e.g. `export {env_var}=...`."
        if detail:
            text += f" Server said: {detail}"
        super().__init__(text, status_code=status_code, request_id=request_id)


class RateLimitedError(ProviderError):
    kind = "rate_limited"
    retryable = True


class OverloadedError(ProviderError):
    kind = "overloaded"
    retryable = True


class ServerError(ProviderError):
    kind = "server"
    retryable = True


class ProviderConnectionError(ProviderError):
    """The endpoint could not be reached at all (DNS, refused, TLS, proxy)."""

    kind = "connection"
    retryable = True


class PartialReplyError(ProviderError):
    """A call that failed after the model had written something: `partial_text` is what came (never used as
    a reply; kept for the log and the caller's decision)."""

    def __init__(self, message: str, *, partial_text: str = "", status_code: int | None = None,
                 request_id: str | None = None) -> None:
        super().__init__(message, status_code=status_code, request_id=request_id)
        self.partial_text = partial_text


class StreamInterruptedError(PartialReplyError):
    """A stream that had started broke off: an `event: error` or a cut connection."""

    kind = "stream_interrupted"
    retryable = True


class ProviderTimeoutError(ProviderError):
    kind = "timeout"
    retryable = True


class UnfinishedReplyError(PartialReplyError):
    """The reply ended without the model having finished (`stop_reason: pause_turn`): never used as it is."""

    kind = "unfinished"
    retryable = True


class UnexpectedReplyError(ProviderError):
    """The server answered in a shape the protocol does not allow (a body that is neither the stream that
    was asked for nor a readable Messages API reply). Retried: a misbehaving proxy is often transient."""

    kind = "unexpected_reply"
    retryable = True


class TruncatedReplyError(PartialReplyError):
    """The reply hit max_tokens. Not retried blindly: the caller decides (more tokens, shorter input)."""

    kind = "truncated"

    def __init__(self, message: str, *, partial_text: str, usage: Usage | None = None,
                 request_id: str | None = None) -> None:
        super().__init__(message, partial_text=partial_text, request_id=request_id)
        self.usage = usage


class RefusalError(PartialReplyError):
    kind = "refusal"


class ContentModerationError(ProviderError):
    kind = "moderation"


class BadRequestError(ProviderError):
    kind = "bad_request"


class EmptyReplyError(ProviderError):
    """The model answered with no text. Usually transient, so a stage retry may help."""

    kind = "empty_reply"
    retryable = True


_MODERATION_MARKERS = (
    "moderation",
    "sensitive",
    "content_filter",
    "content filter",
    "content_policy",
    "data_inspection_failed",
    "inappropriate",
    "安全",
    "敏感",
    "违规",
    "审核",
)


def looks_like_moderation(*texts: str | None) -> bool:
    """Whether a vendor error (its type, message or stop reason) reads like a content-moderation block.

    Anthropic-compatible vendors report moderation in different ways (a 400 with `sensitive_words_detected`,
    `data_inspection_failed`, a Chinese message, a `content_filter` stop reason); this is the one place
    that guesses.
    """
    joined = " ".join(t for t in texts if t).lower()
    return any(marker in joined for marker in _MODERATION_MARKERS)
