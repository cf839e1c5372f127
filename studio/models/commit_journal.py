"""`staging/commit-chapter-NNN.json`: the journal of one chapter's commit (see `pipeline.commit`).

Written by `prepare_commit` (its existence is the commit point) and rewritten after each step with the step
added to `steps_done`. `rebuilt` marks a journal `novel-studio repair` wrote in place of an unreadable one:
every step runs again (each is idempotent), and a staged file a step copies may already be gone while its
target is in place (`studio.commit_inputs`).
"""

from __future__ import annotations

from pydantic import Field

from studio.models.base import FileModel


class CommitJournal(FileModel):
    chapter: int = Field(ge=1)
    storyline_id: str | None = None
    patch_skipped: bool = False
    gate_decision: str | None = None
    steps_done: list[str] = Field(default_factory=list)
    rebuilt: bool = False
