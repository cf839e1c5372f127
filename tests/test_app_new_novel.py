"""The new-novel path from the welcome screen (issue 7 item 7): brief form -> style choice -> quick start with
streaming progress and the TRIAL_CONFIRM question -> confirm -> planning volume 1.

The quick start and the planning session are fakes injected through `NovelStudioApp(quick_start=...,
plan_session=...)`; they write a few files, emit events and ask the same questions as the real flows."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, RadioButton, TextArea

from pipeline.decisions import Decider, Option, Question, QuestionKind, parse_plan_answer
from pipeline.events import StageFinished, StageStarted, TextDelta
from screens.brief_form import BriefForm
from screens.decision_dialog import DecisionDialog
from screens.main_screen import MainScreen
from screens.plan_approval import PlanApprovalScreen
from screens.prompt_dialogs import ConfirmDialog
from screens.style_choice import StyleChoice
from screens.welcome_screen import WelcomeScreen
from studio.author_brief import clean_brief
from studio.fileio import atomic_write_text
from studio.models.quick_start import QuickStartRequest
from studio.paths import ProjectPaths
from studio.tui.app import NovelStudioApp
from studio.tui.host import EventSink
from studio.tui.new_novel import BriefAnswers, brief_problem, check_sample, create_novel, quick_start_path
from tests.snapshot_apps.dialogs_app import HostApp
from tests.snapshot_apps.planning_app import plan_question
from tests.tui_helpers import main_screen, make_app, notes, wait_for

TRIAL_TEXT = "林雾提着灯走下码头，雾里有人叫她的乳名。"


def trial_question() -> Question:
    return Question(
        kind=QuestionKind.TRIAL_CONFIRM,
        chapter=3,
        title_zh="试写三章已完成：确认后规划第 1 卷的其余章节",
        title_en="The trial chapters are written",
        facts=["第1章 雾港夜航 3120字", "第2章 旧灯油 2980字", "第3章 潮汐账簿 3050字"],
        options=[
            Option("confirm", "确认，开始卷规划", "confirm"),
            Option("adjust", "调整（纲领 / 角色 / 文风 / 重写试写章）", "adjust"),
            Option("restart", "推倒重来", "start over"),
        ],
        recommended="confirm",
    )


class FakeQuickStart:
    def __init__(self) -> None:
        self.requests: list[QuickStartRequest] = []
        self.answers: list[str] = []

    async def __call__(self, root: Path, request: QuickStartRequest, *, decide: Decider, emit: EventSink) -> object:
        self.requests.append(request)
        atomic_write_text(root / "world" / "notes.md", "# 世界观\n\n雾港终年起雾。\n")
        atomic_write_text(root / "storylines" / "main-arc" / "memory.md", "# main-arc\n")
        emit(StageStarted(1, "draft", "offline"))
        emit(TextDelta(1, "draft", TRIAL_TEXT))
        emit(StageFinished(1, "draft", "offline", 12, cost_usd=0.0))
        answer = await decide(trial_question())
        self.answers.append(answer)
        return answer


class FakePlanSession:
    def __init__(self) -> None:
        self.calls: list[tuple[int | None, str]] = []

    async def __call__(
        self, root: Path, *, volume: int | None, note: str, decide: Decider, emit: EventSink
    ) -> object:
        self.calls.append((volume, note))
        answer = await decide(plan_question())
        return parse_plan_answer(answer)


def _app(folder: Path, quick: FakeQuickStart, plan: FakePlanSession) -> NovelStudioApp:
    return make_app(folder, welcome=True, quick_start=quick, plan_session=plan)


async def type_text(pilot: Any, text: str) -> None:
    """Type `text` as a terminal delivers what an input method commits: one key event per character, named as
    Textual's terminal parser names it (`林` -> key "林"; `，` -> key "fullwidth_comma", character "，").
    Pilot's `press` drops the character of full-width punctuation, so it cannot type ，。！？."""
    for char in text:
        key = char if char.isalnum() else unicodedata.name(char).lower().replace(" ", "_").replace("-", "_")
        pilot.app.post_message(events.Key(key, char))
        await pilot.pause()


async def _fill_brief(pilot: Any, form: BriefForm) -> None:
    form.query_one("#field-title", Input).focus()
    await type_text(pilot, "雾港守灯人")
    form.query_one("#field-genre", Input).value = "都市悬疑"
    area = form.query_one("#field-protagonist", TextArea)
    area.focus()
    await type_text(pilot, "林雾，守灯人")
    form.query_one("#field-volume-length", Input).value = "12"
    await pilot.pause()


