"""The quick start (issue 7 item 2): the one flow `pipeline.planning.quick_start.run_quick_start`, offline with
the real agents through `novel-studio start`, each style path, the trial-confirm answers, bad replies (nothing
applied), the cold-start check of an unfinished quick start, and `start` never redoing a quick start on a
project with chapters without confirmation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pipeline.context import style_metrics
from pipeline.decisions import take_recommended
from pipeline.events import Event, Notice, QuickStartStep
from pipeline.orchestrator import Orchestrator
from pipeline.planning.quick_start import QuickStartRefused, TrialAnswer, parse_trial_answer
from studio.author_brief import clean_brief
from studio.cli.main import main
from studio.coldstart import check_cold_start, refusals
from studio.fileio import atomic_write_text, read_text
from studio.init_project import init_project
from studio.models.character import CharacterFile
from studio.models.checkpoint import Checkpoint, OrchestratorState, save_checkpoint
from studio.models.quick_start import QuickStartRequest
from studio.models.settings import Settings
from studio.models.storylines import Storylines
from studio.models.style_profile import StyleProfile
from studio.paths import ProjectPaths
from studio.planning.quick_start_progress import QuickStartProgress, load_progress, save_progress
from tests.fake_agents import FakeAgents
from tests.quick_start_helpers import (
    BRIEF_ARGS,
    answers,
    assert_quick_start_done,
    briefed_project,
    quick_start,
)

SAMPLE = """# 第一章 旧账

雨下到后半夜才停。沈照把最后一箱旧书搬上三轮车，回头看了一眼黑着灯的铺子。

“你又欠了三天房租。”房东靠在门框上，手里的瓜子壳一片一片往地上掉。

沈照没吭声。他数了数兜里的零钱，十七块五，够买两碗面，不够买一个晚上的安稳。

“明天给。”他说。

房东笑了一声，笑得很短，像是被门缝夹住了。巷口的狗叫了两声，又不叫了。

