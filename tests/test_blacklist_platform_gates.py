"""The reference plugin's platform hard gates (issue 11 leftover): read and written back as the plugin writes them,
a failed gate forces a revision whatever the score, the judge is told the gates of chapters 1-3 of a platform
project, and the score gates are measured by code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from pipeline.agents.judge import combine_evaluations
from pipeline.context import judge_context
from pipeline.gate import GateAction, gate_evaluation
from pipeline.platform_gates import apply_score_gates, gates_prompt, platform_of
from studio.models.evaluation import Evaluation
from studio.models.settings import Settings
from studio.project import Project

PLUGIN = Path(__file__).parent / "fixtures" / "plugin-project"


def _eval_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PLUGIN / "evaluations" / "chapter-001-eval.json").read_text(encoding="utf-8"))
    return data


def _failed(data: dict[str, Any]) -> dict[str, Any]:
    gate = data["eval_used"]["contract_verification"]["platform_hard_gates"][0]
    gate.update(status="fail", detail="主角第 600 字才登场", fix_suggestion="把主角的出场提到第一段")
    return data


def _all_fours(evaluation: Evaluation) -> Evaluation:
    scores = evaluation.scores.model_copy(
        update={k: v.model_copy(update={"score": 4.5}) for k, v in evaluation.scores.as_dict().items()}
    )
    return evaluation.model_copy(update={"scores": scores})


def test_the_plugins_gates_round_trip_unchanged_and_a_pass_blocks_nothing() -> None:
    data = _eval_data()
    evaluation = Evaluation.parse_data(data)
    gates = data["eval_used"]["contract_verification"]["platform_hard_gates"]
    assert evaluation.to_data()["contract_verification"]["platform_hard_gates"] == gates
    assert evaluation.violations() == []


def test_a_failed_gate_forces_a_revision_whatever_the_score() -> None:
    evaluation = _all_fours(Evaluation.parse_data(_failed(_eval_data())))
    assert evaluation.computed_overall() >= 4.0
    blocking = evaluation.blocking_violations(frozenset())
    assert [(c.id, c.confidence) for c in blocking] == [("fanqie_ch001_protagonist", "high")]
    assert "把主角的出场提到第一段" in blocking[0].detail
    decision = gate_evaluation(evaluation, soft_ids=frozenset(), hard_ls_ids=frozenset(), revision_count=0)
    assert decision.action == GateAction.REVISE
    written = evaluation.to_data()["contract_verification"]["platform_hard_gates"][0]
    assert written["gate_id"] == "fanqie_ch001_protagonist" and written["status"] == "fail"


def test_a_gate_either_judge_failed_stays_failed() -> None:
    passed = _all_fours(Evaluation.parse_data(_eval_data()))
    failed = Evaluation.parse_data(_failed(_eval_data()))  # the lower... and the higher one passes
    combined = combine_evaluations(passed, failed)
    assert [g.status for g in combined.contract_verification.platform_hard_gates] == ["fail"]
    combined = combine_evaluations(_all_fours(failed), Evaluation.parse_data(_eval_data()))
    assert [g.status for g in combined.contract_verification.platform_hard_gates] == ["fail"]


def test_the_gates_of_a_platform_apply_to_the_golden_three_chapters_only() -> None:
    assert platform_of("fanqie") == "fanqie" and platform_of("番茄") == "fanqie" and platform_of("general") is None
    first = gates_prompt("fanqie", 1)
    assert first.startswith("- fanqie_ch001_protagonist：") and "fanqie_ch001_hook" in first
    assert "fanqie_ch003_reversal" in gates_prompt("fanqie", 3) and "protagonist" not in gates_prompt("fanqie", 3)
    assert gates_prompt("fanqie", 4) == "" and gates_prompt(None, 1) == ""
    assert "jinjiang_ch002_show_not_tell" in gates_prompt("jinjiang", 2)


def test_score_gates_are_measured_from_the_calibrated_scores() -> None:
    evaluation = Evaluation.parse_data(_eval_data())  # style_naturalness and immersion as the fixture gives them
    style = evaluation.scores.as_dict()["style_naturalness"].score
    gated = apply_score_gates(evaluation, "jinjiang", 2)
    gate = gated.contract_verification.platform_hard_gates[-1]
    assert gate.gate_id == "jinjiang_ch002_style" and gate.status == ("pass" if style >= 3.5 else "fail")
    low = evaluation.scores.model_copy(
        update={"immersion": evaluation.scores.as_dict()["immersion"].model_copy(update={"score": 3})}
    )
    gated = apply_score_gates(evaluation.model_copy(update={"scores": low}), "qidian", 3)
    assert [(g.gate_id, g.status) for g in gated.contract_verification.platform_hard_gates][-1] == (
        "qidian_ch003_immersion",
        "fail",
    )
    assert gated.blocking_violations(frozenset())[-1].id == "qidian_ch003_immersion"
    assert apply_score_gates(evaluation, "qidian", 4) is evaluation  # after the golden three chapters: nothing


def test_the_judge_of_a_fanqie_project_is_told_its_gates(tmp_path: Path) -> None:
    root = tmp_path / "plugin"
    shutil.copytree(PLUGIN, root)
    project = Project.open(root)
    text = (root / "chapters" / "chapter-002.md").read_text(encoding="utf-8")
    bundle = judge_context(project, Settings(), 2, text)
    assert bundle.prompt_version >= 2
    assert bundle.variables["platform_gates"].startswith("- fanqie_ch002_hook：")
    assert "fanqie_ch002_hook" in bundle.section("chapter")
    assert bundle.data["platform_gate_ids"] == ["fanqie_ch002_hook"]
    later = judge_context(project, Settings(), 4, text)
    assert later.variables.get("platform_gates", "") == "" and later.data["platform_gate_ids"] == []
