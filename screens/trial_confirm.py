"""The studio's answer to the quick start's `TRIAL_CONFIRM` question (issue 7 item 2): confirm, adjust, or start
over, with the follow-up questions "adjust" needs.

`await answer_trial_confirm(app, question, lang, *, root, names, ask_author)` (from a worker) returns one answer
string of the quick start's protocol (`pipeline.planning.quick_start.TrialAnswer`):

- `confirm`;
- `restart`, asked once more first (world, characters, style, plan and chapters are backed up and cleared);
- after "adjust", a second question says what: the brief (`brief.md` opens in `$EDITOR`, then `adjust:brief`),
  the style (`adjust:style[:<note>]`), one character (picked from `question.data["characters"]`, then
  `adjust:character:<id>[:<note>]`), or rewriting the trial chapters (`rewrite[:<note>]`); notes come from a
  text dialog and may stay empty; "back" (or escape, or an editor that changed nothing) asks the first question
  again. The English facts (`question.data["facts_en"]`) replace the Chinese ones with `lang="en"`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.app import App

from pipeline.decisions import Option, Question
from screens.decision_dialog import ask
from screens.prompt_dialogs import ConfirmDialog, TextDialog
from studio.i18n import Catalog, Lang, tr
from studio.paths import ProjectPaths
from studio.tui.editor import EditorError, launch_editor

__all__ = ["MESSAGES", "adjust_question", "answer_trial_confirm"]

Ask = Callable[[Question], Awaitable[str]]

MESSAGES: Catalog = {
    "adjust_title": ("调整什么？", "Adjust what?"),
    "o_brief": ("创作纲领（在 $EDITOR 中修改 brief.md）", "the brief (edit brief.md in $EDITOR)"),
    "o_style": ("文风", "the style"),
    "o_character": ("某个角色", "a character"),
    "o_rewrite": ("重写试写的三章", "rewrite the trial chapters"),
    "o_back": ("返回", "back"),
    "character_title": ("调整哪个角色？", "Which character?"),
    "note_style": ("对文风的要求（可留空）", "What to change in the style (may be empty)"),
    "note_character": ("对{name}的修改意见（可留空）", "What to change about {name} (may be empty)"),
    "note_rewrite": ("重写时的要求（可留空）", "What the rewrite should do (may be empty)"),
    "confirm_restart": (
        "推倒重来：世界观、角色、文风、大纲和已写的试写章会备份到 .novel-studio/ 后清空，创作纲领保留。确定？",
        "Start over: world, characters, style, outline and the trial chapters are backed up under .novel-studio/ "
        "and cleared; the brief stays. Sure?",
    ),
    "restart": ("推倒重来", "Start over"),
    "keep": ("返回", "Back"),
    "brief_unchanged": ("纲领没有改动", "The brief was not changed"),
    "cannot_suspend": (
        "这个终端无法挂起，不能在这里打开编辑器。请在别的窗口修改 {path}",
        "This terminal cannot be suspended; edit {path} in another window",
    ),
}


def _option(key: str, message: str) -> Option:
    zh, en = MESSAGES[message]
    return Option(key, zh, en)


def adjust_question(question: Question) -> Question:
    """The follow-up of "adjust": what to adjust (brief / style / a character / rewrite / back)."""
    options = [_option("brief", "o_brief"), _option("style", "o_style")]
    if _characters(question):
        options.append(_option("character", "o_character"))
    options += [_option("rewrite", "o_rewrite"), _option("back", "o_back")]
    zh, en = MESSAGES["adjust_title"]
    return Question(
        kind=question.kind,
        chapter=None,
        title_zh=zh,
        title_en=en,
        options=options,
        recommended="style",
        data={"escape": "back"},
    )


def _characters(question: Question) -> list[str]:
    value = question.data.get("characters")
    return [str(c) for c in value if str(c).strip()] if isinstance(value, list) else []


def _localised(question: Question, lang: Lang) -> Question:
    facts_en = question.data.get("facts_en")
    if lang == "en" and isinstance(facts_en, list) and facts_en:
        return replace(question, facts=[str(f) for f in facts_en])
    return question


async def _note(app: App[Any], title: str, lang: Lang) -> str | None:
    """A note (stripped; "" when left empty), or None when the author backed out."""
    result: str | None = await app.push_screen_wait(TextDialog(title, lang))
    return result


def _with_note(head: str, note: str) -> str:
    return f"{head}:{note}" if note else head


async def answer_trial_confirm(
    app: App[Any],
    question: Question,
    lang: Lang = "zh",
    *,
    root: Path,
    names: Mapping[str, str] | None = None,
    ask_author: Ask | None = None,
) -> str:
    """The answer to `TRIAL_CONFIRM` (see the module docstring). Call from a worker."""
    names = names or {}

    async def default_ask(q: Question) -> str:
        return await ask(app, q, lang)

    first = ask_author or default_ask
    shown = _localised(question, lang)
    while True:
        answer = await first(shown)
        if answer == "restart":
            dialog = ConfirmDialog(
                tr(MESSAGES, "confirm_restart", lang),
                lang,
                default=False,
                yes_label=tr(MESSAGES, "restart", lang),
                no_label=tr(MESSAGES, "keep", lang),
            )
            if await app.push_screen_wait(dialog):
                return "restart"
            continue
        if answer != "adjust":
            return answer
        what = await ask(app, adjust_question(question), lang)
        if what == "brief":
            path = ProjectPaths(root).brief
            before = path.read_bytes() if path.is_file() else b""
            try:
                ran = launch_editor(app, path, lang=lang)
            except EditorError as exc:
                app.notify(str(exc), severity="error", markup=False)
                continue
            if not ran:
                app.notify(tr(MESSAGES, "cannot_suspend", lang, path=path), severity="warning", markup=False)
                continue
            if (path.read_bytes() if path.is_file() else b"") == before:
                app.notify(tr(MESSAGES, "brief_unchanged", lang))
                continue
            return "adjust:brief"
        if what == "style":
            note = await _note(app, tr(MESSAGES, "note_style", lang), lang)
            if note is not None:
                return _with_note("adjust:style", note)
        elif what == "character":
            slugs = _characters(question)
            zh, en = MESSAGES["character_title"]
            pick = Question(
                kind=question.kind,
                chapter=None,
                title_zh=zh,
                title_en=en,
                options=[Option(slug, names.get(slug, slug), names.get(slug, slug)) for slug in slugs]
                + [_option("back", "o_back")],
                recommended=slugs[0],
                data={"escape": "back"},
            )
            slug = await ask(app, pick, lang)
            if slug != "back":
                title = tr(MESSAGES, "note_character", lang, name=names.get(slug, slug))
                note = await _note(app, title, lang)
                if note is not None:
                    return _with_note(f"adjust:character:{slug}", note)
        elif what == "rewrite":
            note = await _note(app, tr(MESSAGES, "note_rewrite", lang), lang)
            if note is not None:
                return _with_note("rewrite", note)
