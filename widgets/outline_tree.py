"""大纲 / Outline pane: a tree of volumes and chapters, fed by `studio.views.outline_rows`.

A chapter line reads `第12章 标题      3,021字 4.15 ✓ 主线`: number, title, 字数, overall score, a status mark
and the storyline's tag. Columns are aligned in terminal cells (`rich.cells.cell_len`), so Chinese titles line
up. The storyline is shown both as a colour (a stable slot of a 6-colour palette that exists in 16/256-colour
terminals) and as a short text tag, so the meaning survives NO_COLOR; each status has its own mark character
(`studio.views.outline_rows.STATUS_MARKS`: "edited, not rebuilt" ↻ and "needs review" ⚑ differ).
A volume line reads `第一卷 子时灯  2/10章 · 5,472字`. Every line is fitted to the pane's width (`columns_for`,
`volume_label`), so the tree never scrolls sideways.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import BindingType
from textual.geometry import Region
from textual.message import Message
from textual.reactive import var
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import NodeID, TreeNode

from studio.i18n import Catalog, Lang, format_count, tr
from studio.views.outline_rows import STATUS_MARKS, ChapterRow, ChapterStatus, VolumeRow
from widgets import compat
from widgets.instant_keys import JK_BINDINGS, QuietFocus

MESSAGES: Catalog = {
    "root": ("大纲", "Outline"),
    "volume": ("第{n}卷", "Vol {n}"),
    "loose": ("大纲外的章节", "Chapters outside the outlines"),
    "volume_stats": ("{written}/{total}章 · {words}字", "{written}/{total} ch · {words} chars"),
    "volume_count": ("{written}/{total}章", "{written}/{total} ch"),
    # English rows show the bare number: the unit is on the volume line ("5,472 chars"), and " chars" on every
    # row would cut the titles to a stub at 160x48
    "words": ("{n}字", "{n}"),
    "chapter": ("第{n}章", "Ch {n}"),
    "legend": (
        "✓ 已提交  ! 强制通过  ↻ 手改待重建  ⚑ 需复查  ▹ 已暂存  ✎ 写作中  ∘ 计划中",
        "✓ committed  ! force-passed  ↻ edited, not rebuilt  ⚑ needs review  ▹ staged  ✎ in progress  ∘ planned",
    ),
}

STATUS_STYLES: dict[ChapterStatus, str] = {
    ChapterStatus.COMMITTED: "green",
    ChapterStatus.FORCE_PASSED: "bold yellow",
    ChapterStatus.NEEDS_REBUILD: "bold red",
    ChapterStatus.NEEDS_REVIEW: "bold magenta",
    ChapterStatus.STAGED: "cyan",
    ChapterStatus.IN_PROGRESS: "bold cyan",
    ChapterStatus.PLANNED: "dim",
}

# ANSI colour names: present in 16-colour, 256-colour and truecolor terminals alike.
STORYLINE_PALETTE: tuple[str, ...] = ("cyan", "magenta", "yellow", "green", "bright_blue", "bright_red")

TITLE_MAX_CELLS = 16
TITLE_MIN_CELLS = 5  # a title cut shorter than this (two characters and the ellipsis) is left out instead
TAG_CELLS = 4
SCORE_CELLS = 4  # `4.15`: two decimals, as the judge gives them


def status_legend(lang: Lang = "zh") -> str:
    return tr(MESSAGES, "legend", lang)


def storyline_color(slot: int) -> str:
    return STORYLINE_PALETTE[slot % len(STORYLINE_PALETTE)]


def storyline_tag(name: str | None, storyline_id: str | None, cells: int = TAG_CELLS) -> str:
    """A short text tag for a storyline: the first characters of its name (`守灯人之路` -> `守灯`), else of its id."""
    source = (name or storyline_id or "").strip()
    out = ""
    for ch in source:
        if cell_len(out + ch) > cells:
            break
        out += ch
    return out


def fit(text: str, width: int) -> str:
    """`text` cut or padded with spaces to exactly `width` cells (a cut ends in `…`)."""
    if cell_len(text) <= width:
        return text + " " * (width - cell_len(text))
    if width <= 0:
        return ""
    cut = set_cell_size(text, width - 1).rstrip()  # a wide character cut in half leaves a space: dropped
    return cut + "…" + " " * (width - 1 - cell_len(cut))


@dataclass(frozen=True)
class Columns:
    """Column widths (cells) shared by every chapter line of the tree, so they align. A width of 0 leaves the
    column out (`title` 0: no title; `words` 0: no word counts; `score` 0: no chapter has a score yet)."""

    number: int
    title: int
    words: int
    score: int = SCORE_CELLS


def columns_for(rows: list[VolumeRow], lang: Lang = "zh", width: int | None = None) -> Columns:
    """The columns of `rows`' chapter lines in `width` cells (None: no limit, every column at its natural width).

    `第12章 标题      3021字 4.15 ✓ 主线`. The number, the score, the status mark and the storyline tag always
    stay; when the line does not fit, the title gives way first (cut with an ellipsis, down to
    `TITLE_MIN_CELLS`), then the word counts go (the title grows back into their room), then the title
    shrinks further and finally goes too. Narrower than number, score, mark and tag, the tree cuts the line.
    """
    chapters = [c for v in rows for c in v.chapters]
    if not chapters:
        return Columns(number=cell_len(tr(MESSAGES, "chapter", lang, n=1)), title=4, words=0)
    number = max(cell_len(tr(MESSAGES, "chapter", lang, n=c.number)) for c in chapters)
    title = max(2, min(TITLE_MAX_CELLS, max(cell_len(c.title) for c in chapters)))
    words = max(
        (cell_len(tr(MESSAGES, "words", lang, n=format_count(c.word_count, lang))) for c in chapters if c.word_count is not None),
        default=0,
    )
    score = SCORE_CELLS if any(c.overall is not None for c in chapters) else 0
    natural = Columns(number=number, title=title, words=words, score=score)
    if width is None:
        return natural
    tag = max((cell_len(storyline_tag(c.storyline_name, c.storyline_id)) for c in chapters), default=0)
    # number, mark and tag with their separators; the title's separator is counted with the title
    kept = number + (1 + score if score else 0) + 2 + (1 + tag if tag else 0)
    room = width - kept - 1  # what the title may use with its separator
    if words and room - (1 + words) >= min(title, TITLE_MIN_CELLS):
        return Columns(number=number, title=min(title, room - (1 + words)), words=words, score=score)
    shrunk = min(title, room)
    return Columns(number=number, title=shrunk if shrunk >= min(title, TITLE_MIN_CELLS) else 0, words=0,
                   score=score)


def chapter_label(row: ChapterRow, columns: Columns, lang: Lang = "zh") -> Text:
    """`第12章 标题      3021字 4.15 ✓ 主线` with cell-aligned columns and styled mark and tag."""
    text = Text(no_wrap=True, end="")
    text.append(fit(tr(MESSAGES, "chapter", lang, n=row.number), columns.number))
    if columns.title:
        text.append(" ")
        text.append(fit(row.title, columns.title), style="dim" if row.status == ChapterStatus.PLANNED else "")
    if columns.words:
        words = tr(MESSAGES, "words", lang, n=format_count(row.word_count, lang)) if row.word_count is not None else ""
        text.append(" " + " " * (columns.words - cell_len(words)) + words)
    if columns.score:
        score = f"{row.overall:.2f}" if row.overall is not None else ""
        text.append(" " + score.rjust(columns.score))
    text.append(" ")
    text.append(STATUS_MARKS[row.status], style=STATUS_STYLES[row.status])
    tag = storyline_tag(row.storyline_name, row.storyline_id)
    if tag:
        text.append(" ")
        text.append(tag, style=storyline_color(row.storyline_slot))
    return text


def volume_head(row: VolumeRow, lang: Lang = "zh") -> str:
    """The volume's name: `第一卷 子时灯` (a title that names its volume itself is shown as it is)."""
    if row.number == 0:
        return tr(MESSAGES, "loose", lang)
    if row.title.startswith("第") or (lang == "en" and row.title.lower().startswith("vol")):
        return row.title
    return f"{tr(MESSAGES, 'volume', lang, n=row.number)} {row.title}".rstrip()


