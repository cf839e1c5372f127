"""Cost estimate of the next chapters, for `continue`'s preview and `--max-cost`.

The mean cost of the project's last 5 chapter logs that report a cost; without such logs, a default from
the settings' prices and typical token counts per stage (PRD 4.3 models: draft, summary, refine, judge).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from studio.errors import StudioError
from studio.models.pipeline_log import PipelineLog
from studio.models.settings import Settings
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

    @property
    def usd(self) -> float:
        """The estimated cost of one chapter (alias of `per_chapter_usd`)."""
        return self.per_chapter_usd

    def for_chapters(self, n: int) -> float:
        return round(self.per_chapter_usd * max(0, n), 4)


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


def estimate_chapter_cost(paths: ProjectPaths, settings: Settings, *, offline: bool = False) -> CostEstimate:
    if offline:
        return CostEstimate(0.0, "offline")
    costs = recent_log_costs(paths)
    if costs:
        return CostEstimate(round(sum(costs) / len(costs), 4), "logs", len(costs))
    return CostEstimate(default_chapter_cost(settings), "default")
