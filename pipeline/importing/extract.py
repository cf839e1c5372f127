"""The full depth of an import: per chapter, in order, the Summarizer's summary and state ops; characters,
world rules, storylines, open threads and the style profile from the author's own chapters (issue 10 item 3).

INTERFACE STUB (integ): the imp-full branch replaces the body; the signatures are the contract.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.decisions import Decider
from pipeline.events import Event
from pipeline.providers.base import Provider
from studio.i18n import Lang
from studio.models.settings import Settings


@dataclass(frozen=True)
class ExtractionEstimate:
    first: int
    last: int
    chapters: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


@dataclass
class ExtractionResult:
    status: str  # "done" | "stopped" (max cost / author) | "failed"
    extracted_through: int
    cost_usd: float = 0.0
    message: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return {"done": 0, "stopped": 3}.get(self.status, 1)


def estimate_extraction(root: Path, settings: Settings, *, last: int | None = None) -> ExtractionEstimate:
    raise NotImplementedError("imp-full")


async def run_extraction(root: Path, settings: Settings, provider: Provider, decide: Decider,
                         emit: Callable[[Event], None] | None = None, *, last: int | None = None,
                         max_cost_usd: float | None = None, offline: bool = False,
                         lang: Lang = "zh") -> ExtractionResult:
    raise NotImplementedError("imp-full")
