"""Small modal prompts: confirm, a number of chapters, a multi-line note, go to a chapter.

Every dialog takes ``lang`` ("zh" | "en"), is driven by keyboard alone and dismisses with its result:

- ``ConfirmDialog(message, lang, *, title=None, default=False, yes_label=None, no_label=None)`` ->
  ``bool``. y / n answer directly, left/right/tab move between the two buttons, enter presses the focused one
  (the default is focused on open), escape answers False.
- ``NumberDialog(maximum, estimate, lang, *, title=None, initial=1, minimum=1)`` -> ``int | None``. An integer
  input validated to ``minimum..maximum``; a live line shows ``estimate(n)`` (e.g. the estimated cost) for the
  value typed, or why it is not accepted. enter confirms a valid value, escape -> None.
- ``TextDialog(title, lang, *, initial="", placeholder="")`` -> ``str | None`` (the text, stripped). A multi-line
  TextArea; ctrl+s or the save button submits (not ctrl+enter: tmux collapses modified Enter), escape -> None.
- ``GotoDialog(valid, lang, *, current=None, title=None)`` -> ``int | None``. A chapter number that must be in
  ``valid`` (a range or any collection of ints); enter confirms, escape -> None.

Validation is in plain functions (``parse_in_range``, ``parse_chapter``) so it is tested without a screen.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult, RenderResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, TextArea

from screens.dialog_css import dialog_css
from studio.i18n import Catalog, Lang, tr
from studio.tui.hunks import fold_offsets

__all__ = [
    "MESSAGES",
    "ConfirmDialog",
    "FoldedText",
    "GotoDialog",
    "KEYS_SEPARATOR",
    "NumberDialog",
    "TextDialog",
    "describe_valid",
    "fold_items",
    "parse_chapter",
    "parse_in_range",
]

MESSAGES: Catalog = {
    "confirm_title": ("请确认", "Please confirm"),
    "yes": ("是 (Y)", "Yes (Y)"),
    "no": ("否 (N)", "No (N)"),
    "confirm_hint": (
        "Y/N 直接回答 · ←→ 切换 · Enter 确定 · Esc 否",
        "Y/N answer · ←→ switch · Enter confirm · Esc no",
    ),
    "number_title": ("写几章？", "How many chapters?"),
    "number_range": ("请输入 {lo} 到 {hi} 之间的整数", "Enter a whole number from {lo} to {hi}"),
    "number_hint": ("Enter 开始 · Esc 取消", "Enter start · Esc cancel"),
    "not_integer": ("不是整数", "Not a whole number"),
    "out_of_range": ("超出范围：{lo} 到 {hi}", "Out of range: {lo} to {hi}"),
    "save": ("保存 (Ctrl+S)", "Save (Ctrl+S)"),
    "cancel": ("取消 (Esc)", "Cancel (Esc)"),
    "text_hint": ("Ctrl+S 保存 · Esc 取消", "Ctrl+S save · Esc cancel"),
    "goto_title": ("跳到第几章？", "Go to chapter"),
    "goto_range": ("可选：{valid}", "Available: {valid}"),
    "goto_current": ("（当前第 {n} 章）", " (now at chapter {n})"),
    "goto_missing": ("没有第 {n} 章", "There is no chapter {n}"),
    "goto_placeholder": ("章号", "chapter number"),
    "goto_hint": ("Enter 跳转 · Esc 取消", "Enter go · Esc cancel"),
    "no_chapters": ("还没有章节", "No chapters yet"),
}

def _dialog_css(name: str) -> str:
    """`dialog_css` with the 64-cell `.dialog-box` and the prompts' lines, error and buttons."""
    return dialog_css(name, ".dialog-box", 64) + f"""
    {name} .dialog-line {{
        width: 100%;
        height: auto;
    }}
    {name} .dialog-error {{
        color: $error;
        text-style: bold;
    }}
    {name} Button {{
        margin: 0 1;
    }}
    {name} Button:focus {{
        text-style: bold reverse;
    }}
    {name} .dialog-buttons {{
        width: 100%;
        height: auto;
        align-horizontal: center;
        margin-top: 1;
    }}
    """


def parse_in_range(value: str, minimum: int, maximum: int) -> int | None:
    """``value`` as an int within ``minimum..maximum`` (inclusive), else None."""
    try:
        number = int(value.strip())
    except ValueError:
        return None
    return number if minimum <= number <= maximum else None


def parse_chapter(value: str, valid: Collection[int]) -> int | None:
    """``value`` as a chapter number in ``valid``, else None."""
    try:
        number = int(value.strip())
    except ValueError:
        return None
    return number if number in valid else None


