"""`logs/chapter-NNN-log.json`: what each pipeline stage cost, for debugging and the cost report (seed 001 9.2).

A null token or cost field means the provider did not report it; it is never read as zero when it matters:
`cost()` is None when no stage reported a cost, and `tokens_reported()` tells a real 0 from "unknown".
The seed's minimal stage (`name, model, duration_ms, input_tokens, output_tokens`) is a complete stage.

Prompt versions (issue 9 item 8): each stage names its `prompt_id` and `prompt_version` (logged as written:
`1`, `"1"` or `"v1"`; `parse_prompt_version` reads them all), `prefix_hash` (sha256, 12 hex, of the request's
whole cached prefix) and `section_hashes` (tier -> sha256, 12 hex, of each rendered cached section as sent:
`stable` = the system text, `volume` = the cached part of the user turn). The log's `prompt_versions` is
prompt id -> version over all its stages; `prompt_versions_used()` falls back to the stages for older logs.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from studio.models.base import FileModel
from studio.models.storylines import StorylineId


def parse_prompt_version(value: object) -> int | None:
    """A logged prompt version (`1`, `"1"`, `"v1"`) as an int; None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 1 else None
    if isinstance(value, str):
        text = value.strip().lstrip("vV")
        return int(text) if text.isdigit() and int(text) >= 1 else None
    return None


class StageLog(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    name: str = Field(min_length=1)  # draft, summarize, refine, judge, revise, ...
    model: str | None = None
    duration_ms: int | None = Field(default=None, ge=0)
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cache_creation_input_tokens: int | None = Field(default=None, ge=0)
    cache_read_input_tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    prompt_id: str | None = None
    prompt_version: str | int | None = None
    estimated_prompt_tokens: int | None = Field(
        default=None, ge=0
    )  # our own count, when the provider's is null
    ttft_ms: int | None = Field(default=None, ge=0)  # time to first token (streaming)
    section_hashes: dict[str, str] | None = None  # `prefix_hash` stays an extra field (it was one first)

    def _token_fields(self) -> list[int | None]:
        return [
            self.input_tokens,
            self.output_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
        ]

    def total_tokens(self) -> int:
        """Input + output + cache tokens; an unreported (null) count adds 0."""
        return sum(n or 0 for n in self._token_fields())

    def tokens_reported(self) -> bool:
        return any(n is not None for n in self._token_fields())


class PipelineLog(FileModel):
    chapter: int = Field(ge=1)
    storyline_id: StorylineId | None = None
    started_at: str | None = None  # ISO 8601 as written; kept verbatim
    stages: list[StageLog] = Field(default_factory=list)
    gate_decision: str | None = None
    revisions: int = Field(default=0, ge=0)
    total_duration_ms: int | None = Field(default=None, ge=0)
    total_cost_usd: float | None = Field(default=None, ge=0)
    prompt_versions: dict[str, int] | None = None

    def prompt_versions_used(self) -> dict[str, int]:
        """prompt id -> version this chapter's calls used (the log's table, else read from its stages; a
        prompt logged at two versions keeps the later stage's)."""
        if self.prompt_versions:
            return dict(self.prompt_versions)
        found: dict[str, int] = {}
        for stage in self.stages:
            version = parse_prompt_version(stage.prompt_version)
            if stage.prompt_id and version is not None:
                found[stage.prompt_id] = version
        return found

    def total_tokens(self) -> int:
        return sum(stage.total_tokens() for stage in self.stages)

    def tokens_reported(self) -> bool:
        return any(stage.tokens_reported() for stage in self.stages)

    def cost(self) -> float | None:
        """Sum of the stage costs that were reported; falls back to `total_cost_usd` when none was."""
        costs = [stage.cost_usd for stage in self.stages if stage.cost_usd is not None]
        if not costs:
            return self.total_cost_usd
        return round(sum(costs), 6)

    def cache_read_share(self) -> float | None:
        """The share of all input tokens (uncached + cache writes + cache reads) served from the prompt cache,
        0..1 rounded to 3 decimals; None when no stage reported input tokens."""
        reported = [s for s in self.stages if s.input_tokens is not None or s.cache_read_input_tokens is not None]
        total = sum(
            (s.input_tokens or 0) + (s.cache_creation_input_tokens or 0) + (s.cache_read_input_tokens or 0)
            for s in reported
        )
        if not total:
            return None
        return round(sum(s.cache_read_input_tokens or 0 for s in reported) / total, 3)

    def duration_ms(self) -> int | None:
        durations = [stage.duration_ms for stage in self.stages if stage.duration_ms is not None]
        return sum(durations) if durations else self.total_duration_ms
