"""One targeted continuation or trim of a draft whose 字数 is outside `[writing] chapter_min_chars..max_chars`
but within the garbage limits (issue 9 item 2).

The follow-up continues the writer's own conversation: the writer request, the draft as the assistant turn, then
the `chapter-length` prompt (so the cached prefix of the request is read, not written again).
- too short: the writer continues from the draft's last line; the continuation (cleaned like a draft, its own
  state hints split off) is appended. A continuation that is no chapter text is ignored.
- too long: the writer answers with edits that cut or tighten (`RefineReply`), applied deterministically
  (`apply_edits`, at most `TRIM_CAP_RATIO` of the chapter; an edit bringing in a listed phrase is dropped).
One call, never a loop: a chapter still outside the range after it is committed and reported by the checks'
`chapter_length` finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pipeline.agents.draft_text import clean_draft, not_a_chapter
from pipeline.agents.protocol import CallRecord
from pipeline.agents.writer import StreamInvoke, split_hints
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import ModelRequest, Provider, UserBlock, user_message
from pipeline.refine_edits import RefineReply, apply_edits
from pipeline.replies import schema_for
from pipeline.structured import StructuredReplyError, run_structured
from studio.checks.matcher import Matcher
from studio.wordcount import word_count

__all__ = ["LENGTH_PROMPT", "LengthFix", "TRIM_CAP_RATIO", "fix_length", "length_request"]

LENGTH_PROMPT = "chapter-length"
TRIM_CAP_RATIO = 0.5
LENGTHEN_STAGE = "lengthen"
TRIM_STAGE = "trim"

_LONGER = (
    "请从正文最后一行接着往下写大约 {delta} 字，让本章落在字数范围内：推进本章大纲里还没写到的冲突，或者补一场有推进的戏，"
    "结尾仍然留钩子。只输出续写的正文（不要重复已写的内容，不要标题，不要说明），正文之后照旧输出 ===STATE_HINTS=== 分隔行和状态提示。"
)
_SHORTER = (
    "请删减大约 {delta} 字，让本章落在字数范围内：删掉重复的心理活动、多余的环境描写和拖沓的对白，情节、伏笔与状态变化一个都不能丢。"
    "不要重写全文，只输出一个 JSON 对象 {{\"edits\": [{{\"original\": \"逐字复制的原文片段\", \"refined\": \"删减后的文字（可为空）\", "
    "\"reason\": \"删减\"}}]}}；original 必须逐字复制、互不重叠、不跨段落。"
)


@dataclass(frozen=True)
class LengthFix:
    text: str
    hints: str
    calls: list[CallRecord]


def length_request(
    request: ModelRequest, draft_reply: str, count: int, min_chars: int, max_chars: int, registry: PromptRegistry
) -> ModelRequest:
    """The follow-up turn of `request` after the draft `draft_reply`, asking to lengthen or trim."""
    short = count < min_chars
    delta = (min_chars + max_chars) // 2 - count if short else count - (min_chars + max_chars) // 2
    instruction = (_LONGER if short else _SHORTER).format(delta=max(delta, 1))
    template = registry.get(LENGTH_PROMPT)
    text = template.render_text(
        {"count": str(count), "min_chars": str(min_chars), "max_chars": str(max_chars), "instruction": instruction}
    )
    messages = [
        *request.messages,
        {"role": "assistant", "content": [{"type": "text", "text": draft_reply.strip()}]},
        user_message([UserBlock(text)]),
    ]
    return replace(
        request,
        messages=messages,
        prompt_id=template.id,
        prompt_version=str(template.version),
        json_schema=None if short else schema_for(RefineReply),
        context={**request.context, "length": "lengthen" if short else "trim"},
    )


async def fix_length(
    provider: Provider,
    invoke: StreamInvoke,
    request: ModelRequest,
    draft_reply: str,
    text: str,
    hints: str,
    *,
    min_chars: int,
    max_chars: int,
    registry: PromptRegistry,
    blacklist: Sequence[str] | Matcher,
) -> LengthFix | None:
    """One continuation or trim when `text` is outside `min_chars..max_chars`; None when it is inside."""
    count = word_count(text)
    if min_chars <= count <= max_chars:
        return None
    follow_up = length_request(request, draft_reply, count, min_chars, max_chars, registry)
    if count < min_chars:
        result, record = await invoke(follow_up, LENGTHEN_STAGE)
        more, more_hints = split_hints(result.text)
        more = clean_draft(more)
        if not more or not_a_chapter(more) is not None:
            return LengthFix(text, hints, [record])
        joined_hints = "\n".join(h for h in (hints, more_hints) if h)
        return LengthFix(text.rstrip() + "\n\n" + more + "\n", joined_hints, [record])

    try:
        trimmed = await run_structured(
            provider,
            follow_up,
            RefineReply,
            registry=registry,
            max_repairs=0,
            stage=TRIM_STAGE,
            invoke=invoke,
        )
    except StructuredReplyError as exc:
        return LengthFix(text, hints, list(exc.calls))
    applied = apply_edits(text, trimmed.value.edits, blacklist=blacklist, cap_ratio=TRIM_CAP_RATIO)
    return LengthFix(applied.text, hints, list(trimmed.calls))
