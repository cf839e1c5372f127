"""The first step of the studio's import path (issue 10 item 1): where the manuscript is and where the new
project goes.

`ImportSourceForm(folder, lang, *, initial=None)` is a `Screen[ImportTarget | None]`. Two fields, typed or
pasted (quotes a terminal adds around a pasted path are dropped, `~` works, relative paths are taken from
`folder`, the folder the studio was opened on):

- the manuscript: a TXT/MD file or a folder of chapter files (`studio.tui.import_flow.check_source`);
- the new project's folder: filled in with `default_target` once the manuscript is known (the studio's
  folder when it is empty, else a new folder named after the book next to the source), changed freely;
  `check_target` refuses a folder that is already a project, a file, or a folder with other files in it.

Enter on the manuscript checks it and moves to the folder; enter on the folder (or ctrl+s) checks both and
dismisses with an `ImportTarget`. A refusal stays on the screen (never a traceback), the fields keep what was
typed. Escape dismisses with None (back to the welcome screen).

`append_to` (the main screen's "追加导入书稿"): the chapters go after the open project's last chapter. The form
then asks for the manuscript only: the folder field shows the project and cannot be changed, enter on the
manuscript (or ctrl+s) checks it and the project (`check_append`: the import's own `--append` check) and
dismisses with an `ImportTarget(append=True)`.

`AppendImportCommands` is the command palette's "追加导入书稿" on the main screen (an app with a main screen
open: `app.main_screen`); it runs `studio.tui.import_flow.append_import` as one of the screen's flows.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input, Label, Static

from studio.i18n import Catalog, Lang, tr
from studio.tui.import_flow import (
    AppendHost,
    ImportTarget,
    append_import,
    check_append,
    check_source,
    check_target,
    default_target,
    last_chapter,
)

__all__ = ["MESSAGES", "AppendImportCommands", "ImportSourceForm"]

MESSAGES: Catalog = {
    "title": ("导入已有书稿", "Import a manuscript"),
    "source_label": ("书稿：一个 TXT 文件，或章节文件（.txt / .md）所在的文件夹",
                     "The manuscript: a TXT file, or a folder of chapter files (.txt / .md)"),
    "source_placeholder": ("例如：~/下载/我的小说.txt（可以直接粘贴）", "e.g. ~/Downloads/my-novel.txt (paste works)"),
    "target_label": ("新项目的文件夹（没有会自动新建）", "The new project's folder (made if missing)"),
    "target_placeholder": ("先填书稿，这里会给出默认的新文件夹", "Fill in the manuscript first; a new folder is proposed"),
    "base": ("相对路径从这里算起：{folder}", "Relative paths start at: {folder}"),
    "inside": ("新项目不能放在书稿文件夹里面：{path}", "The new project cannot go inside the manuscript folder: {path}"),
    "hint": ("Enter 下一步 · Tab 切换 · Ctrl+S 预览 · Esc 返回", "Enter next · Tab switch · Ctrl+S preview · Esc back"),
    "append_title": ("追加导入书稿", "Append a manuscript"),
    "append_to": ("接在本项目第 {last} 章之后：{path}", "After this project's chapter {last}: {path}"),
    "append_hint": ("Enter 预览 · Esc 返回", "Enter preview · Esc back"),
    "command_help": ("把另一份书稿的章节接在本项目最后一章之后（同 novel-studio import --append）",
                     "Add another manuscript's chapters after this project's last chapter (as novel-studio import "
                     "--append)"),
}


class ImportSourceForm(Screen[ImportTarget | None]):
    """Ask for the manuscript and the new project's folder."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", show=False),
        Binding("ctrl+s", "submit", show=False),
    ]

    DEFAULT_CSS = """
    ImportSourceForm {
        align: center middle;
    }
    ImportSourceForm > #import-box {
        width: 90;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: thick $primary;
        padding: 0 1;
    }
    ImportSourceForm #import-title {
        text-style: bold;
        margin-bottom: 1;
    }
    ImportSourceForm .import-label {
        margin-top: 1;
    }
    ImportSourceForm #import-base, ImportSourceForm #import-hint {
        color: $text-muted;
    }
    ImportSourceForm #import-error {
        color: $text-error;
        height: auto;
    }
    """

    def __init__(self, folder: Path, lang: Lang = "zh", *, initial: ImportTarget | None = None,
                 append_to: Path | None = None) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.append_to = Path(append_to) if append_to is not None else None
        self.lang: Lang = lang
        self.initial = initial
        self._proposed = str(initial.target) if initial is not None else ""
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        lang, initial, append_to = self.lang, self.initial, self.append_to
        with Vertical(id="import-box"):
            title = tr(MESSAGES, "append_title", lang) if append_to else tr(MESSAGES, "title", lang)
            yield Label(title, id="import-title", markup=False)
            yield Label(tr(MESSAGES, "source_label", lang), classes="import-label", markup=False)
            yield Input(str(initial.source) if initial else "", id="import-source",
                        placeholder=tr(MESSAGES, "source_placeholder", lang))
            if append_to is not None:
                yield Label(tr(MESSAGES, "append_to", lang, last=last_chapter(append_to), path=append_to),
                            id="import-append", classes="import-label", markup=False)
            else:
                yield Label(tr(MESSAGES, "target_label", lang), classes="import-label", markup=False)
                yield Input(str(initial.target) if initial else "", id="import-target",
                            placeholder=tr(MESSAGES, "target_placeholder", lang))
            yield Static(tr(MESSAGES, "base", lang, folder=self.folder), id="import-base", markup=False)
            yield Static("", id="import-error", markup=False)
            yield Label(tr(MESSAGES, "append_hint" if append_to else "hint", lang), id="import-hint", markup=False)

    def on_mount(self) -> None:
        self.source_input.focus()

    @property
    def source_input(self) -> Input:
        return self.query_one("#import-source", Input)

    @property
    def target_input(self) -> Input:
        return self.query_one("#import-target", Input)

    def show_error(self, text: str | None) -> None:
        self.error = text
        self.query_one("#import-error", Static).update(text or "")

    def _source(self) -> Path | None:
        checked = check_source(self.source_input.value, self.folder, self.lang)
        if isinstance(checked, str):
            self.show_error(checked)
            self.source_input.focus()
            return None
        return checked

    def _propose(self, source: Path) -> None:
        """Fill in the default folder unless the author typed one of their own."""
        target = self.target_input
        if target.value.strip() in ("", self._proposed):
            self._proposed = str(default_target(source, self.folder))
            target.value = self._proposed

    @on(Input.Submitted, "#import-source")
    def _source_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.append_to is not None:
            self.action_submit()
            return
        source = self._source()
        if source is None:
            return
        self.show_error(None)
        self._propose(source)
        self.target_input.focus()

    @on(Input.Submitted, "#import-target")
    def _target_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        source = self._source()
        if source is None:
            return
        if self.append_to is not None:
            self._submit_append(source, self.append_to)
            return
        self._propose(source)
        target = check_target(self.target_input.value, self.folder, self.lang)
        if isinstance(target, str):
            self.show_error(target)
            self.target_input.focus()
            return
        if source.is_dir() and (target == source or source in target.parents):
            # a project inside the manuscript folder would be read as more chapters by the next import
            self.show_error(tr(MESSAGES, "inside", self.lang, path=target))
            return
        self.show_error(None)
        self.dismiss(ImportTarget(source, target))

    def _submit_append(self, source: Path, root: Path) -> None:
        refused = check_append(root, self.lang)
        if refused is not None:
            self.show_error(refused)
            return
        if source.is_dir() and (root == source or source in root.parents):
            self.show_error(tr(MESSAGES, "inside", self.lang, path=root))
            return
        self.show_error(None)
        self.dismiss(ImportTarget(source, root, append=True))

    def action_cancel(self) -> None:
        self.dismiss(None)


