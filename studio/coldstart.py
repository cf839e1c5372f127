"""The cold-start consistency check (seed 003 section 10.4): before a run trusts the checkpoint, check it
against the chapters on disk, the changelog and the state. Pure: reads files, changes nothing.

`check_cold_start(paths)` returns `Finding`s, each with a severity:
- `refuse`: `continue` must not start (it would write the wrong chapter, build on a broken log or a lost
  state); the message says what is wrong and the way out (`novel-studio repair`, `undo`, restoring a file);
- `repairable`: what an interrupted write leaves and every run repairs itself before it starts (a torn
  last changelog line, a merge cut between the log line and the state file); `status` shows it as a note;
- `note`: nothing to refuse or repair, but the author should know before writing on (an imported book whose
  state is not extracted yet: the writer would start from an empty state).

One source of truth: `continue` (the orchestrator), `status` and `repair` all ask this module.

Rules are a table, `RULES`: the rules of `COMMON` run in every orchestrator state, then the tuple listed
for the checkpoint's `orchestrator_state`. A rule is a function `(ColdStart) -> Iterable[Finding]`; the
`ColdStart` context loads each file once, lazily. To teach the check a new state (QUICK_START,
VOL_PLANNING, VOL_REVIEW, a staged volume plan), write its rules as such functions and list them under
that state in `RULES`; a state not listed gets the common rules only.

The rules need four facts of the changelog (`ChangelogFacts`: a torn last line, the last entry's kind and state
version, the chapters with state changes), got by validating every line with its model (`parse_changelog`). A
caller that validated the same file before may pass them (`check_cold_start(changelog=...)`): `status` keeps
them under the file's full stat and the code's (`studio.status.ReportParts`), so a report whose changelog did
not change does not validate a long log again; any change validates it as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

from studio.commit_inputs import archive_dir, commit_problems, is_staged, pending_commits
from studio.errors import FormatError, Problem, StudioError
from studio.i18n import Catalog, Lang, tr
from studio.models.changelog import ChangelogEntry
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.state import CurrentState
from studio.paths import ProjectPaths, numbered_files
from studio.pending import (
    extraction_progress_path,
    import_journal_path,
    pending_plan_applies,
    pending_reviews,
    pending_tool_changes,
    quick_start_progress_path,
    review_path,
    staged_plans,
)
from studio.state_engine import parse_changelog

# The models of pending work (an import journal, a quick start's progress, an import record or extraction) are
# imported inside the rules, once their file is known to exist: `status` on a project with nothing pending
# builds none of their pydantic classes (tests/test_status_imports.py holds the list).

Severity = Literal["refuse", "repairable", "note"]

_CHAPTER_NAME = re.compile(r"^(chapter-\d{3,})\.md$")
_CHAPTER_DIR = re.compile(r"^(chapter-\d{3,})$")

MESSAGES: Catalog = {
    "checkpoint_unreadable": (
        "无法读取 .checkpoint.json：{detail}",
        "cannot read .checkpoint.json: {detail}",
    ),
    "state_dir_missing": (
        "缺少 state/ 文件夹（角色、地点、世界状态与变更日志都在其中）；不会从空状态重新开始",
        "the state/ folder is missing (characters, places, world state and the changelog live there); "
        "the state is not restarted from empty",
    ),
    "changelog_torn": (
        "state/changelog.jsonl 最后一行不完整（写入时被中断），下次运行会自动修复",
        "the last line of state/changelog.jsonl is incomplete (an interrupted write); the next run repairs it",
    ),
    "changelog_invalid": ("state/changelog.jsonl 无法使用：{detail}", "state/changelog.jsonl cannot be used: {detail}"),
    "state_invalid": ("state/current-state.json 无法使用：{detail}", "state/current-state.json cannot be used: {detail}"),
    "state_file_missing": (
        "state/current-state.json 缺失，下次运行会按变更日志重建",
        "state/current-state.json is missing; the next run rebuilds it from the changelog",
    ),
    "merge_interrupted": (
        "上次状态合并被中断（变更日志比状态文件多一个版本），下次运行会自动完成",
        "the last state merge was interrupted (the changelog is one version ahead); the next run finishes it",
    ),
    "state_out_of_step": (
        "状态文件 state/current-state.json 为版本 {state}，变更日志 state/changelog.jsonl 却到版本 {log}",
        "state/current-state.json is at version {state} but state/changelog.jsonl ends at version {log}",
    ),
    "foreshadowing_invalid": (
        "伏笔总账无法使用：{detail}",
        "the foreshadowing ledger cannot be used: {detail}",
    ),
    "way_out_foreshadowing": (
        "用文本编辑器修正它，或用 {archive}（第 {chapter} 章提交前的副本，之后各章的伏笔变化要手动补上）替换它",
        "fix it in a text editor, or replace it with {archive} (the copy from before chapter {chapter}'s commit; "
        "the later chapters' foreshadowing changes must then be added by hand)",
    ),
    "way_out_foreshadowing_fix": (
        "用文本编辑器修正它，或从备份恢复",
        "fix it in a text editor, or restore it from a backup",
    ),
    "commit_journal_unreadable": (
        "第 {chapter} 章的提交被中断，完成它所需的记录无法读取：{detail}",
        "the commit of chapter {chapter} was interrupted, and a record it needs to finish cannot be read: {detail}",
    ),
    "way_out_commit_journal": (
        "运行 novel-studio repair：它先把这个记录和第 {chapter} 章的暂存文件复制到 .novel-studio/repair/ 下的备份，"
        "再按暂存的记录重写它；之后 continue 会完成这次提交（每一步都可安全重做）",
        "run novel-studio repair: it first copies this record and chapter {chapter}'s staged files into a backup "
        "under .novel-studio/repair/, then writes the record again from the staged records; continue then finishes "
        "the commit (every step is safe to redo)",
    ),
    "commit_input_broken": (
        "第 {chapter} 章的提交被中断，完成它要用的文件无法使用：{detail}",
        "the commit of chapter {chapter} was interrupted, and a file it needs to finish cannot be used: {detail}",
    ),
    "way_out_commit_input": (
        "运行 novel-studio repair：它先备份，再把这次提交退回到提交之前，并把无法使用的暂存文件移到备份里；之后 continue "
        "只重做生成它的那一步（也可以用文本编辑器修正它后再运行 continue）",
        "run novel-studio repair: it backs up first, takes the commit back to before it started and moves the broken "
        "staged file into the backup; continue then redoes only the stage that made it (or fix the file in a text "
        "editor and run continue)",
    ),
    "way_out_commit_archive": (
        "提交已做了一部分，要用这个文件完成：用文本编辑器修正它（或从备份恢复）后再运行 continue",
        "the commit is partly done and is finished from this file: fix it in a text editor (or restore it from a "
        "backup), then run continue",
    ),
    "chapters_missing": (
        "检查点记录已完成 {done} 章，但 chapters/ 中缺少第 {missing} 章",
        "the checkpoint says {done} chapters are done, but chapters/ lacks these: {missing}",
    ),
    "chapters_empty": (
        "chapters/ 中第 {empty} 章是空文件",
        "these chapter files in chapters/ are empty: {empty}",
    ),
    "chapter_ahead": (
        "chapters/ 中已有第 {chapters} 章，但检查点只记录到第 {done} 章；继续写作会覆盖第 {chapter} 章",
        "chapters/ already holds chapters past the checkpoint ({chapters}), which records only {done} done; "
        "continuing would overwrite chapter {chapter}",
    ),
    "inflight_absurd": (
        "检查点称第 {inflight} 章正在进行，但已完成的是第 {done} 章（下一章应为第 {next} 章）",
        "the checkpoint says chapter {inflight} is in flight, but {done} chapters are done (next is {next})",
    ),
    "log_ahead": (
        "变更日志已含第 {chapter} 章的状态变更，但检查点只记录到第 {done} 章",
        "the changelog already has chapter {chapter}'s state changes, but the checkpoint records only {done} done",
    ),
    "way_out_repair": (
        "运行 novel-studio repair 查看并修复（会先备份）",
        "run novel-studio repair to see and fix it (a backup is kept)",
    ),
    "way_out_restore_state": (
        "从备份恢复 state/ 文件夹（例如 .novel-studio/undo/ 下的备份或版本控制）",
        "restore the state/ folder from a backup (e.g. under .novel-studio/undo/ or version control)",
    ),
    "way_out_chapters": (
        "恢复缺少的章节文件，或修改 .checkpoint.json 的 last_completed_chapter 为实际完成的章数",
        "restore the missing chapter files, or set last_completed_chapter in .checkpoint.json to the chapters "
        "really done",
    ),
    "way_out_chapter_ahead": (
        "若这些章节是手写或从其他工具带来的，把 .checkpoint.json 的 last_completed_chapter 改为 {last}；否则移走这些文件",
        "if you wrote these chapters yourself or brought them from another tool, set last_completed_chapter in "
        ".checkpoint.json to {last}; otherwise move the files away",
    ),
    "way_out_checkpoint": (
        "运行 novel-studio repair（会把检查点改回与磁盘一致，先备份）",
        "run novel-studio repair (it sets the checkpoint back in line with the disk, after a backup)",
    ),
    "plan_apply_pending": (
        "第 {volumes} 卷计划的应用被中断，下次运行 plan 或 continue 时会先完成它",
        "applying the plan of volume {volumes} was interrupted; the next plan or continue finishes it first",
    ),
    "tool_change_pending": (
        "一次角色/设定工具改动（{changes}）被中断，下次运行 continue、plan 或任一角色/设定命令时会先完成它",
        "a character/world tool change ({changes}) was interrupted; the next continue, plan or tool command finishes "
        "it first",
    ),
    "plan_staged": (
        "第 {volumes} 卷的计划已生成，正在等待作者批准，批准前不会写新章节",
        "the plan of volume {volumes} is staged and waits for the author's approval; no chapter is written before",
    ),
    "planning_unfinished": (
        "卷规划没有完成（检查点处于 VOL_PLANNING，但没有待批准的计划）",
        "volume planning did not finish (the checkpoint says VOL_PLANNING but no plan is staged)",
    ),
    "plan_next": (
        "第 {volume} 卷已完成卷末回顾，下一卷还没有规划",
        "volume {volume} has been reviewed; the next volume is not planned yet",
    ),
    "review_pending": (
        "第 {volumes} 卷的卷末回顾被中断，再次运行 novel-studio review 会接着完成（不会再次调用模型）",
        "the review of volume {volumes} was interrupted; running novel-studio review again finishes it (no new call)",
    ),
    "way_out_plan": (
        "运行 novel-studio plan（批准、修改或取消计划）",
        "run novel-studio plan (approve, change or cancel the plan)",
    ),
    "quick_start_unfinished": (
        "快速起步没有完成（停在“{step}”这一步）",
        "the quick start did not finish (it stopped at step \"{step}\")",
    ),
    "quick_start_unreadable": (
        "无法读取快速起步进度文件：{detail}",
        "cannot read the quick start's progress file: {detail}",
    ),
    "way_out_start": (
        "运行 novel-studio start 从这一步接着做（已完成的步骤不会重做）",
        "run novel-studio start to go on from that step (finished steps are not redone)",
    ),
    "way_out_start_restart": (
        "运行 novel-studio start --restart 重新开始快速起步：这个文件和快速起步已写的文件先备份到 "
        ".novel-studio/quick-start-backup/，纲领和设置保留",
        "run novel-studio start --restart to begin the quick start again: this file and what the quick start "
        "wrote are first backed up in .novel-studio/quick-start-backup/; the brief and settings stay",
    ),
    "import_unfinished": (
        "一次导入（{name}）在写入第 {first}-{last} 章时被中断",
        "an import ({name}) was interrupted while writing chapters {first}-{last}",
    ),
    "import_journal_broken": (
        "一次导入被中断，其记录 .novel-studio/import-journal.json 无法读取：{detail}",
        "an import was interrupted and its journal .novel-studio/import-journal.json cannot be read: {detail}",
    ),
    "way_out_import": (
        "用同样的来源和切分方式重新运行 novel-studio import（加 --append 若当初是追加）即可完成它，已写好的章节不会重复",
        "run the same novel-studio import again (with --append if it was an append) to finish it; chapters "
        "already written are not written twice",
    ),
    "import_not_extracted": (
        "导入的第 {first}-{last} 章还没有提取状态（人物、设定、伏笔、摘要）：续写会从空白状态开始；"
        "运行 novel-studio extract 提取",
        "the state of imported chapters {first}-{last} is not extracted yet (characters, world, threads, "
        "summaries): writing on would start from an empty state; run novel-studio extract",
    ),
    "import_record_broken": (
        "无法读取导入记录 .novel-studio/import.json：{detail}",
        "cannot read the import record .novel-studio/import.json: {detail}",
    ),
    # --- import extraction (imp-full): an extraction of imported chapters under way
    "extraction_unfinished": (
        "导入书稿的完整提取没有完成：已提取到第 {done} 章，共导入 {total} 章（状态只到第 {done} 章）",
        "the full extraction of the imported manuscript is not finished: chapters up to {done} of {total} are "
        "extracted (the state only goes to chapter {done})",
    ),
    "extraction_unreadable": ("无法读取导入提取的进度：{detail}", "cannot read the import extraction's progress: {detail}"),
    "way_out_extract": (
        "运行 novel-studio extract 接着提取（已提取的章节不会重复付费）",
        "run novel-studio extract to go on (chapters already extracted are not paid for again)",
    ),
    # --- end import extraction
    "refused": (
        "项目状态不一致，未开始写作：\n{findings}",
        "the project is inconsistent; nothing was written:\n{findings}",
    ),
}


@dataclass(frozen=True)
class Finding:
    """One inconsistency. `key` and `way_out` are MESSAGES keys; `params` fill both."""

    key: str
    severity: Severity
    way_out: str | None = None
    params: tuple[tuple[str, str], ...] = ()
    localized: tuple[tuple[str, str, str], ...] = ()  # (name, Chinese, English): a problem's text in each language

    def describe(self, lang: Lang = "zh") -> str:
        params = dict(self.params)
        params.update((name, zh if lang == "zh" else en) for name, zh, en in self.localized)
        text = tr(MESSAGES, self.key, lang, **params)
        if self.way_out:
            text += ("；" if lang == "zh" else "; ") + tr(MESSAGES, self.way_out, lang, **params)
        return text


def finding(key: str, severity: Severity, way_out: str | None = None, **params: object) -> Finding:
    """A `Problem` or `StudioError` param keeps its text in both languages (`describe` picks one)."""
    plain = tuple((k, str(v)) for k, v in params.items() if not isinstance(v, Problem | StudioError))
    localized = tuple(
        (k, v.describe("zh"), v.describe("en")) if isinstance(v, Problem) else (k, v.text("zh"), v.text("en"))
        for k, v in params.items() if isinstance(v, Problem | StudioError)
    )
    return Finding(key, severity, way_out, plain, localized)


class ColdStartRefused(StudioError):
    """`continue` refuses to start; `findings` says why and how to get out."""

    def __init__(self, findings: list[Finding], lang: Lang = "zh") -> None:
        self.findings = findings
        lines = "\n".join(f"- {f.describe(lang)}" for f in findings)
        super().__init__(tr(MESSAGES, "refused", lang, findings=lines))


@dataclass(frozen=True)
class ChangelogFacts:
    """What the rules need of a changelog that could be used (see the module rules); plain values, so a caller
    can keep them (`to_data`, `from_data`)."""

    torn: bool = False  # the last line is incomplete (an interrupted write)
    last_kind: str | None = None  # the last entry's (None: no entry)
    last_version: int = 0  # the last entry's state_version
    chapters: tuple[int, ...] = ()  # chapters with state changes (every kind but init and foreign), sorted
    foreign: bool = False  # some line is another tool's (`kind="foreign"`)

    @classmethod
    def of(cls, entries: list[ChangelogEntry], torn: bool) -> ChangelogFacts:
        last = entries[-1] if entries else None
        return cls(torn, last.kind if last else None, last.state_version if last else 0,
                   tuple(sorted({e.chapter for e in entries if e.kind not in ("init", "foreign")})),
                   any(e.kind == "foreign" for e in entries))

    def to_data(self) -> list[object]:
        return [self.torn, self.last_kind, self.last_version, list(self.chapters), self.foreign]

    @classmethod
    def from_data(cls, value: object) -> ChangelogFacts | None:
        """Facts kept by `to_data` (None: of another shape, e.g. a cache edited by hand: not believed)."""
        if not isinstance(value, list) or len(value) != 5:
            return None
        torn, kind, version, chapters, foreign = value
        if (type(torn) is not bool or not (kind is None or isinstance(kind, str)) or type(version) is not int
                or not isinstance(chapters, list) or not all(type(c) is int for c in chapters)
                or type(foreign) is not bool):
            return None
        return cls(torn, kind, version, tuple(chapters), foreign)


def changelog_facts(paths: ProjectPaths) -> ChangelogFacts | None:
    """The changelog's facts, every line validated by its model (None: it cannot be used; the check says why)."""
    path = paths.changelog
    if not path.exists():
        return ChangelogFacts()
    try:
        entries, kept = parse_changelog(path.read_bytes(), path, drop_torn_tail=True)
    except FormatError:
        return None
    return ChangelogFacts.of(entries, kept is not None)


