"""The import's preview (issue 10 item 1): what was found in the manuscript, before anything is written.

`ImportPreviewScreen(target, lang, *, read=read_source, split=split_manuscript)` is a
`Screen[ImportChoice | None]`. Reading and splitting run in a thread worker (a 3-million-character file never
holds the keys up); each step shows on the status line (`ImportProgress`), the result arrives as `ImportSplit`.
The source is read once; a new way of splitting splits the text already read again.

The preview (`studio.importing.preview.preview_lines`: chapters, volumes, the first and last titles, the
encoding and its conversion, suspicious splits) scrolls with j/k, up/down and PgUp/PgDn. Keys, all shown on
the screen's last lines at 80x24 as at 160x48:

- y / enter: import as shown (refused while nothing was split, or with no chapter);
- h / s / b: split by the headings / by size / by blank lines (the headings are the default);
- t: the target size of a chapter for the size and blank-line splits (a number dialog, 500..50,000 字);
- escape / n: back to the form (nothing was written).

A source that cannot be read, or a split that fails, is shown on the screen, where it stays, never as a
traceback; the author can try another split or go back.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Label, Static
from textual.worker import get_current_worker

from screens.prompt_dialogs import FoldedText, NumberDialog
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, chars_text, tr, tr_count
from studio.importing.preview import preview_lines
from studio.importing.source import SourceText, read_source
from studio.importing.split import DEFAULT_TARGET_CHARS, MIN_TARGET_CHARS, split_manuscript
from studio.models.manuscript import Manuscript, SplitMode
from studio.tui.import_flow import ImportTarget
from studio.tui.messages import ImportProgress, ImportSplit
from widgets.instant_keys import InstantScroll

__all__ = ["MAX_TARGET_CHARS", "MESSAGES", "ImportChoice", "ImportPreviewScreen"]

MAX_TARGET_CHARS = 50_000

MESSAGES: Catalog = {
    "title": ("导入预览：{source}", "Import preview: {source}"),
    "target": ("新项目：{target}", "New project: {target}"),
    "reading": ("正在读取书稿（识别编码）……", "Reading the manuscript (detecting the encoding)..."),
    "splitting": ("正在分章（{mode}）……", "Splitting into chapters ({mode})..."),
    "ready": ("分章方式：{mode}{size} · 共 {chapters} 章", "Split: {mode}{size} · {chapters} chapters"),
    "ready_one": ("分章方式：{mode}{size} · 共 {chapters} 章", "Split: {mode}{size} · 1 chapter"),
    "size": ("，每章约 {chars}", ", about {chars} a chapter"),
    "m_headings": ("按章节标题", "by chapter headings"),
    "m_size": ("按字数", "by size"),
    "m_blank": ("按空行", "by blank lines"),
    "failed": ("无法导入：{message}", "Cannot import: {message}"),
    "crashed": ("分章出错：{message}（换一种分章方式，或按 Esc 返回）",
                "Splitting failed: {message} (try another split, or Esc to go back)"),
    "not_ready": ("还在分章，请稍候", "Still splitting; please wait"),
    "no_chapters": ("没有找到任何章节：换一种分章方式（s 按字数、b 按空行），或按 Esc 返回",
                    "No chapter found: try another split (s by size, b by blank lines), or Esc to go back"),
    "size_title": ("每章的目标字数", "Target size of a chapter (characters)"),
    "size_estimate": ("约 {n} 章", "about {n} chapters"),
    "size_estimate_one": ("约 {n} 章", "about 1 chapter"),
    "keys": (
        "y/Enter 确认导入 · h 按标题分章 · s 按字数分章 · b 按空行分章 · t 目标字数 · j/k ↑↓ PgUp/PgDn 滚动 · Esc 返回",
        "y/Enter import · h split by headings · s by size · b by blank lines · t target size · "
        "j/k ↑↓ PgUp/PgDn scroll · Esc back",
    ),
}


@dataclass(frozen=True)
class ImportChoice:
    """What the author confirmed: the manuscript as split, and where it goes."""

    target: ImportTarget
    manuscript: Manuscript


class PreviewBody(InstantScroll, VerticalScroll):
    """The preview's scrolling text (j/k and the arrows without animation)."""


Reader = Callable[..., SourceText]
"""`read_source(path, *, lang)`."""
Splitter = Callable[..., Manuscript]
"""`split_manuscript(source, *, mode, target_chars)`."""