async def test_new_novel_path_end_to_end(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    quick, plan = FakeQuickStart(), FakePlanSession()
    app = _app(folder, quick, plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        await pilot.press("1")
        assert await wait_for(pilot, lambda: isinstance(app.screen, BriefForm))
        form = app.screen
        assert isinstance(form, BriefForm)
        await pilot.press("ctrl+s")  # an empty brief is refused on the form
        await pilot.pause()
        assert isinstance(app.screen, BriefForm) and form.problem is not None and "纲领是空的" in form.problem
        assert not (folder / "novel-studio.toml").exists()  # nothing written yet
        await _fill_brief(pilot, form)
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, StyleChoice))
        style = app.screen
        assert isinstance(style, StyleChoice)
        brief = clean_brief((folder / "brief.md").read_text(encoding="utf-8"))
        assert dict(brief.sections) == {"书名": "雾港守灯人", "题材": "都市悬疑", "主角": "林雾，守灯人"}
        await pilot.press("3")  # a tone preset
        await pilot.pause()
        assert style.source == "preset"
        await pilot.press("ctrl+s")  # no preset picked yet
        await pilot.pause()
        assert isinstance(app.screen, StyleChoice)
        style.query_one("#preset-1", RadioButton).value = True
        await pilot.pause()
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
        dialog = app.screen
        assert isinstance(dialog, DecisionDialog) and dialog.question.kind is QuestionKind.TRIAL_CONFIRM
        screen = main_screen(app)
        assert TRIAL_TEXT in screen.chapter_view.text  # the trial chapter streamed on the main screen
        await pilot.press("enter")  # confirm
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen))
        assert "试写三章已确认" in notes(app)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not screen.planning and "规划结束" in notes(app))
    assert app.project_root == folder
    assert quick.requests == [QuickStartRequest(style_source="preset", preset="热血少年", volume_length=12)]
    saved = QuickStartRequest.load(quick_start_path(ProjectPaths(folder)))
    assert saved.style_source == "preset" and saved.preset == "热血少年" and saved.volume_length == 12
    assert quick.answers == ["confirm"]
    assert plan.calls == [(1, "")]  # confirm -> plan volume 1
    assert (folder / "world" / "notes.md").is_file()


async def test_adjust_or_restart_does_not_plan(tmp_path: Path) -> None:
    root = create_novel(tmp_path / "novel", BriefAnswers("雾港", {"genre": "悬疑"}))
    quick, plan = FakeQuickStart(), FakePlanSession()
    app = make_app(root, quick_start=quick, plan_session=plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        main_screen(app).plans.quick_start(QuickStartRequest())
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
        await pilot.press("3")  # start over ...
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")  # ... asked once more
        assert await wait_for(pilot, lambda: not main_screen(app).planning and "快速开始结束" in notes(app))
    assert quick.answers == ["restart"]
    assert plan.calls == []


async def test_escape_goes_back_and_keeps_the_answers(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    app = _app(folder, FakeQuickStart(), FakePlanSession())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("1")
        assert await wait_for(pilot, lambda: isinstance(app.screen, BriefForm))
        form = app.screen
        assert isinstance(form, BriefForm)
        await _fill_brief(pilot, form)
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, StyleChoice))
        await pilot.press("escape")  # back to the brief, answers kept
        assert await wait_for(pilot, lambda: isinstance(app.screen, BriefForm))
        again = app.screen
        assert isinstance(again, BriefForm)
        assert again.query_one("#field-title", Input).value == "雾港守灯人"
        assert again.query_one("#field-protagonist", TextArea).text == "林雾，守灯人"
        again.query_one("#field-genre", Input).value = "民国悬疑"
        await pilot.press("ctrl+s")  # the same project, the brief rewritten
        assert await wait_for(pilot, lambda: isinstance(app.screen, StyleChoice))
        assert "民国悬疑" in (folder / "brief.md").read_text(encoding="utf-8")
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, BriefForm))
        await pilot.press("escape")  # back to the welcome screen
        assert await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
        await pilot.press("1")  # the form again: the answers are still there
        assert await wait_for(pilot, lambda: isinstance(app.screen, BriefForm))
        third = app.screen
        assert isinstance(third, BriefForm)
        assert third.query_one("#field-genre", Input).value == "民国悬疑"
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
        await pilot.press("3")  # the project the path made opens as it is
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
    assert app.project_root == folder


async def test_new_novel_in_a_folder_that_cannot_be_used(tmp_path: Path) -> None:
    folder = tmp_path / "file"
    folder.write_text("not a folder", encoding="utf-8")
    app = _app(folder, FakeQuickStart(), FakePlanSession())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("1")
        assert await wait_for(pilot, lambda: isinstance(app.screen, BriefForm))
        form = app.screen
        assert isinstance(form, BriefForm)
        await _fill_brief(pilot, form)
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
        welcome = app.screen
        assert isinstance(welcome, WelcomeScreen) and welcome.error is not None
    assert folder.read_text(encoding="utf-8") == "not a folder"


# ----------------------------------------------------------------------------------------------- style choice


