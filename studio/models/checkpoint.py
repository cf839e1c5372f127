"""`.checkpoint.json` (seed 001 section 9.2): where the run stands, so a cold start can resume it.

Accepted input variants (the reference plugin, DankerMu/novel-writer-plugin, writes them):
- `current_volume: 0` during its quick start (the golden three chapters, before volume planning). Those
  chapters live in `volumes/vol-01/`, so 0 is read as volume 1 (and written back as 1).
- `pipeline_stage` names of the plugin's own loop: `refining` (the refiner was running: a draft exists)
  and `summarized` (the Summarizer finished) read as `drafted`. A stage is only a lower bound of progress;
  the cold start decides from the staging files what is really done (studio/recovery.py).
- its extra fields (`schema_version`, `quick_start_step`, `eval_backend`, ...) are kept on rewrite.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, field_validator

from studio.fileio import atomic_write_json
from studio.models.base import FileModel
from studio.paths import ProjectPaths


class OrchestratorState(StrEnum):
    """The orchestrator state machine (PRD 8.2). A missing checkpoint file means INIT."""

    INIT = "INIT"
    QUICK_START = "QUICK_START"
    VOL_PLANNING = "VOL_PLANNING"
    WRITING = "WRITING"
    CHAPTER_REWRITE = "CHAPTER_REWRITE"
    VOL_REVIEW = "VOL_REVIEW"
    ERROR_RETRY = "ERROR_RETRY"


class PipelineStage(StrEnum):
    """Progress of the inflight chapter; `None` in the checkpoint means idle."""

    DRAFTING = "drafting"
    DRAFTED = "drafted"
    REFINED = "refined"
    JUDGED = "judged"
    REVISING = "revising"
    COMMITTED = "committed"


# Stage names other tools write, mapped to the stage of ours that is a safe lower bound of their progress.
STAGE_ALIASES: dict[str, PipelineStage] = {
    "refining": PipelineStage.DRAFTED,
    "summarized": PipelineStage.DRAFTED,
    "summarizing": PipelineStage.DRAFTED,
}

RevisionKind = Literal["revision", "polish", "rewrite"]


def now_iso() -> str:
    """Local time with its UTC offset, to the second: readable by the author, comparable across hosts."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


class PendingAction(FileModel):
    """A pause waiting for the author (seed 003 10.5 `requires_user_decision`).

    `evaluation_path` points at an evaluation file; `evaluation` embeds one (or an excerpt) when the
    file may not survive (e.g. a staging evaluation about to be rewritten). Extra fields are kept.
    """

    kind: str = Field(min_length=1)  # "gate_low_score", "quality_brief", "volume_end", "force_pass_refused"
    chapter: int | None = Field(default=None, ge=1)
    question: str = ""
    options: list[str] = Field(default_factory=list)
    recommended: str | None = None
    rationale: str = ""
    evaluation_path: str | None = None
    evaluation: dict[str, Any] | None = None
    created_at: str = Field(default_factory=now_iso)


class Checkpoint(FileModel):
    last_completed_chapter: int = Field(default=0, ge=0)
    current_volume: int = Field(default=1, ge=1)
    orchestrator_state: OrchestratorState = OrchestratorState.INIT
    pipeline_stage: PipelineStage | None = None
    inflight_chapter: int | None = Field(default=None, ge=1)
    # Older checkpoints lack the next fields; the defaults keep them loadable.
    revision_count: int = Field(default=0, ge=0)
    revision_kind: RevisionKind | None = None  # which loop `revising` was in, so a resume repeats it
    pending_actions: list[PendingAction] = Field(default_factory=list)
    last_checkpoint_time: str | None = None
    skipped_ops_chapters: list[int] = Field(default_factory=list)  # seed 003 10.6: >= 3 -> suggest rebuild

    @field_validator("current_volume", mode="before")
    @classmethod
    def _quick_start_volume(cls, value: Any) -> Any:
        return 1 if value == 0 and not isinstance(value, bool) else value

    @field_validator("pipeline_stage", mode="before")
    @classmethod
    def _stage_alias(cls, value: Any) -> Any:
        return STAGE_ALIASES.get(value, value) if isinstance(value, str) else value

    @property
    def next_chapter(self) -> int:
        return self.last_completed_chapter + 1


def save_checkpoint(paths: ProjectPaths, cp: Checkpoint) -> Checkpoint:
    """Stamp `last_checkpoint_time` and write atomically; returns the stamped checkpoint (same object)."""
    cp.last_checkpoint_time = now_iso()
    atomic_write_json(paths.checkpoint, cp.to_data())
    return cp
