"""The outline pane as plain data: volumes -> chapters, each chapter with its title, 字数, overall score,
status and storyline.

Every chapter of every volume's `outline.md` is a row (planned ones too), plus committed chapters that no
outline lists (grouped in a volume row with `number == 0`). Word counts come from the stat-keyed cache of
`studio.status.total_word_count` and scores from `studio.views.scores.chapter_scores`, and parsed outlines are
memoised by (size, mtime): a refresh on a 500-chapter project reads no chapter text and no unchanged file.

What the rows take of an outline (`OutlineHeads`: its title, each chapter's number, title and storyline) is also
kept between starts in the user's cache folder (`studio.status_memo.cache_file(root, OUTLINE_CACHE)`, a
`studio.status.StatCache`: `{name: [size, mtime_ns, {"code": ..., "title": ..., "chapters": [[n, title,
storyline], ...]}]}`, `"broken": true` for an outline that does not parse), so a start parses no outline that did
not change (11 outlines of a 500-chapter novel: a few per cent of the first paint). An entry is used only while
the outline's size and mtime are those it was read with and the parser is the same (`code`: a digest of
`studio/outline.py`); a missing, corrupt or foreign entry is parsed again, and a cache that cannot be written is
skipped.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import threading
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from studio import outline as outline_module
from studio import wordcount
from studio.errors import FormatError, Problem, UnsafeIdError
from studio.fileio import read_text
from studio.ids import parse_chapter_id
from studio.models.checkpoint import PipelineStage
from studio.outline import parse_outline
from studio.paths import CHAPTER_FILE, numbered_files
from studio.project import Project
from studio.status import StatCache, total_word_count
from studio.status_memo import cache_file
from studio.views.scores import chapter_scores

PALETTE_SIZE = 6
"""How many storyline colour slots the widgets offer (`ChapterRow.storyline_slot` is in 0..PALETTE_SIZE-1)."""

_VOLUME_DIR = re.compile(r"^vol-(\d{2,})$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*第\s*[0-9０-９零〇一二两三四五六七八九十百千万]+\s*章[\s:：．.、-]*(.*?)\s*#*\s*$")


class ChapterStatus(StrEnum):
    COMMITTED = "committed"
    IN_PROGRESS = "in_progress"
    STAGED = "staged"
    NEEDS_REBUILD = "needs_rebuild"  # edited by hand, not rebuilt yet
    NEEDS_REVIEW = "needs_review"  # a rebuilt edit of an earlier chapter may contradict it
    FORCE_PASSED = "force_passed"
    PLANNED = "planned"


STATUS_MARKS: dict[ChapterStatus, str] = {
    ChapterStatus.COMMITTED: "✓",
    ChapterStatus.FORCE_PASSED: "!",
    ChapterStatus.NEEDS_REBUILD: "↻",
    ChapterStatus.NEEDS_REVIEW: "⚑",
    ChapterStatus.STAGED: "▹",
    ChapterStatus.IN_PROGRESS: "✎",
    ChapterStatus.PLANNED: "∘",
}
"""One symbol per status, so each reads without colour (NO_COLOR); every one is a narrow (East Asian width
N/Na) character, so CJK terminals draw it in one cell like everyone else."""


@dataclass(frozen=True)
class ChapterRow:
    number: int
    title: str = ""
    word_count: int | None = None  # None: no text yet
    overall: float | None = None  # None: not scored
    status: ChapterStatus = ChapterStatus.PLANNED
    storyline_id: str | None = None
    storyline_name: str | None = None
    storyline_slot: int = 0  # stable colour slot of the storyline (its place in storylines.json)

    @property
    def is_written(self) -> bool:
        return self.status not in (ChapterStatus.PLANNED, ChapterStatus.IN_PROGRESS)


@dataclass(frozen=True)
class VolumeRow:
    number: int  # 0: committed chapters that no outline lists
    title: str = ""
    chapters: list[ChapterRow] = field(default_factory=list)

    @property
    def word_count(self) -> int:
        return sum(c.word_count or 0 for c in self.chapters)

    @property
    def written(self) -> int:
        return sum(1 for c in self.chapters if c.is_written)


# ---------------------------------------------------------------------------------------------- outlines

OUTLINE_CACHE = "outline-heads.json"


@dataclass(frozen=True)
class OutlineHeads:
    """What the outline pane shows of one volume outline: its title and its chapters' (number, title,
    storyline id), in the outline's order."""

    title: str
    chapters: tuple[tuple[int, str, str | None], ...]

    def to_data(self, code: str) -> dict[str, object]:
        return {"code": code, "title": self.title, "chapters": [list(c) for c in self.chapters]}

    @classmethod
    def from_data(cls, data: object, code: str) -> OutlineHeads | None:
        """The heads kept in the cache, or None: not an entry of this shape or of this parser."""
        if not isinstance(data, dict) or data.get("code") != code or not isinstance(data.get("title"), str):
            return None
        chapters = data.get("chapters")
        if not isinstance(chapters, list):
            return None
        out: list[tuple[int, str, str | None]] = []
        for item in chapters:
            if not (isinstance(item, list) and len(item) == 3 and type(item[0]) is int and isinstance(item[1], str)
                    and (item[2] is None or isinstance(item[2], str))):
                return None
            out.append((item[0], item[1], item[2]))
        return cls(data["title"], tuple(out))


