"""Cutting a decoded source into chapters and volumes (issue 10 item 1).

Modes (`Manuscript.mode` says which one made the chapters):
- "headings": chapters start at heading lines (`studio.importing.headings`); volume headings start volumes.
  A manuscript without any numbered heading of those forms looks for bare-number headings (`001 标题`, `1. 标题`,
  `001` alone) that make a sequence over the book (`studio.importing.bare_headings`).
  A folder source: each file is a chapter (its heading from its first line, else from its file name) unless it
  holds several chapter headings, then it is cut like a TXT file; volume subfolders are volumes. When a TXT source
  has no heading at all, the split falls back to "blank" (when runs of blank lines cut it into plausible
  chapters) or else "size", and says so with a `no_headings` issue.
- "size": chapters of about `target_chars` 字, cut only between paragraphs (lines), at the boundary nearest the
  target; a last piece under a third of the target joins the one before.
- "blank": chapters separated by runs of blank lines longer than the manuscript's usual paragraph gap.

Rules:
- Nothing is dropped: text before the first heading is `front_matter` (a `front_matter` issue says how much);
  the text between a volume heading and its first chapter is the volume's `intro`; a table of contents at the
  start (a run of `TOC_RUN` or more headings without text that come again later) joins the front matter.
  Joining front matter, headings, intros and chapter texts in order gives back every character of the source.
- Line breaks are `\\n`; a chapter's `text` is its lines as they stand, blank lines at its two ends left out.
- 字 is `studio.wordcount.word_count`, the one rule.
- Issues: chapters very short (under `SHORT_ABS` 字, or under `SHORT_SHARE` of the median) or very long (over
  `LONG_ABS` 字, or over `LONG_TIMES` the median and `LONG_MIN` 字: usually a missed heading); in the source
  numbering, gaps (the missing numbers), repeats and numbers out of order (numbering that starts again at 1 in
  a new volume is not an issue); front matter; no headings; lines decoded in another encoding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median

from studio.importing.bare_headings import bare_chapter_lines
from studio.importing.headings import (
    BARE_UNIT,
    Heading,
    chapter_unit,
    is_chapter_heading,
    parse_heading,
    parse_line,
)
from studio.importing.numerals import parse_number
from studio.importing.source import SourceFile, SourceText
from studio.models.manuscript import (
    IssueKind,
    Manuscript,
    ManuscriptChapter,
    ManuscriptVolume,
    SplitIssue,
    SplitMode,
)
from studio.wordcount import word_count

DEFAULT_TARGET_CHARS = 4000
MIN_TARGET_CHARS = 500
SHORT_ABS = 300
SHORT_SHARE = 0.2
LONG_ABS = 30_000
LONG_TIMES = 3.0
LONG_MIN = 6000
TOC_RUN = 3
_DIGITS = re.compile(r"\d+")
_PART = re.compile(r"(?:[（(][上中下一二三四五六七八九十\d]+[)）]|[\s\u3000·][上中下]篇?|[上中下]篇)$")
_NUMBER_ONLY = re.compile(r"^(?:chapter|ch)?[\s\-_.]*\d+[\s\-_.]*$", re.IGNORECASE)


@dataclass
class _Piece:
    """A chapter or a volume found in one file, before numbering."""

    kind: str  # "chapter" | "volume"
    heading: Heading | None
    file: str
    line: int  # 1-based line of the heading (of the first body line without one)
    body: list[str] = field(default_factory=list)
    volume_folder: str = ""


@dataclass
class _Found:
    front: list[str] = field(default_factory=list)  # front matter blocks
    pieces: list[_Piece] = field(default_factory=list)
    issues: list[SplitIssue] = field(default_factory=list)


def split_manuscript(source: SourceText, *, mode: SplitMode = "headings",
                     target_chars: int = DEFAULT_TARGET_CHARS) -> Manuscript:
    """Cut `source` into chapters and volumes (see the module rules)."""
    target_chars = max(MIN_TARGET_CHARS, target_chars)
    found = _Found()
    used: SplitMode = mode
    if mode == "headings":
        found = _by_headings(source)
        if not any(p.kind == "chapter" for p in found.pieces):
            lines = _all_lines(source)
            blank = _by_blank(lines)
            used = "blank" if _plausible_blank(blank) else "size"
            found = blank if used == "blank" else _by_size(lines, target_chars)
            found.issues.append(SplitIssue(kind="no_headings", detail=used))
    elif mode == "blank":
        found = _by_blank(_all_lines(source))
    else:
        found = _by_size(_all_lines(source), target_chars)
    manuscript = _assemble(source, found, used)
    _mixed_issues(source, manuscript)
    manuscript.issues.extend(_length_issues(manuscript.chapters))
    manuscript.issues.extend(_numbering_issues(manuscript.chapters, {v.first for v in manuscript.volumes}))
    manuscript.issues.sort(key=lambda issue: (issue.position or 0))
    return manuscript


# --- headings ------------------------------------------------------------------------------------------------

def _by_headings(source: SourceText) -> _Found:
    per_file: list[tuple[SourceFile, list[str], list[tuple[int, Heading]]]] = []
    for f in source.files:
        lines = f.text.split("\n")
        per_file.append((f, lines, _candidates(lines)))
    unit = chapter_unit(h for _f, _l, cands in per_file for _i, h in cands)
    if not any(h.kind == "chapter" and h.number is not None for _f, _l, cands in per_file for _i, h in cands):
        bare = bare_chapter_lines([lines for _f, lines, _c in per_file],
                                  [{i for i, h in cands if h.kind == "volume"} for _f, _l, cands in per_file])
        if bare:  # `001 标题` headings that make a sequence over the book
            unit = BARE_UNIT
            per_file = [(f, lines, sorted([*cands, *((i, h) for (k, i), h in bare.items() if k == n)],
                                          key=lambda item: item[0]))
                        for n, (f, lines, cands) in enumerate(per_file)]
    found = _Found()
    current_folder = ""
    for f, lines, cands in per_file:
        heads = [(i, h) for i, h in cands if h.kind == "volume" or is_chapter_heading(h, unit)]
        if source.is_folder and f.volume != current_folder:
            current_folder = f.volume
            if f.volume:
                found.pieces.append(_folder_volume(f))
        chapters = [h for _i, h in heads if h.kind != "volume"]
        if source.is_folder and not (len(chapters) >= 2 or (heads and not _text(lines[: heads[0][0]]))):
            found.pieces.append(_file_chapter(f, lines))
            continue
        _cut(f, lines, heads, found)
    _table_of_contents(found)
    return found


def _candidates(lines: Sequence[str]) -> list[tuple[int, Heading]]:
    out: list[tuple[int, Heading]] = []
    for i, line in enumerate(lines):
        if len(line) > 80 or not line:
            continue
        out.extend((i, heading) for heading in parse_line(line))
    return out


def _cut(f: SourceFile, lines: list[str], heads: list[tuple[int, Heading]], found: _Found) -> None:
    heads = _without_doubled(lines, heads)
    start = heads[0][0] if heads else len(lines)
    front = _text(lines[:start])
    if front:
        found.front.append(front)
    for k, (i, heading) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        kind = "volume" if heading.kind == "volume" else "chapter"
        found.pieces.append(_Piece(kind, heading, f.name, i + 1, lines[i + 1:end], f.volume))


def _toc_key(heading: Heading) -> tuple[str, str, int | str]:
    """What a contents line and its chapter share: the number, or the title of an unnumbered heading."""
    return heading.kind, heading.unit, heading.number if heading.number is not None else heading.title


def _without_doubled(lines: list[str], heads: list[tuple[int, Heading]]) -> list[tuple[int, Heading]]:
    """A heading repeated on the next line with text (`第1章 风起` twice, as some exports write it) heads one
    chapter: the second copy stays the first line of its text."""
    kept: list[tuple[int, Heading]] = []
    for i, heading in heads:
        if kept and heading.kind != "volume" and kept[-1][1].text == heading.text and kept[-1][0] < i \
                and not _text(lines[kept[-1][0] + 1:i]):
            continue
        kept.append((i, heading))
    return kept


def _folder_volume(f: SourceFile) -> _Piece:
    heading = parse_heading(f.volume)
    if heading is None or heading.kind != "volume":
        heading = Heading(kind="volume", number=None, unit="卷", title=f.volume, label="", text=f.volume)
    return _Piece("volume", heading, f.name, 0, [], f.volume)


def _file_chapter(f: SourceFile, lines: list[str]) -> _Piece:
    """A whole file as one chapter: its first line is the heading when it is one, else its name is."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None:
        heading = parse_heading(lines[first])
        if heading is not None and heading.kind != "volume":
            return _Piece("chapter", heading, f.name, first + 1, lines[first + 1:], f.volume)
    stem = f.name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    named = parse_heading(stem)
    if named is None or named.kind == "volume":
        digits = _DIGITS.findall(stem)
        number = parse_number(digits[0]) if digits else None
        title = "" if _NUMBER_ONLY.match(stem) else stem
        named = Heading(kind="chapter", number=number, unit="", title=title, label="", text="")
    else:
        named = Heading(kind=named.kind, number=named.number, unit=named.unit, title=named.title,
                        label=named.label, text="")  # the name is no line of the text
    return _Piece("chapter", named, f.name, (first or 0) + 1, lines, f.volume)


