"""The plan-approval screen (issue 7 item 4): what it shows, and every key (y, k, r, e, n, escape, scrolling)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, TextArea

from pipeline.decisions import parse_plan_answer
from screens.plan_approval import NOTE_FILE, PlanApprovalScreen, PlanNoteDialog
from screens.prompt_dialogs import ConfirmDialog, NumberDialog
from studio.tui import editor
from studio.tui.plan_text import plan_chapter_count, plan_text, write_cost_per_chapter
from tests.snapshot_apps.dialogs_app import HostApp
from tests.snapshot_apps.planning_app import DIFF, NAMES, plan_data, plan_question
from tests.tui_helpers import notified, wait_for

# ----------------------------------------------------------------------------------------------- plan_text


def test_plan_text_shows_every_field_of_every_chapter() -> None:
    text = plan_text(plan_data(), "zh", names=NAMES).plain
    assert "第 2 卷计划：第 11-16 章，共 6 章" in text
    for label in ("故事线：", "视角：", "地点：", "冲突：", "爽点：", "章末钩子：", "伏笔："):
        assert label in text
    assert "第11章 雾港夜航" in text and "第16章 港口封锁" in text
    assert "视角：林雾" in text and "视角：周老" in text  # display names, not slugs
    assert "lin-wu" not in text
    assert "爽点：第一次看见雾中亡者" in text and "章末钩子：周老被带走" in text
    assert "本卷新伏笔：father-notes、torn-page（被撕掉的最后一页）" in text
    assert "提醒（不阻止批准）" in text and "故事线 main-arc 连续 3 章为主线" in text
    assert "写完本卷预计 $2.40（每章约 $0.40）" in text
    # chapter by chapter, in order
    assert text.index("第11章") < text.index("第12章") < text.index("第16章") < text.index("本卷新伏笔")


def test_plan_text_names_storylines() -> None:
    """Storyline ids are for files: the author reads the name the storylines file gives (issue 12 item 4)."""
    plain = plan_text(plan_data(), "zh").plain
    ids = {line.partition("：")[2] for line in plain.splitlines() if line.strip().startswith("故事线：")}
    assert ids, plain
    named = plan_text(plan_data(), "zh", storylines={i: f"线{n}" for n, i in enumerate(sorted(ids))}).plain
    shown = {line.partition("：")[2] for line in named.splitlines() if line.strip().startswith("故事线：")}
    assert shown == {f"线{n}" for n in range(len(ids))}


def test_plan_text_in_english_uses_the_english_warnings() -> None:
    text = plan_text(plan_data(), "en").plain
    assert "Plan of volume 2: chapters 11-16, 6 chapters" in text
    assert "Ch 11 雾港夜航" in text and "Payoff: " in text and "Hook: " in text
    assert "main-arc carries 3 chapters in a row" in text
    assert "Writing the volume: about $2.40 ($0.40 a chapter)" in text


def test_plan_text_facts_first_and_costs() -> None:
    text = plan_text(plan_data(cost=0.0), "zh", facts=["编辑后的大纲有错误：第 13 章缺少故事线"]).plain
    assert text.startswith("编辑后的大纲有错误")
    assert "写完本卷预计不花钱（离线）" in text
    assert "费用未估算" in plan_text(plan_data(cost=None), "zh").plain
    empty = plan_text({"volume": 3, "warnings": []}, "zh").plain
    assert "（计划里没有章节）" in empty and "检查通过，没有提醒" in empty


def test_counts_and_cost_per_chapter() -> None:
    assert plan_chapter_count(plan_data()) == 6
    assert plan_chapter_count({"first_chapter": 1, "last_chapter": 30}) == 30
    assert write_cost_per_chapter(plan_data()) == pytest.approx(0.4)
    assert write_cost_per_chapter(plan_data(cost=None)) is None
    assert write_cost_per_chapter({"estimated_write_cost_usd": 1.0}) is None


# ----------------------------------------------------------------------------------------------- Pilot


def _outline(tmp_path: Path) -> Path:
    path = tmp_path / "staging" / "plan" / "vol-02" / "outline.md"
    path.parent.mkdir(parents=True)
    path.write_text("# 第2卷\n\n## 第11章 雾港夜航\n- Storyline: main-arc\n", encoding="utf-8")
    return path


def _app(tmp_path: Path, lang: Any = "zh") -> HostApp:
    outline = _outline(tmp_path)
    return HostApp(lambda: PlanApprovalScreen(plan_question(outline), lang, names=NAMES, root=tmp_path))


async def test_y_approves(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PlanApprovalScreen)
        await pilot.press("y")
        await pilot.pause()
    assert app.results == ["y"]


async def test_k_changes_the_count_with_the_cost_shown(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NumberDialog)
        assert dialog.query_one(Input).value == "6"  # the plan's count first
        await pilot.press("escape")  # backing out of the count keeps the plan on screen
        await pilot.pause()
        assert isinstance(app.screen, PlanApprovalScreen) and app.results == []
        await pilot.press("k")
        await pilot.pause()
        second = app.screen
        assert isinstance(second, NumberDialog)
        second.query_one(Input).value = "20"
        await pilot.pause()
        assert "写 20 章预计 $8.00" in str(second.query_one("#number-estimate").render())
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == ["k:20"]
    assert parse_plan_answer("k:20").count == 20


async def test_r_replans_with_a_chinese_note(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, PlanNoteDialog)
        await pilot.press("ctrl+s")  # an empty note re-plans nothing
        await pilot.pause()
        assert isinstance(app.screen, PlanApprovalScreen) and app.results == []
        await pilot.press("r")
        await pilot.pause()
        await pilot.press(*"第五章前让女主登场")  # committed characters, as an input method sends them
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == ["r:第五章前让女主登场"]
    answer = parse_plan_answer(str(app.results[0]))
    assert answer.action == "r" and answer.note == "第五章前让女主登场"


async def test_long_note_in_the_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def fake_editor(app: Any, argv: list[str]) -> int:
        path = Path(argv[-1])
        seen.append(path.read_text(encoding="utf-8"))
        path.write_text("节奏放慢。\n第 13 章之后再揭开账簿的秘密。\n", encoding="utf-8")
        return 0

    monkeypatch.setattr(editor, "EDITOR_RUNNER", fake_editor)
    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        await pilot.press(*"节奏")
        await pilot.press("ctrl+o")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PlanNoteDialog)
        assert dialog.query_one(TextArea).text == "节奏放慢。\n第 13 章之后再揭开账簿的秘密。"
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert seen == ["节奏"]  # the editor starts from what was typed
    assert app.results == ["r:节奏放慢。\n第 13 章之后再揭开账簿的秘密。"]
    assert (tmp_path / NOTE_FILE).is_file()  # the long note is kept


async def test_e_edits_the_staged_outline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edited: list[list[str]] = []

    def unchanged(app: Any, argv: list[str]) -> int:
        edited.append(argv)
        return 0

    monkeypatch.setattr(editor, "EDITOR_RUNNER", unchanged)
    app = _app(tmp_path)
    outline = tmp_path / "staging" / "plan" / "vol-02" / "outline.md"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert edited and edited[-1][-1] == str(outline)
        assert isinstance(app.screen, PlanApprovalScreen) and app.results == []  # nothing changed: ask on
        assert any("没有改动" in m for m in notified(app))

        def change(app: Any, argv: list[str]) -> int:
            Path(argv[-1]).write_text("# 第2卷\n\n## 第11章 雾港夜航（改）\n", encoding="utf-8")
            return 0

        monkeypatch.setattr(editor, "EDITOR_RUNNER", change)
        await pilot.press("e")
        await pilot.pause()
    assert app.results == ["e"]
    assert "（改）" in outline.read_text(encoding="utf-8")


async def test_e_without_an_outline_says_so(tmp_path: Path) -> None:
    app = HostApp(lambda: PlanApprovalScreen(plan_question(tmp_path / "missing.md"), "zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, PlanApprovalScreen)
        assert any("找不到暂存的大纲" in m for m in notified(app))
    assert app.results == []


@pytest.mark.parametrize("key", ["n", "escape"])
async def test_cancel_is_confirmed_first(tmp_path: Path, key: str) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")  # keep reviewing
        await pilot.pause()
        assert isinstance(app.screen, PlanApprovalScreen) and app.results == []
        await pilot.press(key)
        await pilot.pause()
        await pilot.press("escape")  # escape on the confirmation keeps the plan too
        await pilot.pause()
        assert isinstance(app.screen, PlanApprovalScreen) and app.results == []
        await pilot.press(key)
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert app.results == ["n"]


async def test_scrolling_keys(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlanApprovalScreen)
        body = screen.body
        assert body.max_scroll_y > 10  # 6 chapters do not fit in 80x24
        await pilot.press("j")
        await pilot.pause()
        assert body.scroll_y == 1
        await pilot.press("down", "down")
        await pilot.pause()
        assert body.scroll_y == 3
        await pilot.press("up")
        await pilot.pause()
        assert body.scroll_y == 2
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 10
        await pilot.press("pageup")
        await pilot.pause()
        assert body.scroll_y == 2
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("home")
        await pilot.pause()
        assert body.scroll_y == 0
        assert await wait_for(pilot, lambda: app.results == [], limit=2)
    assert app.results == []


async def test_english_screen(tmp_path: Path) -> None:
    app = _app(tmp_path, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlanApprovalScreen)
        assert "Approve the plan of volume 2?" in screen.query_one("#approval-title").render().__str__()
        assert "y approve" in str(screen.query_one("#approval-hint").render())


def test_only_plan_approval_questions() -> None:
    from tests.snapshot_apps.dialogs_app import gate_question

    with pytest.raises(ValueError):
        PlanApprovalScreen(gate_question())


def test_fold_lines_breaks_the_chinese_way_and_keeps_styles() -> None:
    from rich.text import Text

    from studio.tui.plan_text import fold_lines

    text = Text("第11章 雾港夜航\n")
    text.append("  冲突：", style="dim")
    text.append("守灯人失踪，林雾被迫接手灯塔，税关的人在雾里搜她父亲留下的账簿。")
    lines = fold_lines(text, 20)
    assert [line.plain for line in lines][:2] == ["第11章 雾港夜航", "  冲突：守灯人失踪，"]
    assert all(line.cell_len <= 20 for line in lines)
    assert not any(line.plain.startswith(("，", "。")) for line in lines)  # no closing mark starts a line
    assert "".join(line.plain for line in lines[1:]) == text.plain.split("\n")[1]
    assert any(span.style == "dim" for span in lines[1].spans)


async def test_a_relative_outline_path_is_the_projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outline = _outline(tmp_path)
    edited: list[str] = []

    def change(app: Any, argv: list[str]) -> int:
        edited.append(argv[-1])
        Path(argv[-1]).write_text("# 第2卷\n", encoding="utf-8")
        return 0

    monkeypatch.setattr(editor, "EDITOR_RUNNER", change)
    question = plan_question()
    question.data["outline_path"] = str(outline.relative_to(tmp_path))
    app = HostApp(lambda: PlanApprovalScreen(question, "zh", root=tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
    assert edited == [str(outline)]
    assert app.results == ["e"]


def test_plan_text_shows_the_diff_the_overwrites_and_new_characters() -> None:
    text = plan_text(
        plan_data(), "zh", names=NAMES, diff=DIFF, overwrites=[("volumes/vol-02/outline.md", "-旧\n+新")]
    ).plain
    assert text.index("注意：批准会替换这些你手动改过的文件") < text.index("与现有大纲的差异") < text.index("第11章")
    assert "  volumes/vol-02/outline.md" in text and "  -旧" in text and "  +新" in text
    assert "+- Conflict: 守灯人失踪，林雾被迫接手灯塔" in text
    assert "新角色：\n  - 顾三（税关小吏，第 13 章需要一个内应）" in text


async def test_facts_repeating_the_plan_are_not_shown_twice(tmp_path: Path) -> None:
    question = plan_question(facts=["第 2 卷计划（第 11-16 章，共 6 章）", "第11章 雾港夜航"])
    app = HostApp(lambda: PlanApprovalScreen(question, "zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlanApprovalScreen)
        assert screen.body.plain.count("雾港夜航") == 1
    bare = plan_question(facts=["只有文字的计划：第11章 雾港夜航"])
    bare.data.pop("plan")
    app = HostApp(lambda: PlanApprovalScreen(bare, "zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlanApprovalScreen)
        assert "只有文字的计划" in screen.body.plain  # no plan data: the facts are what there is


async def test_y_over_hand_edited_files_is_confirmed(tmp_path: Path) -> None:
    question = plan_question(overwrites=[{"path": "volumes/vol-02/outline.md", "diff": "-旧\n+新"}])
    app = HostApp(lambda: PlanApprovalScreen(question, "zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlanApprovalScreen)
        assert "会替换 1 个手改过的文件" in str(screen.query_one("#approval-summary").render())
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, PlanApprovalScreen) and app.results == []
        await pilot.press("y")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert app.results == ["y"]
