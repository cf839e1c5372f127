"""字数 of the committed chapters for `status`, from the stat-keyed cache (`StatCache`, file `WORDCOUNT_CACHE`).

Chapter text is read only for a chapter whose (size, mtime_ns) the cache does not hold. Imports no pydantic
model: `studio.status.total_word_count` (the full report) and `recount` (`status`'s light path, when only
chapter text changed since the last full run: `studio.status_memo`) share `count_words`. Rules: a chapter
listed in `chapters/` (`CHAPTER_FILE`) counts at its canonical path (`ProjectPaths.chapter`); one that is gone
by then is left out; one that cannot be stat'ed or read, or is not UTF-8, is reported through `on_problem`
(read failures count 0); a path that is not a regular file counts 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from studio import wordcount
from studio.errors import FormatError
from studio.fileio import read_text
from studio.ids import chapter_id
from studio.paths import CHAPTER_FILE, ProjectPaths, numbered_files
from studio.stat_cache import StatCache, stat_files
from studio.status_memo import cache_file

WORDCOUNT_CACHE = "wordcount.json"  # in `cache_file(root, name)`

ProblemSink = Callable[[Path, OSError | FormatError], None]
ChapterReader = Callable[[int], str | None]  # a chapter's text (None: no file), e.g. `Project.chapter_text`


def read_chapter_file(path: Path) -> str | None:
    """The text of the chapter file at `path` (None: not a regular file); not UTF-8 -> FormatError."""
    return read_text(path) if path.is_file() else None


def count_words(
    chapters: Mapping[int, Path], cache_path: Path, on_problem: ProblemSink, read: ChapterReader | None = None
) -> dict[int, int]:
    """字数 per chapter (see the module rules), refreshing the cache at `cache_path`. `read` gives chapter n's
    text (default: `read_chapter_file` of its path)."""
    cache = StatCache(cache_path)
    per_chapter: dict[int, int] = {}
    for n, path, st in stat_files(chapters, on_problem):
        count = cache.get(path.name, st)
        if not isinstance(count, int):
            try:
                text = (read(n) if read is not None else read_chapter_file(path)) or ""
            except (FormatError, OSError) as exc:
                on_problem(path, exc)
                per_chapter[n] = 0
                continue
            count = wordcount.word_count(text)
            cache.put(path.name, st, count)
        per_chapter[n] = count
    cache.save()
    return per_chapter


def committed_chapter_files(root: Path) -> dict[int, Path]:
    """The committed chapters' files, as `Project.committed_chapters` lists them and `chapter_file` names them."""
    folder = ProjectPaths(root).root / "chapters"
    return {n: folder / f"{chapter_id(n)}.md" for n in numbered_files(folder, CHAPTER_FILE)}  # `ProjectPaths.chapter`


def recount(root: Path) -> tuple[int, int] | None:
    """(total 字数, chapters) of the project at `root`; None when any chapter has a problem (the full report
    says what it is)."""
    problems: list[Path] = []
    chapters = committed_chapter_files(root)
    per_chapter = count_words(chapters, cache_file(root, WORDCOUNT_CACHE), lambda path, exc: problems.append(path))
    if problems:
        return None
    return sum(per_chapter.values()), len(chapters)