def _table_of_contents(found: _Found) -> None:
    """A run of `TOC_RUN` or more chapter headings without text at the start (volume headings among them), some
    of which come again later, is a table of contents: it joins the front matter."""
    run = 0
    for piece in found.pieces:
        if _text(piece.body):
            break
        run += 1
    while run and found.pieces[run - 1].kind == "volume":
        run -= 1  # volume headings just before the first chapter with text open that chapter's volume
    toc = found.pieces[:run]
    if sum(1 for p in toc if p.kind == "chapter") < TOC_RUN:
        return
    later = {_toc_key(p.heading) for p in found.pieces[run:] if p.heading is not None}
    if not any(p.heading is not None and _toc_key(p.heading) in later for p in toc):
        return
    found.front.append("\n".join(p.heading.text for p in toc if p.heading is not None))
    del found.pieces[:run]


# --- fallbacks -----------------------------------------------------------------------------------------------

def _all_lines(source: SourceText) -> list[tuple[str, int, str]]:
    """(file, 1-based line, text) of every line of the source, in order."""
    return [(f.name, n, line) for f in source.files for n, line in enumerate(f.text.split("\n"), start=1)]


def _plain(file: str, line: int, body: list[str]) -> _Piece:
    return _Piece("chapter", None, file, line, body)


