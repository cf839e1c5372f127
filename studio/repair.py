"""`novel-studio repair`: fix what can be fixed safely in the state, the changelog and the checkpoint, and
say plainly what cannot. Domain only (no terminal I/O); the caller holds the project lock.

`plan_repair(paths)` reads and returns `RepairItem`s; `apply_repair(paths, items)` backs up every file it
will change into `.novel-studio/repair/<timestamp>/` (same relative paths) and then applies the fixable
items in order. Safe fixes, each one exact or loss-free:

- `temp_files`: hidden temp files of atomic writes killed half-way (`fileio.sweep_temp_files`);
- `torn_tail`: a changelog last line cut short (nothing was merged for it: the state is written after);
- `duplicate_lines`: a changelog line repeated right after itself (the repeat is removed);
- `merge_interrupted`: the log one version ahead of the state (the logged ops are re-applied);
- `state_rebuilt`: the state behind the log by more, missing or unreadable: rebuilt from a snapshot and the
  changelog after it (the current state when readable and older than the log's end, else the log's init
  snapshot, else a commit's `logs/chapter-NNN/state-before.json`; from empty only when the log starts at
  version 0). Never from empty over a state the log does not describe;
- `checkpoint_rebuilt`: a checkpoint that cannot be read, rebuilt from the chapters, the changelog and the
  outlines when they say it plainly (`_plan_checkpoint_rebuilt`); otherwise `checkpoint_unclear` (cannot)
  names the chapters that make it unclear;
- `inflight_reset`: a checkpoint naming an inflight chapter that is not the next one, with no staged work;
- `inflight_set_aside`: the same with staged work of that chapter (`staging/**/chapter-NNN*`, the storyline
  memory its staged summary names): the files are moved into the backup folder (under the same relative
  paths, copied before they are removed: restoring is copying them back), the author's pauses for that
  chapter go with the old checkpoint in the backup, then the inflight chapter is cleared. The cold start's
  `inflight_absurd` sends the author here whether or not work is staged;
- `checkpoint_behind`: the changelog has the state changes of chapters after the checkpoint's last one and
  those chapters are all in `chapters/` (none after them): the checkpoint catches up with the disk (the cold
  start's `log_ahead` sends the author here). Without the chapter files it is `log_ahead_no_chapters` (cannot):
  which side is right is the author's call;
- `op_corrected` / `op_skipped`: a logged op that no longer applies (`studio.stale_ops`), when the corrected or
  skipped op gives a log that replays to exactly the current state; otherwise `op_stale_manual` (cannot) shows
  the op, its chapter and line, why, and what to do by hand. The state file is never changed for them.

- `commit_journal_rebuilt`: the journal of an interrupted chapter commit (`staging/commit-chapter-NNN.json`)
  that cannot be read: it and the chapter's staged files are copied into the backup (restoring is copying them
  back), then a journal is written again from the staged records (storyline and skipped patch from the summary
  metadata or the delta, else the archive's `undo.json`) with no step marked done and `rebuilt` set: `continue`
  runs every step again, which the commit's steps are made for (each is idempotent). When a staged file the
  commit still needs cannot be used either, `commit_journal_manual` (cannot) says what to do by hand.

- `commit_rolled_back`: an interrupted chapter commit (its journal readable) that a broken staged file stops
  (`studio.commit_inputs`): the commit is taken back to where it was before its commit point
  (`studio.commit_rollback`: the project files restored from the archive's "before" copies, the chapter's
  changelog line cut, the files it copied in removed, the files it archived moved back to the staging) and
  the broken staged files set aside, everything it touches backed up first; `continue` then redoes only the
  stage that made the broken file. A problem outside the staging stays the cold start's finding;
- `staged_set_aside`: the same broken staged file before the commit point (no journal): it and the files made
  with it are set aside into the backup, and `continue` redoes that stage.

A commit-point journal that cannot be read (a tool change's, a plan apply's): `continue` refuses
over it, and what it records may be half applied, so `journal_unreadable` (cannot) names it, the backup to
compare with and what to do by hand; the journal is left where it is.

A project file every chapter reads that cannot be used (`project_file_invalid`, cannot: a character, a contract,
the storylines, the style profile, the blacklist...): `continue` checks them before a chapter's first model call
(`Project.open`, as the agents open the project) and stops there, so `repair` names each one; it never rewrites
them. The files the cold start checks itself (checkpoint, state, changelog, ledger, settings) are its findings.

Settings that cannot be read (`settings_invalid`, cannot): every command stops on them, so `repair` names
each problem with its file and line; it never rewrites a settings file.

Everything else the cold-start check refuses is reported as `cannot` with its way out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from studio import own_writes
from studio.coldstart import Finding, check_cold_start, refusals
from studio.coldstart import _ranges as chapter_ranges  # the cold start's own wording of chapter lists
from studio.commit_inputs import archive_dir, commit_problems, is_staged, pending_commits
from studio.commit_rollback import Rollback, apply_rollback, plan_rollback, with_products
from studio.errors import FormatError, Problem, StateVersionMismatch
from studio.fileio import atomic_write_bytes, find_temp_files, read_text, sweep_temp_files
from studio.i18n import Catalog, Lang, tr
from studio.i18n_names import state_name
from studio.ids import chapter_id, is_slug
from studio.models.base import FileModel
from studio.models.changelog import ChangelogEntry, OpWarning
from studio.models.checkpoint import Checkpoint, OrchestratorState, PipelineStage, save_checkpoint
from studio.models.state import CurrentState
from studio.op_reasons import reason_text
from studio.outline import parse_outline
from studio.paths import ProjectPaths, numbered_files
from studio.pending import quick_start_progress_path, review_path
from studio.stale_ops import StaleOps, entry_line, first_stale_ops, op_text, plan_stale_ops
from studio.state_engine import parse_changelog, replay, replay_from

if TYPE_CHECKING:  # built only when a commit journal is pending (`status` imports this module)
    from studio.models.commit_journal import CommitJournal

Kind = Literal["fix", "cannot"]

_CHAPTER_IN_NAME = re.compile(r"chapter-(\d{3,})(?!\d)")
_CHAPTER_FILE = re.compile(r"^(chapter-\d{3,})\.md$")
_VOLUME_NAME = re.compile(r"^vol-(\d{2,})$")

MESSAGES: Catalog = {
    "temp_files": ("删除 {count} 个中断写入留下的临时文件", "remove the temp files left by interrupted writes ({count})"),
    "torn_tail": (
        "删除 state/changelog.jsonl 中不完整的最后一行（该次合并从未写入状态）",
        "drop the incomplete last line of state/changelog.jsonl (its merge never reached the state)",
    ),
    "duplicate_lines": (
        "删除 state/changelog.jsonl 中重复的第 {lines} 行",
        "remove the repeated lines of state/changelog.jsonl (line {lines})",
    ),
    "merge_interrupted": (
        "完成被中断的状态合并（版本 {state} → {log}）",
        "finish the interrupted state merge (version {state} -> {log})",
    ),
    "state_rebuilt": (
        "按{base}和其后的变更日志重建 state/current-state.json（版本 {log}）",
        "rebuild state/current-state.json (version {log}) from {base} and the changelog after it",
    ),
    "base_current": ("当前状态文件（版本 {version}）", "the current state file (version {version})"),
    "base_init": ("变更日志的起始快照", "the changelog's starting snapshot"),
    "base_empty": ("空状态（日志从版本 0 开始）", "the empty state (the log starts at version 0)"),
    "base_archive": ("{file}（版本 {version}）", "{file} (version {version})"),
    "inflight_reset": (
        "检查点中进行中的第 {inflight} 章不是下一章且没有暂存内容：清除它",
        "the checkpoint's inflight chapter {inflight} is not the next one and has nothing staged: clear it",
    ),
    "inflight_set_aside": (
        "检查点中进行中的第 {inflight} 章不是下一章（下一章是第 {next} 章）：把它的 {count} 个暂存文件移到备份文件夹"
        "（需要时可按原路径复制回来），再清除它",
        "the checkpoint's inflight chapter {inflight} is not the next one (chapter {next} is): move its staged "
        "files ({count}) into the backup folder (copy them back to the same paths to restore them), then clear it",
    ),
    "changelog_unusable": (
        "state/changelog.jsonl 无法自动修复：{detail}",
        "state/changelog.jsonl cannot be repaired automatically: {detail}",
    ),
    "state_ahead": (
        "状态文件为版本 {state}，变更日志只到版本 {log}：日志缺行，无法安全重建；请恢复缺失的日志行",
        "the state is at version {state} but the changelog ends at {log}: lines are missing and the state "
        "cannot be rebuilt safely; restore the missing changelog lines",
    ),
    "op_corrected": (
        "state/changelog.jsonl 第 {line} 行（第 {chapter} 章）的操作 {op} 已无法应用：{why}。改为 {fixed}"
        "（显示名换成它在状态中的 slug）；改后日志重放的结果与当前状态完全一致",
        "line {line} of state/changelog.jsonl (chapter {chapter}): the op {op} no longer applies: {why}. It becomes "
        "{fixed} (the display name replaced by its slug in the state); the log then replays to exactly the current "
        "state",
    ),
    "op_skipped": (
        "state/changelog.jsonl 第 {line} 行（第 {chapter} 章）的操作 {op} 已无法应用：{why}。把它移到这一行的 "
        "warnings（原样保留），重放时跳过；跳过后日志重放的结果与当前状态完全一致",
        "line {line} of state/changelog.jsonl (chapter {chapter}): the op {op} no longer applies: {why}. It moves "
        "to the line's warnings (kept as written) and is skipped on replay; the log then replays to exactly the "
        "current state",
    ),
    "op_stale_manual": (
        "state/changelog.jsonl 第 {line} 行（第 {chapter} 章）的操作 {op} 已无法应用：{why}。无法安全地自动修复："
        "跳过它，日志就还原不出当前状态。当前状态不受影响，可以继续写作；但撤销第 {chapter} 章之后的章节会失败（撤销要重放这一行）。"
        "手动处理：编辑这一行中的这条操作，改成当初的写法（例如把显示名改成角色的 slug），再运行 novel-studio repair 检查",
        "line {line} of state/changelog.jsonl (chapter {chapter}): the op {op} no longer applies: {why}. It cannot be "
        "fixed safely: without it the log no longer gives the current state. The state is not affected and writing "
        "can go on, but undoing a chapter after chapter {chapter} fails (undo replays this line). By hand: edit this op in that "
        "line back to what it was (e.g. a display name to the character's slug), then run novel-studio repair "
        "to check",
    ),
    "rebuild_op_stale": (
        "无法按变更日志重建 state/current-state.json：第 {line} 行（第 {chapter} 章）的操作 {op} 已无法应用：{why}。"
        "手动处理：编辑这一行中的这条操作，改成当初的写法（例如把显示名改成角色的 slug），再运行 novel-studio repair",
        "state/current-state.json cannot be rebuilt from the changelog: line {line} (chapter {chapter}) holds the op "
        "{op}, which no longer applies: {why}. By hand: edit this op in that line back to what it was (e.g. a display "
        "name to the character's slug), then run novel-studio repair again",
    ),
    "journal_unreadable": (
        "{problem}。这是一次被中断的{what}的提交日志，读不出来，continue 会拒绝运行；它记下的改动可能只做了一半，"
        "无法安全地自动完成或丢弃。手动处理：对照备份（{backup}）检查它涉及的文件，再把这个文件移出项目，"
        "然后运行 novel-studio repair 检查",
        "{problem}. It is the commit journal of an interrupted {what_en} and cannot be read, so continue refuses to "
        "run; the change it records may be half done and cannot safely be finished or dropped automatically. By "
        "hand: check the files it touches against the backup ({backup}), move this file out of the project, then "
        "run novel-studio repair to check",
    ),
    "commit_journal_rebuilt": (
        "{problem}。这是第 {chapter} 章被中断的提交的记录：先把它和第 {chapter} 章的 {count} 个暂存文件复制到备份文件夹"
        "（需要时可按原路径复制回来），再按暂存的记录重写它（故事线 {storyline}，所有步骤标为未做）；之后运行 continue "
        "会完成这次提交，每一步都可安全重做，已做过的步骤再做一次结果不变",
        "{problem}. It is the record of chapter {chapter}'s interrupted commit: it and the staged files of chapter "
        "{chapter} (count: {count}) are first copied into the backup folder (copy them back to the same paths to restore them), "
        "then the record is written again from the staged records (storyline {storyline}, no step marked done); "
        "continue then finishes the commit: every step is safe to redo, and a step done before gives the same "
        "result again",
    ),
    "commit_journal_manual": (
        "{problem}。这是第 {chapter} 章被中断的提交的记录，读不出来；完成提交要用的暂存文件也无法使用：{staged}。"
        "不知道提交做到了哪一步，不会猜测。手动处理：用文本编辑器修正这些文件后运行 novel-studio repair；或按 "
        "logs/{cid}/ 中提交前的副本（state-before.json、foreshadowing-before.json、memory-before.md）恢复 "
        "state/current-state.json、foreshadowing/global.json 与故事线记忆，删去 state/changelog.jsonl 中第 {chapter} "
        "章的行和 chapters/{cid}.md，再把 staging/ 中第 {chapter} 章的文件移出项目",
        "{problem}. It is the record of chapter {chapter}'s interrupted commit and cannot be read; a staged file the "
        "commit needs to finish cannot be used either: {staged}. Which steps the commit did is unknown, and nothing "
        "is guessed. By hand: fix these files in a text editor and run novel-studio repair; or restore "
        "state/current-state.json, foreshadowing/global.json and the storyline memory from the copies made before "
        "the commit in logs/{cid}/ (state-before.json, foreshadowing-before.json, memory-before.md), remove chapter "
        "{chapter}'s lines from state/changelog.jsonl and chapters/{cid}.md, and move chapter {chapter}'s files out "
        "of staging/",
    ),
    "commit_rolled_back": (
        "第 {chapter} 章的提交被中断（已做的步骤：{done}），完成它要用的暂存文件无法使用：{staged}。先把涉及的 {count} "
        "个文件备份，再把这次提交退回到提交之前：按 logs/{cid}/ 中提交前的副本恢复状态、伏笔和故事线记忆，删去变更日志中"
        "本章的行和已复制进项目的本章文件，把归档的草稿和调用记录移回暂存区，并把无法使用的暂存文件移到备份里；之后运行 "
        "continue 只重做生成它们的那一步，完好的正文和结果不重做",
        "chapter {chapter}'s commit was interrupted (steps done: {done}) and a staged file it needs to finish cannot "
        "be used: {staged}. The {count} files involved are backed up first, then the commit is taken back to before "
        "it started: the state, the foreshadowing ledger and the storyline memory restored from the copies in "
        "logs/{cid}/, the chapter's changelog line and the chapter files already copied into the project removed, "
        "the archived drafts and call records moved back to the staging, and the broken staged files moved into "
        "the backup; continue then redoes only the stage that made them, and nothing intact is redone",
    ),
    "staged_set_aside": (
        "第 {chapter} 章暂存的文件无法使用：{staged}。把它和与它一同生成的暂存文件（共 {count} 个）移到备份文件夹（需要时可"
        "按原路径复制回来）；之后运行 continue 只重做生成它们的那一步",
        "chapter {chapter}'s staged files cannot be used: {staged}. They and the staged files made with them "
        "(count: {count}) move into the backup folder (copy them back to the same paths to restore them); continue "
        "then redoes only the stage that made them",
    ),
    "checkpoint_behind": (
        "检查点只记录到第 {done} 章，但第 {chapters} 章的正文和状态变更都已在磁盘上：把检查点改为已完成第 {last} 章",
        "the checkpoint records chapters done up to {done}, but the chapters after them are on disk with their "
        "state changes logged ({chapters}): set the checkpoint to {last} done",
    ),
    "log_ahead_no_chapters": (
        "变更日志已含第 {chapter} 章的状态变更，但 chapters/ 中没有第 {missing} 章，检查点只记录到第 {done} 章："
        "repair 无法判断哪一边是对的。若这些章节在备份里（.novel-studio/undo/ 或其他备份），放回 chapters/ 后再运行 "
        "novel-studio repair；若这些状态变更不该保留，用 .novel-studio/repair/ 或 .novel-studio/undo/ 里的备份恢复 "
        "state/ 后再运行 novel-studio repair",
        "the changelog has chapter {chapter}'s state changes, but chapters/ lacks these ({missing}) and the "
        "checkpoint records {done} done: repair cannot tell which side is right. If the chapters are in a backup "
        "(.novel-studio/undo/ or another), put them back in chapters/ and run novel-studio repair again; if those "
        "state changes should not stay, restore state/ from a backup in .novel-studio/repair/ or .novel-studio/undo/ "
        "and run novel-studio repair again",
    ),
    "checkpoint_rebuilt": (
        "{problem}。按磁盘重建检查点：已完成第 {done} 章（chapters/ 与变更日志一致），第 {volume} 卷，状态 {state}，"
        "进行中的章：{inflight}。原文件留在备份里（其中的待回答问题和修改次数不会带过来）",
        "{problem}. Rebuild the checkpoint from the disk: chapters done up to {done} (chapters/ and the changelog "
        "agree), volume {volume}, state {state}, inflight chapter: {inflight}. The old file stays in the backup "
        "(its waiting questions and revision counts are not carried over)",
    ),
    "checkpoint_unclear": (
        "{problem}。无法按磁盘重建检查点：第 {chapters} 章缺失、为空，或只有变更日志里的状态变更而没有正文。"
        "手动处理：修正 .checkpoint.json（或从备份恢复），再运行 novel-studio repair 检查",
        "{problem}. The checkpoint cannot be rebuilt from the disk: these chapters are missing, empty, or have "
        "state changes in the changelog but no text: {chapters}. By hand: fix .checkpoint.json (or restore it from a "
        "backup), then run novel-studio repair to check",
    ),
    "settings_invalid": (
        "{problem}。repair 不改设置文件：用文本编辑器修正这一处（或从备份恢复该文件），再运行 novel-studio repair 检查",
        "{problem}. repair does not change settings files: fix this in a text editor (or restore the file from a "
        "backup), then run novel-studio repair to check",
    ),
    "project_file_invalid": (
        "{problem}。continue 在每章开始前读这个文件，它无法使用时不会开始写作；repair 不改写它：用文本编辑器修正它"
        "（或从备份恢复），再运行 novel-studio repair 检查",
        "{problem}. continue reads this file before each chapter starts and does not start one while it cannot be "
        "used; repair does not rewrite it: fix it in a text editor (or restore it from a backup), then run "
        "novel-studio repair to check",
    ),
    "no_base": (
        "无法重建状态：日志不从版本 0 开始，也没有可用的快照（版本 {first} 或之后）",
        "cannot rebuild the state: the log does not start at version 0 and no snapshot (version {first} or "
        "later) exists",
    ),
}


@dataclass(frozen=True)
class RepairItem:
    kind: Kind
    key: str
    text_zh: str
    text_en: str

    def describe(self, lang: Lang = "zh") -> str:
        return self.text_zh if lang == "zh" else self.text_en


@dataclass
class RepairPlan:
    items: list[RepairItem] = field(default_factory=list)
    changelog: bytes | None = None  # the bytes the changelog gets, when it changes
    state: CurrentState | None = None  # the state to write, when it changes
    checkpoint: Checkpoint | None = None
    temp_files: list[Path] = field(default_factory=list)
    set_aside: list[Path] = field(default_factory=list)  # staged files moved into the backup
    kept_copies: list[Path] = field(default_factory=list)  # files copied into the backup and left in place
    journals: dict[Path, CommitJournal] = field(default_factory=dict)  # commit journals written again
    rollbacks: list[Rollback] = field(default_factory=list)  # interrupted commits taken back

    @property
    def fixes(self) -> list[RepairItem]:
        return [i for i in self.items if i.kind == "fix"]

    @property
    def cannot(self) -> list[RepairItem]:
        return [i for i in self.items if i.kind == "cannot"]


def _item(kind: Kind, key: str, **params: object) -> RepairItem:
    """A plan item in both languages; a `Problem` or `OpWarning` param is rendered in each."""
    def text(v: object, lang: Lang) -> str:
        if isinstance(v, Problem):
            return v.describe(lang)
        return reason_text(v, lang) if isinstance(v, OpWarning) else str(v)

    def fill(lang: Lang) -> dict[str, str]:
        return {k: text(v, lang) for k, v in params.items()}

    return RepairItem(kind, key, tr(MESSAGES, key, "zh", **fill("zh")), tr(MESSAGES, key, "en", **fill("en")))


def _finding_item(f: Finding) -> RepairItem:
    return RepairItem("cannot", f.key, f.describe("zh"), f.describe("en"))


def _dedupe(raw: bytes) -> tuple[bytes, list[int]]:
    """The changelog without lines that repeat the line before them; the removed line numbers."""
    out: list[bytes] = []
    removed: list[int] = []
    previous: bytes | None = None
    for lineno, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        if previous is not None and line.strip() == previous:
            removed.append(lineno)
            continue
        out.append(line)
        previous = line.strip()
    return b"".join(line + b"\n" for line in out), removed


def _archived_snapshots(paths: ProjectPaths) -> list[tuple[CurrentState, Path]]:
    out: list[tuple[CurrentState, Path]] = []
    for path in sorted((paths.root / "logs").glob("chapter-*/state-before.json")):
        try:
            out.append((CurrentState.load(path), path))
        except FormatError:
            continue
    return out


def _plan_state(paths: ProjectPaths, plan: RepairPlan, entries: list[ChangelogEntry]) -> None:
    source = str(paths.changelog)
    state: CurrentState | None = None
    if paths.current_state.exists():
        try:
            state = CurrentState.load(paths.current_state)
        except FormatError:
            state = None
    if not entries:
        return
    end = entries[-1].state_version
    if state is not None and state.state_version == end:
        return
    if state is not None and state.state_version > end:
        plan.items.append(_item("cannot", "state_ahead", state=state.state_version, log=end))
        return
    if state is not None and state.state_version == end - 1:
        try:
            plan.state = replay_from(state, entries, source=source)
        except (FormatError, StateVersionMismatch):
            pass
        else:
            plan.items.append(_item("fix", "merge_interrupted", state=state.state_version, log=end))
            return
    bases: list[tuple[CurrentState, str, str]] = []
    if state is not None:
        bases.append((state, "base_current", ""))
    if entries[0].kind == "init" or entries[0].base_state_version == 0:
        bases.append((CurrentState(), "base_init" if entries[0].kind == "init" else "base_empty", ""))
    archived = sorted(_archived_snapshots(paths), key=lambda item: -item[0].state_version)
    bases.extend((snap, "base_archive", str(path.relative_to(paths.root))) for snap, path in archived)
    for base, key, file in bases:
        if base.state_version > end:
            continue
        try:
            rebuilt = (
                replay(entries, source=source) if key in ("base_init", "base_empty")
                else replay_from(base, entries, source=source)
            )
        except (FormatError, StateVersionMismatch):
            continue
        plan.state = rebuilt
        base_text = {
            lang: tr(MESSAGES, key, lang, version=base.state_version, file=file) for lang in ("zh", "en")
        }
        plan.items.append(
            RepairItem(
                "fix",
                "state_rebuilt",
                tr(MESSAGES, "state_rebuilt", "zh", base=base_text["zh"], log=end),
                tr(MESSAGES, "state_rebuilt", "en", base=base_text["en"], log=end),
            )
        )
        return
    stale = first_stale_ops(entries)
    for s in stale:  # the log would rebuild it but for these ops: name them, not a missing snapshot
        plan.items.append(
            _item("cannot", "rebuild_op_stale", line=_line_of(paths, s.index), chapter=s.chapter, op=op_text(s.op),
                  why=s.why)
        )
    if not stale:
        plan.items.append(_item("cannot", "no_base", first=entries[0].base_state_version))


def _line_of(paths: ProjectPaths, index: int) -> int:
    """The line number of the log's `index`th line (blank lines are not entries)."""
    lines = paths.changelog.read_bytes().split(b"\n")
    at = [i for i, line in enumerate(lines) if line.strip()]
    return at[index] + 1 if index < len(at) else index + 1


