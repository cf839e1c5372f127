"""Where a quick start stands, and its crash-safe steps (issue 7 item 2; seed 000 §2.2 Layer 1, §8.2 QUICK_START).

Files:

    .novel-studio/quick-start-progress.json    QuickStartProgress: the steps done, in `QUICK_START_STEPS` order
    staging/quick-start/<step>.json            StagedStep: every file one step writes, whole, before any is written
    .novel-studio/quick-start-backup/<stamp>/  what `restart` set aside (world, characters, storylines, style,
                                               volumes, chapters and everything the chapters made)
    .novel-studio/quick-start-backup/quick-start-<stamp>.json
                                               a request file that could not be read, as it was

Rules:
- A step that writes project files computes all of them first (each the full new content, already valid by
  its model) and saves them as one `StagedStep`: that write is the step's commit point. `apply_staged_step`
  then writes each file (same bytes again change nothing), records the step as done and removes the staged
  file, so a kill anywhere either leaves the step undone (no staged file: it runs again, a new model call) or
  finishes it on the next start (staged file present: no model call). Nothing is ever half applied.
- `opening` (the 3-chapter sketch) goes through the volume-plan staging and its own journal
  (`studio.planning.staged`); `trial` is the orchestrator's (chapter commits are journaled there).
- The progress file exists from the first step until the author confirms the trial chapters (then it is
  removed and the checkpoint moves to VOL_PLANNING). `studio.coldstart` refuses `continue` and `plan` while it
  exists, except during `trial` (the orchestrator writes the trial chapters itself).
- `restart` copies what it clears into the backup first, records the backup in the progress file (the
  restart's commit point), then clears; a kill during the clearing finishes it on the next start. The brief,
  the settings, the spend ledger and the quick-start request stay. The backup also holds a copy of the
  progress file and of the request as they were: a progress file that cannot be read is set aside this way
  (`novel-studio start --restart`), never deleted.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import Field

from studio import own_writes
from studio.fileio import atomic_write_bytes
from studio.models.base import FileModel
from studio.models.checkpoint import Checkpoint, OrchestratorState, now_iso, save_checkpoint
from studio.paths import ProjectPaths
from studio.pending import quick_start_progress_path as progress_path

__all__ = [
    "QUICK_START_STEPS",
    "QuickStartProgress",
    "StagedStep",
    "apply_staged_step",
    "clear_for_restart",
    "finish_restart",
    "load_progress",
    "progress_path",
    "remove_progress",
    "request_backup_path",
    "request_path",
    "save_progress",
    "set_state",
    "stage_step",
    "staged_step_path",
]

QUICK_START_STEPS: tuple[str, ...] = (
    "world", "characters", "storyline", "style", "opening", "trial", "extract", "confirm",
)
# What restart sets aside and clears (relative to the root); templates/project files among them are rewritten.
CLEARED: tuple[str, ...] = (
    "world", "characters", "storylines", "style-profile.json", "volumes", "chapters", "summaries", "evaluations",
    "state", "foreshadowing", "staging", ".checkpoint.json",
)
_KEEP_TEMPLATES = frozenset({"brief.md", "novel-studio.toml"})


def request_path(paths: ProjectPaths) -> Path:
    """`.novel-studio/quick-start.json` (`studio.models.quick_start.QuickStartRequest`)."""
    return paths.root / ".novel-studio" / "quick-start.json"


def request_backup_path(paths: ProjectPaths) -> Path:
    """Where a request file that cannot be read is copied before this run's options replace it."""
    return paths.root / ".novel-studio" / "quick-start-backup" / f"quick-start-{_stamp()}.json"


def staged_step_path(paths: ProjectPaths, step: str) -> Path:
    return paths.staging / "quick-start" / f"{step}.json"


class QuickStartProgress(FileModel):
    """`.novel-studio/quick-start-progress.json` (see the module rules)."""

    done: list[str] = Field(default_factory=list)
    main_arc: dict[str, Any] | None = None  # WorldBuilder's suggested main storyline, for the storyline step
    protagonist: str | None = None  # the protagonist's id (characters step), POV of `main-arc`
    restart_backup: str | None = None  # a restart under way: its backup folder, relative to the root
    trial_note: str = ""  # what the author asked for when the trial chapters are rewritten
    style_note: str = ""  # what the author asked for when the style is analysed again
    rewrite_pending: bool = False  # the trial chapters are being taken back for a rewrite
    started_at: str = Field(default_factory=now_iso)

    def next_step(self) -> str | None:
        return next((s for s in QUICK_START_STEPS if s not in self.done), None)


class StagedStep(FileModel):
    """`staging/quick-start/<step>.json`: the files one step writes (path relative to the root -> text)."""

    step: str
    files: dict[str, str] = Field(default_factory=dict)
    progress: dict[str, Any] = Field(default_factory=dict)  # fields set on QuickStartProgress when applied


def load_progress(paths: ProjectPaths) -> QuickStartProgress | None:
    path = progress_path(paths)
    return QuickStartProgress.load(path) if path.is_file() else None