@dataclass
class ColdStart:
    """What the rules look at, each file read once. Loading problems become findings, not exceptions."""

    paths: ProjectPaths
    checkpoint: Checkpoint
    findings: list[Finding] = field(default_factory=list)
    known_facts: ChangelogFacts | None = None  # the changelog's, from a caller that validated it (module rules)
    chapter_files: Mapping[int, Path] | None = None  # chapters/ as the caller listed it (`numbered_files`)
    foreshadowing_valid: bool = False  # the caller validated the foreshadowing ledger in this run

    @cached_property
    def chapters(self) -> dict[int, int]:
        """Chapter number -> file size, of `chapters/chapter-NNN.md`."""
        files = self.chapter_files
        if files is None:
            files = numbered_files(self.paths.root / "chapters", _CHAPTER_NAME)
        return {n: p.stat().st_size for n, p in files.items()}

    @cached_property
    def pending_journals(self) -> set[int]:
        """Chapters whose commit journal exists (a commit every run finishes first)."""
        return set(pending_commits(self.paths))

    @cached_property
    def importing(self) -> set[int]:
        """Chapters a pending import is writing (its journal): that import finishes them, they are not ahead."""
        if not import_journal_path(self.paths).exists():
            return set()
        from studio.importing.journal import load_journal

        try:
            journal = load_journal(self.paths)
        except FormatError:
            return set()
        return {c.chapter for c in journal.chapters} if journal is not None else set()

    @cached_property
    def changelog_read(self) -> tuple[list[ChangelogEntry], bool] | None:
        """(entries without a torn last line, whether the last line is torn); None when unusable."""
        path = self.paths.changelog
        if not path.exists():
            return [], False
        try:
            entries, kept = parse_changelog(path.read_bytes(), path, drop_torn_tail=True)
        except FormatError as exc:
            self.findings.append(finding("changelog_invalid", "refuse", "way_out_repair", detail=_first(exc)))
            return None
        return entries, kept is not None

    @property
    def changelog(self) -> list[ChangelogEntry] | None:
        read = self.changelog_read
        return read[0] if read is not None else None

    @cached_property
    def facts(self) -> ChangelogFacts | None:
        """The changelog's facts (None: it cannot be used, reported while loading)."""
        if self.known_facts is not None:
            return self.known_facts
        read = self.changelog_read
        return ChangelogFacts.of(*read) if read is not None else None

    @cached_property
    def state(self) -> CurrentState | None:
        path = self.paths.current_state
        if not path.exists():
            return None
        try:
            return CurrentState.load(path)
        except FormatError as exc:
            self.findings.append(finding("state_invalid", "refuse", "way_out_repair", detail=_first(exc)))
            return None