async def test_style_samples_are_checked(tmp_path: Path) -> None:
    root = create_novel(tmp_path / "novel", BriefAnswers("雾港", {"genre": "悬疑"}))
    samples = tmp_path / "samples"
    samples.mkdir()
    for n in range(1, 5):
        (samples / f"c{n}.txt").write_text(f"第{n}章\n\n样章正文。\n", encoding="utf-8")
    (samples / "gbk.txt").write_bytes("样章".encode("gbk"))
    app = HostApp(lambda: StyleChoice(root, "zh", volume_length=20))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        style = app.screen
        assert isinstance(style, StyleChoice)
        await pilot.press("1")
        await pilot.pause()
        assert style.source == "samples"
        field = style.query_one("#sample-path", Input)
        field.focus()
        for name in ("missing.txt", "gbk.txt", "c1.txt", "c1.txt", "c2.txt", "c3.txt", "c4.txt"):
            field.value = str(samples / name)
            await pilot.press("enter")
            await pilot.pause()
        error = str(style.query_one("#style-error").render())
        assert "最多 3 个样章" in error
        assert style.samples == [samples / "c1.txt", samples / "c2.txt", samples / "c3.txt"]
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert style.samples == [samples / "c1.txt", samples / "c2.txt"]
        await pilot.press("ctrl+s")
        await pilot.pause()
    request = app.results[0]
    assert isinstance(request, QuickStartRequest)
    assert request.style_source == "samples" and request.volume_length == 20
    assert request.sample_paths == [str(samples / "c1.txt"), str(samples / "c2.txt")]
    assert QuickStartRequest.load(quick_start_path(ProjectPaths(root))) == request


async def test_style_reference_and_write_then_extract(tmp_path: Path) -> None:
    root = create_novel(tmp_path / "novel", BriefAnswers("雾港", {"genre": "悬疑"}))
    app = HostApp(lambda: StyleChoice(root, "zh"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        style = app.screen
        assert isinstance(style, StyleChoice)
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "请填写参考作者的名字" in str(style.query_one("#style-error").render())
        field = style.query_one("#reference-author", Input)
        field.focus()
        await pilot.press(*"古龙", "enter")
        await pilot.pause()
    assert app.results == [QuickStartRequest(style_source="reference", reference_author="古龙")]
    app = HostApp(lambda: StyleChoice(root, "en"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("4", "ctrl+s")
        await pilot.pause()
    assert app.results == [QuickStartRequest(style_source="write_then_extract")]


# ----------------------------------------------------------------------------------------------- domain


def test_brief_problem_and_check_sample(tmp_path: Path) -> None:
    assert brief_problem(BriefAnswers("雾港", {})) is not None  # a title alone is an empty brief
    assert brief_problem(BriefAnswers("雾港", {"genre": "悬疑"}, volume_length=2)) is not None
    assert brief_problem(BriefAnswers("", {"conflict": "守灯人对灭灯人"}, volume_length=3)) is None
    (tmp_path / "a.txt").write_text("正文", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("  \n", encoding="utf-8")
    assert check_sample("a.txt", tmp_path) == (tmp_path / "a.txt").resolve()
    assert check_sample(f"'{tmp_path / 'a.txt'}'", Path("/")) == (tmp_path / "a.txt").resolve()
    assert "空" in str(check_sample("empty.txt", tmp_path))
    assert "不是文件" in str(check_sample(".", tmp_path))
    assert "找不到" in str(check_sample("nope.txt", tmp_path))
    assert "请输入" in str(check_sample("  ", tmp_path))


def test_create_novel_refuses_another_project(tmp_path: Path, sample: Path) -> None:
    from studio.errors import StudioError

    before = (sample / "brief.md").read_bytes()
    with pytest.raises(StudioError):
        create_novel(sample, BriefAnswers("雾港", {"genre": "悬疑"}))
    assert (sample / "brief.md").read_bytes() == before


class InterruptedQuickStart(FakeQuickStart):
    """A resumed quick start whose trial chapter 2 was interrupted: the run's own INTERRUPTED question."""

    async def __call__(self, root: Path, request: QuickStartRequest, *, decide: Decider, emit: EventSink) -> object:
        question = Question(
            kind=QuestionKind.INTERRUPTED,
            chapter=2,
            title_zh="第 2 章上次写到一半被中断",
            title_en="Chapter 2 was interrupted",
            options=[Option("resume", "继续写完", "Resume"), Option("discard", "丢弃暂存内容", "Discard")],
            recommended="resume",
        )
        self.answers.append(await decide(question))
        return await super().__call__(root, request, decide=decide, emit=emit)


async def test_a_discard_during_the_quick_start_is_confirmed_as_in_a_run(tmp_path: Path) -> None:
    root = create_novel(tmp_path / "novel", BriefAnswers("雾港", {"genre": "悬疑"}))
    quick = InterruptedQuickStart()
    app = make_app(root, quick_start=quick, plan_session=FakePlanSession())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        main_screen(app).plans.quick_start(QuickStartRequest())
        assert await wait_for(pilot, lambda: isinstance(app.screen, DecisionDialog))
        await pilot.press("2")  # discard ...
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("n")  # ... no, keep it: asked again
        assert await wait_for(
            pilot,
            lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.kind is QuestionKind.INTERRUPTED,
        )
        await pilot.press("1")  # resume
        assert await wait_for(
            pilot,
            lambda: isinstance(app.screen, DecisionDialog) and app.screen.question.kind is QuestionKind.TRIAL_CONFIRM,
        )
        await pilot.press("1")  # confirm: volume 1 is planned next
        assert await wait_for(pilot, lambda: isinstance(app.screen, PlanApprovalScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not main_screen(app).planning)
    assert quick.answers == ["resume", "confirm"]
