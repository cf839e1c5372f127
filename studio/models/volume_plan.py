"""A volume plan: PlotArchitect's reply and the staged plan it becomes (seed 000 §5.3, §6.6.2; issue 7 item 3).

The plan is not a file format of its own: it is the set of a volume's files, each defined by its own model,
seen together so that they can be checked as one:

    volumes/vol-NN/outline.md                       VolumeOutline (studio.outline)
    volumes/vol-NN/storyline-schedule.json          StorylineSchedule
    volumes/vol-NN/foreshadowing.json               ForeshadowingLedger (the threads this volume plants)
    volumes/vol-NN/chapter-contracts/chapter-NNN.json   ChapterContract, one per chapter

`VolumePlanReply` is the JSON PlotArchitect answers with (`prompts/plot-architect.v1.md`): the outline as
Markdown in `outline_md`, the schedule, the threads and the contracts (contracts may come in later batches, so
the list may be empty). Unknown fields are kept, like every model here.

Outline entries carry the planning fields of the seed: storyline, POV, location, conflict, arc, foreshadowing
and state changes are `OutlineChapter` fields; the 爽点 (payoff) and the chapter-end hook are written as
`- Payoff:` / `- Hook:` lines (kept in `OutlineChapter.extra`); `payoff()` and `hook()` also read the Chinese
labels 爽点 / 章末钩子 / 钩子 from the entry's notes, for hand-written outlines.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from studio.errors import FormatError, Problem
from studio.fileio import read_text
from studio.models.base import FileModel
from studio.models.contract import ChapterContract
from studio.models.foreshadowing import ForeshadowingItem, ForeshadowingLedger
from studio.models.schedule import StorylineSchedule
from studio.outline import OutlineChapter, VolumeOutline, parse_outline
from studio.paths import ProjectPaths

__all__ = ["VolumePlan", "VolumePlanReply", "hook", "load_volume_plan", "payoff"]

_CONTRACT_FILE = re.compile(r"^chapter-(\d{3,})\.json$")
_PAYOFF_KEYS = ("payoff", "爽点")
_HOOK_KEYS = ("hook", "章末钩子", "钩子", "chapter-end hook")


def _labelled(chapter: OutlineChapter, keys: tuple[str, ...]) -> str | None:
    for key, value in chapter.extra.items():
        if key.strip().lower() in keys and value.strip():
            return value.strip()
    for note in chapter.notes:
        text = note.lstrip("-*+ ").strip()
        for key in keys:
            for sep in ("：", ":"):
                if text.lower().startswith(key + sep):
                    value = text[len(key) + 1 :].strip()
                    if value:
                        return value
    return None


def payoff(chapter: OutlineChapter) -> str | None:
    """The chapter's 爽点 (`- Payoff:` line, or a 爽点： note)."""
    return _labelled(chapter, _PAYOFF_KEYS)


def hook(chapter: OutlineChapter) -> str | None:
    """The chapter-end hook (`- Hook:` line, or a 章末钩子： / 钩子： note)."""
    return _labelled(chapter, _HOOK_KEYS)


class VolumePlan(BaseModel):
    """The files of one planned volume, parsed."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    volume: int = Field(ge=1)
    first_chapter: int = Field(ge=1)
    last_chapter: int = Field(ge=1)
    outline: VolumeOutline
    schedule: StorylineSchedule
    foreshadowing: list[ForeshadowingItem] = Field(default_factory=list)
    contracts: list[ChapterContract] = Field(default_factory=list)

    def chapters(self) -> range:
        return range(self.first_chapter, self.last_chapter + 1)

    def contract(self, chapter: int) -> ChapterContract | None:
        return next((c for c in self.contracts if c.chapter == chapter), None)


class VolumePlanReply(FileModel):
    """PlotArchitect's JSON reply (outline, schedule and threads in one call; contracts possibly batched)."""

    outline_md: str = Field(min_length=1)
    storyline_schedule: StorylineSchedule
    foreshadowing: list[ForeshadowingItem] = Field(default_factory=list)
    chapter_contracts: list[ChapterContract] = Field(default_factory=list)

    def to_plan(self, volume: int, first_chapter: int, last_chapter: int) -> VolumePlan:
        """The plan of the reply; an outline that does not parse raises FormatError (names the line)."""
        outline = parse_outline(self.outline_md, f"vol-{volume:02d}/outline.md")
        return VolumePlan(
            volume=volume,
            first_chapter=first_chapter,
            last_chapter=last_chapter,
            outline=outline,
            schedule=self.storyline_schedule,
            foreshadowing=list(self.foreshadowing),
            contracts=list(self.chapter_contracts),
        )


def load_volume_plan(
    paths: ProjectPaths, volume: int, *, root: Path | None = None, outline_text: str | None = None
) -> VolumePlan:
    """The plan of `volume` from its files under `root` (default: the project's `volumes/`; pass the staging
    folder's `volumes/` for a staged plan), the outline from `outline_text` when given. The chapter range is the
    outline's. Raises FormatError."""
    base = paths.volume_dir(volume) if root is None else root / paths.volume_dir(volume).name
    outline_path = base / "outline.md"
    if outline_text is None and not outline_path.is_file():
        raise FormatError([Problem(outline_path, "missing: the volume has no outline")])
    outline = parse_outline(read_text(outline_path) if outline_text is None else outline_text, outline_path)
    chapter_range = outline.chapter_range or (1, 0)
    schedule_path = base / "storyline-schedule.json"
    schedule = StorylineSchedule.load(schedule_path) if schedule_path.is_file() else StorylineSchedule(volume=volume)
    threads_path = base / "foreshadowing.json"
    threads = ForeshadowingLedger.load(threads_path).foreshadowing if threads_path.is_file() else []
    contracts: list[ChapterContract] = []
    folder = base / "chapter-contracts"
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if _CONTRACT_FILE.match(path.name):
                contracts.append(ChapterContract.load(path))
    first, last = chapter_range
    return VolumePlan(
        volume=volume,
        first_chapter=first,
        last_chapter=max(first, last),
        outline=outline,
        schedule=schedule,
        foreshadowing=threads,
        contracts=sorted(contracts, key=lambda c: c.chapter),
    )
