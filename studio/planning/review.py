"""The volume review's steps and files (卷末回顾; issue 7 item 5, seed 000 §8.2 VOL_REVIEW). No model, no
Textual: `pipeline.planning.review` adds the model's suggestions and drives these steps for the CLI
(`novel-studio review`) and the studio alike. The report is `studio.planning.review_report`, the clean-up rules
`studio.planning.review_cleanup`.

Which volume is what (`review_kind`):
- `finished`: the current volume, every chapter of its outline committed, no review done yet (the checkpoint
  in VOL_REVIEW, or WRITING after the last chapter): the full review;
- `past`: an earlier volume, or the current one once its review is done (VOL_PLANNING): `review.md` again;
- `unfinished`: the current volume with chapters left: an interim report that writes nothing.

Files: `volumes/vol-NN/review.md`; `state/history/vol-NN-final-state.json` (CurrentState: the state as the
volume left it, before the clean-up); the journal `staging/review/vol-NN.json` (ReviewJournal) while a review
is in progress.

Steps and crash safety:
1. the suggestions are asked for; the final state is archived, then the journal is written with the suggestions
   and the proposal: the commit point. A kill before it leaves no journal (the next review starts over; the
   spend ledger has any call made, and the archive is written again with the same bytes);
2. `review.md` is written (the same bytes when written again);
3. the author's answer goes into the journal; `apply` removes the entries (`review_cleanup.apply_cleanup`,
   at most once);
4. the checkpoint goes to VOL_PLANNING (planning the next volume is `novel-studio plan`), then the journal
   is removed, last.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from studio.errors import StudioError
from studio.fileio import atomic_write_text, dumps_json, read_text
from studio.i18n import Lang, tr
from studio.ids import volume_id
from studio.models.checkpoint import Checkpoint, OrchestratorState, save_checkpoint
from studio.models.state import CurrentState
from studio.models.volume_review import ReviewJournal
from studio.paths import ProjectPaths
from studio.pending import pending_reviews, review_journal_path, review_path
from studio.planning.review_cleanup import apply_cleanup
from studio.planning.review_report import MESSAGES as REPORT_MESSAGES
from studio.planning.review_report import VolumeReview, render_review, volume_range
from studio.planning.staged import VOLUME_END_KIND
from studio.project import Project

__all__ = [
    "ReviewKind",
    "archive_final_state",
    "discard_review_journal",
    "final_state_path",
    "finish_review",
    "load_review_journal",
    "pending_reviews",
    "review_journal_path",
    "review_kind",
    "review_path",
    "write_review_md",
]

ReviewKind = Literal["finished", "past", "unfinished"]



# ---------------------------------------------------------------------------------------------- paths


def final_state_path(paths: ProjectPaths, volume: int) -> Path:
    return paths.state_history / f"{volume_id(volume)}-final-state.json"


def load_review_journal(paths: ProjectPaths, volume: int) -> ReviewJournal | None:
    path = review_journal_path(paths, volume)
    return ReviewJournal.load(path) if path.is_file() else None


def discard_review_journal(paths: ProjectPaths, volume: int) -> None:
    review_journal_path(paths, volume).unlink(missing_ok=True)
    for folder in (paths.staging / "review", paths.staging):
        try:
            folder.rmdir()
        except OSError:
            pass


def review_kind(project: Project, volume: int, lang: Lang = "zh") -> ReviewKind:
    """See the module docstring; raises StudioError for a volume without an outline or not begun."""
    current = project.current_volume
    cp = project.checkpoint
    if volume < current:
        return "past"
    span = volume_range(project.paths, volume)
    if volume > current or span is None:
        raise StudioError(tr(REPORT_MESSAGES, "no_outline", lang, volume=volume))
    if project.last_completed_chapter < span[1]:
        return "unfinished"
    if cp.orchestrator_state is OrchestratorState.VOL_PLANNING and load_review_journal(project.paths, volume) is None:
        return "past" if review_path(project.paths, volume).is_file() else "finished"
    return "finished"


def unreviewed_before(project: Project, volume: int) -> int | None:
    """The volume to review before `volume` is planned: the current volume, when `volume` comes after it and it
    is written to its outline's end with no review yet (`review_path`); None otherwise (planning the current
    volume, a volume still being written, a volume already reviewed). The CLI's `plan` and the studio's plan
    ask the author to confirm (`pipeline.planning.session`), as `continue` at the volume end says "review first"."""
    current = project.current_volume
    if current < 1 or volume <= current:
        return None
    span = volume_range(project.paths, current)
    if span is None or project.last_completed_chapter < span[1]:
        return None
    return None if review_path(project.paths, current).is_file() else current


# ---------------------------------------------------------------------------------------------- steps


def archive_final_state(paths: ProjectPaths, volume: int, state: CurrentState) -> None:
    """Step 1a, before the journal: `state/history/vol-NN-final-state.json` = the state as the volume left it
    (nothing changes the state between this write and the journal; same bytes are not written again)."""
    final = final_state_path(paths, volume)
    data = dumps_json(state.to_data())
    if not final.is_file() or read_text(final) != data:
        atomic_write_text(final, data)


def write_review_md(paths: ProjectPaths, review: VolumeReview) -> None:
    """Step 2: `volumes/vol-NN/review.md` in Chinese (same bytes are not written again)."""
    final = final_state_path(paths, review.volume)
    text = render_review(review, "zh", final_state=final.relative_to(paths.root).as_posix())
    target = review_path(paths, review.volume)
    if not target.is_file() or read_text(target) != text:
        atomic_write_text(target, text)


def finish_review(paths: ProjectPaths, journal: ReviewJournal, review: VolumeReview) -> None:
    """Steps 2-4 for a journal whose answer is set (or whose proposal is empty). Safe to run again."""
    review.suggestions = journal.suggestions
    review.cleanup = journal.cleanup
    review.cleanup_answer = journal.answer
    write_review_md(paths, review)
    if journal.answer == "apply":
        apply_cleanup(paths, journal)
    cp = Checkpoint.load_or_default(paths.checkpoint)
    if cp.orchestrator_state is not OrchestratorState.VOL_PLANNING:
        cp.orchestrator_state = OrchestratorState.VOL_PLANNING
        cp.pending_actions = [a for a in cp.pending_actions if a.kind != VOLUME_END_KIND]
        save_checkpoint(paths, cp)
    discard_review_journal(paths, journal.volume)
