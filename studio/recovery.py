"""Cold-start recovery (seed 001 section 9.2, seed 003 section 10.4 step 4): what to do next, decided
from the checkpoint and which staging files exist. Pure: reads only file existence, changes nothing.

The stage name is a lower bound of progress; the staging files can show more, because the Summarizer
and the StyleRefiner run side by side and either may have finished before the crash. Files the commit
needs (draft, summary + delta, evaluation) must exist; a stage name never stands in for them. The
refine edits file or a stage of `refined` or later counts as "refined" (the refined text itself lives in
the staged draft). A gate decision is always re-derived from an evaluation, so only `judged` with its
evaluation present commits; an evaluation found at an earlier stage is judged again.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from studio.i18n import Catalog, Lang, tr
from studio.i18n_names import stage_name
from studio.models.checkpoint import Checkpoint, PipelineStage, RevisionKind
from studio.paths import ProjectPaths


class RecoveryKind(StrEnum):
    NONE = "none"  # nothing inflight: start the next chapter fresh
    ASK_AUTHOR = "ask_author"  # a pause is pending: never continue or commit past it
    RESTART_CHAPTER = "restart_chapter"  # no usable draft: run the ChapterWriter again
    RESUME_SUMMARIZER = "resume_summarizer"  # draft there, summary/delta missing (maybe refine too)
    RESUME_REFINER = "resume_refiner"  # draft and summary there, refine missing
    RESUME_JUDGE = "resume_judge"  # all inputs there, (re-)evaluate
    COMMIT = "commit"  # judged and evaluated: run the commit step
    RESUME_WRITER = "resume_writer"  # inside a gate-triggered revision loop: repeat it


# The artifacts produced between the draft and the judge, in `missing`.
DRAFT, SUMMARY, REFINE = "draft", "summary", "refine"

MESSAGES: Catalog = {
    RecoveryKind.NONE: ("无未完成章节，从第 {chapter} 章开始", "nothing in flight; start chapter {chapter}"),
    RecoveryKind.ASK_AUTHOR: (
        "第 {chapter} 章有待作者决定的事项，先处理再继续",
        "chapter {chapter} waits for the author's decision",
    ),
    RecoveryKind.RESTART_CHAPTER: (
        "第 {chapter} 章初稿未完成，重新生成整章",
        "chapter {chapter} has no finished draft; write it again",
    ),
    RecoveryKind.RESUME_SUMMARIZER: (
        "第 {chapter} 章从摘要恢复（待生成：{missing}）",
        "chapter {chapter}: resume at the summary (still to do: {missing})",
    ),
    RecoveryKind.RESUME_REFINER: (
        "第 {chapter} 章从润色恢复（跳过写作和摘要）",
        "chapter {chapter}: resume at the polish (draft and summary done)",
    ),
    RecoveryKind.RESUME_JUDGE: (
        "第 {chapter} 章从质量评估恢复",
        "chapter {chapter}: resume at the judging",
    ),
    RecoveryKind.COMMIT: ("第 {chapter} 章已评估，执行提交", "chapter {chapter} is judged; commit it"),
    RecoveryKind.RESUME_WRITER: (
        "第 {chapter} 章继续修订（{revision_kind}，已修订 {revision_count} 次）",
        "chapter {chapter}: go on revising ({revision_kind}, {revision_count} done so far)",
    ),
}

_ARTIFACT_NAMES: dict[str, tuple[str, str]] = {
    DRAFT: ("初稿", "draft"),
    SUMMARY: ("摘要与状态变更", "summary and state changes"),
    REFINE: ("润色", "polish"),
}

_REFINED_STAGES = (PipelineStage.REFINED, PipelineStage.JUDGED)


@dataclass(frozen=True)
class RecoveryAction:
    """The decision. `missing` lists what must still be produced before the judge runs."""

    kind: RecoveryKind
    chapter: int
    revision_count: int = 0
    revision_kind: RevisionKind | None = None
    missing: tuple[str, ...] = ()
    reason: str = ""  # English, for logs

    def describe(self, lang: Lang) -> str:
        idx = 0 if lang == "zh" else 1
        sep = "、" if lang == "zh" else ", "
        missing = sep.join(_ARTIFACT_NAMES[m][idx] for m in self.missing) or "-"
        return tr(
            MESSAGES,
            self.kind,
            lang,
            chapter=self.chapter,
            missing=missing,
            # the checkpoint says "revision" for the gate's revise loop; the stage names call it "revise"
            revision_kind=stage_name({"revision": "revise"}.get(self.revision_kind or "revision", self.revision_kind), lang),
            revision_count=self.revision_count,
        )


def decide_recovery(checkpoint: Checkpoint, paths: ProjectPaths) -> RecoveryAction:
    cp = checkpoint
    stage = cp.pipeline_stage
    n = cp.inflight_chapter

    def action(
        kind: RecoveryKind, chapter: int, reason: str, missing: tuple[str, ...] = ()
    ) -> RecoveryAction:
        return RecoveryAction(kind, chapter, cp.revision_count, cp.revision_kind, missing, reason)

    if cp.pending_actions:
        first = cp.pending_actions[0]
        chapter = n or first.chapter or cp.next_chapter
        kinds = ", ".join(p.kind for p in cp.pending_actions)
        return action(RecoveryKind.ASK_AUTHOR, chapter, f"pending author decision(s): {kinds}")

    if n is None or stage is None or stage is PipelineStage.COMMITTED:
        return RecoveryAction(
            RecoveryKind.NONE,
            cp.next_chapter,
            reason=f"idle (stage {stage or 'null'}); start the next chapter",
        )

    if stage is PipelineStage.REVISING:
        return action(RecoveryKind.RESUME_WRITER, n, f"was revising ({cp.revision_kind or 'revision'})")

    # drafting / drafted / refined / judged: trust the files.
    # (.partial is an unfinished stream; only the renamed file counts as a draft.)
    has_draft = paths.staged_chapter(n).is_file()
    has_summary = paths.staged_summary(n).is_file() and paths.staged_delta(n).is_file()
    has_refine = paths.staged_refine(n).is_file() or stage in _REFINED_STAGES
    has_eval = paths.staged_evaluation(n).is_file()

    if not has_draft:
        return action(
            RecoveryKind.RESTART_CHAPTER,
            n,
            f"stage {stage}: no finished draft in staging",
            (DRAFT, SUMMARY, REFINE),
        )
    missing = tuple(name for name, done in ((SUMMARY, has_summary), (REFINE, has_refine)) if not done)
    if SUMMARY in missing:
        return action(
            RecoveryKind.RESUME_SUMMARIZER, n, f"stage {stage}: missing {', '.join(missing)}", missing
        )
    if missing:
        return action(
            RecoveryKind.RESUME_REFINER, n, f"stage {stage}: summary present, refine missing", missing
        )
    if stage is PipelineStage.JUDGED and has_eval:
        return action(RecoveryKind.COMMIT, n, "judged, evaluation present")
    if stage is PipelineStage.JUDGED:
        return action(RecoveryKind.RESUME_JUDGE, n, "stage judged but the evaluation file is missing")
    why = (
        "an evaluation from before the crash is judged again"
        if has_eval
        else "draft, summary and refine done"
    )
    return action(RecoveryKind.RESUME_JUDGE, n, f"stage {stage}: {why}")