_BROKEN = "broken"
_outline_memo: dict[Path, tuple[int, int, OutlineHeads | None]] = {}
_memo_lock = threading.Lock()


@functools.cache
def parser_digest() -> str:
    """A digest of the outline parser's source (`studio/outline.py`); "" when it cannot be read (then no kept
    heads are used: another parser could read an outline differently)."""
    origin = outline_module.__file__
    try:
        return hashlib.blake2b(Path(origin).read_bytes(), digest_size=16).hexdigest() if origin else ""
    except OSError:
        return ""


def _volume_outlines(project: Project) -> list[tuple[int, OutlineHeads]]:
    """Every readable `volumes/vol-NN/outline.md`, by volume number; a broken outline is left out (the
    project's own validation reports it)."""
    volumes_dir = project.root / "volumes"
    found: list[tuple[int, str, Path]] = []
    try:
        entries = list(os.scandir(volumes_dir))
    except OSError:
        entries = []
    for entry in entries:
        m = _VOLUME_DIR.match(entry.name)
        if m and entry.is_dir():
            found.append((int(m.group(1)), f"{entry.name}/outline.md", Path(entry.path) / "outline.md"))
    kept: StatCache | None = None  # read at the first outline this process has not memoised
    out: list[tuple[int, OutlineHeads]] = []
    for number, name, path in sorted(found):
        try:
            st = os.stat(path)
        except OSError:
            continue
        with _memo_lock:
            hit = _outline_memo.get(path)
        if hit is not None and hit[0] == st.st_size and hit[1] == st.st_mtime_ns:
            heads = hit[2]
        else:
            if kept is None:
                kept = StatCache(cache_file(project.root, OUTLINE_CACHE))
            heads = _read_heads(path, name, st, kept)
            with _memo_lock:
                _outline_memo[path] = (st.st_size, st.st_mtime_ns, heads)
        if heads is not None:
            out.append((number, heads))
    if kept is not None:
        kept.new = {**kept.old, **kept.new}  # keep the entries of outlines this process had memoised
        kept.save()
    return out


def _read_heads(path: Path, name: str, st: os.stat_result, kept: StatCache) -> OutlineHeads | None:
    """The heads of one outline: from the cache when it holds them for this (size, mtime) and parser, else
    parsed (and put in the cache); None for an outline that does not parse."""
    code = parser_digest()
    value = kept.get(name, st) if code else None
    if isinstance(value, dict) and value.get("code") == code and value.get(_BROKEN) is True:
        return None
    heads = OutlineHeads.from_data(value, code) if value is not None else None
    if heads is not None:
        return heads
    try:
        outline = parse_outline(read_text(path), path)
    except (FormatError, OSError):
        if code:
            kept.put(name, st, {"code": code, _BROKEN: True})
        return None
    heads = OutlineHeads(outline.title, tuple((c.number, c.title, c.storyline) for c in outline.chapters))
    if code:
        kept.put(name, st, heads.to_data(code))
    return heads