def _plan_stale_ops(paths: ProjectPaths, plan: RepairPlan, entries: list[ChangelogEntry], log: bytes) -> None:
    """Logged ops that no longer apply, with the state in step with the log: fixed in the changelog only when
    the fixed log replays to exactly the current state (see `studio.stale_ops`), else reported."""
    try:
        state = CurrentState.load(paths.current_state)
    except FormatError:
        return
    stale = plan_stale_ops(entries, state)
    if not stale.found:
        return
    lines = log.split(b"\n")
    at = [i for i, line in enumerate(lines) if line.strip()]  # the log's lines, one per entry
    mapped = len(at) == len(entries)
    for s in stale.found:
        line = at[s.index] + 1 if mapped else s.index + 1
        params = {"line": line, "chapter": s.chapter, "op": op_text(s.op)}
        if stale.exact and mapped:
            key = "op_corrected" if s.fixed is not None else "op_skipped"
            fixed = {"fixed": op_text(s.fixed)} if s.fixed is not None else {}
        else:
            key, fixed = "op_stale_manual", {}
        plan.items.append(
            RepairItem(
                "fix" if key != "op_stale_manual" else "cannot",
                key,
                tr(MESSAGES, key, "zh", why=s.why_text("zh"), **params, **fixed),
                tr(MESSAGES, key, "en", why=s.why_text("en"), **params, **fixed),
            )
        )
    if stale.exact and mapped:
        plan.changelog = _with_lines(lines, at, stale)