他推着车往江边走。车轮压过积水，水花溅到裤脚上，凉得他打了个激灵。
"""


def test_start_offline_from_an_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mine"
    assert main(["start", str(root), "--offline", "--yes", *BRIEF_ARGS]) == 0
    out = capsys.readouterr().out
    assert "[1/8] 世界观（轻量） ✓" in out and "快速起步完成" in out and "Ch 3" in out or "第3章" in out
    assert_quick_start_done(root)
    profile = StyleProfile.load(ProjectPaths(root).style_profile)
    assert profile.source_type == "write_then_extract"  # the default: taken from the trial chapters
    chapters = "".join(read_text(ProjectPaths(root).chapter(n)) for n in (1, 2, 3))
    measured = style_metrics(chapters, [])
    assert profile.avg_sentence_length == round(measured["avg_sentence_length"], 1)  # numbers by code
    exemplars = (profile.model_extra or {})["style_exemplars"]
    assert 1 <= len(exemplars) <= 2 and all(e.split("\n")[0] in chapters for e in exemplars)
    # every call went through the spend ledger, the planning agents' included
    agents = {json.loads(line)["agent"] for line in ProjectPaths(root).spend_ledger.read_text("utf-8").splitlines()}
    assert {"world_builder", "character_weaver", "plot_architect", "style_analyzer", "chapter_writer"} <= agents
    # start again: the quick start is not redone, it says what comes next
    before = read_text(ProjectPaths(root).chapter(1))
    assert main(["start", str(root), "--offline", "--yes"]) == 0
    assert "novel-studio plan" in capsys.readouterr().out
    assert read_text(ProjectPaths(root).chapter(1)) == before


def test_an_empty_brief_with_yes_asks_as_json_and_writes_nothing(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    assert main(["start", str(root), "--offline", "--yes", "--json"]) == 3
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["event"] == "question" and data["kind"] == "brief"
    assert [f["key"] for f in data["fields"]][:2] == ["genre", "selling_points"]
    assert list(root.iterdir()) == []
    # an initialised project with the template brief: the same question, nothing written
    project = init_project(tmp_path / "fresh")
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    assert main(["start", str(project), "--offline", "--yes", "--json"]) == 3
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["kind"] == "brief"
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before


def test_bad_options_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "n"
    assert main(["start", str(root), "--offline", "--yes", *BRIEF_ARGS, "--style", "preset", "--preset", "无此基调"]) == 2
    assert "快速起步选项有误" in capsys.readouterr().err
    assert main(["start", str(root), "--offline", "--yes", *BRIEF_ARGS, "--sample", str(tmp_path / "nope.md")]) == 2
    assert "找不到风格样本文件" in capsys.readouterr().err
    assert main(["start", str(root), "--offline", "--yes", "--brief-field", "mood=sad"]) == 2
    assert main(["start", str(root), "--offline", *BRIEF_ARGS, "--answer", "maybe"]) == 2
    assert "--answer" in capsys.readouterr().err
    assert not root.exists()


def test_start_on_a_project_with_chapters_needs_confirmation(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = briefed_project(tmp_path)
    assert quick_start(root).status == "confirmed"
    paths = ProjectPaths(root)
    before = {p: p.read_bytes() for p in (paths.chapter(1), paths.world_rules, paths.style_profile)}
    assert main(["start", str(root), "--offline", "--restart", "--json"]) == 3
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["event"] == "question" and data["kind"] == "restart"
    assert {p: p.read_bytes() for p in before} == before
    assert main(["start", str(root), "--offline", "--yes", "--restart"]) == 0
    assert "已备份到" in capsys.readouterr().out
    backups = list((root / ".novel-studio" / "quick-start-backup").iterdir())
    assert len(backups) == 1 and (backups[0] / "chapters" / "chapter-001.md").read_bytes() == before[paths.chapter(1)]
    assert_quick_start_done(root)


@pytest.mark.parametrize("source", ["samples", "reference", "preset"])
def test_each_style_path(tmp_path: Path, source: str) -> None:
    root = briefed_project(tmp_path)
    sample = tmp_path / "my-chapter.md"
    atomic_write_text(sample, SAMPLE)
    request = QuickStartRequest(
        style_source=source,
        sample_paths=[str(sample)] if source == "samples" else [],
        reference_author="辰东" if source == "reference" else "",
        preset="轻松幽默" if source == "preset" else "",
    )
    events: list[Event] = []
    outcome = quick_start(root, request, events=events)
    assert outcome.status == "confirmed", outcome.message
    assert_quick_start_done(root)
    assert any(isinstance(e, QuickStartStep) and e.step == "extract" and e.status == "skipped" for e in events)
    profile = StyleProfile.load(ProjectPaths(root).style_profile)
    assert profile.writing_directives
    exemplars = (profile.model_extra or {})["style_exemplars"]
    if source == "samples":
        measured = style_metrics(SAMPLE, [])
        assert profile.source_type == "original"
        assert profile.avg_sentence_length == round(measured["avg_sentence_length"], 1)
        assert profile.dialogue_ratio == round(measured["dialogue_ratio"], 2)
        assert 1 <= len(exemplars) <= 2 and all(e in SAMPLE for e in exemplars)  # verbatim, the author's own
    elif source == "reference":
        assert (profile.source_type, profile.reference_author) == ("reference", "辰东")
        assert profile.avg_sentence_length is None and profile.dialogue_ratio is None
        assert exemplars == []  # never third-party prose
    else:
        assert profile.source_type == "template" and (profile.model_extra or {})["style_name"] == "轻松幽默"
        assert profile.avg_sentence_length is None and 1 <= len(exemplars) <= 2


def test_trial_answers_adjust_rewrite_then_confirm(tmp_path: Path) -> None:
    root = briefed_project(tmp_path)
    paths = ProjectPaths(root)
    decide = answers("adjust:style:多写对话", "adjust:character:su-wan-qing:更冷一些", "huh", "adjust:brief",
                     "rewrite:节奏再快一点")
    outcome = quick_start(root, QuickStartRequest(style_source="preset", preset="热血少年"), decide=decide)
    assert outcome.status == "confirmed", outcome.message
    assert len(decide.asked) == 6  # type: ignore[attr-defined]
    log = [e for e in read_text(paths.spend_ledger).splitlines() if '"style_analyzer"' in e]
    assert len(log) == 2  # the style ran again for the adjustment
    # the one character CharacterWeaver updated, nobody else
    assert "更冷一些" in read_text(paths.character_profile("su-wan-qing"))
    assert "更冷一些" in CharacterFile.load(paths.character("su-wan-qing")).contracts[0].rule
    assert "更冷一些" not in read_text(paths.character_profile("shen-zhao"))
    assert "更冷一些" in read_text(root / "characters" / "changelog.md")
    # the rewrite took the trial chapters back (kept in the undo archive) and wrote them again with the note
    assert (root / ".novel-studio" / "undo").is_dir()
    assert_quick_start_done(root)


def test_restart_backs_up_and_clears_but_keeps_the_brief(tmp_path: Path) -> None:
    root = briefed_project(tmp_path)
    brief = read_text(root / "brief.md")
    outcome = quick_start(root, decide=answers("restart"))
    assert outcome.status == "restarted" and outcome.backup
    paths = ProjectPaths(root)
    assert read_text(root / "brief.md") == brief
    assert not paths.chapter(1).exists() and not list(paths.characters_active.glob("*.json"))
    assert Storylines.load(paths.storylines).storylines == []
    assert Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter == 0
    backup = root / outcome.backup
    assert (backup / "chapters" / "chapter-003.md").is_file() and (backup / "world" / "rules.json").is_file()
    assert load_progress(paths) is None
    assert quick_start(root).status == "confirmed"  # and it can start again from the brief
    assert_quick_start_done(root)


def test_parse_trial_answer() -> None:
    assert parse_trial_answer("confirm") == TrialAnswer("confirm")
    assert parse_trial_answer("adjust:character:lin-feng:更狠") == TrialAnswer("adjust", "character", "lin-feng", "更狠")
    assert parse_trial_answer("rewrite") == TrialAnswer("rewrite")
    for answer in (TrialAnswer("adjust", "style", note="短句"), TrialAnswer("rewrite", note="快"), TrialAnswer("restart")):
        assert parse_trial_answer(answer.encode()) == answer
    for bad in ("", "yes", "adjust", "adjust:character", "confirm:now"):
        with pytest.raises(ValueError):
            parse_trial_answer(bad)


def test_an_empty_brief_or_chapters_refuse_before_writing(tmp_path: Path) -> None:
    root = init_project(tmp_path / "n")
    with pytest.raises(QuickStartRefused, match="创作纲领"):
        quick_start(root)
    assert load_progress(ProjectPaths(root)) is None
    sample = init_project(tmp_path / "sample", sample=True)
    with pytest.raises(QuickStartRefused, match="已提交"):
        quick_start(sample)


def test_an_unfinished_quick_start_is_known_to_the_cold_start(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = briefed_project(tmp_path)
    paths = ProjectPaths(root)
    save_progress(paths, QuickStartProgress(done=["world"]))
    keys = [f.key for f in refusals(check_cold_start(paths))]
    assert keys == ["quick_start_unfinished"]
    assert main(["continue", "--project", str(root), "--offline", "--yes"]) == 1
    assert "novel-studio start" in capsys.readouterr().err
    assert main(["plan", "--project", str(root), "--offline", "--yes"]) == 1
    # during the trial chapters the orchestrator writes: no refusal
    save_progress(paths, QuickStartProgress(done=["world", "characters", "storyline", "style", "opening"]))
    assert refusals(check_cold_start(paths)) == []


def test_plan_on_a_fresh_project_creates_the_main_storyline(tmp_path: Path) -> None:
    root = init_project(tmp_path / "fresh")
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--volume-length", "3"]) == 0
    lines = Storylines.load(ProjectPaths(root).storylines)
    assert lines.ids() == ["main-arc"] and lines.storylines[0].type == "main_arc"
    assert ProjectPaths(root).storyline_memory("main-arc").is_file()
    assert Checkpoint.load(ProjectPaths(root).checkpoint).orchestrator_state is OrchestratorState.WRITING


def test_without_a_terminal_the_trial_waits_then_answer_goes_on(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "n"
    assert main(["start", str(root), "--offline", "--json", *BRIEF_ARGS, "--style", "preset", "--preset",
                 "冷峻悬疑"]) == 3
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    question = lines[-1]
    assert question["event"] == "question" and question["kind"] == "trial_confirm"
    assert question["options"] == ["confirm", "adjust", "restart"] and len(question["data"]["chapters"]) == 3
    assert any(e.get("event") == "quick_start_step" and e["step"] == "trial" for e in lines)
    paths = ProjectPaths(root)
    assert load_progress(paths) is not None and Checkpoint.load(paths.checkpoint).last_completed_chapter == 3
    # continue refuses while the trial waits, and says how to go on
    assert main(["continue", "--project", str(root), "--offline", "--yes"]) == 1
    assert "novel-studio start" in capsys.readouterr().err
    ledger = len(paths.spend_ledger.read_text("utf-8").splitlines())
    assert main(["start", str(root), "--offline", "--answer", "adjust:style:更冷一点"]) == 3  # asked again after
    assert len(paths.spend_ledger.read_text("utf-8").splitlines()) == ledger + 1  # only the style ran again
    capsys.readouterr()
    assert main(["start", str(root), "--offline", "--answer", "confirm"]) == 0
    assert "快速起步完成" in capsys.readouterr().out
    assert_quick_start_done(root)


def test_start_on_an_open_volume_says_continue(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = init_project(tmp_path / "n")
    assert main(["plan", "--project", str(root), "--offline", "--yes", "--volume-length", "3"]) == 0
    assert main(["continue", "--project", str(root), "--offline", "--yes"]) == 0
    capsys.readouterr()
    assert main(["start", str(root), "--offline", "--json"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["state"] == "volume_open" and "novel-studio continue" in data["message"]
    assert Checkpoint.load(ProjectPaths(root).checkpoint).last_completed_chapter == 1


def test_in_quick_start_the_outline_end_is_not_a_volume_end(tmp_path: Path) -> None:
    root = tmp_path / "n"
    assert main(["plan", "--project", str(init_project(root)), "--offline", "--yes", "--volume-length", "3"]) == 0
    paths = ProjectPaths(root)
    cp = Checkpoint.load(paths.checkpoint)
    cp.orchestrator_state = OrchestratorState.QUICK_START
    save_checkpoint(paths, cp)
    events: list[Event] = []
    orchestrator = Orchestrator(root, FakeAgents(paths), decider=take_recommended, emit=events.append,
                                settings=Settings())
    result = asyncio.run(orchestrator.run(3))
    assert result.committed == [1, 2, 3] and not result.stopped_at_volume_end
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.last_completed_chapter, cp.orchestrator_state) == (3, OrchestratorState.QUICK_START)
    assert not any(isinstance(e, Notice) and "novel-studio plan" in e.message for e in events)


def test_on_a_terminal_the_brief_is_asked_field_by_field(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    typed = iter(["仙侠", "", "林照，被逐出师门的剑修", "", "重回宗门还是另立门户", "", "", "", "", "不写后宫"])
    monkeypatch.setattr("studio.cli.start_cmd.is_interactive", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    root = tmp_path / "n"
    # the trial confirmation is then asked by the terminal decider, which finds no terminal: paused, resumable
    assert main(["start", str(root), "--offline"]) == 3
    sections = dict(clean_brief(read_text(root / "brief.md")).sections)
    assert (sections["题材"], sections["禁忌与雷区"]) == ("仙侠", "不写后宫") and "核心卖点" not in sections
    assert load_progress(ProjectPaths(root)).next_step() == "confirm"  # type: ignore[union-attr]
    assert main(["start", str(root), "--offline", "--yes"]) == 0
    assert_quick_start_done(root)


def test_after_the_trial_plan_plans_the_rest_of_volume_one_and_continue_writes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Confirm leads to volume planning with chapters 1-3 fixed: `plan` after `start` plans chapters 4..K of
    volume 1 (K = the quick start's volume length), not volume 2, and `continue` writes chapter 4."""
    root = tmp_path / "mine"
    assert main(["start", str(root), "--offline", "--yes", "--volume-length", "6", *BRIEF_ARGS]) == 0
    paths = ProjectPaths(root)
    trial_outline = read_text(paths.outline(1))
    written = [read_text(paths.chapter(n)) for n in (1, 2, 3)]
    capsys.readouterr()
    assert main(["plan", "--project", str(root), "--offline", "--yes"]) == 0
    from studio.outline import parse_outline

    outline = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    assert outline.chapter_range == (1, 6)
    assert not paths.outline(2).exists()
    kept = parse_outline(trial_outline, paths.outline(1))
    assert [c.heading for c in outline.chapters[:3]] == [c.heading for c in kept.chapters]
    assert [read_text(paths.chapter(n)) for n in (1, 2, 3)] == written  # committed chapters untouched
    assert main(["continue", "1", "--project", str(root), "--offline", "--yes"]) == 0
    assert paths.chapter(4).is_file()


