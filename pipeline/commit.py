"""The commit of one chapter: staging -> the project (seed 003 section 10.4 step 3), exactly once.

Design: a sequence of idempotent steps guarded by a small journal, `staging/commit-chapter-NNN.json`.

`prepare_commit` writes everything the commit needs into staging (the final text into the staged chapter,
the final evaluation with `force_passed`, the chapter log) and then the journal. Writing the journal is the
commit point: once it exists, every later start finishes this commit before anything else (`resume_commits`),
whatever the checkpoint says. Before it exists, the chapter is simply still "judged" and a restart re-derives
the gate from the staged evaluation and prepares again.

`run_commit` then runs the steps in order, recording each finished step in the journal. Every step is safe
to run again after a kill at any point, even if the journal update that would have recorded it was lost:

1. `archive`  - into `logs/chapter-NNN/`: the pass texts, refine records, earlier evaluations and the calls
                log (moved by a rename: no later step reads them, and a rerun finds them moved; the staged
                files later steps copy are copied); and, once only (guarded by `undo.json` being there), the storyline memory,
                `foreshadowing/global.json` and `current-state.json` as they were *before* this chapter,
                which undo restores (the state copy matters when the changelog does not describe the
                whole state: a project begun by another tool or edited by hand).
2. `chapter`, `summary`, `evaluation`, `memory`, `log` - copies from staging by the atomic writer
                (copying the same bytes again changes nothing; staging is only removed in `cleanup`).
3. `state`    - `reconcile` finishes a merge cut between the changelog line and the state file; then the
                patch is merged unless the changelog already has this chapter's patch line. A skipped
                patch (`None`) merges nothing and is counted in the checkpoint instead.
4. `foreshadowing` - recomputed from the archived *before* ledger and the applied ops of this chapter's
                changelog line, so applying it twice gives the same file.
5. `checkpoint` - `last_completed_chapter = N`, stage `committed`, nothing inflight, revision counters
                reset, pending actions cleared (a no-op when it already says so).
6. `cleanup`  - the chapter's staging files, the staged memory, then the journal itself, last.

Durability (power loss, not kills): each step's writes are made durable together at the step's end (one
folder fsync per folder, `studio.fileio.deferred_dir_fsyncs`) before the journal records the step. The
journal's progress rewrites skip their own folder fsync: a journal that loses its last update reruns an
idempotent step. Run from the studio, the whole commit runs in a worker thread (`pipeline.off_loop`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.staging import ChapterStaging, call_from_data, prune_empty_dirs
from studio.commit_inputs import (
    FORESHADOWING_BEFORE,
    MEMORY_BEFORE,
    STATE_BEFORE,
    UNDO_INFO,
    archive_dir,
    commit_problems,
    is_staged,
    pending_commits,
)
from studio.errors import FormatError, Problem, StudioError
from studio.fileio import (
    atomic_write_bytes,
    atomic_write_json,
    deferred_dir_fsyncs,
    read_json,
    replace_file,
    sweep_temp_files,
)
from studio.foreshadow_ledger import apply_foreshadow_ops
from studio.i18n import DEFAULT_LANG, Catalog, Lang, tr
from studio.models.changelog import ChangelogEntry
from studio.models.checkpoint import Checkpoint, OrchestratorState, PipelineStage, save_checkpoint
from studio.models.commit_journal import CommitJournal
from studio.models.evaluation import Evaluation
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.pipeline_log import PipelineLog, StageLog
from studio.op_reasons import warning_line
from studio.paths import ProjectPaths
from studio.state_engine import last_changelog_entry, load_state, merge_patch, reconcile
from studio.status_scores import record_score

STEPS: tuple[str, ...] = (
    "archive",
    "chapter",
    "summary",
    "evaluation",
    "memory",
    "state",
    "foreshadowing",
    "log",
    "checkpoint",
    "cleanup",
)

StepHook = Callable[[str], None]

MESSAGES: Catalog = {
    "refused": (
        "第 {chapter} 章没有提交：以下文件无法使用，没有移动任何文件，暂存内容原样保留：\n{problems}\n{way_out}",
        "chapter {chapter} was not committed: the files below cannot be used; nothing was moved and the staged "
        "work is kept as it is:\n{problems}\n{way_out}",
    ),
    "way_out_stage": (
        "办法：用文本编辑器修正它；或运行 novel-studio repair 把它移到备份里，或自己把它移出项目再运行 continue，"
        "生成它的那一步会重做（正文缺了重写本章，摘要、记忆或状态变更缺了重新摘要，评审缺了重新评审）",
        "way out: fix it in a text editor; or run novel-studio repair, which moves it into a backup, or move it "
        "out of the project yourself; then run continue, which redoes the "
        "stage that made it (a missing text rewrites the chapter, a missing summary, memory or state change "
        "summarizes again, a missing evaluation judges again)",
    ),
    "way_out_interrupted": (
        "办法：运行 novel-studio repair：它先把涉及的文件备份到 .novel-studio/repair/，再把这次提交退回到提交之前，并把"
        "无法使用的暂存文件移到备份里；之后运行 continue，只重做生成它的那一步。也可以用文本编辑器修正它（或从备份恢复）"
        "后直接运行 continue",
        "way out: run novel-studio repair, which backs up the files involved into .novel-studio/repair/, takes this "
        "commit back to before it started and moves the broken staged file into the backup; then run continue, "
        "which redoes only the stage that made it. Or fix the file in a text editor (or restore it from a backup) "
        "and run continue",
    ),
    "way_out_project": (
        "办法：用文本编辑器修正它或从备份恢复，然后运行 novel-studio repair 检查",
        "way out: fix it in a text editor or restore it from a backup, then run novel-studio repair to check",
    ),
}


@dataclass
class CommitOutcome:
    chapter: int
    storyline_id: str | None
    patch_skipped: bool
    warnings: list[str] = field(default_factory=list)
    resumed: bool = False


# --------------------------------------------------------------------------------------------- prepare


def build_log(
    staging: ChapterStaging,
    *,
    storyline_id: str | None,
    started_at: str | None,
    gate_decision: str,
    revisions: int,
    force_passed: bool,
    warnings: list[str],
) -> PipelineLog:
    """The chapter log: one stage per model call recorded in the calls log, plus the gate history."""
    stages: list[StageLog] = []
    gates: list[dict[str, Any]] = []
    offline = False
    for line in staging.read_calls_log():
        if line.get("type") == "start":
            started_at = started_at or str(line.get("at") or "") or None
            continue
        if line.get("type") == "gate":
            gates.append({k: v for k, v in line.items() if k != "type"})
            continue
        if line.get("type") != "call":
            continue
        call = call_from_data(line)
        usage = call.usage
        stage = StageLog(
            name=call.stage,
            model=call.model or None,
            duration_ms=call.duration_ms,
            input_tokens=usage.input_tokens if usage else None,
            output_tokens=usage.output_tokens if usage else None,
            cache_creation_input_tokens=usage.cache_creation_input_tokens if usage else None,
            cache_read_input_tokens=usage.cache_read_input_tokens if usage else None,
            cost_usd=call.cost_usd,
            prompt_id=call.prompt_id,
            prompt_version=call.prompt_version,
            estimated_prompt_tokens=call.estimated_prompt_tokens,
            ttft_ms=call.ttft_ms,
        )
        if call.prefix_hash:
            stage = stage.model_copy(update={"prefix_hash": call.prefix_hash})
        if call.section_hashes:
            stage = stage.model_copy(update={"section_hashes": dict(call.section_hashes)})
        if call.offline:
            stage = stage.model_copy(update={"offline": True})
            offline = True
        if usage is not None and usage.estimated:
            stage = stage.model_copy(update={"tokens_estimated": True})
        stages.append(stage)
    costs = [s.cost_usd for s in stages if s.cost_usd is not None]
    durations = [s.duration_ms for s in stages if s.duration_ms is not None]
    log = PipelineLog(
        chapter=staging.n,
        storyline_id=storyline_id,
        started_at=started_at,
        stages=stages,
        gate_decision=gate_decision,
        revisions=revisions,
        total_duration_ms=sum(durations) if durations else None,
        total_cost_usd=round(sum(costs), 6) if costs else None,
    )
    versions = log.prompt_versions_used()  # issue 9 item 8: the prompt versions this chapter was written with
    if versions:
        log = log.model_copy(update={"prompt_versions": versions})
    extra: dict[str, Any] = {"gate_history": gates, "force_passed": force_passed}
    share = log.cache_read_share()
    if share is not None:
        extra["cache_read_share"] = share  # issue 9 item 6: how much input the prompt cache served
    if warnings:
        extra["warnings"] = warnings
    if offline:
        extra["offline"] = True
    return log.model_copy(update=extra)


class CommitRefused(StudioError):
    """The commit cannot go on: found before its first move (or, finishing an interrupted commit, before its
    next one), with the project and the staging unchanged."""


def commit_refused(paths: ProjectPaths, n: int, problems: list[Problem], *, interrupted: bool) -> CommitRefused:
    """The refusal in both languages: each file's problem, then the way out. Broken staged files: before the
    commit point, the stage that made them (moved out, `continue` remakes them); past it (`interrupted`: the
    journal exists, whether or not a step ran), `repair`, which takes the commit back first (a staged file
    merely moved out would let the commit go on without it). A project file: fixed by the author."""
    if not all(is_staged(paths, p) for p in problems):
        way_out = "way_out_project"
    else:
        way_out = "way_out_interrupted" if interrupted else "way_out_stage"

    def text(lang: Lang) -> str:
        lines = "\n".join(f"- {p.describe(lang)}" for p in problems)
        return tr(MESSAGES, "refused", lang, chapter=n, problems=lines, way_out=tr(MESSAGES, way_out, lang))

    error = CommitRefused(text("en"))
    error.zh = text("zh")
    return error


def check_commit_inputs(
    paths: ProjectPaths, n: int, *, storyline_id: str | None, steps_done: list[str] | None = None,
    prepared: bool = True,
) -> None:
    """Raise CommitRefused when a file the commit still has to move or rewrite cannot be used
    (`studio.commit_inputs`). `steps_done` is None for a fresh commit."""
    interrupted = steps_done is not None
    problems = commit_problems(paths, n, storyline_id=storyline_id, steps_done=steps_done or (),
                               prepared=prepared)
    if problems:
        raise commit_refused(paths, n, problems, interrupted=interrupted)


def validate_before_commit(paths: ProjectPaths, n: int) -> None:
    """Staging -> validate -> commit: before anything moves, repair what an interrupted write left
    (`reconcile`: a torn last changelog line, a merge cut short) and check that the state, the changelog
    and the staged patch fit together. Raises CommitRefused (or the state engine's FormatError /
    StateVersionMismatch, which name `novel-studio repair`) with the project unchanged."""
    if not paths.current_state.parent.is_dir():
        raise CommitRefused(f"{paths.current_state.parent} is missing; restore the state/ folder before committing")
    reconcile(paths)
    if chapter_patch_entry(paths, n) is not None:
        return  # merged before a kill: the commit only finishes
    st = ChapterStaging(paths, n)
    if not st.delta.is_file():
        return
    patch, _ = st.load_delta()
    state = load_state(paths)
    if patch is not None and patch.base_state_version != state.state_version:
        raise CommitRefused(
            f"the staged state changes of chapter {n} ({st.delta}) were made against state version "
            f"{patch.base_state_version}, but {paths.current_state} is at version {state.state_version}; "
            "nothing was committed. Discard the chapter's staged summary so it is made again"
        )


def prepare_commit(
    paths: ProjectPaths,
    n: int,
    *,
    gate_decision: str,
    revisions: int,
    force_passed: bool,
    started_at: str | None,
    warnings: list[str] | None = None,
) -> None:
    """Validate, stage the final text, evaluation and log, then write the journal (the commit point)."""
    st = ChapterStaging(paths, n)
    check_commit_inputs(paths, n, storyline_id=st.summary_storyline(), prepared=False)
    validate_before_commit(paths, n)
    text = st.final_text()
    atomic_write_bytes(st.current, text.encode("utf-8"))
    evaluation = Evaluation.load(st.evaluation)
    if force_passed and not evaluation.force_passed:
        evaluation = evaluation.model_copy(update={"force_passed": True})
        evaluation.save(st.evaluation)
    patch, storyline_id = st.load_delta()
    meta = read_json(st.summary_meta) if st.summary_meta.is_file() else {}
    all_warnings = [*(warnings or []), *[str(w) for w in meta.get("warnings", [])]]
    if patch is None:
        all_warnings.append("state ops skipped for this chapter (malformed twice)")
    log = build_log(
        st,
        storyline_id=storyline_id,
        started_at=started_at,
        gate_decision=gate_decision,
        revisions=revisions,
        force_passed=force_passed or evaluation.force_passed,
        warnings=all_warnings,
    )
    log.save(st.staged_log)
    # A folder left by an undone earlier attempt at this chapter must not pass for this commit's "before".
    shutil.rmtree(archive_dir(paths, n), ignore_errors=True)
    CommitJournal(chapter=n, storyline_id=storyline_id, patch_skipped=patch is None,
                  gate_decision=gate_decision).save(st.journal)


# --------------------------------------------------------------------------------------------- steps


def _copy(src: Path, dest: Path) -> None:
    if src.is_file():
        atomic_write_bytes(dest, src.read_bytes())


def _move(src: Path, dest: Path) -> None:
    """Rename a staged file into the archive (a copy when staging sits on another file system)."""
    try:
        replace_file(src, dest)
    except OSError:
        if not src.is_file():
            raise
        _copy(src, dest)


def _archive(paths: ProjectPaths, st: ChapterStaging, storyline_id: str | None) -> None:
    folder = archive_dir(paths, st.n)
    folder.mkdir(parents=True, exist_ok=True)
    read_later = {st.current, st.summary, st.summary_meta, st.evaluation, st.delta}  # copied, not moved
    for path in st.own_files():
        if path == st.journal or path == st.staged_log:
            continue
        if path.parent.name == "chapters" and path.name == st.current.name:
            continue  # the final text goes to chapters/
        if path in read_later:
            _copy(path, folder / path.name)
        else:
            _move(path, folder / path.name)
    if (folder / UNDO_INFO).is_file():
        return  # the "before" copies are taken once; later steps may have changed the originals since
    memory_existed = False
    if storyline_id:
        memory = paths.storyline_memory(storyline_id)
        memory_existed = memory.is_file()
        if memory_existed:
            _copy(memory, folder / MEMORY_BEFORE)
    ledger_existed = paths.global_foreshadowing.is_file()
    if ledger_existed:
        _copy(paths.global_foreshadowing, folder / FORESHADOWING_BEFORE)
    _copy(paths.current_state, folder / STATE_BEFORE)
    atomic_write_json(
        folder / UNDO_INFO,
        {
            "chapter": st.n,
            "storyline_id": storyline_id,
            "memory_existed": memory_existed,
            "foreshadowing_existed": ledger_existed,
        },
    )


def chapter_patch_entry(paths: ProjectPaths, n: int) -> ChangelogEntry | None:
    """This chapter's patch line, if merged. Commits run one at a time, in chapter order, so a merged
    patch of the chapter being committed is the log's last line (read from the tail: stays flat)."""
    last = last_changelog_entry(paths.changelog)
    if last is not None and last.kind == "patch" and last.chapter == n:
        return last
    return None