def describe_valid(valid: Collection[int]) -> str:
    """``1–12`` for a contiguous set or range, ``1–3, 5, 8–9`` otherwise (at most a few runs)."""
    numbers = sorted(set(valid))
    if not numbers:
        return ""
    runs: list[tuple[int, int]] = []
    start = prev = numbers[0]
    for n in numbers[1:]:
        if n == prev + 1:
            prev = n
            continue
        runs.append((start, prev))
        start = prev = n
    runs.append((start, prev))
    parts = [str(a) if a == b else f"{a}–{b}" for a, b in runs]
    if len(parts) > 6:
        parts = [*parts[:3], "…", *parts[-2:]]
    return ", ".join(parts)


KEYS_SEPARATOR = " · "
"""What joins the items of a keys line ("y 接受 · n 拒绝 · Esc 取消")."""


def fold_items(text: str, width: int, separator: str = KEYS_SEPARATOR) -> list[int]:
    """Offsets at which to break ``text``, items joined by ``separator`` (a keys line), so no line is wider than
    ``width`` cells: only between items, so a key stays on the line of its label ("Enter" / "完成" was split);
    an item wider than a line folds inside as `fold_offsets` does. A text with newlines folds as `fold_offsets`."""
    if width <= 0 or "\n" in text or separator not in text:
        return fold_offsets(text, width)
    starts = [0]
    at = text.find(separator)
    while at != -1:
        starts.append(at + len(separator))
        at = text.find(separator, at + len(separator))
    offsets: list[int] = []
    line_start = 0
    for index, start in enumerate(starts):
        end = starts[index + 1] - len(separator) if index + 1 < len(starts) else len(text)
        if start > line_start and cell_len(text[line_start:end]) > width:
            offsets.append(start)
            line_start = start
        if cell_len(text[line_start:end]) > width:  # one item wider than a line
            inner = fold_offsets(text[line_start:end], width)
            offsets += [line_start + offset for offset in inner]
            line_start = offsets[-1] if inner else line_start
    return offsets