def test_after_confirm_on_a_terminal_start_offers_to_plan_and_keeps_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Confirming the trial on a terminal offers the volume plan; `y` runs `plan` with this run's `--offline` and
    language (a quick start tried offline never goes on to spend money); a later `start` offers it again."""
    root = tmp_path / "n"
    assert main(["start", str(root), "--offline", "--json", *BRIEF_ARGS]) == 3  # the trial waits for the author
    import studio.cli.main as cli_main

    handed: list[list[str]] = []
    real_main = cli_main.main

    def recording_main(argv: list[str] | None = None) -> int:
        if argv and argv[0] == "plan":
            handed.append(list(argv))
            return 0
        return real_main(argv)

    typed = iter(["y", "n"])
    asked: list[str] = []

    def answer(prompt: str = "") -> str:
        asked.append(prompt)
        return next(typed)

    monkeypatch.setattr(cli_main, "main", recording_main)
    monkeypatch.setattr("studio.cli.start_cmd.is_interactive", lambda: True)
    monkeypatch.setattr("builtins.input", answer)
    capsys.readouterr()
    assert main(["start", str(root), "--offline", "--answer", "confirm"]) == 0
    assert asked == ["现在规划第 1 卷吗？[y/N] "]
    assert handed == [["plan", "--project", str(root.resolve()), "--lang", "zh", "--offline"]]
    assert main(["start", str(root), "--offline"]) == 0  # planning is due: offered again, declined ("n")
    assert asked[-1] == "现在规划第 1 卷吗？[y/N] " and len(handed) == 1
    assert "novel-studio plan" in capsys.readouterr().out
