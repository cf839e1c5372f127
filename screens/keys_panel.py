"""按键面板 / The keys panel (command palette → 按键): Textual's `HelpPanel`, in the UI's language.

Textual's own widgets (TextArea, Tree, Input, the scrolling panes, Tabs, Screen, App) describe their built-in
keys in English ("Cursor up", "Delete line"). The studio's own keys are localised by the screens that declare
them; this panel localises the rest, in one place, for every widget the author can focus.

Rules:
- A built-in key (declared by a Textual class the node derives from, or the studio's `j`/`k`, ids `move_up` /
  `move_down`) is described through `KEY_DESCRIPTIONS`, keyed by its action (the same action means the same
  thing in every Textual widget). The studio's own keys are never rewritten here (the main screen's `u`
  runs an action named `undo` too). An action with no entry keeps its own words: a key added by a new Textual
  stays visible, and the keys panel test (tests/test_app_keys_panel.py) names it.
- A key that does nothing where it is is left out of the panel (marked `system`, which the panel skips; the key
  itself still works as before): the editing keys of a read-only TextArea, and in one that shows no cursor (the
  chapter pane, read like a pager) every key but the scroll keys, select-all and copy.
- Only the focused widget and its ancestors are rewritten (the only nodes whose keys the panel lists), when the
  panel opens and whenever the focus moves while it is open, before it draws; so is the heading Textual gives
  some widgets' keys (`BINDING_GROUP_TITLE`, "Input"), on the node itself.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache, partial

from textual.binding import Binding
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import HelpPanel, KeyPanel, TextArea

from studio.i18n import Catalog, Lang, tr
from widgets import compat

KEY_DESCRIPTIONS: Catalog = {
    # scrolling (every scrolling pane, the tables and lists)
    "scroll_up": ("向上滚动", "Scroll up"),
    "scroll_down": ("向下滚动", "Scroll down"),
    "scroll_left": ("向左滚动", "Scroll left"),
    "scroll_right": ("向右滚动", "Scroll right"),
    "scroll_home": ("滚到开头", "Scroll to the start"),
    "scroll_end": ("滚到末尾", "Scroll to the end"),
    "scroll_top": ("滚到开头", "Scroll to the top"),
    "scroll_bottom": ("滚到末尾", "Scroll to the bottom"),
    "page_up": ("向上翻页", "Page up"),
    "page_down": ("向下翻页", "Page down"),
    "page_left": ("向左翻页", "Page left"),
    "page_right": ("向右翻页", "Page right"),
    # cursor moves (lists, the outline, text fields)
    "cursor_up": ("上移", "Up"),
    "cursor_down": ("下移", "Down"),
    "cursor_left": ("左移", "Left"),
    "cursor_right": ("右移", "Right"),
    "cursor_page_up": ("向上翻页", "Page up"),
    "cursor_page_down": ("向下翻页", "Page down"),
    "cursor_line_start": ("到行首", "Line start"),
    "cursor_line_end": ("到行尾", "Line end"),
    "cursor_word_left": ("左移一个词", "Word left"),
    "cursor_word_right": ("右移一个词", "Word right"),
    "cursor_left_word": ("左移一个词", "Word left"),
    "cursor_right_word": ("右移一个词", "Word right"),
    "home": ("到开头", "Go to start"),
    "end": ("到末尾", "Go to end"),
    "first": ("到第一项", "First"),
    "last": ("到最后一项", "Last"),
    "cursor_parent": ("到上一级", "To the parent"),
    "cursor_parent_next_sibling": ("到上一级的下一项", "To the next ancestor"),
    "cursor_previous_sibling": ("到上一个同级项", "To the previous sibling"),
    "cursor_next_sibling": ("到下一个同级项", "To the next sibling"),
    # selecting
    "cursor_up(True)": ("向上选择", "Select up"),
    "cursor_down(True)": ("向下选择", "Select down"),
    "cursor_left(True)": ("向左选择", "Select left"),
    "cursor_right(True)": ("向右选择", "Select right"),
    "cursor_word_left(True)": ("向左选择一个词", "Select a word left"),
    "cursor_word_right(True)": ("向右选择一个词", "Select a word right"),
    "cursor_left_word(True)": ("向左选择一个词", "Select a word left"),
    "cursor_right_word(True)": ("向右选择一个词", "Select a word right"),
    "cursor_line_start(True)": ("选择到行首", "Select to the line start"),
    "cursor_line_end(True)": ("选择到行尾", "Select to the line end"),
    "home(True)": ("选择到开头", "Select to the start"),
    "end(True)": ("选择到末尾", "Select to the end"),
    "select_line": ("选择整行", "Select the line"),
    "select_all": ("全选", "Select all"),
    # editing
    "delete_left": ("删除左边一个字", "Delete the character left"),
    "delete_right": ("删除右边一个字", "Delete the character right"),
    "delete_word_left": ("删除左边一个词", "Delete the word left"),
    "delete_word_right": ("删除右边一个词", "Delete the word right"),
    "delete_left_word": ("删除左边一个词", "Delete the word left"),
    "delete_right_word": ("删除右边一个词", "Delete the word right"),
    "delete_left_all": ("删除左边全部", "Delete all to the left"),
    "delete_right_all": ("删除右边全部", "Delete all to the right"),
    "delete_to_start_of_line": ("删除到行首", "Delete to the line start"),
    "delete_to_end_of_line_or_delete_line": ("删除到行尾", "Delete to the line end"),
    "delete_line": ("删除整行", "Delete the line"),
    "cut": ("剪切", "Cut"),
    "copy": ("复制选中的文字", "Copy the selection"),
    "screen.copy_text": ("复制选中的文字", "Copy the selection"),
    "paste": ("粘贴", "Paste"),
    "undo": ("撤销输入", "Undo typing"),
    "redo": ("重做输入", "Redo typing"),
    "submit": ("确定", "Submit"),
    # choosing
    "select": ("选择", "Select"),
    "select_cursor": ("选择", "Select"),
    "toggle_node": ("展开或收起", "Expand or collapse"),
    "toggle_expand_all": ("全部展开或收起", "Expand or collapse all"),
    "toggle_button": ("切换", "Toggle"),
    "toggle_switch": ("切换", "Toggle"),
    "next_button": ("下一个选项", "Next option"),
    "previous_button": ("上一个选项", "Previous option"),
    "next_tab": ("下一个标签", "Next tab"),
    "previous_tab": ("上一个标签", "Previous tab"),
    "press": ("按下按钮", "Press the button"),
    "show_overlay": ("打开列表", "Show the list"),
    "open_link": ("打开链接", "Open the link"),
    # the App's and the Screen's own
    "quit": ("立即退出", "Quit now"),
    "app.focus_next": ("下一个控件", "Focus next"),
    "app.focus_previous": ("上一个控件", "Focus previous"),
}

GROUP_TITLES: Catalog = {
    "Input": ("输入框", "Input"),
    "Collapsible": ("折叠区", "Collapsible"),
}
"""The headings Textual gives a widget's keys in the panel (`BINDING_GROUP_TITLE`), by their English words."""

