"""`f`: the checks' findings (issue 8), one line each, most severe first; enter jumps to it in the chapter text.

``FindingsScreen(root, chapters, lang)`` -> ``ModalScreen[Finding | None]``. It opens on the reports saved after
each commit (`logs/chapter-NNN/checks.json`, read in a thread worker); `r` runs every cheap check over the whole
book now (read-only, like `novel-studio check --quick`; seconds on a long book, so in a worker too). Lines and
locations come from `studio.checks.findings_list`; the main screen moves the cursor with `text_location`.
enter on a finding closes with it; escape closes with None.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from studio.checks.findings_list import finding_label, fresh_findings, saved_findings
from studio.i18n import Catalog, Lang, tr
from studio.models.findings import Finding
from studio.paths import ProjectPaths
from studio.project import Project

__all__ = ["MESSAGES", "FindingsScreen"]

MESSAGES: Catalog = {
    "title": ("检查结果", "Check findings"),
    "hint": ("Enter 跳到原文 · r 重新检查全书 · Esc 关闭", "Enter jump to the text · r check the book now · Esc close"),
    "loading": ("读取中…", "Loading…"),
    "running": ("正在检查全书…", "Checking the book…"),
    "count_saved": ("{n} 条（每章提交后的检查结果）", "{n} finding(s) (saved after each commit)"),
    "count_fresh": ("{n} 条（刚刚检查全书）", "{n} finding(s) (the whole book, just now)"),
    "none": ("没有问题", "No findings"),
    "failed": ("检查未能运行：{error}", "The checks could not run: {error}"),
}


class FindingsScreen(ModalScreen[Finding | None]):
    """List the findings and pick one to jump to."""

    DEFAULT_CSS = """
    FindingsScreen {
        align: center middle;
    }
    FindingsScreen > #findings-box {
        width: 110;
        max-width: 100%;
        height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    FindingsScreen #findings-title {
        text-style: bold;
        width: 100%;
    }
    FindingsScreen #findings-list {
        height: 1fr;
        border: none;
    }
    FindingsScreen #findings-status, FindingsScreen #findings-hint {
        color: $text-muted;
        width: 100%;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", show=False),
        Binding("r", "recheck", show=False),
    ]

    def __init__(self, root: Path, chapters: Sequence[int], lang: Lang = "zh") -> None:
        super().__init__()
        self.root = Path(root)
        self.chapters = list(chapters)
        self.lang: Lang = lang
        self.findings: list[Finding] = []
        self.loads = 0  # finished loads (tests wait on it)

    def compose(self) -> ComposeResult:
        with Vertical(id="findings-box"):
            yield Label(tr(MESSAGES, "title", self.lang), id="findings-title", markup=False)
            yield Label(tr(MESSAGES, "loading", self.lang), id="findings-status", markup=False)
            yield OptionList(id="findings-list")
            yield Label(tr(MESSAGES, "hint", self.lang), id="findings-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#findings-list", OptionList).focus()
        self._load(fresh=False)

    @work(thread=True, exclusive=True, group="findings", exit_on_error=False)
    def _load(self, fresh: bool) -> None:
        try:
            if fresh:
                found = fresh_findings(Project.open(self.root, lang=self.lang), self.lang)
            else:
                found = saved_findings(ProjectPaths(self.root), self.chapters)
        except Exception as exc:  # noqa: BLE001 - a broken project file: say so, keep the studio up
            self.app.call_from_thread(self._failed, f"{type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self._show, found, fresh)

    def _failed(self, error: str) -> None:
        self.query_one("#findings-status", Label).update(tr(MESSAGES, "failed", self.lang, error=error))
        self.loads += 1

    def _show(self, found: list[Finding], fresh: bool) -> None:
        self.findings = found
        options = self.query_one("#findings-list", OptionList)
        options.clear_options()
        options.add_options([Option(finding_label(f, self.lang), id=str(i)) for i, f in enumerate(found)])
        if found:
            options.highlighted = 0
        key = "none" if not found else "count_fresh" if fresh else "count_saved"
        self.query_one("#findings-status", Label).update(tr(MESSAGES, key, self.lang, n=len(found)))
        self.loads += 1

    @on(OptionList.OptionSelected, "#findings-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.findings):
            self.dismiss(self.findings[event.option_index])

    def action_recheck(self) -> None:
        self.query_one("#findings-status", Label).update(tr(MESSAGES, "running", self.lang))
        self._load(fresh=True)

    def action_close(self) -> None:
        self.dismiss(None)
