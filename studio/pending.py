"""What waits in a project folder to be finished or decided, told by file names alone.

`status`, the cold-start check (`studio.coldstart`) and the studio's start ask here first, and load a file's
model only when the file exists: on a project with nothing pending they import none of the journal, plan,
review or import models (each is a pydantic class built at import, the bulk of a light command's start).

Rules: paths and directory listings only (`os.scandir`, `Path.is_file`); no file is opened or parsed; this
module imports nothing heavier than `studio.paths`. A missing folder means nothing pending. The formats stay
with the modules that read and write them; the paths are defined here once and re-exported there.

Files (and the module that owns the format):

    staging/plan/vol-NN/plan.json            a staged volume plan waiting for approval (studio.planning.staged)
    staging/plan/apply-vol-NN.json           an interrupted plan apply (studio.planning.staged)
    staging/review/vol-NN.json               an interrupted volume review (studio.planning.review)
    volumes/vol-NN/review.md                 a volume's finished review (studio.planning.review)
    staging/tools/<id>.json                  an interrupted character/world tool change (studio.tools.txn)
    .novel-studio/quick-start-progress.json  a quick start under way (studio.planning.quick_start_progress)
    .novel-studio/import-journal.json        an interrupted import (studio.importing.journal)
    .novel-studio/extraction.json            an import extraction's progress (studio.models.extraction_progress)
    .novel-studio/blacklist-proposals.json   the judge's blacklist proposals (studio.models.blacklist_proposals;
                                             `ProjectPaths.blacklist_proposals`)
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from studio.ids import volume_id
from studio.paths import ProjectPaths

__all__ = [
    "apply_journal_path",
    "extraction_progress_path",
    "import_journal_path",
    "pending_plan_applies",
    "pending_reviews",
    "pending_tool_changes",
    "quick_start_progress_path",
    "review_journal_path",
    "review_path",
    "staged_plan_dir",
    "staged_plans",
    "tool_journal_dir",
]

PLAN_META_NAME = "plan.json"  # written last: a staged folder without it is not a staged plan

_VOL_DIR = re.compile(r"^vol-(\d{2,})$")
_APPLY_JOURNAL = re.compile(r"^apply-vol-(\d{2,})\.json$")
_REVIEW_JOURNAL = re.compile(r"^vol-(\d{2,})\.json$")


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            return list(it)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------- plans


def staged_plan_dir(paths: ProjectPaths, volume: int) -> Path:
    return paths.staging / "plan" / volume_id(volume)


def apply_journal_path(paths: ProjectPaths, volume: int) -> Path:
    return paths.staging / "plan" / f"apply-{volume_id(volume)}.json"


def pending_plan_applies(paths: ProjectPaths) -> list[int]:
    """Volumes whose apply journal exists: an apply every start finishes first."""
    return sorted(
        int(m.group(1)) for e in _entries(paths.staging / "plan") if (m := _APPLY_JOURNAL.match(e.name)) and _is_file(e)
    )


def staged_plans(paths: ProjectPaths) -> list[int]:
    """Volumes with a complete staged plan (its plan.json written) and no apply under way."""
    entries = _entries(paths.staging / "plan")
    pending = {int(m.group(1)) for e in entries if (m := _APPLY_JOURNAL.match(e.name)) and _is_file(e)}
    return sorted(
        int(m.group(1))
        for e in entries
        if (m := _VOL_DIR.match(e.name)) and int(m.group(1)) not in pending and Path(e.path, PLAN_META_NAME).is_file()
    )


# ---------------------------------------------------------------------------------------------- reviews


def review_path(paths: ProjectPaths, volume: int) -> Path:
    return paths.volume_dir(volume) / "review.md"


def review_journal_path(paths: ProjectPaths, volume: int) -> Path:
    return paths.staging / "review" / f"{volume_id(volume)}.json"


def pending_reviews(paths: ProjectPaths) -> list[int]:
    """Volumes whose review journal waits to be finished."""
    return sorted(int(m.group(1)) for e in _entries(paths.staging / "review") if (m := _REVIEW_JOURNAL.match(e.name)))


# ---------------------------------------------------------------------------------------------- tools


def tool_journal_dir(paths: ProjectPaths) -> Path:
    return paths.staging / "tools"


def pending_tool_changes(paths: ProjectPaths) -> list[Path]:
    """The journals of tool changes cut short (`staging/tools/<id>.json`), sorted by path."""
    return sorted(Path(e.path) for e in _entries(tool_journal_dir(paths)) if e.name.endswith(".json"))


# ---------------------------------------------------------------------------------------------- the rest


def quick_start_progress_path(paths: ProjectPaths) -> Path:
    return paths.root / ".novel-studio" / "quick-start-progress.json"


def import_journal_path(paths: ProjectPaths) -> Path:
    return paths.root / ".novel-studio" / "import-journal.json"


def extraction_progress_path(paths: ProjectPaths) -> Path:
    return paths.root / ".novel-studio" / "extraction.json"