EDITING_ACTIONS = frozenset({
    "delete_left", "delete_right", "delete_word_left", "delete_word_right", "delete_to_start_of_line",
    "delete_to_end_of_line_or_delete_line", "delete_line", "cut", "paste", "undo", "redo",
})
"""The TextArea keys that change the text: they do nothing in a read-only one."""

PAGER_ACTIONS: dict[str, tuple[str, str]] = {
    "cursor_up": ("向上滚动", "Scroll up"),
    "cursor_down": ("向下滚动", "Scroll down"),
    "cursor_page_up": ("向上翻页", "Page up"),
    "cursor_page_down": ("向下翻页", "Page down"),
    "select_all": ("全选", "Select all"),
    "copy": ("复制选中的文字", "Copy the selection"),
}
"""The keys a read-only TextArea with no cursor answers (`widgets.instant_keys.ReaderArea`: the arrows, `j`/`k`
and the page keys scroll), as it answers them; its other keys move a cursor nobody sees."""


STUDIO_MOVES = frozenset({"move_up", "move_down"})
"""The ids of `widgets.instant_keys.JK_BINDINGS` (declared with English words, like Textual's own)."""


@cache
def _built_in(cls: type[DOMNode]) -> frozenset[tuple[str, str]]:
    """(action, description) of every binding a Textual class among `cls`'s bases declares."""
    out: set[tuple[str, str]] = set()
    for base in cls.__mro__:
        if base.__module__.startswith("textual."):
            for b in base.__dict__.get("BINDINGS", []):
                binding = b if isinstance(b, Binding) else Binding(*b)
                out.add((binding.action, binding.description))
    return frozenset(out)


def _localised(node: DOMNode, binding: Binding, *, lang: Lang) -> Binding:
    if binding.system:
        return binding
    if binding.id not in STUDIO_MOVES and (binding.action, binding.description) not in _built_in(type(node)):
        return binding  # the studio's own key, localised by whoever declared it
    action = binding.action
    if isinstance(node, TextArea) and node.read_only:
        if not node.show_cursor:
            if action not in PAGER_ACTIONS:
                return replace(binding, system=True)
            return replace(binding, description=tr(PAGER_ACTIONS, action, lang))
        if action in EDITING_ACTIONS:
            return replace(binding, system=True)
    if action in KEY_DESCRIPTIONS:
        return replace(binding, description=tr(KEY_DESCRIPTIONS, action, lang))
    return binding


def localise_keys(focused: Widget | None, lang: Lang) -> None:
    """Localise the built-in keys of `focused`, its ancestors, its screen and the app (what the panel lists)."""
    if focused is None:
        return
    for node in [*focused.ancestors_with_self]:
        compat.rewrite_bindings(node, partial(_localised, node, lang=lang))
        title = type(node).BINDING_GROUP_TITLE
        if title in GROUP_TITLES:
            setattr(node, "BINDING_GROUP_TITLE", tr(GROUP_TITLES, title, lang))  # this node's heading only  # noqa: B010


class StudioHelpPanel(HelpPanel):
    """Textual's keys panel, with the focused widget's built-in keys in the UI's language."""

    def __init__(self, lang: Lang) -> None:
        super().__init__()
        self.lang: Lang = lang

    def update_help(self, focused_widget: Widget | None) -> None:
        localise_keys(focused_widget or self.screen, self.lang)  # nothing focused: the screen's and app's keys
        super().update_help(focused_widget)
        for panel in self.query(KeyPanel):
            panel.refresh(recompose=True)  # a table drawn before the rewrite (the panel's first frame)
