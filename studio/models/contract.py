"""`volumes/vol-NN/chapter-contracts/chapter-NNN.json`: the L3 chapter contract (seed 000 6.5.4, 6.6.3).

Only `chapter` is required: the seed shows contracts with just the storyline part and ones with just the
pre/postconditions. `storyline_id` is a slug. An objective without `required` counts as required, because
acceptance criteria cite objectives by id. Character states are keyed as the author wrote them (display
name or id); their values are kept as free objects.

Accepted input variant: the reference plugin (DankerMu/novel-writer-plugin) writes contracts as Markdown
(`chapter-NNN.md`, its `templates/chapter-contract.md`). studio/contract_markdown.py reads one into this
model (storyline, world rules, foreshadowing updates, acceptance criteria, an event objective) and keeps
every section's text in the extra field `sections`; those files are read only, never rewritten.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from studio.models.base import FileModel
from studio.models.storylines import StorylineId


class _Object(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Preconditions(_Object):
    character_states: dict[str, Any] = Field(default_factory=dict)
    required_world_rules: list[str] = Field(default_factory=list)


class Objective(_Object):
    id: str = Field(min_length=1)
    type: str = ""
    required: bool = True
    description: str = ""
    action: str | None = None  # foreshadowing objectives: plant / advance / resolve
    target: str | None = None  # the foreshadowing id (or other entity) the action applies to


class Postconditions(_Object):
    state_changes: dict[str, Any] = Field(default_factory=dict)
    foreshadowing_updates: dict[str, str] = Field(default_factory=dict)


class StorylineContext(_Object):
    last_chapter_on_this_line: int | None = Field(default=None, ge=1)
    last_chapter_summary: str = ""
    chapters_since_last: int | None = Field(default=None, ge=0)
    line_arc_progress: str | float | None = None  # the seed writes "40%"
    concurrent_state: dict[str, str] = Field(default_factory=dict)  # storyline id -> one-line progress


class TransitionHint(_Object):
    next_storyline: str | None = None
    bridge: str = ""


class ChapterContract(FileModel):
    chapter: int = Field(ge=1)
    storyline_id: StorylineId | None = None
    preconditions: Preconditions = Field(default_factory=Preconditions)
    objectives: list[Objective] = Field(default_factory=list)
    postconditions: Postconditions = Field(default_factory=Postconditions)
    acceptance_criteria: list[str] = Field(default_factory=list)
    storyline_context: StorylineContext | None = None
    transition_hint: TransitionHint | None = None

    def required_objectives(self) -> list[Objective]:
        return [o for o in self.objectives if o.required]
