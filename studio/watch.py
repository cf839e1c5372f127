"""Watching the project for the author's own edits (issue 4, section 7), without any UI.

`classify(path, root)` says what a file is to the studio (a chapter, an outline, a spec file ...) or None for
files the studio ignores: its own bookkeeping (staging/, logs/, state/, .novel-studio/, .novel.lock/, any
other hidden file or folder), the atomic writer's temp files (`.name.xxx.tmp`) and editor swap / backup files
(`.swp`, `foo~`, `.#foo`, vim's `4913` probe, `.partial`). The one hidden file it watches is the checkpoint
(`.checkpoint.json`): another process's commit ends by writing it.

`watch_project(root, on_change=...)` runs `watchfiles.awatch` on the project and, for every debounced batch,
calls `on_change` with the `ProjectChange`s that matter:

- a file whose content is exactly what the app last wrote (`studio.own_writes`) is dropped;
- a file whose content is exactly what ANOTHER novel-studio process last wrote there (the project's write
  log, `studio.write_log`: a `continue` in another terminal, a second studio or browser tab) is reported
  with `writer` = that process's pid: not the author's edit, but the view must follow it;
- a present file is read and validated with its model (JSON -> line/column for a syntax error, JSON path for
  a shape error; TOML; the outline parser; UTF-8 for Markdown). A broken file is reported with its problems
  and no value: the studio keeps its last good version and never rewrites the author's file;
- a file gone at the end of the batch is reported with `deleted=True` (an editor's delete-and-recreate
  within one batch is a plain change).

Reading and validating happen in a worker thread, so the event loop (the UI) never waits on the disk.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

from studio import own_writes
from studio.errors import FormatError, Problem, UnsafeIdError
from studio.fileio import decode_text, parse_json
from studio.ids import is_slug, parse_chapter_id, parse_volume_id
from studio.paths import SETTINGS_FILE
from studio.write_log import CHECKPOINT_NAME, IGNORED_DIRS, WriteLogReader


class Kind(StrEnum):
    CHAPTER = "chapter"
    SUMMARY = "summary"
    OUTLINE = "outline"
    SCHEDULE = "schedule"
    CONTRACT = "contract"
    SETTINGS = "settings"
    BRIEF = "brief"
    STYLE_PROFILE = "style_profile"
    BLACKLIST = "blacklist"
    STYLE_DRIFT = "style_drift"
    WORLD_RULES = "world_rules"
    CHARACTER = "character"
    CHARACTER_PROFILE = "character_profile"
    STORYLINES = "storylines"
    STORYLINE_SPEC = "storyline_spec"
    NAMES = "names"
    CHECK_ALLOW = "check_allow"
    CHECKPOINT = "checkpoint"


@dataclass(frozen=True)
class ChangeKind:
    """What a changed file is: `ChangeKind.CHAPTER(2)`, `ChangeKind.OUTLINE(1)`, `ChangeKind.SETTINGS` ..."""

    kind: Kind
    chapter: int | None = None
    volume: int | None = None
    slug: str | None = None  # character id

    SETTINGS: ClassVar[ChangeKind]
    BRIEF: ClassVar[ChangeKind]
    STYLE_PROFILE: ClassVar[ChangeKind]
    BLACKLIST: ClassVar[ChangeKind]
    STYLE_DRIFT: ClassVar[ChangeKind]
    WORLD_RULES: ClassVar[ChangeKind]
    STORYLINES: ClassVar[ChangeKind]
    STORYLINE_SPEC: ClassVar[ChangeKind]
    NAMES: ClassVar[ChangeKind]
    CHECK_ALLOW: ClassVar[ChangeKind]
    CHECKPOINT: ClassVar[ChangeKind]

    @classmethod
    def CHAPTER(cls, n: int) -> ChangeKind:
        return cls(Kind.CHAPTER, chapter=n)

    @classmethod
    def SUMMARY(cls, n: int) -> ChangeKind:
        return cls(Kind.SUMMARY, chapter=n)

    @classmethod
    def OUTLINE(cls, volume: int) -> ChangeKind:
        return cls(Kind.OUTLINE, volume=volume)

    @classmethod
    def SCHEDULE(cls, volume: int) -> ChangeKind:
        return cls(Kind.SCHEDULE, volume=volume)

    @classmethod
    def CONTRACT(cls, volume: int, chapter: int) -> ChangeKind:
        return cls(Kind.CONTRACT, chapter=chapter, volume=volume)

    @classmethod
    def CHARACTER(cls, slug: str) -> ChangeKind:
        return cls(Kind.CHARACTER, slug=slug)

    @classmethod
    def CHARACTER_PROFILE(cls, slug: str) -> ChangeKind:
        return cls(Kind.CHARACTER_PROFILE, slug=slug)


ChangeKind.SETTINGS = ChangeKind(Kind.SETTINGS)
ChangeKind.BRIEF = ChangeKind(Kind.BRIEF)
ChangeKind.STYLE_PROFILE = ChangeKind(Kind.STYLE_PROFILE)
ChangeKind.BLACKLIST = ChangeKind(Kind.BLACKLIST)
ChangeKind.STYLE_DRIFT = ChangeKind(Kind.STYLE_DRIFT)
ChangeKind.WORLD_RULES = ChangeKind(Kind.WORLD_RULES)
ChangeKind.STORYLINES = ChangeKind(Kind.STORYLINES)
ChangeKind.STORYLINE_SPEC = ChangeKind(Kind.STORYLINE_SPEC)
ChangeKind.NAMES = ChangeKind(Kind.NAMES)
ChangeKind.CHECK_ALLOW = ChangeKind(Kind.CHECK_ALLOW)
ChangeKind.CHECKPOINT = ChangeKind(Kind.CHECKPOINT)


@dataclass(frozen=True)
class ProjectChange:
    """One file the author changed. Plain data.

    `problems` is non-empty when the new content cannot be used (keep the last good version); `value` is
    the parsed new content when there is a model for it (a StyleProfile, a VolumeOutline, Settings ...),
    None for Markdown text (re-read it) and for broken or deleted files. `writer` is the pid of the other
    novel-studio process whose write this is (`studio.write_log`); None: the author's change.
    """

    kind: ChangeKind
    path: Path
    deleted: bool = False
    problems: list[Problem] = field(default_factory=list)
    value: Any = None
    writer: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


OnChange = Callable[[list["ProjectChange"]], Awaitable[None] | None]

# --------------------------------------------------------------------------------------------- classify

_CHAPTER_FILE = re.compile(r"^(chapter-\d{3,})\.md$")
_SUMMARY_FILE = re.compile(r"^(chapter-\d{3,})-summary\.md$")
_CONTRACT_FILE = re.compile(r"^(chapter-\d{3,})\.json$")
_EDITOR_JUNK = re.compile(r"(\.sw[a-z]$)|(~$)|(^\.#)|(^4913$)|(^#.*#$)|(\.tmp$)|(\.partial$)|(\.bak$)|(\.orig$)")


def _relative_parts(path: Path | str, root: Path | str) -> tuple[str, ...] | None:
    p, r = Path(path), Path(root)
    try:
        return p.relative_to(r).parts
    except ValueError:
        pass
    try:
        return p.resolve().relative_to(r.resolve()).parts
    except (ValueError, OSError):
        return None


def is_ignored_name(name: str) -> bool:
    """Hidden files, temp files and editor swap/backup files."""
    return name.startswith(".") or bool(_EDITOR_JUNK.search(name))


def classify(path: Path | str, root: Path | str) -> ChangeKind | None:
    """What `path` is to the studio, or None for a file it ignores (or one outside `root`)."""
    parts = _relative_parts(path, root)
    if not parts:
        return None
    if parts == (CHECKPOINT_NAME,):
        return ChangeKind.CHECKPOINT
    if any(is_ignored_name(part) for part in parts):
        return None
    name = parts[-1]
    if len(parts) == 1:
        return _TOP_LEVEL.get(name)
    top = parts[0]
    if top in IGNORED_DIRS:
        return None
    try:
        if top == "chapters" and len(parts) == 2:
            m = _CHAPTER_FILE.match(name)
            return ChangeKind.CHAPTER(parse_chapter_id(m.group(1))) if m else None
        if top == "summaries" and len(parts) == 2:
            m = _SUMMARY_FILE.match(name)
            return ChangeKind.SUMMARY(parse_chapter_id(m.group(1))) if m else None
        if top == "world" and len(parts) == 2:
            return {"rules.json": ChangeKind.WORLD_RULES, "names.json": ChangeKind.NAMES}.get(name)
        if top == "storylines" and len(parts) == 2:
            return {"storylines.json": ChangeKind.STORYLINES, "storyline-spec.json": ChangeKind.STORYLINE_SPEC}.get(
                name
            )
        if top == "characters" and len(parts) == 3 and parts[1] == "active":
            stem, _, ext = name.rpartition(".")
            if not is_slug(stem):
                return None
            if ext == "json":
                return ChangeKind.CHARACTER(stem)
            if ext == "md":
                return ChangeKind.CHARACTER_PROFILE(stem)
            return None
        if top == "volumes" and len(parts) >= 3:
            volume = parse_volume_id(parts[1])
            if len(parts) == 3 and name == "outline.md":
                return ChangeKind.OUTLINE(volume)
            if len(parts) == 3 and name == "storyline-schedule.json":
                return ChangeKind.SCHEDULE(volume)
            if len(parts) == 4 and parts[2] == "chapter-contracts":
                m = _CONTRACT_FILE.match(name)
                return ChangeKind.CONTRACT(volume, parse_chapter_id(m.group(1))) if m else None
    except UnsafeIdError:
        return None
    return None


_TOP_LEVEL: dict[str, ChangeKind] = {
    SETTINGS_FILE: ChangeKind.SETTINGS,
    "brief.md": ChangeKind.BRIEF,
    "style-profile.json": ChangeKind.STYLE_PROFILE,
    "ai-blacklist.json": ChangeKind.BLACKLIST,
    "style-drift.json": ChangeKind.STYLE_DRIFT,
    "checks-allow.json": ChangeKind.CHECK_ALLOW,
}

# --------------------------------------------------------------------------------------------- validate


def decode(data: bytes, path: Path | str) -> str:
    """UTF-8 text of `data` (BOM dropped); not UTF-8 -> FormatError with the line (as fileio.read_text)."""
    return decode_text(data, path)


# The FileModel of each JSON kind, as "module:Class" (imported lazily: the watcher starts before they are needed).
_JSON_MODELS: dict[Kind, str] = {
    Kind.STYLE_PROFILE: "studio.models.style_profile:StyleProfile",
    Kind.BLACKLIST: "studio.models.blacklist:AiBlacklist",
    Kind.STYLE_DRIFT: "studio.models.style_drift:StyleDrift",
    Kind.WORLD_RULES: "studio.models.world_rules:WorldRules",
    Kind.CHARACTER: "studio.models.character:CharacterFile",
    Kind.STORYLINES: "studio.models.storylines:Storylines",
    Kind.STORYLINE_SPEC: "studio.models.storyline_spec:StorylineSpec",
    Kind.SCHEDULE: "studio.models.schedule:StorylineSchedule",
    Kind.CONTRACT: "studio.models.contract:ChapterContract",
    Kind.NAMES: "studio.models.names:NamesFile",
    Kind.CHECK_ALLOW: "studio.models.check_allow:CheckAllowList",
    Kind.CHECKPOINT: "studio.models.checkpoint:Checkpoint",
}


def _json_model(kind: Kind) -> Any:
    """The FileModel class of a JSON kind, or None for kinds that are not JSON files."""
    target = _JSON_MODELS.get(kind)
    if target is None:
        return None
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


def _settings(text: str, path: Path, root: Path) -> Any:
    from studio.config import check_no_api_key, load_settings, parse_toml

    data = parse_toml(text, path)
    check_no_api_key(data, path)
    return load_settings(root)  # the effective settings with this file merged in (validated)


def validate(kind: ChangeKind, path: Path, data: bytes, root: Path) -> Any:
    """The parsed value of a changed file (None for Markdown text); FormatError when it cannot be used."""
    text = decode(data, path)
    if kind.kind is Kind.SETTINGS:
        return _settings(text, path, root)
    if kind.kind is Kind.OUTLINE:
        from studio.outline import parse_outline

        return parse_outline(text, path)
    model = _json_model(kind.kind)
    if model is None:
        return None  # Markdown: only UTF-8 is required
    return model.parse_data(parse_json(text, path), path)


def inspect_paths(
    root: Path, paths: Iterable[Path | str], peers: WriteLogReader | None = None
) -> list[ProjectChange]:
    """The ProjectChanges for a batch of changed paths (own writes and ignored files dropped; other
    processes' writes found in `peers`, a fresh reader of the project's write log when None). Blocking."""
    root = Path(root)
    if peers is None:
        peers = WriteLogReader(root)
    out: list[ProjectChange] = []
    for raw in sorted({os.fspath(p) for p in paths}):
        path = Path(raw)
        kind = classify(path, root)
        if kind is None:
            continue
        try:
            data: bytes | None = path.read_bytes()
        except FileNotFoundError:
            data = None
        except (IsADirectoryError, NotADirectoryError):
            continue
        except OSError as exc:
            own_writes.forget(path)
            peers.forget(path)
            out.append(ProjectChange(kind, path, problems=[Problem(path, f"cannot read: {exc.strerror or exc}")]))
            continue
        if own_writes.is_own(path, data):
            continue
        own_writes.forget(path)
        peer = peers.match(path, data)  # after reading the file: its record is logged before the rename
        writer = peer.pid if peer is not None else None
        if peer is None:
            peers.forget(path)
        if data is None:
            out.append(ProjectChange(kind, path, deleted=True, writer=writer))
            continue
        try:
            value = validate(kind, path, data, root)
        except FormatError as exc:
            out.append(ProjectChange(kind, path, problems=list(exc.problems), writer=writer))
            continue
        out.append(ProjectChange(kind, path, value=value, writer=writer))
    return out


# --------------------------------------------------------------------------------------------- watch

DEFAULT_DEBOUNCE_MS = 400
TICK_MS = 250  # how often the watcher thread wakes without events (sets `ready`, checks `stop_event`)


async def watch_project(
    root: Path | str,
    *,
    on_change: OnChange,
    stop_event: asyncio.Event | None = None,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    ready: asyncio.Event | None = None,
    force_polling: bool | None = None,
) -> None:
    """Watch `root` until `stop_event` is set (or the task is cancelled), reporting the author's changes.

    `on_change` gets each debounced batch (never empty); it may be a plain or an async function. `ready` is
    set once the file watches are in place (changes made before that may be missed).
    """
    from watchfiles import awatch  # local: only the studio needs it

    root_path = Path(root).resolve()
    peers = WriteLogReader(root_path)
    await asyncio.to_thread(peers.refresh)  # the log so far read now, not on the first change

    def keep(_change: object, path: str) -> bool:
        return classify(path, root_path) is not None

    async for batch in awatch(
        root_path,
        watch_filter=keep,
        debounce=max(1, debounce_ms),
        step=min(50, max(1, debounce_ms)),
        stop_event=stop_event,
        rust_timeout=TICK_MS,
        yield_on_timeout=True,
        force_polling=force_polling,
    ):
        if ready is not None and not ready.is_set():
            ready.set()
        if not batch:
            continue
        changes = await asyncio.to_thread(inspect_paths, root_path, [path for _, path in batch], peers)
        if not changes:
            continue
        result = on_change(changes)
        if inspect.isawaitable(result):
            await result


__all__ = [
    "ChangeKind",
    "Kind",
    "ProjectChange",
    "classify",
    "decode",
    "inspect_paths",
    "is_ignored_name",
    "validate",
    "watch_project",
]
