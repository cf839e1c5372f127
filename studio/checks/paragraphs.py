"""The one paragraph numbering shared by every check, the judge and the studio.

Rules (consistent with `studio.wordcount`'s 字数 rule, which it reuses):

- a paragraph is one line of the chapter file that has body text, i.e. whose 字数 is not zero once Markdown
  markup is removed; web novels put one paragraph per line, so blank lines are separators, not paragraphs;
- title and heading lines (`# 第1章 ...`), horizontal rules, code fences and lines that are only an HTML comment
  (also a comment spanning several lines) have no body text and are not numbered;
- numbering is 1-based in file order;
- a paragraph's `start` is the character offset in the chapter text of its first non-whitespace character (the
  full-width indentation web-novel paragraphs start with is skipped), `end` the offset just after its last
  non-whitespace character; an *offset* inside a paragraph is 0-based from `start`.

`locate(pos)` maps a character position in the chapter text to (paragraph, offset); `position(paragraph,
offset)` maps back. Both are O(log n).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from studio.wordcount import word_count

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# A line of plain prose (no Markdown markup character at all, not a list item): body text for sure, so the
# 字数 rule need not run on it. Most lines of a web novel are like this.
_PLAIN = re.compile(r"(?![0-9])[^#*_`\[\]<>~=\\!|+\-\u200b\u200c\u200d\u2060\ufeff]*$")


@dataclass(frozen=True)
class Paragraph:
    number: int  # 1-based
    start: int  # offset in the chapter text of the first non-whitespace character
    end: int  # offset just after the last non-whitespace character
    text: str  # chapter_text[start:end]


class Paragraphs:
    """The numbered paragraphs of one chapter text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[Paragraph] = list(_split(text))
        self._starts = [p.start for p in self.items]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Paragraph]:
        return iter(self.items)

    def get(self, number: int) -> Paragraph | None:
        return self.items[number - 1] if 1 <= number <= len(self.items) else None

    def locate(self, pos: int) -> tuple[int, int] | None:
        """(paragraph number, offset in it) of chapter-text position `pos`; None outside every paragraph."""
        i = bisect.bisect_right(self._starts, pos) - 1
        if i < 0:
            return None
        para = self.items[i]
        if pos >= para.end:
            return None
        return para.number, pos - para.start

    def position(self, number: int, offset: int) -> int | None:
        """Chapter-text position of `offset` in paragraph `number`; None when out of range."""
        para = self.get(number)
        if para is None or not 0 <= offset < len(para.text):
            return None
        return para.start + offset


def paragraphs(text: str) -> Paragraphs:
    return Paragraphs(text)


def _comment_mask(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _HTML_COMMENT.finditer(text)]


def _split(text: str) -> Iterator[Paragraph]:
    comments = _comment_mask(text)
    number = 0
    pos = 0
    in_fence = False
    for line in text.splitlines(keepends=True):
        line_start = pos
        pos += len(line)
        body = line.rstrip("\r\n")
        stripped = body.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if not stripped:
            continue
        if not in_fence and not (not comments and _PLAIN.match(stripped)):
            # a line that may hold markup: ask the 字数 rule whether any body text is left
            if word_count(_without_comments(body, line_start, comments)) == 0:
                continue
        lead = len(body) - len(body.lstrip())
        start = line_start + lead
        end = line_start + len(body.rstrip())
        if end <= start:
            continue
        number += 1
        yield Paragraph(number, start, end, text[start:end])


def _without_comments(body: str, line_start: int, comments: list[tuple[int, int]]) -> str:
    if not comments:
        return body
    line_end = line_start + len(body)
    out = list(body)
    for c_start, c_end in comments:
        if c_end <= line_start or c_start >= line_end:
            continue
        for i in range(max(c_start, line_start), min(c_end, line_end)):
            out[i - line_start] = " "
    return "".join(out)
