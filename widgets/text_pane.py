"""A focusable scrolling pane that shows one rendered Rich `Text`, line by line.

The base of the state diff and scores panes: a subclass says what the pane shows before anything is selected
(`initial_body`), and calls `show_body(text)` to replace the text and scroll back to the top. The layout
(`DEFAULT_CSS`) is shared: Textual's type selectors match subclasses too. Its scroll keys (arrows, `j`/`k`,
PgUp/PgDn, Home/End) jump at once (`widgets.instant_keys.InstantScroll`).

Screen cost (issue 12, "instant keys"): the pane is a `ScrollView` whose region comes from its CSS, never from
its text. A new text changes only its virtual size (`widgets.virtual_size`: no layout of the screen, even when its
scrollbar appears or goes: the pane alone is re-arranged) and repaints the pane; a text equal to the one shown repaints nothing. (A `Static`
of `height: auto` in a scrolling container laid the whole screen out on every chapter selection.)

Rules: the text is wrapped as a `Static` wraps it (`Visual.to_strips` of the same `Content`), at the pane's
width less the scrollbar's column whether the scrollbar shows or not, so a scrollbar that appears never
wraps the text again; no horizontal scrolling. The wrapped lines are kept until the width, the text or the
styles (theme) change, and those of the last `REMEMBERED` texts shown are kept too, keyed by the text itself
(its characters and styles, never a file's stat) and the width: an author going back and forth between
neighbouring chapters does not have their state diff and scores wrapped again (about a third of what the
two panes cost per selection). A new theme forgets them all.

Mouse selection (as Textual's `Log`): the wrapped lines carry each character's offset in the unwrapped body
(column = character index in its line, row = line index), so a drag selects the body's own text, full-width
characters and wrapped lines included; `get_selection` extracts it from the body's plain text. The selected
span is painted from a second wrap made while a selection exists (the plain wrap stays cached for when it
goes). A new body drops the pane's selection: its offsets pointed into the old text.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.events import Resize
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.visual import Visual, visualize

from studio.i18n import Lang
from widgets.compat import use_plain_row_styles
from widgets.instant_keys import InstantScroll, QuietFocus
from widgets.virtual_size import set_virtual_size

REMEMBERED = 8
"""How many texts' wrapped lines a pane keeps (`TextPane._remembered`)."""

TextKey = tuple[str, tuple[object, ...], object, object, object, object, str]
"""What a Rich `Text` shows, hashable (`text_key`)."""


def text_key(text: Text) -> TextKey:
    """A hashable key equal for two `Text`s exactly when they are equal (`Text.__eq__` compares the characters
    and the spans) and wrap alike (base style, justify, overflow, no_wrap, end)."""
    return (text.plain, tuple(text.spans), text.style, text.justify, text.overflow, text.no_wrap, text.end)


