"""The quick start's planning calls through the real anthropic SDK against the loopback fake Messages API
(tests/fakeapi.py): valid replies are the offline generators' output for the request's real context; a bad
reply is repaired (the errors go back to the model) or, still bad after two repairs, refused with nothing of
that step written; every call is booked in the spend ledger with its stage. The trial chapters use scripted
agents (the writing loop through the SDK is tests/test_pipeline_fakeapi.py's)."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

import pytest

from pipeline.decisions import take_recommended
from pipeline.planning.offline_replies import (
    character_reply,
    contracts_reply,
    plot_reply,
    style_reply,
    world_reply,
)
from pipeline.planning.plan_volume import contracts_request, plan_request
from pipeline.planning.prompt_context import PlanTarget, character_weaver_context, world_builder_context
from pipeline.planning.quick_start import CAST_REQUEST, GOLDEN_THREE_NOTE, WORLD_REQUEST, run_quick_start
from pipeline.planning.style_analysis import style_request
from pipeline.providers.factory import build_provider
from studio.config import load_settings
from studio.fileio import atomic_write_text
from studio.models.quick_start import QuickStartRequest
from studio.models.volume_plan import VolumePlanReply
from studio.paths import ProjectPaths
from studio.planning.quick_start_progress import load_progress
from studio.project import Project
from tests.fake_agents import FakeAgents
from tests.fakeapi import FakeMessagesAPI, Reply
from tests.quick_start_helpers import assert_quick_start_done, briefed_project, quick_start

ROLES = (("落实为可验证的章节契约", "contracts"), ("世界观设计师", "world"), ("角色设计专家", "characters"), ("情节架构师", "plot"), ("文本风格分析专家", "style"))
USAGE = {"input_tokens": 1200, "output_tokens": 400, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


class Planner:
    """The fake API's responder: scripted replies per planning agent first, then the offline generator's reply
    for the context the flow would send now (read from the project while the flow awaits the reply)."""

    def __init__(self, root: Path, request: QuickStartRequest) -> None:
        self.root = root
        self.request = request
        self.queues: defaultdict[str, deque[str]] = defaultdict(deque)
        self.seen: list[str] = []
        self.plot_text = ""  # the last outline reply: the contracts batches derive from it

    def agent(self, body: dict[str, Any]) -> str:
        system = json.dumps(body.get("system"), ensure_ascii=False)
        return next(agent for mark, agent in ROLES if mark in system)

    def __call__(self, body: dict[str, Any]) -> Reply:
        agent = self.agent(body)
        self.seen.append(agent)
        if self.queues[agent]:
            return Reply(self.queues[agent].popleft(), usage=USAGE)
        project = Project.open(self.root)
        settings = load_settings(self.root)
        if agent == "world":
            data = world_reply(world_builder_context(project, request=WORLD_REQUEST).data)
        elif agent == "characters":
            data = character_reply(character_weaver_context(project, request=CAST_REQUEST).data)
        elif agent == "plot":
            data = plot_reply(plan_request(project, settings, PlanTarget(1, 1, 3), note=GOLDEN_THREE_NOTE).context)
            self.plot_text = json.dumps(data, ensure_ascii=False)
        elif agent == "contracts":
            plan = VolumePlanReply.parse_data(json.loads(self.plot_text)).to_plan(1, 1, 3)
            data = contracts_reply(contracts_request(project, settings, plan, [1, 2, 3], {}).context)
        else:
            r = self.request
            data = style_reply(style_request(project, settings, r.style_source, reference_author=r.reference_author,
                                             preset=r.preset).context)
        return Reply(json.dumps(data, ensure_ascii=False), usage=USAGE)


def _provider_on(root: Path, base_url: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    toml = root / "novel-studio.toml"
    atomic_write_text(toml, toml.read_text("utf-8") + f'\n[provider]\npreset = "anthropic"\nbase_url = "{base_url}"\n'
                      "max_retries = 0\nstage_retries = 0\n")
    settings = load_settings(root)
    return settings, build_provider(settings, root, offline=False)


def _ledger(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in ProjectPaths(root).spend_ledger.read_text("utf-8").splitlines()]


def test_quick_start_through_the_sdk_with_a_repair_round(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = briefed_project(tmp_path)
    request = QuickStartRequest(style_source="reference", reference_author="辰东")
    planner = Planner(root, request)
    too_many = world_reply({"mode": "初始化", "rule_ids": [], "storyline_ids": [], "brief": {}})
    too_many["rules"] = too_many["rules"] * 2  # 6 rules, duplicate ids: light mode allows 3
    planner.queues["world"].append(json.dumps(too_many, ensure_ascii=False))
    with FakeMessagesAPI(responder=planner) as api:
        settings, provider = _provider_on(root, api.base_url, monkeypatch)
        outcome = asyncio.run(run_quick_start(root, settings, provider, request, take_recommended, lambda e: None,
                                              agents=FakeAgents(ProjectPaths(root))))
        assert outcome.status == "confirmed", outcome.message
        assert planner.seen == ["world", "world", "characters", "style", "plot", "contracts"]
        repair = json.dumps(api.requests[1].body["messages"][-1], ensure_ascii=False)
        assert "rules" in repair and "3" in repair  # the error went back to the model
        assert all(r.headers.get("x-api-key") == "test-key" for r in api.requests)
    assert_quick_start_done(root)
    booked = [(e["agent"], e["stage"]) for e in _ledger(root)]
    assert booked == [("world_builder", "world"), ("world_builder", "repair"), ("character_weaver", "characters"),
                      ("style_analyzer", "style"), ("plot_architect", "plan"),
                      ("plot_architect", "plan-contracts")]
    assert outcome.cost_usd > 0  # priced by the configured model's prices


def test_a_reply_still_bad_after_two_repairs_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = briefed_project(tmp_path)
    request = QuickStartRequest()
    planner = Planner(root, request)
    cast = character_reply({"character_ids": [], "brief": {}})
    cast["relationships"].append({"from": cast["characters"][0]["id"], "to": "no-such-person", "value": 1})
    planner.queues["characters"].extend([json.dumps(cast, ensure_ascii=False)] * 3)
    paths = ProjectPaths(root)
    with FakeMessagesAPI(responder=planner) as api:
        settings, provider = _provider_on(root, api.base_url, monkeypatch)
        outcome = asyncio.run(run_quick_start(root, settings, provider, request, take_recommended, lambda e: None,
                                              agents=FakeAgents(paths)))
    assert outcome.status == "error" and outcome.exit_code == 1
    assert "no-such-person" in outcome.message and "未写入任何内容" in outcome.message
    assert not list(paths.characters_active.glob("*")) and not (root / "characters" / "relationships.json").exists()
    progress = load_progress(paths)
    assert progress is not None and progress.done == ["world"]  # the world step stays done
    assert not (paths.staging / "quick-start").exists()
    assert [e["stage"] for e in _ledger(root)] == ["world", "characters", "repair", "repair"]
    # the next start goes on from the cast (offline here), without redoing the world
    rules = paths.world_rules.read_bytes()
    assert quick_start(root).status == "confirmed"
    assert paths.world_rules.read_bytes() == rules
    assert_quick_start_done(root)


def test_max_cost_stops_before_a_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = briefed_project(tmp_path)
    planner = Planner(root, QuickStartRequest())
    with FakeMessagesAPI(responder=planner) as api:
        settings, provider = _provider_on(root, api.base_url, monkeypatch)
        events: list[Any] = []
        outcome = asyncio.run(run_quick_start(root, settings, provider, QuickStartRequest(), take_recommended,
                                              events.append, agents=FakeAgents(ProjectPaths(root)),
                                              max_cost_usd=0.001))
        assert api.request_count == 0
    assert outcome.status == "stopped_by_cost" and "超过上限" in outcome.message
    assert load_progress(ProjectPaths(root)) is not None  # resumable: the next start goes on from the world step
    ledger = ProjectPaths(root).spend_ledger
    assert not ledger.exists() or _ledger(root) == []  # nothing spent