def volume_stats(row: VolumeRow, lang: Lang = "zh") -> tuple[str, ...]:
    """The volume's stats, longest first: `2/10章 · 5472字`, `2/10章`, `2/10`."""
    written, total = row.written, len(row.chapters)
    return (
        tr(MESSAGES, "volume_stats", lang, written=written, total=total, words=format_count(row.word_count, lang)),
        tr(MESSAGES, "volume_count", lang, written=written, total=total),
        f"{written}/{total}",
    )


def volume_label(row: VolumeRow, lang: Lang = "zh", width: int | None = None) -> Text:
    """`第一卷 子时灯  2/10章 · 5472字` in `width` cells (None: no limit).

    When the line does not fit, the stats give way first: the word count goes, then the 章 unit (`2/10`);
    then the name is cut with an ellipsis (down to `TITLE_MIN_CELLS`) beside the bare `2/10`; narrower still
    the stats go and the name alone is cut to the width.
    """
    head = volume_head(row, lang)
    stats_forms = volume_stats(row, lang)
    stats = stats_forms[0]
    if width is not None and cell_len(head) + 2 + cell_len(stats) > width:
        fitting = [s for s in stats_forms if cell_len(head) + 2 + cell_len(s) <= width]
        bare = stats_forms[-1]
        if fitting:
            stats = fitting[0]
        elif width - 2 - cell_len(bare) >= min(cell_len(head), TITLE_MIN_CELLS):
            stats = bare
            head = fit(head, width - 2 - cell_len(bare)).rstrip()
        else:
            stats = ""
            head = fit(head, width).rstrip()
    text = Text(head, style="bold", no_wrap=True, end="")
    if stats:
        text.append("  " + stats, style="dim")
    return text


