"""The studio's answers to the quick start's TRIAL_CONFIRM: confirm, adjust (brief / style / a character /
rewrite, each with its follow-up) and start over (asked once more)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static, TextArea

from pipeline.decisions import Option, Question, QuestionKind
from screens.decision_dialog import DecisionDialog
from screens.prompt_dialogs import ConfirmDialog, TextDialog
from screens.trial_confirm import adjust_question, answer_trial_confirm
from studio.i18n import Lang
from studio.tui import editor
from tests.tui_helpers import wait_for


def trial_question() -> Question:
    return Question(
        kind=QuestionKind.TRIAL_CONFIRM,
        chapter=3,
        title_zh="试写三章已完成",
        title_en="The trial chapters are written",
        facts=["第1章：3120字，评分 3.8"],
        options=[
            Option("confirm", "确认，进入卷规划", "confirm"),
            Option("adjust", "调整", "adjust"),
            Option("restart", "重来", "start over"),
        ],
        recommended="confirm",
        data={"characters": ["lin-wu", "zhou-lao"], "facts_en": ["Ch 1: 3120 chars, score 3.8"]},
    )


class TrialApp(App[None]):
    def __init__(self, root: Path, lang: Lang = "zh") -> None:
        super().__init__()
        self.root = root
        self.lang: Lang = lang
        self.answers: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.run_worker(self._answer(), exit_on_error=False)

    async def _answer(self) -> None:
        names = {"lin-wu": "林雾", "zhou-lao": "周老"}
        self.answers.append(
            await answer_trial_confirm(self, trial_question(), self.lang, root=self.root, names=names)
        )


async def _dialog(pilot: Any, app: App[None], cls: type) -> Any:
    assert await wait_for(pilot, lambda: isinstance(app.screen, cls))
    return app.screen


async def _note(pilot: Any, app: App[None], text: str) -> None:
    dialog = await _dialog(pilot, app, TextDialog)
    dialog.query_one(TextArea).text = text
    await pilot.press("ctrl+s")


async def test_confirm(tmp_path: Path) -> None:
    app = TrialApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await _dialog(pilot, app, DecisionDialog)
        assert dialog.question.facts == ["第1章：3120字，评分 3.8"]
        await pilot.press("1")
        assert await wait_for(pilot, lambda: bool(app.answers))
    assert app.answers == ["confirm"]


async def test_english_facts(tmp_path: Path) -> None:
    app = TrialApp(tmp_path, "en")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await _dialog(pilot, app, DecisionDialog)
        assert dialog.question.facts == ["Ch 1: 3120 chars, score 3.8"]
        await pilot.press("1")
        assert await wait_for(pilot, lambda: bool(app.answers))


async def test_restart_is_asked_once_more(tmp_path: Path) -> None:
    app = TrialApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _dialog(pilot, app, DecisionDialog)
        await pilot.press("3")
        await _dialog(pilot, app, ConfirmDialog)
        await pilot.press("n")  # no: the first question again
        dialog = await _dialog(pilot, app, DecisionDialog)
        assert dialog.question.options[0].key == "confirm"
        await pilot.press("3")
        await _dialog(pilot, app, ConfirmDialog)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: bool(app.answers))
    assert app.answers == ["restart"]


async def test_adjust_style_with_a_note_after_going_back(tmp_path: Path) -> None:
    app = TrialApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _dialog(pilot, app, DecisionDialog)
        await pilot.press("2")  # adjust
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.title_zh == "调整什么？")
        await pilot.press("escape")  # back
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.options[0].key == "confirm")
        await pilot.press("2")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.title_zh == "调整什么？")
        await pilot.press("2")  # the style
        await _note(pilot, app, "对白多一些，节奏快一点")
        assert await wait_for(pilot, lambda: bool(app.answers))
    assert app.answers == ["adjust:style:对白多一些，节奏快一点"]


async def test_adjust_a_character_without_a_note(tmp_path: Path) -> None:
    app = TrialApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _dialog(pilot, app, DecisionDialog)
        await pilot.press("2")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.title_zh == "调整什么？")
        await pilot.press("3")  # a character
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.title_zh == "调整哪个角色？")
        labels = [o.label_zh for o in app.screen.question.options]  # type: ignore[attr-defined]
        assert labels == ["林雾", "周老", "返回"]
        await pilot.press("2")  # 周老
        await _note(pilot, app, "")
        assert await wait_for(pilot, lambda: bool(app.answers))
    assert app.answers == ["adjust:character:zhou-lao"]


async def test_rewrite_with_a_note(tmp_path: Path) -> None:
    app = TrialApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _dialog(pilot, app, DecisionDialog)
        await pilot.press("2")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.title_zh == "调整什么？")
        await pilot.press("4")  # rewrite
        await _note(pilot, app, "第一章开头更快进入冲突")
        assert await wait_for(pilot, lambda: bool(app.answers))
    assert app.answers == ["rewrite:第一章开头更快进入冲突"]


async def test_adjust_the_brief_in_the_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "brief.md").write_text("# 创作纲领：雾港\n", encoding="utf-8")
    calls: list[str] = []

    def unchanged(app: Any, argv: list[str]) -> int:
        calls.append(argv[-1])
        return 0

    def change(app: Any, argv: list[str]) -> int:
        calls.append(argv[-1])
        Path(argv[-1]).write_text("# 创作纲领：雾港\n\n## 题材\n\n民国悬疑\n", encoding="utf-8")
        return 0

    monkeypatch.setattr(editor, "EDITOR_RUNNER", unchanged)
    app = TrialApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        for runner in (unchanged, change):
            monkeypatch.setattr(editor, "EDITOR_RUNNER", runner)
            await _dialog(pilot, app, DecisionDialog)
            await pilot.press("2")
            assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.title_zh == "调整什么？")
            await pilot.press("1")  # the brief
            await pilot.pause()
        assert await wait_for(pilot, lambda: bool(app.answers))
    assert calls == [str(tmp_path / "brief.md")] * 2  # unchanged the first time: asked again
    assert app.answers == ["adjust:brief"]


def test_adjust_question_without_characters() -> None:
    question = trial_question()
    question.data["characters"] = []
    assert [o.key for o in adjust_question(question).options] == ["brief", "style", "rewrite", "back"]