class ImportPreviewScreen(Screen[ImportChoice | None]):
    """Read and split in a worker, show the preview, let the author confirm or adjust."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "confirm", show=False),
        Binding("h", "split('headings')", show=False),
        Binding("s", "split('size')", show=False),
        Binding("b", "split('blank')", show=False),
        Binding("t", "target_size", show=False),
        Binding("escape,n", "cancel", show=False),
    ]

    DEFAULT_CSS = """
    ImportPreviewScreen {
        layout: vertical;
    }
    ImportPreviewScreen #preview-head {
        height: auto;
        padding: 0 1;
        background: $panel;
    }
    ImportPreviewScreen #preview-title {
        text-style: bold;
    }
    ImportPreviewScreen #preview-status {
        color: $text-accent;
    }
    ImportPreviewScreen PreviewBody {
        height: 1fr;
        border: round $primary;
        padding: 0 1;
    }
    ImportPreviewScreen #preview-error {
        color: $text-error;
        text-style: bold;
        height: auto;
        padding: 0 1;
    }
    ImportPreviewScreen #preview-keys {
        height: auto;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    def __init__(
        self,
        target: ImportTarget,
        lang: Lang = "zh",
        *,
        read: Reader = read_source,
        split: Splitter = split_manuscript,
    ) -> None:
        super().__init__()
        self.target = target
        self.lang: Lang = lang
        self._read, self._split = read, split
        self.source: SourceText | None = None
        self.manuscript: Manuscript | None = None
        self.mode: SplitMode = "headings"
        self.target_chars = DEFAULT_TARGET_CHARS
        self.error: str | None = None
        self.busy = False

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="preview-head"):
            yield Label(tr(MESSAGES, "title", lang, source=self.target.source), id="preview-title", markup=False)
            yield Label(tr(MESSAGES, "target", lang, target=self.target.target), id="preview-target", markup=False)
            yield Static("", id="preview-status", markup=False)
        with PreviewBody(id="preview-scroll"):
            yield Static("", id="preview-body", markup=False)
        yield Static("", id="preview-error", markup=False)
        yield FoldedText(tr(MESSAGES, "keys", lang), keys=True, id="preview-keys")  # a key stays by its label

    def on_mount(self) -> None:
        self.query_one(PreviewBody).focus()
        self._start()

    # -- showing ------------------------------------------------------------------------------------------------

    @property
    def body_text(self) -> str:
        return str(self.query_one("#preview-body", Static).render())

    def _status(self, text: str) -> None:
        self.query_one("#preview-status", Static).update(text)

    def show_error(self, text: str | None) -> None:
        self.error = text
        self.query_one("#preview-error", Static).update(text or "")

    def _mode_name(self, mode: SplitMode) -> str:
        return tr(MESSAGES, f"m_{mode}", self.lang)

    # -- the worker ---------------------------------------------------------------------------------------------

    def _start(self) -> None:
        self.busy = True
        self.manuscript = None
        self.show_error(None)
        self._work(self.mode, self.target_chars)

    @work(thread=True, exclusive=True, group="import-preview", exit_on_error=False)
    def _work(self, mode: SplitMode, target_chars: int) -> None:
        """Read (once) and split in a thread; only messages go back to the screen (none from a worker that a newer
        split replaced: its result is stale)."""
        worker = get_current_worker()
        try:
            if self.source is None:
                self.post_message(ImportProgress("reading"))
                self.source = self._read(self.target.source, lang=self.lang)
            source = self.source
            self.post_message(ImportProgress("splitting", mode))
            manuscript = self._split(source, mode=mode, target_chars=target_chars)
            lines = preview_lines(manuscript, self.lang, skipped=source.skipped)
        except (StudioError, OSError) as exc:
            if worker.is_cancelled:
                return
            self.post_message(ImportSplit(None, [], error=tr(MESSAGES, "failed", self.lang, message=exc)))
            return
        except Exception as exc:  # a bug in splitting must not lose the screen: readable, traceback in the log
            self.log.error(traceback.format_exc())
            self.post_message(ImportSplit(None, [], error=tr(MESSAGES, "crashed", self.lang,
                                                               message=f"{type(exc).__name__}: {exc}")))
            return
        if not worker.is_cancelled:
            self.post_message(ImportSplit(manuscript, lines))

    @on(ImportProgress)
    def _progress(self, message: ImportProgress) -> None:
        message.stop()
        if message.step == "reading":
            self._status(tr(MESSAGES, "reading", self.lang))
        else:
            mode: SplitMode = message.detail if message.detail in ("size", "blank") else "headings"  # type: ignore[assignment]
            self._status(tr(MESSAGES, "splitting", self.lang, mode=self._mode_name(mode)))

    @on(ImportSplit)
    def _split_done(self, message: ImportSplit) -> None:
        message.stop()
        self.busy = False
        if message.error is not None or message.manuscript is None:
            self._status("")
            self.show_error(message.error)
            return
        manuscript = message.manuscript
        self.manuscript = manuscript
        self.mode = manuscript.mode
        size = tr(MESSAGES, "size", self.lang, chars=chars_text(self.target_chars, self.lang)) if manuscript.mode != "headings" else ""
        self._status(tr_count(MESSAGES, "ready", self.lang, len(manuscript.chapters),
                              mode=self._mode_name(manuscript.mode), size=size, chapters=len(manuscript.chapters)))
        self.query_one("#preview-body", Static).update("\n".join(message.lines))
        self.query_one(PreviewBody).scroll_home(animate=False)
        if not manuscript.chapters:
            self.show_error(tr(MESSAGES, "no_chapters", self.lang))

    # -- keys ---------------------------------------------------------------------------------------------------

    def action_confirm(self) -> None:
        manuscript = self.manuscript
        if self.busy or (manuscript is None and self.error is None):
            self.show_error(tr(MESSAGES, "not_ready", self.lang))
            return
        if manuscript is None:
            return  # the error line says why
        if not manuscript.chapters:
            self.show_error(tr(MESSAGES, "no_chapters", self.lang))
            return
        self.dismiss(ImportChoice(self.target, manuscript))

    def action_split(self, mode: SplitMode) -> None:
        if self.busy and mode == self.mode:
            return
        self.mode = mode
        self._start()

    def action_target_size(self) -> None:
        total = sum(len(f.text) for f in self.source.files) if self.source is not None else 0

        def estimate(n: int) -> str:
            chapters = max(1, round(total / n))
            return tr_count(MESSAGES, "size_estimate", self.lang, chapters, n=chapters) if total else ""

        def answered(n: int | None) -> None:
            if n is None:
                return
            self.target_chars = n
            if self.mode == "headings":
                self.mode = "size"  # a size only means something to the size and blank-line splits
            self._start()

        dialog = NumberDialog(MAX_TARGET_CHARS, estimate, self.lang, title=tr(MESSAGES, "size_title", self.lang),
                              initial=self.target_chars, minimum=MIN_TARGET_CHARS)
        self.app.push_screen(dialog, answered)

    def action_cancel(self) -> None:
        self.workers.cancel_group(self, "import-preview")
        self.dismiss(None)
