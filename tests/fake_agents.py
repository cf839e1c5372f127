"""A scripted `Agents` for orchestrator tests: no provider, no prompts, fully predictable.

- `write` streams the chapter in a few deltas (followed by a hints block that must never reach the file),
  optionally sleeping between them, and records every call (note, revision) in `self.writes`.
- `summarize` returns a patch against the current state version: one `set`, one `add`, one `foreshadow`
  planting `fs-chN` (and advancing `fs-ch(N-1)` when it exists), plus a storyline memory line.
- `refine` proposes one edit that is always locatable; `polish=True` another one.
- `judge` returns, for chapter N and revision r, `scores[N][r]` (the last one repeats; default 4.2) as all
  eight dimension scores, so the recomputed overall is exactly that number; `violations[(N, r)]` adds
  high-confidence violations by check id (`W-...` is L1, `LS-...` is LS).
- `delays` overrides `delay` per stage (write, summarize, refine, polish, judge).
- `fail` makes a stage raise a ProviderError its first k times; `block` makes the writer hang after its
  first delta until cancelled.
"""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.agents.protocol import (
    CallRecord,
    JudgeOutput,
    RefinerOutput,
    RevisionInput,
    SummarizerOutput,
    TextSink,
    WriterOutput,
)
from pipeline.providers.base import ServerError, Usage
from pipeline.refine_edits import RefineEdit, apply_edits
from studio.models.evaluation import Evaluation
from studio.models.patch import StatePatch
from studio.paths import ProjectPaths
from studio.state_engine import load_state

DIMENSIONS = (
    "plot_logic",
    "character",
    "immersion",
    "foreshadowing",
    "pacing",
    "style_naturalness",
    "emotional_impact",
    "storyline_coherence",
)
HINTS_MARK = "\n\n<<<STATE_HINTS>>>\n"


def call(stage: str, cost: float = 0.01, model: str = "fake-model") -> CallRecord:
    return CallRecord(
        stage=stage,
        model=model,
        duration_ms=5,
        usage=Usage(input_tokens=1000, output_tokens=200),
        cost_usd=cost,
        prompt_id=f"{stage}-prompt",
        prompt_version="v1",
    )


def chapter_text(n: int, revision: RevisionInput | None, attempt: int) -> str:
    tag = "初稿" if revision is None else ("重写" if revision.kind == "rewrite" else "修订")
    body = [
        f"# 第{n}章 雾里灯",
        "",
        f"沈照推开门。这是第{n}章的{tag}（第{attempt}次写作）。",
        "",
        "巷子里的雾很浓，灯光只照出三丈远。",
        "",
        "他说：“今晚不会太平。”许青禾没有回答，只把铜铃按在掌心。",
    ]
    return "\n".join(body) + "\n"


