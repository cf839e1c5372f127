"""The Summarizer's structure tags through the real SDK (loopback fake Messages API): the reply's optional
fields reach `SummarizerOutput.structure`, the prompt asks for them and for the state conventions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.agents.runner import ModelAgents
from pipeline.context import summarizer_context
from pipeline.providers.offline import summarizer_reply
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.project import Project
from tests.fakeapi import FakeMessagesAPI, Reply

USAGE = {"input_tokens": 900, "output_tokens": 300, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    return Project.open(root)


async def test_tags_reach_the_output_and_old_replies_have_none(
    project: Project, api_agents: tuple[FakeMessagesAPI, ModelAgents]
) -> None:
    api, agents = api_agents
    reply = summarizer_reply(summarizer_context(project, Settings(), 6, "正文", "").data)
    tagged = dict(reply, hook_type="Threat", emotional_beat="fear", chapter_function="escalation",
                  goal_progress="none")
    api.script(Reply(text=json.dumps(tagged, ensure_ascii=False), usage=USAGE, chunk_size=40))
    out = await agents.summarize(6, "# 第6章 叫名\n\n正文。", "- 无")
    assert out.structure == {"chapter_function": "escalation", "hook_type": "threat", "emotional_beat": "fear",
                             "goal_progress": "none"}
    api.script(Reply(text=json.dumps(reply, ensure_ascii=False), usage=USAGE, chunk_size=40))
    assert (await agents.summarize(6, "# 第6章 叫名\n\n正文。", "- 无")).structure == {}


def test_the_prompt_asks_for_tags_conventions_and_planted_ranges(project: Project) -> None:
    bundle = summarizer_context(project, Settings(), 3, "正文", "")
    text = bundle.section("stable")  # the cached instructions
    for word in ("hook_type", "emotional_beat", "goal_progress", "ordered_attributes", "holder", "target_resolve_range",
                 "absent"):
        assert word in text
