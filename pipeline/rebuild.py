"""Rebuild after a hand edit of a committed chapter (issue 4 section 7, seed 003 section 10.8).

`rebuild_chapter(root, n, agents)`: the Summarizer reads the edited text; the state before chapter n is
replayed from the changelog; the new patch is applied, then every later chapter's stored ops on top, in
order (an op that no longer fits is dropped with a warning, never a crash); summary, storyline memory and
foreshadowing ledger are rebuilt; the later chapters the edit may now contradict are marked for review
(`.novel-studio/review-marks.json`). The chapter is re-judged only with `rejudge=True`.

Changelog design (a "rebuild group"). With the current state at version V and later chapters k1 < k2 < ...
already committed, the rebuild appends one `kind: "rebuild"` line per chapter it re-derives:

    {kind: rebuild, chapter: n,  base_state_version: V,   state_version: V+1, snapshot: <state before n>,
     ops: <new applied ops of n>, rebuild_of: n, replaces_version: <version of n's previous line>}
    {kind: rebuild, chapter: k1, base_state_version: V+1, state_version: V+2,
     ops: <k1's ops that still applied>, warnings: <the dropped ones>, rebuild_of: n, replaces_version: ...}
    ...

The first line's `snapshot` is the state *before* its ops (what `replay` expects: a snapshot replaces the
state, then the ops apply), so a replay from version 0 walks the old history up to V, jumps back to the
state before n, and re-applies n, k1, k2 ... exactly as the rebuild did: it ends on `current-state.json`.
Every older version stays replayable (`replay(upto_version=...)`), nothing is rewritten. Because each
chapter keeps its own line, the state-diff pane shows chapter k's diff from its latest line, the state's
`last_updated_chapter` stays the last chapter, and the *effective history* is well defined: scanning the
log, a line of chapter k supersedes the lines of chapters >= k seen so far (`effective_chain`). Taking back
the last chapter after a rebuild means cutting the log at that chapter's *latest* line.

Write order (crash safety): the whole group goes into the changelog in one atomic replace (old bytes +
new lines; never half a group), then `current-state.json`, then the derived files (summary, memory, ledger,
the later chapters' "before" copies that undo restores, review marks), which a second run simply redoes. A
kill between the changelog and the state leaves the log ahead by the group's size; `finish_interrupted_rebuild`
(called first by every rebuild) writes the state as the replay of the log.

Ledger design: `foreshadowing/global.json` is recomputed from the current ledger with everything chapters
>= n did taken out (their history lines; items they created), so hand edits of older threads (scope,
target range, description) are kept, then the foreshadow ops of n (new) and of the later chapters are
applied in order by `apply_foreshadow_ops`. An item that is created again keeps the planning metadata
(scope, target range, a description that was not just its planting detail) it had.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pipeline.agents.protocol import Agents, CallRecord
from pipeline.commit import (
    FORESHADOWING_BEFORE,
    MEMORY_BEFORE,
    STATE_BEFORE,
    UNDO_INFO,
    archive_dir,
    pending_commits,
)
from pipeline.events import Event, Notice, StageFinished, StageStarted
from studio.errors import FormatError, Problem, StateVersionMismatch, StudioError
from studio.fileio import atomic_write_bytes, atomic_write_json, atomic_write_text, read_json, read_text
from studio.foreshadow_ledger import apply_foreshadow_ops
from studio.i18n import Catalog, Lang, tr
from studio.ids import chapter_id
from studio.impact import Fact, changed_facts, impacted_chapters
from studio.lock import ProjectLock
from studio.models.changelog import ChangelogEntry, OpWarning
from studio.models.checkpoint import Checkpoint, save_checkpoint
from studio.models.evaluation import Evaluation
from studio.models.foreshadowing import ForeshadowingItem, ForeshadowingLedger, ForeshadowStatus
from studio.models.patch import StateOp, StatePatch
from studio.models.review_marks import record_review_marks
from studio.models.state import CurrentState
from studio.op_reasons import reason_text
from studio.paths import ProjectPaths
from studio.state_engine import (
    apply_patch,
    is_review_cleanup,
    load_changelog,
    load_state,
    log_describes,
    reconcile,
    replay,
    replay_from,
)
from studio.views.state_diff import collect_display_names

MESSAGES: Catalog = {
    "no_snapshot": (
        "无法重建第 {chapter} 章：变更日志没有记录完整的状态（缺少起始快照），也没有版本 {version} 或更早的状态副本；"
        "从空状态重算会丢失日志之外的角色、地点和世界状态。未做任何改动",
        "cannot rebuild chapter {chapter}: the changelog does not describe the whole state (no starting "
        "snapshot) and there is no copy of the state at version {version} or earlier; recomputing from empty "
        "would drop the characters, places and world state it does not describe. Nothing was changed",
    ),
    "not_committed": (
        "第 {chapter} 章尚未提交（已提交到第 {last} 章），无法重建",
        "chapter {chapter} is not committed (chapters 1-{last} are), so it cannot be rebuilt",
    ),
    "no_text": ("找不到第 {chapter} 章的正文：{path}", "chapter {chapter} has no text at {path}"),
    "inflight": (
        "第 {chapter} 章还在进行中（或等待作者决定）；先完成或丢弃它，再重建",
        "chapter {chapter} is in flight (or waits for the author); finish or discard it before rebuilding",
    ),
    "ops_skipped": (
        "第 {chapter} 章：摘要模型的状态操作两次格式错误，本章不记状态变更",
        "chapter {chapter}: the Summarizer's state ops were malformed twice; no state changes recorded",
    ),
    "dropped_new": ("第 {chapter} 章：丢弃操作（{reason}）", "chapter {chapter}: dropped op ({reason})"),
    "dropped_later": (
        "第 {chapter} 章：原有操作不再适用，已丢弃（{reason}）",
        "chapter {chapter}: a stored op no longer applies and was dropped ({reason})",
    ),
    "dropped_reason": ("状态操作 {op} 不再适用，已丢弃：{reason}", "stored op {op} no longer applies, dropped: {reason}"),
    "ledger": ("伏笔：{reason}", "foreshadowing: {reason}"),
    "done": (
        "第 {chapter} 章已重建（状态版本 {base} → {version}），{n} 个后续章节需要复查",
        "chapter {chapter} rebuilt (state version {base} -> {version}); {n} later chapters need review",
    ),
}


class RebuildError(StudioError):
    pass


@dataclass(frozen=True)
class ChainLink:
    """The line of the changelog that currently stands for one chapter's ops."""

    chapter: int
    storyline_id: str | None
    ops: list[StateOp]
    entry: ChangelogEntry


