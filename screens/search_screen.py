"""`/`: search the novel's text and summaries (`studio.search.search_project`).

``SearchScreen(root, lang, *, initial="")`` -> ``ModalScreen[SearchHit | None]``. An Input and a results list
(`OptionList`), one line per hit: ``第N章 · 第L行 · snippet`` (``第N章 · 摘要 · 第L行 · …`` for a summary) with
every match highlighted from the hit's spans. Typing searches after a short debounce (``DEBOUNCE_S``) in a
thread worker (a 500-chapter novel takes ~0.2 s), so keys never wait; a newer query supersedes an older one.
enter in the input picks the highlighted (or first) hit; down moves into the list; enter on a hit closes with
it; escape closes with None.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from studio.i18n import Catalog, Lang, tr, tr_count
from studio.search import SearchHit, search_project

__all__ = ["DEBOUNCE_S", "LIMIT", "MESSAGES", "SearchScreen", "hit_label"]

DEBOUNCE_S = 0.15
LIMIT = 200

MESSAGES: Catalog = {
    "title": ("搜索正文和摘要", "Search the text and summaries"),
    "placeholder": ("输入要找的词（空格分隔多个词）", "Words to find (separate several with spaces)"),
    "hint": ("Enter 跳到结果 · ↓ 进入列表 · Esc 关闭", "Enter jump · ↓ into the list · Esc close"),
    "chapter": ("第{n}章", "Ch {n}"),
    "line": ("第{line}行", "line {line}"),
    "summary": ("摘要", "summary"),
    "count": ("{n} 条结果", "{n} hits"),
    "count_one": ("{n} 条结果", "{n} hit"),
    "more": ("超过 {n} 条结果，只显示前 {n} 条", "More than {n} hits; showing the first {n}"),
    "none": ("没有找到", "Nothing found"),
    "searching": ("搜索中…", "Searching…"),
    "empty": ("", ""),
}

HIGHLIGHT = "bold reverse"


def hit_label(hit: SearchHit, lang: Lang = "zh") -> Text:
    """`第N章 · 第L行 · snippet`, the matches highlighted."""
    parts = [tr(MESSAGES, "chapter", lang, n=hit.chapter)]
    if hit.source == "summary":
        parts.append(tr(MESSAGES, "summary", lang))
    parts.append(tr(MESSAGES, "line", lang, line=hit.line))
    text = Text(" · ".join(parts) + " · ", style="dim")
    snippet = Text(hit.snippet.strip("\n"))
    for start, end in hit.spans:
        snippet.stylize(HIGHLIGHT, start, end)
    text.append_text(snippet)
    return text


class SearchScreen(ModalScreen[SearchHit | None]):
    """Find a passage and jump to its chapter."""

    DEFAULT_CSS = """
    SearchScreen {
        align: center middle;
    }
    SearchScreen > #search-box {
        width: 100;
        max-width: 100%;
        height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    SearchScreen #search-title {
        text-style: bold;
        width: 100%;
    }
    SearchScreen #search-results {
        height: 1fr;
        border: none;
    }
    SearchScreen #search-status, SearchScreen #search-hint {
        color: $text-muted;
        width: 100%;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", show=False),
        Binding("down", "into_results", show=False),
    ]

    def __init__(self, root: Path, lang: Lang = "zh", *, initial: str = "", limit: int = LIMIT) -> None:
        super().__init__()
        self.root = Path(root)
        self.lang: Lang = lang
        self.initial = initial
        self.limit = limit
        self.hits: list[SearchHit] = []
        self.query_text = ""
        self.searches = 0  # finished searches (tests wait on it)
        self._timer: Timer | None = None
        self._generation = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="search-box"):
            yield Label(tr(MESSAGES, "title", self.lang), id="search-title", markup=False)
            yield Input(self.initial, placeholder=tr(MESSAGES, "placeholder", self.lang), id="search-input")
            yield Label("", id="search-status", markup=False)
            yield OptionList(id="search-results")
            yield Label(tr(MESSAGES, "hint", self.lang), id="search-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#search-input", Input).focus()
        if self.initial:
            self._schedule(self.initial)

    @property
    def results(self) -> OptionList:
        return self.query_one("#search-results", OptionList)

    # -- searching -------------------------------------------------------------------------------------------

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._schedule(event.value)

    def _schedule(self, query: str) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._generation += 1
        generation = self._generation
        if not query.strip():
            self._show(generation, query, [])
            return
        self.query_one("#search-status", Label).update(tr(MESSAGES, "searching", self.lang))
        self._timer = self.set_timer(DEBOUNCE_S, lambda: self._search(generation, query))

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search(self, generation: int, query: str) -> None:
        hits = search_project(self.root, query, limit=self.limit + 1)
        self.app.call_from_thread(self._show, generation, query, hits)

    def _show(self, generation: int, query: str, hits: list[SearchHit]) -> None:
        if generation != self._generation:
            return  # a newer query is on its way
        more = len(hits) > self.limit
        self.hits = hits[: self.limit]
        self.query_text = query
        results = self.results
        results.clear_options()
        results.add_options([Option(hit_label(hit, self.lang), id=str(i)) for i, hit in enumerate(self.hits)])
        if self.hits:
            results.highlighted = 0
        status = ""
        if query.strip():
            if more:
                status = tr(MESSAGES, "more", self.lang, n=self.limit)
            elif self.hits:
                status = tr_count(MESSAGES, "count", self.lang, len(self.hits), n=len(self.hits))
            else:
                status = tr(MESSAGES, "none", self.lang)
        self.query_one("#search-status", Label).update(status)
        self.searches += 1

    # -- choosing --------------------------------------------------------------------------------------------

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self.hits:
            return
        index = self.results.highlighted
        self.dismiss(self.hits[index if index is not None else 0])

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.hits):
            self.dismiss(self.hits[event.option_index])

    def action_into_results(self) -> None:
        if self.hits and self.query_one("#search-input", Input).has_focus:
            self.results.focus()

    def action_close(self) -> None:
        self.dismiss(None)
