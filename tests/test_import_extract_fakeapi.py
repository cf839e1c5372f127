"""The import's full depth through the real anthropic SDK against the loopback fake Messages API (tests/fakeapi.py):
the cast pass (a bad reply repaired once), the style pass and two chapters of the Summarizer with the model's
own replies; the Summarizer's stable prefix is the same bytes for every chapter and carries a cache breakpoint
(the prompt cache serves it); every call is booked in the spend ledger with its stage and chapter."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pipeline.decisions import take_recommended
from pipeline.importing.extract import SUMMARY_STAGE, run_extraction
from pipeline.providers.factory import build_provider
from studio.config import load_settings
from studio.fileio import atomic_write_text
from studio.models.style_profile import StyleProfile
from studio.models.world_rules import WorldRules
from studio.paths import ProjectPaths
from studio.project import Project
from studio.spend_ledger import read_spend
from tests.fakeapi import FakeMessagesAPI, Reply
from tests.import_extract_helpers import chapter_bytes, imported_project

USAGE = {"input_tokens": 1500, "output_tokens": 500, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
CACHED = {"input_tokens": 900, "output_tokens": 400, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 2000}

SURVEY: dict[str, Any] = {
    "characters": [
        {"id": "lin-feng", "display_name": "林枫", "role": "protagonist", "aliases": ["小枫"],
         "speech_pattern": "话少", "profile_md": "# 林枫\n\n- 身份：跑腿的",
         "contracts": [{"id": "C-LIN-FENG-001", "type": "capability", "rule": "不会武功", "valid_from_chapter": 1}]},
        {"id": "su-wan-qing", "display_name": "苏晚晴", "role": "ally", "aliases": ["晚晴"],
         "contracts": [{"id": "C-SU-WAN-QING-001", "type": "personality", "rule": "从不说谎"}]},
        {"id": "han-lao-qi", "display_name": "韩老七", "role": "mentor",
         "contracts": [{"id": "C-HAN-LAO-QI-001", "type": "behavior", "rule": "从不正面回答"}]},
    ],
    "relationships": [{"from": "lin-feng", "to": "su-wan-qing", "type": "同伴", "score": 30},
                      {"from": "lin-feng", "to": "nobody", "type": "敌对"}],
    "rules": [{"id": "W-001", "category": "江湖", "rule": "城门入夜即关", "constraint_type": "hard",
               "introduced_chapter": 1}],
    "storylines": [
        {"id": "zhu-xian", "name": "玉佩之谜", "type": "main_arc", "pov_characters": ["lin-feng"]},
        {"id": "wan-qing-xin", "name": "晚晴的信", "type": "subplot", "pov_characters": ["su-wan-qing"]},
    ],
    "names": [{"name": "青云城", "kind": "place"}, {"name": "落霞谷", "kind": "place"}],
}
STYLE = {
    "source_type": "original", "avg_sentence_length": 99, "dialogue_ratio": 0.9,
    "rhetoric_preferences": ["短句"], "forbidden_words": ["不禁"], "character_speech_patterns": {"lin-feng": "话少"},
    "writing_directives": ["偏短句、动作推进"], "anchor_passages": [], "notes": "",
}
ROLES = (("资深网文编辑", "survey"), ("文本风格分析专家", "style"), ("状态记录员", "summarizer"))


def _summary(chapter: int) -> dict[str, Any]:
    ops: list[dict[str, Any]] = [
        {"op": "set", "path": "characters.lin-feng.location", "value": "青云城" if chapter == 1 else "落霞谷"},
    ]
    if chapter == 1:
        ops.append({"op": "foreshadow", "path": "yu-pei", "value": "planted", "detail": "玉佩的来历",
                    "scope": "long"})
    return {"chapter": chapter, "storyline_id": "main-arc", "summary": f"第{chapter}章：林枫在城里打听玉佩。",
            "ops": ops, "storyline_memory": f"林枫到了第{chapter}章。", "cross_references": [], "leak_risk": "low",
            "chapter_function": "铺垫", "hook_type": "悬念"}


class Model:
    """The fake API's responder: the cast pass's first reply names two main lines (repaired), then the rest."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        system = json.dumps(body.get("system"), ensure_ascii=False)
        agent = next(name for mark, name in ROLES if mark in system)
        self.seen.append(agent)
        if agent == "survey":
            if self.seen.count("survey") == 1:
                bad = json.loads(json.dumps(SURVEY))
                bad["storylines"][1]["type"] = "main_arc"
                return Reply(json.dumps(bad, ensure_ascii=False), usage=USAGE)
            return Reply(json.dumps(SURVEY, ensure_ascii=False), usage=USAGE)
        if agent == "style":
            return Reply(json.dumps(STYLE, ensure_ascii=False), usage=USAGE)
        text = json.dumps(body["messages"], ensure_ascii=False)
        match = re.search(r"章号：(\d+)", text)
        assert match is not None
        chapter = int(match.group(1))
        return Reply(json.dumps(_summary(chapter), ensure_ascii=False), usage=USAGE if chapter == 1 else CACHED)