def _reconcile_if_needed(paths: ProjectPaths) -> None:
    """Finish a merge cut between the changelog line and the state file (cheap check first)."""
    try:
        last = last_changelog_entry(paths.changelog)
        in_step = last is None or last.state_version == load_state(paths).state_version
    except FormatError:
        in_step = False  # a torn last line
    if not in_step or not paths.current_state.exists():
        reconcile(paths)


def _merge_state(paths: ProjectPaths, st: ChapterStaging, lang: Lang) -> list[str]:
    _reconcile_if_needed(paths)
    if chapter_patch_entry(paths, st.n) is not None:
        return []  # merged before a crash: exactly once
    patch, _ = st.load_delta()
    if patch is None:
        return [f"chapter {st.n}: state ops skipped"]
    entry = merge_patch(paths, patch)
    return [warning_line("dropped_op", st.n, w, lang) for w in entry.warnings]


def _update_foreshadowing(paths: ProjectPaths, st: ChapterStaging, storyline_id: str | None, lang: Lang) -> list[str]:
    entry = chapter_patch_entry(paths, st.n)
    if entry is None or not any(op.op == "foreshadow" for op in entry.ops):
        return []
    before = archive_dir(paths, st.n) / FORESHADOWING_BEFORE
    ledger = ForeshadowingLedger.load(before) if before.is_file() else ForeshadowingLedger()
    new_ledger, warnings = apply_foreshadow_ops(ledger, entry.ops, st.n, storyline_id)
    new_ledger.save(paths.global_foreshadowing)
    return [warning_line("foreshadowing", st.n, w, lang) for w in warnings]


