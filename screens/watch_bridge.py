"""The studio's watcher of the author's own edits, and what follows from them (issue 4, section 7).

`WatchBridge` is an invisible widget mounted in the main screen. On mount it runs `studio.watch.watch_project` in
a background task on the app's loop (stopped on unmount; a plain asyncio task rather than a Textual worker, because
a watcher never completes and `app.workers.wait_for_complete()` must still return) and turns each batch of `ProjectChange`s into a
`WatchBridge.ProjectChanged` message, handled here:

- a committed chapter edited by hand (`chapter_edited(n)`, also the entry point for the `e` key flow): marked in
  the outline (the screen's `needs_rebuild` set), its pane refreshed if shown, then the rebuild is offered
  (ConfirmDialog: rebuild now / later) or queued at once when `writing.auto_rebuild` is on. Rebuilds run one at a
  time in a worker (`pipeline.rebuild.rebuild_chapter` with the app's agents), never while a pipeline run holds
  the lock (queued until `run_ended`); afterwards the mark is cleared, the panes refresh and the impact report
  is shown: the later chapters marked "needs review" (`.novel-studio/review-marks.json`) are marked in the
  outline, and selecting one shows why (`chapter_shown`).
- an edited outline, settings file, style profile, blacklist ... is reloaded (outline, header) and notified;
- a file the author broke is reported (path, line, column) in a notification that stays until the file is fixed
  (or dismissed); the studio keeps its last good version and never writes the file.

The watcher must never take the app down: any error is logged to `.novel-studio/logs/studio.log` and shown once.
"""

from __future__ import annotations

import asyncio
import hashlib
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from pipeline.events import Event, StageError
from screens.pipeline_runner import log_line
from screens.prompt_dialogs import ConfirmDialog
from studio.errors import Problem
from studio.i18n import Catalog, Lang, tr
from studio.models.review_marks import ReviewMarks, load_review_marks
from studio.paths import ProjectPaths
from studio.watch import DEFAULT_DEBOUNCE_MS, Kind, ProjectChange, watch_project

if TYPE_CHECKING:
    from screens.main_screen import MainScreen
    from studio.tui.app import NovelStudioApp

MESSAGES: Catalog = {
    "ask_rebuild": (
        "第{n}章被手动修改，重新提取摘要与状态？（会调用模型）",
        "Chapter {n} was edited by hand. Re-extract its summary and state? (calls the model)",
    ),
    "ask_rebuild_review": (
        "第{n}章已按润色审阅的结果更新，重新提取摘要与状态？（会调用模型）",
        "Chapter {n} was updated from the refine review. Re-extract its summary and state? (calls the model)",
    ),
    "ask_title": ("章节被手动修改", "Chapter edited by hand"),
    "ask_title_review": ("润色审阅已应用", "Refine review applied"),
    "rebuild_now": ("现在重建", "Rebuild now"),
    "later": ("稍后", "Later"),
    "later_hint": (
        "第{n}章保持“需重建”标记；稍后可运行 novel-studio rebuild {n}",
        "Chapter {n} stays marked “needs rebuild”; run novel-studio rebuild {n} later",
    ),
    "queued": ("第{n}章将在当前运行结束后重建", "Chapter {n} will be rebuilt when the current run ends"),
    "rebuilding": ("正在重建第{n}章……", "Rebuilding chapter {n}..."),
    "rebuilt": ("第{n}章已重建（状态版本 {base} → {version}）", "Chapter {n} rebuilt (state version {base} -> {version})"),
    "impact": ("需要复查：{chapters}", "Needs review: {chapters}"),
    "no_impact": ("后续章节不受影响", "No later chapter is affected"),
    "chapter_ref": ("第{n}章", "ch. {n}"),
    "rebuild_failed": ("第{n}章重建失败：{message}（详情见日志）", "Rebuilding chapter {n} failed: {message} (see the log)"),
    "needs_review": (
        "第{n}章需要复查（第{cause}章的修改可能与之矛盾）：\n{reasons}",
        "Chapter {n} needs review (the edit of chapter {cause} may contradict it):\n{reasons}",
    ),
    "edited_pending": ("第{n}章被手动修改，尚未重建", "Chapter {n} was edited by hand and is not rebuilt yet"),
    "reloaded": ("已重新载入 {names}", "Reloaded {names}"),
    "deleted": ("文件被删除：{name}（继续使用之前的版本）", "File deleted: {name} (the last good version stays in use)"),
    "broken": (
        "{name} 有错误，继续使用上一个正确的版本，不会改写这个文件：\n{problems}",
        "{name} is broken; the last good version stays in use and the file is not touched:\n{problems}",
    ),
    "broken_title": ("文件有错误", "Broken file"),
    "where": ("第 {line} 行第 {column} 列", "line {line}, column {column}"),
    "where_line": ("第 {line} 行", "line {line}"),
    "fixed": ("{name} 已修好并重新载入", "{name} is fixed and reloaded"),
    "watch_failed": (
        "文件监视出错，手动修改将不会自动发现：{message}（详情见日志）",
        "Watching the files failed; hand edits will not be noticed: {message} (see the log)",
    ),
    "rebuild_busy": ("正在重建第{n}章，请稍候", "Rebuilding chapter {n}; please wait"),
}

