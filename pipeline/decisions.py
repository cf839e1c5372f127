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


async def take_recommended(question: Question) -> str:
    """The decider of `--yes`: the recommended answer everywhere."""
    return question.recommended
