"""Undo: take back the last committed chapter (issue 3 section 4).

Order, chosen so a kill at any point leaves something `undo` can simply run again:

1. back up every file of the chapter, and the state, changelog, ledger and memory as they are now, into
   `.novel-studio/undo/chapter-NNN-<timestamp>/` (nothing is ever lost);
2. truncate `state/changelog.jsonl` before this chapter's patch line, then rewrite `current-state.json` as
   the state the kept lines end on: their replay when the log describes the whole state (an init snapshot
   first, or its replay gives the current state), else the commit's copy `logs/chapter-NNN/state-before.json`;
   with neither, undo refuses before changing anything (the state is never recomputed from empty over data
   the log does not describe). Both by the atomic writer; a second run finds the log cut and writes the same
   state;
3. restore `foreshadowing/global.json` and the storyline memory from the "before" copies the commit kept
   in `logs/chapter-NNN/` (a file that did not exist before the chapter is removed);
4. remove the chapter, summary, evaluation and log;
5. move the checkpoint back (the commit point of the undo), then remove the archive folder (a run of undo
   cut before step 5 still finds the "before" copies there and repeats steps 2-5 with the same result).

Refused while a run holds the lock, and while a chapter is in flight or waits for the author (its staged
state patch was made against the version this would take back).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pipeline.commit import FORESHADOWING_BEFORE, MEMORY_BEFORE, STATE_BEFORE, UNDO_INFO, archive_dir
from studio import own_writes
from studio.errors import StudioError
from studio.fileio import atomic_write_bytes, atomic_write_text, dumps_json, read_json, read_text
from studio.i18n import Catalog, Lang, tr
from studio.ids import chapter_id
from studio.models.changelog import ChangelogEntry
from studio.models.checkpoint import Checkpoint, OrchestratorState, PipelineStage, save_checkpoint
from studio.models.state import CurrentState
from studio.paths import ProjectPaths
from studio.planning.staged import staged_plans
from studio.state_engine import (
    is_review_cleanup,
    load_changelog,
    load_state,
    log_describes,
    reconcile,
    replay,
)

MESSAGES: Catalog = {
    "nothing": ("没有可撤销的章节", "there is no committed chapter to take back"),
    "inflight": (
        "第 {chapter} 章还在进行中（或等待作者决定）；先完成或丢弃它，再撤销",
        "chapter {chapter} is in flight (or waits for the author); finish or discard it before undoing",
    ),
    "no_snapshot": (
        "无法撤销第 {chapter} 章：变更日志没有记录完整的状态（缺少起始快照），且没有该章之前（版本 {version}）的状态副本；"
        "从日志重算会丢失日志之外的角色、地点和世界状态。未做任何改动",
        "cannot take back chapter {chapter}: the changelog does not describe the whole state (no starting "
        "snapshot) and there is no copy of the state before it (version {version}); recomputing from the log "
        "would drop the characters, places and world state it does not describe. Nothing was changed",
    ),
    "foreign_chapter": (
        "无法撤销第 {chapter} 章：它是另一个工具写的（变更日志中没有状态版本），没有可以回到的状态。未做任何改动",
        "cannot take back chapter {chapter}: it was written by another tool (its changelog lines carry no state "
        "version), so there is no state to go back to. Nothing was changed",
    ),
    "after_tool": (
        "无法撤销第 {chapter} 章：之后有 {n} 次角色/设定工具改动了状态（见 characters/changelog.md），撤销会把它们一并撤回；"
        "未做任何改动",
        "cannot take back chapter {chapter}: {n} character/world tool changes altered the state after it (see "
        "characters/changelog.md), and undoing would silently take them back too; nothing was changed",
    ),
    "missing_archive": (
        "第 {chapter} 章缺少提交时保存的恢复信息（logs/{cid}/undo.json），伏笔和故事线记忆将保持现状",
        "chapter {chapter} has no restore information (logs/{cid}/undo.json); foreshadowing and storyline "
        "memory stay as they are",
    ),
}


class UndoError(StudioError):
    pass


@dataclass
class UndoResult:
    chapter: int
    backup_dir: Path
    removed: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def undo_target(paths: ProjectPaths, lang: Lang = "zh") -> int:
    """The chapter undo would take back; raises UndoError when there is none or work is in flight."""
    cp = Checkpoint.load_or_default(paths.checkpoint)
    if cp.inflight_chapter is not None or cp.pending_actions:
        chapter = cp.inflight_chapter or cp.next_chapter
        raise UndoError(tr(MESSAGES, "inflight", lang, chapter=chapter))
    if cp.last_completed_chapter < 1:
        raise UndoError(tr(MESSAGES, "nothing", lang))
    return cp.last_completed_chapter


def chapter_files(paths: ProjectPaths, n: int) -> list[Path]:
    return [paths.chapter(n), paths.summary(n), paths.evaluation(n), paths.log(n)]


def backup_root(paths: ProjectPaths) -> Path:
    return paths.root / ".novel-studio" / "undo"


def _backup(paths: ProjectPaths, n: int, stamp: str, storyline_id: str | None) -> Path:
    dest = backup_root(paths) / f"{chapter_id(n)}-{stamp}"
    suffix = 1
    while dest.exists():
        suffix += 1
        dest = backup_root(paths) / f"{chapter_id(n)}-{stamp}-{suffix}"
    dest.mkdir(parents=True)
    sources = [*chapter_files(paths, n), paths.current_state, paths.changelog, paths.global_foreshadowing,
               paths.checkpoint]
    if storyline_id:
        sources.append(paths.storyline_memory(storyline_id))
    for src in sources:
        if src.is_file():
            rel = src.relative_to(paths.root)
            atomic_write_bytes(dest / rel, src.read_bytes())
    archive = archive_dir(paths, n)
    if archive.is_dir():
        shutil.copytree(archive, dest / "logs" / chapter_id(n))
    return dest


def _state_after_cut(paths: ProjectPaths, n: int, entries: list[ChangelogEntry], kept: list[ChangelogEntry],
                     lang: Lang) -> CurrentState:
    """The state the kept lines end on. Replaying the log is exact only when the log describes the whole
    state (it starts with an init snapshot, or its replay gives the current state); otherwise the commit's
    copy of the state before chapter n is the starting point. Without either, undo refuses (nothing has
    changed yet) rather than drop what the log does not describe."""
    target = kept[-1].state_version if kept else (entries[0].base_state_version if entries else 0)
    current = load_state(paths)
    describes = bool(entries) and entries[0].kind == "init"
    if not describes and current.state_version == (entries[-1].state_version if entries else 0):
        describes = log_describes(entries, current, source=str(paths.changelog))
    if describes:
        return replay(kept, source=str(paths.changelog)) if kept else CurrentState()
    before = archive_dir(paths, n) / STATE_BEFORE
    if before.is_file():
        snapshot = CurrentState.load(before)
        if snapshot.state_version == target:
            return snapshot
    raise UndoError(tr(MESSAGES, "no_snapshot", lang, chapter=n, version=target))


def _rewind_plan(paths: ProjectPaths, n: int, lang: Lang) -> tuple[int | None, CurrentState | None]:
    """(lines to keep, or None when chapter n has no line left; the state to write, or None: none needed).
    Reads only: it runs before anything changes, so a refusal leaves the project as it was."""
    entries = load_changelog(paths.changelog)
    # The chapter's *last* line: after a rebuild, chapter n was re-derived by a later `rebuild` line, and the
    # rebuild lines of earlier chapters in that group must stay.
    # A volume review's clean-up line carries the last chapter's number but is not its ops: the cut lands on
    # the chapter's own line, so the clean-up after it goes too (the review is redone at the volume end).
    cut = max(
        (i for i, e in enumerate(entries)
         if e.kind not in ("init", "foreign", "tool") and e.chapter == n and not is_review_cleanup(e)),
        default=None,
    )
    if cut is not None:
        tools = [e for e in entries[cut + 1:] if e.kind == "tool"]
        if tools:  # their snapshots include this chapter: cutting the log would silently take them back too
            raise UndoError(tr(MESSAGES, "after_tool", lang, chapter=n, n=len(tools)))
        return cut, _state_after_cut(paths, n, entries, entries[:cut], lang)
    if any(e.kind == "foreign" and e.chapter == n for e in entries):
        raise UndoError(tr(MESSAGES, "foreign_chapter", lang, chapter=n))
    if not entries:
        return None, None
    # A second run after a kill between the changelog cut and the state write: the log is already cut.
    current = load_state(paths)
    if current.state_version == entries[-1].state_version:
        return None, None
    return None, _state_after_cut(paths, n, entries, entries, lang)


def _rewind_state(paths: ProjectPaths, cut: int | None, state: CurrentState | None) -> None:
    """Cut the changelog before chapter n's patch line (the kept lines byte for byte), then write the
    state. Running it again changes nothing."""
    if cut is not None:
        raw = [line for line in read_text(paths.changelog).split("\n") if line.strip()]
        atomic_write_text(paths.changelog, "".join(line + "\n" for line in raw[:cut]))
    if state is not None:
        atomic_write_text(paths.current_state, dumps_json(state.to_data()))


def _restore(paths: ProjectPaths, n: int, lang: Lang) -> list[str]:
    folder = archive_dir(paths, n)
    info_path = folder / UNDO_INFO
    if not info_path.is_file():
        return [tr(MESSAGES, "missing_archive", lang, chapter=n, cid=chapter_id(n))]
    info = read_json(info_path)
    storyline_id = info.get("storyline_id")
    if isinstance(storyline_id, str) and storyline_id:
        memory = paths.storyline_memory(storyline_id)
        if info.get("memory_existed") and (folder / MEMORY_BEFORE).is_file():
            atomic_write_bytes(memory, (folder / MEMORY_BEFORE).read_bytes())
        elif not info.get("memory_existed"):
            own_writes.record_deleted(memory)
            memory.unlink(missing_ok=True)
    if info.get("foreshadowing_existed") and (folder / FORESHADOWING_BEFORE).is_file():
        atomic_write_bytes(paths.global_foreshadowing, (folder / FORESHADOWING_BEFORE).read_bytes())
    elif not info.get("foreshadowing_existed"):
        own_writes.record_deleted(paths.global_foreshadowing)
        paths.global_foreshadowing.unlink(missing_ok=True)
    return []


def _storyline_of(paths: ProjectPaths, n: int) -> str | None:
    info_path = archive_dir(paths, n) / UNDO_INFO
    if info_path.is_file():
        value = read_json(info_path).get("storyline_id")
        return value if isinstance(value, str) else None
    return None


def undo_last_chapter(paths: ProjectPaths, *, lang: Lang = "zh", now: datetime | None = None) -> UndoResult:
    """Take back the last committed chapter. The caller holds the project lock."""
    n = undo_target(paths, lang)
    reconcile(paths)  # a torn last line or a merge cut short: what every run repairs first
    cut, state = _rewind_plan(paths, n, lang)
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    storyline_id = _storyline_of(paths, n)
    backup = _backup(paths, n, stamp, storyline_id)
    _rewind_state(paths, cut, state)
    warnings = _restore(paths, n, lang)

    removed: list[Path] = []
    for path in chapter_files(paths, n):
        if path.is_file():
            own_writes.record_deleted(path)  # the studio's watcher must not take this for the author's deletion
            path.unlink()
            removed.append(path)

    cp = Checkpoint.load_or_default(paths.checkpoint)
    cp.last_completed_chapter = n - 1
    cp.pipeline_stage = PipelineStage.COMMITTED if n > 1 else None
    cp.inflight_chapter = None
    cp.revision_count = 0
    cp.revision_kind = None
    cp.pending_actions = []
    cp.skipped_ops_chapters = [c for c in cp.skipped_ops_chapters if c != n]
    reviewed = cp.orchestrator_state is OrchestratorState.VOL_PLANNING and not staged_plans(paths)
    if reviewed or cp.orchestrator_state in (OrchestratorState.VOL_REVIEW, OrchestratorState.ERROR_RETRY):
        cp.orchestrator_state = OrchestratorState.WRITING
    save_checkpoint(paths, cp)

    archive = archive_dir(paths, n)
    if archive.is_dir():
        shutil.rmtree(archive)
        removed.append(archive)
    return UndoResult(n, backup, removed, warnings)