@dataclass(frozen=True)
class DroppedOp:
    chapter: int
    entry: Any
    reason: str


@dataclass
class RebuildResult:
    chapter: int
    storyline_id: str
    summary: str
    old_summary: str | None
    old_ops: list[StateOp]
    new_ops: list[StateOp]
    facts: list[Fact]
    dropped: list[DroppedOp]
    impacted: dict[int, list[str]]
    entries: list[ChangelogEntry]
    base_state_version: int
    state_version: int
    memory_written: bool
    display_names: dict[str, str]
    warnings: list[str] = field(default_factory=list)
    evaluation: Evaluation | None = None
    backup_dir: Path | None = None
    calls: list[CallRecord] = field(default_factory=list)

    def diff_lines(self, lang: Lang = "zh") -> list[str]:
        """The edited chapter's changed facts, `沈照·位置：（未写） → 城西码头`."""
        return [fact.describe(self.display_names, lang) for fact in self.facts]


# --------------------------------------------------------------------------------------------- history


FOREIGN_REBUILD = (
    "chapter {n} was written by another tool, whose changelog lines have no state versions: the state before "
    "it is unknown, so it cannot be rebuilt (chapters written by novel-studio after it can)"
)


def effective_chain(entries: Sequence[ChangelogEntry]) -> list[ChainLink]:
    """The lines that currently stand for each chapter's ops, in chapter order: a line of chapter k
    supersedes the lines of chapters >= k seen before it (a rebuild group re-derives n and every later
    chapter). The state at a link's `entry.state_version` is the effect of the links up to it."""
    chain: list[ChainLink] = []
    for entry in entries:
        if entry.kind in ("init", "foreign"):  # foreign: another tool's unversioned line, history only
            continue
        if is_review_cleanup(entry):  # the volume review's clean-up: a step of its own, it supersedes nothing
            chain.append(ChainLink(entry.chapter, entry.storyline_id, [], entry))
            continue
        chain = [link for link in chain if link.chapter < entry.chapter]
        chain.append(ChainLink(entry.chapter, entry.storyline_id, list(entry.ops), entry))
    return chain


