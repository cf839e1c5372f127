"""The volume review report (卷末回顾) as a modal screen: the Markdown of `volumes/vol-NN/review.md` (or an
interim report), scrollable, Chinese by default.

``VolumeReviewScreen(markdown, lang, *, volume, next_volume)`` -> ``ModalScreen[str | None]``: dismisses with
``"plan"`` when the author goes on to plan the next volume (p or the button; only offered with ``next_volume``),
``None`` on escape / q. up/down/pageup/pagedown/home/end scroll.

The title is shown once: the report's own first heading (`# 第 1 卷回顾（第 1-10 章）`) becomes the title line and
leaves the body; a report without one gets "第 N 卷回顾".
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Markdown

from studio.i18n import Catalog, Lang, tr
from studio.views.typeset import split_heading

__all__ = ["MESSAGES", "VolumeReviewScreen"]

MESSAGES: Catalog = {
    "title": ("第 {volume} 卷回顾", "Review of volume {volume}"),
    "plan": ("规划第 {volume} 卷 (p)", "Plan volume {volume} (p)"),
    "close": ("关闭 (Esc)", "Close (Esc)"),
    "hint": ("↑↓ PgUp PgDn 滚动 · Esc / q 关闭", "↑↓ PgUp PgDn scroll · Esc / q close"),
    "hint_plan": ("↑↓ PgUp PgDn 滚动 · p 规划下一卷 · Esc / q 稍后再说",
                  "↑↓ PgUp PgDn scroll · p plan the next volume · Esc / q later"),
}


class VolumeReviewScreen(ModalScreen[str | None]):
    """Show a volume review; offer to plan the next volume."""

    DEFAULT_CSS = """
    VolumeReviewScreen {
        align: center middle;
    }
    VolumeReviewScreen > #review-box {
        width: 100;
        max-width: 100%;
        height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    VolumeReviewScreen #review-title {
        text-style: bold;
        width: 100%;
    }
    VolumeReviewScreen #review-body {
        height: 1fr;
    }
    VolumeReviewScreen #review-hint {
        color: $text-muted;
        width: 100%;
    }
    VolumeReviewScreen #review-buttons {
        height: auto;
        width: 100%;
    }
    VolumeReviewScreen Button {
        margin-right: 2;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", show=False),
        Binding("p", "plan", show=False),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
        Binding("home", "scroll_home", show=False),
        Binding("end", "scroll_end", show=False),
    ]

    def __init__(self, markdown: str, lang: Lang = "zh", *, volume: int, next_volume: int | None = None) -> None:
        super().__init__()
        self.markdown = markdown
        self.lang: Lang = lang
        self.volume = volume
        self.next_volume = next_volume

    def title_and_body(self) -> tuple[str, str]:
        """The title line and the Markdown under it (the report's first heading moves to the title)."""
        heading, body, _skipped = split_heading(self.markdown)
        if heading is None:
            return tr(MESSAGES, "title", self.lang, volume=self.volume), self.markdown
        return heading.lstrip("#").strip(), body

    def compose(self) -> ComposeResult:
        lang = self.lang
        title, body = self.title_and_body()
        with Vertical(id="review-box"):
            yield Label(title, id="review-title", markup=False)
            with VerticalScroll(id="review-body"):
                yield Markdown(body, id="review-text")
            hint = "hint_plan" if self.next_volume is not None else "hint"
            yield Label(tr(MESSAGES, hint, lang), id="review-hint")
            with Horizontal(id="review-buttons"):
                if self.next_volume is not None:
                    yield Button(tr(MESSAGES, "plan", lang, volume=self.next_volume), id="review-plan",
                                 variant="primary")
                yield Button(tr(MESSAGES, "close", lang), id="review-close")

    def on_mount(self) -> None:
        self.query_one("#review-body", VerticalScroll).focus()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#review-body", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_scroll_home(self) -> None:
        self.query_one("#review-body", VerticalScroll).scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.query_one("#review-body", VerticalScroll).scroll_end(animate=False)

    def action_plan(self) -> None:
        if self.next_volume is not None:
            self.dismiss("plan")

    def action_close(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#review-plan")
    def _plan_pressed(self) -> None:
        self.action_plan()

    @on(Button.Pressed, "#review-close")
    def _close_pressed(self) -> None:
        self.action_close()
