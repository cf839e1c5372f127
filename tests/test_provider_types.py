"""`pipeline.providers.base`: the one text block of the system prompt and of user turns, and the errors that keep
what the model wrote before the call failed."""

from __future__ import annotations

import pytest

from pipeline.providers.base import (
    PartialReplyError,
    ProviderError,
    RefusalError,
    StreamInterruptedError,
    SystemBlock,
    TruncatedReplyError,
    UnfinishedReplyError,
    Usage,
    UserBlock,
    user_message,
)


@pytest.mark.parametrize("block", [SystemBlock, UserBlock])
def test_a_text_block_is_one_anthropic_text_block_with_its_cache_breakpoint(block: type[SystemBlock]) -> None:
    assert block("规则").to_param() == {"type": "text", "text": "规则"}
    cached = block("规则", cache=True).to_param()
    assert cached == {"type": "text", "text": "规则", "cache_control": {"type": "ephemeral"}}
    cached["cache_control"]["ttl"] = "1h"  # a copy: the shared constant is never changed
    assert block("x", cache=True).to_param()["cache_control"] == {"type": "ephemeral"}


def test_user_message_takes_blocks_and_plain_strings() -> None:
    message = user_message([UserBlock("a", cache=True), "b"])
    assert message == {
        "role": "user",
        "content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "b"}],
    }


def test_the_partial_reply_errors_keep_the_text_and_their_own_kind_and_retry() -> None:
    usage = Usage(input_tokens=1, output_tokens=2)
    errors: list[PartialReplyError] = [
        StreamInterruptedError("cut", partial_text="半", status_code=200, request_id="r1"),
        UnfinishedReplyError("pause", partial_text="半", request_id="r1"),
        TruncatedReplyError("long", partial_text="半", usage=usage, request_id="r1"),
        RefusalError("no", partial_text="半", request_id="r1"),
    ]
    assert [(e.kind, e.retryable) for e in errors] == [
        ("stream_interrupted", True), ("unfinished", True), ("truncated", False), ("refusal", False),
    ]
    assert all(isinstance(e, ProviderError) and e.partial_text == "半" and e.request_id == "r1" for e in errors)
    assert errors[0].status_code == 200 and errors[2].usage == usage  # type: ignore[attr-defined]
    assert RefusalError("no").partial_text == ""