def _with_lines(lines: list[bytes], at: list[int], stale: StaleOps) -> bytes:
    """The changelog with each fixed entry's line rewritten; every other line kept byte for byte."""
    out = list(lines)
    for index in sorted({s.index for s in stale.found}):
        out[at[index]] = entry_line(stale.entries[index]).encode("utf-8")
    return b"\n".join(out)


def _journals(paths: ProjectPaths) -> list[tuple[Path, type[FileModel], str, str, str]]:
    """(file, model, what in Chinese, in English, backup folder) of every commit-point journal present."""
    from studio.models.tool_journal import ToolJournal
    from studio.planning.staged import PlanApplyJournal, apply_journal_path, pending_plan_applies
    from studio.tools.txn import backup_root, pending_tool_changes

    found: list[tuple[Path, type[FileModel], str, str, str]] = [
        (path, ToolJournal, "角色/世界工具改动", "character or world tool change",
         str(backup_root(paths).relative_to(paths.root)))
        for path in pending_tool_changes(paths)
    ]
    found += [
        (apply_journal_path(paths, volume), PlanApplyJournal, "分卷规划应用", "plan apply", ".novel-studio/plan-backup")
        for volume in pending_plan_applies(paths)
    ]
    return found


def unreadable_journals(paths: ProjectPaths) -> list[RepairItem]:
    """The commit-point journals that cannot be read, each with what is wrong and the way out by hand (what
    `repair` says of them; `status` shows the same)."""
    plan = RepairPlan()
    _plan_journals(paths, plan)
    return plan.items


