"""The studio's flows that change a chapter after the pipeline wrote it: refine review (then rebuild), undo.

Record files (written by the pipeline, see `pipeline.staging` / `pipeline.commit`):

- in-flight chapter: `staging/refine/chapter-NNN-refine.json` (or `-polish.json` when the polish pass ran:
  its result is the text that will be committed, so that is the record reviewed);
- committed chapter: the same names archived under `logs/chapter-NNN/`.

A record is `{pass, source, draft, edits, decisions, result: {text, decisions, changed_chars, cap_chars}}`.
Applying a review (`apply_review`) updates the record first (it is the source of truth for the refined
text: a resumed run judges `result.text`), then the chapter text:

- `result.text` becomes the reviewed text; `refiner_text` keeps the refiner's own result (set once);
- `reviews` gets one entry per review: `{at, accepted: [refiner edit indices], decisions: [one dict per hunk,
  `studio.tui.hunks.ReviewState.record`: index, decision, by (author / refiner), refiner_status,
  drop_reason, start, end, line, original, refined, reason], changed}`;
- the staged current text (`staging/chapters/chapter-NNN.md`) or `chapters/chapter-NNN.md` is written with
  the atomic writer (so the file watcher knows the write is the studio's own).

A committed chapter whose text changed then goes through the same rebuild as a hand edit: this module calls
`host.chapter_edited(n, "review")`, the one path (like the `e` key's and the file watcher's) to
`studio.tui.watch_flow.EditsFlow.chapter_edited`: mark, refresh, offer `pipeline.rebuild.rebuild_chapter`
(ConfirmDialog, since it calls the model, unless `writing.auto_rebuild`); the same bytes are offered once.

`start_undo` / `undo_flow` / `do_undo` are the `u` key: confirm naming the chapter, then
`pipeline.undo.undo_last_chapter` holding the project lock (a held lock is a readable notification), panes
refreshed, the backup folder named. Every flow takes a `studio.tui.host.StudioHost`, not the screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from screens.prompt_dialogs import ConfirmDialog
from studio.errors import LockHeldError, StudioError
from studio.fileio import atomic_write_json, atomic_write_text, read_json, read_text
from studio.i18n import Catalog, Lang, tr, tr_count
from studio.ids import chapter_id
from studio.lock import ProjectLock
from studio.paths import ProjectPaths
from studio.tui.host import StudioHost
from studio.tui.hunks import ReviewOutcome

if TYPE_CHECKING:
    from pipeline.refine_edits import EditDecision

# The pipeline's staging, commit, refine and undo modules (and the review screen) are imported where a review or
# an undo runs: the main screen imports this module, and they are not needed before the studio's first paint.

MESSAGES: Catalog = {
    "nothing_to_review": ("第{n}章没有可审阅的润色修改", "Chapter {n} has no refine edits to review"),
    "no_chapter": ("先在大纲里选一章", "Select a chapter in the outline first"),
    "busy": ("流水线正在运行，稍后再试", "The pipeline is running; try again when it stops"),
    "bad_record": ("润色记录无法读取：{error}", "The refine record cannot be read: {error}"),
    "edited_since": (
        "第{n}章在润色之后被改过。应用审阅结果会覆盖这些改动。继续审阅？",
        "Chapter {n} was changed after the refine. Applying the review overwrites those changes. Review anyway?",
    ),
    "applied": (
        "第{n}章：已接受 {a} 处、拒绝 {r} 处润色修改",
        "Chapter {n}: {a} refine edits accepted, {r} rejected",
    ),
    "applied_one": (
        "第{n}章：已接受 {a} 处、拒绝 {r} 处润色修改",
        "Chapter {n}: {a} refine edit accepted, {r} rejected",
    ),
    "unchanged": ("第{n}章：审阅已记录，正文没有变化", "Chapter {n}: review recorded, the text did not change"),
    "apply_failed": ("无法写入审阅结果：{error}", "Could not write the review: {error}"),
    "locked": ("项目被占用：{who}", "The project is locked: {who}"),
    "undo_confirm": (
        "撤销第{n}章？正文、摘要、评估和日志移到备份，状态、伏笔和故事线记忆回到写这章之前。",
        "Take back chapter {n}? Its text, summary, evaluation and log move to a backup; state, foreshadowing "
        "and storyline memory go back to before it.",
    ),
    "undo_title": ("撤销章节", "Undo chapter"),
    "undo_done": ("已撤销第{n}章；备份在 {backup}", "Took back chapter {n}; backup in {backup}"),
    "undo_failed": ("撤销失败：{error}", "Undo failed: {error}"),
}


# --------------------------------------------------------------------------------------------- records


@dataclass
class RefineRecord:
    """One refine (or polish) record and the chapter text its result goes to."""

    chapter: int
    kind: Literal["staged", "committed"]
    path: Path
    text_path: Path
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def polish(self) -> bool:
        return self.path.name.endswith("-polish.json")

    @property
    def draft(self) -> str:
        return str(self.data.get("draft") or "")

    @property
    def decisions(self) -> list[EditDecision]:
        from pipeline.refine_edits import EditDecision

        raw = self.data.get("decisions")
        if not isinstance(raw, list):
            result = self.data.get("result")
            raw = result.get("decisions") if isinstance(result, dict) else []
        return [EditDecision.model_validate(item) for item in raw or []]

    @property
    def result_text(self) -> str | None:
        result = self.data.get("result")
        if isinstance(result, dict) and isinstance(result.get("text"), str):
            return str(result["text"])
        return None

    @property
    def reviews(self) -> list[dict[str, Any]]:
        value = self.data.get("reviews")
        return list(value) if isinstance(value, list) else []

    def edited_since(self) -> bool:
        """True when the chapter text is no longer the record's result (changed by hand since)."""
        expected = self.result_text
        if expected is None or not self.text_path.is_file():
            return False
        return read_text(self.text_path).rstrip() != expected.rstrip()


