"""A focusable scrolling pane that shows one rendered Rich `Text` in a single `Static` body.

The base of the state diff and scores panes: a subclass names its body (`BODY_ID`), says what the pane shows
before anything is selected (`initial_body`), and calls `show_body(text)` to replace the text and scroll back to
the top. The layout (`DEFAULT_CSS`) is shared: Textual's type selectors match subclasses too. Its scroll keys
(arrows, `j`/`k`, PgUp/PgDn, Home/End) jump at once (`widgets.instant_keys.InstantScroll`).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from studio.i18n import Lang
from widgets.instant_keys import InstantScroll, QuietFocus


class TextPane(QuietFocus, InstantScroll, VerticalScroll, can_focus=True):
    """One `Static` with id `BODY_ID` in a scrolling container; `show_body(text)` replaces it from the top."""

    DEFAULT_CSS = """
    TextPane {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    TextPane > Static {
        width: 1fr;
    }
    """

    BODY_ID: ClassVar[str] = "body"

    def __init__(
        self,
        *,
        lang: Lang = "zh",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.lang: Lang = lang

    def initial_body(self) -> Text:
        """What the body shows when the pane is mounted."""
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        yield Static(self.initial_body(), id=self.BODY_ID)

    def show_body(self, body: Text) -> None:
        """Replace the body's text and scroll back to the top."""
        self.query_one(f"#{self.BODY_ID}", Static).update(body)
        self.scroll_home(animate=False)


__all__ = ["TextPane"]
