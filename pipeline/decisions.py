"""Questions the pipeline asks the author, and the async decider that answers them.

The TUI answers with a modal dialog, the CLI from flags or a terminal prompt; the orchestrator only awaits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum


class QuestionKind(StrEnum):
    GATE_LOW = "gate_low"  # 2.0-2.9, or revisions used up: auto-revise / edit by hand / accept
    GATE_HARD = "gate_hard"  # a hard-rule violation survived the revisions
    QUALITY_BRIEF = "quality_brief"  # every 5th chapter: continue / review / adjust
    VOLUME_END = "volume_end"  # last chapter of the volume: what next
    INTERRUPTED = "interrupted"  # a chapter was interrupted: resume / discard
    STALE_LOCK = "stale_lock"  # the lock's holder is gone: take over / cancel
    MISSING_KEY = "missing_key"  # no or rejected API key: continue offline / cancel
    STOP_RUNNING = "stop_running"  # the author asked to stop while a stage runs
    # planning (issue 7); the answers are described at `PlanAnswer` / in each kind's comment
    PLAN_APPROVAL = "plan_approval"  # a staged volume plan: approve / change count / re-plan with note / edit / cancel
    TRIAL_CONFIRM = "trial_confirm"  # quick start's 3 trial chapters: confirm / adjust / start over
    REVIEW_CLEANUP = "review_cleanup"  # volume review: approve the proposed state clean-up / keep everything
    IMPORT_EXTRACT = "import_extract"  # an import's full depth: start the extraction at its estimate / cancel
    PLAN_UNREVIEWED = "plan_unreviewed"  # the volume before the one to plan was not reviewed: plan anyway (y) / stop (n)


@dataclass(frozen=True)
class Option:
    key: str  # stable answer id, e.g. "revise"
    label_zh: str
    label_en: str


@dataclass(frozen=True)
class Question:
    kind: QuestionKind
    chapter: int | None
    title_zh: str
    title_en: str
    facts: list[str] = field(default_factory=list)  # lines shown to help decide (scores, fixes, holder ...)
    options: list[Option] = field(default_factory=list)
    recommended: str = ""
    data: dict[str, object] = field(default_factory=dict)

    def option(self, key: str) -> Option:
        for opt in self.options:
            if opt.key == key:
                return opt
        raise KeyError(key)


Decider = Callable[[Question], Awaitable[str]]


@dataclass(frozen=True)
class PlanAnswer:
    """An answer to a `PLAN_APPROVAL` question, which travels through a `Decider` as one string.

    The plan-approval question's `data` holds `"volume"` (int), `"plan"` (the staged plan as the CLI's `--json`
    prints it: chapters with heading, storyline, POV, location, conflict, payoff, hook, foreshadowing; threads;
    warnings; estimated write cost) and `"outline_path"` (the staged outline file). Answers:
    `y` approve and apply; `n` cancel (discard the staged plan); `k:<count>` re-plan with that many chapters;
    `r:<note>` re-plan with the author's note; `e` the author has edited the staged outline file (the decider
    side opened `$EDITOR` on `outline_path`): re-check it and ask again.
    """

    action: str  # "y" | "n" | "k" | "r" | "e"
    count: int | None = None
    note: str = ""

    def encode(self) -> str:
        if self.action == "k":
            return f"k:{self.count}"
        if self.action == "r":
            return f"r:{self.note}"
        return self.action


def parse_plan_answer(answer: str) -> PlanAnswer:
    """The `PlanAnswer` in a decider's string; ValueError for anything else (a count must be a positive int)."""
    action, _, rest = answer.partition(":")
    if action in ("y", "n", "e") and not rest:
        return PlanAnswer(action)
    if action == "k" and rest.strip().isdigit() and int(rest) > 0:
        return PlanAnswer("k", count=int(rest))
    if action == "r" and rest.strip():
        return PlanAnswer("r", note=rest.strip())
    raise ValueError(f"not a plan-approval answer: {answer!r}")


async def take_recommended(question: Question) -> str:
    """The decider of `--yes`: the recommended answer everywhere."""
    return question.recommended