def _candidates(folder: Path, n: int) -> list[Path]:
    cid = chapter_id(n)
    return [folder / f"{cid}-polish.json", folder / f"{cid}-refine.json"]


def find_refine_record(paths: ProjectPaths, n: int) -> RefineRecord | None:
    """Chapter `n`'s refine record: archived for a committed chapter, staged for the in-flight one; None when
    there is none (the sample's chapters, a chapter whose refine did not run yet). A broken record raises
    StudioError (FormatError)."""
    from pipeline.commit import archive_dir
    from pipeline.staging import ChapterStaging

    if paths.chapter(n).is_file():
        for path in _candidates(archive_dir(paths, n), n):
            if path.is_file():
                return RefineRecord(n, "committed", path, paths.chapter(n), _load(path))
        return None
    staging = ChapterStaging(paths, n)
    for path in _candidates(paths.staged_refine(n).parent, n):
        if path.is_file():
            return RefineRecord(n, "staged", path, staging.current, _load(path))
    return None


def _load(path: Path) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise StudioError(f"{path}: not a JSON object")
    return data


def apply_review(record: RefineRecord, outcome: ReviewOutcome, *, now: datetime | None = None) -> bool:
    """Write the review into the record (first: the source of truth), then the chapter text. True when the
    chapter text changed."""
    stamp = (now or datetime.now()).isoformat(timespec="seconds")
    before = read_text(record.text_path) if record.text_path.is_file() else None
    data = dict(record.data)
    result = dict(data.get("result") or {})
    if "refiner_text" not in data:
        data["refiner_text"] = result.get("text")
    result["text"] = outcome.text
    data["result"] = result
    changed = before is None or before != outcome.text
    data["reviews"] = [
        *record.reviews,
        {
            "at": stamp,
            "accepted": list(outcome.accepted),
            "decisions": list(outcome.record),
            "changed": changed,
        },
    ]
    atomic_write_json(record.path, data)
    record.data = data
    if changed:
        atomic_write_text(record.text_path, outcome.text)
    return changed


def _counts(outcome: ReviewOutcome) -> tuple[int, int]:
    accepted = sum(1 for item in outcome.record if item.get("decision") == "accepted")
    return accepted, len(outcome.record) - accepted


# --------------------------------------------------------------------------------------------- review (UI)


def start_review(host: StudioHost) -> None:
    """`r`: review the refine edits of the selected chapter (runs in a worker: it awaits the dialogs)."""
    n = host.selected
    if n is None:
        host.notify(tr(MESSAGES, "no_chapter", host.lang), severity="warning")
        return
    if host.running and n == host.inflight:
        host.notify(tr(MESSAGES, "busy", host.lang), severity="warning")
        return
    try:
        record = find_refine_record(host.project.paths, n)
    except (StudioError, OSError, ValueError) as exc:
        host.notify(tr(MESSAGES, "bad_record", host.lang, error=exc), severity="error")
        return
    if record is None:
        host.notify(tr(MESSAGES, "nothing_to_review", host.lang, n=n))
        return
    host.run_flow(review_record(host, record), group="chapter-review")


