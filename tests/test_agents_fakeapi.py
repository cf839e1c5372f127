"""ModelAgents through the real AnthropicProvider against the loopback fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.agents.runner import ModelAgents
from pipeline.context import judge_context, refiner_context, summarizer_context, writer_context
from pipeline.providers.offline import chapter_reply, judge_reply, refiner_reply, summarizer_reply
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.project import Project
from studio.prompt_pins import latest_pins
from tests.fakeapi import FakeMessagesAPI, RecordedRequest, Reply

SETTINGS = Settings()
USAGE = {"input_tokens": 900, "output_tokens": 300, "cache_creation_input_tokens": 2000, "cache_read_input_tokens": 0}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    return Project.open(root)



def assert_tier_breakpoints(request: RecordedRequest, *, volume_tier: bool = True) -> None:
    body = request.body
    assert [("cache_control" in b) for b in body["system"]] == [True]
    first_user = body["messages"][0]["content"]
    expected = [True, False] if volume_tier else [False]
    assert [("cache_control" in b) for b in first_user] == expected
    marks = sum("cache_control" in b for m in body["messages"] for b in m["content"] if isinstance(b, dict))
    assert marks + 1 <= 4


def json_reply(data: dict[str, Any]) -> Reply:
    return Reply(text=json.dumps(data, ensure_ascii=False), usage=USAGE, chunk_size=40)


async def test_writer(project: Project, api_agents: tuple[FakeMessagesAPI, ModelAgents]) -> None:
    api, agents = api_agents
    api.script(Reply(text=chapter_reply(writer_context(project, SETTINGS, 3).data), usage=USAGE, chunk_size=64))
    deltas: list[str] = []
    out = await agents.write(3, note="多写雨", revision=None, on_text=deltas.append)
    assert len(deltas) > 1 and "===STATE_HINTS===" not in "".join(deltas)
    assert out.text.startswith("# 第3章") and out.hints
    [request] = api.requests
    assert_tier_breakpoints(request)
    assert request.body["model"] == SETTINGS.models.chapter_writer
    assert request.body["max_tokens"] == SETTINGS.max_tokens.chapter_writer
    assert "output_config" not in request.body
    assert "多写雨" in request.body["messages"][0]["content"][1]["text"]
    [call] = out.calls
    assert (call.stage, call.prompt_id, call.prompt_version) == ("draft", "chapter-writer", str(latest_pins()["chapter-writer"]))
    assert not call.offline and call.usage is not None and not call.usage.estimated
    assert call.usage.cache_creation_input_tokens == 2000 and call.cost_usd is not None and call.cost_usd > 0


async def test_summarizer(project: Project, api_agents: tuple[FakeMessagesAPI, ModelAgents]) -> None:
    api, agents = api_agents
    api.script(json_reply(summarizer_reply(summarizer_context(project, SETTINGS, 6, "正文", "").data)))
    out = await agents.summarize(6, "# 第6章 叫名\n\n正文。", "- 无")
    assert out.patch is not None and out.patch.ops
    [request] = api.requests
    assert_tier_breakpoints(request)
    assert request.body["output_config"]["format"]["type"] == "json_schema"
    assert out.calls[0].prompt_id == "summarizer" and out.calls[0].prompt_version == "1"


async def test_refiner(project: Project, api_agents: tuple[FakeMessagesAPI, ModelAgents]) -> None:
    api, agents = api_agents
    text = "# 第3章 旧书店的熟客\n\n顾远舟深吸一口气，推开了门。顾远舟不禁停下脚步。"
    api.script(json_reply(refiner_reply(refiner_context(project, SETTINGS, 3, text).data, text)))
    out = await agents.refine(3, text, polish=False)
    assert "深吸一口气" not in out.result.text
    [request] = api.requests
    assert_tier_breakpoints(request, volume_tier=False)  # style drift moved after the last breakpoint
    assert request.body["model"] == SETTINGS.models.style_refiner
    assert out.calls[0].prompt_id == "style-refiner"


async def test_judge(project: Project, api_agents: tuple[FakeMessagesAPI, ModelAgents]) -> None:
    api, agents = api_agents
    data = judge_context(project, SETTINGS, 5, "# 第5章 入司\n\n沈照推开守灯司的门，屋里一股旧纸味。").data
    api.script(json_reply(judge_reply(data)))
    out = await agents.judge(5, "# 第5章 入司\n\n沈照推开守灯司的门，屋里一股旧纸味。", key_chapter=False, revision=0)
    assert out.evaluation.chapter == 5 and out.evaluation.overall is not None
    [request] = api.requests
    assert_tier_breakpoints(request)
    assert request.body["model"] == SETTINGS.models.quality_judge
    assert (out.calls[0].stage, out.calls[0].prompt_id) == ("judge", "quality-judge")


async def test_repair_round(project: Project, api_agents: tuple[FakeMessagesAPI, ModelAgents]) -> None:
    api, agents = api_agents
    good = summarizer_reply(summarizer_context(project, SETTINGS, 6, "正文", "").data)
    too_long = dict(good, summary="字" * 400)
    api.script(json_reply(too_long), json_reply(good))
    out = await agents.summarize(6, "# 第6章 叫名\n\n正文。", "- 无")
    assert out.summary == good["summary"]
    assert [(c.stage, c.prompt_id, c.prompt_version) for c in out.calls] == [
        ("summarize", "summarizer", "1"),
        ("repair", "repair", "1"),
    ]
    first, second = api.requests
    assert_tier_breakpoints(second)
    messages = second.body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0] == first.body["messages"][0]  # same cached prefix
    assert "当前 400 字" in messages[2]["content"][0]["text"]
    assert "cache_control" not in messages[2]["content"][0]