def _first(exc: FormatError) -> Problem | FormatError:
    return exc.problems[0] if exc.problems else exc


Rule = Callable[[ColdStart], Iterable[Finding]]


def rule_state(ctx: ColdStart) -> Iterable[Finding]:
    """state/ must exist; the changelog must be readable; state and changelog must be in step."""
    paths = ctx.paths
    if not paths.current_state.parent.is_dir():
        yield finding("state_dir_missing", "refuse", "way_out_restore_state")
        return
    facts = ctx.facts
    if facts is not None and facts.torn:
        yield finding("changelog_torn", "repairable")
    state = ctx.state
    if facts is None or (state is None and paths.current_state.exists()):
        return  # already reported while loading
    if state is None:
        if facts.last_kind is not None:
            yield finding("state_file_missing", "repairable")
        return
    if facts.last_kind in (None, "foreign"):
        # Another tool's lines carry no state version: nothing to compare; the next merge logs a snapshot
        # after them (studio.state_engine.merge_patch).
        return
    last = facts.last_version
    if last == state.state_version:
        return
    if last == state.state_version + 1:
        yield finding("merge_interrupted", "repairable")
        return
    yield finding("state_out_of_step", "refuse", "way_out_repair", state=state.state_version, log=last)


def rule_foreshadowing(ctx: ColdStart) -> Iterable[Finding]:
    """The foreshadowing ledger must be readable: every chapter's context reads it and its commit merges
    into it; a broken one found there stops a chapter already under way (or, in the commit, one already
    moved). The way out names the newest copy a commit archived (`logs/chapter-NNN/foreshadowing-before.json`)."""
    path = ctx.paths.global_foreshadowing
    if ctx.foreshadowing_valid or not path.is_file():
        return
    from studio.models.foreshadowing import ForeshadowingLedger

    try:
        ForeshadowingLedger.load(path)
    except FormatError as exc:
        archives = numbered_files(ctx.paths.root / "logs", _CHAPTER_DIR, strict=False)
        copies = [(n, d / "foreshadowing-before.json") for n, d in sorted(archives.items())
                  if (d / "foreshadowing-before.json").is_file()]
        if copies:
            n, copy = copies[-1]
            yield finding("foreshadowing_invalid", "refuse", "way_out_foreshadowing", detail=_first(exc),
                          archive=copy.relative_to(ctx.paths.root).as_posix(), chapter=n)
        else:
            yield finding("foreshadowing_invalid", "refuse", "way_out_foreshadowing_fix", detail=_first(exc))