def _plan_journals(paths: ProjectPaths, plan: RepairPlan) -> None:
    for path, model, what, what_en, backup in _journals(paths):
        try:
            model.load(path)
        except FormatError as exc:
            first = exc.problems[0] if exc.problems else Problem(path, str(exc))
            plan.items.append(
                RepairItem(
                    "cannot",
                    "journal_unreadable",
                    tr(MESSAGES, "journal_unreadable", "zh", problem=first.describe("zh"), what=what, what_en=what_en,
                       backup=backup),
                    tr(MESSAGES, "journal_unreadable", "en", problem=first.describe("en"), what=what, what_en=what_en,
                       backup=backup),
                )
            )


def _plan_commit_journals(paths: ProjectPaths, plan: RepairPlan) -> None:
    """Unreadable chapter-commit journals: rebuilt from the staged records when those can be used (see the
    module rules), else said with the way out by hand."""
    from studio.models.commit_journal import CommitJournal

    for n in pending_commits(paths):
        path = paths.commit_journal(n)
        try:
            journal = CommitJournal.load(path)
        except FormatError as exc:
            problem = exc.problems[0] if exc.problems else Problem(path, str(exc))
        else:
            _plan_commit_rollback(paths, plan, journal)
            continue
        storyline, skipped = _staged_commit_facts(paths, n)
        staged = [p for p in commit_problems(paths, n, storyline_id=storyline)
                  if is_staged(paths, p)]
        if staged:
            texts = [
                tr(MESSAGES, "commit_journal_manual", lang, problem=problem.describe(lang), chapter=n,
                   cid=chapter_id(n), staged="；".join(p.describe(lang) for p in staged) if lang == "zh"
                   else "; ".join(p.describe(lang) for p in staged))
                for lang in ("zh", "en")
            ]
            plan.items.append(RepairItem("cannot", "commit_journal_manual", *texts))
            continue
        work = staged_work(paths, n)
        plan.kept_copies += work
        plan.journals[path] = CommitJournal(chapter=n, storyline_id=storyline, patch_skipped=skipped, rebuilt=True)
        plan.items.append(_item("fix", "commit_journal_rebuilt", problem=problem, chapter=n,
                                count=len([p for p in work if p != path]), storyline=storyline or "-"))