class AppendImportCommands(Provider):
    """The palette's "追加导入书稿" while the main screen is open (nothing on the welcome screen)."""

    def _host(self) -> AppendHost | None:
        screen = getattr(self.app, "main_screen", None)
        return cast(AppendHost, screen) if screen is not None and getattr(screen, "is_mounted", False) else None

    def _run(self) -> Callable[[], Any] | None:
        host = self._host()
        if host is None:
            return None
        return partial(_start_append, host)

    def _lang(self) -> Lang:
        return cast(Lang, getattr(self.app, "lang", "zh"))

    async def discover(self) -> Hits:
        run = self._run()
        if run is not None:
            yield DiscoveryHit(tr(MESSAGES, "append_title", self._lang()), run,
                               help=tr(MESSAGES, "command_help", self._lang()))

    async def search(self, query: str) -> Hits:
        run = self._run()
        if run is None:
            return
        matcher = self.matcher(query)
        name = tr(MESSAGES, "append_title", self._lang())
        score = matcher.match(f"{name} import append")
        if score > 0:
            yield Hit(score, matcher.highlight(name), run, help=tr(MESSAGES, "command_help", self._lang()))


def _start_append(host: AppendHost) -> None:
    """The coroutine is made when the command runs, not when the palette lists it (never left unawaited)."""
    host.run_flow(append_import(host), group="import-append")
