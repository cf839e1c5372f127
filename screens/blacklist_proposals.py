"""The judge's blacklist proposals in the studio (command palette: 黑名单建议 / Blacklist proposals).

``BlacklistProposalsDialog(paths, lang)`` -> ``ModalScreen[int]`` (how many proposals were decided). It lists the
pending proposals of `.novel-studio/blacklist-proposals.json` (phrase, tier, chapters, count, the first
example); `a` approves the highlighted one (into `ai-blacklist.json`), `r` rejects it, escape closes. The work is
`studio.blacklist_review` (the `novel-studio blacklist` command's), run in a thread so the atomic writes never
hold the UI loop; a problem (a broken file, a decision made elsewhere meanwhile) is shown in the dialog.
``BlacklistCommands`` puts the dialog in the command palette.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from screens.dialog_css import dialog_css
from studio.blacklist_review import approve, reject
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.models.blacklist_proposals import BlacklistProposal, BlacklistProposals
from studio.paths import ProjectPaths

__all__ = ["MESSAGES", "BlacklistCommands", "BlacklistProposalsDialog", "proposal_line"]

MESSAGES: Catalog = {
    "title": ("评审建议加入黑名单的词", "Blacklist entries the judge proposed"),
    "command": ("黑名单建议", "Blacklist proposals"),
    "command_help": ("审核评审建议加入 AI 腔黑名单的词", "review the entries the judge proposed for the blacklist"),
    "none": ("没有待审核的建议", "No pending proposals"),
    "hint": ("a 批准（加入黑名单）· r 拒绝 · Esc 关闭", "a approve (add to the blacklist) · r reject · Esc close"),
    "line": ("“{phrase}”  {tier}  第 {chapters} 章  {count} 次  {example}", "'{phrase}'  {tier}  ch. {chapters}  {count}x  {example}"),
    "banned": ("禁用", "banned"),
    "limited": ("限用", "limited"),
    "approved": ("已加入黑名单：“{phrase}”", "Added to the blacklist: '{phrase}'"),
    "rejected": ("已拒绝：“{phrase}”", "Rejected: '{phrase}'"),
    "failed": ("没有完成：{error}", "Not done: {error}"),
}


def proposal_line(p: BlacklistProposal, lang: Lang) -> str:
    example = p.examples[0] if p.examples else ""
    chapters = "、".join(str(c) for c in p.chapters) if lang == "zh" else ", ".join(str(c) for c in p.chapters)
    return tr(
        MESSAGES, "line", lang, phrase=p.phrase, tier=tr(MESSAGES, p.tier, lang), chapters=chapters, count=p.count,
        example=example,
    ).rstrip()


class BlacklistProposalsDialog(ModalScreen[int]):
    DEFAULT_CSS = dialog_css("BlacklistProposalsDialog", "#proposals-box", 90) + """
    BlacklistProposalsDialog OptionList {
        height: auto;
        max-height: 60vh;  /* the list scrolls; a status under it and the keys line stay in sight at 80x24 */
    }
    BlacklistProposalsDialog #proposals-status {
        width: 100%;
        height: auto;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", show=False),
        Binding("a", "decide('approve')", show=False),
        Binding("r", "decide('reject')", show=False),
    ]

    def __init__(self, paths: ProjectPaths, lang: Lang = "zh") -> None:
        super().__init__()
        self.paths = paths
        self.lang: Lang = lang
        self.decided = 0
        self.pending: list[BlacklistProposal] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="proposals-box"):
            yield Label(tr(MESSAGES, "title", self.lang), classes="dialog-title", markup=False)
            yield OptionList(id="proposals-list")
            yield Label("", id="proposals-status", markup=False)
            yield Label(tr(MESSAGES, "hint", self.lang), classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self.reload()
        self.query_one("#proposals-list", OptionList).focus()

    def reload(self) -> None:
        """Read the pending proposals again and list them (the highlight stays where it was)."""
        listing = self.query_one("#proposals-list", OptionList)
        at = listing.highlighted
        try:
            self.pending = BlacklistProposals.load_or_default(self.paths.blacklist_proposals).pending()
        except StudioError as exc:
            self.pending = []
            self._status(tr(MESSAGES, "failed", self.lang, error=exc))
        listing.clear_options()
        if not self.pending:
            listing.add_option(Option(tr(MESSAGES, "none", self.lang), disabled=True))
            return
        listing.add_options([Option(proposal_line(p, self.lang), id=str(p.id)) for p in self.pending])
        listing.highlighted = min(at or 0, len(self.pending) - 1)

    def _status(self, message: str) -> None:
        self.query_one("#proposals-status", Label).update(message)

    def _current(self) -> BlacklistProposal | None:
        index = self.query_one("#proposals-list", OptionList).highlighted
        if index is None or not 0 <= index < len(self.pending):
            return None
        return self.pending[index]

    async def action_decide(self, how: str) -> None:
        proposal = self._current()
        if proposal is None:
            return
        work: Callable[..., Any] = approve if how == "approve" else reject
        try:
            await asyncio.to_thread(partial(work, self.paths, [proposal.id], lang=self.lang))
        except StudioError as exc:
            self._status(tr(MESSAGES, "failed", self.lang, error=exc))
        else:
            self.decided += 1
            done = "approved" if how == "approve" else "rejected"
            self._status(tr(MESSAGES, done, self.lang, phrase=proposal.phrase))
        self.reload()

    def action_close(self) -> None:
        self.dismiss(self.decided)


class BlacklistCommands(Provider):
    """The command palette entry of the dialog (on an app with a project open: `app.project`)."""

    def _open(self) -> Callable[[], Any] | None:
        app = self.app
        paths = getattr(getattr(app, "project", None), "paths", None)
        if not isinstance(paths, ProjectPaths):
            return None
        lang: Lang = getattr(app, "lang", "zh")
        return partial(app.push_screen, BlacklistProposalsDialog(paths, lang))

    def _name(self) -> str:
        return tr(MESSAGES, "command", getattr(self.app, "lang", "zh"))

    async def discover(self) -> Hits:
        run = self._open()
        if run is not None:
            yield DiscoveryHit(self._name(), run, help=tr(MESSAGES, "command_help", getattr(self.app, "lang", "zh")))

    async def search(self, query: str) -> Hits:
        run = self._open()
        if run is None:
            return
        matcher = self.matcher(query)
        name = self._name()
        score = matcher.match(f"{name} blacklist")
        if score > 0:
            yield Hit(score, matcher.highlight(name), run)