async def review_record(host: StudioHost, record: RefineRecord) -> ReviewOutcome | None:
    """Open the review screen on `record` and apply what the author decided."""
    from screens.refine_review import RefineReviewScreen

    lang = host.lang
    n = record.chapter
    try:
        decisions = record.decisions
        edited = record.edited_since()
    except (StudioError, OSError, ValueError) as exc:
        host.notify(tr(MESSAGES, "bad_record", lang, error=exc), severity="error")
        return None
    if edited:
        go_on = await host.show_modal(ConfirmDialog(tr(MESSAGES, "edited_since", lang, n=n), lang))
        if not go_on:
            return None
    outcome = await host.show_modal(RefineReviewScreen(record.draft, decisions, lang, chapter=n))
    if outcome is None:
        return None
    try:
        changed = apply_review(record, outcome)
    except (StudioError, OSError) as exc:
        host.notify(tr(MESSAGES, "apply_failed", lang, error=exc), severity="error")
        return None
    accepted, rejected = _counts(outcome)
    host.notify(tr_count(MESSAGES, "applied" if changed else "unchanged", lang, accepted, n=n, a=accepted, r=rejected))
    host.reload()
    if host.selected == n:
        host.show_chapter(n)
    if changed and record.kind == "committed":
        host.chapter_edited(n, "review")
    return outcome


# --------------------------------------------------------------------------------------------- locks


def _lock_text(exc: LockHeldError, lang: Lang) -> str:
    status = getattr(exc, "status", None)
    if status is not None and hasattr(status, "describe"):
        return str(status.describe(lang))
    return str(exc)


# --------------------------------------------------------------------------------------------- undo (UI)


def start_undo(host: StudioHost) -> None:
    """`u`: take back the last committed chapter after a confirmation naming it."""
    from pipeline.undo import UndoError, undo_target

    if host.running:
        host.notify(tr(MESSAGES, "busy", host.lang), severity="warning")
        return
    try:
        n = undo_target(host.project.paths, host.lang)
    except UndoError as exc:
        host.notify(str(exc), severity="warning")
        return
    host.run_flow(undo_flow(host, n), group="undo")


async def undo_flow(host: StudioHost, n: int) -> Path | None:
    """Confirm taking back chapter `n`, then do it."""
    lang = host.lang
    dialog = ConfirmDialog(tr(MESSAGES, "undo_confirm", lang, n=n), lang, title=tr(MESSAGES, "undo_title", lang))
    if not await host.show_modal(dialog):
        return None
    return do_undo(host)


def do_undo(host: StudioHost) -> Path | None:
    """Run the undo holding the project lock; refresh the panes. Returns the backup folder."""
    from pipeline.undo import undo_last_chapter

    lang = host.lang
    if host.running:
        host.notify(tr(MESSAGES, "busy", lang), severity="warning")
        return None
    paths = host.project.paths
    lock = ProjectLock(paths, heartbeat_interval=0)
    try:
        lock.acquire()
    except LockHeldError as exc:
        host.notify(tr(MESSAGES, "locked", lang, who=_lock_text(exc, lang)), severity="error", timeout=10)
        return None
    try:
        result = undo_last_chapter(paths, lang=lang)
    except (StudioError, OSError) as exc:
        host.notify(tr(MESSAGES, "undo_failed", lang, error=exc), severity="error", timeout=10)
        return None
    finally:
        lock.release()
    host.reload()
    committed = host.project.committed_chapters()
    selected = host.selected
    target = selected if selected is not None and selected != result.chapter else None
    if target is None and committed:
        target = committed[-1]
    if target is not None:
        host.show_chapter(target, select=True)
    host.notify(tr(MESSAGES, "undo_done", lang, n=result.chapter, backup=result.backup_dir), timeout=10)
    for warning in result.warnings:
        host.notify(warning, severity="warning", timeout=10)
    return result.backup_dir


__all__ = [
    "MESSAGES",
    "RefineRecord",
    "apply_review",
    "do_undo",
    "find_refine_record",
    "review_record",
    "start_review",
    "start_undo",
    "undo_flow",
]
