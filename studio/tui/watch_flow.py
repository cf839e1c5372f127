"""What the author's own edits lead to (issue 4, section 7): a controller over a small protocol.

`EditsFlow(host, queue)` is driven by the main screen's message handlers:

- `changes(batch)` (a `ProjectChanged` from `screens.file_watcher`): a committed chapter edited by hand goes to
  `chapter_edited`; an edited outline, settings file, style profile ... is reloaded and notified; a file the
  author broke is reported (path, line, column) in a notification that stays until the file is fixed (or is
  dismissed); the studio keeps its last good version and never writes the file. A change another
  novel-studio process made (`ProjectChange.writer`: a `continue` in another terminal, a second studio or
  browser tab) is not the author's: the project is re-read and the selected chapter shown again (outline
  row, text, scores, as after the studio's own commit), nothing is marked or offered, and a chapter written
  that way says so once in its marks line (`peer_wrote`) and in the studio log. The commit's last write, the
  checkpoint, brings the final refresh.
- `chapter_edited(n, source)` (the watcher, `e`, an applied refine review): mark it ("edited, not rebuilt"),
  refresh, then offer the rebuild (ConfirmDialog: rebuild now / later), or queue it at once with
  `writing.auto_rebuild`. The same bytes are offered once.
- `rebuilt(message)` (a `RebuildFinished` from `screens.rebuild_queue`): clear the mark, re-read the review
  marks, refresh, and show the impact report (kept in `impact_report`).
- `pump()` starts the next queued rebuild when no pipeline run holds the lock (the screen calls it when a run
  ends); a queued chapter is announced once.

It changes nothing on screen itself: it asks the host (`EditsHost`) to.
"""

from __future__ import annotations

import hashlib
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from studio.errors import Problem
from studio.i18n import Catalog, Lang, tr
from studio.models.checkpoint import Checkpoint
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.tui.host import StudioHost
from studio.watch import Kind, ProjectChange

if TYPE_CHECKING:
    from studio.tui.messages import EditSource, RebuildFinished

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
    "peer_wrote": (
        "第{n}章由另一个 novel-studio 进程写入（pid {pid}）",
        "Chapter {n} was written by another novel-studio process (pid {pid})",
    ),
}


class RebuildQueueLike(Protocol):
    """`screens.rebuild_queue.RebuildQueue` as the flow sees it."""

    rebuilding: int | None
    queue: list[int]

    @property
    def running(self) -> bool: ...

    def pending(self, n: int) -> bool: ...

    def request(self, n: int) -> None: ...

    def pump(self, run_active: bool) -> int | None: ...


class StickyNote(Protocol):
    """A notification handle the host can withdraw."""


class EditsHost(StudioHost, Protocol):
    """What the edits flow needs beyond `StudioHost`: the marks and sticky notifications."""

    def mark_edited(self, n: int, edited: bool) -> None: ...

    def reload_marks(self) -> None: ...

    def notify_sticky(self, text: str, title: str) -> StickyNote: ...

    def withdraw(self, note: StickyNote) -> None: ...

    def write_log(self, message: str) -> None: ...

    def keep_note(self, chapter: int | None, kind: str, text: str) -> None: ...

    def confirm(
        self, text: str, *, title: str, yes_label: str, no_label: str, answered: ConfirmCallback
    ) -> None: ...


class ConfirmCallback(Protocol):
    def __call__(self, yes: bool | None) -> None: ...


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def describe_problem(problem: Problem, lang: Lang) -> str:
    """`line 3, column 5: reason` (the path is named by the caller)."""
    if problem.line is not None and problem.column is not None:
        where = tr(MESSAGES, "where", lang, line=problem.line, column=problem.column)
    elif problem.line is not None:
        where = tr(MESSAGES, "where_line", lang, line=problem.line)
    else:
        where = ""
    if problem.json_path:
        where = f"{where} [{problem.json_path}]".strip()
    if not where:
        return problem.text(lang)
    return f"{where}：{problem.text(lang)}" if lang == "zh" else f"{where}: {problem.text(lang)}"


def relative_name(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path(root).resolve()))
    except (ValueError, OSError):
        return str(path)


