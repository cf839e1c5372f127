"""Review the StyleRefiner's edits hunk by hunk (issue 4, section 5).

``RefineReviewScreen(draft, decisions, lang, *, chapter=None, markers=None)`` -> ``Screen[ReviewOutcome | None]``.
``draft`` is the pre-refine chapter text the decisions' spans refer to; ``decisions`` the ``EditDecision`` list
of ``pipeline.refine_edits.apply_edits``. Only located edits are hunks (see ``studio.tui.hunks``); the others are
counted in the header.

One hunk at a time: a progress line (第 3/12 处 · 已接受 2 · 已拒绝 1), its position, the refiner's decision and
reason, then original and refined side by side when the screen is at least ``WIDE_COLUMNS`` wide, stacked
otherwise, each with a little unchanged context. Removed characters are struck through (red), added ones
underlined (green); with ``markers`` (default: on when NO_COLOR is set; ``m`` toggles) they are also wrapped as
``[-删-]`` and ``{+增+}`` so the diff reads without colour or strike-through support.

Keys: y / n accept / reject the current hunk and move on; a / d accept / reject every hunk (one can then be
changed with y / n); j / k next /
previous; m markers; enter finish -> ``ReviewOutcome(accepted, text, record)`` (an undecided hunk keeps the
refiner's decision); escape asks, then cancels without applying anything (dismiss None).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from pipeline.refine_edits import EditDecision
from screens.prompt_dialogs import ConfirmDialog, FoldedText
from studio.i18n import Catalog, Lang, tr
from studio.tui.hunks import Hunk, ReviewOutcome, ReviewState, Segment, Verdict, unapplicable

__all__ = ["MESSAGES", "WIDE_COLUMNS", "RefineReviewScreen", "ReviewOutcome"]

WIDE_COLUMNS = 100
REVIEW_CONTEXT = 60  # unchanged characters shown either side of a hunk (within its paragraph)

MESSAGES: Catalog = {
    "title": ("润色审阅", "Refine review"),
    "chapter": ("第 {n} 章", "Chapter {n}"),
    "progress": (
        "第 {i}/{n} 处 · 已接受 {a} · 已拒绝 {r}",
        "Edit {i}/{n} · accepted {a} · rejected {r}",
    ),
    "skipped": (" · {k} 处无法定位", " · {k} not located"),
    "position": (
        "位置：第 {line} 行第 {col} 字（全文 {pct}%）",
        "Position: line {line}, char {col} ({pct}% into the chapter)",
    ),
    "refiner_applied": ("润色器：已采用", "Refiner: applied"),
    "refiner_over_cap": ("润色器：超出改动上限，未采用", "Refiner: over the change budget, not applied"),
    "verdict_accepted": ("本处：✓ 已接受", "This edit: ✓ accepted"),
    "verdict_rejected": ("本处：✗ 已拒绝", "This edit: ✗ rejected"),
    "verdict_undecided": ("本处：未决定（按润色器处理）", "This edit: undecided (refiner's decision stands)"),
    "reason": ("理由：{reason}", "Reason: {reason}"),
    "no_reason": ("理由：（未给出）", "Reason: (none given)"),
    "blacklist": ("去掉的黑名单词：{words}", "Blacklisted words removed: {words}"),
    "original": ("原文", "Original"),
    "refined": ("润色后", "Refined"),
    "keys": (
        "y 接受 · n 拒绝 · a 全部接受 · d 全部拒绝 · j/k 下一处/上一处 · m 标记 · Enter 完成 · Esc 取消",
        "y accept · n reject · a accept all · d reject all · j/k next/prev · m markers · Enter finish · Esc cancel",
    ),
    "empty": ("没有可审阅的修改。按 Enter 返回。", "No edits to review. Press Enter to go back."),
    "cancel_question": ("放弃这次审阅？不会应用任何修改。", "Leave the review? No edit will be applied."),
    "cancel_title": ("取消审阅", "Cancel review"),
    "apply_failed": ("无法应用修改：{error}", "Could not apply the edits: {error}"),
}

DELETE_STYLE = "strike red"
INSERT_STYLE = "bold underline green"
CONTEXT_STYLE = "dim"


def render_original(hunk: Hunk, markers: bool) -> Text:
    """The original span in its context, removed characters struck through (and ``[-…-]`` with markers)."""
    text = Text(hunk.before, style=CONTEXT_STYLE)
    for seg in hunk.segments:
        _append_side(text, seg, seg.original, markers, "[-", "-]", DELETE_STYLE)
    text.append(hunk.after, style=CONTEXT_STYLE)
    return text


def render_refined(hunk: Hunk, markers: bool) -> Text:
    """The refined span in its context, added characters underlined (and ``{+…+}`` with markers)."""
    text = Text(hunk.before, style=CONTEXT_STYLE)
    for seg in hunk.segments:
        _append_side(text, seg, seg.refined, markers, "{+", "+}", INSERT_STYLE)
    text.append(hunk.after, style=CONTEXT_STYLE)
    return text


def _append_side(
    text: Text, seg: Segment, chars: str, markers: bool, left: str, right: str, style: str
) -> None:
    if seg.kind == "equal":
        text.append(chars)
        return
    if not chars:
        return
    if markers:
        text.append(left, style="bold")
    text.append(chars, style=style)
    if markers:
        text.append(right, style="bold")


class RefineReviewScreen(Screen[ReviewOutcome | None]):
    """Accept or reject the refiner's edits one by one."""

    DEFAULT_CSS = """
    RefineReviewScreen {
        layout: vertical;
        background: $background;
    }
    RefineReviewScreen #review-header {
        height: 1;
        width: 100%;
        background: $primary;
        color: $text;
        text-style: bold;
        padding: 0 1;
    }
    RefineReviewScreen #review-meta {
        height: auto;
        width: 100%;
        padding: 0 1;
    }
    RefineReviewScreen #review-panes {
        height: 1fr;
        layout: vertical;
    }
    RefineReviewScreen #review-panes.-wide {
        layout: horizontal;
    }
    RefineReviewScreen .review-pane {
        height: 1fr;
        width: 100%;
        border: round $primary;
        border-title-style: bold;
        padding: 0 1;
    }
    RefineReviewScreen #review-panes.-wide .review-pane {
        width: 1fr;
        height: 100%;
    }
    RefineReviewScreen .review-pane:focus {
        border: round $accent;
    }
    RefineReviewScreen #review-keys {
        height: auto;
        width: 100%;
        color: $text-muted;
        padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "accept", show=False),
        Binding("n", "reject", show=False),
        Binding("a", "accept_all", show=False),
        Binding("d", "reject_all", show=False),
        Binding("j", "next", show=False),
        Binding("k", "prev", show=False),
        Binding("m", "toggle_markers", show=False),
        Binding("enter", "finish", show=False),
        Binding("escape", "cancel", show=False),
    ]

    def __init__(
        self,
        draft: str,
        decisions: Sequence[EditDecision],
        lang: Lang = "zh",
        *,
        chapter: int | None = None,
        markers: bool | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.draft = draft
        self.decisions = list(decisions)
        self.lang: Lang = lang
        self.chapter = chapter
        self.state = ReviewState.from_decisions(self.decisions, draft, context=REVIEW_CONTEXT)
        self.skipped = len(unapplicable(self.decisions))
        self._markers = markers

    # -- layout ----------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="review-header", markup=False)
        yield FoldedText("", id="review-meta")
        with Container(id="review-panes"):
            with VerticalScroll(id="pane-original", classes="review-pane") as original:
                original.border_title = tr(MESSAGES, "original", self.lang)
                yield FoldedText("", id="original-text")
            with VerticalScroll(id="pane-refined", classes="review-pane") as refined:
                refined.border_title = tr(MESSAGES, "refined", self.lang)
                yield FoldedText("", id="refined-text")
        yield FoldedText(tr(MESSAGES, "keys", self.lang), keys=True, id="review-keys")

    def on_mount(self) -> None:
        if self._markers is None:
            self._markers = bool(getattr(self.app, "no_color", False))
        self._apply_width(self.app.size.width)
        self.refresh_view()

    def on_resize(self, event: events.Resize) -> None:
        self._apply_width(event.size.width)

    def _apply_width(self, width: int) -> None:
        self.query_one("#review-panes").set_class(width >= WIDE_COLUMNS, "-wide")

    @property
    def wide(self) -> bool:
        return self.query_one("#review-panes").has_class("-wide")

    @property
    def markers(self) -> bool:
        return bool(self._markers)

    # -- rendering -------------------------------------------------------------------------------------------

    def header_text(self) -> str:
        state = self.state
        parts = [tr(MESSAGES, "title", self.lang)]
        if self.chapter is not None:
            parts.append(tr(MESSAGES, "chapter", self.lang, n=self.chapter))
        head = " · ".join(parts)
        if not len(state):
            return head
        progress = tr(
            MESSAGES,
            "progress",
            self.lang,
            i=state.current + 1,
            n=len(state),
            a=state.count("accepted"),
            r=state.count("rejected"),
        )
        text = f"{head} · {progress}"
        if self.skipped:
            text += tr(MESSAGES, "skipped", self.lang, k=self.skipped)
        return text

    def meta_text(self) -> str:
        hunk = self.state.hunk
        if hunk is None:
            return tr(MESSAGES, "empty", self.lang)
        pos = hunk.position
        verdict: Verdict = self.state.verdicts[self.state.current]
        lines = [
            tr(MESSAGES, "position", self.lang, line=pos.line, col=pos.column, pct=f"{pos.percent:.0f}"),
            " · ".join(
                [
                    tr(MESSAGES, f"verdict_{verdict}", self.lang),
                    tr(
                        MESSAGES, "refiner_applied" if hunk.refiner_applied else "refiner_over_cap", self.lang
                    ),
                ]
            ),
            tr(MESSAGES, "reason", self.lang, reason=hunk.reason)
            if hunk.reason
            else tr(MESSAGES, "no_reason", self.lang),
        ]
        if hunk.blacklist_removed:
            lines.append(tr(MESSAGES, "blacklist", self.lang, words="、".join(hunk.blacklist_removed)))
        return "\n".join(lines)

    def refresh_view(self) -> None:
        self.query_one("#review-header", Static).update(self.header_text())
        self.query_one("#review-meta", FoldedText).update(self.meta_text())
        hunk = self.state.hunk
        original = self.query_one("#original-text", FoldedText)
        refined = self.query_one("#refined-text", FoldedText)
        if hunk is None:
            original.update("")
            refined.update("")
            return
        original.update(render_original(hunk, self.markers))
        refined.update(render_refined(hunk, self.markers))
        for pane in self.query(".review-pane"):
            pane.scroll_home(animate=False)

    # -- actions ---------------------------------------------------------------------------------------------

    def action_accept(self) -> None:
        self.state.accept()
        self.refresh_view()

    def action_reject(self) -> None:
        self.state.reject()
        self.refresh_view()

    def action_accept_all(self) -> None:
        self.state.accept_all()
        self.refresh_view()

    def action_reject_all(self) -> None:
        self.state.reject_all()
        self.refresh_view()

    def action_next(self) -> None:
        self.state.next()
        self.refresh_view()

    def action_prev(self) -> None:
        self.state.prev()
        self.refresh_view()

    def action_toggle_markers(self) -> None:
        self._markers = not self.markers
        self.refresh_view()

    def action_finish(self) -> None:
        try:
            outcome = self.state.outcome(self.draft)
        except ValueError as error:
            self.notify(tr(MESSAGES, "apply_failed", self.lang, error=error), severity="error")
            return
        self.dismiss(outcome)

    def action_cancel(self) -> None:
        def confirmed(leave: bool | None) -> None:
            if leave:
                self.dismiss(None)

        self.app.push_screen(
            ConfirmDialog(
                tr(MESSAGES, "cancel_question", self.lang),
                self.lang,
                title=tr(MESSAGES, "cancel_title", self.lang),
                default=False,
            ),
            confirmed,
        )
