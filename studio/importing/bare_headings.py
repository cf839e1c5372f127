"""Bare-number chapter headings (`001 标题`, `1. 标题`, `001` alone on a line), as many web-novel exports write
them, told from numbers that merely stand on a line of prose.

A bare number is no heading by itself: `parse_bare_number` only makes a *candidate*, and `bare_chapter_lines`
keeps the candidates that make a sequence over the book. Rules:

- A candidate (`headings.parse_bare_number`) is a short line that is only a number of at most 4 Arabic digits (ASCII or full-width,
  leading zeros allowed), after the same lead as other headings (`#` marks, an opening bracket), either alone or
  followed by a separator (space, full-width space, `.`, `．`, `、`, `:`, `：`, `-`, `—`, `_`, `·`) or a closing
  bracket and a title. The title is at most `headings.MAX_BARE_TITLE` characters, holds no clause punctuation and
  does not start with a digit (`1.5公里`, `10:30`, `2024-01-05` are not headings; `1984年` has no separator).
- Candidates are grouped by **style**: the separator kind (none, space, `.`, `、`, `:`, dash) and whether a
  title follows. A numbered list inside a chapter (`1. 买菜`) and the book's headings (`001 风起`) are then
  different styles and never mix in one sequence.
- Within a style, a **sequence** is a chain of candidates in reading order whose numbers go up by 1 (a step of
  up to `MAX_STEP` is allowed: missing chapters are the split's `gap` issue, not a reason to drop the rest) and
  between two of which stand at least `MIN_LINK_CHARS` characters of text (each line stripped at its ends: a
  cheap stand-in for 字, close enough for telling a chapter from a list item): items of a list, or a table of contents,
  cannot follow each other. The longest chain is kept; among equally long chains the later links win (a
  table of contents before the text gives way to the headings that open the chapters).
- Headings written with leading zeros keep their width: `003` and `3` do not follow each other (`099` and
  `100` do).
- Numbering may start again at 1 in a new segment (a new file, or after a volume heading); within a segment it
  may not. A sequence runs over the whole book; the style with the longest one wins.
- The chains are accepted when they hold at least `MIN_RUN` headings together. Otherwise there are no bare
  headings, and the split falls back as it did (blank lines or size).

Only a manuscript without any numbered chapter heading of another form (`第N章`, `Chapter N`) looks for bare
numbers (`studio.importing.split`): where the book has real headings, bare numbers are body text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studio.importing.headings import BARE_UNIT, Heading, bare_digits, bare_style, parse_bare_number

__all__ = ["BARE_UNIT", "MIN_LINK_CHARS", "MIN_RUN", "bare_chapter_lines", "bare_style", "parse_bare_number"]

MAX_STEP = 3
MIN_LINK_CHARS = 200
MIN_RUN = 3

@dataclass(frozen=True)
class Candidate:
    """A bare-number line and where it stands (`segment` changes at each file and volume heading)."""

    key: tuple[int, int]  # (file index, 0-based line), the caller's position
    segment: int
    offset: int  # characters of text before it in the whole book (for the length of a link)
    heading: Heading
    digits: int  # how many digits it is written with
    padded: bool  # written with leading zeros (`001`)


def _links(a: Candidate, b: Candidate) -> bool:
    """Whether `b` may follow `a` in a sequence (see the module rules)."""
    n, m = b.heading.number, a.heading.number
    if n is None or m is None or b.offset - a.offset < MIN_LINK_CHARS:
        return False
    if (a.padded or b.padded) and a.digits != b.digits:
        return False  # `003` and `3` are not written alike
    return 1 <= n - m <= MAX_STEP or (n == 1 and b.segment != a.segment)


def _chain(cands: Sequence[Candidate]) -> list[Candidate]:
    """The longest sequence among the candidates of one style, in reading order; ties: the later links."""
    if not cands:
        return []
    length: list[int] = []
    before: list[int | None] = []
    by_number: dict[int, list[int]] = {}  # number -> indexes of the candidates written with it, in order
    for i, cand in enumerate(cands):
        n = cand.heading.number
        best, best_j = 1, None
        if n is not None:
            # Only numbers a link can come from (a restart at 1 may follow any number): not every pair.
            near = range(i) if n == 1 else sorted(j for m in range(n - MAX_STEP, n) for j in by_number.get(m, ()))
            for j in near:
                if length[j] + 1 >= best and _links(cands[j], cand):
                    best, best_j = length[j] + 1, j
            by_number.setdefault(n, []).append(i)
        length.append(best)
        before.append(best_j)
    at: int | None = max(range(len(cands)), key=lambda k: (length[k], k))
    out: list[Candidate] = []
    while at is not None:
        out.append(cands[at])
        at = before[at]
    return out[::-1]


def bare_chapter_lines(
    files: Sequence[Sequence[str]],
    volume_lines: Sequence[set[int]],
) -> dict[tuple[int, int], Heading]:
    """The bare-number headings of a manuscript: (file index, 0-based line) -> heading; empty when the book's
    bare numbers make no sequence. `files` are the files' lines, `volume_lines` each file's volume-heading lines."""
    by_style: dict[tuple[str, bool], list[Candidate]] = {}
    segment = 0
    offset = 0
    for f, lines in enumerate(files):
        segment += 1
        for i, line in enumerate(lines):
            if i in volume_lines[f]:
                segment += 1
                continue
            heading = parse_bare_number(line) if line and len(line) <= 80 else None
            if heading is not None:
                digits = bare_digits(heading)
                cand = Candidate((f, i), segment, offset, heading, len(digits), digits.startswith(("0", "０")))
                by_style.setdefault(bare_style(heading), []).append(cand)
            else:
                offset += len(line.strip())
    best: list[Candidate] = []
    for cands in by_style.values():
        chain = _chain(cands)
        if len(chain) > len(best):
            best = chain
    if len(best) < MIN_RUN:
        return {}
    return {c.key: c.heading for c in best}