NodeData = ChapterRow | VolumeRow

_UNBUILT = Text(no_wrap=True, end="")
"""A node's label until its line is first drawn (`OutlineTree.render_label` builds it then; shared, never
changed: Tree copies a label to draw it)."""


class OutlineTree(QuietFocus, Tree[NodeData]):
    """The outline tree. Feed it `build_outline_rows(project)`; re-feed it with `refresh_rows(rows)`.

    It looks the same focused or not (the pane's accent border shows the focus): the cursor line is always
    drawn as Tree draws it focused (the selected chapter stays clear while the author reads it in the chapter
    pane), with no focus tint and the same guides, so a pane switch repaints none of it (`QuietFocus`).

    Posts `OutlineTree.ChapterSelected(number, activated)` when the cursor lands on a chapter (activated=False;
    once per change of chapter) and when the author presses enter on one (activated=True).

    `cursor_chapter` (a reactive) is the chapter under the cursor, set as the cursor moves, inside the key's
    own handler: a screen that watches it (`DOMNode.watch`) shows the chapter in the same frame as the cursor.
    The message reaches the screen a few message hops later, after the screen painted the moved cursor alone
    and its update timer went back to its 60 Hz grid: the chapter then waited up to a frame for its paint.
    """

    DEFAULT_CSS = """
    OutlineTree {
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    /* The same look focused and not: each rule below repeats Tree's focused rule for both states (and the
       light theme's), so the focus state decides nothing about how the outline is drawn. */
    OutlineTree, OutlineTree:focus {
        background-tint: $foreground 0%;
        & > .tree--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
        & > .tree--guides, & > .tree--guides-hover {
            color: $surface-lighten-2;
        }
        & > .tree--guides-selected {
            color: $block-cursor-background;
        }
    }
    OutlineTree:light, OutlineTree:light:focus {
        & > .tree--guides {
            color: $surface-darken-1;
        }
        & > .tree--guides-hover, & > .tree--guides-selected {
            color: $block-cursor-background;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = JK_BINDINGS

    cursor_chapter: var[int | None] = var(None, init=False)
    """The chapter under the cursor (None: a volume row, or no cursor); changes with the cursor, at once."""

    STYLE_COMPONENTS: ClassVar[tuple[str, ...]] = (
        "tree--label", "tree--guides", "tree--guides-hover", "tree--guides-selected", "tree--cursor",
        "tree--highlight", "tree--highlight-line",
    )

    def _style_signature(self) -> tuple[object, ...] | None:
        """What the tree's lines are drawn with (focus is in the line cache's key already); None before the
        component styles exist (not mounted yet)."""
        try:
            components = tuple(self.get_component_rich_style(name, partial=True) for name in self.STYLE_COMPONENTS)
        except KeyError:
            return None
        return (self.rich_style, self.guide_depth, *components)

    def notify_style_update(self) -> None:
        """Tree rebuilds every line and asks for a layout on any style update, also when focus merely moves
        between panes: most of a pane switch's time on a long outline. Its line cache is keyed by the pseudo
        classes (focus, hover) already, so lines drawn while focused stay valid while blurred and back, as long
        as each state is drawn with the styles it had: `render_lines` records the styles each state's lines
        were drawn with (since the last rebuild), and a style update rebuilds only when the current state's
        styles differ from those (a theme change). Otherwise it repaints from the cache: no line is
        re-rendered, the line table is not rebuilt, no layout; and when the styles are the ones the screen
        shows now (the focus moved and both states look the same) nothing is repainted.

        A state with no recorded styles has no line drawn since the last rebuild (the focus moves without a
        style update: `QuietFocus`), so nothing of it can be stale."""
        signature = self._style_signature()
        state = self.get_pseudo_class_state()
        drawn = self._drawn_with
        shown = self.__dict__.get("_shown_with")
        self.__dict__["_shown_with"] = signature
        if signature is not None and drawn.get(state, signature) == signature:
            super(Tree, self).notify_style_update()
            if signature != shown:
                self.refresh()
            return
        drawn.clear()
        super().notify_style_update()

    @property
    def _drawn_with(self) -> dict[object, tuple[object, ...]]:
        """The styles each pseudo-class state's cached lines were drawn with (`render_lines` records them)."""
        drawn: dict[object, tuple[object, ...]] = self.__dict__.setdefault("_drawn_with", {})
        return drawn

    def action_page_down(self) -> None:
        """A page down at once (Tree's own animates the scroll)."""
        if self.cursor_line == -1:
            self.cursor_line = 0
        self.cursor_line += self.scrollable_content_region.height - 1
        self.scroll_to_line(self.cursor_line, animate=False)

    def action_page_up(self) -> None:
        if self.cursor_line == -1:
            self.cursor_line = self.last_line
        self.cursor_line -= self.scrollable_content_region.height - 1
        self.scroll_to_line(self.cursor_line, animate=False)

    @dataclass
    class ChapterSelected(Message):
        """The cursor moved to chapter `number` (or enter was pressed on it: `activated`)."""

        outline_tree: OutlineTree
        number: int
        activated: bool = False

        @property
        def control(self) -> OutlineTree:
            return self.outline_tree

    def __init__(
        self,
        rows: list[VolumeRow] | None = None,
        *,
        lang: Lang = "zh",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(tr(MESSAGES, "root", lang), name=name, id=id, classes=classes)
        self.lang: Lang = lang
        self.show_root = False
        self.guide_depth = 2
        self._volume_nodes: dict[int, TreeNode[NodeData]] = {}
        self._chapter_nodes: dict[int, TreeNode[NodeData]] = {}
        self._rows: list[VolumeRow] = []
        self._columns = Columns(number=0, title=0, words=0)
        self._cells: int | None = None  # the width the labels are fitted to; None: not laid out yet
        self._generation = 0  # bumped when the width changes: every label is built again when next drawn
        self._built: dict[NodeID, int] = {}  # the generation each node's label was built for
        self._fill(rows or [], expanded=None)

    # ------------------------------------------------------------------ public API

    @property
    def rows(self) -> list[VolumeRow]:
        return list(self._rows)

    @property
    def chapter_numbers(self) -> list[int]:
        return list(self._chapter_nodes)

    @property
    def current_chapter(self) -> int | None:
        """The chapter under the cursor, or None (cursor on a volume, or no cursor)."""
        node = self.cursor_node
        if node is not None and isinstance(node.data, ChapterRow):
            return node.data.number
        return None

    def chapter_node(self, number: int) -> TreeNode[NodeData] | None:
        return self._chapter_nodes.get(number)

    def refresh_rows(self, rows: list[VolumeRow]) -> None:
        """Show `rows`, updating lines in place: expanded volumes stay expanded and the cursor stays on the
        same chapter (or volume) when it still exists. Unchanged lines are not touched."""
        cursor = self.cursor_node
        cursor_key: tuple[str, int] | None = None
        if cursor is not None and isinstance(cursor.data, ChapterRow):
            cursor_key = ("chapter", cursor.data.number)
        elif cursor is not None and isinstance(cursor.data, VolumeRow):
            cursor_key = ("volume", cursor.data.number)

        same_shape = [v.number for v in rows] == [v.number for v in self._rows] and all(
            [c.number for c in new.chapters] == [c.number for c in old.chapters]
            for new, old in zip(rows, self._rows, strict=True)
        )
        if not same_shape:
            expanded = {n for n, node in self._volume_nodes.items() if node.is_expanded}
            self.clear()
            self._volume_nodes.clear()
            self._chapter_nodes.clear()
            self._built.clear()
            self._fill(rows, expanded=expanded if self._rows else None)
            self._restore_cursor(cursor_key)
            return
        columns = columns_for(rows, self.lang, self._cells) if self._cells is not None else self._columns
        if columns != self._columns:
            self._columns = columns
            self._relabel_all()
        for new, old in zip(rows, self._rows, strict=True):
            vnode = self._volume_nodes[new.number]
            vnode.data = new
            if new != old:
                self._relabel(vnode)
            for chapter, previous in zip(new.chapters, old.chapters, strict=True):
                node = self._chapter_nodes[chapter.number]
                node.data = chapter
                if chapter != previous:
                    self._relabel(node)
        self._rows = list(rows)

    def select_chapter(self, number: int) -> bool:
        """Move the cursor to chapter `number`, expanding its volume; False when the tree has no such chapter.
        A change of chapter posts `ChapterSelected(number, activated=False)` like any cursor move."""
        node = self._chapter_nodes.get(number)
        if node is None:
            return False
        parent = node.parent
        if parent is not None and not parent.is_expanded:
            parent.expand()
        self._ensure_lines()
        self.move_cursor(node)
        self.scroll_to_node(node, animate=False)
        return True

    # ------------------------------------------------------------------ internals

    def _fill(self, rows: list[VolumeRow], *, expanded: set[int] | None) -> None:
        """The nodes of `rows`, with no labels yet: a label is built when its line is first drawn, fitted to
        the width then (`render_label`). A 500-chapter outline shows a few dozen of its lines at start; building
        every label up front, at the natural width before the first layout and again at the real width, took
        a good part of the first paint."""
        self._rows = list(rows)
        if self._cells is not None:
            self._columns = columns_for(rows, self.lang, self._cells)
        if expanded is None:
            expanded = default_expanded(rows)
        for volume in rows:
            vnode = self.root.add(_UNBUILT, data=volume, expand=volume.number in expanded)
            self._volume_nodes[volume.number] = vnode
            for chapter in volume.chapters:
                self._chapter_nodes[chapter.number] = vnode.add_leaf(_UNBUILT, data=chapter)

    def _label_cells(self) -> int | None:
        """Cells a chapter line's label may use: the pane's width less the guide before it (chapters sit one
        guide in: the root is hidden); None before the first layout."""
        width = self.scrollable_content_region.width
        return width - self.guide_depth if width > 0 else None

    def _fit(self) -> None:
        """The volume lines and the chapter columns give way in the pane's width (`volume_label`,
        `columns_for`): when the width changed, every label is built again as it is drawn."""
        cells = self._label_cells()
        if cells == self._cells:
            return
        self._cells = cells
        if cells is not None:
            self._columns = columns_for(self._rows, self.lang, cells)
        self._relabel_all()

    def _relabel_all(self) -> None:
        self._generation += 1
        compat.clear_tree_line_cache(self)  # lines drawn with the old labels

    def _relabel(self, node: TreeNode[NodeData]) -> None:
        """A node whose row changed: its new label now (its line is repainted), or when first drawn."""
        if self._cells is None or node.data is None:
            self._built.pop(node.id, None)  # built from the new row when next drawn
            return
        self._built[node.id] = self._generation
        node.set_label(self._label_of(node.data))

    def _label_of(self, data: NodeData) -> Text:
        if isinstance(data, VolumeRow):
            return volume_label(data, self.lang, self._cells)
        return chapter_label(data, self._columns, self.lang)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._fit()  # the first lines are drawn before the first `Resize` arrives
        state = self.get_pseudo_class_state()
        drawn = self._drawn_with
        if state not in drawn:
            signature = self._style_signature()
            if signature is not None:
                drawn[state] = signature
        return super().render_lines(crop)

    def render_label(self, node: TreeNode[NodeData], base_style: Style, style: Style) -> Text:
        """The node's label, built now when it was not built for the current width (see `_fill`)."""
        data = node.data
        if data is not None and self._cells is not None and self._built.get(node.id) != self._generation:
            self._built[node.id] = self._generation
            compat.set_tree_label_quietly(node, self._label_of(data))
        return super().render_label(node, base_style, style)

    def on_resize(self) -> None:
        self._fit()

    def _restore_cursor(self, key: tuple[str, int] | None) -> None:
        if key is None:
            return
        kind, number = key
        node = self._chapter_nodes.get(number) if kind == "chapter" else self._volume_nodes.get(number)
        if node is None:
            return
        self._ensure_lines()
        self.move_cursor(node)

    def _ensure_lines(self) -> None:
        # Tree builds its line table lazily; moving the cursor needs the lines of nodes added just now.
        _ = self._tree_lines

    def watch_cursor_line(self, previous_line: int, line: int) -> None:
        super().watch_cursor_line(previous_line, line)
        self.cursor_chapter = self.current_chapter  # its watchers run now, inside the cursor's move

    def watch_cursor_chapter(self, number: int | None) -> None:
        if number is not None:
            self.post_message(self.ChapterSelected(self, number, activated=False))

    @on(Tree.NodeSelected)
    def _chapter_activated(self, event: Tree.NodeSelected[NodeData]) -> None:
        data = event.node.data
        if isinstance(data, ChapterRow):
            self.post_message(self.ChapterSelected(self, data.number, activated=True))


def default_expanded(rows: list[VolumeRow]) -> set[int]:
    """Which volumes start expanded: all of a small novel; else the volumes being worked on (a chapter in
    progress, staged or needing a rebuild) and the last volume with written chapters."""
    total = sum(len(v.chapters) for v in rows)
    if total <= 60:
        return {v.number for v in rows}
    busy = {
        ChapterStatus.IN_PROGRESS,
        ChapterStatus.STAGED,
        ChapterStatus.NEEDS_REBUILD,
        ChapterStatus.NEEDS_REVIEW,
    }
    out = {v.number for v in rows if any(c.status in busy for c in v.chapters)}
    written = [v.number for v in rows if v.written]
    if written:
        out.add(written[-1])
    elif rows:
        out.add(rows[0].number)
    return out