class TextPane(QuietFocus, InstantScroll, ScrollView, can_focus=True):
    """A scrolling view of one Rich `Text`; `show_body(text)` replaces it and scrolls to the top."""

    DEFAULT_CSS = """
    TextPane {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
    }
    """

    def __init__(
        self,
        *,
        lang: Lang = "zh",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        use_plain_row_styles(self)  # its rows styled once per frame, not once per row (`compat.PlainRowStyles`)
        self.lang: Lang = lang
        self._body: Text | None = None
        self._lines: list[Strip] | None = None
        """The body wrapped at `_lines_width` (None: to wrap again before the next paint)."""
        self._lines_width = 0
        self._selected_lines: list[Strip] | None = None
        """`_lines` with the current selection painted (None: none made since the selection or text changed)."""
        self._frame: tuple[list[Strip], int, int, Style] | None = None
        """While `render_lines` runs: the wrapped lines, the top line's index, the width and the background."""
        self._remembered: dict[tuple[TextKey, int], list[Strip]] = {}
        """(text, width) -> its wrapped lines, of the last `REMEMBERED` texts wrapped (the most recent last)."""

    def initial_body(self) -> Text:
        """What the body shows when the pane is mounted."""
        raise NotImplementedError

    @property
    def body(self) -> Text:
        """The text shown."""
        if self._body is None:
            self._body = self.initial_body()
        return self._body

    @property
    def body_text(self) -> str:
        """The text shown, without its styles."""
        return self.body.plain

    def show_body(self, body: Text) -> None:
        """Show `body` from the top (the same text as shown: nothing to repaint)."""
        if self._body is None or body != self._body:
            self._body = body
            self._lines = None
            if self.is_mounted:
                self._drop_selection()
                self._measure()
                self.refresh()
        self.scroll_home(animate=False)

    # ------------------------------------------------------------------ selection

    @property
    def allow_select(self) -> bool:
        return True

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The body's text under `selection` (its offsets are the body's, not the wrapped rows')."""
        return selection.extract(self.body.plain), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._selected_lines = None
        self.refresh()

    def _drop_selection(self) -> None:
        selections = self.screen.selections
        if self in selections:  # setting `selections` calls `selection_updated` (a repaint) on its widgets
            self.screen.selections = {widget: span for widget, span in selections.items() if widget is not self}

    # ------------------------------------------------------------------ rendering

    def _wrap_width(self) -> int:
        """The width the body wraps at: the content's width less the scrollbar's, whether it shows or not."""
        width = self.scrollable_content_region.width
        if not self.show_vertical_scrollbar:
            width -= self.styles.scrollbar_size_vertical
        return max(1, width)

    def _wrap(self, width: int, *, selected: bool, body: Text | None = None) -> list[Strip]:
        visual = visualize(self, self.body if body is None else body)
        return Visual.to_strips(self, visual, width, None, self.visual_style, apply_selection=selected)

    def _wrapped(self) -> list[Strip]:
        """The body's wrapped lines, with the selection painted while there is one."""
        width = self._wrap_width()
        if self._lines is None or width != self._lines_width:
            self._lines = self._wrap_remembered(width)
            self._lines_width = width
            self._selected_lines = None
        if self.text_selection is None:
            return self._lines
        if self._selected_lines is None:
            self._selected_lines = self._wrap(width, selected=True)
        return self._selected_lines

    def _wrap_remembered(self, width: int) -> list[Strip]:
        """The body wrapped at `width` (no selection), from the texts wrapped last when it is one of them."""
        key = (text_key(self.body), width)
        lines = self._remembered.pop(key, None)
        if lines is None:
            lines = self._wrap(width, selected=False)
        self._remember(key, lines)
        return lines

    def prepare_body(self, body: Text) -> None:
        """Wrap `body` at the pane's width now, without showing it, so that a `show_body(body)` soon after finds
        its lines remembered (the neighbours of the selected chapter, prepared while the studio is idle: see
        `screens.main_screen`). Nothing is repainted."""
        if not self.is_mounted or not self.size.width:
            return
        width = self._wrap_width()
        key = (text_key(body), width)
        if key not in self._remembered:
            self._remember(key, self._wrap(width, selected=False, body=body))

    def _remember(self, key: tuple[TextKey, int], lines: list[Strip]) -> None:
        self._remembered[key] = lines  # the most recent last
        while len(self._remembered) > REMEMBERED:
            del self._remembered[next(iter(self._remembered))]

    def _measure(self) -> None:
        """Wrap the body at the current width and size the scrollable area to it (no layout: see the docstring)."""
        if self.size.width:
            set_virtual_size(self, Size(0, len(self._wrapped())))

    def on_mount(self) -> None:
        self._measure()

    def on_resize(self, event: Resize) -> None:
        self._measure()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines = None  # the lines carry the styles' colours (a new theme)
        self._remembered.clear()

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows of `crop`, with what they share (the wrapped lines, the scroll offset, the width and the
        background) read once for them all, not once per row."""
        self._frame = (
            self._wrapped(),
            self.scroll_offset.y,
            self.scrollable_content_region.width,
            Style(bgcolor=self.visual_style.rich_style.bgcolor),  # the background alone, as a Static's padding
        )
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        frame = self._frame
        if frame is None:
            frame = (self._wrapped(), self.scroll_offset.y, self.scrollable_content_region.width,
                     Style(bgcolor=self.visual_style.rich_style.bgcolor))
        lines, top, width, style = frame
        index = top + y
        if 0 <= index < len(lines):
            line = lines[index]  # padded, not cropped-and-padded: that would drop a blank line's empty segment
            return line.extend_cell_length(width, style) if line.cell_length <= width else line.crop(0, width)
        return Strip.blank(width, style)


__all__ = ["REMEMBERED", "TextPane", "text_key"]
