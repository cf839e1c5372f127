"""The real pipeline end to end: Orchestrator + ModelAgents + AnthropicProvider (real SDK) against the fake API.

Every request goes through the anthropic SDK to the loopback fake Messages API (`tests.fakeapi`). A responder
tells the agent of each request apart (writer / revision / summarizer / refiner / judge / judge2), answers
from that agent's scripted queue first and otherwise with a valid reply built by the offline provider's
generators from the chapter's real context, so only the replies a case cares about are scripted.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from pipeline.agents.runner import ModelAgents
from pipeline.context import judge_context, refiner_context, summarizer_context, writer_context
from pipeline.context_pieces import first_sentences
from pipeline.decisions import Question, QuestionKind, take_recommended
from pipeline.events import Event
from pipeline.orchestrator import Orchestrator, RunResult
from pipeline.providers.anthropic_provider import AnthropicProvider, ProviderConfig
from pipeline.providers.offline import (
    _messages_text,
    _tagged,
    chapter_reply,
    fixer_reply,
    judge_reply,
    judge_scores,
    refiner_reply,
    summarizer_reply,
)
from studio.config import load_settings
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation, weighted_overall
from studio.models.pipeline_log import PipelineLog
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.project import Project
from studio.state_engine import load_changelog
from tests.fakeapi import FakeMessagesAPI, RecordedRequest, Reply

USAGE = {
    "input_tokens": 900,
    "output_tokens": 300,
    "cache_creation_input_tokens": 2000,
    "cache_read_input_tokens": 0,
}
FIX = "把第三段的心理独白改成顾远舟擦拭铜铃的动作"
REPAIR_MARK = "你上一次的回复未通过格式校验"

Item = Reply | float | Callable[[dict[str, Any]], Reply]


def agent_of(body: dict[str, Any], settings: Settings) -> str:
    """Which agent sent a request: the JSON schema's fields, else the model (writer vs revision)."""
    schema = body.get("output_config", {}).get("format", {}).get("schema", {})
    props = schema.get("properties", {})
    if "edits" in props:  # the refiner, or the writer's local revision by edits (chapter-fixer)
        return "fixer" if "定点修改" in json.dumps(body.get("system", []), ensure_ascii=False) else "refiner"
    if "ops" in props:
        return "summarizer"
    if "scores" in props:
        return "judge" if body["model"] == settings.models.quality_judge else "judge2"
    return "writer" if body["model"] == settings.models.chapter_writer else "revision"


def overall_of(target: float, chapter: int) -> float:
    return weighted_overall({d: float(s) for d, s in judge_scores(target, chapter).items()})


def judged_quotes(body: dict[str, Any]) -> list[str]:
    """Verbatim passages of the chapter a judge request shows (its paragraph marks taken out)."""
    content = _tagged(_messages_text(body["messages"][:1]), "chapter_content")
    return first_sentences(re.sub(r"【\d+】", "", content))


def judge_data(
    ctx: dict[str, Any],
    target: float,
    *,
    fix: str | None = None,
    body: dict[str, Any] | None = None,
    where: str = "第 3 段",
) -> dict[str, Any]:
    """A valid judge reply whose scores land on `target` (a little below at most), quoting the judged chapter
    of `body` as its evidence."""
    chapter = int(ctx["chapter"])
    data = judge_reply(ctx)
    scores = judge_scores(target, chapter)
    quotes = judged_quotes(body) if body is not None else []
    data["scores"] = {
        d: {"evidence": quotes[i % len(quotes)] if quotes else "原文引用", "reason": "评审理由", "score": s}
        for i, (d, s) in enumerate(scores.items())
    }
    overall = sum(scores[d] * w for d, w in DIMENSION_WEIGHTS.items())
    data["recommendation"] = (
        "pass"
        if overall >= 4.0
        else "polish"
        if overall >= 3.5
        else "revise"
        if overall >= 2.0
        else "rewrite"
    )
    data["required_fixes"] = [{"target": where, "instruction": fix}] if fix else []
    return data


