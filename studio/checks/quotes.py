"""Quote lookup: is a passage someone quotes (the judge's evidence) really in the chapter, and where?

Rules:

- both sides are normalised: whitespace, punctuation and symbols (Unicode categories Z*, P*, S*) are ignored,
  full-width letters and digits fold to ASCII (NFKC), so “他说：好。” matches 他说好;
- a quote with an ellipsis (…, ……, ...) is several pieces that must appear in order (the judge abridged it);
- a quote found exactly gives `QuoteMatch(exact=True)`; otherwise, for quotes of at least `FUZZY_MIN_CHARS`
  normalised characters, the best approximate alignment (rapidfuzz) of score >= `FUZZY_SCORE` is accepted with
  `exact=False` (one or two characters misquoted); nothing else is found (`None`);
- the match points at chapter-text positions, so `Paragraphs.locate` gives paragraph and offset.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from itertools import compress

from rapidfuzz import fuzz

from studio.checks.paragraphs import Paragraphs

FUZZY_MIN_CHARS = 8
FUZZY_SCORE = 90.0
_ELLIPSIS = re.compile(r"…+|\.{3,}|。{3,}")


def _keep(ch: str) -> bool:
    return unicodedata.category(ch)[0] not in "ZPSC"


_FOLDED: dict[str, str] = {}  # character -> what it normalises to ("" when dropped); a few thousand at most


def _fold(ch: str) -> str:
    if not _keep(ch):
        return ""
    return "".join(c for c in unicodedata.normalize("NFKC", ch).lower() if _keep(c))


def normalise(text: str) -> tuple[str, list[int]]:
    """The text without whitespace/punctuation/symbols (NFKC-folded), and each kept character's position.
    Each distinct character is folded once per process (a chapter has a few thousand characters but only
    hundreds of distinct ones)."""
    folded = _FOLDED
    distinct = set(text)
    for ch in distinct.difference(folded):
        folded[ch] = _fold(ch)
    mapped = list(map(folded.__getitem__, text))
    if all(len(folded[ch]) <= 1 for ch in distinct):  # the usual case: positions picked in C
        where = list(compress(range(len(text)), mapped))
    else:  # a character that folds to several (㈠ -> (一)): one position per output character
        where = [i for i, f in enumerate(mapped) for _ in f]
    return "".join(mapped), where


@dataclass(frozen=True)
class QuoteMatch:
    start: int  # chapter-text position of the first quoted character
    end: int  # just after the last one
    exact: bool
    score: float = 100.0


class QuoteIndex:
    """One chapter, normalised once, for looking up many quotes."""

    def __init__(self, text: str, paras: Paragraphs | None = None) -> None:
        self.text = text
        self.paras = paras or Paragraphs(text)
        body_parts = [(p.start, p.text) for p in self.paras]
        norm: list[str] = []
        where: list[int] = []
        for start, para_text in body_parts:
            n, w = normalise(para_text)
            norm.append(n)
            where.extend(start + i for i in w)
        self.norm = "".join(norm)
        self.where = where

    def find(self, quote: str) -> QuoteMatch | None:
        pieces = [normalise(p)[0] for p in _ELLIPSIS.split(quote)]
        pieces = [p for p in pieces if p]
        if not pieces:
            return None
        pos = 0
        first = last = -1
        for piece in pieces:
            at = self.norm.find(piece, pos)
            if at < 0:
                break
            if first < 0:
                first = at
            last = at + len(piece)
            pos = last
        else:
            return QuoteMatch(self.where[first], self.where[last - 1] + 1, True)
        whole = "".join(pieces)
        if len(whole) < FUZZY_MIN_CHARS or not self.norm:
            return None
        aligned = fuzz.partial_ratio_alignment(whole, self.norm, score_cutoff=FUZZY_SCORE)
        if aligned is None or aligned.dest_end <= aligned.dest_start:
            return None
        return QuoteMatch(
            self.where[aligned.dest_start],
            self.where[aligned.dest_end - 1] + 1,
            False,
            round(aligned.score, 1),
        )

    def locate(self, quote: str) -> tuple[int, int] | None:
        """(paragraph, offset) of the quote, or None when it is not in the chapter."""
        found = self.find(quote)
        return self.paras.locate(found.start) if found else None
