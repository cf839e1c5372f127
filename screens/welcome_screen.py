"""No project in the folder: start a new novel, import a manuscript, create an empty project here, open the
sample novel, or quit (issue 4, section 1; issue 7 item 7; issue 10 item 1).

`WelcomeScreen(folder, lang)` is a `Screen[Path | NewNovel | ImportedNovel | None]`: it dismisses with the project folder it made
(an empty project in `folder`, or the sample novel in `folder/sample-novel`, or in a new temporary folder when
that is taken or not writable), with a `NewNovel` (the new-novel path: the brief form, `screens.brief_form`, then
the style choice, `screens.style_choice`; the project is made in `folder` with its brief once the form is done,
and the App runs the quick start on it), with an `ImportedNovel` (the import path, `studio.tui.import_flow.
import_path`: the manuscript and the target folder, the preview, the project written, the names confirmed; the
App opens it and offers the full extraction), or None to quit. Keys: up/down + enter, or 1-5 directly; q /
escape quit. Escape on the style choice goes back to the brief form (answers kept); escape on the form comes back
here. A failure (say, a folder that cannot be written) is shown on the screen, never as a traceback.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from screens.brief_form import BriefForm
from screens.style_choice import StyleChoice
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.init_project import init_project
from studio.models.quick_start import QuickStartRequest
from studio.tui.import_flow import ImportedNovel, import_path
from studio.tui.new_novel import BriefAnswers, create_novel

MESSAGES: Catalog = {
    "title": ("欢迎使用 novel-studio", "Welcome to novel-studio"),
    "no_project": ("这个文件夹还不是小说项目：{folder}", "This folder is not a novel project yet: {folder}"),
    "new": ("1  新建小说（快速开始）", "1  New novel (quick start)"),
    "import": ("2  导入已有书稿（TXT 文件或章节文件夹）", "2  Import a manuscript (a TXT file or a folder of chapters)"),
    "create": ("3  在这里新建空项目", "3  Create an empty project here"),
    "sample": ("4  打开示例小说《雾港守灯人》", "4  Open the sample novel"),
    "quit": ("5  退出", "5  Quit"),
    "hint": ("↑↓ 选择 · Enter 确定 · 1-5 直接选 · q 退出", "↑↓ choose · Enter confirm · 1-5 pick · q quit"),
    "failed": ("失败：{message}", "Failed: {message}"),
}

SAMPLE_FOLDER = "sample-novel"


@dataclass(frozen=True)
class NewNovel:
    """The new-novel path's result: the project made with its brief, and the quick-start choices (saved)."""

    root: Path
    request: QuickStartRequest


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


class WelcomeScreen(Screen[Path | NewNovel | ImportedNovel | None]):
    """New novel / import a manuscript / create an empty project here / open the sample / quit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "choose('new')", show=False),
        Binding("2", "choose('import')", show=False),
        Binding("3", "choose('create')", show=False),
        Binding("4", "choose('sample')", show=False),
        Binding("5,q,escape", "choose('quit')", show=False),
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
        self.created: Path | None = None  # the project the new-novel path made (reused if the author comes back)
        self.answers: BriefAnswers | None = None  # the brief form's last answers

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="welcome-box"):
            yield Label(tr(MESSAGES, "title", lang), id="welcome-title", markup=False)
            yield Static(tr(MESSAGES, "no_project", lang, folder=self.folder), markup=False)
            yield OptionList(
                Option(tr(MESSAGES, "new", lang), id="new"),
                Option(tr(MESSAGES, "import", lang), id="import"),
                Option(tr(MESSAGES, "create", lang), id="create"),
                Option(tr(MESSAGES, "sample", lang), id="sample"),
                Option(tr(MESSAGES, "quit", lang), id="quit"),
                id="welcome-options",
            )
            yield Static("", id="welcome-error", markup=False)
            yield Label(tr(MESSAGES, "hint", lang), id="welcome-hint", markup=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 3  # the sample: the safest first look
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

    def show_error(self, exc: Exception) -> None:
        self.error = str(exc)
        self.query_one("#welcome-error", Static).update(tr(MESSAGES, "failed", self.lang, message=exc))

    def action_choose(self, choice: str) -> None:
        if choice == "new":
            self.new_novel()
            return
        if choice == "import":
            self.import_manuscript()
            return
        if choice not in ("create", "sample"):
            self.dismiss(None)
            return
        if choice == "create" and self.created is not None:
            self.dismiss(self.created)  # the new-novel path made it already (the author came back here)
            return
        try:
            root = self.make_project(choice)
        except (StudioError, OSError) as exc:
            self.show_error(exc)
            return
        self.dismiss(root)

    @work(exclusive=True, group="new-novel", exit_on_error=False)
    async def new_novel(self) -> None:
        """The brief form, then the style choice (escape there goes back to the form, answers kept; the form's
        answers are kept on this screen too, for the author who comes back to it)."""
        while True:
            answers = await self.app.push_screen_wait(BriefForm(self.lang, initial=self.answers))
            if answers is None:
                return
            self.answers = answers
            try:
                self.created = create_novel(self.folder, answers, reuse=self.created)
            except (StudioError, OSError) as exc:
                self.show_error(exc)
                return
            choice = StyleChoice(self.created, self.lang, volume_length=answers.volume_length)
            request = await self.app.push_screen_wait(choice)
            if request is not None:
                self.dismiss(NewNovel(self.created, request))
                return

    @work(exclusive=True, group="import", exit_on_error=False)
    async def import_manuscript(self) -> None:
        """The import path (`studio.tui.import_flow.import_path`); escape on its form comes back here."""
        imported = await import_path(self.app.push_screen_wait, self.folder, self.lang)
        if imported is not None:
            self.dismiss(imported)


__all__ = ["MESSAGES", "ImportedNovel", "NewNovel", "WelcomeScreen", "sample_target"]