def json_reply(data: dict[str, Any]) -> Reply:
    return Reply(text=json.dumps(data, ensure_ascii=False), usage=USAGE, chunk_size=200)


class Script:
    """The fake API's responder: scripted items per agent, then valid default replies for `chapter`."""

    def __init__(self, project: Project, settings: Settings) -> None:
        self.project = project
        self.settings = settings
        self.queues: defaultdict[str, deque[Item]] = defaultdict(deque)
        self.always: dict[str, Reply] = {}
        self.ctx: dict[str, dict[str, Any]] = {}
        self.chapter = 0

    def prepare(self, chapter: int) -> None:
        """Build the contexts of `chapter` now (not from the server thread while the pipeline writes)."""
        p, s = self.project, self.settings
        self.chapter = chapter
        self.ctx = {
            "writer": writer_context(p, s, chapter).data,
            "summarizer": summarizer_context(p, s, chapter, "正文", "").data,
            "refiner": refiner_context(p, s, chapter, "正文").data,
            "judge": judge_context(p, s, chapter, "正文").data,
        }

    def add(self, agent: str, *items: Item) -> None:
        self.queues[agent].extend(items)

    def __call__(self, body: dict[str, Any]) -> Reply:
        agent = agent_of(body, self.settings)
        if agent in self.always:
            return self.always[agent]
        queue = self.queues[agent]
        item = queue.popleft() if queue else None
        if isinstance(item, Reply):
            return item
        if callable(item):
            return item(body)
        return self.default(agent, body, item)

    def default(self, agent: str, body: dict[str, Any], target: float | None) -> Reply:
        if agent in ("writer", "revision"):
            text = chapter_reply(self.ctx["writer"], variant=f"{agent}-{len(body['messages'])}")
            return Reply(text=text, usage=USAGE, chunk_size=200)
        if agent == "summarizer":
            return json_reply(summarizer_reply(self.ctx["summarizer"]))
        if agent == "refiner":
            draft = _tagged(_messages_text(body["messages"][:1]), "chapter_draft")
            return json_reply(refiner_reply(self.ctx["refiner"], draft))
        if agent == "fixer":
            text = _messages_text(body["messages"][:1])
            fixes = [line for line in _tagged(text, "required_fixes").splitlines() if line.startswith("- ")]
            return json_reply(fixer_reply({"fixes": fixes}, _tagged(text, "chapter_draft")))
        return json_reply(judge_data(self.ctx["judge"], 4.2 if target is None else target, body=body))


class Harness:
    def __init__(self, root: Path, api: FakeMessagesAPI, script: Script, provider: AnthropicProvider) -> None:
        self.root = root
        self.paths = ProjectPaths(root)
        self.api = api
        self.script = script
        self.provider = provider
        self.settings = script.settings
        self.events: list[Event] = []

    async def run(self, chapters: int = 1, decider: Any = take_recommended) -> RunResult:
        agents = ModelAgents(Project.open(self.root), self.settings, self.provider, stage_retry_wait_s=0)
        orchestrator = Orchestrator(
            self.root, agents, decider=decider, emit=self.events.append, settings=self.settings
        )
        return await orchestrator.run(chapters)

    def requests(self, agent: str | None = None) -> list[RecordedRequest]:
        return [r for r in self.api.requests if agent is None or agent_of(r.body, self.settings) == agent]

    def agents(self) -> list[str]:
        return [agent_of(r.body, self.settings) for r in self.api.requests]

    def checkpoint(self) -> Checkpoint:
        return Checkpoint.load(self.paths.checkpoint)

    def log(self, chapter: int) -> PipelineLog:
        return PipelineLog.load(self.paths.log(chapter))

    def patch_chapters(self) -> list[int]:
        return [e.chapter for e in load_changelog(self.paths.changelog) if e.kind == "patch"]

    def assert_wire(self) -> None:
        assert self.api.requests
        for request in self.api.requests:
            assert request.path == "/v1/messages"
            assert request.headers.get("x-api-key") == "test-key"
            assert "temperature" not in request.body
            assert request.body.get("stream") is True


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    root = init_project(tmp_path / "novel", sample=True)
    settings = load_settings(root)
    script = Script(Project.open(root), settings)
    script.prepare(3)
    with FakeMessagesAPI(responder=script) as api:
        provider = AnthropicProvider(
            ProviderConfig(
                base_url=api.base_url, env={"ANTHROPIC_API_KEY": "test-key"}, max_retries=2, timeout_s=10.0
            )
        )
        try:
            yield Harness(root, api, script, provider)
        finally:
            await provider.aclose()