STICKY_TIMEOUT = 24 * 3600.0


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def describe_problem(problem: Problem, root: Path, lang: Lang) -> str:
    """`line 3, column 5: reason` (the path is named by the caller)."""
    if problem.line is not None and problem.column is not None:
        where = tr(MESSAGES, "where", lang, line=problem.line, column=problem.column)
    elif problem.line is not None:
        where = tr(MESSAGES, "where_line", lang, line=problem.line)
    else:
        where = ""
    if problem.json_path:
        where = f"{where} [{problem.json_path}]".strip()
    return f"{where}：{problem.reason}" if where and lang == "zh" else (f"{where}: {problem.reason}" if where else
                                                                      problem.reason)


def relative_name(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path(root).resolve()))
    except (ValueError, OSError):
        return str(path)


class WatchBridge(Widget):
    """Runs the project watcher and the rebuilds it leads to; see the module docstring."""

    DEFAULT_CSS = """
    WatchBridge {
        display: none;
    }
    """

    debounce_ms: ClassVar[int] = DEFAULT_DEBOUNCE_MS
    """The watcher's debounce (tests lower it)."""
    enabled: ClassVar[bool] = True
    """False: no watcher is started (tests that do not want one)."""

    @dataclass
    class ProjectChanged(Message):
        """A debounced batch of the author's changes."""

        changes: list[ProjectChange]

    @dataclass
    class WatchFailed(Message):
        message: str

    @dataclass
    class Rebuilt(Message):
        """A rebuild finished (`result`) or failed (`error`)."""

        chapter: int
        result: Any = None
        error: str | None = None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ready = asyncio.Event()
        self._stop = asyncio.Event()
        self.edited: set[int] = set()
        self.review = ReviewMarks()
        self.queue: list[int] = []
        self.rebuilding: int | None = None
        self.broken: dict[Path, Notification] = {}
        self._asking: set[int] = set()
        self._failed_shown = False
        self._watch_task: asyncio.Task[None] | None = None
        self._rebuild_worker: Worker[Any] | None = None
        self._queued_notice: set[int] = set()
        self.impact_report = ""
        self._offered: dict[int, str] = {}

    # ------------------------------------------------------------------ accessors

    @property
    def studio(self) -> NovelStudioApp:
        return self.app  # type: ignore[return-value]

    @property
    def main(self) -> MainScreen:
        return self.screen  # type: ignore[return-value]

    @property
    def root(self) -> Path:
        return Path(self.main.project.root)

    @property
    def lang(self) -> Lang:
        return self.main.lang

    # ------------------------------------------------------------------ lifecycle

    def on_mount(self) -> None:
        self.call_after_refresh(self._load_marks)
        if self.enabled:
            self._watch_task = asyncio.create_task(self._watch(), name="novel-studio-watch")

    def on_unmount(self) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._watch_task is not None:
            self._watch_task.cancel()
            self._watch_task = None

    def _log(self, message: str) -> None:
        log_line(self.root, message)

    async def _watch(self) -> None:
        root = self.root
        try:
            await watch_project(
                root, on_change=self._changed, stop_event=self._stop, debounce_ms=self.debounce_ms, ready=self.ready
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the watcher never takes the app down
            log_line(root, "watcher failed:\n" + traceback.format_exc())
            self.post_message(self.WatchFailed(f"{type(exc).__name__}: {exc}"))

    def _changed(self, changes: list[ProjectChange]) -> None:
        self.post_message(self.ProjectChanged(list(changes)))

    @on(WatchFailed)
    def _watch_failed(self, message: WatchFailed) -> None:
        message.stop()
        if not self._failed_shown:
            self._failed_shown = True
            self.notify(tr(MESSAGES, "watch_failed", self.lang, message=message.message), severity="error",
                        timeout=15, markup=False)

    # ------------------------------------------------------------------ changes

    @on(ProjectChanged)
    def _project_changed(self, message: ProjectChanged) -> None:
        message.stop()
        try:
            self.handle_changes(message.changes)
        except Exception as exc:  # never crash the studio over a change it could not show
            self._log("handling a change failed:\n" + traceback.format_exc())
            if not self._failed_shown:
                self._failed_shown = True
                self.notify(tr(MESSAGES, "watch_failed", self.lang, message=exc), severity="error", markup=False)

    def handle_changes(self, changes: list[ProjectChange]) -> None:
        screen = self.main
        lang = self.lang
        reload_needed = False
        reloaded: list[str] = []
        for change in changes:
            name = relative_name(change.path, self.root)
            kind = change.kind.kind
            self._log(f"watch: {kind.value} {name} deleted={change.deleted} problems={len(change.problems)}")
            if change.problems:
                self._show_broken(change, name)
                continue
            fixed = self._clear_broken(change.path)
            if kind is Kind.CHAPTER:
                if change.deleted:
                    reload_needed = True
                elif change.kind.chapter is not None:
                    self._post_edited(change.kind.chapter)
                continue
            if change.deleted:
                self.notify(tr(MESSAGES, "deleted", lang, name=name), severity="warning", timeout=8, markup=False)
                continue
            if kind is Kind.SETTINGS and change.value is not None:
                self._apply_settings(change.value)
            reload_needed = True
            if fixed:
                self.notify(tr(MESSAGES, "fixed", lang, name=name), markup=False)
            elif kind is not Kind.SUMMARY:
                reloaded.append(name)
        if reload_needed:
            screen.reload()
            if screen.selected is not None and not (screen.running and screen.selected == screen.inflight):
                screen.show_chapter(screen.selected)
        if reloaded:
            self.notify(tr(MESSAGES, "reloaded", lang, names="、".join(reloaded) if lang == "zh" else ", ".join(reloaded)),
                        markup=False)

    def _apply_settings(self, settings: Any) -> None:
        app = self.studio
        app.settings = settings
        try:
            self.main.runner.settings = settings
        except Exception:
            pass
        from studio.tui.keymap import apply_keymap

        apply_keymap(app, settings.ui.keymap, self.lang)

    def _show_broken(self, change: ProjectChange, name: str) -> None:
        lines = "\n".join(f"- {describe_problem(p, self.root, self.lang)}" for p in change.problems)
        text = tr(MESSAGES, "broken", self.lang, name=name, problems=lines)
        self._log(f"watch: broken file {name}: " + "; ".join(str(p) for p in change.problems))
        old = self.broken.pop(change.path, None)
        if old is not None:
            self._unnotify(old)
        notification = Notification(
            text, tr(MESSAGES, "broken_title", self.lang), "error", STICKY_TIMEOUT, markup=False
        )
        self.broken[change.path] = notification
        self.app.post_message(Notify(notification))

    def _clear_broken(self, path: Path) -> bool:
        notification = self.broken.pop(path, None)
        if notification is None:
            return False
        self._unnotify(notification)
        return True

    def _unnotify(self, notification: Notification) -> None:
        try:
            self.app._unnotify(notification)
        except KeyError:
            pass  # already dismissed by the author

    # ------------------------------------------------------------------ hand-edited chapters

    def _committed(self, n: int) -> bool:
        from studio.models.checkpoint import Checkpoint

        paths = ProjectPaths(self.root)
        try:
            last = Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter
        except Exception:
            return False
        return 1 <= n <= last and paths.chapter(n).is_file()

    def _post_edited(self, n: int) -> None:
        """The watcher saw chapter `n` change: the same `ChapterEdited` message review and `e` post, so the
        screen routes all of them to `chapter_edited`."""
        from studio.tui.review_flow import ChapterEdited

        self.main.post_message(ChapterEdited(n, source="watcher"))

    def chapter_edited(self, n: int, source: str = "watcher") -> None:
        """Committed chapter `n` was changed outside the pipeline (the watcher, `e`, a refine review): mark it,
        refresh, offer (or run) the rebuild. The same content reported twice (the editor's return, then the
        watcher) is offered once."""
        screen = self.main
        if (screen.running and n == screen.inflight) or not self._committed(n):
            self._log(f"{source}: chapter {n} changed but is not a committed chapter; ignored")
            return
        digest = _digest(ProjectPaths(self.root).chapter(n))
        if digest is not None and self._offered.get(n) == digest:
            return
        if digest is not None:
            self._offered[n] = digest
        self._log(f"{source}: chapter {n} edited by hand")
        self.edited.add(n)
        screen.reload()
        self.sync_marks()
        if screen.selected == n:
            screen.show_chapter(n)
        settings = self.studio.settings
        if settings is not None and settings.writing.auto_rebuild:
            self.request_rebuild(n)
            return
        if n in self._asking or n in self.queue or n == self.rebuilding:
            return
        self._asking.add(n)

        def answered(yes: bool | None) -> None:
            self._asking.discard(n)
            if yes:
                self.request_rebuild(n)
            else:
                self.notify(tr(MESSAGES, "later_hint", self.lang, n=n), markup=False)

        self.app.push_screen(
            ConfirmDialog(
                tr(MESSAGES, "ask_rebuild_review" if source == "review" else "ask_rebuild", self.lang, n=n),
                self.lang,
                title=tr(MESSAGES, "ask_title_review" if source == "review" else "ask_title", self.lang),
                default=True,
                yes_label=tr(MESSAGES, "rebuild_now", self.lang),
                no_label=tr(MESSAGES, "later", self.lang),
            ),
            answered,
        )

    def request_rebuild(self, n: int) -> None:
        if n not in self.queue and n != self.rebuilding:
            self.queue.append(n)
        self.pump()

    @property
    def rebuild_running(self) -> bool:
        worker = self._rebuild_worker
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    def pump(self) -> None:
        """Start the next queued rebuild, unless one runs or a pipeline run holds the lock."""
        if not self.queue or self.rebuild_running:
            return
        screen = self.main
        if screen.running:
            for n in self.queue:
                if n not in self._queued_notice:
                    self._queued_notice.add(n)
                    self.notify(tr(MESSAGES, "queued", self.lang, n=n), markup=False)
            return
        n = self.queue.pop(0)
        self._queued_notice.discard(n)
        self.rebuilding = n
        self.notify(tr(MESSAGES, "rebuilding", self.lang, n=n), timeout=3)
        self._rebuild_worker = self._rebuild(n)

    def run_ended(self) -> None:
        """The pipeline run is over: start what was queued meanwhile."""
        self.pump()

    @work(exclusive=False, group="rebuild", exit_on_error=False)
    async def _rebuild(self, n: int) -> None:
        from pipeline.rebuild import rebuild_chapter

        root = self.root
        self._log(f"rebuild started: chapter {n}")
        try:
            result = await rebuild_chapter(root, n, self.studio.make_agents(), lang=self.lang)
        except asyncio.CancelledError:
            self.rebuilding = None
            raise
        except Exception as exc:
            log_line(root, f"rebuild of chapter {n} failed:\n" + traceback.format_exc())
            self.post_message(self.Rebuilt(n, error=f"{exc}"))
            return
        self._log(f"rebuilt chapter {n}: state {result.base_state_version} -> {result.state_version}; "
                  f"needs review: {sorted(result.impacted)}")
        self.post_message(self.Rebuilt(n, result=result))

    @on(Rebuilt)
    def _rebuilt(self, message: Rebuilt) -> None:
        message.stop()
        n = message.chapter
        self.rebuilding = None
        screen = self.main
        lang = self.lang
        if message.error is not None:
            self.notify(tr(MESSAGES, "rebuild_failed", lang, n=n, message=message.error), severity="error",
                        timeout=12, markup=False)
        else:
            result = message.result
            self.edited.discard(n)
            self._load_marks(refresh=False)
            screen.reload()
            self.sync_marks()
            if screen.selected is not None:
                screen.show_chapter(screen.selected)
            lines = [tr(MESSAGES, "rebuilt", lang, n=n, base=result.base_state_version, version=result.state_version)]
            impacted: dict[int, list[str]] = dict(result.impacted)
            if impacted:
                chapters = ("、" if lang == "zh" else ", ").join(
                    tr(MESSAGES, "chapter_ref", lang, n=k) for k in sorted(impacted)
                )
                lines.append(tr(MESSAGES, "impact", lang, chapters=chapters))
                for k in sorted(impacted)[:5]:
                    for reason in impacted[k][:2]:
                        lines.append(f"  {tr(MESSAGES, 'chapter_ref', lang, n=k)}：{reason}")
            else:
                lines.append(tr(MESSAGES, "no_impact", lang))
            self.impact_report = "\n".join(lines)
            self.notify(self.impact_report, timeout=15, markup=False)
        self.pump()

    # ------------------------------------------------------------------ marks

    def reload_marks(self) -> None:
        """Re-read the review marks file and redraw the outline marks (after the author cleared one)."""
        self._load_marks()

    def _load_marks(self, refresh: bool = True) -> None:
        try:
            self.review = load_review_marks(ProjectPaths(self.root))
        except Exception as exc:  # a broken marks file must not stop the studio
            self._log(f"review marks unreadable: {exc}")
            self.review = ReviewMarks()
        if refresh:
            self.sync_marks()

    def review_chapters(self) -> set[int]:
        return set(self.review.chapters())

    def sync_marks(self) -> None:
        """Put the edited and needs-review chapters into the screen's `needs_rebuild` set and redraw the outline."""
        screen = self.main
        marks = self.edited | self.review_chapters()
        screen.needs_rebuild = marks
        try:
            screen.outline.refresh_rows(screen._rows())
        except Exception as exc:
            self._log(f"outline refresh failed: {exc}")

    def review_reasons(self, n: int) -> str | None:
        """Why chapter `n` needs review (localised), or None."""
        marks = self.review.for_chapter(n)
        if not marks:
            return None
        parts = []
        for mark in marks:
            reasons = "\n".join(f"- {r}" for r in mark.reasons) or "-"
            parts.append(tr(MESSAGES, "needs_review", self.lang, n=n, cause=mark.caused_by_chapter, reasons=reasons))
        return "\n".join(parts)

    def chapter_shown(self, n: int) -> None:
        """The screen shows chapter `n`: say why it is marked, if it is."""
        if n in self.edited:
            self.notify(tr(MESSAGES, "edited_pending", self.lang, n=n), severity="warning", timeout=5, markup=False)
        reasons = self.review_reasons(n)
        if reasons:
            self.notify(reasons, severity="warning", timeout=10, markup=False)

    # ------------------------------------------------------------------ hooks for the screen

    def writing_blocked(self) -> str | None:
        """Why a run cannot start now (a rebuild runs, or another process holds the lock), or None."""
        if self.rebuild_running and self.rebuilding is not None:
            return tr(MESSAGES, "rebuild_busy", self.lang, n=self.rebuilding)
        from studio.tui.startup import writing_blocked

        return writing_blocked(self.root, self.lang)

    def pipeline_event(self, event: Event) -> None:
        """A pipeline event the screen received: a rejected or missing key asks the MISSING_KEY question."""
        from studio.tui.startup import KEY_ERROR_KINDS, ask_key_problem

        if isinstance(event, StageError) and event.kind in KEY_ERROR_KINDS and not event.retrying:
            rejected = event.message if event.kind == "auth" else None
            self.app.run_worker(ask_key_problem(self.studio, self.main, rejected), group="key", exit_on_error=False)


__all__ = ["MESSAGES", "WatchBridge", "describe_problem", "relative_name"]