def state_before(
    entries: Sequence[ChangelogEntry],
    chain: Sequence[ChainLink],
    n: int,
    source: str,
    *,
    current: CurrentState | None = None,
    snapshots: Sequence[CurrentState] = (),
) -> CurrentState:
    """The state before chapter n's ops: the replay up to the last link of a chapter before n.

    The log alone gives it only when it describes the whole state (an init snapshot first, or its replay
    gives `current`); otherwise the replay starts from one of `snapshots` (the commits' state-before
    copies) at or below that version. With neither, RebuildError: a replay from empty would silently drop
    the characters, places and world state the log does not describe."""
    earlier = [link for link in chain if link.chapter < n]
    if not earlier and any(e.kind == "foreign" for e in entries):
        # Another tool's chapters have no state versions: only a chapter after the snapshot that follows
        # them has a known state before it; anything else would be re-derived from a wrong base.
        first = next((e for e in entries if e.kind == "init"), None)
        if first is None or n <= first.chapter:
            raise FormatError([Problem(source, FOREIGN_REBUILD.format(n=n))])
        return replay(entries, upto_version=first.state_version, source=source)
    # The first line of our own (another tool's lines before it are history, never replayed).
    first_own = next((e for e in entries if e.kind != "foreign"), None)
    starts_with_snapshot = first_own is not None and first_own.kind == "init"
    if earlier:
        target = earlier[-1].entry.state_version
    elif first_own is not None and starts_with_snapshot:
        target = first_own.state_version
    else:
        target = first_own.base_state_version if first_own is not None else 0
    whole = starts_with_snapshot
    if not whole and current is not None:
        whole = log_describes(entries, current, source=source)
    if current is None or whole:
        if earlier or starts_with_snapshot:
            return replay(entries, upto_version=target, source=source)
        return CurrentState()
    for snapshot in sorted(snapshots, key=lambda s: -s.state_version):
        if snapshot.state_version <= target:
            try:
                return replay_from(snapshot, entries, upto_version=target, source=source)
            except (FormatError, StateVersionMismatch):
                continue
    raise RebuildError(tr(MESSAGES, "no_snapshot", "zh", chapter=n, version=target)
                       + "\n" + tr(MESSAGES, "no_snapshot", "en", chapter=n, version=target))


def archived_states(paths: ProjectPaths) -> list[CurrentState]:
    """The commits' copies of the state before each chapter (`logs/chapter-NNN/state-before.json`)."""
    out: list[CurrentState] = []
    for path in sorted((paths.root / "logs").glob(f"chapter-*/{STATE_BEFORE}")):
        try:
            out.append(CurrentState.load(path))
        except FormatError:
            continue
    return out


