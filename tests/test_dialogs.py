"""Pilot tests of the modal dialogs: decision, confirm, number, text, goto, help."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Label, OptionList, Static, TextArea

from pipeline.decisions import Option, Question, QuestionKind
from screens import decision_dialog
from screens.decision_dialog import DecisionDialog, ask, escape_option
from screens.help_screen import HelpScreen, display_key, format_rows
from screens.prompt_dialogs import (
    ConfirmDialog,
    FoldedText,
    GotoDialog,
    NumberDialog,
    TextDialog,
    describe_valid,
    parse_chapter,
    parse_in_range,
)
from tests.snapshot_apps.dialogs_app import HELP_BINDINGS, HostApp, gate_question, interrupted_question

SIZE = (80, 24)


# -- DecisionDialog ----------------------------------------------------------------------------------------------


async def test_decision_marks_and_focuses_recommended(monkeypatch: pytest.MonkeyPatch) -> None:
    rings: list[int] = []
    titles: list[str] = []
    monkeypatch.setattr(HostApp, "bell", lambda self: rings.append(1))
    monkeypatch.setattr(decision_dialog, "set_terminal_title", lambda app, title: titles.append(title))
    app = HostApp(lambda: DecisionDialog(gate_question(), "zh"))
    app.sub_title = "原来的副标题"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, DecisionDialog)
        options = dialog.query_one(OptionList)
        assert app.focused is options
        assert options.highlighted == 0
        prompt = str(options.get_option_at_index(0).prompt)
        assert "再自动修订一次" in prompt and "（推荐）" in prompt
        assert "（推荐）" not in str(options.get_option_at_index(1).prompt)
        assert rings == [1]
        assert "待你决定" in app.sub_title and "第 12 章" in app.sub_title
        assert titles and "待决定" in titles[-1]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.results == ["edit_by_hand"]
        assert app.sub_title == "原来的副标题"
        assert titles[-1] == app.title  # the terminal title is put back


async def test_decision_digit_key_picks_and_english() -> None:
    app = HostApp(lambda: DecisionDialog(gate_question(), "en"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        assert "(recommended)" in str(options.get_option_at_index(0).prompt)
        assert "Chapter 12 · This chapter scored" in app.screen.query_one("#decision-title", FoldedText).plain
        await pilot.press("3")
        await pilot.pause()
        assert app.results == ["accept"]


async def test_decision_tab_wraps_and_enter_picks_focused() -> None:
    app = HostApp(lambda: DecisionDialog(gate_question(), "zh"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("shift+tab")  # from the recommended first option up to the last
        assert app.screen.query_one(OptionList).highlighted == 2
        await pilot.press("tab", "tab", "enter")
        await pilot.pause()
        assert app.results == ["edit_by_hand"]


async def test_decision_escape_only_with_a_back_out_option() -> None:
    assert escape_option(gate_question()) == "edit_by_hand"
    assert escape_option(interrupted_question()) is None
    app = HostApp(lambda: DecisionDialog(interrupted_question(), "zh"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape", "9")
        await pilot.pause()
        assert isinstance(app.screen, DecisionDialog) and app.results == []
        await pilot.press("2")
        await pilot.pause()
        assert app.results == ["discard"]
    app = HostApp(lambda: DecisionDialog(gate_question(), "zh"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == ["edit_by_hand"]


def test_escape_option_data_override() -> None:
    q = Question(
        kind=QuestionKind.STALE_LOCK,
        chapter=None,
        title_zh="锁",
        title_en="Lock",
        options=[Option("take_over", "接管", "Take over"), Option("quit", "退出", "Quit")],
        recommended="take_over",
        data={"escape": "quit"},
    )
    assert escape_option(q) == "quit"


async def test_ask_from_a_worker_and_from_a_task() -> None:
    app = HostApp()
    async with app.run_test(size=SIZE) as pilot:
        answers: list[str] = []

        async def job() -> None:
            answers.append(await ask(app, gate_question(), "zh"))

        app.run_worker(job(), exclusive=True)
        await pilot.pause()
        assert isinstance(app.screen, DecisionDialog)
        await pilot.press("2")
        await app.workers.wait_for_complete()
        assert answers == ["edit_by_hand"]
        assert not isinstance(app.screen, DecisionDialog)

        task = asyncio.create_task(ask(app, interrupted_question(), "en"))
        await pilot.pause()
        assert isinstance(app.screen, DecisionDialog)
        await pilot.press("enter")
        assert await asyncio.wait_for(task, 5) == "resume"


# -- ConfirmDialog -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("default", "keys", "expected"),
    [
        (False, ["enter"], False),
        (True, ["enter"], True),
        (False, ["y"], True),
        (True, ["n"], False),
        (True, ["escape"], False),
        (False, ["left", "enter"], True),
    ],
)
async def test_confirm(default: bool, keys: list[str], expected: bool) -> None:
    app = HostApp(lambda: ConfirmDialog("正在写第 3 章，确定退出吗？", "zh", default=default))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        assert app.results == [expected]


# -- NumberDialog ------------------------------------------------------------------------------------------------


def test_parse_helpers() -> None:
    assert parse_in_range("3", 1, 5) == 3
    assert parse_in_range(" 5 ", 1, 5) == 5
    assert parse_in_range("0", 1, 5) is None
    assert parse_in_range("6", 1, 5) is None
    assert parse_in_range("", 1, 5) is None
    assert parse_in_range("三", 1, 5) is None
    assert parse_chapter("4", {1, 2, 4}) == 4
    assert parse_chapter("3", {1, 2, 4}) is None
    assert parse_chapter("12", range(1, 13)) == 12
    assert describe_valid(range(1, 13)) == "1–12"
    assert describe_valid({1, 2, 3, 5, 8, 9}) == "1–3, 5, 8–9"
    assert describe_valid([]) == ""


async def test_number_dialog_validates_and_estimates() -> None:
    def estimate(n: int) -> str:
        return f"预计花费 ¥{n * 1.5:.2f}"

    app = HostApp(lambda: NumberDialog(10, estimate, "zh", initial=1))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        line = app.screen.query_one("#number-estimate", Label)
        assert "¥1.50" in str(line.render())
        await pilot.press("backspace", "1", "2")
        await pilot.pause()
        assert "超出范围" in str(line.render())
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == []  # 12 > 10: not accepted
        await pilot.press("backspace", "backspace", "4")
        await pilot.pause()
        assert "¥6.00" in str(line.render())
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == [4]


async def test_number_dialog_escape() -> None:
    app = HostApp(lambda: NumberDialog(5, None, "en"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]


# -- TextDialog --------------------------------------------------------------------------------------------------


async def test_text_dialog_ctrl_s_submits_multiline() -> None:
    app = HostApp(lambda: TextDialog("本章要求", "zh", initial="主角"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        area = app.screen.query_one(TextArea)
        assert app.focused is area
        area.insert("不要说话")
        await pilot.press("enter")
        area.insert("结尾留悬念")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.results == ["主角不要说话\n结尾留悬念"]


async def test_text_dialog_escape_and_button() -> None:
    app = HostApp(lambda: TextDialog("本章要求", "zh", initial="草稿"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]
    app = HostApp(lambda: TextDialog("Note", "en", initial="keep it short"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click("#save")
        await pilot.pause()
        assert app.results == ["keep it short"]


# -- GotoDialog --------------------------------------------------------------------------------------------------


async def test_goto_dialog_validates() -> None:
    app = HostApp(lambda: GotoDialog({1, 2, 3, 5}, "zh", current=2))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("4", "enter")
        await pilot.pause()
        assert app.results == []
        assert "没有第 4 章" in str(app.screen.query_one("#goto-error", Label).render())
        await pilot.press("backspace", "5", "enter")
        await pilot.pause()
        assert app.results == [5]


async def test_goto_dialog_escape() -> None:
    app = HostApp(lambda: GotoDialog(range(1, 501), "en"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]


# -- HelpScreen --------------------------------------------------------------------------------------------------


def test_display_key_and_alignment() -> None:
    assert display_key("ctrl+p") == "Ctrl+P"
    assert display_key("question_mark") == "?"
    assert display_key("1,2,3,4") == "1 / 2 / 3 / 4"
    assert display_key("shift+tab") == "Shift+Tab"
    rows = format_rows([("c", "写下一章"), ("ctrl+p", "命令面板"), ("空格", "中文键名")])
    from rich.cells import cell_len

    # The description column starts at the same cell for every row, CJK key names included.
    starts = [
        cell_len(row[: row.index(desc)])
        for row, desc in zip(rows, ["写下一章", "命令面板", "中文键名"], strict=True)
    ]
    assert len(set(starts)) == 1


@pytest.mark.parametrize("close_key", ["escape", "q", "question_mark"])
async def test_help_lists_keys_and_closes(close_key: str) -> None:
    bindings = [*HELP_BINDINGS, ("f5", "重新映射的写作键")]
    app = HostApp(lambda: HelpScreen(bindings, "zh"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        body = str(app.screen.query_one("#help-rows", Static).render())
        for _, description in bindings:
            assert description in body
        assert "Ctrl+P" in body and "f5" in body
        await pilot.press(close_key)
        await pilot.pause()
        assert app.results == [None]


async def test_help_grouped() -> None:
    screen = HelpScreen.grouped([("写作", [("c", "写下一章")]), ("导航", [("ctrl+p", "命令面板")])], "en")
    lines = screen.lines()
    assert lines[0] == "【写作】" and "【导航】" in lines