def _by_size(lines: list[tuple[str, int, str]], target: int) -> _Found:
    found = _Found()
    body: list[str] = []
    size = 0
    start: tuple[str, int] | None = None
    for file, n, line in lines:
        count = word_count(line) if line.strip() else 0
        if count and body and size >= target * 0.5 and abs(size + count - target) > abs(size - target):
            assert start is not None
            found.pieces.append(_plain(start[0], start[1], body))
            body, size, start = [], 0, None
        if start is None and not line.strip():
            continue  # blank lines between two pieces belong to neither
        if start is None:
            start = (file, n)
        body.append(line)
        size += count
    if body and start is not None:
        if found.pieces and size < target / 3:
            found.pieces[-1].body.extend(body)
        else:
            found.pieces.append(_plain(start[0], start[1], body))
    return found


def _by_blank(lines: list[tuple[str, int, str]]) -> _Found:
    runs: list[int] = []
    gap = 0
    seen_text = False
    for _file, _n, line in lines:
        if line.strip():
            if seen_text:
                runs.append(gap)  # 0 too: paragraphs without blank lines between them
            gap, seen_text = 0, True
        else:
            gap += 1
    found = _Found()
    if not runs:
        return found
    usual = max(set(runs), key=runs.count)
    cut_at = usual + 1 if any(r > usual for r in runs) else None
    body: list[str] = []
    start: tuple[str, int] | None = None
    gap = 0
    for file, n, line in lines:
        if not line.strip():
            gap += 1
            if start is not None:
                body.append(line)
            continue
        if start is not None and cut_at is not None and gap >= cut_at:
            found.pieces.append(_plain(start[0], start[1], body))
            body, start = [], None
        if start is None:
            start = (file, n)
        body.append(line)
        gap = 0
    if start is not None:
        found.pieces.append(_plain(start[0], start[1], body))
    return found


