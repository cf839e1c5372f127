"""What the story checks (continuity, storyline leaks, foreshadowing, structure, style drift) know about the
project besides the chapter text: loaded lazily, each source once, and each one that is missing or broken
read as empty (a check never fails on a broken plan file: `status` and the studio report those).

Sources and formats:

- the state history: `state/changelog.jsonl` folded into per-chapter "before" facts (`StateFacts`: a character's
  `status`, an item's `holder`, ordered attributes; the conventions are in `studio.models.state`). The fold
  reads only those fields (fast: no state model per chapter). When only the last chapter is checked (after a
  commit), `logs/chapter-NNN/state-before.json` (the commit's undo copy) and that chapter's line near the
  changelog's end are read instead, so the time does not grow with the book.
- the chapter meta: `logs/chapter-NNN/chapter-NNN-summary.json` (the Summarizer's metadata archived at commit:
  `storyline_id`, `leak_risk`, `cross_references`, and the structure tags `chapter_function`, `hook_type`,
  `emotional_beat`, `goal_progress`); before the commit `staging/summaries/` holds the same file (read first:
  a chapter under review). A chapter
  without it falls back to the pipeline log's `storyline_id`, then the volume outline's `Storyline:`.
- the plan: every `volumes/vol-NN/outline.md` (which chapters a volume holds) and `storyline-schedule.json`
  (convergence events, storyline targets), `storylines/storylines.json`, the foreshadowing ledger and the style
  profile, all as the project loaded them where it did.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from studio.errors import FormatError
from studio.fileio import read_json, read_text
from studio.ids import chapter_id
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.schedule import StorylineSchedule
from studio.models.state import ORDERED_ATTRIBUTES_KEY
from studio.models.storylines import Storylines
from studio.models.style_profile import StyleProfile
from studio.outline import VolumeOutline, chapter_numbers, parse_outline
from studio.paths import ProjectPaths

TAIL_BYTES = 256 * 1024
STATE_BEFORE = "state-before.json"  # written by the commit step into logs/chapter-NNN/ (pipeline.commit)
_VOLUME_DIR = re.compile(r"^vol-(\d+)$")
T = TypeVar("T")


@dataclass
class StateFacts:
    """The state fields the continuity check reads, at one moment of the story.

    `status[char]`, `holder[item]` (a character slug), `attributes[(char, attr)]` for the ordered attributes
    declared in `ladders` (attribute -> its ranks, lowest first; an empty ladder: a number), and `names` (slug ->
    display name) for characters and items."""

    status: dict[str, str] = field(default_factory=dict)
    holder: dict[str, str] = field(default_factory=dict)
    attributes: dict[tuple[str, str], Any] = field(default_factory=dict)
    ladders: dict[str, list[str]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    former: dict[str, tuple[str, ...]] = field(default_factory=dict)  # item -> its earlier holders, oldest first

    def copy(self) -> StateFacts:
        return StateFacts(
            dict(self.status),
            dict(self.holder),
            dict(self.attributes),
            dict(self.ladders),
            dict(self.names),
            dict(self.former),
        )

    @classmethod
    def from_state(cls, data: Mapping[str, Any]) -> StateFacts:
        facts = cls()
        world = data.get("world_state")
        if isinstance(world, dict):
            facts._set_ladders(world.get(ORDERED_ATTRIBUTES_KEY))
        for top in ("characters", "items"):
            entities = data.get(top)
            if not isinstance(entities, dict):
                continue
            for slug, fields in entities.items():
                if isinstance(fields, dict):
                    for key, value in fields.items():
                        facts.set(f"{top}.{slug}.{key}", value)
        return facts

    def _set_ladders(self, value: Any) -> None:
        if isinstance(value, dict):
            self.ladders = {
                str(k): [str(r) for r in v] for k, v in value.items() if isinstance(v, list)
            }

    def set(self, path: str, value: Any) -> None:
        """Record a `set` op (or a field of a snapshot) at dotted `path`; other paths are ignored."""
        parts = path.split(".")
        if parts[0] == "world_state" and len(parts) == 2 and parts[1] == ORDERED_ATTRIBUTES_KEY:
            self._set_ladders(value)
            return
        if parts[0] == "world_state" and len(parts) == 3 and parts[1] == ORDERED_ATTRIBUTES_KEY:
            if isinstance(value, list):
                self.ladders[parts[2]] = [str(r) for r in value]
            return
        if len(parts) != 3 or parts[0] not in ("characters", "items"):
            return
        _, slug, key = parts
        if key == "display_name" and isinstance(value, str):
            self.names[slug] = value
        elif parts[0] == "characters" and key == "status" and isinstance(value, str):
            self.status[slug] = value.strip().lower()
        elif parts[0] == "items" and key == "holder":
            old = self.holder.get(slug)
            new = value if isinstance(value, str) and value else None
            if old is not None and old != new:
                self.former[slug] = (*(h for h in self.former.get(slug, ()) if h != old), old)
            if new is None:
                self.holder.pop(slug, None)
            else:
                self.holder[slug] = new
        elif parts[0] == "characters" and key in self.ladders:
            self.attributes[(slug, key)] = value

    def apply(self, ops: Iterable[Mapping[str, Any]]) -> None:
        ops = list(ops)
        # ladders first: a chapter may declare an ordered attribute after setting it
        ladders = [op for op in ops if str(op.get("path", "")).startswith(f"world_state.{ORDERED_ATTRIBUTES_KEY}")]
        for op in [*ladders, *(op for op in ops if op not in ladders)]:
            path, kind, value = op.get("path"), op.get("op"), op.get("value")
            if not isinstance(path, str):
                continue
            if kind == "set":
                self.set(path, value)
            elif kind == "inc" and isinstance(value, int | float):
                parts = path.split(".")
                if len(parts) == 3 and parts[0] == "characters" and parts[2] in self.ladders:
                    old = self.attributes.get((parts[1], parts[2]), 0)
                    if isinstance(old, int | float):
                        self.attributes[(parts[1], parts[2])] = old + value


@dataclass(frozen=True)
class ChapterChanges:
    """A chapter's state story: the facts before it and the (raw) ops its commit applied."""

    before: StateFacts
    ops: list[dict[str, Any]]