def _chapter_title_from_file(path: Path) -> str:
    """The title of a chapter file's `# 第N章 标题` heading (reads the first line only)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for _ in range(5):
                line = fh.readline()
                if not line:
                    break
                if not line.strip():
                    continue
                m = _HEADING.match(line.rstrip("\n"))
                return m.group(1).strip() if m else ""
    except OSError:
        return ""
    return ""


# ---------------------------------------------------------------------------------------------- status


def _slot(storyline_id: str | None, order: dict[str, int]) -> int:
    if storyline_id is None:
        return 0
    if storyline_id in order:
        return order[storyline_id] % PALETTE_SIZE
    return zlib.crc32(storyline_id.encode("utf-8")) % PALETTE_SIZE


def _staged_numbers(project: Project) -> set[int]:
    """Chapters with a staged (drafted, not yet committed) text under staging/chapters/."""
    out: set[int] = set()
    try:
        entries = list(os.scandir(project.paths.staging / "chapters"))
    except OSError:
        return out
    for entry in entries:
        if entry.name.endswith(".md") and entry.name.startswith("chapter-"):
            try:
                out.add(parse_chapter_id(entry.name[:-3]))
            except UnsafeIdError:  # a stray file name is not a staged chapter
                continue
    return out


def build_outline_rows(
    project: Project,
    needs_rebuild: set[int] | None = None,
    *,
    needs_review: set[int] | None = None,
    inflight: int | None = None,
    committed: Iterable[int] | None = None,
) -> list[VolumeRow]:
    """The outline tree's rows for `project`.

    - `needs_rebuild`: chapters edited by hand and not rebuilt yet.
    - `needs_review`: chapters a rebuilt edit may contradict (`.novel-studio/review-marks.json`).
    - `inflight`: the chapter the pipeline is writing now (default: the checkpoint's inflight chapter while
      a stage runs).
    - `committed`: the committed chapter numbers, if the caller already listed them (default: the folder listing,
      fresh, so a chapter committed since the project was opened shows).

    Status precedence: needs_rebuild > needs_review > force_passed > committed > staged > in_progress > planned.
    """
    marks = needs_rebuild or set()
    review = needs_review or set()
    problems: list[Problem] = []
    committed_set = set(committed) if committed is not None else set(_fresh_committed(project))
    _, words = _word_counts(project, committed_set, problems)
    scores = chapter_scores(project)
    staged = _staged_numbers(project)
    cp = project.checkpoint
    if inflight is None and cp.inflight_chapter is not None and cp.pipeline_stage not in (
        None,
        PipelineStage.COMMITTED,
    ):
        inflight = cp.inflight_chapter

    names: dict[str, str] = {}
    order: dict[str, int] = {}
    for index, line in enumerate(project.storylines.storylines):
        names[line.id] = line.name
        order[line.id] = index

    def row(number: int, title: str, storyline: str | None) -> ChapterRow:
        score = scores.get(number)
        if number in committed_set:
            if number in marks:
                status = ChapterStatus.NEEDS_REBUILD
            elif number in review:
                status = ChapterStatus.NEEDS_REVIEW
            elif score is not None and score.force_passed:
                status = ChapterStatus.FORCE_PASSED
            else:
                status = ChapterStatus.COMMITTED
        elif number in staged and number != inflight:
            status = ChapterStatus.STAGED
        elif number == inflight:
            status = ChapterStatus.STAGED if number in staged and cp.pipeline_stage in (
                PipelineStage.REFINED,
                PipelineStage.JUDGED,
            ) else ChapterStatus.IN_PROGRESS
        else:
            status = ChapterStatus.PLANNED
        return ChapterRow(
            number=number,
            title=title,
            word_count=words.get(number) if number in committed_set else None,
            overall=score.overall if score is not None and number in committed_set else None,
            status=status,
            storyline_id=storyline,
            storyline_name=names.get(storyline) if storyline else None,
            storyline_slot=_slot(storyline, order),
        )

    volumes: list[VolumeRow] = []
    listed: set[int] = set()
    for number, heads in _volume_outlines(project):
        chapters = []
        for chapter_number, title, storyline in heads.chapters:
            if chapter_number in listed:
                continue  # the same chapter in two outlines: the first volume keeps it
            listed.add(chapter_number)
            chapters.append(row(chapter_number, title, storyline))
        volumes.append(VolumeRow(number=number, title=heads.title, chapters=chapters))

    extra = sorted((committed_set | ({inflight} if inflight else set())) - listed)
    if extra:
        loose = [
            row(n, _chapter_title_from_file(project.paths.chapter(n)) if n in committed_set else "", None)
            for n in extra
        ]
        volumes.append(VolumeRow(number=0, title="", chapters=loose))
        volumes.sort(key=lambda v: (v.chapters[0].number if v.chapters else 10**9, v.number))
    return volumes


def _fresh_committed(project: Project) -> list[int]:
    """The committed chapter numbers from the folder as it is now (`numbered_files` lists it again once it
    changed; the Project's own list is taken once per load)."""
    return sorted(numbered_files(project.root / "chapters", CHAPTER_FILE))


def _word_counts(project: Project, committed: set[int], problems: list[Problem]) -> tuple[int, dict[int, int]]:
    total, per_chapter = total_word_count(project, problems)
    missing = committed - per_chapter.keys()
    if missing:  # committed since the project listed its chapters: count them directly (a few at most)
        for n in missing:
            try:
                per_chapter[n] = wordcount.word_count(project.chapter_text(n) or "")
            except (FormatError, OSError):
                per_chapter[n] = 0
    return total, per_chapter


def find_chapter(rows: list[VolumeRow], number: int) -> ChapterRow | None:
    for volume in rows:
        for chapter in volume.chapters:
            if chapter.number == number:
                return chapter
    return None