def test_the_full_depth_through_the_sdk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = imported_project(tmp_path / "book", 2)
    before = chapter_bytes(root, 2)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    toml = root / "novel-studio.toml"
    model = Model()
    with FakeMessagesAPI(responder=model) as api:
        atomic_write_text(toml, toml.read_text("utf-8") + f'\n[provider]\npreset = "anthropic"\nbase_url = '
                          f'"{api.base_url}"\nmax_retries = 0\nstage_retries = 0\n')
        settings = load_settings(root)
        provider = build_provider(settings, root, offline=False)
        result = asyncio.run(run_extraction(root, settings, provider, take_recommended, lambda e: None))
        assert result.status == "done", result.message
        assert model.seen == ["survey", "survey", "style", "summarizer", "summarizer"]
        repair = json.dumps(api.requests[1].body["messages"][-1], ensure_ascii=False)
        assert "main_arc" in repair  # the validation error went back to the model
        first, second = (r.body for r in api.requests[3:5])
        assert first["system"] == second["system"]  # the stable prefix: the same bytes every chapter
        assert first["system"][-1].get("cache_control") == {"type": "ephemeral"}
        assert "林枫" in json.dumps(first["messages"], ensure_ascii=False)  # the author's chapter is sent
        assert all(r.headers.get("x-api-key") == "test-key" for r in api.requests)
    assert chapter_bytes(root, 2) == before
    paths = ProjectPaths(root)
    project = Project.open(root)
    # the cast pass's characters, aliases, contracts; the unknown relationship end dropped; rules; storylines
    assert set(project.characters) == {"lin-feng", "su-wan-qing", "han-lao-qi"}
    assert project.characters["lin-feng"].aliases == ["小枫"]
    rels = json.loads((root / "characters" / "relationships.json").read_text("utf-8"))["relationships"]
    assert [(r["from"], r["to"]) for r in rels] == [("lin-feng", "su-wan-qing")]
    assert [r.rule for r in WorldRules.load(paths.world_rules).rules] == ["城门入夜即关"]
    assert project.storylines.ids()[:2] == ["main-arc", "wan-qing-xin"]
    names = json.loads(paths.names.read_text("utf-8"))["entities"]
    assert {"青云城", "落霞谷"} <= {e["name"] for e in names}
    # the model's state ops, by the ids of the character files
    state = project.state
    assert state.characters["lin-feng"].to_data()["location"] == "落霞谷"
    assert state.active_foreshadowing == ["yu-pei"]
    # the style profile: the numbers are measured by code, never the model's 99 / 0.9
    profile = StyleProfile.load(paths.style_profile)
    assert profile.avg_sentence_length != 99 and profile.dialogue_ratio != 0.9
    assert profile.to_data()["style_exemplars"]
    entries, bad = read_spend(paths.spend_ledger)
    assert bad == 0
    assert [(e.stage, e.chapter) for e in entries] == [
        ("import-cast", None), ("repair", None), ("style", None), (SUMMARY_STAGE, 1), (SUMMARY_STAGE, 2)]
    assert entries[-1].cache_read_tokens == 2000 and all((e.cost_usd or 0) > 0 for e in entries)
    assert result.cost_usd == pytest.approx(sum(e.cost_usd or 0 for e in entries), abs=1e-5)
