"""Help: every key binding the app really has (remapped keys included), aligned by terminal cell width.

``HelpScreen(bindings, lang, *, title=None)`` -> ``ModalScreen[None]``. ``bindings`` is a sequence of
``(key, description)`` pairs, or ``(section, [(key, description), ...])`` groups via ``HelpScreen.grouped``.
Keys are shown as given, after ``display_key`` ("ctrl+p" -> "Ctrl+P", "question_mark" -> "?").
escape, q and ? close it; up/down/pageup/pagedown scroll. The title and the close hint are docked, so on a
short terminal (80x24) the rows scroll between them and the close key stays in sight.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from screens.dialog_css import dialog_css
from studio.i18n import Catalog, Lang, tr

__all__ = ["MESSAGES", "HelpScreen", "display_key", "format_rows"]

MESSAGES: Catalog = {
    "title": ("快捷键", "Keys"),
    "hint": ("Esc / q / ? 关闭 · ↑↓ 滚动", "Esc / q / ? close · ↑↓ scroll"),
}

_KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "escape": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "space": "Space",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "delete": "Del",
    "backspace": "Backspace",
    "plus": "+",
    "minus": "-",
    "comma": ",",
    "full_stop": ".",
}


def display_key(key: str) -> str:
    """A Textual key spec as the author reads it: "ctrl+p" -> "Ctrl+P", "question_mark" -> "?", "a,b" -> "a / b"."""
    shown: list[str] = []
    for one in key.split(","):
        one = one.strip()
        if not one:
            continue
        parts = one.split("+")
        out = []
        for part in parts[:-1]:
            out.append(part.capitalize())
        last = parts[-1]
        name = _KEY_NAMES.get(last, last)
        if len(parts) > 1 and len(name) == 1:
            name = name.upper()
        out.append(name)
        shown.append("+".join(out))
    return " / ".join(shown)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - cell_len(text))


def format_rows(bindings: Sequence[tuple[str, str]], *, gap: int = 2) -> list[str]:
    """One line per binding: the key column padded to the widest key in terminal cells (CJK-safe)."""
    keys = [display_key(k) for k, _ in bindings]
    width = max((cell_len(k) for k in keys), default=0)
    return [f"{_pad(k, width)}{' ' * gap}{desc}" for k, (_, desc) in zip(keys, bindings, strict=True)]


class HelpScreen(ModalScreen[None]):
    """List the given bindings; escape / q / ? close."""

    DEFAULT_CSS = dialog_css("HelpScreen", "#help-box", "auto", min_width=40) + """
    HelpScreen #help-title {
        dock: top;
    }
    HelpScreen #help-body {
        width: auto;
        height: auto;
        max-height: 100%;
    }
    HelpScreen #help-rows {
        width: auto;
    }
    HelpScreen #help-hint {
        dock: bottom;
        margin-top: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", show=False),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
    ]

    def __init__(
        self,
        bindings: Sequence[tuple[str, str]],
        lang: Lang = "zh",
        *,
        title: str | None = None,
        sections: Sequence[tuple[str, Sequence[tuple[str, str]]]] | None = None,
    ) -> None:
        super().__init__()
        self.bindings_shown: list[tuple[str, str]] = list(bindings)
        self.sections = list(sections) if sections is not None else []
        self.lang: Lang = lang
        self.title_text = title if title is not None else tr(MESSAGES, "title", lang)

    @classmethod
    def grouped(
        cls,
        sections: Sequence[tuple[str, Sequence[tuple[str, str]]]],
        lang: Lang = "zh",
        *,
        title: str | None = None,
    ) -> HelpScreen:
        """Bindings in titled groups; key columns aligned across all groups."""
        return cls([], lang, title=title, sections=sections)

    def lines(self) -> list[str]:
        """The text rows shown, key column aligned across every group."""
        everything = list(self.bindings_shown) + [b for _, group in self.sections for b in group]
        rows = iter(format_rows(everything))
        lines = [next(rows) for _ in self.bindings_shown]
        for name, group in self.sections:
            if lines:
                lines.append("")
            lines.append(f"【{name}】")
            lines.extend(next(rows) for _ in group)
        return lines

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label(self.title_text, id="help-title", classes="dialog-title", markup=False)
            with VerticalScroll(id="help-body"):
                yield Static("\n".join(self.lines()), id="help-rows", markup=False)
            yield Label(tr(MESSAGES, "hint", self.lang), id="help-hint", classes="dialog-hint", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-body", VerticalScroll).scroll_relative(y=lines, animate=False)