def _plan_commit_rollback(paths: ProjectPaths, plan: RepairPlan, journal: CommitJournal) -> None:
    """A readable journal whose commit a broken staged file stops: taken back (see the module rules)."""
    n = journal.chapter
    rb = plan_rollback(paths, n, storyline_id=journal.storyline_id, steps_done=journal.steps_done)
    if rb is None:
        return
    plan.rollbacks.append(rb)
    texts = [
        tr(MESSAGES, "commit_rolled_back", lang, chapter=n, cid=chapter_id(n), count=len(rb.touched(paths)),
           done=", ".join(journal.steps_done) or "-",
           staged=("；" if lang == "zh" else "; ").join(p.describe(lang) for p in rb.problems))
        for lang in ("zh", "en")
    ]
    plan.items.append(RepairItem("fix", "commit_rolled_back", *texts))


def _plan_staged_set_aside(paths: ProjectPaths, plan: RepairPlan, cp: Checkpoint) -> None:
    """The inflight chapter before its commit point (no journal) with a staged file the commit would refuse
    (broken, not missing): set aside with the files made with it, so `continue` redoes that stage (what the
    refusal tells the author to do by hand; also what is left when a rollback is killed after its journal
    went)."""
    n = cp.inflight_chapter
    if n is None or paths.commit_journal(n).exists():
        return
    storyline, _ = _staged_commit_facts(paths, n)
    broken = {Path(p.path) for p in commit_problems(paths, n, storyline_id=storyline, prepared=False)
              if is_staged(paths, p) and Path(p.path).is_file()}
    if not broken:
        return
    files = with_products(paths, n, storyline, broken)
    plan.set_aside += [p for p in files if p not in plan.set_aside]
    problems = [p for p in commit_problems(paths, n, storyline_id=storyline, prepared=False)
                if Path(p.path) in broken]
    texts = [tr(MESSAGES, "staged_set_aside", lang, chapter=n, count=len(files),
                staged=("；" if lang == "zh" else "; ").join(p.describe(lang) for p in problems))
             for lang in ("zh", "en")]
    plan.items.append(RepairItem("fix", "staged_set_aside", *texts))


