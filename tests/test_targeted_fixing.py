"""Polish and revision get the judge's findings with the paragraphs they point at (issue 9 item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.agents.judge_calibration import evaluation_findings
from pipeline.agents.protocol import RevisionInput
from pipeline.agents.runner import ModelAgents
from pipeline.context import reviser_context
from pipeline.context_pieces import is_local, paragraph_refs, with_paragraphs
from pipeline.providers.base import ModelRequest, ModelResult, TextCallback, Usage
from studio.init_project import init_project
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation
from studio.models.settings import Settings
from studio.project import Project

TEXT = (
    "# 第3章 旧书店的熟客\n\n"
    "顾远舟把台灯拧亮了一点。\n\n"
    "他心中一暖，仿佛回到了四十年前，那时候沈怀山还年轻。\n\n"
    "门外的铃声停了。\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.open(init_project(tmp_path / "novel", sample=True))


def test_paragraph_references() -> None:
    assert paragraph_refs("第 3 段：改") == [3]
    assert paragraph_refs("第2-4段") == [2, 3, 4]
    assert paragraph_refs("第 1、3 段和第 3 段") == [1, 3]
    assert is_local("第 2 段：把心理独白改成动作") and not is_local("全章：节奏拖沓") and not is_local("节奏拖沓")


def test_findings_carry_the_paragraph_text() -> None:
    [line] = with_paragraphs(["第 2 段：把心理独白改成动作"], TEXT)
    assert line.startswith("第 2 段：把心理独白改成动作\n")
    assert "第2段原文：「他心中一暖，仿佛回到了四十年前，那时候沈怀山还年轻。」" in line
    assert with_paragraphs(["第 9 段：不存在"], TEXT) == ["第 9 段：不存在"]


def test_reviser_sees_the_paragraphs_of_the_fixes(project: Project) -> None:
    revision = RevisionInput("revision", TEXT, ["第 2 段: 把心理独白改成动作"], ["第 3 段：结尾太平"], [])
    bundle = reviser_context(project, Settings(), 3, revision)
    assert "第2段原文：「他心中一暖" in bundle.variables["required_fixes"]
    assert "第3段原文：「门外的铃声停了。」" in bundle.variables["judge_issues"]


class Recording:
    name = "recording"
    offline = False

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        self.requests.append(request)
        return ModelResult('{"edits": []}', "end_turn", Usage(input_tokens=1, output_tokens=1), request.model, 1, 1)


def _stage_evaluation(project: Project) -> Evaluation:
    scores = {d: {"score": 4, "evidence": "顾远舟把台灯拧亮了一点", "reason": "好"} for d in DIMENSION_WEIGHTS}
    scores["style_naturalness"] = {"score": 3, "evidence": "他心中一暖", "reason": "第 2 段套话"}
    evaluation = Evaluation.parse_data(
        {
            "chapter": 3,
            "scores": scores,
            "required_fixes": [{"target": "第 2 段", "instruction": "删掉“心中一暖”，用动作写出情绪"}],
            "issues": ["第 3 段：结尾钩子太弱"],
        }
    )
    path = project.paths.staged_evaluation(3)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(evaluation.to_data(), ensure_ascii=False), encoding="utf-8")
    return evaluation


def test_evaluation_findings_in_chinese(project: Project) -> None:
    lines = evaluation_findings(_stage_evaluation(project))
    assert lines[0] == "第 2 段：删掉“心中一暖”，用动作写出情绪"
    assert "第 3 段：结尾钩子太弱" in lines
    assert "风格自然度 3 分：第 2 段套话（原文：「他心中一暖」）" in lines


async def test_polish_gets_the_findings_first_refine_does_not(project: Project) -> None:
    _stage_evaluation(project)
    provider = Recording()
    agents = ModelAgents(project, Settings(), provider)
    await agents.refine(3, TEXT, polish=False)
    await agents.refine(3, TEXT, polish=True)
    first, polish = (r.messages[0]["content"][-1]["text"] for r in provider.requests)
    assert "<judge_findings>\n\n</judge_findings>" in first
    findings = polish[polish.index("<judge_findings>") : polish.index("</judge_findings>")]
    assert "第 2 段：删掉“心中一暖”" in findings and "第2段原文：「他心中一暖" in findings