def rule_commit_journals(ctx: ColdStart) -> Iterable[Finding]:
    """An interrupted commit (its journal exists) is finished by the next run from its journal and the staged
    files. A journal that cannot be read (`CommitJournal`) is refused with `repair` as the way out (it rewrites
    the journal from the staged records, after a backup); a staged file (or the archived ledger) the commit
    still needs that cannot be used is refused naming it: the commit would stop on it before its next move
    (`studio.commit_inputs`; the project files it reads are the other rules' findings). The way out of a
    broken staged file is `repair`, which takes the commit back (`studio.commit_rollback`)."""
    if not ctx.pending_journals:
        return
    from studio.models.commit_journal import CommitJournal

    for n in sorted(ctx.pending_journals):
        try:
            journal = CommitJournal.load(ctx.paths.commit_journal(n))
        except FormatError as exc:
            yield finding("commit_journal_unreadable", "refuse", "way_out_commit_journal", detail=_first(exc),
                          chapter=n)
            continue
        problems = commit_problems(ctx.paths, n, storyline_id=journal.storyline_id, steps_done=journal.steps_done)
        archive = archive_dir(ctx.paths, n)
        for problem in problems:
            if is_staged(ctx.paths, problem):  # `repair` takes the commit back (`studio.commit_rollback`)
                yield finding("commit_input_broken", "refuse", "way_out_commit_input", detail=problem, chapter=n)
            elif Path(problem.path).is_relative_to(archive):
                yield finding("commit_input_broken", "refuse", "way_out_commit_archive", detail=problem, chapter=n)