def _staged_commit_facts(paths: ProjectPaths, n: int) -> tuple[str | None, bool]:
    """(storyline id, whether the patch was skipped) of chapter `n`'s commit, from its staged summary metadata
    or delta, else from the archive's `undo.json` (a cleanup cut short may have removed the staged records)."""
    storyline: str | None = None
    skipped = False
    for record in (paths.staged_summary_meta(n), paths.staged_delta(n), archive_dir(paths, n) / "undo.json"):
        try:
            data = json.loads(record.read_bytes())
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        if record == paths.staged_delta(n):
            skipped = bool(data.get("skipped"))
        value = data.get("storyline_id")
        if storyline is None and isinstance(value, str) and is_slug(value):
            storyline = value
    if not paths.staged_delta(n).is_file():
        try:
            skipped = n in Checkpoint.load_or_default(paths.checkpoint).skipped_ops_chapters
        except FormatError:
            skipped = False
    return storyline, skipped


def _plan_inflight(paths: ProjectPaths, plan: RepairPlan, cp: Checkpoint) -> None:
    """The cold start's `inflight_absurd`: clear the inflight chapter; its staged work, if any, is set aside
    into the backup first (see the module rules), never deleted."""
    n = cp.inflight_chapter
    assert n is not None  # the cold start's rule found one
    fixed_cp = cp.model_copy(deep=True)
    fixed_cp.inflight_chapter = None
    fixed_cp.pipeline_stage = PipelineStage.COMMITTED if cp.last_completed_chapter else None
    fixed_cp.revision_count = 0
    fixed_cp.revision_kind = None
    fixed_cp.pending_actions = [a for a in cp.pending_actions if a.chapter != n]
    plan.checkpoint = fixed_cp
    plan.set_aside = staged_work(paths, n)
    if plan.set_aside:
        plan.items.append(_item("fix", "inflight_set_aside", inflight=n, next=cp.next_chapter,
                                count=len(plan.set_aside)))
    else:
        plan.items.append(_item("fix", "inflight_reset", inflight=n))


