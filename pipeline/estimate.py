"""Cost estimate of the next chapters, for `continue`'s preview and `--max-cost`.

The mean cost of the project's last 5 chapter logs that report a cost; without such logs, a default from
the settings' prices and typical token counts per stage (PRD 4.3 models: draft, summary, refine, judge).

A run stops at the end of the volume, so an estimate for N chapters counts at most the chapters the
volume has left (`chapters_left_in_volume`; unknown when the outline gives no chapter range).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from studio.errors import StudioError
from studio.fileio import read_text
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.pipeline_log import PipelineLog
from studio.models.settings import Settings
from studio.outline import parse_outline
from studio.paths import ProjectPaths

RECENT_LOGS = 5
_LOG_NAME = re.compile(r"^chapter-(\d+)-log\.json$")

# (agent, input tokens, output tokens) of one ordinary chapter without revisions
TYPICAL_CALLS: tuple[tuple[str, int, int], ...] = (
    ("chapter_writer", 10_000, 5_000),
    ("summarizer", 7_500, 1_000),
    ("style_refiner", 9_000, 2_000),
    ("quality_judge", 12_000, 1_600),
)


@dataclass(frozen=True)
class CostEstimate:
    per_chapter_usd: float
    source: str  # "logs" | "default" | "offline"
    sample_size: int = 0
    chapters_left: int | None = None  # in the current volume; None: unknown (no outline range)

    @property
    def usd(self) -> float:
        """The estimated cost of one chapter (alias of `per_chapter_usd`)."""
        return self.per_chapter_usd

    def chapters_for(self, n: int) -> int:
        """How many of `n` requested chapters a run can write before the volume ends."""
        n = max(0, n)
        return n if self.chapters_left is None else min(n, self.chapters_left)

    def for_chapters(self, n: int) -> float:
        """The estimated cost of asking for `n` chapters (never more than the volume has left)."""
        return round(self.per_chapter_usd * self.chapters_for(n), 4)


def recent_log_costs(paths: ProjectPaths, limit: int = RECENT_LOGS) -> list[float]:
    """Costs of the latest `limit` chapter logs that report one (unreadable logs are skipped)."""
    folder = paths.root / "logs"
    if not folder.is_dir():
        return []
    numbered: list[tuple[int, PipelineLog]] = []
    for path in folder.iterdir():
        m = _LOG_NAME.match(path.name)
        if not m or not path.is_file():
            continue
        try:
            numbered.append((int(m.group(1)), PipelineLog.load(path)))
        except (StudioError, OSError):
            continue
    costs: list[float] = []
    for _, log in sorted(numbered, key=lambda item: item[0], reverse=True):
        cost = log.cost()
        if cost is not None and not bool(getattr(log, "offline", False)):
            costs.append(cost)
        if len(costs) >= limit:
            break
    return costs


def default_chapter_cost(settings: Settings) -> float:
    total = 0.0
    for agent, tokens_in, tokens_out in TYPICAL_CALLS:
        price = settings.price_for(settings.model_for(agent))
        if price is None:
            continue
        total += (tokens_in * price.input + tokens_out * price.output) / 1_000_000
    return round(total, 4)


def chapters_left_in_volume(paths: ProjectPaths) -> int | None:
    """Chapters the current volume still has to write (per its outline's range); None when unknown."""
    try:
        cp = Checkpoint.load_or_default(paths.checkpoint)
    except (StudioError, OSError):
        return None
    if cp.orchestrator_state is OrchestratorState.VOL_REVIEW:
        return 0
    outline_path = paths.outline(cp.current_volume)
    try:
        outline = parse_outline(read_text(outline_path), outline_path) if outline_path.is_file() else None
    except (StudioError, OSError):
        return None
    if outline is None or outline.chapter_range is None:
        return None
    return max(0, outline.chapter_range[1] - cp.next_chapter + 1)


def estimate_chapter_cost(paths: ProjectPaths, settings: Settings, *, offline: bool = False) -> CostEstimate:
    left = chapters_left_in_volume(paths)
    if offline:
        return CostEstimate(0.0, "offline", chapters_left=left)
    costs = recent_log_costs(paths)
    if costs:
        return CostEstimate(round(sum(costs) / len(costs), 4), "logs", len(costs), chapters_left=left)
    return CostEstimate(default_chapter_cost(settings), "default", chapters_left=left)
