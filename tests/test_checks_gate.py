"""The gate and storyline leaks (issue 8 item 5, LS-005): a high leak in the judged text is a hard violation the
one gate acts on (a revision with the leak named; the CLI and the studio share the orchestrator), a waived or
weak one is not; high continuity and leak findings after a commit pause a multi-chapter run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.agents.protocol import RevisionInput
from pipeline.decisions import take_recommended
from pipeline.events import Event, GateDecided
from pipeline.gate import GateAction, gate_evaluation
from pipeline.orchestrator import Orchestrator
from studio.checks.judge_evidence import gate_checks, judge_evidence, leak_violations, with_violations
from studio.checks.run import PAUSE_KINDS, pausing_findings
from studio.init_project import init_project
from studio.models.check_allow import AllowEntry, CheckAllowList
from studio.models.evaluation import Evaluation
from studio.models.findings import ChecksReport, Finding
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.project import Project
from tests import fake_agents
from tests.fake_agents import DIMENSIONS, FakeAgents

LEAK = "# 第3章 雾里灯\n\n沈照推开门。\n\n许青禾站在门口，低声道：“跟我来。”\n"
CLEAN = "# 第3章 雾里灯\n\n沈照推开门。\n\n巷子里的雾很浓，灯光只照出三丈远。\n"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    data = json.loads(paths.storylines.read_text(encoding="utf-8"))
    # 许青禾 is the POV of a third storyline, bridged to none: her acting in a main-arc chapter is a leak
    data["storylines"].append(
        {"id": "north-watch", "name": "城北夜巡", "type": "character_arc", "pov_characters": ["xu-qing-he"]}
    )
    paths.storylines.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return root


def _judged(score: float = 4.5) -> Evaluation:
    return Evaluation.model_validate(
        {
            "chapter": 3,
            "scores": {name: {"score": score, "reason": "r"} for name in DIMENSIONS},
        }
    )


def _meta(root: Path) -> None:
    folder = root / "logs" / "chapter-003"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "chapter-003-summary.json").write_text(json.dumps({"storyline_id": "main-arc"}), encoding="utf-8")


def test_a_high_leak_is_a_hard_ls005_violation_for_the_gate(root: Path) -> None:
    _meta(root)
    checks = leak_violations(Project.open(root), 3, LEAK)
    assert [(c.id, c.status, c.confidence) for c in checks] == [("LS-005", "violation", "high")]
    assert "许青禾" in checks[0].detail and checks[0].evidence in LEAK  # the judge-quote check finds it
    evaluation = with_violations(_judged(), checks)
    assert with_violations(evaluation, checks) == evaluation  # added once
    decision = gate_evaluation(evaluation, soft_ids=(), hard_ls_ids={"LS-005"}, revision_count=0)
    assert decision.action is GateAction.REVISE
    spent = gate_evaluation(evaluation, soft_ids=(), hard_ls_ids={"LS-005"}, revision_count=2, max_revisions=2)
    assert spent.action is GateAction.PAUSE_HARD  # never force-passed: the author decides
    clean = gate_evaluation(_judged(), soft_ids=(), hard_ls_ids={"LS-005"}, revision_count=0)
    assert clean.action is GateAction.PASS


def test_a_waived_leak_or_a_mention_is_no_violation_but_a_mention_is_evidence(root: Path) -> None:
    _meta(root)
    paths = ProjectPaths(root)
    mention = "# 第3章\n\n沈照听说许青禾去了北门。\n"
    assert leak_violations(Project.open(root), 3, mention) == []
    assert "许青禾" in judge_evidence(Project.open(root), 3, mention)  # the weaker signal: evidence only
    allow = CheckAllowList(entries=[AllowEntry(mode="deliberate", kind="storyline_leak", text="许青禾", reason="伏笔")])
    allow.save(paths.check_allow)
    assert leak_violations(Project.open(root), 3, LEAK) == []


def test_only_high_leaks_become_gate_checks() -> None:
    findings = [
        Finding(kind="storyline_leak", chapter=3, text="许青禾", severity="high", message="串线", context="许青禾站"),
        Finding(kind="storyline_leak_hint", chapter=3, text="北门", severity="medium"),
        Finding(kind="continuity_status", chapter=3, text="老周", severity="high"),
    ]
    assert [(c.id, c.detail, c.evidence) for c in gate_checks(findings)] == [("LS-005", "串线", "许青禾站")]
    # after the commit, high continuity and leak findings pause a multi-chapter run, the rest never do
    assert pausing_findings(ChecksReport(findings=findings)) == [findings[0], findings[2]]
    assert {"storyline_leak", "continuity_status"} <= PAUSE_KINDS


async def test_the_orchestrator_revises_a_leaking_draft_before_the_commit(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def text(n: int, revision: RevisionInput | None, attempt: int) -> str:
        return (LEAK if revision is None else CLEAN).replace("第3章", f"第{n}章")

    monkeypatch.setattr(fake_agents, "chapter_text", text)
    agents = FakeAgents(ProjectPaths(root))  # the judge scores 4.2 and reports no violation itself
    events: list[Event] = []
    orch = Orchestrator(root, agents, decider=take_recommended, emit=events.append, settings=Settings())
    await orch.run(1)
    gates = [e for e in events if isinstance(e, GateDecided)]
    assert [g.action for g in gates][:2] == [GateAction.REVISE.value, GateAction.PASS.value]
    revision = agents.writes[1][2]
    assert revision is not None and any(v.startswith("LS-005") and "许青禾" in v for v in revision.violations)
    committed = ProjectPaths(root).chapter(3).read_text(encoding="utf-8")
    assert "许青禾" not in committed