def rule_chapters(ctx: ColdStart) -> Iterable[Finding]:
    """Chapters 1..last_completed are there and not empty; the next one is not there already."""
    cp = ctx.checkpoint
    done = cp.last_completed_chapter
    missing = [n for n in range(1, done + 1) if n not in ctx.chapters]
    if missing:
        yield finding("chapters_missing", "refuse", "way_out_chapters", done=done, missing=_ranges(missing))
    empty = [n for n in range(1, done + 1) if ctx.chapters.get(n) == 0]
    if empty:
        yield finding("chapters_empty", "refuse", "way_out_chapters", empty=_ranges(empty))
    ahead = sorted(n for n in ctx.chapters if n > done and n not in ctx.pending_journals and n not in ctx.importing)
    if ahead:
        yield finding(
            "chapter_ahead", "refuse", "way_out_chapter_ahead",
            chapters=_ranges(ahead), chapter=ahead[0], done=done, last=ahead[-1],
        )


def rule_inflight(ctx: ColdStart) -> Iterable[Finding]:
    """An inflight chapter is the next one (or one whose commit journal is pending)."""
    cp = ctx.checkpoint
    n = cp.inflight_chapter
    if n is None or n == cp.next_chapter or n in ctx.pending_journals:
        return
    yield finding(
        "inflight_absurd", "refuse", "way_out_checkpoint",
        inflight=n, done=cp.last_completed_chapter, next=cp.next_chapter,
    )


