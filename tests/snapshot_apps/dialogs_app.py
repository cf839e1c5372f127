"""Tiny host apps for the dialog and refine-review snapshots (and the Pilot tests)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from pipeline.decisions import Option, Question, QuestionKind
from pipeline.refine_edits import EditDecision, RefineEdit, apply_edits
from studio.i18n import Lang, tr
from studio.recovery import RecoveryAction, RecoveryKind
from studio.tui.app import MESSAGES as STUDIO_MESSAGES
from widgets import compat

DRAFT = (
    "第一章 归来\n"
    "\n"
    "夜色如墨，他的嘴角微微上扬，看向远方的城墙。城头的火把在风里摇晃，像一排随时会熄灭的星。\n"
    "她深吸一口气，心中五味杂陈，却还是点了点头。\n"
    "风从北边吹来，带着一股说不出的寒意。他轻轻地笑了笑，转身离开了。"
)

EDITS = [
    RefineEdit(original="嘴角微微上扬", refined="咧了下嘴", reason="套话，换成动作"),
    RefineEdit(original="心中五味杂陈", refined="说不清是什么滋味", reason="黑名单词：五味杂陈"),
    RefineEdit(original="带着一股说不出的寒意", refined="带着寒意", reason="删去冗余修饰"),
    RefineEdit(original="他轻轻地笑了笑，转身离开了", refined="他笑了笑，转身走了", reason="节奏更紧"),
    RefineEdit(original="不存在的句子", refined="随便", reason="找不到"),
]


def sample_decisions(cap_ratio: float = 0.3) -> list[EditDecision]:
    return apply_edits(DRAFT, EDITS, blacklist=["五味杂陈"], cap_ratio=cap_ratio).decisions


def gate_question() -> Question:
    return Question(
        kind=QuestionKind.GATE_LOW,
        chapter=12,
        title_zh="本章评分 2.6，低于通过线 3.0",
        title_en="This chapter scored 2.6, below the 3.0 pass mark",
        facts=[
            "总分 2.6 · 节奏 2.1 · 人物 2.8 · 文风 2.4",
            "必须修改：第三段视角跳到了反派；结尾的伏笔“玉佩”没有回收",
            "已自动修订 2 次（上限 2 次）",
        ],
        options=[
            Option("revise", "再自动修订一次", "Revise once more"),
            Option("edit_by_hand", "我自己改", "Edit it by hand"),
            Option("accept", "就这样通过", "Accept as is"),
        ],
        recommended="revise",
    )


def interrupted_question(lang: Lang = "zh") -> Question:
    """The question as the orchestrator asks it: its fact is the recovery's own text in the author's language."""
    described = RecoveryAction(RecoveryKind.RESUME_SUMMARIZER, 7, missing=("summary",)).describe(lang)
    return Question(
        kind=QuestionKind.INTERRUPTED,
        chapter=7,
        title_zh="第 7 章上次写到一半被中断",
        title_en="Chapter 7 was interrupted",
        facts=[described],
        options=[
            Option("resume", "继续写完", "Resume"),
            Option("discard", "丢弃暂存内容", "Discard the staged work"),
        ],
        recommended="resume",
    )


HELP_BINDINGS = [
    ("c", "写下一章"),
    ("C", "写 N 章"),
    ("n", "本章要求"),
    ("r", "审阅润色修改"),
    ("u", "撤销上一章"),
    ("y", "复制本章正文"),
    ("e", "用 $EDITOR 打开"),
    ("g", "跳到第几章"),
    ("slash", "搜索"),
    ("tab", "下一个面板"),
    ("1,2,3,4", "跳到面板"),
    ("escape", "停止当前阶段"),
    ("question_mark", "帮助"),
    ("ctrl+p", "命令面板"),
    ("q", "退出"),
]


class HostApp(App[None]):
    """A plain background screen, then ``make()`` pushed on mount (when given). A screen with a footer shows
    the command palette's key in `lang`, as in the studio (Textual's own says "palette")."""

    CSS = "Screen { background: $background; }"

    def __init__(self, make: Callable[[], Screen[Any]] | None = None, lang: Lang = "zh") -> None:
        super().__init__()
        self.make = make
        self.lang: Lang = lang
        self.results: list[object] = []
        compat.rewrite_bindings(self, self._palette_in_lang)

    def _palette_in_lang(self, binding: Binding) -> Binding:
        if binding.action == "command_palette":
            return replace(binding, description=tr(STUDIO_MESSAGES, "palette", self.lang))
        return binding

    def compose(self) -> ComposeResult:
        yield Static("小说工作室 · 测试宿主", id="host-body")

    def on_mount(self) -> None:
        if self.make is not None:
            self.push_screen(self.make(), self.results.append)
