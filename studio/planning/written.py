"""Outline entries for chapters written without an outline (issue 7: "a project with chapters but no outline
gets outline entries made from its summaries, marked as written").

Rules:
- The chapters are the current volume's committed ones: from the volume's first chapter (1 for volume 1, else
  the one after the previous volume's outline) to the last committed chapter.
- Each entry: the heading's title from the chapter file's first `#` heading (`# 第3章 夜雨` -> 夜雨), the
  summary (`summaries/chapter-NNN-summary.md`, first paragraph, at most `SUMMARY_CHARS` characters) as the
  entry's note, and `- Status: written` (an `extra` field of `studio.outline.OutlineChapter`) so that a reader
  and later plans know the entry describes what is written rather than what is planned.
- A missing summary or chapter file gives an entry with what exists; nothing here writes a file.
"""

from __future__ import annotations

import re

from studio.errors import StudioError
from studio.fileio import read_text
from studio.outline import OutlineChapter, VolumeOutline, parse_outline
from studio.project import Project

__all__ = ["STATUS_KEY", "WRITTEN", "SUMMARY_CHARS", "is_written", "volume_first_chapter", "written_entries"]

STATUS_KEY = "Status"
WRITTEN = "written"
SUMMARY_CHARS = 300
_TITLE = re.compile(r"^#\s*第\s*[0-9零〇一二两三四五六七八九十百千万]+\s*章[\s:：、.-]*(.*?)\s*$")


def is_written(chapter: OutlineChapter) -> bool:
    return chapter.extra.get(STATUS_KEY, "").strip().lower() == WRITTEN


def volume_first_chapter(project: Project) -> int:
    """The first chapter of the current volume (after the previous volume's outline, if there is one)."""
    volume = project.current_volume
    if volume <= 1:
        return 1
    path = project.paths.outline(volume - 1)
    if path.is_file():
        try:
            previous = parse_outline(read_text(path), path).chapter_range
        except StudioError:
            previous = None
        if previous is not None:
            return previous[1] + 1
    return 1


def _title(project: Project, n: int) -> str:
    path = project.paths.chapter(n)
    if not path.is_file():
        return ""
    for line in read_text(path).splitlines():
        if line.strip():
            m = _TITLE.match(line.strip())
            return m.group(1) if m else ""
    return ""


def _summary(project: Project, n: int) -> str:
    path = project.paths.summary(n)
    if not path.is_file():
        return ""
    text = read_text(path).strip()
    first = next((p.strip() for p in re.split(r"\n\s*\n", text) if p.strip() and not p.lstrip().startswith("#")), "")
    first = " ".join(first.split())
    return first[:SUMMARY_CHARS] + "……" if len(first) > SUMMARY_CHARS else first


def written_entries(project: Project) -> VolumeOutline:
    """Entries for the current volume's committed chapters (see the module rules)."""
    first = volume_first_chapter(project)
    last = project.last_completed_chapter
    chapters = []
    for n in project.committed_chapters():
        if not first <= n <= last:
            continue
        summary = _summary(project, n)
        chapters.append(
            OutlineChapter(
                number=n,
                title=_title(project, n),
                extra={STATUS_KEY: WRITTEN},
                notes=[summary] if summary else [],
            )
        )
    return VolumeOutline(chapters=chapters)