def answer(kind: QuestionKind, value: str) -> Callable[[Question], Any]:
    async def decide(question: Question) -> str:
        return value if question.kind is kind else question.recommended

    return decide


# ---------------------------------------------------------------------------------------------- gate PASS


async def test_pass_end_to_end(h: Harness) -> None:
    result = await h.run()
    assert result.committed == [3] and result.exit_code == 0
    text = h.paths.chapter(3).read_text(encoding="utf-8")
    assert text.startswith("# 第3章") and "===STATE_HINTS===" not in text
    assert h.paths.summary(3).is_file() and h.paths.evaluation(3).is_file()
    assert h.patch_chapters() == [1, 2, 3]
    cp = h.checkpoint()
    assert cp.last_completed_chapter == 3 and cp.inflight_chapter is None

    assert sorted(h.agents()) == ["judge", "refiner", "summarizer", "writer"]
    h.assert_wire()
    [writer] = h.requests("writer")
    assert writer.body["model"] == h.settings.models.chapter_writer
    assert [("cache_control" in b) for b in writer.body["system"]] == [True]
    assert [("cache_control" in b) for b in writer.body["messages"][0]["content"]] == [True, False]
    assert "output_config" not in writer.body

    log = h.log(3)
    assert log.gate_decision == "pass" and log.revisions == 0
    stages = {s.name: s for s in log.stages}
    assert sorted(stages) == ["draft", "judge", "refine", "summarize"]
    prompt_ids = {name: s.prompt_id for name, s in stages.items()}
    assert prompt_ids == {
        "draft": "chapter-writer",
        "summarize": "summarizer",
        "refine": "style-refiner",
        "judge": "quality-judge",
    }
    for stage in stages.values():
        assert (stage.input_tokens, stage.output_tokens) == (900, 300)
        assert stage.cache_creation_input_tokens == 2000 and stage.cache_read_input_tokens == 0
        assert stage.cost_usd is not None and stage.cost_usd > 0
        assert len(str((stage.model_extra or {})["prefix_hash"])) == 12  # the cached prefix, hashed
    assert len({(s.model_extra or {})["prefix_hash"] for s in stages.values()}) == 4  # one prefix per agent
    assert (log.model_extra or {})["cache_read_share"] == 0.0  # the fake API reports writes, no reads
    assert result.input_tokens == 4 * 900 and result.cache_write_tokens == 4 * 2000


# ---------------------------------------------------------------------------------------------- gate POLISH


async def test_polish_refines_again_without_second_judge(h: Harness) -> None:
    h.script.add("judge", 3.7)
    result = await h.run()
    assert result.committed == [3] and result.exit_code == 0
    assert len(h.requests("refiner")) == 2
    assert len(h.requests("judge")) == 1
    assert not h.requests("revision")
    log = h.log(3)
    assert log.gate_decision == "polish"
    assert "polish" in [s.name for s in log.stages]
    assert 3.5 <= Evaluation.load(h.paths.evaluation(3)).computed_overall() < 4.0
    h.assert_wire()


# ---------------------------------------------------------------------------------------------- REVISE, PASS


