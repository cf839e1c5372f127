"""正文 / Chapter pane: the selected chapter's text, or the live draft while the pipeline writes.

The text sits in a read-only `TextArea` (soft wrap, a line cache and incremental wrapping: a 10,000-character
chapter scrolls as smoothly as a short one; Markdown would mount a widget per paragraph and turn soft line
breaks into stray spaces in Chinese). With no cursor shown, the arrow, `j`/`k` and page keys scroll like a
pager, at once (`widgets.instant_keys.ReaderArea`: no scroll animation).

Streaming: `begin_stream(title)`, then `append(delta)` as deltas arrive, then `end_stream(final_text)`. Deltas
are buffered and flushed into the TextArea at most `FLUSH_HZ` times per second, so 100 deltas/s over a slow SSH
link become ~15 small screen updates. While streaming the view stays pinned to the end (Textual's `anchor`),
unless the author scrolls up; scrolling back to the end pins it again.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Static, TextArea

from studio.i18n import Catalog, Lang, tr
from widgets.instant_keys import ReaderArea

MESSAGES: Catalog = {
    "empty": ("（未选择章节）", "(no chapter selected)"),
    "streaming": ("（写作中）", "(writing)"),
    "no_text": ("本章尚无正文", "This chapter has no text yet"),
}

FLUSH_HZ = 15


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
    ChapterView > TextArea {
        height: 1fr;
        scrollbar-size-vertical: 1;
        border: none;
        padding: 0 1;
        background: $surface;
    }
    ChapterView > TextArea:focus {
        border: none;
        background-tint: $foreground 3%;
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
        self._initial_text = text
        self._title = title
        self._buffer: list[str] = []
        self._flush_timer: Timer | None = None
        self._streaming = False
        self.flush_count = 0
        """How many times buffered deltas were written into the TextArea (coalescing is measurable)."""

    def compose(self) -> ComposeResult:
        yield Static(self._title_text(), id="chapter-title", markup=False)
        yield ReaderArea(
            self._initial_text,
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
        """The text shown now, including deltas still waiting for the next flush."""
        return self.text_area.text + "".join(self._buffer)

    @property
    def title(self) -> str:
        return self._title

    @property
    def is_streaming(self) -> bool:
        return self._streaming

    # ------------------------------------------------------------------ stored text

    def show_text(self, text: str, *, title: str = "") -> None:
        """Show a chapter's text from the top (ends any stream without flushing its buffer)."""
        self._stop_stream()
        self._title = title
        self._update_title()
        area = self.text_area
        area.anchor(False)
        with area.prevent(TextArea.Changed):
            area.load_text(text)
        area.scroll_home(animate=False, immediate=True)

    def clear(self) -> None:
        self.show_text("", title="")

    # ------------------------------------------------------------------ streaming

    def begin_stream(self, title: str = "") -> None:
        """Start showing a draft being written: empty text, pinned to the end."""
        self._stop_stream()
        self._streaming = True
        self._title = title
        self._update_title()
        area = self.text_area
        with area.prevent(TextArea.Changed):
            area.load_text("")
        area.anchor()

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
            if final_text != area.text:
                pinned = area.is_anchored and area.scroll_y >= area.max_scroll_y - 1
                with area.prevent(TextArea.Changed):
                    area.load_text(final_text)
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
        area = self.text_area
        with area.prevent(TextArea.Changed):
            area.insert(chunk, area.document.end, maintain_selection_offset=True)
        self.flush_count += 1

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
        label.update(self._title_text())
        label.set_class(self._streaming, "-streaming")
