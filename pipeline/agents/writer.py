"""ChapterWriter: stream the chapter, split off the state hints, never return a cut-off reply.

The reply is the chapter in Markdown, a line `===STATE_HINTS===`, then natural-language hints for the
Summarizer. Text before the delimiter is the chapter, text after it the hints; no delimiter means no hints.
The stream forwarded to the UI stops at the delimiter, so the hints never show up as chapter text.
"""

from __future__ import annotations

import inspect
import re
from typing import Protocol

from pipeline.agents.protocol import CallRecord, TextSink, WriterOutput
from pipeline.providers.base import ModelRequest, ModelResult, TruncatedReplyError

HINTS_DELIMITER = "===STATE_HINTS==="
TRUNCATION_STOP_REASONS = frozenset({"max_tokens", "model_context_window_exceeded"})

_DELIMITER_LINE = re.compile(r"^[ \t]*=+[ \t]*STATE_HINTS[ \t]*=+[ \t]*$", re.MULTILINE)
_HEADING = re.compile(r"^\s*#\s*第\s*[0-9０-９零〇一二两三四五六七八九十百千万]+\s*章")



class StreamInvoke(Protocol):
    """Runs one request for a stage, streaming deltas to `on_text`; also usable as `structured.Invoke`."""

    async def __call__(
        self, request: ModelRequest, stage: str, on_text: TextSink | None = None
    ) -> tuple[ModelResult, CallRecord]: ...


def split_hints(reply: str) -> tuple[str, str]:
    """(chapter text, hints) of a writer reply, split at the first `===STATE_HINTS===` line."""
    match = _DELIMITER_LINE.search(reply)
    if match is None:
        return reply.strip(), ""
    return reply[: match.start()].strip(), reply[match.end() :].strip()


def ensure_heading(text: str, chapter: int, title: str) -> str:
    """The chapter text with its `# 第N章 标题` line first (added from the outline when the model left it out)."""
    body = text.lstrip("\ufeff").strip()
    if _HEADING.match(body):
        return body + "\n"
    heading = f"# 第{chapter}章 {title}".rstrip()
    return f"{heading}\n\n{body}\n"


class HintsStreamFilter:
    """Forwards streamed deltas to a sink up to the delimiter line, holding back a possible partial one."""

    def __init__(self, sink: TextSink) -> None:
        self.sink = sink
        self.pending = ""
        self.done = False

    async def _emit(self, text: str) -> None:
        if text:
            result = self.sink(text)
            if inspect.isawaitable(result):
                await result

    async def feed(self, delta: str) -> None:
        if self.done:
            return
        self.pending += delta
        index = self.pending.find(HINTS_DELIMITER)
        if index != -1:
            self.done = True
            out, self.pending = self.pending[:index], ""
            await self._emit(out)
            return
        keep = 0
        for size in range(min(len(HINTS_DELIMITER) - 1, len(self.pending)), 0, -1):
            if HINTS_DELIMITER.startswith(self.pending[-size:]):
                keep = size
                break
        out = self.pending[: len(self.pending) - keep]
        self.pending = self.pending[len(self.pending) - keep :]
        await self._emit(out)

    async def flush(self) -> None:
        if not self.done:
            out, self.pending = self.pending, ""
            await self._emit(out)


def check_not_truncated(result: ModelResult) -> None:
    """A reply cut by the token limit is never used (providers usually raise this already)."""
    if result.stop_reason in TRUNCATION_STOP_REASONS:
        raise TruncatedReplyError(
            f"The reply was cut off at the output token limit (stop reason {result.stop_reason}).",
            partial_text=result.text,
            usage=result.usage,
            request_id=result.request_id,
        )


async def run_writer(
    invoke: StreamInvoke,
    request: ModelRequest,
    *,
    stage: str,
    chapter: int,
    title: str,
    on_text: TextSink | None,
) -> WriterOutput:
    """One writer call (draft, revise or rewrite): stream, check, split."""
    stream = HintsStreamFilter(on_text) if on_text is not None else None
    result, record = await invoke(request, stage, stream.feed if stream is not None else None)
    if stream is not None:
        await stream.flush()
    check_not_truncated(result)
    text, hints = split_hints(result.text)
    return WriterOutput(text=ensure_heading(text, chapter, title), hints=hints, calls=[record])