def _advance_checkpoint(paths: ProjectPaths, n: int, patch_skipped: bool) -> None:
    cp = Checkpoint.load_or_default(paths.checkpoint)
    skipped = list(cp.skipped_ops_chapters)
    if patch_skipped and n not in skipped:
        skipped.append(n)
    already = (
        cp.last_completed_chapter >= n
        and cp.inflight_chapter is None
        and cp.pipeline_stage is PipelineStage.COMMITTED
        and skipped == cp.skipped_ops_chapters
    )
    if already:
        return
    cp.last_completed_chapter = max(cp.last_completed_chapter, n)
    cp.pipeline_stage = PipelineStage.COMMITTED
    cp.inflight_chapter = None
    cp.revision_count = 0
    cp.revision_kind = None
    cp.pending_actions = []
    cp.skipped_ops_chapters = skipped
    if cp.orchestrator_state in (OrchestratorState.INIT, OrchestratorState.ERROR_RETRY):
        cp.orchestrator_state = OrchestratorState.WRITING
    save_checkpoint(paths, cp)


def _cleanup(paths: ProjectPaths, st: ChapterStaging, storyline_id: str | None) -> None:
    if storyline_id:
        st.memory(storyline_id).unlink(missing_ok=True)
    st.partial.unlink(missing_ok=True)
    for path in st.own_files():
        if path != st.journal:
            path.unlink(missing_ok=True)
    sweep_temp_files(paths.staging)
    st.journal.unlink(missing_ok=True)
    prune_empty_dirs(paths.staging)


