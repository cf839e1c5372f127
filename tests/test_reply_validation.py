"""Replies that are not what was asked for go back to the model (issue 11 items 9 and 12).

Garbage drafts (far too short, far too long, control bytes) are drafted again through the real SDK against
the fake API; a refiner reply that is not the edits format and a pathologically nested JSON reply go to
the repair loop instead of being taken as "no edits" or ending the run with RecursionError.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.agents.runner import ModelAgents
from pipeline.agents.writer import InvalidDraftError, draft_problem
from pipeline.context import default_registry, writer_context
from pipeline.providers.base import ModelRequest, ModelResult, TextCallback, Usage, UserBlock, user_message
from pipeline.providers.offline import chapter_reply
from pipeline.refine_edits import RefineReply
from pipeline.replies import JsonExtractError, extract_json
from pipeline.structured import StructuredReplyError, parse_reply, run_structured
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.project import Project
from tests.fakeapi import FakeMessagesAPI, Reply

SETTINGS = Settings()


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    return Project.open(root)



# ----------------------------------------------------------------------------------------------- drafts


def test_draft_problem_bounds() -> None:
    ok = "字" * 2000
    assert draft_problem(ok, min_chars=2500, max_chars=3500) is None  # the band between is not garbage
    short = draft_problem("# 第1章 雾\n\n好。", min_chars=2500, max_chars=3500)
    assert short is not None and short.kind == "too_short" and short.limit == 750
    long = draft_problem("字" * 10_501, min_chars=2500, max_chars=3500)
    assert long is not None and long.kind == "too_long" and long.limit == 10_500
    assert draft_problem("字" * 10_500, min_chars=2500, max_chars=3500) is None
    for bad in ("\x00", "\x1b[31m", "\x7f", "\x85"):
        found = draft_problem("字" * 2000 + bad, min_chars=2500, max_chars=3500)
        assert found is not None and found.kind == "control", repr(bad)
    assert draft_problem("字" * 1000 + "\n\t\r\n" + "字" * 1000, min_chars=2500, max_chars=3500) is None


@pytest.mark.parametrize("garbage", ["好。", "字" * 200_000, "他说\x00\x1b[2J清屏" + "字" * 2000])
async def test_garbage_draft_is_drafted_again(
    project: Project, api_agents: tuple[FakeMessagesAPI, ModelAgents], garbage: str
) -> None:
    api, agents = api_agents
    good = chapter_reply(writer_context(project, SETTINGS, 3).data)
    api.script(Reply(text=garbage, chunk_size=4096), Reply(text=good, chunk_size=512))
    out = await agents.write(3, note=None, revision=None, on_text=None)
    assert len(api.requests) == 2
    assert "\x00" not in out.text and 750 <= len(out.text) < 20_000
    assert [c.stage for c in out.calls] == ["draft", "draft"]  # the wasted call is accounted for


async def test_drafts_invalid_every_time_fail_the_stage(api_agents: tuple[FakeMessagesAPI, ModelAgents]) -> None:
    api, agents = api_agents
    api.script(*(Reply(text="好。") for _ in range(3)))
    with pytest.raises(InvalidDraftError) as info:
        await agents.write(3, note=None, revision=None, on_text=None)
    assert len(api.requests) == 3 and info.value.problem.kind == "too_short"


# ----------------------------------------------------------------------------------------------- JSON replies


class Scripted:
    name = "scripted"
    offline = False

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.requests: list[ModelRequest] = []

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        self.requests.append(request)
        return ModelResult(self.texts.pop(0), "end_turn", Usage(input_tokens=1, output_tokens=1), request.model, 1, 1)


def refine_request() -> ModelRequest:
    return ModelRequest(agent="style_refiner", model="m", system=[],
                        messages=[user_message([UserBlock("润色")])], max_tokens=100)


def test_refiner_reply_without_edits_is_invalid() -> None:
    value, errors = parse_reply('{"chapter": 3, "text": "整章重写……"}', RefineReply)
    assert value is None and any("edits" in e for e in errors)
    value, errors = parse_reply('{"edits": []}', RefineReply)
    assert value is not None and value.edits == [] and not errors


async def test_refiner_other_json_goes_to_repair() -> None:
    provider = Scripted('{"scores": {}}', json.dumps({"edits": [{"original": "a", "refined": "b"}]}))
    result = await run_structured(provider, refine_request(), RefineReply, registry=default_registry())
    assert len(provider.requests) == 2 and result.value.edits[0].refined == "b"


def test_deeply_nested_json_is_an_extract_error() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(JsonExtractError, match="嵌套过深"):
        extract_json(deep)
    with pytest.raises(JsonExtractError):
        extract_json('说明：{"edits": ' + "[" * 50_000)
    assert extract_json('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')["a"]


async def test_deeply_nested_reply_goes_to_repair_not_recursion_error() -> None:
    deep = '{"edits": ' + "[" * 100_000 + "]" * 100_000 + "}"
    provider = Scripted(deep, deep, deep)
    with pytest.raises(StructuredReplyError) as info:
        await run_structured(provider, refine_request(), RefineReply, registry=default_registry())
    assert len(provider.requests) == 3 and "嵌套过深" in info.value.errors[0]
