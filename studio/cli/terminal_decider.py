"""Deciders for the headless CLI: ask on the terminal, or answer from `--yes` / `--on-low-score`.

Terminal: the question, its facts, numbered options with the recommended one marked; Enter takes the
recommended answer; a number or an option key answers. Without a terminal (stdin not a TTY) the question
cannot be asked: `PausedForAuthor` (exit 3), and the orchestrator leaves the run paused and resumable.
"""

from __future__ import annotations

from collections.abc import Callable

from pipeline.decisions import Decider, Question, QuestionKind
from studio.cli.common import PausedForAuthor, is_interactive
from studio.i18n import Catalog, Lang, tr

MESSAGES: Catalog = {
    "recommended": ("（推荐）", " (recommended)"),
    "prompt": ("请选择 [1-{n}]，回车 = {default}：", "choose [1-{n}], Enter = {default}: "),
    "bad": ("请输入 1-{n} 之间的数字", "please enter a number from 1 to {n}"),
    "paused": ("需要作者决定，但当前不是交互终端：{title}", "needs the author's decision and stdin is not a terminal: {title}"),
}

GATE_KINDS = frozenset({QuestionKind.GATE_LOW, QuestionKind.GATE_HARD})
LOW_SCORE_POLICIES = ("pause", "accept", "revise")


def title_of(question: Question, lang: Lang) -> str:
    return question.title_zh if lang == "zh" else question.title_en


def terminal_decider(
    lang: Lang,
    *,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[[str], None] = print,
    interactive: Callable[[], bool] = is_interactive,
) -> Decider:
    async def decide(question: Question) -> str:
        if not interactive():
            raise PausedForAuthor(tr(MESSAGES, "paused", lang, title=title_of(question, lang)))
        print_fn("")
        print_fn(title_of(question, lang))
        for fact in question.facts:
            print_fn(f"  · {fact}")
        keys = [o.key for o in question.options]
        default = keys.index(question.recommended) + 1 if question.recommended in keys else 1
        for i, option in enumerate(question.options, start=1):
            label = option.label_zh if lang == "zh" else option.label_en
            mark = tr(MESSAGES, "recommended", lang) if option.key == question.recommended else ""
            print_fn(f"  {i}. {label}{mark}")
        n = len(question.options)
        while True:
            answer = input_fn(tr(MESSAGES, "prompt", lang, n=n, default=default)).strip()
            if not answer:
                return keys[default - 1]
            if answer in keys:
                return answer
            if answer.isdigit() and 1 <= int(answer) <= n:
                return keys[int(answer) - 1]
            print_fn(tr(MESSAGES, "bad", lang, n=n))

    return decide


def low_score_answer(question: Question, policy: str) -> str:
    """`--on-low-score` for a gate pause. A hard-rule violation is never accepted silently."""
    if policy == "revise":
        return "auto_revise"
    if policy == "accept" and question.kind is QuestionKind.GATE_LOW:
        return "accept"
    return "pause"


def cli_decider(lang: Lang, *, yes: bool, on_low_score: str | None, ask: Decider | None = None) -> Decider:
    """`--yes`: the recommended answer everywhere, gate pauses per `--on-low-score` (default pause).
    Without `--yes`: the terminal asks (gate pauses follow `--on-low-score` when it is given)."""
    terminal = ask or terminal_decider(lang)

    async def decide(question: Question) -> str:
        if question.kind in GATE_KINDS and (yes or on_low_score is not None):
            answer = low_score_answer(question, on_low_score or "pause")
            if answer == "pause":
                raise PausedForAuthor(tr(MESSAGES, "paused", lang, title=title_of(question, lang)))
            return answer
        if yes:
            return question.recommended
        return await terminal(question)

    return decide