def rule_log_behind_checkpoint(ctx: ColdStart) -> Iterable[Finding]:
    """The changelog has no state changes of a chapter the checkpoint has not completed (unless its
    commit journal is pending: that commit is finished first)."""
    chapters = ctx.facts.chapters if ctx.facts is not None else ()
    done = ctx.checkpoint.last_completed_chapter
    ahead = sorted({c for c in chapters if c > done} - ctx.pending_journals)
    if ahead:
        yield finding("log_ahead", "refuse", "way_out_checkpoint", chapter=ahead[0], done=done)


def rule_plan_apply(ctx: ColdStart) -> Iterable[Finding]:
    """An interrupted plan apply (its journal exists) is finished by the next run, whatever the state."""
    pending = pending_plan_applies(ctx.paths)
    if pending:
        yield finding("plan_apply_pending", "repairable", volumes=_ranges(pending))


def rule_tool_change(ctx: ColdStart) -> Iterable[Finding]:
    """An interrupted tool change (`staging/tools/<id>.json`) is finished by the next run, whatever the state."""
    pending = pending_tool_changes(ctx.paths)
    if pending:
        yield finding("tool_change_pending", "repairable", changes="、".join(p.stem for p in pending))


def rule_staged_plan(ctx: ColdStart) -> Iterable[Finding]:
    """VOL_PLANNING: nothing is written while a staged plan waits for approval, nor when planning stopped
    before a plan was staged; an interrupted apply is not a reason to refuse (the run finishes it)."""
    if pending_plan_applies(ctx.paths):
        return
    staged = staged_plans(ctx.paths)
    if staged:
        yield finding("plan_staged", "refuse", "way_out_plan", volumes=_ranges(staged))
    elif review_path(ctx.paths, ctx.checkpoint.current_volume).is_file():
        yield finding("plan_next", "refuse", "way_out_plan", volume=ctx.checkpoint.current_volume)
    else:
        yield finding("planning_unfinished", "refuse", "way_out_plan")


