"""正文 / Chapter pane: the selected chapter's text, or the live draft while the pipeline writes.

The text sits in a read-only `TextArea` (soft wrap, a line cache and incremental wrapping: a 10,000-character
chapter scrolls as smoothly as a short one; Markdown would mount a widget per paragraph and turn soft line
breaks into stray spaces in Chinese). With no cursor shown, the arrow, `j`/`k` and page keys scroll like a
pager, at once (`widgets.instant_keys.ReaderArea`: no scroll animation).

Typesetting: the text is shown the Chinese way (`studio.views.typeset`): the file's `# 第N章 标题` heading is
left out (the title line above says it once), and lines are broken at the pane's width by CJK rules (no 。，？！”
at a line's start, no “「 at its end, the paragraph indent never alone). The TextArea holds these display lines
(soft wrap stays on only as a safety net: no line is wider than the wrap width); `text` is the source text.
A new width typesets again, keeping the top line's place in the text.

Streaming: `begin_stream(title, text_so_far)`, then `append(delta)` as deltas arrive, then `end_stream(final_text)`.
Deltas are buffered and flushed into the TextArea at most `FLUSH_HZ` times per second, so 100 deltas/s over a slow
SSH link become ~15 small screen updates. While streaming the view stays pinned to the end (Textual's `anchor`),
unless the author scrolls up; scrolling back to the end pins it again. A flush typesets only the paragraph being
written (and what follows it), so a long draft costs the same per flush as a short one, and it repaints only
those rows (or the whole view when it scrolls to show a new line). A draft left for another chapter keeps its
layout: selected again, it typesets only what was written meanwhile (`studio.views.typeset.extend_layout`).

Screen cost (issue 12, "instant keys"): nothing here lays out the screen: a new text or a new line changes the
TextArea's virtual size only (`widgets.virtual_size`: a scrollbar that appears or goes re-arranges the TextArea
alone, except while a draft streams pinned to its end); the title is one line whatever it says. Only the marks
line shown or hidden lays it out once. The layouts of the last `REMEMBERED`
stored chapters shown are kept (keyed by the text and the width): going back to a neighbour does not typeset it
again, and `prepare_text` typesets a chapter about to be shown (the selected chapter's neighbours, while the
studio is idle: `screens.main_screen`), so a first visit does not typeset either.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Resize
from textual.timer import Timer
from textual.widgets import Static, TextArea
from textual.widgets.text_area import Selection

from studio.i18n import Catalog, Lang, tr
from studio.views.typeset import Layout, extend_layout, typeset
from widgets.instant_keys import ReaderArea

MESSAGES: Catalog = {
    "empty": ("（未选择章节）", "(no chapter selected)"),
    "streaming": ("（写作中）", "(writing)"),
    "no_text": ("本章尚无正文", "This chapter has no text yet"),
}

FLUSH_HZ = 15
REMEMBERED = 8
"""How many stored chapters' layouts a ChapterView keeps (a few hundred KB at most)."""
UNWRAPPED = 10**6
"""The width used before the pane has one (not laid out yet): paragraphs stay whole until the first resize."""