def save_progress(paths: ProjectPaths, progress: QuickStartProgress) -> None:
    progress.save(progress_path(paths))


def remove_progress(paths: ProjectPaths) -> None:
    path = progress_path(paths)
    if path.is_file():
        own_writes.record_deleted(path)
        path.unlink()


def set_state(paths: ProjectPaths, state: OrchestratorState) -> None:
    """Put the checkpoint in `state` (written only when it changes)."""
    cp = Checkpoint.load_or_default(paths.checkpoint)
    if cp.orchestrator_state is not state:
        cp.orchestrator_state = state
        save_checkpoint(paths, cp)


def stage_step(paths: ProjectPaths, step: str, files: dict[str, str], progress: dict[str, Any] | None = None) -> None:
    """The commit point of `step`: every file it writes, in one atomic write."""
    StagedStep(step=step, files=files, progress=progress or {}).save(staged_step_path(paths, step))


def _write_if_changed(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    if not path.is_file() or path.read_bytes() != data:
        atomic_write_bytes(path, data)


def apply_staged_step(paths: ProjectPaths, progress: QuickStartProgress, step: str) -> bool:
    """Write the staged files of `step` and mark it done; False when nothing was staged for it.

    A step outside `QUICK_START_STEPS` (an adjustment after the trial chapters) is applied and never marked."""
    staged = staged_step_path(paths, step)
    if not staged.is_file():
        return False
    if step not in progress.done:
        record = StagedStep.load(staged)
        for rel, text in record.files.items():
            _write_if_changed(paths.root / rel, text)
        for key, value in record.progress.items():
            setattr(progress, key, value)
        if step in QUICK_START_STEPS:
            progress.done.append(step)
        save_progress(paths, progress)
    own_writes.record_deleted(staged)
    staged.unlink()
    for folder in (staged.parent, paths.staging):
        try:
            folder.rmdir()
        except OSError:
            pass
    return True


# --------------------------------------------------------------------------------------------- restart


def _chapter_logs(paths: ProjectPaths) -> list[Path]:
    """`logs/chapter-NNN-log.json` and the files of `logs/chapter-NNN/` (the spend ledger stays)."""
    out: list[Path] = []
    for path in sorted((paths.root / "logs").glob("chapter-*")):
        out += sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return out


def _stamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S")


def clear_for_restart(paths: ProjectPaths, progress: QuickStartProgress) -> Path:
    """Copy what restart clears into a new backup folder and record it (the commit point); then clear."""
    backup = paths.root / ".novel-studio" / "quick-start-backup" / _stamp()
    n = 1
    while backup.exists():
        n += 1
        backup = backup.with_name(f"{_stamp()}-{n}")
    for rel in CLEARED:
        src = paths.root / rel
        if src.is_dir():
            for path in sorted(src.rglob("*")):
                if path.is_file():
                    atomic_write_bytes(backup / path.relative_to(paths.root), path.read_bytes())
        elif src.is_file():
            atomic_write_bytes(backup / rel, src.read_bytes())
    for path in _chapter_logs(paths):  # chapter logs go with their chapters
        atomic_write_bytes(backup / path.relative_to(paths.root), path.read_bytes())
    for path in (progress_path(paths), request_path(paths)):  # as they were, readable or not
        if path.is_file():
            atomic_write_bytes(backup / path.relative_to(paths.root), path.read_bytes())
    progress.restart_backup = backup.relative_to(paths.root).as_posix()
    save_progress(paths, progress)
    finish_restart(paths)
    return backup


def _template_files() -> dict[str, bytes]:
    root = resources.files("templates").joinpath("project")
    out: dict[str, bytes] = {}

    def walk(node: Traversable, prefix: str) -> None:
        for child in node.iterdir():
            rel = f"{prefix}{child.name}"
            if child.is_dir():
                walk(child, rel + "/")
            elif child.name not in ("__init__.py", ".gitkeep") and rel not in _KEEP_TEMPLATES:
                out[rel] = child.read_bytes()

    walk(root, "")
    return out


def finish_restart(paths: ProjectPaths) -> None:
    """Clear what restart sets aside (idempotent), put the project templates back, drop the progress file."""
    for rel in CLEARED:
        target = paths.root / rel
        if target.is_dir():
            for path in target.rglob("*"):
                if path.is_file():
                    own_writes.record_deleted(path)
            shutil.rmtree(target)
        elif target.is_file():
            own_writes.record_deleted(target)
            target.unlink()
    for rel, data in _template_files().items():
        if rel.split("/", 1)[0] in {c.split("/", 1)[0] for c in CLEARED}:
            atomic_write_bytes(paths.root / rel, data)
    for folder in ("world", "characters/active", "characters/retired", "storylines", "volumes", "chapters",
                   "summaries", "state/history", "foreshadowing", "evaluations"):
        (paths.root / folder).mkdir(parents=True, exist_ok=True)
    for path in _chapter_logs(paths):
        own_writes.record_deleted(path)
        path.unlink()
    for path in sorted((paths.root / "logs").glob("chapter-*")):
        if path.is_dir():
            shutil.rmtree(path)
    remove_progress(paths)
