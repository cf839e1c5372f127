"""Chinese typesetting of a chapter for a terminal pane: the heading taken out, lines broken by CJK rules.

Pure functions, no Textual; widths are terminal cells (`rich.cells.cell_len`), as the pane draws them.

Rules (the usual 禁则 of Chinese typesetting, by moving characters, never by squeezing):
- no closing punctuation (`LINE_START_FORBIDDEN`: 。，、；：？！…”」』）》 and their half-width kin) at the start of
  a line: the last unit of the line before goes down with it (repeated while the new start is still forbidden,
  so 。” moves as a pair);
- no opening punctuation (`LINE_END_FORBIDDEN`: “「『（《 …) at the end of a line: it goes down to the text it opens;
- `……` and `——` are never split between lines, a run of Latin letters or digits is one unit (split by cell only
  when longer than the line);
- a paragraph's indent (full-width 　 or spaces) is glued to the first character after it, so it never stands
  alone on a line.
A line never gets wider than the width. Lines are only cut, never changed: the text of a paragraph's display
lines joined is the paragraph (so a position in the file maps to a display row and column, `Layout.locate`).

The heading: the chapter pane shows `第N章 标题` on its own title line, so a first line `# 第N章 标题` (any
Markdown heading) and the blank lines after it are left out of the body (`split_heading`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from itertools import accumulate

from rich.cells import cell_len

LINE_START_FORBIDDEN = frozenset("。，、；：？！…‥—～·．”’」』）》〉】〗〕］｝,.;:?!)]}%")
"""Characters that must not begin a line (closing punctuation and marks that follow what they close)."""
LINE_END_FORBIDDEN = frozenset("“‘「『（《〈【〖〔［｛([{")
"""Characters that must not end a line (opening punctuation)."""
PAIRS = ("……", "——")
"""Two-character marks that are never split."""
INDENT_CHARS = frozenset("　 ")

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_UNIT = re.compile("|".join(re.escape(pair) for pair in PAIRS) + r"|[A-Za-z0-9]+|.", re.DOTALL)
"""A unit: a pair mark, a Latin run or any one character, tried in that order."""
_CELLS: dict[str, int] = {}


@dataclass(frozen=True)
class Layout:
    """A typeset body: `lines` to show, and where each came from (`origins[i]` = (source line, column))."""

    lines: list[str]
    origins: list[tuple[int, int]]
    width: int
    skipped: int = 0
    """Source lines left out in front of the body (the heading and the blank lines after it)."""

    def locate(self, line: int, column: int = 0) -> tuple[int, int]:
        """The display (row, column) of a position in the source text (0-based line of the whole file, column
        in characters). A position in the left-out heading maps to the first row."""
        if not self.lines:
            return (0, 0)
        if line < self.skipped:
            return (0, 0)
        keys = self.origins
        key = (line - self.skipped, column)
        row = max(0, bisect.bisect_right(keys, key) - 1)
        src_line, start = keys[row]
        if src_line != key[0]:
            return (row, 0)
        return (row, column - start)


def split_heading(text: str) -> tuple[str | None, str, int]:
    """(heading line or None, body, how many source lines were left out in front of the body)."""
    lines = text.split("\n")
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first >= len(lines) or not _HEADING.match(lines[first]):
        return None, text, 0
    skip = first + 1
    while skip < len(lines) and not lines[skip].strip():
        skip += 1
    return lines[first].strip(), "\n".join(lines[skip:]), skip


def _units(paragraph: str) -> list[str]:
    """The unbreakable units of a paragraph: characters, `……`/`——` pairs, Latin runs, the indent glued to the
    first unit after it (one regex scan: a Python loop per character cost most of a chapter's typesetting)."""
    units: list[str] = _UNIT.findall(paragraph)
    indent = 0
    while indent < len(units) and units[indent] in INDENT_CHARS:
        indent += 1
    if 0 < indent < len(units):
        units[: indent + 1] = ["".join(units[: indent + 1])]
    return units


def _cells(unit: str) -> int:
    """`cell_len` of a unit, remembered for single characters and pairs (a bounded set: the text's alphabet)."""
    width = _CELLS.get(unit)
    if width is None:
        width = cell_len(unit)
        if len(unit) <= 2:
            _CELLS[unit] = width
    return width


def _split_long(unit: str, width: int) -> list[str]:
    """A unit wider than a line, cut by cells."""
    out: list[str] = []
    piece = ""
    for ch in unit:
        if piece and cell_len(piece + ch) > width:
            out.append(piece)
            piece = ""
        piece += ch
    if piece:
        out.append(piece)
    return out


def _starts_forbidden(unit: str) -> bool:
    return unit[:1] in LINE_START_FORBIDDEN


def _ends_forbidden(unit: str) -> bool:
    return unit[-1:] in LINE_END_FORBIDDEN


def wrap_paragraph(paragraph: str, width: int) -> list[str]:
    """One source line broken into display lines of at most `width` cells by the rules above.
    An empty paragraph is one empty line; a width below 2 leaves the paragraph whole."""
    if not paragraph or width < 2 or cell_len(paragraph) <= width:
        return [paragraph]
    units: list[str] = []
    widths: list[int] = []
    for unit in _units(paragraph):
        cells = _cells(unit)
        if cells > width:
            for piece in _split_long(unit, width):
                units.append(piece)
                widths.append(cell_len(piece))
        else:
            units.append(unit)
            widths.append(cells)
    # ends[i]: the cells of units[:i]; a line from `start` takes the most units whose cells fit (bisect, not a
    # loop per unit)
    ends = [0, *accumulate(widths)]
    lines: list[str] = []
    start = 0
    count = len(units)
    while start < count:
        end = min(count, bisect.bisect_right(ends, ends[start] + width) - 1)
        if end < count:
            # Kinsoku: move units down while the next line would start with closing punctuation or this one
            # would end with opening punctuation; a line keeps at least one unit.
            while end - start > 1 and (_starts_forbidden(units[end]) or _ends_forbidden(units[end - 1])):
                end -= 1
        lines.append("".join(units[start:end]))
        start = end
    return lines


def typeset(text: str, width: int, *, drop_heading: bool = True) -> Layout:
    """The chapter body (heading left out when `drop_heading`) in display lines of at most `width` cells."""
    skipped = 0
    body = text
    if drop_heading:
        _, body, skipped = split_heading(text)
    lines: list[str] = []
    origins: list[tuple[int, int]] = []
    for index, paragraph in enumerate(body.split("\n")):
        column = 0
        for piece in wrap_paragraph(paragraph, width):
            lines.append(piece)
            origins.append((index, column))
            column += len(piece)
    return Layout(lines=lines, origins=origins, width=width, skipped=skipped)


def extend_layout(old: Layout, text: str) -> tuple[Layout, int] | None:
    """The layout of `text` at `old`'s width, where `text` begins with the text `old` was typeset from (a draft
    that grew), and the first row that may differ from `old`'s: only `old`'s last paragraph and what follows
    are typeset again (a paragraph's lines depend on that paragraph alone). None when the text before the body
    is not settled (no body yet, or a different heading left out): typeset the whole text then."""
    _, body, skipped = split_heading(text)
    if not old.origins or not body.strip() or skipped != old.skipped:
        return None
    last = old.origins[-1][0]
    first_row = len(old.origins) - 1
    while first_row > 0 and old.origins[first_row - 1][0] == last:
        first_row -= 1
    lines = old.lines[:first_row]
    origins = old.origins[:first_row]
    for index, paragraph in enumerate(body.split("\n")[last:], start=last):
        column = 0
        for piece in wrap_paragraph(paragraph, old.width):
            lines.append(piece)
            origins.append((index, column))
            column += len(piece)
    return Layout(lines=lines, origins=origins, width=old.width, skipped=skipped), first_row


__all__ = [
    "LINE_END_FORBIDDEN",
    "LINE_START_FORBIDDEN",
    "Layout",
    "PAIRS",
    "extend_layout",
    "split_heading",
    "typeset",
    "wrap_paragraph",
]