def _plausible_blank(found: _Found) -> bool:
    counts = [word_count("\n".join(p.body)) for p in found.pieces]
    return len(counts) >= 2 and min(counts) >= SHORT_ABS


# --- assembly ------------------------------------------------------------------------------------------------

def _text(lines: Sequence[str]) -> str:
    """`lines` joined, blank lines at both ends left out ("" when all blank)."""
    first = 0
    last = len(lines)
    while first < last and not lines[first].strip():
        first += 1
    while last > first and not lines[last - 1].strip():
        last -= 1
    return "\n".join(lines[first:last])


def _assemble(source: SourceText, found: _Found, mode: SplitMode) -> Manuscript:
    chapters: list[ManuscriptChapter] = []
    volumes: list[ManuscriptVolume] = []
    pending: list[str] = []  # headings and intros of volumes that have no chapter yet
    open_volume: _Piece | None = None
    for piece in found.pieces:
        if piece.kind == "volume":
            if open_volume is not None:  # the volume before had no chapter: its lines open this one
                pending.extend(x for x in (_head_text(open_volume), _text(open_volume.body)) if x)
            open_volume = piece
            continue
        if open_volume is not None:
            if not volumes and any(c.kind == "chapter" for c in chapters):
                # chapters before the first volume heading: a volume of their own (a prologue alone opens the
                # first volume instead, below)
                volumes.append(ManuscriptVolume(number=1, first=1, last=max(1, len(chapters))))
            volumes.append(_volume(open_volume, len(volumes) + 1, len(chapters) + 1, pending))
            pending = []
            open_volume = None
        chapters.append(_chapter(piece, len(chapters) + 1, max(1, len(volumes))))
    if open_volume is not None:  # a volume heading after the last chapter: kept at the end of that chapter
        pending.extend(x for x in (_head_text(open_volume), _text(open_volume.body)) if x)
    if pending and chapters:
        last = chapters[-1]
        last.text = "\n\n".join([last.text, *pending]).strip("\n")
        last.words = word_count(last.text)
    for k, volume in enumerate(volumes):
        volume.last = volumes[k + 1].first - 1 if k + 1 < len(volumes) else len(chapters)
    if not volumes and chapters:
        volumes = [ManuscriptVolume(number=1, first=1, last=len(chapters))]
    elif volumes and volumes[0].first > 1:
        volumes[0].first = 1  # chapters before the first volume heading (a prologue) open the first volume
    manuscript = Manuscript(source=source.path, encoding=source.encoding, mode=mode, chapters=chapters,
                            volumes=volumes, issues=list(found.issues), front_matter="\n\n".join(found.front))
    if manuscript.front_matter:
        manuscript.issues.append(SplitIssue(kind="front_matter", position=None,
                                            words=word_count(manuscript.front_matter),
                                            detail=_first_line(manuscript.front_matter)))
    return manuscript


def _head_text(piece: _Piece) -> str:
    return piece.heading.text if piece.heading is not None else ""


def _volume(piece: _Piece, number: int, first: int, pending: list[str]) -> ManuscriptVolume:
    heading = piece.heading
    intro = "\n\n".join([*pending, _text(piece.body)]).strip("\n")
    return ManuscriptVolume(number=number, title=heading.title if heading else "",
                            heading=heading.text if heading else "", first=first, last=first,
                            source_number=heading.number if heading else None, intro=intro)


