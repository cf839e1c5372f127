"""The Validate -> Repair -> Re-run loop and the Summarizer's ops rule, with a scripted provider."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pipeline.agents.summarizer import run_summarizer
from pipeline.context import default_registry
from pipeline.providers.base import ModelRequest, ModelResult, TextCallback, Usage, UserBlock, user_message
from pipeline.replies import SummarizerReply
from pipeline.structured import StructuredReplyError, call_structured, direct_invoke, run_structured


class ScriptedProvider:
    """Returns queued texts in order and records every request."""

    name = "scripted"
    offline = False

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.requests: list[ModelRequest] = []

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        self.requests.append(request)
        text = self.texts.pop(0)
        return ModelResult(
            text=text,
            stop_reason="end_turn",
            usage=Usage(input_tokens=10, output_tokens=5),
            model=request.model,
            duration_ms=1,
            ttft_ms=1,
        )


def request() -> ModelRequest:
    return ModelRequest(
        agent="summarizer",
        model="m",
        system=[],
        messages=[user_message([UserBlock("第 3 章全文……")])],
        max_tokens=100,
        prompt_id="summarizer",
        prompt_version="1",
    )


def reply(**over: Any) -> str:
    data: dict[str, Any] = {
        "chapter": 3,
        "storyline_id": "fog-tide",
        "summary": "黑衣客上门。",
        "ops": [{"op": "set", "path": "characters.gu-yuan-zhou.location", "value": "书店"}],
        "storyline_memory": "- 记忆",
        "cross_references": [],
        "leak_risk": "low",
    }
    data.update(over)
    return json.dumps(data, ensure_ascii=False)


async def test_valid_first_time() -> None:
    provider = ScriptedProvider("```json\n" + reply() + "\n```")
    parsed, calls = await call_structured(provider, request(), SummarizerReply, registry=default_registry())
    assert parsed.summary == "黑衣客上门。"
    assert len(calls) == 1 and len(provider.requests) == 1


async def test_bad_json_is_repaired() -> None:
    provider = ScriptedProvider('{"summary": "没写完', reply())
    parsed, calls = await call_structured(
        provider, request(), SummarizerReply, registry=default_registry(), stage="summarize"
    )
    assert parsed.storyline_id == "fog-tide"
    assert [c.stage for c in calls] == ["summarize", "repair"]
    repair = provider.requests[1]
    roles = [m["role"] for m in repair.messages]
    assert roles == ["user", "assistant", "user"]
    assert repair.messages[1]["content"][0]["text"] == '{"summary": "没写完'
    assert "未通过格式校验" in repair.messages[2]["content"][0]["text"]
    assert repair.prompt_id == "repair" and calls[1].prompt_id == "repair"


async def test_over_long_summary_goes_back_with_the_error() -> None:
    provider = ScriptedProvider(reply(summary="字" * 320), reply())
    await call_structured(provider, request(), SummarizerReply, registry=default_registry())
    errors = provider.requests[1].messages[2]["content"][0]["text"]
    assert "$.summary" in errors and "300" in errors and "当前 320 字" in errors


async def test_three_bad_replies_raise() -> None:
    provider = ScriptedProvider("不是 JSON", "还是不是", '{"ops": []}')
    with pytest.raises(StructuredReplyError) as exc:
        await call_structured(provider, request(), SummarizerReply, registry=default_registry())
    assert len(exc.value.calls) == 3 and exc.value.errors
    assert len(provider.requests[2].messages) == 5  # the conversation keeps growing


async def test_direct_invoke_records() -> None:
    provider = ScriptedProvider(reply())
    result = await run_structured(
        provider, request(), SummarizerReply, registry=default_registry(), invoke=direct_invoke(provider)
    )
    assert result.calls[0].prompt_id == "summarizer" and result.calls[0].usage is not None


async def _summarize(provider: ScriptedProvider) -> Any:
    return await run_summarizer(
        provider,
        request(),
        registry=default_registry(),
        invoke=direct_invoke(provider),
        chapter=3,
        storyline_id="fog-tide",
        base_state_version=2,
    )


async def test_ops_not_a_list_retried_once_then_fixed() -> None:
    provider = ScriptedProvider(reply(ops="set location"), reply())
    out = await _summarize(provider)
    assert out.patch is not None and out.patch.ops[0]["op"] == "set"
    assert out.warnings == [] and [c.stage for c in out.calls] == ["summarize", "repair"]
    assert "$.ops" in provider.requests[1].messages[2]["content"][0]["text"]


async def test_ops_malformed_twice_are_skipped_with_a_warning() -> None:
    provider = ScriptedProvider(reply(ops="set location"), reply(ops={"op": "set"}, summary="第二次"))
    out = await _summarize(provider)
    assert out.patch is None
    assert out.summary == "黑衣客上门。"  # the first valid reply is kept, nothing is guessed
    assert len(out.warnings) == 1 and "skipped" in out.warnings[0]
    assert len(provider.requests) == 2  # exactly one retry


async def test_ops_retry_with_broken_json_also_skips() -> None:
    provider = ScriptedProvider(reply(ops=None), "坏掉的")
    out = await _summarize(provider)
    assert out.patch is None and len(out.calls) == 2


async def test_invalid_entries_are_not_retried() -> None:
    provider = ScriptedProvider(reply(ops=[{"op": "explode", "path": "x"}, {"op": "set", "path": "bad"}]))
    out = await _summarize(provider)
    assert out.patch is not None and len(out.patch.ops) == 2  # the engine drops them later, with warnings
    assert len(provider.requests) == 1


async def test_storyline_mismatch_keeps_the_outline_storyline() -> None:
    out = await _summarize(ScriptedProvider(reply(storyline_id="main-arc")))
    assert out.storyline_id == "fog-tide" and out.patch is not None and out.patch.storyline_id == "fog-tide"
    assert out.warnings
