"""`/` in the studio: find text in the novel's chapters and summaries.

Rules (kept simple on purpose):

- The query is split on whitespace into terms. A hit is one line of a file (in chapter and summary files a
  line is a paragraph) that contains *every* term. One term -> a plain substring search. Chinese needs no
  spaces; `林枫 剑` finds paragraphs mentioning both.
- Matching is exact for Chinese and case-insensitive for Latin letters (`lin` finds `Lin`).
- Each hit names the chapter, the source (`chapter` text or its `summary`), the 1-based line number in that
  file, and a snippet of about 30 characters either side of the first match, with the offsets of every match
  inside the snippet (`spans`, Python string offsets, so CJK-safe) for highlighting. A cut end is marked `…`.
- Hits come in chapter order, the chapter text before its summary, then by line; at most `limit`.

No index: every file is read directly. A term missing from a whole file skips it with one `in` test, so
a 500-chapter novel (~1.5M characters) is searched in tens of milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from studio.paths import numbered_files

if TYPE_CHECKING:
    from studio.project import Project

Source = Literal["chapter", "summary"]

CONTEXT = 30
ELLIPSIS = "…"

_CHAPTER_NAME = re.compile(r"^(chapter-\d{3,})\.md$")
_SUMMARY_NAME = re.compile(r"^(chapter-\d{3,})-summary\.md$")
_INDENT = " \t\u3000"


@dataclass(frozen=True)
class SearchHit:
    """One paragraph that matched. Plain data."""

    chapter: int
    source: Source
    line: int  # 1-based line number in the file
    snippet: str
    spans: tuple[tuple[int, int], ...] = field(default_factory=tuple)  # (start, end) offsets in `snippet`
    path: Path | None = None


def _fold(text: str) -> str:
    """Lower-case Latin letters without changing the string's length (offsets stay valid)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)


def parse_query(query: str) -> list[str]:
    """The search terms of `query` (folded, duplicates removed, longest first)."""
    terms: list[str] = []
    for term in _fold(query).split():
        if term not in terms:
            terms.append(term)
    return sorted(terms, key=len, reverse=True)


def _read(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


def _occurrences(folded_line: str, terms: list[str]) -> list[tuple[int, int]]:
    """Every non-overlapping occurrence of any term, sorted (a longer term wins an overlap)."""
    spans: list[tuple[int, int]] = []
    for term in terms:  # longest first
        start = folded_line.find(term)
        while start != -1:
            end = start + len(term)
            if all(end <= s or start >= e for s, e in spans):
                spans.append((start, end))
            start = folded_line.find(term, end)
    spans.sort()
    return spans


def make_snippet(line: str, spans: list[tuple[int, int]], context: int = CONTEXT) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A window of `line` around the first span, and the spans that fall inside it, shifted."""
    first_start, first_end = spans[0]
    start = max(0, first_start - context)
    end = min(len(line), first_end + context)
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(line) else ""
    shift = len(prefix) - start
    inside = tuple((s + shift, e + shift) for s, e in spans if s >= start and e <= end)
    return prefix + line[start:end] + suffix, inside


def search_text(text: str, terms: list[str]) -> list[tuple[int, str, tuple[tuple[int, int], ...]]]:
    """(line number, snippet, spans) of every line of `text` holding all `terms` (already folded)."""
    if not terms:
        return []
    cased = any(term.upper() != term for term in terms)  # no letters with case: no folding needed
    folded = _fold(text) if cased else text
    if any(term not in folded for term in terms):
        return []
    out: list[tuple[int, str, tuple[tuple[int, int], ...]]] = []
    lines = text.split("\n")
    folded_lines = folded.split("\n")
    for index, folded_line in enumerate(folded_lines):
        if any(term not in folded_line for term in terms):
            continue
        line = lines[index].rstrip("\r")
        stripped = line.lstrip(_INDENT).rstrip()
        offset = len(line) - len(line.lstrip(_INDENT))
        folded_stripped = folded_line[offset : offset + len(stripped)]
        spans = _occurrences(folded_stripped, terms)
        if not spans:
            continue
        snippet, inside = make_snippet(stripped, spans)
        out.append((index + 1, snippet, inside))
    return out


def search_project(project: Project | Path | str, query: str, *, limit: int = 200) -> list[SearchHit]:
    """Search the committed chapters' text and their summaries of `project` (a Project, or its root folder).

    An empty query finds nothing. At most `limit` hits are returned (ask for limit + 1 to know if there
    were more).
    """
    root = Path(project) if isinstance(project, Path | str) else project.root
    terms = parse_query(query)
    if not terms or limit <= 0:
        return []
    chapters = numbered_files(root / "chapters", _CHAPTER_NAME, strict=False)
    summaries = numbered_files(root / "summaries", _SUMMARY_NAME, strict=False)
    hits: list[SearchHit] = []
    sources: tuple[tuple[Source, dict[int, Path]], ...] = (("chapter", chapters), ("summary", summaries))
    for n in sorted(set(chapters) | set(summaries)):
        for source, files in sources:
            path = files.get(n)
            if path is None:
                continue
            for line, snippet, spans in search_text(_read(path), terms):
                hits.append(SearchHit(n, source, line, snippet, spans, path))
                if len(hits) >= limit:
                    return hits
    return hits


__all__ = ["SearchHit", "make_snippet", "parse_query", "search_project", "search_text"]