async def test_revise_then_pass(h: Harness) -> None:
    def structural(body: dict[str, Any]) -> Reply:  # a fix for the whole chapter: the full revision
        return json_reply(judge_data(h.script.ctx["judge"], 3.2, fix=FIX, body=body, where="全章"))

    h.script.add("judge", structural, 4.2)
    result = await h.run()
    assert result.committed == [3] and result.exit_code == 0
    assert len(h.requests("judge")) == 2
    [revision] = h.requests("revision")
    assert revision.body["model"] == h.settings.models.revision
    assert FIX in json.dumps(revision.body["messages"], ensure_ascii=False)
    assert not h.requests("writer")[1:]  # one first draft only
    log = h.log(3)
    assert log.gate_decision == "pass" and log.revisions == 1
    assert "revise" in [s.name for s in log.stages]
    assert h.checkpoint().revision_count == 0  # reset for the next chapter after the commit
    h.assert_wire()


# ---------------------------------------------------------------------------------------------- PAUSE_LOW


async def test_pause_low_edit_by_hand(h: Harness) -> None:
    h.script.add("judge", 2.5)
    result = await h.run(decider=answer(QuestionKind.GATE_LOW, "edit_by_hand"))
    assert result.paused and result.exit_code == 3 and result.committed == []
    assert not h.paths.chapter(3).exists()
    assert h.patch_chapters() == [1, 2]
    cp = h.checkpoint()
    assert cp.last_completed_chapter == 2 and cp.inflight_chapter == 3
    [pending] = cp.pending_actions
    assert pending.kind == QuestionKind.GATE_LOW.value and pending.chapter == 3
    overall = (pending.model_extra or {}).get("overall")  # an extra field the orchestrator records
    assert overall is not None and 2.0 <= overall < 3.0
    assert not h.requests("revision")


# ---------------------------------------------------------------------------------------------- REWRITE


async def test_rewrite_below_two(h: Harness) -> None:
    h.script.add("judge", 1.4, 4.2)
    result = await h.run()
    assert result.committed == [3] and result.exit_code == 0
    [rewrite] = h.requests("revision")
    assert rewrite.body["model"] == h.settings.models.revision
    log = h.log(3)
    assert "rewrite" in [s.name for s in log.stages]
    assert log.revisions == 1 and log.gate_decision == "pass"
    assert len(h.requests("writer")) == 1 and len(h.requests("judge")) == 2


# ---------------------------------------------------------------------------------------------- dual judge


async def test_key_chapter_dual_judge_keeps_lower(h: Harness) -> None:
    data = json.loads(h.paths.checkpoint.read_text(encoding="utf-8"))
    data["last_completed_chapter"] = 9
    h.paths.checkpoint.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    for n in range(3, 10):  # the cold-start check wants the chapters the checkpoint counts
        h.paths.chapter(n).write_text(f"# 第{n}章\n\n占位。\n", encoding="utf-8")
    h.script.prepare(10)
    h.script.add("judge", 4.6)
    h.script.add("judge2", 4.1)
    result = await h.run()
    assert result.committed == [10] and result.exit_code == 0
    assert len(h.requests("judge")) == 1 and len(h.requests("judge2")) == 1
    assert h.requests("judge")[0].body["model"] == h.settings.models.quality_judge
    assert h.requests("judge2")[0].body["model"] == h.settings.models.judge_secondary
    evaluation = Evaluation.load(h.paths.evaluation(10))
    # the offline draft repeats its sentence openings: both judges' style scores are capped by the metrics, and
    # the lower judge (4.1 before the cap) is kept
    style = evaluation.scores.style_naturalness
    assert style.score <= 3 and (style.cap_reason or "").startswith("程序统计")
    assert evaluation.computed_overall() < overall_of(4.1, 10) < overall_of(4.6, 10)
    assert evaluation.computed_overall() > overall_of(4.1, 10) - 0.3
    stages = [s.name for s in h.log(10).stages]
    assert "judge" in stages and "judge-secondary" in stages
    h.assert_wire()


