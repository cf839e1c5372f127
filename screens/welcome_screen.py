"""No project in the folder: create one here, open the sample novel, or quit (issue 4, section 1).

`WelcomeScreen(folder, lang)` is a `Screen[Path | None]`: it dismisses with the project folder it made (a new
project in `folder`, or the sample novel in `folder/sample-novel`, or in a new temporary folder when that is taken
or not writable), or None to quit. Keys: up/down + enter, or 1-3 directly; q / escape quit. A failure (say, a
folder that cannot be written) is shown on the screen, never as a traceback.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.init_project import init_project

MESSAGES: Catalog = {
    "title": ("欢迎使用 novel-studio", "Welcome to novel-studio"),
    "no_project": ("这个文件夹还不是小说项目：{folder}", "This folder is not a novel project yet: {folder}"),
    "create": ("1  在这里新建项目", "1  Create a new project here"),
    "sample": ("2  打开示例小说《雾港守灯人》", "2  Open the sample novel"),
    "quit": ("3  退出", "3  Quit"),
    "hint": ("↑↓ 选择 · Enter 确定 · 1-3 直接选 · q 退出", "↑↓ choose · Enter confirm · 1-3 pick · q quit"),
    "failed": ("失败：{message}", "Failed: {message}"),
}

SAMPLE_FOLDER = "sample-novel"


def sample_target(folder: Path) -> Path:
    """Where the sample goes: `folder/sample-novel` when free and writable, else a new temporary folder."""
    target = Path(folder) / SAMPLE_FOLDER
    try:
        writable = Path(folder).is_dir() and not target.exists()
        if writable:
            probe = tempfile.NamedTemporaryFile(dir=folder, prefix=".novel-studio-probe-")
            probe.close()
            return target
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="novel-studio-sample-")) / SAMPLE_FOLDER


class WelcomeScreen(Screen[Path | None]):
    """Create a project here / open the sample / quit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "choose('create')", show=False),
        Binding("2", "choose('sample')", show=False),
        Binding("3,q,escape", "choose('quit')", show=False),
    ]

    DEFAULT_CSS = """
    WelcomeScreen {
        align: center middle;
    }
    WelcomeScreen > #welcome-box {
        width: 70;
        max-width: 100%;
        height: auto;
        border: thick $primary;
        padding: 0 1;
    }
    WelcomeScreen #welcome-title {
        text-style: bold;
        margin-bottom: 1;
    }
    WelcomeScreen OptionList {
        height: auto;
        margin: 1 0;
    }
    WelcomeScreen #welcome-hint {
        color: $text-muted;
    }
    WelcomeScreen #welcome-error {
        color: $text-error;
    }
    """

    def __init__(self, folder: Path, lang: Lang = "zh") -> None:
        super().__init__()
        self.folder = Path(folder)
        self.lang: Lang = lang
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="welcome-box"):
            yield Label(tr(MESSAGES, "title", lang), id="welcome-title", markup=False)
            yield Static(tr(MESSAGES, "no_project", lang, folder=self.folder), markup=False)
            yield OptionList(
                Option(tr(MESSAGES, "create", lang), id="create"),
                Option(tr(MESSAGES, "sample", lang), id="sample"),
                Option(tr(MESSAGES, "quit", lang), id="quit"),
                id="welcome-options",
            )
            yield Static("", id="welcome-error", markup=False)
            yield Label(tr(MESSAGES, "hint", lang), id="welcome-hint", markup=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 1  # the sample: the safest first look
        options.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose(event.option.id or "quit")

    def make_project(self, choice: str) -> Path:
        """Create the chosen project (blocking, small: a copy of the templates). Raises StudioError / OSError."""
        if choice == "create":
            return init_project(self.folder)
        return init_project(sample_target(self.folder), sample=True)

    def action_choose(self, choice: str) -> None:
        if choice not in ("create", "sample"):
            self.dismiss(None)
            return
        try:
            root = self.make_project(choice)
        except (StudioError, OSError) as exc:
            self.error = str(exc)
            self.query_one("#welcome-error", Static).update(tr(MESSAGES, "failed", self.lang, message=exc))
            return
        self.dismiss(root)


__all__ = ["MESSAGES", "WelcomeScreen", "sample_target"]