class EditsFlow:
    """The controller of the module docstring."""

    def __init__(self, host: EditsHost, queue: RebuildQueueLike) -> None:
        self.host = host
        self.queue = queue
        self.broken: dict[Path, StickyNote] = {}
        self.impact_report = ""
        self._asking: set[int] = set()
        self._offered: dict[int, str] = {}
        self._queued_notice: set[int] = set()
        self._failed_shown = False
        self._peer_noted: dict[int, str | None] = {}  # chapter -> digest of the other process's text noted

    @property
    def root(self) -> Path:
        return Path(self.host.project.root)

    @property
    def lang(self) -> Lang:
        return self.host.lang

    # ------------------------------------------------------------------ watcher

    def watch_failed(self, message: str) -> None:
        if not self._failed_shown:
            self._failed_shown = True
            self.host.notify(tr(MESSAGES, "watch_failed", self.lang, message=message), severity="error",
                             timeout=15, markup=False)

    def changes(self, changes: list[ProjectChange]) -> None:
        """A batch from the watcher; never raises (a failure is logged and shown once)."""
        try:
            self._changes(changes)
        except Exception as exc:  # never crash the studio over a change it could not show
            self.host.write_log("handling a change failed:\n" + traceback.format_exc())
            self.watch_failed(str(exc))

    def _changes(self, changes: list[ProjectChange]) -> None:
        host, lang = self.host, self.lang
        reload_needed = False
        reloaded: list[str] = []
        for change in changes:
            name = relative_name(change.path, self.root)
            kind = change.kind.kind
            by = "" if change.writer is None else f" writer=pid {change.writer}"
            host.write_log(
                f"watch: {kind.value} {name} deleted={change.deleted} problems={len(change.problems)}{by}"
            )
            if change.problems:
                self._show_broken(change, name)
                continue
            fixed = self._clear_broken(change.path)
            if change.writer is not None:  # another novel-studio process: follow it, mark nothing
                if kind is Kind.SETTINGS and isinstance(change.value, Settings):
                    host.services.apply_settings(change.value)
                if kind is Kind.CHAPTER and change.kind.chapter is not None and not change.deleted:
                    self._peer_chapter(change.kind.chapter, change.writer)
                reload_needed = True
                continue
            if kind is Kind.CHAPTER:
                if change.deleted:
                    reload_needed = True
                elif change.kind.chapter is not None:
                    host.chapter_edited(change.kind.chapter, "watcher")
                continue
            if change.deleted:
                host.notify(tr(MESSAGES, "deleted", lang, name=name), severity="warning", timeout=8, markup=False)
                continue
            if kind is Kind.SETTINGS and isinstance(change.value, Settings):
                host.services.apply_settings(change.value)
            reload_needed = True
            if fixed:
                host.notify(tr(MESSAGES, "fixed", lang, name=name), markup=False)
            elif kind not in (Kind.SUMMARY, Kind.CHECKPOINT):
                reloaded.append(name)
        if reload_needed:
            host.reload()
            selected = host.selected
            if selected is not None and not (host.running and selected == host.inflight):
                host.show_chapter(selected)
        if reloaded:
            sep = "、" if lang == "zh" else ", "
            host.notify(tr(MESSAGES, "reloaded", lang, names=sep.join(reloaded)), markup=False)

    def _peer_chapter(self, n: int, pid: int) -> None:
        """Chapter `n` was written by another process: say so once (per text) in its marks line and the log."""
        digest = _digest(ProjectPaths(self.root).chapter(n))
        if n in self._peer_noted and self._peer_noted[n] == digest:
            return
        self._peer_noted[n] = digest
        self.host.write_log(f"watch: chapter {n} written by another novel-studio process (pid {pid})")
        self.host.keep_note(n, "peer", tr(MESSAGES, "peer_wrote", self.lang, n=n, pid=pid))

    def _show_broken(self, change: ProjectChange, name: str) -> None:
        lines = "\n".join(f"- {describe_problem(p, self.lang)}" for p in change.problems)
        text = tr(MESSAGES, "broken", self.lang, name=name, problems=lines)
        self.host.write_log(f"watch: broken file {name}: " + "; ".join(str(p) for p in change.problems))
        old = self.broken.pop(change.path, None)
        if old is not None:
            self.host.withdraw(old)
        self.broken[change.path] = self.host.notify_sticky(text, tr(MESSAGES, "broken_title", self.lang))

    def _clear_broken(self, path: Path) -> bool:
        note = self.broken.pop(path, None)
        if note is None:
            return False
        self.host.withdraw(note)
        return True

    # ------------------------------------------------------------------ hand-edited chapters

    def _committed(self, n: int) -> bool:
        paths = ProjectPaths(self.root)
        try:
            last = Checkpoint.load_or_default(paths.checkpoint).last_completed_chapter
        except Exception:
            return False
        return 1 <= n <= last and paths.chapter(n).is_file()

    def chapter_edited(self, n: int, source: EditSource = "watcher") -> None:
        """Committed chapter `n` changed outside the pipeline: mark, refresh, offer (or run) the rebuild."""
        host = self.host
        if (host.running and n == host.inflight) or not self._committed(n):
            host.write_log(f"{source}: chapter {n} changed but is not a committed chapter; ignored")
            return
        digest = _digest(ProjectPaths(self.root).chapter(n))
        if digest is not None and self._offered.get(n) == digest:
            return
        if digest is not None:
            self._offered[n] = digest
        host.write_log(f"{source}: chapter {n} edited by hand")
        host.mark_edited(n, True)
        host.reload()
        if host.selected == n:
            host.show_chapter(n)
        settings = host.services.settings
        if settings is not None and settings.writing.auto_rebuild:
            self.request_rebuild(n)
            return
        if n in self._asking or self.queue.pending(n):
            return
        self._asking.add(n)
        review = source == "review"

        def answered(yes: bool | None) -> None:
            self._asking.discard(n)
            if yes:
                self.request_rebuild(n)
            else:
                host.notify(tr(MESSAGES, "later_hint", self.lang, n=n), markup=False)

        host.confirm(
            tr(MESSAGES, "ask_rebuild_review" if review else "ask_rebuild", self.lang, n=n),
            title=tr(MESSAGES, "ask_title_review" if review else "ask_title", self.lang),
            yes_label=tr(MESSAGES, "rebuild_now", self.lang),
            no_label=tr(MESSAGES, "later", self.lang),
            answered=answered,
        )

    def request_rebuild(self, n: int) -> None:
        self.queue.request(n)
        self.pump()

    def pump(self) -> None:
        """Start the next queued rebuild, or say once that it waits for the current run."""
        started = self.queue.pump(self.host.running)
        if started is not None:
            self._queued_notice.discard(started)
            self.host.notify(tr(MESSAGES, "rebuilding", self.lang, n=started), timeout=3)
            return
        if self.host.running:
            for n in list(self.queue.queue):
                if n not in self._queued_notice:
                    self._queued_notice.add(n)
                    self.host.notify(tr(MESSAGES, "queued", self.lang, n=n), markup=False)

    def busy(self) -> str | None:
        """Why a run cannot start because of a rebuild, or None."""
        if self.queue.running and self.queue.rebuilding is not None:
            return tr(MESSAGES, "rebuild_busy", self.lang, n=self.queue.rebuilding)
        return None

    def rebuilt(self, message: RebuildFinished) -> None:
        host, lang, n = self.host, self.lang, message.chapter
        result = message.result
        if message.error is not None or result is None:
            host.notify(tr(MESSAGES, "rebuild_failed", lang, n=n, message=message.error), severity="error",
                        timeout=12, markup=False)
        else:
            host.mark_edited(n, False)
            host.reload_marks()
            host.reload()
            if host.selected is not None:
                host.show_chapter(host.selected)
            lines = [tr(MESSAGES, "rebuilt", lang, n=n, base=result.base_state_version, version=result.state_version)]
            impacted: dict[int, list[str]] = dict(result.impacted)
            if impacted:
                sep = "、" if lang == "zh" else ", "
                chapters = sep.join(tr(MESSAGES, "chapter_ref", lang, n=k) for k in sorted(impacted))
                lines.append(tr(MESSAGES, "impact", lang, chapters=chapters))
                for k in sorted(impacted)[:5]:
                    for reason in impacted[k][:2]:
                        lines.append(f"  {tr(MESSAGES, 'chapter_ref', lang, n=k)}：{reason}")
            else:
                lines.append(tr(MESSAGES, "no_impact", lang))
            self.impact_report = "\n".join(lines)
            host.notify(self.impact_report, timeout=15, markup=False)
        self.pump()


__all__ = ["MESSAGES", "EditsFlow", "EditsHost", "RebuildQueueLike", "describe_problem", "relative_name"]
