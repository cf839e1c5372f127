"""The approval screen of a staged volume plan (issue 7 item 4): answers one `QuestionKind.PLAN_APPROVAL`.

`PlanApprovalScreen(question, lang, *, names=None, storylines=None, root=None)` (character and storyline names by
id: the plan names both by id) is a `ModalScreen[str]` that dismisses with
an answer of the plan-approval protocol (`pipeline.decisions.PlanAnswer.encode`):

- `y` approve and apply (asked once more when the apply would replace files the author edited by hand);
- `k` change the chapter count: a number dialog (1..`MAX_CHAPTERS`, the current count first, the estimated cost
  of writing that many chapters shown live) -> `k:<count>`;
- `r` re-plan with a note: a text dialog (`PlanNoteDialog`; ctrl+o writes a long note in `$EDITOR`) -> `r:<note>`;
- `e` edit the staged outline (`question.data["outline_path"]`) in `$EDITOR` (the studio is suspended meanwhile,
  `studio.tui.editor.launch_editor`) -> `e` when the file changed (the session re-checks it and asks again);
- `n` / escape cancel: asked once more (default no) -> `n` (the session discards the staged plan).

`k` changes the count, as in the CLI (`plan` asks y / k / r / n); the plan scrolls with j / ↓ / ↑ / PgUp / PgDn /
Home / End. What is shown comes from the question alone: `question.data["plan"]` is the staged plan as
`novel-studio plan --json` prints it (chapters with heading, storyline, POV, location, conflict, payoff, hook,
foreshadowing; threads; new characters; warnings; the estimated cost of writing the volume); `data["diff"]` (the
volume's outline now -> as planned, a unified diff) and `data["overwrites"]` (files the author edited that the
apply would replace, each `{"path", "diff"}`) are shown first when present. `question.facts` are the plan as
text lines for a terminal: shown only when the question carries no `plan` data. `studio.tui.plan_text` renders
it without a screen; `PlanView` shows it folded the Chinese way (`fold_lines`), once per width, and renders only
the lines on screen, so a 500-chapter plan opens about as fast as a short one (`bench/bench_plan_approval.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Resize
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Label, TextArea

from pipeline.decisions import PlanAnswer, Question, QuestionKind
from screens.prompt_dialogs import ConfirmDialog, FoldedText, NumberDialog, TextDialog
from studio.errors import StudioError
from studio.fileio import atomic_write_text, read_text
from studio.i18n import Catalog, Lang, tr, tr_count
from studio.tui.editor import EditorError, launch_editor
from studio.tui.plan_text import (
    fold_lines,
    overwrites_of,
    plan_chapter_count,
    plan_summary,
    plan_text,
    write_cost_per_chapter,
)

__all__ = ["MAX_CHAPTERS", "MESSAGES", "NOTE_FILE", "PlanApprovalScreen", "PlanNoteDialog", "PlanView"]

MAX_CHAPTERS = 500
"""The most chapters a volume may be planned with (the quick-start request's bound too)."""
NOTE_FILE = Path(".novel-studio") / "plan-note.md"
"""Where a long re-plan note is written in `$EDITOR` (kept, so nothing the author wrote is lost)."""

MESSAGES: Catalog = {
    "title": ("批准第 {volume} 卷的计划吗？", "Approve the plan of volume {volume}?"),
    "confirm_overwrite": (
        "批准会替换 {n} 个你手动改过的文件（旧文件备份到 .novel-studio/plan-backup/）。确定批准？",
        "Approving replaces {n} files you edited by hand (backed up to .novel-studio/plan-backup/). Approve?",
    ),
    "confirm_overwrite_one": (
        "批准会替换 {n} 个你手动改过的文件（旧文件备份到 .novel-studio/plan-backup/）。确定批准？",
        "Approving replaces {n} file you edited by hand (backed up to .novel-studio/plan-backup/). Approve?",
    ),
    "approve": ("批准", "Approve"),
    "hint": (
        "y 批准 · k 改章数 · r 提意见重新规划 · e 编辑大纲 · n 取消 · j↑↓ PgDn 滚动",
        "y approve · k count · r re-plan · e edit · n cancel · j↑↓ PgDn scroll",
    ),
    "count_title": ("本卷改为几章？（会重新规划）", "How many chapters in the volume? (re-plans)"),
    "count_cost": ("写 {n} 章预计 ${cost:.2f}", "{n} chapters: about ${cost:.2f}"),
    "count_free": ("离线：不花钱", "offline: free"),
    "note_title": ("修改意见（据此重新规划）", "What to change (the plan is made again with it)"),
    "note_placeholder": ("例如：第 5 章之前让女主登场；节奏放慢", "e.g. bring the heroine in before chapter 5; slower pace"),
    "note_hint": (
        "Ctrl+S 保存并重新规划 · Ctrl+O 在 $EDITOR 中写长意见 · Esc 取消",
        "Ctrl+S save and re-plan · Ctrl+O write a long note in $EDITOR · Esc cancel",
    ),
    "confirm_cancel": (
        "取消规划并丢弃这份计划？已写的章节不受影响。",
        "Cancel planning and discard this plan? Written chapters are not affected.",
    ),
    "confirm_cancel_title": ("取消规划", "Cancel planning"),
    "discard": ("丢弃计划", "Discard the plan"),
    "keep": ("继续查看", "Keep reviewing"),
    "no_outline": ("找不到暂存的大纲文件，无法编辑", "The staged outline file is missing; nothing to edit"),
    "unchanged": ("大纲没有改动", "The outline was not changed"),
    "cannot_suspend": (
        "这个终端无法挂起，不能在这里打开编辑器。请在别的窗口编辑 {path}，保存后按 e",
        "This terminal cannot be suspended, so the editor cannot open here. Edit {path} in another window, "
        "then press e",
    ),
    "k_approve": ("批准", "Approve"),
    "k_count": ("改章数", "Chapter count"),
    "k_replan": ("重新规划", "Re-plan"),
    "k_edit": ("编辑大纲", "Edit outline"),
    "k_cancel": ("取消", "Cancel"),}


class PlanView(ScrollView, can_focus=False):
    """A long styled text, folded once per width and rendered line by line (only the lines on screen)."""

    DEFAULT_CSS = """
    PlanView {
        height: 1fr;
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
    }
    """

    def __init__(self, text: Text, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = text
        self.lines: list[Text] = []
        self._width = -1
        self._strips: dict[int, Strip] = {}

    @property
    def plain(self) -> str:
        return "\n".join(line.plain for line in self.lines)

    def _fold(self, width: int) -> None:
        if width == self._width or width <= 0:
            return
        self._width = width
        self.lines = fold_lines(self.text, width)
        self._strips.clear()
        self.virtual_size = Size(width, len(self.lines))

    def on_mount(self) -> None:
        self._fold(self.scrollable_content_region.width)

    def on_resize(self, event: Resize) -> None:
        self._fold(self.scrollable_content_region.width)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        self._fold(width)
        index = y + self.scroll_offset.y
        if index >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        strip = self._strips.get(index)
        if strip is None:
            line = self.lines[index]
            strip = Strip(line.render(self.app.console), line.cell_len)
            strip = strip.adjust_cell_length(width).apply_style(self.rich_style)
            self._strips[index] = strip
        return strip


class PlanNoteDialog(TextDialog):
    """The re-plan note: a `TextDialog` whose ctrl+o writes the note in `$EDITOR` (long notes), kept in
    `notes_dir/.novel-studio/plan-note.md`, and brought back into the dialog to submit."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+o", "editor", show=False, priority=True)]

    def __init__(self, lang: Lang = "zh", *, root: Path | None = None, initial: str = "") -> None:
        super().__init__(
            tr(MESSAGES, "note_title", lang),
            lang,
            initial=initial,
            placeholder=tr(MESSAGES, "note_placeholder", lang),
        )
        self.root = root

    def on_mount(self) -> None:
        self.query_one(".dialog-hint", Label).update(tr(MESSAGES, "note_hint", self.lang))

    def action_editor(self) -> None:
        if self.root is None:
            return
        area = self.query_one(TextArea)
        path = self.root / NOTE_FILE
        try:
            atomic_write_text(path, area.text)
            ran = launch_editor(self.app, path, lang=self.lang)
        except (OSError, EditorError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        if not ran:
            self.notify(tr(MESSAGES, "cannot_suspend", self.lang, path=path), severity="warning", markup=False)
            return
        try:
            text = read_text(path)
        except (OSError, StudioError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        area.load_text(text.rstrip("\n"))
        area.refresh()
        area.move_cursor(area.document.end)


class PlanApprovalScreen(ModalScreen[str]):
    """Show a staged volume plan and answer its `PLAN_APPROVAL` question (see the module docstring)."""

    DEFAULT_CSS = """
    PlanApprovalScreen {
        align: center middle;
    }
    PlanApprovalScreen > #approval-box {
        width: 100%;
        max-width: 120;
        height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    PlanApprovalScreen #approval-title {
        text-style: bold;
        height: auto;
    }
    PlanApprovalScreen #approval-summary {
        height: auto;
        color: $text-warning;
        border-bottom: solid $primary-darken-2;
    }
    PlanApprovalScreen #approval-hint {
        color: $text-muted;
        height: auto;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "approve", "批准", id="plan_approve"),
        Binding("k", "count", "改章数", id="plan_count"),
        Binding("r", "replan", "重新规划", id="plan_replan"),
        Binding("e", "edit", "编辑大纲", id="plan_edit"),
        Binding("n,escape", "cancel", "取消", id="plan_cancel"),
        Binding("j,down", "scroll(1)", show=False),
        Binding("up", "scroll(-1)", show=False),
        Binding("pagedown,space", "page(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("home", "edge(0)", show=False),
        Binding("end", "edge(1)", show=False),
    ]

    def __init__(
        self,
        question: Question,
        lang: Lang = "zh",
        *,
        names: Mapping[str, str] | None = None,
        storylines: Mapping[str, str] | None = None,
        root: Path | None = None,
    ) -> None:
        super().__init__()
        if question.kind is not QuestionKind.PLAN_APPROVAL:
            raise ValueError(f"not a plan-approval question: {question.kind}")
        self.question = question
        self.lang: Lang = lang
        self.names = dict(names or {})  # character id -> name
        self.storylines = dict(storylines or {})  # storyline id -> name
        self.root = root
        self.note = ""  # the last note typed, offered again if the author opens the note dialog twice
        self._answered = False

    # -- content ---------------------------------------------------------------------------------------------

    @property
    def plan(self) -> Mapping[str, object]:
        plan = self.question.data.get("plan")
        return plan if isinstance(plan, Mapping) else {}

    @property
    def volume(self) -> object:
        return self.question.data.get("volume", self.plan.get("volume", "?"))

    @property
    def outline_path(self) -> Path | None:
        """The staged outline (a relative path is the project's)."""
        value = self.question.data.get("outline_path")
        if not isinstance(value, str | Path) or not str(value):
            return None
        path = Path(value)
        return self.root / path if not path.is_absolute() and self.root is not None else path

    @property
    def body(self) -> PlanView:
        return self.query_one("#approval-body", PlanView)

    def compose(self) -> ComposeResult:
        lang = self.lang
        title = self.question.title_zh if lang == "zh" else (self.question.title_en or self.question.title_zh)
        with Vertical(id="approval-box"):
            yield FoldedText(title or tr(MESSAGES, "title", lang, volume=self.volume), id="approval-title")
            overwrites = overwrites_of(self.question.data)
            yield FoldedText(plan_summary(self.plan, lang, overwrites=len(overwrites)), id="approval-summary")
            diff = self.question.data.get("diff")
            text = plan_text(
                self.plan,
                lang,
                names=self.names,
                storylines=self.storylines,
                facts=[] if self.plan else list(self.question.facts),  # the facts repeat the plan as text
                diff=diff if isinstance(diff, str) else "",
                overwrites=overwrites,
            )
            yield PlanView(text, id="approval-body")
            yield FoldedText(tr(MESSAGES, "hint", lang), keys=True, id="approval-hint")

    def on_mount(self) -> None:
        self.app.bell()  # a question waits (the session may have run for a while)

    # -- answering -------------------------------------------------------------------------------------------

    def answer(self, answer: PlanAnswer) -> None:
        """Dismiss with the encoded answer (once)."""
        if self._answered:
            return
        self._answered = True
        self.dismiss(answer.encode())

    def action_approve(self) -> None:
        overwrites = overwrites_of(self.question.data)
        if not overwrites:
            self.answer(PlanAnswer("y"))
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.answer(PlanAnswer("y"))

        dialog = ConfirmDialog(
            tr_count(MESSAGES, "confirm_overwrite", self.lang, len(overwrites), n=len(overwrites)),
            self.lang,
            default=False,
            yes_label=tr(MESSAGES, "approve", self.lang),
            no_label=tr(MESSAGES, "keep", self.lang),
        )
        self.app.push_screen(dialog, answered)

    def action_count(self) -> None:
        per = write_cost_per_chapter(self.plan)

        def estimate(n: int) -> str:
            if per is None:
                return ""
            if per == 0:
                return tr(MESSAGES, "count_free", self.lang)
            return tr(MESSAGES, "count_cost", self.lang, n=n, cost=per * n)

        def answered(count: int | None) -> None:
            if count:
                self.answer(PlanAnswer("k", count=count))

        current = plan_chapter_count(self.plan) or 1
        dialog = NumberDialog(
            MAX_CHAPTERS, estimate, self.lang, title=tr(MESSAGES, "count_title", self.lang),
            initial=min(current, MAX_CHAPTERS),
        )
        self.app.push_screen(dialog, answered)

    def action_replan(self) -> None:
        def answered(note: str | None) -> None:
            if note is None:
                return
            self.note = note
            if note.strip():
                self.answer(PlanAnswer("r", note=note.strip()))

        self.app.push_screen(PlanNoteDialog(self.lang, root=self.root, initial=self.note), answered)

    def action_edit(self) -> None:
        path = self.outline_path
        if path is None or not path.is_file():
            self.notify(tr(MESSAGES, "no_outline", self.lang), severity="warning")
            return
        before = path.read_bytes()
        try:
            ran = launch_editor(self.app, path, lang=self.lang)
        except EditorError as exc:
            self.notify(str(exc), severity="error", timeout=10, markup=False)
            return
        if not ran:
            self.notify(tr(MESSAGES, "cannot_suspend", self.lang, path=path), severity="warning", markup=False)
            return
        try:
            after = path.read_bytes()
        except OSError:
            after = b""
        if after == before:
            self.notify(tr(MESSAGES, "unchanged", self.lang))
            return
        self.answer(PlanAnswer("e"))

    def action_cancel(self) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self.answer(PlanAnswer("n"))

        dialog = ConfirmDialog(
            tr(MESSAGES, "confirm_cancel", self.lang),
            self.lang,
            title=tr(MESSAGES, "confirm_cancel_title", self.lang),
            default=False,
            yes_label=tr(MESSAGES, "discard", self.lang),
            no_label=tr(MESSAGES, "keep", self.lang),
        )
        self.app.push_screen(dialog, answered)

    # -- scrolling -------------------------------------------------------------------------------------------

    def action_scroll(self, step: int) -> None:
        self.body.scroll_relative(y=step, animate=False)

    def action_page(self, step: int) -> None:
        body = self.body
        body.scroll_relative(y=step * max(1, body.scrollable_content_region.height - 1), animate=False)

    def action_edge(self, end: int) -> None:
        if end:
            self.body.scroll_end(animate=False)
        else:
            self.body.scroll_home(animate=False)