async def test_local_fixes_are_made_by_edits_in_place(h: Harness) -> None:
    h.script.add("judge", lambda body: json_reply(judge_data(h.script.ctx["judge"], 3.2, fix=FIX, body=body)), 4.2)
    result = await h.run()
    assert result.committed == [3] and result.exit_code == 0
    assert not h.requests("revision")  # no full revision
    [fixer] = h.requests("fixer")
    assert fixer.body["model"] == h.settings.models.revision
    sent = json.dumps(fixer.body["messages"], ensure_ascii=False)
    assert FIX in sent and "第3段原文：「" in sent  # the fix and the paragraph it points at
    draft = (h.root / "logs" / "chapter-003" / "chapter-003.draft.md").read_text(encoding="utf-8")
    final = h.paths.chapter(3).read_text(encoding="utf-8")
    assert "他停了一下，把手里的东西放稳。" in final and "他停了一下，把手里的东西放稳。" not in draft
    log = h.log(3)
    assert log.revisions == 1 and "revise" in [s.name for s in log.stages]
    h.assert_wire()


# ---------------------------------------------------------------------------------------------- faults


async def test_overloaded_then_success_sdk_retry(h: Harness) -> None:
    h.script.add("writer", Reply.overloaded())
    result = await h.run()
    assert result.committed == [3]
    assert len(h.requests("writer")) == 2
    assert h.requests("writer")[1].headers.get("x-stainless-retry-count") == "1"


async def test_error_event_mid_stream_stage_retry(h: Harness) -> None:
    text = chapter_reply(h.script.ctx["writer"], variant="broken")
    h.script.add("writer", Reply(text=text, usage=USAGE, chunk_size=200, error_event_after_chunks=2))
    result = await h.run()
    assert result.committed == [3] and result.exit_code == 0
    assert len(h.requests("writer")) == 2
    committed = h.paths.chapter(3).read_text(encoding="utf-8")
    assert committed.count("# 第3章") == 1


async def test_connection_cut_every_attempt_then_resume(h: Harness) -> None:
    text = chapter_reply(h.script.ctx["writer"], variant="cut")
    h.script.always["writer"] = Reply(text=text, usage=USAGE, chunk_size=200, cut_connection_after_chunks=2)
    result = await h.run()
    assert result.exit_code == 1 and result.error is not None and result.committed == []
    cp = h.checkpoint()
    assert cp.orchestrator_state is OrchestratorState.ERROR_RETRY
    assert cp.last_completed_chapter == 2 and not h.paths.chapter(3).exists()
    attempts = len(h.requests("writer"))
    assert attempts == h.settings.provider.stage_retries + 1
    assert not h.requests("summarizer") and not h.requests("judge")

    del h.script.always["writer"]
    again = await h.run()
    assert again.committed == [3] and again.exit_code == 0
    assert len(h.requests("writer")) == attempts + 1
    assert h.patch_chapters() == [1, 2, 3]
    cp = h.checkpoint()
    assert cp.last_completed_chapter == 3 and cp.orchestrator_state is not OrchestratorState.ERROR_RETRY
    assert h.paths.chapter(3).read_text(encoding="utf-8").count("# 第3章") == 1


# ---------------------------------------------------------------------------------------------- repair


async def test_malformed_judge_json_is_repaired(h: Harness) -> None:
    h.script.add("judge", Reply(text='{"chapter": 3, "scores": ', usage=USAGE))
    result = await h.run()
    assert result.committed == [3] and result.exit_code == 0
    first, repair = h.requests("judge")
    messages = repair.body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0] == first.body["messages"][0]
    assert REPAIR_MARK in _messages_text(messages[-1:])
    assert ("repair", "repair") in [(s.name, s.prompt_id) for s in h.log(3).stages]
