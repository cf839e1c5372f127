"""The modal that answers the pipeline's questions (``pipeline.decisions.Question``).

``DecisionDialog(question, lang)`` is a ``ModalScreen[str]`` that dismisses with the chosen ``Option.key``.

Keys: up/down (and tab/shift+tab) move between the options, enter picks the highlighted one, 1-9 pick an option
directly (every numbered option has its digit: a question of five options listed "5." with no key for it). The recommended option is marked (（推荐） / (recommended)) and highlighted when the dialog opens.
`q` is the studio's quit, as on the main screen (it asks first while a run is active).
Escape answers with the question's "back out" option, if it has one: ``question.data["escape"]`` when that names
an option, else the first option whose key is in ``ESCAPE_KEYS`` (cancel, keep_running, pause, edit_by_hand,
in that order). A question with none of these (say, resume / discard) cannot be escaped: escape does nothing.

On mount the dialog rings the terminal bell and shows that a question waits in the terminal title (OSC 2, also
in ``app.sub_title`` for the header); both are restored when it closes. Textual 8.2 has no title API, so the
title is written to the driver the way ``App.bell`` and ``App.copy_to_clipboard`` write theirs; headless and web
drivers are skipped.

``await ask(app, question, lang)`` pushes the dialog and returns the key. It works from a Textual worker
(``push_screen_wait``) and from any other asyncio task on the app's loop that is not itself a message handler
(a plain future set by the dialog). Never await it inside a message handler or action: that pump is the one
that must deliver the keys; start a worker instead.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option as ListOption
from textual.worker import NoActiveWorker, get_current_worker

from pipeline.decisions import Question
from screens.dialog_css import dialog_css
from screens.prompt_dialogs import FoldedText
from studio.i18n import Catalog, Lang, tr

__all__ = ["ESCAPE_KEYS", "MESSAGES", "DecisionDialog", "ask", "escape_option", "set_terminal_title"]

ESCAPE_KEYS: tuple[str, ...] = ("cancel", "keep_running", "pause", "edit_by_hand")
FACTS_ROWS = 10  # the most rows the facts take (they scroll); a short terminal gets fewer, never under 3

MESSAGES: Catalog = {
    "recommended": ("（推荐）", " (recommended)"),
    "chapter": ("第 {n} 章", "Chapter {n}"),
    "hint": ("↑↓ 选择 · Enter 确定 · 1-{n} 直接选", "↑↓ choose · Enter confirm · 1-{n} pick"),
    "hint_escape": (" · Esc {label}", " · Esc {label}"),
    "waiting": ("待你决定：{title}", "Waiting for you: {title}"),
    "terminal_title": ("【待决定】{title}", "[waiting] {title}"),
}


def escape_option(question: Question) -> str | None:
    """The option escape answers with, or None when the question cannot be backed out of."""
    keys = [o.key for o in question.options]
    wanted = question.data.get("escape")
    if isinstance(wanted, str) and wanted in keys:
        return wanted
    for key in ESCAPE_KEYS:
        if key in keys:
            return key
    return None


def set_terminal_title(app: App[Any], title: str) -> None:
    """Write the terminal (and tmux pane) title with OSC 2; a no-op on headless and web drivers."""
    driver = app._driver
    if driver is None or app.is_headless or app.is_web:
        return
    clean = "".join(ch for ch in title if ch.isprintable())
    driver.write(f"\x1b]2;{clean}\x07")


def _push_title_stack(app: App[Any]) -> None:
    driver = app._driver
    if driver is not None and not app.is_headless and not app.is_web:
        driver.write("\x1b[22;2t")  # xterm: save the window title (ignored where unsupported)


def _pop_title_stack(app: App[Any]) -> None:
    driver = app._driver
    if driver is not None and not app.is_headless and not app.is_web:
        driver.write("\x1b[23;2t")


class DecisionDialog(ModalScreen[str]):
    """Ask one ``Question``; dismiss with the chosen option's key."""

    DEFAULT_CSS = dialog_css("DecisionDialog", "#decision-box", 72) + """
    DecisionDialog #decision-facts {
        width: 100%;
        height: auto;
        max-height: 10;  /* FACTS_ROWS; fewer on a short terminal (`_fit_facts`) */
        margin-bottom: 1;
    }
    DecisionDialog OptionList {
        height: auto;
        border: none;
        padding: 0;
        background: $surface;
    }
    DecisionDialog OptionList > .option-list--option-highlighted {
        text-style: bold reverse;
    }
    DecisionDialog OptionList:focus > .option-list--option-highlighted {
        text-style: bold reverse;
    }
    DecisionDialog #decision-hint {
        margin-top: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *[Binding(str(n), f"pick({n - 1})", show=False) for n in range(1, 10)],
        Binding("tab", "move(1)", show=False, priority=True),
        Binding("shift+tab", "move(-1)", show=False, priority=True),
        Binding("escape", "escape", show=False),
        Binding("q", "quit_studio", show=False),
    ]

    def __init__(self, question: Question, lang: Lang = "zh", *, name: str | None = None) -> None:
        super().__init__(name=name)
        if not question.options:
            raise ValueError("a question needs at least one option")
        self.question = question
        self.lang: Lang = lang
        self.answer_future: asyncio.Future[str] | None = None
        self._saved_sub_title: str | None = None
        self._answered = False

    # -- content ---------------------------------------------------------------------------------------------

    @property
    def title_text(self) -> str:
        q = self.question
        title = q.title_zh if self.lang == "zh" else (q.title_en or q.title_zh)
        if q.chapter is not None and str(q.chapter) not in title:
            title = f"{tr(MESSAGES, 'chapter', self.lang, n=q.chapter)} · {title}"
        return title

    def option_label(self, position: int) -> str:
        opt = self.question.options[position]
        label = opt.label_zh if self.lang == "zh" else (opt.label_en or opt.label_zh)
        mark = tr(MESSAGES, "recommended", self.lang) if opt.key == self.question.recommended else ""
        return f"{position + 1}. {label}{mark}"

    @property
    def recommended_position(self) -> int:
        for i, opt in enumerate(self.question.options):
            if opt.key == self.question.recommended:
                return i
        return 0

    def compose(self) -> ComposeResult:
        with Vertical(id="decision-box"):
            yield FoldedText(self.title_text, id="decision-title", classes="dialog-title")
            if self.question.facts:
                with VerticalScroll(id="decision-facts", can_focus=False):
                    yield FoldedText("\n".join(self.question.facts))
            yield OptionList(
                *[
                    ListOption(self.option_label(i), id=opt.key)
                    for i, opt in enumerate(self.question.options)
                ],
                id="decision-options",
            )
            hint = tr(MESSAGES, "hint", self.lang, n=min(9, len(self.question.options)))
            escape_key = escape_option(self.question)
            if escape_key is not None:
                opt = self.question.option(escape_key)
                hint += tr(
                    MESSAGES,
                    "hint_escape",
                    self.lang,
                    label=opt.label_zh if self.lang == "zh" else opt.label_en,
                )
            yield FoldedText(hint, keys=True, id="decision-hint", classes="dialog-hint")

    def on_mount(self) -> None:
        found = self.query(OptionList)
        if not found:  # mounted while the app tears down (a quit as the dialog opens): its children are gone
            return
        options = found.first()
        options.highlighted = self.recommended_position
        options.focus()
        self.call_after_refresh(self._fit_facts)
        app = self.app
        app.bell()
        self._saved_sub_title = app.sub_title
        app.sub_title = tr(MESSAGES, "waiting", self.lang, title=self.title_text)
        _push_title_stack(app)
        set_terminal_title(app, tr(MESSAGES, "terminal_title", self.lang, title=self.title_text))

    def on_unmount(self) -> None:
        self._restore_title()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_facts)

    def _fit_facts(self) -> None:
        """On a short terminal (80x24 with a long question) the facts give up rows, so the options and the keys
        line below them stay in sight instead of being cut off at the bottom of the box."""
        # scheduled after a refresh: the dialog may be answered (and its widgets gone) by then
        facts = self.query("#decision-facts").first() if self.is_attached and self.query("#decision-facts") else None
        boxes = self.query("#decision-box").results(Vertical) if facts is not None else iter(())
        box = next(boxes, None)
        if facts is None or box is None:
            return
        rest = box.styles.gutter.height
        for child in box.children:
            rest += child.styles.margin.height + (0 if child is facts else child.outer_size.height)
        rows = max(3, min(FACTS_ROWS, self.size.height - rest))
        if facts.styles.max_height is None or facts.styles.max_height.value != rows:
            facts.styles.max_height = rows

    def _restore_title(self) -> None:
        if self._saved_sub_title is None:
            return
        app = self.app
        app.sub_title = self._saved_sub_title
        self._saved_sub_title = None
        set_terminal_title(app, app.title)
        _pop_title_stack(app)

    # -- answering -------------------------------------------------------------------------------------------

    def answer(self, key: str) -> None:
        """Dismiss with ``key`` (once)."""
        if self._answered:
            return
        self._answered = True
        self._restore_title()
        if self.answer_future is not None and not self.answer_future.done():
            self.answer_future.set_result(key)
        self.dismiss(key)

    def action_pick(self, position: int) -> None:
        if 0 <= position < len(self.question.options):
            self.answer(self.question.options[position].key)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        count = len(self.question.options)
        current = options.highlighted if options.highlighted is not None else self.recommended_position
        options.highlighted = (current + step) % count

    def action_escape(self) -> None:
        key = escape_option(self.question)
        if key is not None:
            self.answer(key)

    def action_quit_studio(self) -> None:
        """`q` quits in the studio everywhere, also here: a question that opens just as the author presses `q`
        must not eat it. The screen below that owns quitting asks first while a run is active (the question
        is asked again when the chapter resumes)."""
        for screen in reversed(self.app.screen_stack[:-1]):
            quit_studio = getattr(screen, "action_quit_studio", None)
            if callable(quit_studio):
                quit_studio()
                return

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_pick(event.option_index)


async def ask(app: App[Any], question: Question, lang: Lang = "zh") -> str:
    """Push a ``DecisionDialog`` for ``question`` and return the chosen option key.

    From a worker this is ``push_screen_wait``; from another task on the app's loop it waits on a future the
    dialog sets. Do not await it in a message handler (see the module docstring).
    """
    dialog = DecisionDialog(question, lang)
    try:
        get_current_worker()
    except NoActiveWorker:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        dialog.answer_future = future
        # Pushed from the app's own pump, so the screen is registered in the app's context.
        app.call_later(app.push_screen, dialog)
        return await future
    return await app.push_screen_wait(dialog)