def rule_review_journal(ctx: ColdStart) -> Iterable[Finding]:
    """VOL_REVIEW / VOL_PLANNING: a review killed after its suggestions came in waits in its journal; `review`
    finishes it (nothing of it is applied before the author's answer). Nothing is written meanwhile: the
    checkpoint stays in VOL_REVIEW until the review is finished."""
    pending = pending_reviews(ctx.paths)
    if pending:
        yield finding("review_pending", "repairable", volumes=_ranges(pending))


def rule_quick_start(ctx: ColdStart) -> Iterable[Finding]:
    """A quick start under way (its progress file exists): nothing but `start` goes on from it, except while
    it writes the trial chapters (the orchestrator does that itself, and checks the chapters as usual)."""
    if not quick_start_progress_path(ctx.paths).is_file():
        return
    from studio.planning.quick_start_progress import load_progress

    try:
        progress = load_progress(ctx.paths)
    except FormatError as exc:
        yield finding("quick_start_unreadable", "refuse", "way_out_start_restart", detail=_first(exc))
        return
    if progress is None:
        return
    step = progress.next_step()
    if step != "trial":
        yield finding("quick_start_unfinished", "refuse", "way_out_start", step=step or "confirm")


def rule_import(ctx: ColdStart) -> Iterable[Finding]:
    """An import killed half way (its journal exists) refuses every run until the same import finishes it
    (`studio.importing.build`); an imported book whose chapters are not all extracted is a note."""
    if import_journal_path(ctx.paths).exists():
        from studio.importing.journal import load_journal

        try:
            journal = load_journal(ctx.paths)
        except FormatError as exc:
            yield finding("import_journal_broken", "refuse", "way_out_import", detail=_first(exc))
            return
        if journal is not None:
            yield finding(
                "import_unfinished", "refuse", "way_out_import",
                name=journal.source.name, first=journal.first_chapter, last=journal.last_chapter,
            )
            return
    path = ctx.paths.import_record
    if not path.exists():
        return
    from studio.models.import_record import ImportRecord

    try:
        record = ImportRecord.load(path)
    except FormatError as exc:
        yield finding("import_record_broken", "note", None, detail=_first(exc))
        return
    last = record.last_chapter
    first = max(record.extracted_through + 1, record.extraction_started_at)
    if first <= last:
        yield finding("import_not_extracted", "note", None, first=first, last=last)


# --- import extraction (imp-full)
EXTRACTION_KEYS = frozenset({"extraction_unfinished"})  # what `extract` resolves by going on