@dataclass
class FakeAgents:
    paths: ProjectPaths
    scores: dict[int, list[float]] = field(default_factory=dict)
    violations: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    delay: float = 0.0
    delays: dict[str, float] = field(default_factory=dict)
    fail: dict[str, int] = field(default_factory=dict)
    block: bool = False
    storyline: str = "main-arc"
    skip_ops: set[int] = field(default_factory=set)
    cost: float = 0.01
    writes: list[tuple[int, str | None, RevisionInput | None]] = field(default_factory=list)
    log: list[tuple[str, int]] = field(default_factory=list)

    def _maybe_fail(self, stage: str) -> None:
        left = self.fail.get(stage, 0)
        if left > 0:
            self.fail[stage] = left - 1
            raise ServerError(f"fake {stage} failure", status_code=500)

    async def _pause(self, stage: str) -> None:
        delay = self.delays.get(stage, self.delay)
        if delay:
            await asyncio.sleep(delay)

    async def write(
        self, chapter: int, *, note: str | None, revision: RevisionInput | None, on_text: TextSink | None
    ) -> WriterOutput:
        self.log.append(("write", chapter))
        self.writes.append((chapter, note, revision))
        self._maybe_fail("write")
        attempt = sum(1 for c, _, _ in self.writes if c == chapter)
        text = chapter_text(chapter, revision, attempt)
        hints = f"沈照情绪：警惕（第{chapter}章）"
        raw = text + HINTS_MARK + hints
        pieces = [raw[i : i + 20] for i in range(0, len(raw), 20)]
        for index, piece in enumerate(pieces):
            if on_text is not None:
                maybe = on_text(piece)
                if inspect.isawaitable(maybe):
                    await maybe
            await self._pause("write")
            if self.block and index == 0:
                await asyncio.sleep(3600)
        stage = "draft" if revision is None else ("rewrite" if revision.kind == "rewrite" else "revise")
        return WriterOutput(text=text, hints=hints, calls=[call(stage, self.cost)])

    async def summarize(self, chapter: int, text: str, hints: str) -> SummarizerOutput:
        self.log.append(("summarize", chapter))
        await self._pause("summarize")
        self._maybe_fail("summarize")
        state = load_state(self.paths)
        ops: list[object] = [
            {"op": "set", "path": "characters.shen-zhao.emotional_state", "value": f"第{chapter}章的警惕"},
            {"op": "add", "path": "world_state.ongoing_events", "value": f"第{chapter}章事件"},
            {"op": "foreshadow", "path": f"fs-ch{chapter}", "value": "planted", "detail": f"第{chapter}章埋下"},
        ]
        if chapter > 3:
            ops.append({"op": "foreshadow", "path": f"fs-ch{chapter - 1}", "value": "advanced", "detail": "推进"})
        patch = None
        if chapter not in self.skip_ops:
            patch = StatePatch(
                chapter=chapter, base_state_version=state.state_version, storyline_id=self.storyline, ops=ops
            )
        return SummarizerOutput(
            summary=f"第{chapter}章摘要：沈照在雾里守灯。",
            patch=patch,
            storyline_id=self.storyline,
            storyline_memory=f"截至第{chapter}章：沈照守住了灯。",
            cross_references=[],
            leak_risk="low",
            warnings=[],
            calls=[call("summarize", self.cost)],
        )

    async def refine(self, chapter: int, text: str, *, polish: bool) -> RefinerOutput:
        self.log.append(("polish" if polish else "refine", chapter))
        await self._pause("polish" if polish else "refine")
        self._maybe_fail("polish" if polish else "refine")
        if polish:
            edits = [RefineEdit(original="灯光只照出三丈远", refined="灯光只照得出三丈远", reason="节奏")]
        else:
            edits = [RefineEdit(original="沈照推开门。", refined="沈照轻轻推开门。", reason="动作细化")]
        result = apply_edits(text, edits)
        return RefinerOutput(edits=edits, result=result, calls=[call("polish" if polish else "refine", self.cost)])

    async def judge(self, chapter: int, text: str, *, key_chapter: bool, revision: int) -> JudgeOutput:
        self.log.append(("judge", chapter))
        await self._pause("judge")
        self._maybe_fail("judge")
        series = self.scores.get(chapter, [4.2])
        score = series[min(revision, len(series) - 1)]
        checks: dict[str, list[dict[str, object]]] = {"l1_checks": [], "ls_checks": [], "l2_checks": []}
        for check_id in self.violations.get((chapter, revision), []):
            layer = "l1_checks" if check_id.startswith("W-") else "ls_checks" if check_id.startswith("LS-") else "l2_checks"
            checks[layer].append({"id": check_id, "status": "violation", "confidence": "high", "detail": "违反"})
        evaluation = Evaluation.model_validate(
            {
                "chapter": chapter,
                "contract_verification": {**checks, "has_violations": any(checks.values())},
                "scores": {name: {"score": score, "reason": "fake"} for name in DIMENSIONS},
                "overall": 5.0,  # never trusted
                "recommendation": "pass",
                "required_fixes": [{"target": "第二段", "instruction": f"修正第{chapter}章的问题"}],
                "issues": [f"第{chapter}章节奏偏慢"],
            }
        )
        return JudgeOutput(evaluation=evaluation, calls=[call("judge", self.cost)])


def fake_for(root: Path, **kwargs: object) -> FakeAgents:
    return FakeAgents(ProjectPaths(root), **kwargs)  # type: ignore[arg-type]