def _chapter(piece: _Piece, position: int, volume: int) -> ManuscriptChapter:
    heading = piece.heading
    text = _text(piece.body)
    return ManuscriptChapter(
        position=position, volume=volume, text=text, words=word_count(text), source_file=piece.file,
        line=piece.line,
        kind=heading.kind if heading is not None and heading.kind in ("prologue", "extra") else "chapter",
        source_number=heading.number if heading is not None and heading.kind == "chapter" else None,
        heading=heading.text if heading is not None else "", title=heading.title if heading is not None else "",
        label=heading.label if heading is not None else "")


def _first_line(text: str, limit: int = 30) -> str:
    line = next((x.strip() for x in text.split("\n") if x.strip()), "")
    return line if len(line) <= limit else line[:limit] + "…"


# --- issues --------------------------------------------------------------------------------------------------

def _length_issues(chapters: Sequence[ManuscriptChapter]) -> list[SplitIssue]:
    regular = [c.words for c in chapters if c.kind == "chapter"]
    mid = median(regular) if len(regular) >= 3 else 0.0
    issues: list[SplitIssue] = []
    for c in chapters:
        relative = c.kind == "chapter" and mid > 0
        if c.words < SHORT_ABS and (c.kind == "chapter" or c.words == 0) \
                or relative and c.words < mid * SHORT_SHARE:
            issues.append(_at(c, "short"))
        elif c.words > LONG_ABS or relative and c.words > mid * LONG_TIMES and c.words > LONG_MIN:
            issues.append(_at(c, "long"))
    return issues


def _at(c: ManuscriptChapter, kind: IssueKind) -> SplitIssue:
    return SplitIssue(kind=kind, position=c.position, source_number=c.source_number, words=c.words,
                      line=c.line, file=c.source_file)


def _numbering_issues(chapters: Sequence[ManuscriptChapter], volume_starts: set[int]) -> list[SplitIssue]:
    issues: list[SplitIssue] = []
    numbered = [c for c in chapters if c.kind == "chapter" and c.source_number is not None]
    sequences: list[list[ManuscriptChapter]] = []
    for k, c in enumerate(numbered):
        restart = k > 0 and c.source_number == 1 and (c.position in volume_starts or _starts_volume(numbered, k))
        if not sequences or restart:
            sequences.append([])
        sequences[-1].append(c)
    for sequence in sequences:
        numbers = {c.source_number for c in sequence}
        seen: set[int] = set()
        high = 0
        for c in sequence:
            n = c.source_number
            assert n is not None
            if n in seen and not _part_of(c, sequence):
                issues.append(_at(c, "repeat"))
            elif seen and n < high:
                issues.append(_at(c, "out_of_order"))
            elif seen and n > high + 1:
                missing = [k for k in range(high + 1, n) if k not in numbers]
                if missing:
                    issue = _at(c, "gap")
                    issue.numbers = missing
                    issues.append(issue)
            seen.add(n)
            high = max(high, n)
    return issues


def _part_of(c: ManuscriptChapter, sequence: Sequence[ManuscriptChapter]) -> bool:
    """`第十章 风起（下）` after `第十章 风起（上）`: one chapter in parts, not a repeated number."""
    if not _PART.search(c.title):
        return False
    same = [o for o in sequence if o.source_number == c.source_number and o.position < c.position]
    return all(o.title != c.title and _PART.search(o.title) for o in same)


def _starts_volume(numbered: Sequence[ManuscriptChapter], k: int) -> bool:
    return numbered[k].volume != numbered[k - 1].volume


def _mixed_issues(source: SourceText, manuscript: Manuscript) -> None:
    for f in source.files:
        if f.mixed is None or not f.mixed.lines:
            continue
        first = f.mixed.lines[0]
        position = None
        for c in manuscript.chapters:
            if c.source_file == f.name and c.line <= first:
                position = c.position
        manuscript.issues.append(SplitIssue(kind="encoding", position=position, file=f.name,
                                            numbers=list(f.mixed.lines), detail=f.mixed.encoding))