def rule_extraction(ctx: ColdStart) -> Iterable[Finding]:
    """An extraction of imported chapters that started and has not reached the last imported chapter: the
    state holds only the chapters before it, so nothing is written or planned on it until `extract` goes on
    (a chapter written now would come before the rest of the book in the state's history). A book whose
    extraction never started (the deterministic depth only) is not concerned."""
    progress_path = extraction_progress_path(ctx.paths)
    if not progress_path.is_file() or not ctx.paths.import_record.is_file():
        return
    from studio.models.extraction_progress import ExtractionProgress
    from studio.models.import_record import ImportRecord

    try:
        progress = ExtractionProgress.load(progress_path)
        record = ImportRecord.load(ctx.paths.import_record)
    except FormatError as exc:
        yield finding("extraction_unreadable", "refuse", "way_out_extract", detail=_first(exc))
        return
    if progress.status == "done" and record.extracted_through >= record.last_chapter:
        return
    if record.extracted_through < record.last_chapter or progress.status == "running":
        yield finding("extraction_unfinished", "refuse", "way_out_extract", done=record.extracted_through,
                      total=record.last_chapter)
# --- end import extraction


COMMON: tuple[Rule, ...] = (
    rule_state, rule_foreshadowing, rule_commit_journals, rule_plan_apply, rule_tool_change, rule_quick_start, rule_import,
    rule_extraction,
)
WRITING_RULES: tuple[Rule, ...] = (rule_chapters, rule_inflight, rule_log_behind_checkpoint)

RULES: dict[OrchestratorState, tuple[Rule, ...]] = {
    OrchestratorState.INIT: WRITING_RULES,
    OrchestratorState.QUICK_START: WRITING_RULES,
    OrchestratorState.WRITING: WRITING_RULES,
    OrchestratorState.CHAPTER_REWRITE: WRITING_RULES,
    OrchestratorState.ERROR_RETRY: WRITING_RULES,
    OrchestratorState.VOL_REVIEW: (*WRITING_RULES, rule_review_journal),
    OrchestratorState.VOL_PLANNING: (*WRITING_RULES, rule_staged_plan, rule_review_journal),
}

# Findings that `plan` itself resolves (it must not refuse on them).
PLANNING_KEYS = frozenset({"plan_staged", "planning_unfinished", "plan_next"})
# Findings that `start` resolves by going on with the quick start.
QUICK_START_KEYS = frozenset({"quick_start_unfinished"})


def _ranges(numbers: list[int]) -> str:
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)


def load_checkpoint_checked(paths: ProjectPaths) -> tuple[Checkpoint, list[Finding]]:
    try:
        return Checkpoint.load_or_default(paths.checkpoint), []
    except FormatError as exc:
        return Checkpoint(), [finding("checkpoint_unreadable", "refuse", "way_out_checkpoint", detail=_first(exc))]


def check_cold_start(
    paths: ProjectPaths,
    checkpoint: Checkpoint | None = None,
    *,
    changelog: ChangelogFacts | None = None,
    foreshadowing_valid: bool = False,
    chapter_files: Mapping[int, Path] | None = None,
) -> list[Finding]:
    """Every finding, common rules first, then those of the checkpoint's orchestrator state. `changelog`: the
    changelog's facts from a caller that validated it (None: it is read here); `foreshadowing_valid`: the
    caller validated the foreshadowing ledger in this run (it is not read again); `chapter_files`: chapters/ as
    the caller listed it with `numbered_files` and `_CHAPTER_NAME`'s pattern (None: listed here)."""
    found: list[Finding] = []
    if checkpoint is None:
        checkpoint, found = load_checkpoint_checked(paths)
        if found:
            return found
    ctx = ColdStart(paths, checkpoint, known_facts=changelog, foreshadowing_valid=foreshadowing_valid,
                    chapter_files=chapter_files)
    for rule in (*COMMON, *RULES.get(checkpoint.orchestrator_state, ())):
        produced = list(rule(ctx))
        found.extend(ctx.findings)
        ctx.findings.clear()
        found.extend(produced)
    return found


def refusals(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "refuse"]


def ensure_can_start(paths: ProjectPaths, checkpoint: Checkpoint | None = None, lang: Lang = "zh") -> None:
    """Raise ColdStartRefused when a run must not start."""
    refused = refusals(check_cold_start(paths, checkpoint))
    if refused:
        raise ColdStartRefused(refused, lang)