def run_commit(
    paths: ProjectPaths, n: int, *, hook: StepHook | None = None, lang: Lang = DEFAULT_LANG
) -> CommitOutcome:
    """Run (or finish) the commit of chapter `n`; its journal must exist (`prepare_commit`)."""
    st = ChapterStaging(paths, n)
    journal = CommitJournal.load(st.journal)
    storyline_id = journal.storyline_id
    patch_skipped = journal.patch_skipped
    done: list[str] = [s for s in journal.steps_done if s in STEPS]
    interrupted = bool(done) or journal.rebuilt
    outcome = CommitOutcome(n, storyline_id, patch_skipped, resumed=interrupted)
    # Staging -> validate -> commit: every file still to move or rewrite is read before the next move.
    check_commit_inputs(paths, n, storyline_id=storyline_id, steps_done=done)  # past the commit point
    if not done:
        validate_before_commit(paths, n)  # again: the project may have changed since the journal was written

    for step in STEPS:
        if step in done:
            continue
        with deferred_dir_fsyncs():
            finished = _run_step(paths, st, step, storyline_id, patch_skipped, outcome, lang)
        if finished:
            if hook is not None:
                hook(f"commit:{step}")
            return outcome
        done.append(step)
        journal.steps_done = done
        atomic_write_json(st.journal, journal.to_data(), sync_dir=False)
        if hook is not None:
            hook(f"commit:{step}")
    return outcome