def _backup(paths: ProjectPaths, n: int, storyline_id: str | None) -> Path:
    """Copy what a rebuild rewrites into `.novel-studio/rebuild/chapter-NNN-<timestamp>/` (same relative
    paths), as undo does: the changelog, the state, the ledger, the chapter's summary and evaluation, the
    storyline memory and the review marks."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = paths.root / ".novel-studio" / "rebuild"
    dest = base / f"{chapter_id(n)}-{stamp}"
    suffix = 1
    while dest.exists():
        suffix += 1
        dest = base / f"{chapter_id(n)}-{stamp}-{suffix}"
    sources = [paths.changelog, paths.current_state, paths.global_foreshadowing, paths.summary(n),
               paths.evaluation(n), paths.checkpoint, paths.root / ".novel-studio" / "review-marks.json"]
    if storyline_id:
        sources.append(paths.storyline_memory(storyline_id))
    dest.mkdir(parents=True)
    for src in sources:
        if src.is_file():
            atomic_write_bytes(dest / src.relative_to(paths.root), src.read_bytes())
    return dest


def finish_interrupted_rebuild(paths: ProjectPaths) -> bool:
    """Bring the state in step with the log after a kill: a rebuild group logged but not applied gets the
    state written as the replay of the log; a plain interrupted merge goes to `reconcile`. True if repaired."""
    entries = load_changelog(paths.changelog, repair_tail=True)
    if not entries:
        return False
    state = load_state(paths) if paths.current_state.exists() else None
    last = entries[-1]
    if state is not None and last.state_version == state.state_version:
        return False
    if last.kind == "rebuild" and (state is None or last.state_version > state.state_version):
        replay(entries, source=str(paths.changelog)).save(paths.current_state)
        return True
    return reconcile(paths)


def _reapply(state: CurrentState, chapter: int, storyline_id: str | None, ops: Sequence[Any]) -> tuple[
    CurrentState, list[StateOp], list[OpWarning]
]:
    carrier = StatePatch.model_construct(
        chapter=chapter, base_state_version=state.state_version, storyline_id=storyline_id or "", ops=list(ops)
    )
    return apply_patch(state, carrier)


# --------------------------------------------------------------------------------------------- ledger


def _derived_status(item: ForeshadowingItem) -> ForeshadowStatus:
    status = item.history[0].action if item.history else item.status
    for line in item.history[1:]:
        if line.action != "planted":
            status = line.action
    return status


def ledger_before(ledger: ForeshadowingLedger, n: int) -> tuple[ForeshadowingLedger, dict[str, ForeshadowingItem]]:
    """The ledger without what chapters >= n did: their history lines go, items they created go (returned
    by id, so a re-creation can keep their planning metadata), status and last update are recomputed."""
    kept: list[ForeshadowingItem] = []
    removed: dict[str, ForeshadowingItem] = {}
    for item in ledger.foreshadowing:
        history = [line for line in item.history if line.chapter < n]
        if len(history) == len(item.history):
            kept.append(item.model_copy(deep=True))
            continue
        if not history and (item.planted_chapter is None or item.planted_chapter >= n):
            removed[item.id] = item
            continue
        new = item.model_copy(deep=True, update={"history": history})
        new.status = _derived_status(new)
        new.last_updated_chapter = history[-1].chapter if history else item.planted_chapter
        kept.append(new)
    return ledger.model_copy(update={"foreshadowing": kept}), removed


def _keep_metadata(ledger: ForeshadowingLedger, removed: dict[str, ForeshadowingItem]) -> ForeshadowingLedger:
    items: list[ForeshadowingItem] = []
    for item in ledger.foreshadowing:
        old = removed.get(item.id)
        if old is not None:
            update: dict[str, Any] = dict(old.model_extra or {})
            if item.scope is None and old.scope is not None:
                update["scope"] = old.scope
            if item.target_resolve_range is None and old.target_resolve_range is not None:
                update["target_resolve_range"] = old.target_resolve_range
            planted_detail = old.history[0].detail if old.history else ""
            if old.description and old.description != planted_detail:
                update["description"] = old.description
            item = item.model_copy(update=update)
        items.append(item)
    return ledger.model_copy(update={"foreshadowing": items})


# --------------------------------------------------------------------------------------------- helpers


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _check_target(paths: ProjectPaths, n: int, lang: Lang) -> Checkpoint:
    cp = Checkpoint.load_or_default(paths.checkpoint)
    if n < 1 or n > cp.last_completed_chapter:
        raise RebuildError(tr(MESSAGES, "not_committed", lang, chapter=n, last=cp.last_completed_chapter))
    if not paths.chapter(n).is_file():
        raise RebuildError(tr(MESSAGES, "no_text", lang, chapter=n, path=paths.chapter(n)))
    commits = pending_commits(paths)
    if cp.inflight_chapter is not None or cp.pending_actions or commits:
        chapter = cp.inflight_chapter or (commits[0] if commits else cp.next_chapter)
        raise RebuildError(tr(MESSAGES, "inflight", lang, chapter=chapter))
    return cp


def _append_group(paths: ProjectPaths, group: Sequence[ChangelogEntry]) -> None:
    """Old lines byte for byte + the group, in one atomic replace: a kill leaves all of it or none."""
    text = read_text(paths.changelog) if paths.changelog.exists() else ""
    if text and not text.endswith("\n"):
        text += "\n"
    lines = [json.dumps(e.to_data(), ensure_ascii=False, separators=(",", ":")) for e in group]
    atomic_write_text(paths.changelog, text + "".join(line + "\n" for line in lines))


def _chapter_storyline(paths: ProjectPaths, k: int, links: dict[int, ChainLink]) -> str | None:
    link = links.get(k)
    if link is not None and link.storyline_id:
        return link.storyline_id
    info = archive_dir(paths, k) / UNDO_INFO
    if info.is_file():
        value = read_json(info).get("storyline_id")
        return value if isinstance(value, str) else None
    return None


def _update_undo_info(paths: ProjectPaths, k: int, **flags: bool) -> None:
    info_path = archive_dir(paths, k) / UNDO_INFO
    info = read_json(info_path)
    if any(info.get(key) != value for key, value in flags.items()):
        atomic_write_json(info_path, {**info, **flags})


def _read(path: Path) -> str | None:
    return read_text(path) if path.is_file() else None


def _op_text(entry: Any) -> str:
    if isinstance(entry, dict):
        value = entry.get("value")
        return f"{entry.get('op')} {entry.get('path')} {value!r}" if "value" in entry else f"{entry.get('op')} {entry.get('path')}"
    return str(entry)


# --------------------------------------------------------------------------------------------- rebuild


async def rebuild_chapter(
    root: Path,
    n: int,
    agents: Agents,
    *,
    emit: Callable[[Event], None] | None = None,
    lock: ProjectLock | None = None,
    rejudge: bool = False,
    key_chapter: bool = False,
    lang: Lang = "zh",
) -> RebuildResult:
    """Rebuild committed chapter `n` from its (hand-edited) text; see the module docstring.

    Holds the project lock for the whole rebuild (`lock`, if given and already held, is used as is;
    otherwise it is taken here and released at the end: LockHeldError, exit 4, when another process
    has it). Raises RebuildError for a chapter that is not committed or while a chapter is in flight.
    """
    paths = ProjectPaths(Path(root))
    if lock is None:
        lock = ProjectLock(paths, chapter=n if n >= 1 else None)
    owned = not lock.held
    if owned:
        lock.acquire()
    try:
        return await _rebuild(paths, n, agents, emit or (lambda event: None), rejudge, key_chapter, lang)
    finally:
        if owned:
            lock.release()


async def _rebuild(
    paths: ProjectPaths,
    n: int,
    agents: Agents,
    emit: Callable[[Event], None],
    rejudge: bool,
    key_chapter: bool,
    lang: Lang,
) -> RebuildResult:
    cp = _check_target(paths, n, lang)
    finish_interrupted_rebuild(paths)
    text = read_text(paths.chapter(n))
    # The state before n is settled before the model is paid: a log that cannot give it refuses here.
    source = str(paths.changelog)
    entries = load_changelog(paths.changelog)
    current = load_state(paths)
    chain = effective_chain(entries)
    before = state_before(entries, chain, n, source, current=current, snapshots=archived_states(paths))

    emit(StageStarted(n, "summarize", ""))
    started = datetime.now()
    out = await agents.summarize(n, text, "")
    calls = list(out.calls)
    emit(StageFinished(n, "summarize", calls[-1].model if calls else "", _ms(started)))

    # ---- state: before n, the new patch, the later chapters on top
    links = {link.chapter: link for link in chain}
    old_link = links.get(n)
    old_ops = list(old_link.ops) if old_link else []

    warnings: list[str] = [str(w) for w in out.warnings]
    dropped: list[DroppedOp] = []
    if out.patch is None:
        warnings.append(tr(MESSAGES, "ops_skipped", lang, chapter=n))
        raw_ops: list[Any] = []
    else:
        raw_ops = list(out.patch.ops)
    state, new_ops, new_warnings = _reapply(before, n, out.storyline_id, raw_ops)
    for w in new_warnings:
        dropped.append(DroppedOp(n, w.entry, reason_text(w, lang)))
        warnings.append(tr(MESSAGES, "dropped_new", lang, chapter=n, reason=reason_text(w, lang)))
    version = current.state_version
    stamp = _now()
    group: list[ChangelogEntry] = [
        ChangelogEntry(
            state_version=version + 1,
            base_state_version=version,
            chapter=n,
            storyline_id=out.storyline_id,
            kind="rebuild",
            ops=new_ops,
            warnings=new_warnings,
            recorded_at=stamp,
            snapshot=before.to_data(),
            rebuild_of=n,
            replaces_version=old_link.entry.state_version if old_link else None,
        )
    ]
    # A review clean-up inside the re-derived range is not re-emitted (it would stand for its chapter): the
    # entries it removed come back, nothing is lost.
    later = [link for link in chain if link.chapter > n and not is_review_cleanup(link.entry)]
    reapplied: list[tuple[ChainLink, list[StateOp]]] = []
    for link in later:
        state, applied, conflicts = _reapply(state, link.chapter, link.storyline_id, [op.to_data() for op in link.ops])
        reapplied.append((link, applied))
        for w in conflicts:
            dropped.append(DroppedOp(link.chapter, w.entry, reason_text(w, lang)))
            warnings.append(tr(MESSAGES, "dropped_later", lang, chapter=link.chapter, reason=reason_text(w, lang)))
        group.append(
            ChangelogEntry(
                state_version=group[-1].state_version + 1,
                base_state_version=group[-1].state_version,
                chapter=link.chapter,
                storyline_id=link.storyline_id,
                kind="rebuild",
                ops=applied,
                warnings=conflicts,
                recorded_at=stamp,
                rebuild_of=n,
                replaces_version=link.entry.state_version,
            )
        )
    final = state.model_copy(
        update={"state_version": group[-1].state_version, "last_updated_chapter": group[-1].chapter}
    )
    backup = _backup(paths, n, out.storyline_id)
    _append_group(paths, group)  # log first, then the state (module docstring)
    final.save(paths.current_state)

    # ---- derived files: summary, memory, ledger, "before" copies, checkpoint's skipped list
    old_summary = _read(paths.summary(n))
    atomic_write_text(paths.summary(n), out.summary.rstrip("\n") + "\n")
    memory_written = _rebuild_memory(paths, n, cp.last_completed_chapter, out.storyline_id, out.storyline_memory, links)
    old_ledger = ForeshadowingLedger.load_or_default(paths.global_foreshadowing)
    ledger, ledger_warnings = _rebuild_ledger(paths, n, old_ledger, out.storyline_id, new_ops, reapplied)
    warnings += [tr(MESSAGES, "ledger", lang, reason=reason_text(w, lang)) for w in ledger_warnings]
    skipped = [c for c in cp.skipped_ops_chapters if c != n] + ([n] if out.patch is None else [])
    if sorted(skipped) != sorted(cp.skipped_ops_chapters):
        cp.skipped_ops_chapters = sorted(skipped)
        save_checkpoint(paths, cp)

    # ---- impact report and review marks
    facts = changed_facts(old_ops, new_ops)
    names = collect_display_names(final, before, current)
    descriptions = {i.id: i.description for i in [*old_ledger.foreshadowing, *ledger.foreshadowing] if i.description}
    summaries = {
        k: text_k
        for k in range(n + 1, cp.last_completed_chapter + 1)
        if (text_k := _read(paths.summary(k))) is not None
    }
    impacted = impacted_chapters(
        facts, [link.entry for link in later], summaries, display_names=names, descriptions=descriptions, lang=lang
    )
    for drop in dropped:
        if drop.chapter > n:
            reason = tr(MESSAGES, "dropped_reason", lang, op=_op_text(drop.entry), reason=drop.reason)
            impacted.setdefault(drop.chapter, []).append(reason)
    impacted = dict(sorted(impacted.items()))
    record_review_marks(paths, impacted, n)

    evaluation: Evaluation | None = None
    if rejudge:
        emit(StageStarted(n, "judge", ""))
        started = datetime.now()
        judged = await agents.judge(n, text, key_chapter=key_chapter, revision=0)
        calls += list(judged.calls)
        evaluation = judged.evaluation
        if evaluation.chapter != n:
            evaluation = evaluation.model_copy(update={"chapter": n})
        evaluation.save(paths.evaluation(n))
        emit(StageFinished(n, "judge", judged.calls[-1].model if judged.calls else "", _ms(started)))

    emit(
        Notice(
            n,
            tr(MESSAGES, "done", lang, chapter=n, base=version, version=final.state_version, n=len(impacted)),
            "info",
        )
    )
    return RebuildResult(
        chapter=n,
        storyline_id=out.storyline_id,
        summary=out.summary,
        old_summary=old_summary,
        old_ops=old_ops,
        new_ops=new_ops,
        facts=facts,
        dropped=dropped,
        impacted=impacted,
        entries=group,
        base_state_version=version,
        state_version=final.state_version,
        memory_written=memory_written,
        display_names=names,
        warnings=warnings,
        evaluation=evaluation,
        calls=calls,
        backup_dir=backup,
    )


def _ms(started: datetime) -> int:
    return int((datetime.now() - started).total_seconds() * 1000)


def _rebuild_memory(
    paths: ProjectPaths, n: int, last: int, storyline_id: str, memory: str, links: dict[int, ChainLink]
) -> bool:
    """The storyline memory is the latest chapter's of that storyline: written only when no later chapter
    of the same storyline exists; otherwise the new memory becomes that later chapter's "before" copy (what
    undo restores). Returns True when `storylines/<id>/memory.md` was written."""
    text = memory.rstrip("\n") + "\n"
    for k in range(n + 1, last + 1):
        if _chapter_storyline(paths, k, links) != storyline_id:
            continue
        folder = archive_dir(paths, k)
        if (folder / UNDO_INFO).is_file():
            atomic_write_text(folder / MEMORY_BEFORE, text)
            _update_undo_info(paths, k, memory_existed=True)
        return False
    atomic_write_text(paths.storyline_memory(storyline_id), text)
    return True


def _rebuild_ledger(
    paths: ProjectPaths,
    n: int,
    current: ForeshadowingLedger,
    storyline_id: str,
    new_ops: Sequence[StateOp],
    reapplied: Sequence[tuple[ChainLink, list[StateOp]]],
) -> tuple[ForeshadowingLedger, list[OpWarning]]:
    ledger, removed = ledger_before(current, n)
    ledger, warnings = apply_foreshadow_ops(ledger, new_ops, n, storyline_id)
    for link, ops in reapplied:
        folder = archive_dir(paths, link.chapter)
        if (folder / UNDO_INFO).is_file():  # keep undo's "before" copy in step with the new history
            _keep_metadata(ledger, removed).save(folder / FORESHADOWING_BEFORE)
            _update_undo_info(paths, link.chapter, foreshadowing_existed=True)
        ledger, more = apply_foreshadow_ops(ledger, ops, link.chapter, link.storyline_id)
        warnings += more
    ledger = _keep_metadata(ledger, removed)
    if paths.global_foreshadowing.exists() or ledger.foreshadowing:
        ledger.save(paths.global_foreshadowing)
    return ledger, warnings
