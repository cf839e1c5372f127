"""The studio's main screen: header, four titled panes (大纲 / 正文 / 状态变更 / 评分) and the footer.

At 100 columns or more the panes sit in a grid (outline left, chapter centre, state diff over scores on the
right); below that a tab bar shows one pane at a time. The panes are never re-mounted when the layout
changes (CSS classes switch it), so a chapter streaming in keeps streaming across a resize.

Every key is a `Binding` with an `id` (remappable with `App.set_keymap`); descriptions are localised per
screen. The pipeline runs in `screens.pipeline_runner.PipelineRunner`'s worker; this screen only renders its
events, so keys keep answering while a chapter streams.

Shape: the App hands this screen a `StudioServices` (settings, agents, provider name); the screen never reads
`self.app` as the concrete App. It owns its state as reactives (`selected`, `inflight`, `marks`) whose watchers
keep the header and the outline in step. Three invisible parts post messages (`studio.tui.messages`) and never
touch the screen: `PipelineRunner`, `FileWatcher`, `RebuildQueue`. The flows (start-up checks, review, undo,
edit, the edits/rebuild flow) are controllers over `StudioHost`, which this screen implements.

Chapter selection (issue 12, instant keys): a key shows the chapter at once from the file read then; once the
studio has idled `PREPARE_AFTER_S`, the chapters before and after it are prepared (typeset, state diff replayed
and wrapped, scores wrapped), one per timer tick, then a full garbage collection runs if one is due. So the next
arrow key costs what going back to a chapter costs, and seldom meets a collection. Every cache involved is keyed
by the text it shows, never by a file's stat: a file edited after it was prepared shows its new text.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.events import Resize, ScreenResume
from textual.notifications import Notification
from textual.reactive import Reactive, var
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Tab, Tabs
from textual.widgets.text_area import Selection

from pipeline.decisions import Question
from pipeline.events import (
    ChapterCommitted,
    GateDecided,
    Notice,
    Paused,
    StageError,
    StageFinished,
    StageStarted,
    TextDelta,
)
from screens.file_watcher import FileWatcher
from screens.pipeline_runner import PipelineRunner
from screens.plan_runner import PlanRunner
from screens.rebuild_queue import RebuildQueue
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, chars_text, tr, tr_count
from studio.i18n_names import error_text, gate_action_name, gate_reason, stage_name
from studio.models.author_note import load_author_note
from studio.paths import ProjectPaths
from studio.project import Project
from studio.status import spend_figures
from studio.studio_log import LOG_FILE, log_line
from studio.tui.heap import settle_heap
from studio.tui.host import RunRequest, Severity, StudioServices
from studio.tui.import_flow import ExtractionFlow
from studio.tui.marks import ChapterMarks, read_review_marks
from studio.tui.messages import (
    ChapterEdited,
    EditSource,
    ExtractionRequested,
    PipelineEventPosted,
    PlanEnded,
    PlanRequested,
    ProjectChanged,
    QuickStartRequested,
    RebuildFinished,
    RebuildStage,
    RebuildStarted,
    RunEnded,
    StageRetrying,
    WatchFailed,
)
from studio.tui.plan_flow import PlanFlow
from studio.tui.watch_flow import MESSAGES as WATCH_MESSAGES
from studio.tui.watch_flow import ConfirmCallback, EditsFlow, StickyNote
from studio.views.outline_rows import build_outline_rows, find_chapter
from studio.views.scores import scores_for_chapter
from studio.views.state_diff import state_diff_for_chapter
from studio.wordcount import word_count
from widgets import compat
from widgets.chapter_view import ChapterView
from widgets.instant_keys import JK_BINDINGS, StudioFooter
from widgets.outline_tree import OutlineTree
from widgets.pane import Pane, pane_of
from widgets.scores_view import ScoresView
from widgets.state_diff_view import StateDiffView
from widgets.studio_header import HeaderInfo, StudioHeader

if TYPE_CHECKING:
    from pipeline.importing.extract import ExtractionEstimate
    from studio.models.findings import Finding
    from studio.models.quick_start import QuickStartRequest
    from studio.search import SearchHit

T = TypeVar("T")

MESSAGES: Catalog = {
    "pane_outline": ("大纲", "Outline"),
    "pane_chapter": ("正文", "Chapter"),
    "pane_diff": ("状态变更", "State diff"),
    "pane_scores": ("评分", "Scores"),
    "chapter_title": ("第{n}章 {title}", "Ch {n} {title}"),
    "busy": ("流水线正在运行", "The pipeline is running"),
    "not_running": ("没有正在运行的阶段", "No stage is running"),
    "confirm_stop": (
        "停止正在运行的阶段？本章进度会保存，之后可以继续。",
        "Stop the running stage? The chapter's progress is saved and can be resumed.",
    ),
    "confirm_quit": (
        "流水线正在运行。停止并退出？本章进度会保存，之后可以继续。",
        "The pipeline is running. Stop and quit? The chapter's progress is saved and can be resumed.",
    ),
    "note_title": ("下一章的本章要求（交给写手）", "A note for the next chapter (given to the writer)"),
    "note_placeholder": ("例如：这一章让主角第一次进城", "e.g. the hero reaches the city in this chapter"),
    "note_set": ("已记下本章要求，写下一章时使用", "Note saved; it goes to the next chapter written"),
    "note_kept": (
        "上次记下的本章要求还在，会交给下一章（按 n 查看或修改）：{note}",
        "The note you left is kept for the next chapter (n to see or change it): {note}",
    ),
    "note_cleared": ("已清除本章要求", "Note cleared"),
    "how_many": ("写几章？", "How many chapters?"),
    "estimate": ("预计花费约 ${cost:.2f}", "Estimated cost about ${cost:.2f}"),
    "estimate_offline": ("离线模式：不花钱", "Offline: free"),
    "copied": ("已复制第{n}章（{chars}）到剪贴板", "Copied chapter {n} ({chars}) to the clipboard"),
    "nothing_to_copy": ("当前章节没有正文可复制", "The selected chapter has no text to copy"),
    "no_chapter": ("（未选择章节）", "(no chapter selected)"),
    "planned": ("第{n}章还没有写。按 c 写下一章。", "Chapter {n} is not written yet. Press c to write the next chapter."),
    "committed": ("第{n}章已提交（{words}，评分 {overall}）", "Chapter {n} committed ({words}, score {overall})"),
    "stage_retry": ("{stage} 阶段出错，正在第 {attempt} 次重试", "stage {stage} failed; retry {attempt}"),
    "run_done": ("完成：提交了 {n} 章", "Done: {n} chapters committed"),
    "run_done_one": ("完成：提交了 {n} 章", "Done: {n} chapter committed"),
    "run_paused": ("已暂停：{message}", "Paused: {message}"),
    "run_stopped": ("已停止；本章进度已保存，可继续", "Stopped; the chapter's progress is saved and can be resumed"),
    "run_error": ("出错了：{message}（详情见 {log}）", "Something went wrong: {message} (details in {log})"),
    "stage_error": ("第{chapter}章 {stage} 阶段出错：{message}", "Chapter {chapter}, stage {stage} failed: {message}"),
    "gate": ("第{chapter}章评审 {overall:.2f}：{action}（{reason}）", "Chapter {chapter} judged {overall:.2f}: {action} ({reason})"),
    "no_key": (
        "没有设置 API key（环境变量 {env}）。设置后重试，或用 --offline 离线运行。",
        "No API key set (environment variable {env}). Set it and retry, or run with --offline.",
    ),
    "no_key_served": (
        "没有设置 API key（环境变量 {env}）。浏览器模式：在运行 novel-studio serve 的终端里设置它，"
        "再重新启动 serve；或用 novel-studio serve --offline 离线运行。",
        "No API key set (environment variable {env}). In the browser mode: set it in the terminal that runs "
        "novel-studio serve, then restart serve; or run novel-studio serve --offline.",
    ),
    "unreadable": (
        "第{n}章无法读取（文件没有被改动）：{error}\n请把它另存为 UTF-8 编码后再打开。",
        "Chapter {n} cannot be read (the file was not changed): {error}\nSave it as UTF-8 and open it again.",
    ),
    "reload_failed": ("重新读取项目失败：{message}", "Reloading the project failed: {message}"),
    # key descriptions (footer, help, command palette)
    "k_write_next": ("写下一章", "Write next chapter"),
    "k_write_many": ("写多章", "Write N chapters"),
    "k_note": ("本章要求", "Note for next chapter"),
    "k_goto": ("跳到章节", "Go to chapter"),
    "k_copy": ("复制本章", "Copy chapter"),
    "k_next_pane": ("下一个窗格", "Next pane"),
    "k_prev_pane": ("上一个窗格", "Previous pane"),
    "k_pane_1": ("大纲窗格", "Outline pane"),
    "k_pane_2": ("正文窗格", "Chapter pane"),
    "k_pane_3": ("状态变更窗格", "State diff pane"),
    "k_pane_4": ("评分窗格", "Scores pane"),
    "k_stop": ("停止运行", "Stop the stage"),
    "k_help": ("帮助", "Help"),
    "k_quit": ("退出", "Quit"),
    "k_palette": ("命令面板", "Command palette"),
    "k_move": ("在大纲、正文和各窗格里下移 / 上移", "Move down / up in the outline, the text and the panes"),
    "k_review": ("审阅润色", "Review refine edits"),
    "k_undo": ("撤销上一章", "Undo last chapter"),
    "k_edit": ("用编辑器打开", "Open in $EDITOR"),
    "k_search": ("搜索", "Search"),
    "k_findings": ("检查结果", "Check findings"),
    "k_mark_reviewed": ("标记本章已复查", "Mark this chapter reviewed"),
    "marked_reviewed": ("第{n}章已标记为已复查", "Chapter {n} marked reviewed"),
    "not_marked": ("第{n}章没有“需复查”标记", "Chapter {n} has no “needs review” mark"),
    "k_export": ("导出", "Export"),
    "k_extract": ("全量提取导入的书稿", "Full extraction of the imported book"),
}

PANES: tuple[str, ...] = ("outline", "chapter", "diff", "scores")
WIDE_MIN_COLUMNS = 100
PREPARE_AFTER_S = 0.15
"""Idle seconds after a chapter is shown before its neighbours are prepared (`MainScreen._prepare_neighbours`):
a held arrow key repeats faster, so nothing is prepared while the cursor runs through the outline."""
STREAM_STAGES = frozenset({"draft", "revise", "rewrite"})


class PaneTabs(Tabs, can_focus=False):
    """The tab bar of the narrow layout; keys (1-4, tab) switch it, so it never takes focus."""


class MainScreen(Screen[None]):
    CSS_PATH = "main_screen.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "write_next", "写下一章", id="write_next"),
        Binding("C", "write_many", "写多章", id="write_many"),
        Binding("n", "note", "本章要求", id="note"),
        Binding("g", "goto", "跳到章节", id="goto"),
        Binding("y", "copy_chapter", "复制本章", id="copy"),
        Binding("r", "review", "审阅润色", id="review"),
        Binding("u", "undo", "撤销上一章", id="undo"),
        Binding("e", "edit_chapter", "用编辑器打开", id="edit"),
        Binding("slash", "search", "搜索", id="search", key_display="/"),
        Binding("f", "findings", "检查结果", show=False, id="findings"),
        Binding("m", "mark_reviewed", "标记已复查", show=False, id="mark_reviewed"),
        Binding("x", "extract", "全量提取", show=False, id="extract"),
        Binding("tab", "cycle_pane(1)", "下一个窗格", show=False, id="next_pane"),
        Binding("shift+tab", "cycle_pane(-1)", "上一个窗格", show=False, id="prev_pane"),
        Binding("1", "focus_pane(0)", "大纲窗格", show=False, id="pane_1"),
        Binding("2", "focus_pane(1)", "正文窗格", show=False, id="pane_2"),
        Binding("3", "focus_pane(2)", "状态变更窗格", show=False, id="pane_3"),
        Binding("4", "focus_pane(3)", "评分窗格", show=False, id="pane_4"),
        Binding("escape", "stop", "停止运行", id="stop"),
        Binding("question_mark", "help", "帮助", id="help", key_display="?"),
        Binding("q", "quit_studio", "退出", id="quit"),
    ]

    DESCRIPTION_KEYS: ClassVar[dict[str, str]] = {
        "write_next": "k_write_next",
        "write_many": "k_write_many",
        "note": "k_note",
        "goto": "k_goto",
        "copy": "k_copy",
        "review": "k_review",
        "undo": "k_undo",
        "edit": "k_edit",
        "search": "k_search",
        "findings": "k_findings",
        "mark_reviewed": "k_mark_reviewed",
        "export": "k_export",
        "extract": "k_extract",
        "next_pane": "k_next_pane",
        "prev_pane": "k_prev_pane",
        "pane_1": "k_pane_1",
        "pane_2": "k_pane_2",
        "pane_3": "k_pane_3",
        "pane_4": "k_pane_4",
        "stop": "k_stop",
        "help": "k_help",
        "quit": "k_quit",
    }

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    """As `Screen.focused`, without repainting the whole screen on every focus change (a pane switch): the
    widgets whose focus styles change repaint themselves."""
    selected: var[int | None] = var(None, init=False)
    """The chapter shown in the panes."""
    inflight: var[int | None] = var(None, init=False)
    """The chapter the running pipeline works on."""
    marks: var[ChapterMarks] = var(ChapterMarks, init=False)
    """The outline's marks: edited by hand (not rebuilt), needs review."""

    def __init__(self, project: Project, services: StudioServices, *, lang: Lang = "zh") -> None:
        super().__init__()
        compat.use_lean_compositor(self)  # partial repaints render only the dirty lines (widgets.compat)
        self.project = project
        self.services = services
        self.lang: Lang = lang
        self.note: str | None = load_author_note(ProjectPaths(project.root))
        """The author's note for the next chapter (`n`), kept in .novel-studio/next-note.json until used."""
        self._note_in_run: str | None = None
        self.draft_text = ""
        self.draft_stage: str | None = None
        self.wide: bool | None = None
        self.active_pane = 1 if project.committed_chapters() else 0
        self._marked_pane: Pane | None = None
        """The pane shown as focused (class `-focused`): see `watch_focused`."""
        self._resumed = False  # see `on_screen_resume`
        self._prepare_timer: Timer | None = None
        self._to_prepare: list[int] = []
        """Neighbours of the chapter shown, still to prepare (`_prepare_neighbours`), the next one first."""
        self._localise_bindings()

    # ------------------------------------------------------------------ setup

    def _localise_bindings(self) -> None:
        def localise(b: Binding) -> Binding:
            if b.id in self.DESCRIPTION_KEYS:
                return replace(b, description=tr(MESSAGES, self.DESCRIPTION_KEYS[b.id], self.lang))
            return b

        compat.rewrite_bindings(self, localise)

    def binding_rows(self) -> list[tuple[str, str]]:
        """Every key of the studio as (key, description), remapped keys included (for help)."""
        by_id: dict[str, list[str]] = {}
        for key, bindings in compat.key_bindings(self).items():
            for b in bindings:
                if b.id in self.DESCRIPTION_KEYS:
                    by_id.setdefault(b.id, []).append(key)
        remapped = compat.keymap(self.app)  # the settings' [ui.keymap], applied by Textual at lookup time
        rows = [
            (remapped.get(binding_id) or ",".join(by_id[binding_id]), tr(MESSAGES, desc, self.lang))
            for binding_id, desc in self.DESCRIPTION_KEYS.items()
            if binding_id in by_id
        ]
        move = [remapped.get(b.id, b.key) for b in JK_BINDINGS if isinstance(b, Binding) and b.id]
        rows.append((",".join(move), tr(MESSAGES, "k_move", self.lang)))
        rows.append(("ctrl+p", tr(MESSAGES, "k_palette", self.lang)))
        return rows

    def _desc(self, binding_id: str) -> str:
        return tr(MESSAGES, self.DESCRIPTION_KEYS[binding_id], self.lang)

    def compose(self) -> ComposeResult:
        services = self.services
        # The layout's classes before anything mounts: the widgets get their styles once, with the layout. Set
        # in `on_mount`, the class change restyled the whole screen before the first paint.
        self._set_layout(self.app.size.width >= WIDE_MIN_COLUMNS)
        yield StudioHeader(self._header_info(), lang=self.lang, clock=services.clock, id="studio-header")
        yield PaneTabs(
            *[Tab(tr(MESSAGES, f"pane_{name}", self.lang), id=f"tab-{name}") for name in PANES],
            active=f"tab-{PANES[self.active_pane]}",
            id="pane-tabs",
        )
        with Container(id="panes"):
            with self._pane("outline"):
                yield OutlineTree(self._rows(), lang=self.lang, id="outline")
            with self._pane("chapter"):
                yield ChapterView(lang=self.lang, id="chapter")
            with self._pane("diff"):
                yield StateDiffView(lang=self.lang, id="diff")
            with self._pane("scores"):
                yield ScoresView(lang=self.lang, id="scores")
        runner = PipelineRunner(
            self.project.root,
            services.make_agents,
            lang=self.lang,
            offline=services.offline,
            settings=services.settings,
            id="runner",
        )
        yield runner
        yield FileWatcher(self.project.root, id="file-watcher")
        yield RebuildQueue(self.project.root, services.make_agents, lang=self.lang, id="rebuild-queue")
        yield PlanRunner(self.project.root, services, lang=self.lang, ask_author=runner.decide, id="plan-runner")
        yield StudioFooter()

    def on_mount(self) -> None:
        self.edits = EditsFlow(self, self.rebuild_queue)
        self.plans = PlanFlow(self)
        self.imports = ExtractionFlow(self, self._extraction_screen)
        committed = self.project.committed_chapters()
        if committed:
            self.show_chapter(committed[-1], select=True)
        # a cursor move shows its chapter in the key's own frame (not a message's hops and a frame later)
        self.watch(self.outline, "cursor_chapter", self._cursor_on_chapter, init=False)
        self.focus_pane(self.active_pane)
        self.call_after_refresh(self.reload_marks)
        self.call_after_refresh(self.start_checks)
        self.call_after_refresh(self.imports.check)  # an imported book not fully extracted: a note that stays
        if self.note:
            self.notify(tr(MESSAGES, "note_kept", self.lang, note=self.note), timeout=10, markup=False)

    def on_screen_resume(self, event: ScreenResume) -> None:
        """Textual restyles the whole screen whenever it resumes (`Screen._on_screen_resume`, which runs after
        this handler), also when it is first pushed, although every widget was just styled as it mounted, with
        the layout's classes (`compose`): that first restyle is skipped (before the first paint). Later resumes
        (a dialog closed) restyle as before."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    def _extraction_screen(self, root: Path, estimate: ExtractionEstimate) -> Screen[Any]:
        # Imported when an extraction is offered, not before the first paint (the import's models load with it).
        from screens.import_progress import ExtractionScreen

        return ExtractionScreen(root, self.services, estimate, self.lang)

    def start_checks(self) -> None:
        """The checks after the cold start (lock, API key, interrupted chapter): `studio.tui.startup`."""
        from studio.tui.startup import run_startup_checks  # its checks' modules load after the first paint

        self.run_flow(run_startup_checks(self), group="startup")

    # ------------------------------------------------------------------ reactives

    def watch_selected(self, n: int | None) -> None:
        if n is not None:
            self.header.update_info(chapter=n)

    def watch_inflight(self) -> None:
        self.outline.refresh_rows(self._rows())

    def watch_marks(self) -> None:
        self.outline.refresh_rows(self._rows())
        self._show_marks()

    def _show_marks(self) -> None:
        """The selected chapter's marks line (edited, needs review and why, rebuild result, errors)."""
        n = self.selected
        self.chapter_view.show_marks(self.marks.lines(n, self.lang) if n is not None else [])

    def keep_note(self, chapter: int | None, kind: str, text: str) -> None:
        """Keep `text` on screen with the chapter (a toast alone would lose it): `ChapterMarks.with_note`."""
        self.marks = self.marks.with_note(chapter, kind, text)

    @property
    def needs_rebuild(self) -> set[int]:
        """Hand-edited and needs-review chapters (the outline's marks)."""
        return self.marks.chapters()

    # ------------------------------------------------------------------ accessors

    @property
    def outline(self) -> OutlineTree:
        return self.query_one("#outline", OutlineTree)

    @property
    def chapter_view(self) -> ChapterView:
        return self.query_one("#chapter", ChapterView)

    @property
    def diff_view(self) -> StateDiffView:
        return self.query_one("#diff", StateDiffView)

    @property
    def scores_view(self) -> ScoresView:
        return self.query_one("#scores", ScoresView)

    @property
    def header(self) -> StudioHeader:
        return self.query_one("#studio-header", StudioHeader)

    @property
    def runner(self) -> PipelineRunner:
        return self.query_one("#runner", PipelineRunner)

    @property
    def file_watcher(self) -> FileWatcher:
        return self.query_one("#file-watcher", FileWatcher)

    @property
    def rebuild_queue(self) -> RebuildQueue:
        return self.query_one("#rebuild-queue", RebuildQueue)

    @property
    def running(self) -> bool:
        return self.runner.running or self.planning

    def _rows(self) -> list[Any]:
        marks = self.marks
        return build_outline_rows(
            self.project, needs_rebuild=set(marks.edited), needs_review=marks.review_chapters(), inflight=self.inflight
        )

    def _header_info(self) -> HeaderInfo:
        project = self.project
        cp = project.checkpoint
        try:
            # The spend figures alone: the whole status report would also count words, read the scores and
            # run the cold-start checks, which the outline and the start-up checks do (once) themselves.
            figures = spend_figures(project)
            tokens = figures.input_tokens + figures.output_tokens
            cost = figures.cost_usd
            cache_share, prompt_updates = figures.cache.book, len(figures.prompt_updates)
            partial = figures.ledger_unreadable_lines > 0
        except StudioError:
            tokens, cost = 0, 0.0
            cache_share, prompt_updates = None, 0
            partial = False
        services = self.services
        chapter = self.selected or (cp.last_completed_chapter or None)
        return HeaderInfo(
            title=project.name,
            volume=project.current_volume,
            chapter=chapter,
            state=cp.orchestrator_state.value if hasattr(cp.orchestrator_state, "value") else str(cp.orchestrator_state),
            project_tokens=tokens,
            project_cost=cost,
            project_cost_partial=partial,
            cache_share=cache_share,
            prompt_updates=prompt_updates,
            provider=services.provider_name,
            offline=services.offline,
        )

    # ------------------------------------------------------------------ layout

    def on_resize(self, event: Resize) -> None:
        self._apply_layout(event.size.width)

    def _apply_layout(self, width: int) -> None:
        wide = width >= WIDE_MIN_COLUMNS
        if wide == self.wide:
            return
        self._set_layout(wide, update=True)
        self._show_active_pane()

    def _set_layout(self, wide: bool, *, update: bool = False) -> None:
        """The layout's classes on the screen (`update`: restyle the screen now; not before its widgets
        mount, which style them anyway)."""
        self.wide = wide
        self.set_class(wide, "-wide", update=update)
        self.set_class(not wide, "-narrow", update=update)

    def _pane(self, name: str) -> Pane:
        """The pane `name`, shown in the narrow layout when it is the active one (`_show_active_pane` keeps
        that class from then on)."""
        pane = Pane(name, tr(MESSAGES, f"pane_{name}", self.lang))
        pane.set_class(PANES.index(name) == self.active_pane, "-active", update=False)
        return pane

    def _show_active_pane(self) -> None:
        if self.has_class("-wide"):
            # All four panes show and the tab bar is hidden: nothing to restyle (a class change restyles a pane's
            # whole subtree; a tab change moves its underline). Going narrow calls this again.
            return
        for index, name in enumerate(PANES):
            self.query_one(f"#pane-{name}").set_class(index == self.active_pane, "-active")
        tabs = self.query_one(PaneTabs)
        tab_id = f"tab-{PANES[self.active_pane]}"
        if tabs.active != tab_id:
            tabs.active = tab_id

    @on(Tabs.TabActivated, "#pane-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if self.has_class("-wide"):
            return  # the tab bar is hidden and not kept in step (see `_show_active_pane`)
        tab_id = event.tab.id or ""
        if tab_id != self.query_one(PaneTabs).active:
            return  # a stale activation (we switched again since): ignore, or the two would ping-pong
        name = tab_id.removeprefix("tab-")
        if name in PANES and PANES.index(name) != self.active_pane:
            self.focus_pane(PANES.index(name))

    def pane_target(self, index: int) -> Widget:
        name = PANES[index]
        if name == "outline":
            return self.outline
        if name == "chapter":
            return self.chapter_view.text_area
        if name == "diff":
            return self.diff_view
        return self.scores_view

    def focus_pane(self, index: int) -> None:
        self.active_pane = index % len(PANES)
        self._show_active_pane()
        # `Screen.set_focus`, not `Widget.focus`: that one repaints all of the widget first (the chapter text)
        self.set_focus(self.pane_target(self.active_pane))

    def _focused_pane(self) -> int:
        pane = pane_of(self.focused)
        return PANES.index(pane.pane_name) if pane is not None else self.active_pane

    def watch_focused(self, focused: Widget | None) -> None:
        """Move the focused look (accent border and title) to the pane holding the focus.

        Repaints the two panes' borders and nothing inside them (`widgets.pane.Pane.show_focused`):
        `.pane:focus-within` made Textual restyle both panes' whole subtrees (`Screen._update_focus_styles`),
        and a class change made the usual way (`set_class`) restyles the node's subtree too. The widgets that
        gain and lose the focus look the same either way (`widgets.instant_keys.QuietFocus`), so they are not
        repainted either."""
        pane = pane_of(focused)
        previous = self._marked_pane
        if pane is previous:
            return
        self._marked_pane = pane
        for p in (previous, pane):
            if p is not None and p.is_attached:
                p.show_focused(p is pane)

    def action_focus_pane(self, index: int) -> None:
        self.focus_pane(index)

    def action_cycle_pane(self, step: int) -> None:
        self.focus_pane(self._focused_pane() + step)

    # ------------------------------------------------------------------ chapters

    def _chapter_title(self, n: int) -> str:
        row = find_chapter(self.outline.rows, n)
        title = row.title if row is not None else ""
        return tr(MESSAGES, "chapter_title", self.lang, n=n, title=title).rstrip()

    def show_chapter(self, n: int, *, select: bool = False) -> None:
        """Show chapter `n` in the chapter, diff and scores panes (the live draft if it is being written);
        `select`: also move the outline's cursor to it."""
        came_from = self.selected
        self.selected = n
        if select:
            self.outline.select_chapter(n)  # its cursor's watcher finds `n` selected: nothing shown twice
        title = self._chapter_title(n)
        view = self.chapter_view
        if self.running and n == self.inflight and self.draft_stage is not None:
            view.begin_stream(title, self.draft_text)
        else:
            try:
                text = self.project.chapter_text(n)
            except StudioError as exc:  # not UTF-8: say where, keep the studio up, never rewrite the file
                text = tr(MESSAGES, "unreadable", self.lang, n=n, error=exc)
                self.notify(text, severity="error", timeout=15, markup=False)
            view.show_text(text if text is not None else tr(MESSAGES, "planned", self.lang, n=n), title=title)
        try:
            self.diff_view.show_diff(state_diff_for_chapter(self.project, n))
        except StudioError as exc:
            self.diff_view.show_error(exc.text(self.lang))
        self.scores_view.show_scores(scores_for_chapter(self.project, n, history=self._score_history()))
        if self.header.info.chapter != n:  # `watch_selected` has named it already when `n` is a new selection
            self.header.update_info(chapter=n)
        self._show_marks()  # why it is marked stays under its title, not in a toast
        self._prepare_neighbours(n, came_from)

    def _score_history(self) -> list[tuple[int, float]]:
        """Every chapter's overall score, from the outline rows (`scores_for_chapter` reads no file for them)."""
        return [(c.number, c.overall) for v in self.outline.rows for c in v.chapters if c.overall is not None]

    # ------------------------------------------------------------------ neighbours, prepared while idle

    def _prepare_neighbours(self, n: int, came_from: int | None) -> None:
        """After `PREPARE_AFTER_S` with no other chapter shown, prepare the chapters before and after `n` in the
        outline (the one the cursor moves on to first): the chapter text typeset, the state diff replayed and
        wrapped, the scores wrapped, each pane keeping them with the texts it showed last. The next arrow key
        then only reads the file and finds the rest ready: a first visit costs what a revisit costs. Every
        cache is keyed by the text (the chapter's, the diff's, the scores'), never by a file's stat, so a file
        edited after it was prepared shows its new text. One neighbour per timer tick (a key waits for one at
        most); not while the pipeline runs (the draft's deltas come first)."""
        if self._prepare_timer is not None:
            self._prepare_timer.stop()
            self._prepare_timer = None
        numbers = [c.number for v in self.outline.rows for c in v.chapters if c.is_written]
        try:
            at = numbers.index(n)
        except ValueError:
            self._to_prepare = []
            return
        before = numbers[at - 1] if at > 0 else None
        after = numbers[at + 1] if at + 1 < len(numbers) else None
        ahead = (before, after) if came_from is not None and came_from > n else (after, before)  # moving up: above
        self._to_prepare = [m for m in ahead if m is not None]
        if self._to_prepare:
            # counted from the frame that shows `n`, not from the key: at a start, the first frame of 500 chapters
            # takes longer than `PREPARE_AFTER_S`, and preparing before it delayed the first paint by ~0.12 s
            self.call_after_refresh(self._start_preparing, self._to_prepare)

    def _start_preparing(self, wanted: list[int]) -> None:
        """`_prepare_neighbours`'s wait, once the chapter is on the screen; nothing if another chapter was shown
        since (its own list is then the one to prepare) or a wait is on already."""
        if wanted is self._to_prepare and self._prepare_timer is None and self.is_mounted:
            self._prepare_timer = self.set_timer(PREPARE_AFTER_S, self._prepare_next, name="prepare-neighbours")

    def _prepare_next(self) -> None:
        self._prepare_timer = None
        if not self._to_prepare or self.running or not self.is_mounted:
            self._to_prepare = []
            return
        m = self._to_prepare[0]
        try:
            text = self.project.chapter_text(m)
        except StudioError:
            text = None  # shown, it says what is wrong (`show_chapter`); nothing to typeset
        if text is not None and not self.chapter_view.prepare_text(text):
            # the panes are not laid out yet (a busy start): try again later
            self._prepare_timer = self.set_timer(PREPARE_AFTER_S, self._prepare_next, name="prepare-neighbours")
            return
        self._to_prepare.pop(0)
        try:
            self.diff_view.prepare_diff(state_diff_for_chapter(self.project, m))
        except StudioError:
            pass  # shown, the pane says what is wrong
        self.scores_view.prepare_scores(scores_for_chapter(self.project, m, history=self._score_history()))
        next_step = self._prepare_next if self._to_prepare else self._collect_if_due
        self._prepare_timer = self.set_timer(0.01, next_step, name="prepare-neighbours")

    def _collect_if_due(self) -> None:
        """The last idle step after a selection: a full garbage collection now when CPython would soon run one
        by itself (its count of generation-1 collections within 2 of the generation-2 threshold), so that it
        seldom lands inside the next key press. Measured on 500 chapters (160x48): one in about ten selections
        met a full collection, 6-20 ms of CPU over the objects made since the heap was frozen
        (`studio.tui.heap.settle_heap`); this collects only what is garbage and freezes nothing."""
        self._prepare_timer = None
        if gc.isenabled() and gc.get_count()[2] >= gc.get_threshold()[2] - 2:
            gc.collect()

    def _cursor_on_chapter(self, n: int | None) -> None:
        """The outline's cursor moved onto chapter `n` (`OutlineTree.cursor_chapter`, inside the key's handler)."""
        if n is not None and n != self.selected:
            self.show_chapter(n)

    @on(OutlineTree.ChapterSelected)
    def _chapter_selected(self, event: OutlineTree.ChapterSelected) -> None:
        """Enter on a chapter shows it again (a cursor move was shown by `_cursor_on_chapter`, at once; its
        message arrives later and may name a chapter the cursor has already left)."""
        event.stop()
        if event.activated:
            self.show_chapter(event.number)

    def reload(self) -> None:
        """Re-read the project (cold-start files only) and refresh outline, header and selected chapter."""
        try:
            self.project = Project.open(self.project.root, lang=self.lang)
        except StudioError as exc:
            self.notify(tr(MESSAGES, "reload_failed", self.lang, message=exc.text(self.lang)), severity="error")
            return
        self.outline.refresh_rows(self._rows())
        info = self._header_info()
        header = self.header
        header.update_info(
            title=info.title,
            volume=info.volume,
            project_tokens=info.project_tokens,
            project_cost=info.project_cost,
            project_cost_partial=info.project_cost_partial,
            cache_share=info.cache_share,
            prompt_updates=info.prompt_updates,
            state="running" if self.running else info.state,
        )

    # ------------------------------------------------------------------ actions: writing

    def _check_can_run(self) -> bool:
        if self.running:
            self.notify(tr(MESSAGES, "busy", self.lang), severity="warning")
            return False
        from studio.tui.startup import writing_blocked

        blocked = self.edits.busy() or writing_blocked(self.project.root, self.lang)
        if blocked is not None:
            self.notify(blocked, severity="warning", timeout=10, markup=False)
            return False
        services = self.services
        if services.key_missing():
            env = services.settings.provider.api_key_env if services.settings is not None else "ANTHROPIC_API_KEY"
            key = "no_key_served" if os.environ.get("NOVEL_STUDIO_SERVED") == "1" else "no_key"  # see serve_cmd
            self.notify(tr(MESSAGES, key, self.lang, env=env), severity="error", timeout=10)
            return False
        return True

    def start_run(self, request: RunRequest) -> None:
        """Start a run (after the checks of `_check_can_run`); the note given with `n` goes with it."""
        if not self._check_can_run():
            return
        if request.note is None and self.note:
            request = replace(request, note=self.note)
            self._note_in_run = self.note  # the file keeps it until the run commits a chapter with it
        self.note = None
        self.marks = self.marks.without_notes(None, "error", "paused")
        self.header.update_info(state="running", run_tokens=0, run_cost=0.0)
        self.draft_text = ""
        self.draft_stage = None
        self.runner.start(request)

    def action_write_next(self) -> None:
        self.plans.write(1)  # asks to plan first when the next chapter has no plan (studio.tui.plan_flow)

    def action_write_many(self) -> None:
        if not self._check_can_run():
            return
        services = self.services
        if services.offline or services.settings is None:
            def estimate(n: int) -> str:
                return tr(MESSAGES, "estimate_offline", self.lang)
        else:
            # its run-log models load when asked, not before the first paint
            from pipeline.estimate import estimate_chapter_cost

            cost = estimate_chapter_cost(self.project.paths, services.settings, offline=False)

            def estimate(n: int) -> str:
                # Never more chapters than the volume has left: the run stops at the volume's end.
                return tr(MESSAGES, "estimate", self.lang, cost=cost.for_chapters(n))

        def answered(n: int | None) -> None:
            if n:
                self.plans.write(n)  # asks to plan first when the next chapter has no plan

        from screens.prompt_dialogs import NumberDialog  # the dialogs load when first shown

        self.app.push_screen(
            NumberDialog(50, estimate, self.lang, title=tr(MESSAGES, "how_many", self.lang)), answered
        )

    def action_note(self) -> None:
        def answered(text: str | None) -> None:
            if text is None:
                return
            self.note = text or None
            self._save_note(self.note)
            self.notify(tr(MESSAGES, "note_set" if text else "note_cleared", self.lang))

        from screens.prompt_dialogs import TextDialog

        self.app.push_screen(
            TextDialog(
                tr(MESSAGES, "note_title", self.lang),
                self.lang,
                initial=self.note or "",
                placeholder=tr(MESSAGES, "note_placeholder", self.lang),
            ),
            answered,
        )

    def _save_note(self, text: str | None) -> None:
        try:
            from studio.models.author_note import save_author_note

            save_author_note(ProjectPaths(self.project.root), text)
        except OSError as exc:  # a read-only folder: the note still goes to the next run of this session
            self.notify(str(exc), severity="error", markup=False)

    def action_goto(self) -> None:
        def answered(n: int | None) -> None:
            if n is not None:
                self.show_chapter(n, select=True)

        from screens.prompt_dialogs import GotoDialog

        self.app.push_screen(GotoDialog(self.outline.chapter_numbers, self.lang, current=self.selected), answered)

    def action_copy_chapter(self) -> None:
        n = self.selected
        text = self.chapter_view.text if n is not None else ""
        if n is not None and n != self.inflight:
            try:
                text = self.project.chapter_text(n) or ""
            except StudioError:
                text = ""  # unreadable: the pane says why; never copy the error message as the chapter
        if n is None or not text.strip():
            self.notify(tr(MESSAGES, "nothing_to_copy", self.lang), severity="warning")
            return
        self.app.copy_to_clipboard(text)
        self.notify(tr(MESSAGES, "copied", self.lang, n=n, chars=chars_text(word_count(text), self.lang)))

    # ------------------------------------------------------------------ actions: review, undo, edit, search, export
    # (the flows live in studio.tui.review_flow, studio.tui.editor, screens.search_screen, screens.export_dialog)

    def action_review(self) -> None:
        from studio.tui.review_flow import start_review  # the review and undo flows load when first used

        start_review(self)

    def action_undo(self) -> None:
        from studio.tui.review_flow import start_undo

        start_undo(self)

    def action_edit_chapter(self) -> None:
        from studio.tui.editor import edit_chapter

        edit_chapter(self, self.app)

    def action_mark_reviewed(self) -> None:
        """The author checked a chapter that a hand edit may have contradicted: drop its "needs review" mark."""
        n = self.selected
        if n is None:
            return
        from studio.models.review_marks import clear_review_mark

        if clear_review_mark(ProjectPaths(self.project.root), n):
            self.reload_marks()
            self.notify(tr(MESSAGES, "marked_reviewed", self.lang, n=n))
        else:
            self.notify(tr(MESSAGES, "not_marked", self.lang, n=n))

    def action_search(self) -> None:
        def answered(hit: SearchHit | None) -> None:
            if hit is not None:
                self.show_chapter(hit.chapter, select=True)
                if hit.source == "chapter":  # go to the hit, the match selected (a summary hit: the chapter)
                    start, end = hit.spans[0] if hit.spans else (0, 0)
                    self.call_after_refresh(self.chapter_view.show_match, hit.line, hit.snippet[start:end])

        # loads on the first search, not before the first paint
        from screens.search_screen import SearchScreen

        self.app.push_screen(SearchScreen(self.project.root, self.lang), answered)

    def action_findings(self) -> None:
        """The checks' findings; picking one shows its chapter with the cursor on it (issue 8)."""
        # imported here, not at the studio's start: the checks it runs load before its first use, not the first paint
        from screens.findings_screen import FindingsScreen
        from studio.checks.findings_list import text_location

        def answered(finding: Finding | None) -> None:
            if finding is None or finding.chapter is None:
                return
            self.show_chapter(finding.chapter, select=True)
            where = text_location(self.chapter_view.text, finding)
            if where is not None:
                self.call_after_refresh(self._select_finding, where, len(finding.text))

        def fixed(n: int) -> None:  # an accepted punctuation fix rewrote chapter n: show the new text
            if self.selected == n:
                self.show_chapter(n)

        screen = FindingsScreen(
            self.project.root, self.project.committed_chapters(), self.lang, on_fixed=fixed, busy=lambda: self.running
        )
        self.app.push_screen(screen, answered)

    def _select_finding(self, where: tuple[int, int], length: int) -> None:
        # the reader shows no cursor: the finding's text is selected (highlighted) and scrolled into the middle
        # `where` is in the file's text; the pane shows it typeset, so both ends are mapped to display places
        view = self.chapter_view
        line, column = where[0] + 1, where[1]
        area = view.text_area
        area.selection = Selection(view.display_row(line, column), view.display_row(line, column + length))
        area.scroll_cursor_visible(center=True, animate=False)

    def action_export(self, chapters: list[int] | None = None) -> None:
        def answered(result: Any) -> None:
            if result is not None:
                self.notify(result_message(result, self.lang), timeout=10)

        # loads on the first export, not before the first paint
        from screens.export_dialog import ExportDialog, result_message

        chosen = chapters if chapters else self.project.committed_chapters()
        dialog = ExportDialog(self.project.root, self.project.name, self.lang, chapters=chosen)
        self.app.push_screen(dialog, answered)

    def action_stop(self) -> None:
        if not self.running:
            return

        def answered(yes: bool | None) -> None:
            if yes and self.running:
                self.runner.stop()
                self.plan_runner.stop()

        from screens.prompt_dialogs import ConfirmDialog

        self.app.push_screen(ConfirmDialog(tr(MESSAGES, "confirm_stop", self.lang), self.lang), answered)

    def action_help(self) -> None:
        from screens.help_screen import HelpScreen

        self.app.push_screen(HelpScreen(self.binding_rows(), self.lang))

    def action_quit_studio(self) -> None:
        if not self.running:
            self.app.exit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.runner.stop()
                self.plan_runner.stop()
                self.app.exit()

        from screens.prompt_dialogs import ConfirmDialog

        self.app.push_screen(ConfirmDialog(tr(MESSAGES, "confirm_quit", self.lang), self.lang), answered)

    # ------------------------------------------------------------------ pipeline events

    @on(StageRetrying)
    def _stage_retrying(self, message: StageRetrying) -> None:
        message.stop()
        self.stage_retrying(message.stage, message.attempt, message.error)

    def stage_retrying(self, stage: str, attempt: int, error: str) -> None:
        """A stage failed and is retried (seed 003 10.3): a streaming stage starts its text over, so the
        failed attempt's partial text does not stay in front of the new one."""
        log_line(self.project.root, f"retry {attempt}: stage {stage}: {error}")
        self.notify(tr(MESSAGES, "stage_retry", self.lang, stage=stage_name(stage, self.lang), attempt=attempt),
                    severity="warning")
        if stage in STREAM_STAGES and self.draft_stage is not None:
            self.draft_text = ""
            if self.inflight is not None and self.selected == self.inflight and self.chapter_view.is_streaming:
                self.chapter_view.begin_stream(self._chapter_title(self.inflight))

    @on(PipelineEventPosted)
    def _pipeline_event(self, message: PipelineEventPosted) -> None:
        message.stop()
        event = message.event
        header = self.header
        if isinstance(event, StageStarted):
            header.start_stage(event.stage)
            if event.chapter != self.inflight:
                self.inflight = event.chapter
                if self.selected != event.chapter:
                    self.selected = None  # let the selection below show the live draft
                    self.outline.select_chapter(event.chapter)
            if event.stage in STREAM_STAGES:
                self.draft_text = ""
                self.draft_stage = event.stage
                if self.selected in (None, event.chapter):
                    self.selected = event.chapter
                    self.chapter_view.begin_stream(self._chapter_title(event.chapter))
                    header.update_info(chapter=event.chapter)
        elif isinstance(event, TextDelta):
            self.draft_text += event.text
            if self.selected == event.chapter and self.chapter_view.is_streaming:
                self.chapter_view.append(event.text)
        elif isinstance(event, StageFinished):
            header.stop_stage(event.stage)  # a stage running beside it (summarize / refine) stays shown
            tokens = 0
            if event.usage is not None:
                tokens = event.usage.total_in() + (event.usage.output_tokens or 0)
            header.update_info(
                run_tokens=header.info.run_tokens + tokens,
                run_cost=header.info.run_cost + (event.cost_usd or 0.0),
            )
            if event.stage in STREAM_STAGES and self.selected == event.chapter and self.chapter_view.is_streaming:
                self.chapter_view.end_stream()
        elif isinstance(event, GateDecided):
            self.notify(
                tr(MESSAGES, "gate", self.lang, chapter=event.chapter, overall=event.overall,
                   action=gate_action_name(event.action, self.lang),
                   reason=gate_reason(event.action, event.overall, event.revision_count, self.lang)),
                timeout=4,
            )
        elif isinstance(event, ChapterCommitted):
            if self._note_in_run is not None:  # the note was written into this chapter: used
                self._note_in_run = None
                if self.note is None:
                    self._save_note(None)
            self.marks = self.marks.without_notes(event.chapter, "error", "paused").without_notes(None, "error")
            self.inflight = None
            self.draft_stage = None
            self.draft_text = ""
            self.reload()
            self.show_chapter(event.chapter, select=True)
            overall = "-" if event.overall is None else f"{event.overall:.2f}"
            self.notify(
                tr(MESSAGES, "committed", self.lang, n=event.chapter, words=chars_text(event.word_count, self.lang),
                   overall=overall)
            )
        elif isinstance(event, StageError):
            log_line(self.project.root, f"stage error: chapter={event.chapter} stage={event.stage} "
                     f"kind={event.kind} retrying={event.retrying}: {event.message}")
            text = tr(
                MESSAGES, "stage_error", self.lang, chapter=event.chapter or "-", stage=stage_name(event.stage, self.lang),
                message=error_text(event.kind, event.message, self.lang),
            )
            self.notify(text, severity="warning" if event.retrying else "error", timeout=8)
            if not event.retrying:
                header.stop_stage(event.stage)
                self.keep_note(event.chapter, "error", text)
            from studio.tui.startup import KEY_ERROR_KINDS, ask_key_problem

            if event.kind in KEY_ERROR_KINDS and not event.retrying:
                rejected = event.message if event.kind == "auth" else None
                self.run_worker(ask_key_problem(self, rejected), group="key", exit_on_error=False)
        elif isinstance(event, Paused):
            log_line(self.project.root, f"paused: chapter={event.chapter} kind={event.kind}: {event.message}")
            header.update_info(state="paused")
            paused = tr(MESSAGES, "run_paused", self.lang, message=event.message)
            self.notify(paused, severity="warning", timeout=8)
            self.keep_note(event.chapter, "paused", paused)
        elif isinstance(event, Notice):
            log_line(self.project.root, f"notice ({event.level}): {event.message}")
            if event.level in ("error", "warning"):
                self.notify(event.message, severity="error" if event.level == "error" else "warning")
            else:
                self.notify(event.message)

    @on(RunEnded)
    def _run_ended(self, message: RunEnded) -> None:
        message.stop()
        self.header.stop_stage()
        was_streaming = self.chapter_view.is_streaming
        if self._note_in_run is not None:  # no chapter was committed with it: it stays the next one's note
            self.note = self.note or self._note_in_run
            self._note_in_run = None
        self.inflight = None
        self.draft_stage = None
        self.reload()
        self.header.update_info(state=self.project.checkpoint.orchestrator_state.value)
        if was_streaming:
            self.chapter_view.end_stream()
        self.edits.pump()  # rebuilds queued while the run held the lock
        if not self.app.is_headless:
            self.call_after_refresh(settle_heap)  # the run's garbage freed, what it loaded frozen (studio.tui.heap)
        if message.cancelled:
            self.notify(tr(MESSAGES, "run_stopped", self.lang), severity="warning")
        elif message.error is not None:
            text = tr(MESSAGES, "run_error", self.lang, message=message.error, log=str(LOG_FILE))
            self.keep_note(None, "error", text)
            self.chapter_view.show_text(text, title=self._chapter_title(self.selected) if self.selected else "")
            self.notify(text, severity="error", timeout=10)
        elif message.result is not None:
            result = message.result
            if result.error is not None:
                self.notify(result.error, severity="error", timeout=10)
            elif not result.paused:
                self.notify(tr_count(MESSAGES, "run_done", self.lang, len(result.committed), n=len(result.committed)))
            if result.stopped_at_volume_end:
                self.ask_volume_end(result.volume or self.project.checkpoint.current_volume, result.brief)

    def ask_volume_end(self, volume: int, brief: Any = None) -> None:
        """The run stopped at the end of the volume: show what was written and offer what can be done next."""
        # loads at a volume's end, not before the first paint
        from screens.volume_end import volume_end_question
        from studio.tui.volume_review_flow import volume_review_flow

        question = volume_end_question(self.project, volume, brief, self.lang)

        def answered(key: str | None) -> None:
            chapters = question.data.get("chapters")
            if key == "export" and isinstance(chapters, list):
                self.action_export(chapters=chapters)
            elif key == "review":
                self.run_flow(volume_review_flow(self, volume, lambda v: self.post_message(PlanRequested(volume=v))),
                              group="volume-review")

        from screens.decision_dialog import DecisionDialog

        self.app.push_screen(DecisionDialog(question, self.lang), answered)


    # ------------------------------------------------------------------ edits, watcher, rebuilds

    @on(ChapterEdited)
    def _chapter_edited_message(self, message: ChapterEdited) -> None:
        message.stop()
        self.chapter_edited(message.chapter, message.source)

    @on(ProjectChanged)
    def _project_changed(self, message: ProjectChanged) -> None:
        message.stop()
        self.edits.changes(message.changes)

    @on(WatchFailed)
    def _watch_failed(self, message: WatchFailed) -> None:
        message.stop()
        self.edits.watch_failed(message.message)

    @on(RebuildStarted)
    def _rebuild_started(self, message: RebuildStarted) -> None:
        message.stop()
        self.header.start_stage("rebuild")

    @on(RebuildStage)
    def _rebuild_stage(self, message: RebuildStage) -> None:
        """A rebuild's stage on the header (`重建·摘要`), like a run's."""
        message.stop()
        stage = f"rebuild:{message.stage}"
        if message.running:
            self.header.start_stage(stage)
            self.header.stop_stage("rebuild")
        else:
            self.header.stop_stage(stage)

    @on(RebuildFinished)
    def _rebuilt(self, message: RebuildFinished) -> None:
        message.stop()
        for stage in self.header.running_stages:
            if stage.startswith("rebuild"):
                self.header.stop_stage(stage)
        self.edits.rebuilt(message)
        n = message.chapter
        if message.error is not None or message.result is None:  # what a rebuild did stays with its chapter
            self.keep_note(n, "rebuild", tr(WATCH_MESSAGES, "rebuild_failed", self.lang, n=n, message=message.error))
        elif self.edits.impact_report:
            self.keep_note(n, "rebuild", self.edits.impact_report)

    # ------------------------------------------------------------------ planning (issue 7): studio.tui.plan_flow

    @property
    def plan_runner(self) -> PlanRunner:
        return self.query_one("#plan-runner", PlanRunner)

    @property
    def planning(self) -> bool:
        return self.plan_runner.running

    def can_start(self) -> bool:
        return self._check_can_run()

    def start_plan(self, volume: int | None, note: str) -> None:
        self.header.update_info(state="VOL_PLANNING", run_tokens=0, run_cost=0.0)
        self.plan_runner.start_plan(volume, note)

    def start_quick_start(self, request: QuickStartRequest) -> None:
        self.header.update_info(state="QUICK_START", run_tokens=0, run_cost=0.0)
        self.plan_runner.start_quick_start(request)

    @on(PlanRequested)
    def _plan_requested(self, message: PlanRequested) -> None:
        message.stop()
        self.plans.plan(message.volume, message.note)

    @on(QuickStartRequested)
    def _quick_start_requested(self, message: QuickStartRequested) -> None:
        message.stop()
        self.plans.quick_start(message.request)

    @on(PlanEnded)
    def _plan_ended(self, message: PlanEnded) -> None:
        message.stop()
        self.header.stop_stage()
        if self.chapter_view.is_streaming:
            self.chapter_view.end_stream()
        self.inflight = None
        self.draft_stage = None
        self.plans.ended(message)  # reloads the project (and may start planning volume 1)
        if not self.planning:
            self.header.update_info(state=self.project.checkpoint.orchestrator_state.value)
        self.edits.pump()  # rebuilds queued while the session held the lock

    # ------------------------------------------------------------------ import (issue 10): studio.tui.import_flow

    def action_extract(self) -> None:
        self.imports.offer()

    @on(ExtractionRequested)
    def _extraction_requested(self, message: ExtractionRequested) -> None:
        message.stop()
        self.imports.offer()

    def drop_note(self, kind: str) -> None:
        self.marks = self.marks.without_notes(None, kind)

    @property
    def extract_key(self) -> str:
        return compat.keymap(self.app).get("extract") or "x"

    # ------------------------------------------------------------------ StudioHost / EditsHost

    async def ask(self, question: Question) -> str:
        from screens.decision_dialog import (
            ask,  # the dialogs load when first shown, not before the first paint
        )

        return await ask(self.app, question, self.lang)

    async def show_modal(self, screen: Screen[T]) -> T | None:
        return await self.app.push_screen_wait(screen)

    def run_flow(self, flow: Coroutine[Any, Any, object], *, group: str) -> None:
        self.run_worker(flow, group=group, exclusive=True, exit_on_error=False)

    def chapter_edited(self, n: int, source: EditSource) -> None:
        """One path for every source (watcher, `e`, review): `EditsFlow.chapter_edited`."""
        self.edits.chapter_edited(n, source)

    def mark_edited(self, n: int, edited: bool) -> None:
        self.marks = self.marks.with_edited(n, edited)

    def reload_marks(self) -> None:
        """Re-read the review marks file (after a rebuild, or the author cleared one)."""
        self.marks = self.marks.with_review(read_review_marks(self.project.root))

    def notify_sticky(self, text: str, title: str) -> StickyNote:
        notification = Notification(text, title, "error", STICKY_TIMEOUT, markup=False)
        compat.post_notification(self.app, notification)
        return notification

    def withdraw(self, note: StickyNote) -> None:
        if isinstance(note, Notification):
            compat.withdraw_notification(self.app, note)

    def write_log(self, message: str) -> None:
        log_line(self.project.root, message)

    def confirm(
        self, text: str, *, title: str, yes_label: str, no_label: str, answered: ConfirmCallback
    ) -> None:
        from screens.prompt_dialogs import ConfirmDialog

        dialog = ConfirmDialog(text, self.lang, title=title, default=True, yes_label=yes_label, no_label=no_label)
        self.app.push_screen(dialog, answered)

    def log_interrupt(self) -> None:
        log_line(self.project.root, "run interrupted by a signal (SIGINT/SIGTERM/SIGHUP) or a vanished terminal; the chapter stays resumable")

    def provider_changed(self) -> None:
        """The App switched provider (offline): the runner and the header follow."""
        self.runner.offline = self.services.offline
        self.header.update_info(offline=self.services.offline, provider=self.services.provider_name)


STICKY_TIMEOUT = 24 * 3600.0
"""A broken file's notification stays until the file is fixed (or the author dismisses it)."""

__all__ = ["MESSAGES", "PANES", "MainScreen", "Pane", "PaneTabs", "Path", "Severity"]
