"""Discarding a chapter's staged work, made safe (issue 11 item 21): ask once more, keep a backup.

`confirm_discard_dialog(n, lang)` is the second question (default "no", so a stray enter or click keeps the
work). `backup_staged(paths, n)` copies every staging file of chapter `n` (its own files, the partial draft, the
storyline memory it staged) to

    .novel-studio/discarded/chapter-NNN-<YYYYmmdd-HHMMSS>/<the same paths relative to the project>

before the orchestrator's own discard removes them; restoring is copying the files back. Copies, not moves: a
crash between the backup and the discard leaves the work in both places, never in neither.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from studio.fileio import atomic_write_bytes
from studio.i18n import Catalog, Lang, tr
from studio.ids import chapter_id
from studio.paths import ProjectPaths

if TYPE_CHECKING:
    from screens.prompt_dialogs import ConfirmDialog  # loads when the dialog is first shown

MESSAGES: Catalog = {
    "confirm": (
        "确定丢弃第{n}章已写好的暂存内容？文件会先备份到 .novel-studio/discarded/，需要时可以复制回来。",
        "Discard the staged work of chapter {n}? The files are first backed up to .novel-studio/discarded/ "
        "and can be copied back.",
    ),
    "title": ("丢弃暂存内容", "Discard staged work"),
    "yes": ("丢弃（先备份）", "Discard (backed up)"),
    "no": ("保留", "Keep it"),
    "backed_up": ("第{n}章的暂存内容已备份到 {path}", "The staged work of chapter {n} is backed up in {path}"),
}


def discard_root(paths: ProjectPaths) -> Path:
    return paths.root / ".novel-studio" / "discarded"


def confirm_discard_dialog(n: int, lang: Lang) -> ConfirmDialog:
    from screens.prompt_dialogs import ConfirmDialog

    return ConfirmDialog(
        tr(MESSAGES, "confirm", lang, n=n),
        lang,
        title=tr(MESSAGES, "title", lang),
        default=False,
        yes_label=tr(MESSAGES, "yes", lang),
        no_label=tr(MESSAGES, "no", lang),
    )


def staged_files(paths: ProjectPaths, n: int) -> list[Path]:
    """Every file the discard of chapter `n` would remove."""
    # imported here, not at the studio's start: the staging module loads the agents' types
    from pipeline.staging import ChapterStaging

    staging = ChapterStaging(paths, n)
    files = [*staging.own_files(), staging.partial]
    storyline = staging.summary_storyline()
    if storyline:
        files.append(staging.memory(storyline))
    return [path for path in files if path.is_file()]


def backup_staged(paths: ProjectPaths, n: int, *, now: datetime | None = None) -> Path | None:
    """Copy chapter `n`'s staged files to a new backup folder; None when there is nothing staged."""
    files = staged_files(paths, n)
    if not files:
        return None
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    dest = discard_root(paths) / f"{chapter_id(n)}-{stamp}"
    suffix = 1
    while dest.exists():
        suffix += 1
        dest = discard_root(paths) / f"{chapter_id(n)}-{stamp}-{suffix}"
    for src in files:
        atomic_write_bytes(dest / src.relative_to(paths.root), src.read_bytes())
    return dest


def backed_up_message(n: int, path: Path, lang: Lang) -> str:
    return tr(MESSAGES, "backed_up", lang, n=n, path=path)


__all__ = ["MESSAGES", "backed_up_message", "backup_staged", "confirm_discard_dialog", "discard_root", "staged_files"]