class ChapterView(Vertical):
    """A title line and the chapter text. `show_text(text, title=...)` for a stored chapter; `begin_stream`,
    `append`, `end_stream` for a draft being written."""

    DEFAULT_CSS = """
    ChapterView {
        height: 1fr;
    }
    ChapterView > #chapter-title {
        height: 1;
        padding: 0 1;
        text-style: bold;
        color: $text-accent;
    }
    ChapterView > #chapter-title.-streaming {
        color: $text-warning;
    }
    ChapterView > #chapter-marks {
        height: auto;
        max-height: 6;
        padding: 0 1;
        color: $text-warning;
        display: none;
    }
    ChapterView > #chapter-marks.-shown {
        display: block;
    }
    ChapterView > TextArea {
        height: 1fr;
        scrollbar-size-vertical: 1;
        border: none;
        padding: 0 1;
        background: $surface;
    }
    ChapterView > TextArea:focus {
        border: none;
    }
    """

    def __init__(
        self,
        text: str = "",
        *,
        title: str = "",
        lang: Lang = "zh",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.lang: Lang = lang
        self._source = text
        self._layout: Layout = typeset(text, UNWRAPPED)
        self._title = title
        self._marks = ""
        self._buffer: list[str] = []
        self._flush_timer: Timer | None = None
        self._streaming = False
        self._remembered: dict[tuple[str, int], Layout] = {}
        self._left_draft: tuple[str, Layout] | None = None
        """The draft (its text as shown, its layout) when a stored chapter took its place: back to it, only what
        was written meanwhile is typeset (`begin_stream`)."""
        """(source, width) -> its layout, of the chapters shown last (`_typeset_remembered`)."""
        self.flush_count = 0
        """How many times buffered deltas were written into the TextArea (coalescing is measurable)."""

    def compose(self) -> ComposeResult:
        yield Static(self._title_text(), id="chapter-title", markup=False)
        yield Static(self._marks, id="chapter-marks", markup=False, classes="-shown" if self._marks else None)
        yield ReaderArea(
            "\n".join(self._layout.lines),
            read_only=True,
            show_cursor=False,
            soft_wrap=True,
            highlight_cursor_line=False,
            show_line_numbers=False,
            id="chapter-text",
        )

    # ------------------------------------------------------------------ accessors

    @property
    def text_area(self) -> TextArea:
        return self.query_one("#chapter-text", TextArea)

    @property
    def text(self) -> str:
        """The source text shown now (heading included, lines unbroken), with deltas waiting for the next flush."""
        return self._source + "".join(self._buffer)

    @property
    def display_layout(self) -> Layout:
        """The display lines of the text in the TextArea and where each came from."""
        return self._layout

    def display_row(self, line: int, column: int = 0) -> tuple[int, int]:
        """The display (row, column) of a 1-based line (and 0-based column) of the source text."""
        return self._layout.locate(max(0, line - 1), column)

    def show_match(self, line: int, term: str = "") -> None:
        """Scroll to a 1-based source line (a search hit) and select `term` in it when it is there."""
        source_lines = self._source.split("\n")
        found = -1
        if term and 0 < line <= len(source_lines):
            found = source_lines[line - 1].find(term)
        row, col = self.display_row(line, max(0, found))
        area = self.text_area
        area.anchor(False)
        if found >= 0:
            end_col = col + len(term)
            area.selection = Selection((row, col), (row, min(end_col, len(self._layout.lines[row]))))
        top = max(0, row - max(1, area.scrollable_content_region.height // 3))
        area.scroll_to(y=top, animate=False, immediate=True)

    @property
    def title(self) -> str:
        return self._title

    @property
    def marks_text(self) -> str:
        """The marks line as shown ("" when hidden)."""
        return self._marks

    def show_marks(self, lines: list[str]) -> None:
        """The chapter's marks under its title (why it needs review, what its rebuild changed, an error): they
        stay while the chapter is shown; none hides the line."""
        text = "\n".join(lines)
        if text == self._marks:
            return
        self._marks = text
        if self.is_mounted:
            label = self.query_one("#chapter-marks", Static)
            label.update(text)
            label.set_class(bool(text), "-shown")

    @property
    def is_streaming(self) -> bool:
        return self._streaming

    # ------------------------------------------------------------------ stored text

    def show_text(self, text: str, *, title: str = "") -> None:
        """Show a chapter's text from the top (ends any stream without flushing its buffer)."""
        if self._streaming:
            self._left_draft = (self._source, self._layout)
        self._stop_stream()
        self._title = title
        self._update_title()
        area = self.text_area
        area.anchor(False)
        self._source = text
        self._load_all(remember=True)
        area.scroll_home(animate=False, immediate=True)

    def prepare_text(self, text: str) -> bool:
        """Typeset a stored chapter's `text` at the pane's width now, without showing it, so that `show_text`
        soon after finds its layout remembered (a neighbour of the selected chapter, prepared while the studio
        is idle: `screens.main_screen`). Keyed by the text: a file edited since is typeset anew when shown.
        False when the pane has no width yet (not laid out): nothing was prepared."""
        width = self._width()
        if width == UNWRAPPED:
            return False
        if (text, width) not in self._remembered:
            self._remember((text, width), typeset(text, width))
        return True

    def clear(self) -> None:
        self.show_text("", title="")

    # ------------------------------------------------------------------ streaming

    def begin_stream(self, title: str = "", text: str = "") -> None:
        """Start showing a draft being written, pinned to the end: `text` is what was written so far (shown at
        once: selecting the chapter being written shows its draft in the same frame, not a flush later)."""
        self._stop_stream()
        self._streaming = True
        self._title = title
        self._update_title()
        area = self.text_area
        self._source = text
        self._load_all(draft=self._draft_layout(text))
        area.anchor()

    def _draft_layout(self, text: str) -> Layout | None:
        """The layout of the draft `text` from the draft this view left (`_left_draft`), when `text` continues
        it at the same width: typesetting only what was written since (a long draft, selected again and again
        while it streams, is not typeset whole each time); None otherwise."""
        left, self._left_draft = self._left_draft, None
        if left is None or left[1].width != self._width() or not text.startswith(left[0]):
            return None
        if text == left[0]:
            return left[1]
        extended = extend_layout(left[1], text)
        return extended[0] if extended is not None else None

    def append(self, delta: str) -> None:
        """Add a delta of the draft; it reaches the screen with the next flush (at most FLUSH_HZ per second)."""
        if not delta:
            return
        if not self._streaming:
            self._streaming = True
            self._update_title()
            self.text_area.anchor()
        self._buffer.append(delta)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(1 / FLUSH_HZ, self._flush, name="chapter-view-flush")

    def end_stream(self, final_text: str | None = None) -> None:
        """Finish the stream: flush what is buffered, or replace it all with `final_text` (e.g. the refined
        text); the view keeps its scroll position unless it was pinned to the end."""
        area = self.text_area
        if final_text is None:
            self._flush()
        else:
            self._cancel_timer()
            self._buffer.clear()
            if final_text != self._source:
                pinned = area.is_anchored and area.scroll_y >= area.max_scroll_y - 1
                self._source = final_text
                self._load_all()
                if pinned:
                    area.scroll_end(animate=False)
        self._streaming = False
        area.history.clear()  # the undo history of a read-only view only costs memory
        self._update_title()

    # ------------------------------------------------------------------ internals

    def _flush(self) -> None:
        self._flush_timer = None
        if not self._buffer:
            return
        chunk = "".join(self._buffer)
        self._buffer.clear()
        self._source += chunk
        self._typeset_tail()
        self.flush_count += 1

    # ------------------------------------------------------------------ typesetting

    def _width(self) -> int:
        """The typesetting width: the TextArea's wrap width as if its scrollbar were shown (so a chapter that
        grows past one screen does not typeset again one cell narrower)."""
        if not self.is_mounted:
            return UNWRAPPED
        area = self.text_area
        width = area.wrap_width
        if not area.show_vertical_scrollbar:
            width -= area.styles.scrollbar_size_vertical
        return width if width >= 2 else UNWRAPPED

    def _load_all(self, *, remember: bool = False, draft: Layout | None = None) -> None:
        """Typeset the whole source at the pane's width and load it (a repaint follows even when the new text
        wraps to as many lines as the old: TextArea would not repaint it). `remember`: a stored chapter's text,
        whose layout is kept for the next time it is shown (`_typeset_remembered`); a draft's is not. `draft`:
        the source's layout, already made (`_draft_layout`)."""
        width = self._width()
        if draft is not None:
            self._layout = draft
        else:
            self._layout = self._typeset_remembered(width) if remember else typeset(self._source, width)
        area = self.text_area
        with area.prevent(TextArea.Changed):
            area.load_text("\n".join(self._layout.lines))
        area.refresh()

    def _typeset_remembered(self, width: int) -> Layout:
        """The layout of the source at `width`, from the last `REMEMBERED` chapters shown (an author goes back and
        forth between neighbours: each comes back without being typeset again). Keyed by the text itself, so an
        edited chapter is typeset anew."""
        key = (self._source, width)
        layout = self._remembered.pop(key, None)
        if layout is None:
            layout = typeset(self._source, width)
        self._remember(key, layout)
        return layout

    def _remember(self, key: tuple[str, int], layout: Layout) -> None:
        self._remembered[key] = layout  # the most recent last
        while len(self._remembered) > REMEMBERED:
            del self._remembered[next(iter(self._remembered))]

    def _typeset_tail(self) -> None:
        """After text was added at the end: typeset again from the last paragraph of the old layout on, and
        replace only those rows (`extend_layout`; the heading region is settled once the body has begun)."""
        old = self._layout
        extended = extend_layout(old, self._source) if old.width == self._width() else None
        if extended is None:
            area = self.text_area
            pinned = area.is_anchored and area.scroll_y >= area.max_scroll_y - 1
            self._load_all()
            if pinned:
                self.text_area.scroll_end(animate=False)
            return
        self._layout, first_row = extended
        lines = self._layout.lines
        area = self.text_area
        tail = "\n".join(lines[first_row:])
        with area.prevent(TextArea.Changed):
            area.replace(tail, (first_row, 0), area.document.end, maintain_selection_offset=True)
        # the rows from the paragraph being written on, and no others (the edit lays nothing out: ReaderArea);
        # a view pinned to the end that scrolls with a new line repaints itself whole
        area.refresh_lines(first_row, max(len(lines), len(old.lines)) - first_row)

    def on_resize(self, event: Resize) -> None:
        self.call_after_refresh(self._relayout)

    def _relayout(self) -> None:
        """The pane's width changed: typeset again, keeping the top line's place in the text (or the end,
        while pinned there)."""
        if not self.is_mounted or self._width() == self._layout.width:
            return
        area = self.text_area
        pinned = area.is_anchored and area.scroll_y >= area.max_scroll_y - 1
        old = self._layout
        top = int(area.scroll_y)
        place = old.origins[top] if 0 <= top < len(old.origins) else None
        self._load_all()
        if pinned:
            area.scroll_end(animate=False, immediate=True)
        elif place is not None:
            row, _ = self._layout.locate(place[0] + self._layout.skipped, place[1])
            area.scroll_to(y=row, animate=False, immediate=True)

    def _cancel_timer(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None

    def _stop_stream(self) -> None:
        self._cancel_timer()
        self._buffer.clear()
        self._streaming = False

    def _title_text(self) -> str:
        title = self._title or tr(MESSAGES, "empty", self.lang)
        if self._streaming:
            return f"{title}  {tr(MESSAGES, 'streaming', self.lang)}"
        return title

    def _update_title(self) -> None:
        if not self.is_mounted:
            return
        label = self.query_one("#chapter-title", Static)
        label.update(self._title_text(), layout=False)  # one line high whatever it says: no layout of the screen
        label.set_class(self._streaming, "-streaming")