def _plan_checkpoint_rebuilt(
    paths: ProjectPaths, plan: RepairPlan, entries: list[ChangelogEntry], exc: FormatError
) -> Checkpoint | None:
    """A checkpoint that cannot be read, rebuilt from the disk when the disk says it plainly: chapters 1..N
    all there and not empty, none of the changelog's chapters after N. The volume is the one whose outline
    holds chapter N+1 (else N); the state: QUICK_START while a quick start's progress file exists, WRITING
    when an outline holds N+1, else the volume's review or planning; staged work of N+1 makes it the inflight
    chapter (stage `drafting`, a lower bound: the run's recovery reads what the staging files hold). The
    author's pauses and revision counts are lost with the file: the backup keeps it as it was."""
    problem = exc.problems[0] if exc.problems else Problem(paths.checkpoint, str(exc))
    sizes = {n: p.stat().st_size for n, p in numbered_files(paths.root / "chapters", _CHAPTER_FILE).items()}
    done = max(sizes, default=0)
    holes = [n for n in range(1, done + 1) if not sizes.get(n)]
    logged = max((e.chapter for e in entries if e.kind not in ("init", "foreign", "tool")), default=0)
    if holes or logged > done:
        plan.items.append(_item("cannot", "checkpoint_unclear", problem=problem,
                                chapters=chapter_ranges(holes or list(range(done + 1, logged + 1)))))
        return None
    outlines = {n: _outline_range(paths, n) for n in numbered_volumes(paths)}
    volume = next((v for v, r in sorted(outlines.items()) if r and r[0] <= done + 1 <= r[1]), None)
    state = OrchestratorState.WRITING
    if volume is None:
        volume = next((v for v, r in sorted(outlines.items()) if r and r[0] <= done <= r[1]), max(outlines, default=1))
        state = OrchestratorState.VOL_PLANNING if review_path(paths, volume).is_file() else OrchestratorState.VOL_REVIEW
        if not done and not outlines:
            state = OrchestratorState.INIT
    if quick_start_progress_path(paths).is_file():
        state = OrchestratorState.QUICK_START
    inflight = done + 1 if staged_work(paths, done + 1) else None
    rebuilt = Checkpoint(
        last_completed_chapter=done, current_volume=volume, orchestrator_state=state,
        pipeline_stage=PipelineStage.DRAFTING if inflight else (PipelineStage.COMMITTED if done else None),
        inflight_chapter=inflight,
    )
    plan.checkpoint = rebuilt
    texts = [
        tr(MESSAGES, "checkpoint_rebuilt", lang, problem=problem.describe(lang), done=done, volume=volume,
           state=state_name(state.value, lang), inflight=inflight or "-")
        for lang in ("zh", "en")
    ]
    plan.items.append(RepairItem("fix", "checkpoint_rebuilt", *texts))
    return rebuilt


def _outline_range(paths: ProjectPaths, volume: int) -> tuple[int, int] | None:
    try:
        return parse_outline(read_text(paths.outline(volume)), paths.outline(volume)).chapter_range
    except (FormatError, OSError):
        return None


def numbered_volumes(paths: ProjectPaths) -> list[int]:
    """Volumes with an outline file (`volumes/vol-NN/outline.md`)."""
    found = []
    for folder in (paths.root / "volumes").glob("vol-*"):
        match = _VOLUME_NAME.match(folder.name)
        if match and (folder / "outline.md").is_file():
            found.append(int(match.group(1)))
    return sorted(found)


def _plan_project_files(paths: ProjectPaths, plan: RepairPlan) -> None:
    """The files a chapter reads that cannot be used (what `continue` stops on before a chapter's first call)."""
    from studio.project import Project

    try:
        Project.open(paths.root, lang="zh")
    except FormatError as exc:
        problems = exc.problems
    else:
        return
    theirs = {paths.checkpoint, paths.current_state, paths.changelog, paths.global_foreshadowing,
              paths.root / "novel-studio.toml"}  # the cold start's (or the settings') own findings
    for problem in problems:
        if Path(problem.path) not in theirs:
            plan.items.append(_item("cannot", "project_file_invalid", problem=problem))


def _plan_settings(paths: ProjectPaths, plan: RepairPlan) -> None:
    """Settings every command reads (novel-studio.toml, the user's file) that cannot be used: each problem
    said, with its file and line; never rewritten here."""
    from studio.config import load_settings

    try:
        load_settings(paths.root)
    except FormatError as exc:
        for problem in exc.problems or [Problem(paths.root / "novel-studio.toml", str(exc))]:
            plan.items.append(_item("cannot", "settings_invalid", problem=problem))


def _plan_checkpoint_behind(
    paths: ProjectPaths, plan: RepairPlan, cp: Checkpoint, entries: list[ChangelogEntry]
) -> None:
    """The cold start's `log_ahead`: caught up when the chapters are on disk, else said plainly (see above)."""
    if not any(f.key == "log_ahead" for f in refusals(check_cold_start(paths, cp))):
        return
    done = cp.last_completed_chapter
    logged = sorted({e.chapter for e in entries if e.kind not in ("init", "foreign", "tool") and e.chapter > done})
    last = logged[-1]
    missing = [n for n in range(done + 1, last + 1) if not _has_text(paths.chapter(n))]
    if missing:
        plan.items.append(_item("cannot", "log_ahead_no_chapters", chapter=logged[0], done=done,
                                missing=chapter_ranges(missing)))
        return
    fixed = cp.model_copy(deep=True)
    fixed.last_completed_chapter = last
    if fixed.inflight_chapter is not None and fixed.inflight_chapter <= last:
        fixed.inflight_chapter = None
    fixed.pipeline_stage = PipelineStage.COMMITTED if fixed.inflight_chapter is None else fixed.pipeline_stage
    still = {f.key for f in refusals(check_cold_start(paths, fixed))}
    if "log_ahead" in still or "chapter_ahead" in still:
        return  # more chapters after them, or another disagreement: the cold start's own words stand
    plan.checkpoint = fixed
    plan.items.append(_item("fix", "checkpoint_behind", done=done, chapters=chapter_ranges(list(range(done + 1, last + 1))),
                            last=last))


