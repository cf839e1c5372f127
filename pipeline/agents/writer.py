"""ChapterWriter: stream the chapter, split off the state hints, never return a cut-off reply.

The reply is the chapter in Markdown, a line `===STATE_HINTS===`, then natural-language hints for the
Summarizer. Text before the delimiter is the chapter, text after it the hints; no delimiter means no hints.
The stream forwarded to the UI stops at the delimiter, so the hints never show up as chapter text.

The chapter part is cleaned first (`pipeline.agents.draft_text.clean_draft`: code fences, a preamble, repeated
headings and a closing remark to the user go).

A draft is an invalid reply (`draft_problem`), drafted again by the orchestrator, when it is no chapter at all (a
refusal, an apology, an outline: `draft_text.not_a_chapter`), when its 字数 is below `GARBAGE_MIN_SHARE` of
`chapter_min_chars`, above `GARBAGE_MAX_FACTOR` times `chapter_max_chars`, or when it holds control characters
(NUL, ESC and the rest of C0 except tab/newline/CR, DEL, C1). The band between those bounds and the configured
range is a quality matter, not an invalid reply.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from pipeline.agents.draft_text import clean_draft, not_a_chapter
from pipeline.agents.protocol import CallRecord, TextSink, WriterOutput
from pipeline.providers.base import ModelRequest, ModelResult, TruncatedReplyError
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, chars_text, tr
from studio.wordcount import word_count

HINTS_DELIMITER = "===STATE_HINTS==="
TRUNCATION_STOP_REASONS = frozenset({"max_tokens", "model_context_window_exceeded"})

_DELIMITER_LINE = re.compile(r"^[ \t]*=+[ \t]*STATE_HINTS[ \t]*=+[ \t]*$", re.MULTILINE)
_HEADING = re.compile(r"^\s*#\s*第\s*[0-9０-９零〇一二两三四五六七八九十百千万]+\s*章")

GARBAGE_MIN_SHARE = 0.3
GARBAGE_MAX_FACTOR = 3
MAX_REDRAFTS = 2  # invalid drafts are drafted again at most this many times, then the stage fails
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

MESSAGES: Catalog = {
    "too_short": (
        "初稿只有 {count}，远低于下限 {limit}（设置下限 {min_chars}的 30%）",
        "the draft has only {count}, far below {limit} (30% of the minimum of {min_chars})",
    ),
    "too_long": (
        "初稿有 {count}，远超上限 {limit}（设置上限 {max_chars}的 3 倍）",
        "the draft has {count}, far above {limit} (3x the maximum of {max_chars})",
    ),
    "control": (
        "初稿含有 {count} 个控制字符（如 {sample}），不是正常文本",
        "the draft holds {count} control characters (such as {sample}), not ordinary text",
    ),
    "refusal": (
        "回复不是正文，而是拒绝或道歉（{sample}）",
        "the reply is a refusal or an apology, not a chapter ({sample})",
    ),
    "outline": (
        "回复不是正文，而是提纲（{count} 条列表或小标题）",
        "the reply is an outline ({count} list items or sub-headings), not a chapter",
    ),
    "invalid": (
        "第 {chapter} 章初稿无效（{problem}），重新起草",
        "chapter {chapter}: invalid draft ({problem}); drafting again",
    ),
    "gave_up": (
        "连续 {attempts} 次初稿无效：{problem}",
        "{attempts} drafts in a row were invalid: {problem}",
    ),
}


@dataclass(frozen=True)
class DraftProblem:
    """Why a draft is not a usable reply."""

    kind: Literal["too_short", "too_long", "control", "refusal", "outline"]
    count: int
    limit: int = 0
    sample: str = ""

    def describe(self, lang: Lang, *, min_chars: int = 0, max_chars: int = 0) -> str:
        if self.kind in ("too_short", "too_long"):  # character counts, shown by the one rule (studio.i18n)
            return tr(MESSAGES, self.kind, lang, count=chars_text(self.count, lang),
                      limit=chars_text(self.limit, lang), min_chars=chars_text(min_chars, lang),
                      max_chars=chars_text(max_chars, lang))
        return tr(MESSAGES, self.kind, lang, count=self.count, limit=self.limit, sample=self.sample,
                  min_chars=min_chars, max_chars=max_chars)


class InvalidDraftError(StudioError):
    """Every draft of a stage was invalid; the stage fails and the chapter stays resumable."""

    kind = "invalid_draft"

    def __init__(self, message: str, problem: DraftProblem) -> None:
        super().__init__(message)
        self.message = message
        self.problem = problem


def draft_problem(text: str, *, min_chars: int, max_chars: int) -> DraftProblem | None:
    """Why `text` is an invalid draft for a chapter of `min_chars`..`max_chars` 字, or None when it is one."""
    controls = _CONTROL.findall(text)
    if controls:
        sample = ", ".join(sorted({f"U+{ord(c):04X}" for c in controls})[:3])
        return DraftProblem("control", len(controls), sample=sample)
    found = not_a_chapter(text)
    if found is not None:
        kind, detail = found
        if kind == "refusal":
            return DraftProblem("refusal", 0, sample=detail)
        return DraftProblem("outline", int(detail))
    count = word_count(text)
    low = int(min_chars * GARBAGE_MIN_SHARE)
    if count < low:
        return DraftProblem("too_short", count, low)
    high = max_chars * GARBAGE_MAX_FACTOR
    if count > high:
        return DraftProblem("too_long", count, high)
    return None



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
    min_chars: int | None = None,
    max_chars: int | None = None,
    lang: Lang = "zh",
    on_invalid: Callable[[str], None] | None = None,
) -> WriterOutput:
    """One writer call (draft, revise or rewrite): stream, check, split.

    With `min_chars`/`max_chars`, an invalid draft (`draft_problem`) is drafted again, at most
    `MAX_REDRAFTS` times (`on_invalid(message)` is told each time; the sink then sees the new attempt's
    text after the old one), then InvalidDraftError. Every call made is in the output's `calls`.
    """
    calls: list[CallRecord] = []
    attempts = 0
    while True:
        attempts += 1
        stream = HintsStreamFilter(on_text) if on_text is not None else None
        result, record = await invoke(request, stage, stream.feed if stream is not None else None)
        calls.append(record)
        if stream is not None:
            await stream.flush()
        check_not_truncated(result)
        text, hints = split_hints(result.text)
        text = clean_draft(text)
        if min_chars is None or max_chars is None:
            break
        problem = draft_problem(text, min_chars=min_chars, max_chars=max_chars)
        if problem is None:
            break
        described = problem.describe(lang, min_chars=min_chars, max_chars=max_chars)
        if attempts > MAX_REDRAFTS:
            raise InvalidDraftError(tr(MESSAGES, "gave_up", lang, attempts=attempts, problem=described), problem)
        if on_invalid is not None:
            on_invalid(tr(MESSAGES, "invalid", lang, chapter=chapter, problem=described))
    return WriterOutput(text=ensure_heading(text, chapter, title), hints=hints, calls=calls)
