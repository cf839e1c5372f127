"""Projects made by the reference plugin (DankerMu/novel-writer-plugin), issue 11: they open, `status` reports
them, `continue --offline` writes and commits the next chapter, and nothing the plugin wrote is lost.

tests/fixtures/plugin-project/ is built the way the plugin builds a project: its templates (style profile,
ai-blacklist with categories and a whitelist object), its quick-start checkpoint (`current_volume: 0`), its
volume outline (`### 第 N 章: 名` with `- **Key**: value` lines), Markdown chapter contracts, evaluations in its
`eval_used` envelope, foreshadowing ids `F-001`, and a changelog without state versions. Every test works on
a copy in tmp_path.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from studio.cli.main import main
from studio.contract_markdown import parse_contract_markdown
from studio.errors import FormatError
from studio.models.blacklist import AiBlacklist
from studio.models.character import CharacterFile
from studio.models.checkpoint import Checkpoint
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.pipeline_log import PipelineLog
from studio.models.schedule import StorylineSchedule
from studio.models.state import CurrentState
from studio.models.storyline_spec import StorylineSpec
from studio.models.storylines import Storylines
from studio.models.style_profile import StyleProfile
from studio.models.world_rules import WorldRules
from studio.paths import ProjectPaths
from studio.project import Project
from studio.state_engine import load_changelog, replay
from studio.status import build_status, render_status

FIXTURE = Path(__file__).parent / "fixtures" / "plugin-project"


@pytest.fixture
def plugin_root(tmp_path: Path) -> Path:
    root = tmp_path / "plugin-novel"
    shutil.copytree(FIXTURE, root)
    return root


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------ the project


def test_plugin_project_opens_with_its_outline_and_markdown_contracts(plugin_root: Path) -> None:
    project = Project.open(plugin_root)
    assert project.current_volume == 1  # the quick start's `current_volume: 0` is volume 1
    assert project.outline is not None
    chapters = project.outline.chapters
    assert [c.number for c in chapters] == [1, 2, 3]
    third = chapters[2]
    assert (third.title, third.storyline, third.pov, third.location) == ("子时收渡", "main-arc", "shen-zhao", "青石渡")
    assert third.foreshadowing == "F-001 advanced（灯芯出现在客人灯笼里）"
    assert third.extra == {"TransitionHint": "无", "Phase": "受挫"}
    assert sorted(project.contracts) == [1, 2, 3]
    contract = project.contracts[3]
    assert contract.storyline_id == "main-arc"
    assert contract.postconditions.foreshadowing_updates == {"F-001": "advanced"}
    assert contract.preconditions.required_world_rules == ["W-001", "W-002"]
    assert [o.id for o in contract.required_objectives()] == ["OBJ-003-event"]
    sections = contract.to_data()["sections"]
    assert "质感锚点" in sections and "纸面补过三次" in sections["质感锚点"]  # kept for the writer, verbatim
    assert [i.id for i in project.foreshadowing.foreshadowing] == ["F-001", "F-002"]
    assert project.state.active_foreshadowing == ["F-001", "F-002"]
    assert project.style_profile.source_type == "write_then_extract"
    assert project.ai_blacklist.whitelisted_words() == ["顿时"]
    assert "顿时" not in project.ai_blacklist.effective_words()
    evaluation = project.evaluation(1)
    assert evaluation is not None and evaluation.computed_overall() == 3.92
    assert project.validate_all(include_text=True) == []


def test_status_reports_what_was_read_with_a_caveat(plugin_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = build_status(Project.open(plugin_root), lang="en")
    assert report.last_completed_chapter == 2 and report.problems == []
    assert report.average_score == 3.96
    changelog = [n for n in report.notices if "changelog.jsonl:1:" in n]
    assert changelog and "lines 1-3 (3 lines)" in changelog[0] and "without state_version" in changelog[0]
    assert any("quick_start_step" in n and "step F0" in n for n in report.notices)
    assert "Notices (2; read, but note):" in render_status(report, "en")
    assert main(["status", "--project", str(plugin_root)]) == 0
    out = capsys.readouterr().out
    assert "须知 2 条" in out and "由其他工具写入" in out


def test_a_blacklist_word_only_in_a_category_is_a_notice(plugin_root: Path) -> None:
    path = plugin_root / "ai-blacklist.json"
    data = _json(path)
    data["categories"]["narration_connector"]["words"].append("尽管如此")
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    notices = Project.open(plugin_root).notices(lang="en")
    hit = [n for n in notices if "尽管如此" in n.reason]
    assert hit and hit[0].json_path == "$.categories.narration_connector.words[1]"


def test_continue_offline_writes_and_commits_the_next_chapter(plugin_root: Path) -> None:
    keep = {
        name: (plugin_root / name).read_bytes()
        for name in (
            "style-profile.json",
            "ai-blacklist.json",
            "brief.md",
            "volumes/vol-01/outline.md",
            "volumes/vol-01/chapter-contracts/chapter-003.md",
            "evaluations/chapter-001-eval.json",
            "chapters/chapter-002.md",
        )
    }
    plugin_lines = (plugin_root / "state" / "changelog.jsonl").read_text(encoding="utf-8").splitlines()
    assert main(["continue", "--offline", "--project", str(plugin_root), "--yes"]) == 0

    paths = ProjectPaths(plugin_root)
    assert paths.chapter(3).is_file() and paths.summary(3).is_file()
    cp = _json(paths.checkpoint)
    assert cp["last_completed_chapter"] == 3 and cp["pipeline_stage"] == "committed"
    assert cp["inflight_chapter"] is None
    # the plugin's own checkpoint fields survive the rewrite
    assert (cp["schema_version"], cp["quick_start_step"], cp["eval_backend"]) == (2, "F0", "codex")
    # the plugin's changelog lines stay byte for byte; a snapshot then our patch follow them
    lines = paths.changelog.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == plugin_lines
    init, patch = (json.loads(line) for line in lines[3:])
    assert (init["kind"], init["state_version"]) == ("init", 2)
    assert (patch["kind"], patch["base_state_version"], patch["state_version"], patch["chapter"]) == ("patch", 2, 3, 3)
    state = _json(paths.current_state)
    assert state["state_version"] == 3
    assert replay(load_changelog(paths.changelog)).to_data() == CurrentState.model_validate(state).to_data()
    # the contract's foreshadowing task reached the ledger with the plugin's id
    ledger = ForeshadowingLedger.load(paths.global_foreshadowing)
    f1 = ledger.get("F-001")
    assert f1 is not None and f1.status == "advanced" and f1.history[-1].chapter == 3
    evaluation = _json(paths.evaluation(3))
    assert {k: v["weight"] for k, v in evaluation["scores"].items()} == DIMENSION_WEIGHTS
    for name, data in keep.items():
        assert (plugin_root / name).read_bytes() == data, name
    assert Project.open(plugin_root).validate_all() == []


def test_undo_of_our_chapter_goes_back_to_the_plugin_state(plugin_root: Path) -> None:
    before = _json(plugin_root / "state" / "current-state.json")
    assert main(["continue", "--offline", "--project", str(plugin_root), "--yes"]) == 0
    assert main(["undo", "--project", str(plugin_root), "--yes"]) == 0
    assert CurrentState.load(plugin_root / "state" / "current-state.json").to_data() == (
        CurrentState.model_validate(before).to_data()
    )
    assert len(load_changelog(plugin_root / "state" / "changelog.jsonl")) == 4  # plugin lines + the snapshot


# ---------------------------------------------------------------------------------- nothing lost on rewrite

ROUND_TRIP = [
    (StyleProfile, "style-profile.json"),
    (AiBlacklist, "ai-blacklist.json"),
    (CurrentState, "state/current-state.json"),
    (ForeshadowingLedger, "foreshadowing/global.json"),
    (ForeshadowingLedger, "volumes/vol-01/foreshadowing.json"),
    (Storylines, "storylines/storylines.json"),
    (StorylineSpec, "storylines/storyline-spec.json"),
    (WorldRules, "world/rules.json"),
    (CharacterFile, "characters/active/shen-zhao.json"),
    (CharacterFile, "characters/active/a-ning.json"),
    (PipelineLog, "logs/chapter-001-log.json"),
]


def _kept(original: Any, out: Any, where: str = "$") -> list[str]:
    """Where `out` lost or changed something of `original` (defaults it adds are fine)."""
    if isinstance(original, dict) and isinstance(out, dict):
        return [p for k, v in original.items() for p in (_kept(v, out[k], f"{where}.{k}") if k in out else [f"{where}.{k}"])]
    if isinstance(original, list) and isinstance(out, list) and len(original) == len(out):
        return [p for i, (a, b) in enumerate(zip(original, out, strict=True)) for p in _kept(a, b, f"{where}[{i}]")]
    return [] if original == out else [where]


@pytest.mark.parametrize(("model", "name"), ROUND_TRIP, ids=[name for _, name in ROUND_TRIP])
def test_plugin_files_lose_nothing_on_rewrite(model: Any, name: str) -> None:
    data = _json(FIXTURE / name)
    assert _kept(data, model.parse_data(data, name).to_data()) == []


def test_plugin_checkpoint_keeps_its_fields() -> None:
    data = _json(FIXTURE / ".checkpoint.json")
    out = Checkpoint.parse_data(data).to_data()
    assert out["current_volume"] == 1
    assert {k: v for k, v in out.items() if k in data and k != "current_volume"} == {
        k: v for k, v in data.items() if k != "current_volume"
    }


def test_plugin_evaluation_envelope_keeps_every_field() -> None:
    data = _json(FIXTURE / "evaluations" / "chapter-001-eval.json")
    evaluation = Evaluation.parse_data(data)
    out = evaluation.to_data()
    assert out["metadata"] == data["metadata"] and out["content_eval"] == data["content_eval"]
    for key, value in data["eval_used"].items():
        if key not in ("contract_verification",):
            assert out[key] == value, key
    checks = out["contract_verification"]
    assert checks["platform_hard_gates"] == data["eval_used"]["contract_verification"]["platform_hard_gates"]
    assert [c["id"] for c in checks["l1_checks"] + checks["l2_checks"] + checks["l3_checks"]] == [
        "W-001",
        "C-SHEN-002",
        "OBJ-1-1",
    ]
    assert evaluation.recommendation == "polish" and evaluation.violations() == []


def test_plugin_schedule_without_volume_and_target_chapter_range() -> None:
    data = _json(FIXTURE / "volumes" / "vol-01" / "storyline-schedule.json")
    schedule = StorylineSchedule.parse_data(data)
    assert schedule.volume is None and schedule.is_convergence_chapter(3)
    event = schedule.to_data()["convergence_events"][0]
    assert event["chapter_range"] == [3, 3] and event["event"] == data["convergence_events"][0]["event"]


def test_markdown_contract_problems_name_file_and_line() -> None:
    text = "## 第 4 章：x\n\n### 基本信息\n- **章号**：5\n- **故事线**：主线\n"
    with pytest.raises(FormatError) as err:
        parse_contract_markdown(text, "chapter-004.md", 4)
    lines = sorted((p.line or 0) for p in err.value.problems)
    assert lines == [4, 5]
    with pytest.raises(FormatError) as err:
        parse_contract_markdown("## 第 4 章：x\n", "chapter-003.md", 3)
    assert "file name says chapter 3" in str(err.value)
    mention = parse_contract_markdown("## 第 2 章\n### 事件中自然推进的伏笔\n- F-002：袖口\n", "c.md", 2)
    assert mention.postconditions.foreshadowing_updates == {}
    assert mention.to_data()["foreshadowing_mentions"] == ["F-002"]  # no action guessed, nothing dropped


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_rebuild_of_a_plugin_chapter_refuses_and_changes_nothing(
    plugin_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(plugin_root)
    assert main(["rebuild", "2", "--offline", "--project", str(plugin_root), "--yes", "--lang", "en"]) == 1
    assert "written by another tool" in capsys.readouterr().err
    assert _snapshot(plugin_root) == before


def test_rebuild_of_our_chapter_after_plugin_chapters_keeps_their_state(plugin_root: Path) -> None:
    assert main(["continue", "--offline", "--project", str(plugin_root), "--yes"]) == 0
    assert main(["rebuild", "3", "--offline", "--project", str(plugin_root), "--yes"]) == 0
    state = CurrentState.load(plugin_root / "state" / "current-state.json")
    assert set(state.characters) == {"shen-zhao", "a-ning"} and state.world_state == {"熄灭的长明灯": 3}
    assert "竹篙" in (state.characters["shen-zhao"].inventory or [])
    entries = load_changelog(plugin_root / "state" / "changelog.jsonl")
    assert entries[-1].kind == "rebuild" and replay(entries).to_data() == state.to_data()


def test_undo_of_a_plugin_chapter_refuses_and_keeps_the_project(
    plugin_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {k: v for k, v in _snapshot(plugin_root).items() if not k.startswith(".novel-studio")}
    assert main(["undo", "--project", str(plugin_root), "--yes", "--lang", "en"]) == 1
    assert "another tool" in capsys.readouterr().err
    after = {k: v for k, v in _snapshot(plugin_root).items() if not k.startswith(".novel-studio")}
    assert after == before
