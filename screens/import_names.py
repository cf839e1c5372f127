"""The import's name candidates to confirm (issue 10 item 3, the deterministic depth): names found by word
segmentation in the author's chapters, which the author confirms into the name registry.

`ImportNamesScreen(rows, lang)` is a `Screen[list[str] | None]`: a selection list of `NameRow`s (the name, its
kind and how often and where it appears; the rows the import thinks likely are ticked to begin with), each
with `[x]` or `[ ]` in front so the choice shows without colour. Space
toggles the highlighted row, `a` ticks all (again: none), j/k and the arrows move, enter confirms the ticked
names (the list of their `name`s, maybe empty), escape skips (None: nothing is registered, the names can be
confirmed later). With no candidates it says so and enter goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Label, SelectionList, Static
from textual.widgets.option_list import OptionDoesNotExist
from textual.widgets.selection_list import Selection

from studio.i18n import Catalog, Lang, tr
from widgets.instant_keys import JK_BINDINGS

__all__ = ["MESSAGES", "ImportNamesScreen", "NameRow"]

MESSAGES: Catalog = {
    "title": ("确认人名、地名与势力（{n} 个候选）", "Confirm the names ({n} candidates)"),
    "explain": (
        "勾选的名字会登记到名字表（world/names.json），之后的人名笔误与新名字检查会用到它。",
        "Ticked names go into the name registry (world/names.json), used by the name checks from now on.",
    ),
    "none": ("没有找到候选名字。按 Enter 继续。", "No candidate names were found. Press Enter to go on."),
    "keys": ("空格 勾选/取消 · a 全选/全不选 · j/k ↑↓ 移动 · Enter 确认 · Esc 跳过",
             "Space tick · a all/none · j/k ↑↓ move · Enter confirm · Esc skip"),
    "count": ("已勾选 {n} 个", "{n} ticked"),
}


@dataclass(frozen=True)
class NameRow:
    """One candidate as the author sees it: `name`, a short `detail` (kind, count, first chapter), ticked or not."""

    name: str
    detail: str = ""
    selected: bool = False


class NameList(SelectionList[str]):
    """The candidates (enter is the screen's: confirm). A ticked row shows `[x]`, an unticked one `[ ]`: Textual
    draws both as the same `▐X▌` told apart by colour alone, which NO_COLOR (and a monochrome terminal) loses."""

    BINDINGS: ClassVar[list[BindingType]] = JK_BINDINGS

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        segments = list(line)
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return line
        if len(segments) < 3:
            return line
        # Textual's button is three one-cell segments (left edge, inner mark, right edge): keep their styles (the
        # colours, and the meta that makes a click toggle the row), change the glyphs only.
        left, inner, right = segments[:3]
        mark = "x" if selection.value in self.selected else " "
        glyphs = [Segment("[", left.style), Segment(mark, inner.style), Segment("]", right.style)]
        return Strip([*glyphs, *segments[3:]], line.cell_length)


class ImportNamesScreen(Screen[list[str] | None]):
    """Tick the names to register."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "confirm", show=False, priority=True),
        Binding("a", "toggle_all", show=False),
        Binding("escape", "skip", show=False),
    ]

    DEFAULT_CSS = """
    ImportNamesScreen {
        layout: vertical;
    }
    ImportNamesScreen #names-head {
        height: auto;
        padding: 0 1;
        background: $panel;
    }
    ImportNamesScreen #names-title {
        text-style: bold;
    }
    ImportNamesScreen NameList {
        height: 1fr;
    }
    ImportNamesScreen #names-keys {
        height: auto;
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    def __init__(self, rows: list[NameRow], lang: Lang = "zh") -> None:
        super().__init__()
        self.rows = rows
        self.lang: Lang = lang

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="names-head"):
            yield Label(tr(MESSAGES, "title", lang, n=len(self.rows)), id="names-title", markup=False)
            yield Static(tr(MESSAGES, "explain", lang) if self.rows else tr(MESSAGES, "none", lang),
                         id="names-explain", markup=False)
            yield Static("", id="names-count", markup=False)
        yield NameList(
            *[Selection(f"{row.name}  {row.detail}".rstrip(), row.name, row.selected) for row in self.rows],
            id="names-list",
        )
        yield Static(tr(MESSAGES, "keys", lang), id="names-keys", markup=False)

    def on_mount(self) -> None:
        self.names.focus()
        self._count()

    @property
    def names(self) -> NameList:
        return self.query_one(NameList)

    def _count(self) -> None:
        self.query_one("#names-count", Static).update(tr(MESSAGES, "count", self.lang, n=len(self.names.selected)))

    def on_selection_list_selection_toggled(self, event: SelectionList.SelectionToggled[str]) -> None:
        self._count()

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        self._count()

    def action_toggle_all(self) -> None:
        names = self.names
        if len(names.selected) == names.option_count:
            names.deselect_all()
        else:
            names.select_all()
        self._count()

    def action_confirm(self) -> None:
        selected = set(self.names.selected)
        self.dismiss([row.name for row in self.rows if row.name in selected])

    def action_skip(self) -> None:
        self.dismiss(None)
