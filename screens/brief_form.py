"""The brief form of the new-novel path (issue 7 item 7): the book's title, one field per brief section
(`studio.author_brief.BRIEF_FIELDS`) and the length of volume 1.

`BriefForm(lang, *, initial=None)` is a `Screen[BriefAnswers | None]`: ctrl+s (or the "next" button) checks
the answers (`studio.tui.new_novel.brief_problem`: not an empty brief, a length in 3..500) and dismisses with
them; a problem is shown on the form and nothing typed is lost; escape dismisses with None. Fields are Textual
`Input`s (the longer sections `TextArea`s), which take Chinese from an input method like any other text (the
IME composes in the terminal and Textual receives the committed characters). tab / shift+tab move between the
fields; the form scrolls at 80x24.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, TextArea

from screens.prompt_dialogs import FoldedText
from studio.author_brief import BRIEF_FIELDS
from studio.i18n import Catalog, Lang, tr
from studio.models.quick_start import DEFAULT_VOLUME_LENGTH
from studio.tui.new_novel import MAX_VOLUME_LENGTH, MIN_VOLUME_LENGTH, BriefAnswers, brief_problem

__all__ = ["LONG_FIELDS", "MESSAGES", "BriefForm"]

LONG_FIELDS = frozenset({"selling_points", "protagonist", "conflict"})
"""Sections that usually take a few lines: a small TextArea instead of a one-line Input."""

MESSAGES: Catalog = {
    "title": ("新建小说 · 创作纲领", "New novel · the brief"),
    "intro": (
        "写下这部小说的核心设定，它会交给每一个智能体。留空的项以后可以在 brief.md 里补。",
        "Describe the novel; every agent reads this brief. Fields left empty can be filled in brief.md later.",
    ),
    "book_title": ("书名", "Title"),
    "p_title": ("例如：雾港守灯人", "the book's title"),
    "volume_length": ("第 1 卷章数", "Chapters in vol. 1"),
    "p_volume_length": ("{lo}-{hi}，含试写的前 3 章", "{lo}-{hi}, the trial chapters 1-3 included"),
    "next": ("下一步：选择文风 (Ctrl+S)", "Next: choose the style (Ctrl+S)"),
    "cancel": ("返回 (Esc)", "Back (Esc)"),
    "hint": ("Tab 下一项 · Ctrl+S 下一步 · Esc 返回", "Tab next field · Ctrl+S next · Esc back"),
    "not_integer": ("章数要是整数", "The chapter count must be a whole number"),
    # field labels and examples (the headings are the template's, in Chinese; English labels for --lang en)
    "f_genre": ("题材", "Genre"),
    "f_selling_points": ("核心卖点", "Selling points"),
    "f_protagonist": ("主角", "Protagonist"),
    "f_world": ("世界观一句话", "The world in one sentence"),
    "f_conflict": ("核心冲突", "Core conflict"),
    "f_readers": ("目标读者", "Readers"),
    "f_length": ("字数规划", "Planned length"),
    "f_tone": ("风格基调", "Tone"),
    "f_references": ("参考作品", "Reference works"),
    "f_taboos": ("禁忌与雷区", "Taboos"),
    "p_genre": ("例如：都市悬疑、仙侠、末世", "e.g. urban mystery, xianxia"),
    "p_selling_points": ("例如：守灯人能看见雾里的亡者", "e.g. the lamp keeper sees the dead in the fog"),
    "p_protagonist": ("姓名、身份、性格、欲望", "name, who they are, temperament, what they want"),
    "p_world": ("例如：永远起雾的港城", "e.g. a harbour town that is always foggy"),
    "p_conflict": ("主角想要什么，谁或什么挡着", "what the hero wants and what stands in the way"),
    "p_readers": ("例如：男频、18-30 岁", "e.g. male readers, 18-30"),
    "p_length": ("例如：120 万字，每章 3000 字", "e.g. 1.2M characters, 3000 a chapter"),
    "p_tone": ("例如：冷峻克制，偶有幽默", "e.g. restrained, now and then funny"),
    "p_references": ("例如：《诡秘之主》的氛围", "e.g. the mood of a book you like"),
    "p_taboos": ("例如：不写虐主、不写后宫", "e.g. no harem"),
}


class BriefForm(Screen[BriefAnswers | None]):
    """Collect the brief for a new novel (see the module docstring)."""

    DEFAULT_CSS = """
    BriefForm {
        align: center middle;
    }
    BriefForm > #brief-box {
        width: 100%;
        max-width: 110;
        height: 100%;
        border: thick $primary;
        padding: 0 1;
    }
    BriefForm #brief-title {
        text-style: bold;
        height: auto;
    }
    BriefForm #brief-fields {
        height: 1fr;
    }
    BriefForm .field-row {
        height: auto;
        margin-bottom: 1;
    }
    BriefForm .field-label {
        width: 18;
        color: $text-muted;
    }
    BriefForm Input {
        width: 1fr;
    }
    BriefForm TextArea {
        height: 3;
        width: 1fr;
        padding: 0 1 0 0;  /* the text starts in the column of the compact Inputs' text (no left padding) */
    }
    BriefForm #brief-error {
        color: $text-error;
        text-style: bold;
        height: auto;
    }
    BriefForm #brief-buttons {
        height: auto;
        align-horizontal: center;
    }
    BriefForm Button {
        margin: 0 1;
    }
    BriefForm #brief-hint {
        color: $text-muted;
        height: auto;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", show=False, priority=True),
        Binding("escape", "cancel", show=False),
    ]

    def __init__(self, lang: Lang = "zh", *, initial: BriefAnswers | None = None) -> None:
        super().__init__()
        self.lang: Lang = lang
        self.initial = initial or BriefAnswers(title="")
        self.problem: str | None = None

    def compose(self) -> ComposeResult:
        lang = self.lang
        initial = self.initial
        with Vertical(id="brief-box"):
            yield FoldedText(tr(MESSAGES, "title", lang), id="brief-title")
            with VerticalScroll(id="brief-fields"):
                yield FoldedText(tr(MESSAGES, "intro", lang))
                with Horizontal(classes="field-row"):
                    yield Label(tr(MESSAGES, "book_title", lang), classes="field-label", markup=False)
                    yield Input(
                        initial.title, id="field-title", placeholder=tr(MESSAGES, "p_title", lang), compact=True
                    )
                for key, _heading in BRIEF_FIELDS:
                    with Horizontal(classes="field-row"):
                        yield Label(tr(MESSAGES, f"f_{key}", lang), classes="field-label", markup=False)
                        value = initial.answers.get(key, "")
                        placeholder = tr(MESSAGES, f"p_{key}", lang)
                        if key in LONG_FIELDS:
                            yield TextArea(
                                value, id=f"field-{key}", soft_wrap=True, placeholder=placeholder, compact=True
                            )
                        else:
                            yield Input(value, id=f"field-{key}", placeholder=placeholder, compact=True)
                with Horizontal(classes="field-row"):
                    yield Label(tr(MESSAGES, "volume_length", lang), classes="field-label", markup=False)
                    yield Input(
                        str(initial.volume_length),
                        id="field-volume-length",
                        type="integer",
                        placeholder=tr(MESSAGES, "p_volume_length", lang, lo=MIN_VOLUME_LENGTH, hi=MAX_VOLUME_LENGTH),
                        compact=True,
                    )
            yield FoldedText("", id="brief-error")
            with Horizontal(id="brief-buttons"):
                yield Button(tr(MESSAGES, "next", lang), id="next", variant="primary", compact=True)
                yield Button(tr(MESSAGES, "cancel", lang), id="cancel", compact=True)
            yield FoldedText(tr(MESSAGES, "hint", lang), keys=True, id="brief-hint")

    def on_mount(self) -> None:
        self.query_one("#field-title", Input).focus()

    def field_value(self, key: str) -> str:
        widget = self.query_one(f"#field-{key}")
        if isinstance(widget, TextArea):
            return widget.text
        assert isinstance(widget, Input)
        return widget.value

    def answers(self) -> BriefAnswers | str:
        """The answers typed so far, or why the volume length is not a number."""
        try:
            length = int(self.query_one("#field-volume-length", Input).value.strip() or DEFAULT_VOLUME_LENGTH)
        except ValueError:
            return tr(MESSAGES, "not_integer", self.lang)
        return BriefAnswers(
            title=self.query_one("#field-title", Input).value.strip(),
            answers={key: self.field_value(key).strip() for key, _ in BRIEF_FIELDS},
            volume_length=length,
        )

    def show_problem(self, problem: str | None) -> None:
        self.problem = problem
        self.query_one("#brief-error", FoldedText).update(problem or "")

    def action_submit(self) -> None:
        answers = self.answers()
        problem = answers if isinstance(answers, str) else brief_problem(answers, self.lang)
        if problem is not None or isinstance(answers, str):
            self.app.bell()
            self.show_problem(problem)
            return
        self.dismiss(answers)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "next":
            self.action_submit()
        else:
            self.action_cancel()
