"""`f`: the checks' findings (issue 8), one line each, most severe first; enter jumps to it in the chapter text.

``FindingsScreen(root, chapters, lang)`` -> ``ModalScreen[Finding | None]``. It opens on the reports saved after
each commit (`logs/chapter-NNN/checks.json`, read in a thread worker); `r` runs every cheap check over the whole
book now (read-only, like `novel-studio check --quick`; seconds on a long book, so in a worker too). Lines and
locations come from `studio.checks.findings_list`; the main screen moves the cursor with `text_location`.
enter on a finding closes with it; escape closes with None.

`a` accepts the highlighted punctuation finding's fix (its mark, in the paragraph of its place) and `A` every
punctuation fix of that chapter (`studio.checks.punctuation_fix`: waived marks stay, an atomic write recorded as
the studio's own, no rebuild: punctuation changes no facts). The chapter is checked again in a thread worker and
its lines in the list are replaced; `on_fixed(n)` lets the main screen redraw the chapter. Refused while
`busy()` (a pipeline run) says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from studio.checks.findings_list import finding_label, fresh_findings, saved_findings, sorted_findings
from studio.checks.punctuation_fix import apply_fix, fix_finding, fixable, plan_fixes
from studio.i18n import Catalog, Lang, tr, tr_count
from studio.models.findings import Finding
from studio.paths import ProjectPaths
from studio.project import Project

__all__ = ["MESSAGES", "FindingsScreen"]

MESSAGES: Catalog = {
    "title": ("检查结果", "Check findings"),
    "hint": (
        "Enter 跳到原文 · a 接受标点修正 · A 接受本章全部标点修正 · r 重新检查全书 · Esc 关闭",
        "Enter jump to the text · a accept the punctuation fix · A accept every punctuation fix of the chapter · "
        "r check the book now · Esc close",
    ),
    "not_fixable": ("这一条没有可自动接受的修正", "This finding has no fix to accept"),
    "busy": ("流水线正在运行，结束后再修改正文", "The pipeline is running; change the text when it stops"),
    "fixed": ("已修正第{n}章的标点", "Fixed the punctuation of chapter {n}"),
    "nothing_fixed": ("第{n}章没有可修正的标点（可能已改过）", "Nothing to fix in chapter {n} (changed already?)"),
    "fix_failed": ("修正失败：{error}", "The fix failed: {error}"),
    "loading": ("读取中…", "Loading…"),
    "running": ("正在检查全书…", "Checking the book…"),
    "count_saved": ("{n} 条（每章提交后的检查结果）", "{n} findings (saved after each commit)"),
    "count_saved_one": ("{n} 条（每章提交后的检查结果）", "{n} finding (saved after each commit)"),
    "count_fresh": ("{n} 条（刚刚检查全书）", "{n} findings (the whole book, just now)"),
    "count_fresh_one": ("{n} 条（刚刚检查全书）", "{n} finding (the whole book, just now)"),
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
        Binding("a", "accept", show=False),
        Binding("A", "accept_chapter", show=False),
    ]

    def __init__(
        self,
        root: Path,
        chapters: Sequence[int],
        lang: Lang = "zh",
        *,
        on_fixed: Callable[[int], None] | None = None,
        busy: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__()
        self.root = Path(root)
        self.chapters = list(chapters)
        self.lang: Lang = lang
        self.findings: list[Finding] = []
        self.loads = 0  # finished loads (tests wait on it)
        self.fresh = False  # the list is a whole-book check just run (not the saved reports)
        self.fixes = 0  # finished fixes, written or not (tests wait on it)
        self.on_fixed = on_fixed
        self.busy = busy

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
        self.fresh = fresh
        options = self.query_one("#findings-list", OptionList)
        options.clear_options()
        options.add_options([Option(finding_label(f, self.lang), id=str(i)) for i, f in enumerate(found)])
        if found:
            options.highlighted = 0
        key = "none" if not found else "count_fresh" if fresh else "count_saved"
        self.query_one("#findings-status", Label).update(tr_count(MESSAGES, key, self.lang, len(found), n=len(found)))
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

    def _highlighted(self) -> Finding | None:
        index = self.query_one("#findings-list", OptionList).highlighted
        return self.findings[index] if index is not None and 0 <= index < len(self.findings) else None

    def action_accept(self) -> None:
        self._accept(whole_chapter=False)

    def action_accept_chapter(self) -> None:
        self._accept(whole_chapter=True)

    def _accept(self, *, whole_chapter: bool) -> None:
        finding = self._highlighted()
        if finding is None or not fixable(finding) or finding.chapter is None:
            self.notify(tr(MESSAGES, "not_fixable", self.lang), severity="warning")
            return
        if self.busy is not None and self.busy():
            self.notify(tr(MESSAGES, "busy", self.lang), severity="warning")
            return
        self._fix(finding, whole_chapter)

    @work(thread=True, exclusive=True, group="findings-fix", exit_on_error=False)
    def _fix(self, finding: Finding, whole_chapter: bool) -> None:
        n = finding.chapter
        assert n is not None
        try:
            project = Project.open(self.root, lang=self.lang)
            fixes = plan_fixes(project, [n], self.lang)  # what the chapter's unwaived findings would fix
            fix = fixes[0] if fixes else None
            if fix is not None and not whole_chapter:
                fix = dataclasses.replace(fix, new=fix_finding(fix.old, finding))
            if fix is None or not fix.changed:
                self.app.call_from_thread(self._fixed, n, None)
                return
            found = apply_fix(project, fix, self.lang)
        except Exception as exc:  # noqa: BLE001 - a broken project file or a full disk: say so, keep the studio up
            self.app.call_from_thread(self._fix_failed, f"{type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self._fixed, n, found)

    def _fix_failed(self, error: str) -> None:
        self.notify(tr(MESSAGES, "fix_failed", self.lang, error=error), severity="error", markup=False)
        self.fixes += 1

    def _fixed(self, n: int, found: list[Finding] | None) -> None:
        self.fixes += 1
        if found is None:
            self.notify(tr(MESSAGES, "nothing_fixed", self.lang, n=n), severity="warning")
            return
        self.notify(tr(MESSAGES, "fixed", self.lang, n=n))
        keep = self.query_one("#findings-list", OptionList).highlighted or 0
        self._show(sorted_findings([*(f for f in self.findings if f.chapter != n), *found]), self.fresh)
        options = self.query_one("#findings-list", OptionList)
        if self.findings:
            options.highlighted = min(keep, len(self.findings) - 1)
        if self.on_fixed is not None:
            self.on_fixed(n)
