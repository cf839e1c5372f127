"""A Provider that models a real API's timing: the offline replies, streamed at a fixed output rate.

    RateProvider(tokens_per_s=60.0, ttft_s=1.5, speed=1.0)

Each call waits `ttft_s / speed` before the first text, then streams the offline provider's reply for the
request (`pipeline.providers.offline.OfflineProvider.reply_text`) so that output tokens (estimated with
`pipeline.tokens.estimate_tokens`) arrive at `tokens_per_s * speed` per second. `speed` scales a run down:
speed 20 makes a 90 s chapter take 4.5 s, with every stage shrunk by the same factor.

Deliveries are scheduled against absolute deadlines (not a sleep per chunk), so event-loop lag does not
accumulate. The reply's `model` is the requested model id (so the runner prices it at the settings' prices,
like a real call) and its usage is estimated (`Usage.estimated=True`), as the offline provider's.
"""

from __future__ import annotations

import asyncio
import inspect
import time

from pipeline.providers.base import ModelRequest, ModelResult, TextCallback, Usage
from pipeline.providers.offline import OfflineProvider
from pipeline.tokens import estimate_tokens


class RateProvider:
    """The Provider protocol with a fixed time to first token and a fixed output-token rate."""

    name = "rate"
    offline = False  # it stands in for a real API: prices and logs treat it as one

    def __init__(
        self,
        tokens_per_s: float = 60.0,
        ttft_s: float = 1.5,
        *,
        speed: float = 1.0,
        chunk_chars: int = 40,
    ) -> None:
        if tokens_per_s <= 0 or speed <= 0:
            raise ValueError("tokens_per_s and speed must be > 0")
        self.tokens_per_s = tokens_per_s
        self.ttft_s = max(0.0, ttft_s)
        self.speed = speed
        self.chunk_chars = max(1, chunk_chars)
        self._replies = OfflineProvider(delay_s=0, chunk_chars=chunk_chars)
        self.calls = 0

    @property
    def effective_rate(self) -> float:
        """Output tokens per second of wall time, after the speed factor."""
        return self.tokens_per_s * self.speed

    @property
    def effective_ttft_s(self) -> float:
        return self.ttft_s / self.speed

    def expected_duration_s(self, output_tokens: int) -> float:
        """Wall time of one call producing `output_tokens`, after the speed factor."""
        return self.effective_ttft_s + output_tokens / self.effective_rate

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        self.calls += 1
        started = time.monotonic()
        text = self._replies.reply_text(request)
        first_at = started + self.effective_ttft_s
        emitted_tokens = 0
        ttft_ms: int | None = None
        for start in range(0, len(text), self.chunk_chars):
            chunk = text[start : start + self.chunk_chars]
            # A chunk is delivered once its last token would have been generated.
            emitted_tokens += estimate_tokens(chunk)
            deadline = first_at + emitted_tokens / self.effective_rate
            wait = deadline - time.monotonic()
            await asyncio.sleep(wait if wait > 0 else 0)
            if ttft_ms is None:
                ttft_ms = int((time.monotonic() - started) * 1000)
            if on_text is not None:
                maybe = on_text(chunk)
                if inspect.isawaitable(maybe):
                    await maybe
        prompt = "\n".join(b.text for b in request.system) + "\n" + _messages_text(request)
        usage = Usage(input_tokens=estimate_tokens(prompt), output_tokens=estimate_tokens(text), estimated=True)
        return ModelResult(
            text=text,
            stop_reason="end_turn",
            usage=usage,
            model=request.model,
            duration_ms=int((time.monotonic() - started) * 1000),
            ttft_ms=ttft_ms,
            request_id=None,
        )


def _messages_text(request: ModelRequest) -> str:
    parts: list[str] = []
    for message in request.messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(b.get("text", "")) for b in content if isinstance(b, dict)]
    return "\n".join(parts)