def _raw_entries(path: Path) -> list[dict[str, Any]]:
    """The changelog's lines as plain dicts (the fold needs no model); a broken line is skipped."""
    out: list[dict[str, Any]] = []
    try:
        text = read_text(path)
    except (OSError, FormatError):
        return out
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


def _ops(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    ops = entry.get("ops")
    return [op for op in ops if isinstance(op, dict)] if isinstance(ops, list) else []


def changes_by_chapter(entries: Iterable[Mapping[str, Any]], wanted: set[int] | None = None) -> dict[int, ChapterChanges]:
    """Fold changelog entries (in order) into each chapter's facts-before and ops; `wanted` limits the copies."""
    facts = StateFacts()
    out: dict[int, ChapterChanges] = {}
    for entry in entries:
        snapshot = entry.get("snapshot")
        if isinstance(snapshot, dict):
            facts = StateFacts.from_state(snapshot)
        if entry.get("kind") == "foreign":
            continue
        chapter = entry.get("chapter")
        ops = _ops(entry)
        if isinstance(chapter, int) and chapter >= 1 and (wanted is None or chapter in wanted):
            earlier = out.get(chapter)
            # a rebuilt chapter's ops replace the earlier ones; what stood before the chapter stays
            before = earlier.before if earlier is not None and entry.get("kind") == "rebuild" else facts.copy()
            out[chapter] = ChapterChanges(before, ops)
        facts.apply(ops)
    return out


class StoryFacts:
    """The project facts of the story checks, each loaded on first use (see the module rules)."""

    def __init__(
        self,
        paths: ProjectPaths,
        *,
        storylines: Storylines | None = None,
        ledger: ForeshadowingLedger | None = None,
        style_profile: StyleProfile | None = None,
        committed: Iterable[int] = (),
    ) -> None:
        self.paths = paths
        self._storylines = storylines
        self._ledger = ledger
        self._style_profile = style_profile
        self.committed = sorted(committed)

    # ---------------------------------------------------------------- plan

    @cached_property
    def storylines(self) -> Storylines:
        if self._storylines is not None:
            return self._storylines
        return _load(lambda: Storylines.load_or_default(self.paths.storylines), Storylines())

    @cached_property
    def ledger(self) -> ForeshadowingLedger:
        if self._ledger is not None:
            return self._ledger
        return _load(lambda: ForeshadowingLedger.load_or_default(self.paths.global_foreshadowing), ForeshadowingLedger())

    @cached_property
    def style_profile(self) -> StyleProfile:
        if self._style_profile is not None:
            return self._style_profile
        return _load(lambda: StyleProfile.load_or_default(self.paths.style_profile), StyleProfile())

    @cached_property
    def volumes(self) -> list[int]:
        folder = self.paths.root / "volumes"
        if not folder.is_dir():
            return []
        return sorted(int(m.group(1)) for p in folder.iterdir() if (m := _VOLUME_DIR.match(p.name)))

    def outline(self, volume: int) -> VolumeOutline | None:
        """A volume's outline, parsed on first use (None when missing or broken)."""
        if volume not in self._outlines:
            path = self.paths.outline(volume)
            try:
                self._outlines[volume] = parse_outline(read_text(path), path) if path.is_file() else None
            except (OSError, FormatError):
                self._outlines[volume] = None
        return self._outlines[volume]

    @cached_property
    def _outlines(self) -> dict[int, VolumeOutline | None]:
        return {}

    def schedule(self, volume: int) -> StorylineSchedule | None:
        """A volume's storyline schedule, loaded on first use (None when missing or broken)."""
        if volume not in self._schedules:
            path = self.paths.schedule(volume)
            try:
                self._schedules[volume] = StorylineSchedule.load(path) if path.is_file() else None
            except (OSError, FormatError):
                self._schedules[volume] = None
        return self._schedules[volume]

    @cached_property
    def _schedules(self) -> dict[int, StorylineSchedule | None]:
        return {}

    @cached_property
    def _chapter_index(self) -> dict[int, list[int]]:
        """Volume -> the chapter numbers its outline lists (headings only: no model, cheap after a commit)."""
        out: dict[int, list[int]] = {}
        for volume in self.volumes:
            path = self.paths.outline(volume)
            try:
                out[volume] = sorted(chapter_numbers(read_text(path))) if path.is_file() else []
            except (OSError, FormatError):
                out[volume] = []
        return out

    def volume_of(self, chapter: int) -> int | None:
        """The volume whose outline lists `chapter`; None when no outline does."""
        for volume, chapters in self._chapter_index.items():
            if chapter in chapters:
                return volume
        return None

    def volume_chapters(self, volume: int) -> list[int]:
        return list(self._chapter_index.get(volume, []))

    def convergence(self, chapter: int) -> set[str] | None:
        """The storylines of a planned convergence event covering `chapter` (the schedule of the chapter's volume,
        or every volume's when no outline lists it: the ranges are book chapter numbers); None when the chapter
        is in no convergence event."""
        lines: set[str] | None = None
        volume = self.volume_of(chapter)
        for v in [volume] if volume is not None else self.volumes:
            schedule = self.schedule(v)
            for event in schedule.convergence_events if schedule is not None else []:
                if chapter in event.chapters():
                    lines = (lines or set()) | set(event.involved_storylines)
        return lines

    # ---------------------------------------------------------------- chapter meta

    def meta(self, chapter: int) -> dict[str, Any]:
        """The Summarizer's metadata of `chapter` (empty when there is none, or before chapter 1)."""
        if chapter < 1:
            return {}
        cached = self._meta.get(chapter)
        if cached is None:
            cid = chapter_id(chapter)
            cached = {}
            for path in (
                self.paths.staging / "summaries" / f"{cid}-summary.json",  # a chapter under review
                self.paths.root / "logs" / cid / f"{cid}-summary.json",
            ):
                if path.is_file():
                    try:
                        data = read_json(path)
                    except (OSError, FormatError):
                        continue
                    if isinstance(data, dict):
                        cached = data
                        break
            self._meta[chapter] = cached
        return cached

    @cached_property
    def _meta(self) -> dict[int, dict[str, Any]]:
        return {}

    def planned_text(self, chapter: int) -> str:
        """The chapter's outline entry as one text (`OutlineChapter.plan_text`); "" without one."""
        volume = self.volume_of(chapter)
        outline = self.outline(volume) if volume is not None else None
        entry = outline.get(chapter) if outline is not None else None
        return entry.plan_text() if entry is not None else ""

    def storyline(self, chapter: int) -> str | None:
        """The chapter's storyline: the Summarizer's meta, the pipeline log, then the outline."""
        value = self.meta(chapter).get("storyline_id")
        if isinstance(value, str) and value:
            return value
        log = self.paths.log(chapter)
        if log.is_file():
            try:
                data = read_json(log)
            except (OSError, FormatError):
                data = None
            if isinstance(data, dict) and isinstance(data.get("storyline_id"), str):
                return str(data["storyline_id"])
        volume = self.volume_of(chapter)
        outline = self.outline(volume) if volume is not None else None
        for c in outline.chapters if outline is not None else []:
            if c.number == chapter and c.storyline:
                return c.storyline
        return None

    # ---------------------------------------------------------------- state history

    def changes(self, chapters: Iterable[int]) -> dict[int, ChapterChanges]:
        """Each chapter's facts-before and ops. When the only chapter asked for is the changelog's last one,
        the commit's `state-before.json` copy is read instead of the whole changelog (flat after a commit)."""
        wanted = set(chapters)
        if len(wanted) == 1:
            (n,) = wanted
            fast = self._last_changes(n)
            if fast is not None:
                return {n: fast}
        return changes_by_chapter(_raw_entries(self.paths.changelog), wanted)

    def _last_changes(self, chapter: int) -> ChapterChanges | None:
        before = self.paths.root / "logs" / chapter_id(chapter) / STATE_BEFORE
        if not before.is_file():
            return None
        last = _tail_entry(self.paths.changelog, chapter)
        if last is None:
            return None
        try:
            data = read_json(before)
        except (OSError, FormatError):
            return None
        return ChapterChanges(StateFacts.from_state(data) if isinstance(data, dict) else StateFacts(), _ops(last))


def _tail_entry(path: Path, chapter: int) -> dict[str, Any] | None:
    """The last patch or rebuild line of `chapter` among the changelog's last lines (its tail only: a recent
    chapter is near the end); None when it is not there, or a line in the way is torn."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, 2)
            fh.seek(max(0, size - TAIL_BYTES))
            tail = fh.read()
    except OSError:
        return None
    lines = tail.split(b"\n")
    if size > TAIL_BYTES:
        lines = lines[1:]  # the first one may be cut
    for line in reversed(lines):
        if not line.strip():
            continue
        try:
            data = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None
        if isinstance(data, dict) and data.get("chapter") == chapter and data.get("kind") in ("patch", "rebuild"):
            return data
    return None


def _load(loader: Callable[[], T], default: T) -> T:
    try:
        value = loader()
    except (OSError, FormatError):
        return default
    return value