class FoldedText(Widget):
    """Text that wraps Chinese between any two characters (Textual wraps only at spaces), by terminal cells.

    Takes a plain string or a styled ``rich.text.Text``; ``update`` replaces it. ``keys=True``: a keys line,
    broken only between its items (`fold_items`).
    """

    DEFAULT_CSS = """
    FoldedText {
        width: 100%;
        height: auto;
    }
    """

    def __init__(
        self, text: str | Text = "", *, keys: bool = False, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._text: Text = text if isinstance(text, Text) else Text(text)
        self.keys = keys

    @property
    def plain(self) -> str:
        return self._text.plain

    def update(self, text: str | Text) -> None:
        self._text = text if isinstance(text, Text) else Text(text)
        self.refresh(layout=True)

    def folded(self, width: int) -> Text:
        plain = self._text.plain
        offsets = fold_items(plain, width) if self.keys else fold_offsets(plain, width)
        if not offsets:
            return self._text
        lines = list(self._text.divide(offsets))
        for line in lines[:-1]:
            line.rstrip()  # the space a break falls on
        return Text("\n").join(lines)

    def render(self) -> RenderResult:
        return self.folded(self.content_size.width)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max((cell_len(line) for line in self._text.plain.split("\n")), default=0)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.folded(width).plain.split("\n"))


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question; escape means no."""

    DEFAULT_CSS = _dialog_css("ConfirmDialog")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", show=False),
        Binding("n", "answer(False)", show=False),
        Binding("escape", "answer(False)", show=False),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]

    def __init__(
        self,
        message: str,
        lang: Lang = "zh",
        *,
        title: str | None = None,
        default: bool = False,
        yes_label: str | None = None,
        no_label: str | None = None,
    ) -> None:
        super().__init__()
        self.message = message
        self.lang: Lang = lang
        self.title_text = title if title is not None else tr(MESSAGES, "confirm_title", lang)
        self.default = default
        self.yes_label = yes_label if yes_label is not None else tr(MESSAGES, "yes", lang)
        self.no_label = no_label if no_label is not None else tr(MESSAGES, "no", lang)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield FoldedText(self.message, classes="dialog-line")
            with Horizontal(classes="dialog-buttons"):
                yield Button(
                    self.yes_label, id="yes", variant="primary" if self.default else "default", compact=True
                )
                yield Button(
                    self.no_label, id="no", variant="default" if self.default else "primary", compact=True
                )
            yield Label(tr(MESSAGES, "confirm_hint", self.lang), classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        found = self.query(f"#{'yes' if self.default else 'no'}")
        if found:  # empty when mounted while the app tears down (a quit as the dialog opens): its children are gone
            found.first().focus()

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")


class NumberDialog(ModalScreen[int | None]):
    """Ask for a whole number in ``minimum..maximum`` with a live estimate line."""

    DEFAULT_CSS = _dialog_css("NumberDialog")

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(
        self,
        maximum: int,
        estimate: Callable[[int], str] | None = None,
        lang: Lang = "zh",
        *,
        title: str | None = None,
        initial: int | None = 1,
        minimum: int = 1,
    ) -> None:
        super().__init__()
        if maximum < minimum:
            raise ValueError(f"maximum {maximum} < minimum {minimum}")
        self.maximum = maximum
        self.minimum = minimum
        self.estimate = estimate
        self.lang: Lang = lang
        self.title_text = title if title is not None else tr(MESSAGES, "number_title", lang)
        self.initial = initial

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield Label(
                tr(MESSAGES, "number_range", self.lang, lo=self.minimum, hi=self.maximum),
                classes="dialog-line",
                markup=False,
            )
            yield Input(
                value="" if self.initial is None else str(self.initial),
                type="integer",
                id="number-input",
            )
            yield Label("", id="number-estimate", classes="dialog-line", markup=False)
            yield Label(tr(MESSAGES, "number_hint", self.lang), classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        found = self.query(Input)
        if not found:  # mounted while the app tears down: its children are gone
            return
        found.first().focus()
        self._update(found.first().value)

    @property
    def value(self) -> int | None:
        return parse_in_range(self.query_one(Input).value, self.minimum, self.maximum)

    def _update(self, text: str) -> None:
        line = self.query_one("#number-estimate", Label)
        number = parse_in_range(text, self.minimum, self.maximum)
        if number is not None:
            line.update(self.estimate(number) if self.estimate is not None else "")
            line.remove_class("dialog-error")
            return
        try:
            int(text.strip())
        except ValueError:
            message = tr(MESSAGES, "not_integer", self.lang)
        else:
            message = tr(MESSAGES, "out_of_range", self.lang, lo=self.minimum, hi=self.maximum)
        line.update(message)
        line.add_class("dialog-error")

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._update(event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        number = parse_in_range(event.value, self.minimum, self.maximum)
        if number is None:
            self.app.bell()
            self._update(event.value)
            return
        self.dismiss(number)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextDialog(ModalScreen[str | None]):
    """Edit a multi-line note; ctrl+s saves, escape cancels."""

    DEFAULT_CSS = (
        _dialog_css("TextDialog")
        + """
    TextDialog > .dialog-box {
        width: 76;
    }
    TextDialog TextArea {
        height: 10;
        max-height: 50vh;
    }
    """
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", show=False, priority=True),
        Binding("escape", "cancel", show=False),
    ]

    def __init__(self, title: str, lang: Lang = "zh", *, initial: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.lang: Lang = lang
        self.initial = initial
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield FoldedText(self.title_text, classes="dialog-title")
            yield TextArea(self.initial, id="text-input", soft_wrap=True, placeholder=self.placeholder)
            with Horizontal(classes="dialog-buttons"):
                yield Button(tr(MESSAGES, "save", self.lang), id="save", variant="primary", compact=True)
                yield Button(tr(MESSAGES, "cancel", self.lang), id="cancel", compact=True)
            yield Label(tr(MESSAGES, "text_hint", self.lang), classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        found = self.query(TextArea)
        if not found:  # mounted while the app tears down: its children are gone
            return
        area = found.first()
        area.focus()
        area.move_cursor(area.document.end)

    def action_submit(self) -> None:
        self.dismiss(self.query_one(TextArea).text.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "save":
            self.action_submit()
        else:
            self.action_cancel()


class GotoDialog(ModalScreen[int | None]):
    """Ask for a chapter number that exists."""

    DEFAULT_CSS = _dialog_css("GotoDialog")

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(
        self,
        valid: Collection[int],
        lang: Lang = "zh",
        *,
        current: int | None = None,
        title: str | None = None,
    ) -> None:
        super().__init__()
        self.valid = valid
        self.lang: Lang = lang
        self.current = current
        self.title_text = title if title is not None else tr(MESSAGES, "goto_title", lang)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            title = self.title_text
            if self.current is not None:
                title += tr(MESSAGES, "goto_current", self.lang, n=self.current)
            yield Label(title, classes="dialog-title", markup=False)
            described = describe_valid(self.valid)
            yield Label(
                tr(MESSAGES, "goto_range", self.lang, valid=described)
                if described
                else tr(MESSAGES, "no_chapters", self.lang),
                classes="dialog-line",
                markup=False,
            )
            yield Input(
                type="integer",
                id="goto-input",
                placeholder=tr(MESSAGES, "goto_placeholder", self.lang),
            )
            yield Label("", id="goto-error", classes="dialog-line dialog-error", markup=False)
            yield Label(tr(MESSAGES, "goto_hint", self.lang), classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        found = self.query(Input)
        if found:  # empty when mounted while the app tears down: its children are gone
            found.first().focus()

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_one("#goto-error", Label).update("")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        number = parse_chapter(event.value, self.valid)
        if number is None:
            self.app.bell()
            text = event.value.strip()
            message = (
                tr(MESSAGES, "goto_missing", self.lang, n=text)
                if text
                else tr(MESSAGES, "not_integer", self.lang)
            )
            try:
                int(text)
            except ValueError:
                message = tr(MESSAGES, "not_integer", self.lang)
            self.query_one("#goto-error", Label).update(message)
            return
        self.dismiss(number)

    def action_cancel(self) -> None:
        self.dismiss(None)
