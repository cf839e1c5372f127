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
  `studio.views.hunks.ReviewState.record`: index, decision, by (author / refiner), refiner_status,
  drop_reason, start, end, line, original, refined, reason], changed}`;
- the staged current text (`staging/chapters/chapter-NNN.md`) or `chapters/chapter-NNN.md` is written with
  the atomic writer (so the file watcher knows the write is the studio's own).

A committed chapter whose text changed then goes through the same rebuild as a hand edit: this module posts
`ChapterEdited(n, source)` to the main screen, which routes it (like the `e` key's and the file watcher's) to
`screens.watch_bridge.WatchBridge.chapter_edited`: mark, refresh, offer `pipeline.rebuild.rebuild_chapter`
(ConfirmDialog, since it calls the model, unless `writing.auto_rebuild`); the same bytes are offered once.

`start_undo` / `do_undo` are the `u` key: confirm naming the chapter, then `pipeline.undo.undo_last_chapter`
holding the project lock (a held lock is a readable notification), panes refreshed, the backup folder named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from textual.message import Message

from pipeline.commit import archive_dir
from pipeline.refine_edits import EditDecision
from pipeline.staging import ChapterStaging
from pipeline.undo import UndoError, undo_last_chapter, undo_target
from studio.errors import LockHeldError, StudioError
from studio.fileio import atomic_write_json, atomic_write_text, read_json, read_text
from studio.i18n import Catalog, Lang, tr
from studio.ids import chapter_id
from studio.lock import ProjectLock
from studio.paths import ProjectPaths
from studio.views.hunks import ReviewOutcome

if TYPE_CHECKING:
    from screens.main_screen import MainScreen

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
        "Chapter {n}: {a} refine edit(s) accepted, {r} rejected",
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


class ChapterEdited(Message):
    """The text of chapter `chapter` changed outside the pipeline (`source`: review, editor, watcher)."""

    def __init__(self, chapter: int, source: str = "watcher") -> None:
        super().__init__()
        self.chapter = chapter
        self.source = source


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


def start_review(screen: MainScreen) -> None:
    """`r`: review the refine edits of the selected chapter (runs in a worker: it awaits the dialogs)."""
    n = screen.selected
    if n is None:
        screen.notify(tr(MESSAGES, "no_chapter", screen.lang), severity="warning")
        return
    if screen.running and n == screen.inflight:
        screen.notify(tr(MESSAGES, "busy", screen.lang), severity="warning")
        return
    try:
        record = find_refine_record(screen.project.paths, n)
    except (StudioError, OSError, ValueError) as exc:
        screen.notify(tr(MESSAGES, "bad_record", screen.lang, error=exc), severity="error")
        return
    if record is None:
        screen.notify(tr(MESSAGES, "nothing_to_review", screen.lang, n=n))
        return
    screen.run_worker(review_record(screen, record), group="chapter-review", exclusive=True, exit_on_error=False)


async def review_record(screen: MainScreen, record: RefineRecord) -> ReviewOutcome | None:
    """Open the review screen on `record` and apply what the author decided."""
    from screens.prompt_dialogs import ConfirmDialog
    from screens.refine_review import RefineReviewScreen

    app = screen.app
    lang = screen.lang
    n = record.chapter
    try:
        decisions = record.decisions
        edited = record.edited_since()
    except (StudioError, OSError, ValueError) as exc:
        screen.notify(tr(MESSAGES, "bad_record", lang, error=exc), severity="error")
        return None
    if edited:
        go_on = await app.push_screen_wait(ConfirmDialog(tr(MESSAGES, "edited_since", lang, n=n), lang))
        if not go_on:
            return None
    outcome = await app.push_screen_wait(RefineReviewScreen(record.draft, decisions, lang, chapter=n))
    if outcome is None:
        return None
    try:
        changed = apply_review(record, outcome)
    except (StudioError, OSError) as exc:
        screen.notify(tr(MESSAGES, "apply_failed", lang, error=exc), severity="error")
        return None
    accepted, rejected = _counts(outcome)
    screen.notify(
        tr(MESSAGES, "applied" if changed else "unchanged", lang, n=n, a=accepted, r=rejected),
    )
    screen.reload()
    if screen.selected == n:
        screen.show_chapter(n)
    if changed and record.kind == "committed":
        screen.post_message(ChapterEdited(n, source="review"))
    return outcome


# --------------------------------------------------------------------------------------------- locks


def _lock_text(exc: LockHeldError, lang: Lang) -> str:
    status = getattr(exc, "status", None)
    if status is not None and hasattr(status, "describe"):
        return str(status.describe(lang))
    return str(exc)


# --------------------------------------------------------------------------------------------- undo (UI)


def start_undo(screen: MainScreen) -> None:
    """`u`: take back the last committed chapter after a confirmation naming it."""
    from screens.prompt_dialogs import ConfirmDialog

    lang = screen.lang
    if screen.running:
        screen.notify(tr(MESSAGES, "busy", lang), severity="warning")
        return
    paths = screen.project.paths
    try:
        n = undo_target(paths, lang)
    except UndoError as exc:
        screen.notify(str(exc), severity="warning")
        return

    def answered(yes: bool | None) -> None:
        if yes:
            do_undo(screen)

    screen.app.push_screen(
        ConfirmDialog(tr(MESSAGES, "undo_confirm", lang, n=n), lang, title=tr(MESSAGES, "undo_title", lang)),
        answered,
    )


def do_undo(screen: MainScreen) -> Path | None:
    """Run the undo holding the project lock; refresh the panes. Returns the backup folder."""
    lang = screen.lang
    if screen.running:
        screen.notify(tr(MESSAGES, "busy", lang), severity="warning")
        return None
    paths = screen.project.paths
    lock = ProjectLock(paths, heartbeat_interval=0)
    try:
        lock.acquire()
    except LockHeldError as exc:
        screen.notify(tr(MESSAGES, "locked", lang, who=_lock_text(exc, lang)), severity="error", timeout=10)
        return None
    try:
        result = undo_last_chapter(paths, lang=lang)
    except (StudioError, OSError) as exc:
        screen.notify(tr(MESSAGES, "undo_failed", lang, error=exc), severity="error", timeout=10)
        return None
    finally:
        lock.release()
    screen.reload()
    committed = screen.project.committed_chapters()
    target = screen.selected if screen.selected is not None and screen.selected != result.chapter else None
    if target is None and committed:
        target = committed[-1]
    if target is not None:
        screen.outline.select_chapter(target)
        screen.show_chapter(target)
    screen.notify(tr(MESSAGES, "undo_done", lang, n=result.chapter, backup=result.backup_dir), timeout=10)
    for warning in result.warnings:
        screen.notify(warning, severity="warning", timeout=10)
    return result.backup_dir


__all__ = [
    "MESSAGES",
    "ChapterEdited",
    "RefineRecord",
    "apply_review",
    "do_undo",
    "find_refine_record",
    "review_record",
    "start_review",
    "start_undo",
]