def _has_text(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 0


def staged_work(paths: ProjectPaths, n: int) -> list[Path]:
    """Chapter `n`'s staged files: every file under `staging/` named for it (`chapter-NNN.md`, `-summary.json`,
    `commit-chapter-NNN.json`...), and the storyline memory its staged summary or delta names."""
    if not paths.staging.is_dir():
        return []
    found = [p for p in paths.staging.rglob("*") if p.is_file() and _chapter_in(p.name) == n]
    for record in (paths.staging / "summaries" / f"{chapter_id(n)}-summary.json", paths.staged_delta(n)):
        if not record.is_file():
            continue
        try:
            storyline = json.loads(record.read_bytes()).get("storyline_id")
        except (ValueError, AttributeError):  # not JSON, or not an object: no memory named
            continue
        if isinstance(storyline, str) and is_slug(storyline) and paths.staged_memory(storyline).is_file():
            found.append(paths.staged_memory(storyline))
        break
    return sorted(set(found))


def _chapter_in(name: str) -> int | None:
    match = _CHAPTER_IN_NAME.search(name)
    return int(match.group(1)) if match else None


def plan_repair(paths: ProjectPaths) -> RepairPlan:
    """What `apply_repair` would do, and what it cannot. Reads only."""
    plan = RepairPlan()
    plan.temp_files = find_temp_files(paths.root)
    if plan.temp_files:
        plan.items.append(_item("fix", "temp_files", count=len(plan.temp_files)))

    entries: list[ChangelogEntry] | None = []
    fixed = b""
    if paths.changelog.exists():
        raw = paths.changelog.read_bytes()
        fixed = raw
        try:
            _, kept = parse_changelog(fixed, paths.changelog, drop_torn_tail=True)
        except FormatError:
            kept = None
        if kept is not None:
            fixed = kept
            plan.items.append(_item("fix", "torn_tail"))
        deduped, removed = _dedupe(fixed)
        if removed:
            fixed = deduped
            plan.items.append(_item("fix", "duplicate_lines", lines=", ".join(map(str, removed))))
        try:
            entries, still = parse_changelog(fixed, paths.changelog, drop_torn_tail=True)
            if still is not None:  # a torn line uncovered by removing a repeat
                fixed = still
        except FormatError as exc:
            detail = exc.problems[0] if exc.problems else Problem(paths.changelog, str(exc))
            plan.items.append(_item("cannot", "changelog_unusable", detail=detail))
            entries = None
        if fixed != raw and entries is not None:
            plan.changelog = fixed

    if entries is not None and paths.current_state.parent.is_dir():
        _plan_state(paths, plan, entries)
        if entries and plan.state is None:
            _plan_stale_ops(paths, plan, entries, fixed)

    cp: Checkpoint | None
    try:
        cp = Checkpoint.load_or_default(paths.checkpoint)
    except FormatError as exc:
        cp = _plan_checkpoint_rebuilt(paths, plan, entries or [], exc)
    if cp is not None and "inflight_absurd" in {f.key for f in refusals(check_cold_start(paths, cp))}:
        _plan_inflight(paths, plan, cp)

    _plan_journals(paths, plan)
    _plan_commit_journals(paths, plan)
    if cp is not None and plan.checkpoint is None:  # an absurd inflight chapter's work is set aside whole above
        _plan_staged_set_aside(paths, plan, cp)
    _plan_settings(paths, plan)
    _plan_project_files(paths, plan)
    if cp is not None and entries:
        _plan_checkpoint_behind(paths, plan, plan.checkpoint or cp, entries)

    # What the cold-start check would still refuse once the fixes above are made.
    handled = {"changelog_invalid", "state_invalid", "state_out_of_step"} if plan.state or plan.changelog else set()
    if plan.checkpoint is not None:
        handled.add("inflight_absurd")
    if {"checkpoint_behind", "log_ahead_no_chapters"} & {i.key for i in plan.items}:
        handled.add("log_ahead")
    if "checkpoint_unclear" in {i.key for i in plan.items}:
        handled.add("checkpoint_unreadable")
    handled.add("commit_journal_unreadable")  # each one rebuilt or said by `_plan_commit_journals`
    if plan.rollbacks:  # every problem of these commits is a staged file the rollback sets aside
        handled.add("commit_input_broken")
    reported = {i.key for i in plan.items}
    for f in refusals(check_cold_start(paths, plan.checkpoint)):
        if f.key in handled or (f.key == "changelog_invalid" and "changelog_unusable" in reported):
            continue
        if f.key == "state_out_of_step" and ("state_ahead" in reported or "no_base" in reported):
            continue
        plan.items.append(_finding_item(f))
    return plan


def _backup(paths: ProjectPaths, files: list[Path], now: datetime | None) -> Path:
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    dest = paths.root / ".novel-studio" / "repair" / stamp
    suffix = 1
    while dest.exists():
        suffix += 1
        dest = paths.root / ".novel-studio" / "repair" / f"{stamp}-{suffix}"
    dest.mkdir(parents=True)
    for src in files:
        if src.is_file():
            atomic_write_bytes(dest / src.relative_to(paths.root), src.read_bytes())
    return dest


def apply_repair(paths: ProjectPaths, plan: RepairPlan, *, now: datetime | None = None) -> Path | None:
    """Back up what changes, then apply the plan's fixes (changelog first, then the state: the log is the
    record the state is checked against). Returns the backup folder (None when nothing changed)."""
    if not plan.fixes:
        return None
    changed = [paths.changelog, paths.current_state, paths.checkpoint, *plan.set_aside, *plan.kept_copies,
               *plan.journals, *(p for rb in plan.rollbacks for p in rb.touched(paths))]
    backup = _backup(paths, sorted(set(changed)), now)
    for path, journal in plan.journals.items():  # the unreadable journal's bytes are in the backup now
        journal.save(path)
    for path in plan.set_aside:  # copied into the backup above; removed only now
        own_writes.record_deleted(path)
        path.unlink(missing_ok=True)  # an emptied staging folder is pruned by the next run's cleanup
    if plan.temp_files:
        sweep_temp_files(paths.root)
    if plan.changelog is not None:
        atomic_write_bytes(paths.changelog, plan.changelog)
    if plan.state is not None:
        plan.state.save(paths.current_state)
    if plan.checkpoint is not None:
        save_checkpoint(paths, plan.checkpoint)
    for rb in plan.rollbacks:  # last: it restores the state from before the chapter over any fix above
        apply_rollback(paths, rb)
    return backup