def _run_step(
    paths: ProjectPaths, st: ChapterStaging, step: str, storyline_id: str | None, patch_skipped: bool,
    outcome: CommitOutcome, lang: Lang = DEFAULT_LANG,
) -> bool:
    """Run one commit step; True when it was the last one (the journal is gone)."""
    n = st.n
    if step == "archive":
        _archive(paths, st, storyline_id)
    elif step == "chapter":
        _copy(st.current, paths.chapter(n))
    elif step == "summary":
        _copy(st.summary, paths.summary(n))
    elif step == "evaluation":
        _copy(st.evaluation, paths.evaluation(n))
        record_score(paths.root, paths.evaluation(n))  # for `status` (user cache); a failure only skips it
    elif step == "memory":
        if storyline_id:
            _copy(st.memory(storyline_id), paths.storyline_memory(storyline_id))
    elif step == "state":
        outcome.warnings.extend(_merge_state(paths, st, lang))
    elif step == "foreshadowing":
        outcome.warnings.extend(_update_foreshadowing(paths, st, storyline_id, lang))
    elif step == "log":
        _copy(st.staged_log, paths.log(n))
    elif step == "checkpoint":
        _advance_checkpoint(paths, n, patch_skipped)
    elif step == "cleanup":
        _cleanup(paths, st, storyline_id)
        return True
    return False


def resume_commits(paths: ProjectPaths, *, hook: StepHook | None = None) -> list[CommitOutcome]:
    """Finish every commit whose journal exists (a kill mid-commit); returns what was finished."""
    return [run_commit(paths, n, hook=hook) for n in pending_commits(paths)]


def clean_leftovers(paths: ProjectPaths, last_completed: int) -> list[int]:
    """Remove staging files of chapters already committed (a cleanup cut short), and the temp files of
    atomic writes killed half-way anywhere in the project (the caller holds the lock). Returns the
    chapters cleaned."""
    from pipeline.staging import staged_chapters

    sweep_temp_files(paths.root)
    removed: list[int] = []
    for n in sorted(staged_chapters(paths)):
        if n <= last_completed and not ChapterStaging(paths, n).journal.exists():
            ChapterStaging(paths, n).discard()
            removed.append(n)
    prune_empty_dirs(paths.staging)
    return removed

