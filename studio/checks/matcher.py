"""The one dictionary matcher: exact phrases through Aho-Corasick, shapes through regular expressions.

It takes `Entry` values and knows no file format; `entries_from_blacklist` is the adapter for today's
`ai-blacklist.json` (`studio.models.blacklist.AiBlacklist`), and `studio.checks.names` feeds it the name registry.

Rules:

- an entry is a phrase (`kind="phrase"`, matched exactly) or a pattern (`kind="pattern"`, a Python regex);
  a phrase written with `…` or `...` in it (`一股…涌上心头`) is a shape: the ellipsis stands for up to
  `GAP` characters inside one sentence (no 。！？ or line break);
- overlapping matches count once, the longest wins (ties: the earlier one; then the entry listed first): a
  listed 仿佛 inside a listed 时间仿佛静止了 is one hit of the longer phrase;
- every entry carries a `tier` (`banned`: every use is a finding; `limited`: allowed up to `rate` per 千字) and a
  free `category` (表情, 心理, ..., `platform-sensitive`, `structural`, `name:character`, ...), plus an
  optional `ref` (what it stands for: a name's entity id, a blacklist entry's own word);
- a blacklist entry may also say where a hit counts (`narration_only`: not inside dialogue; `position`:
  `paragraph_start` / `sentence_start`); `placed` applies that, given the text's dialogue and paragraph spans.
  The matcher itself finds every hit; placement is the caller's second step because it needs those spans.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import ahocorasick

from studio.models.blacklist import (
    AiBlacklist,
    BlacklistPatternError,
    Position,
    Severity,
    compile_pattern,
    shape_regex,
)

Tier = Literal["banned", "limited"]
EntryKind = Literal["phrase", "pattern"]
TIERS: tuple[Tier, ...] = ("banned", "limited")
__all__ = ["TIERS", "Entry", "Match", "Matcher", "blacklist_matcher", "entries_from_blacklist", "placed", "spans_cover"]
_SENTENCE_END = "。！？!?…\n"
_OPENING_MARKS = " \u3000\t「『“‘\"'（(—"


@dataclass(frozen=True)
class Entry:
    text: str
    kind: EntryKind = "phrase"
    tier: Tier = "banned"
    category: str = ""
    ref: str = ""
    rate: float | None = None  # limited: uses per 千字 allowed
    severity: Severity | None = None  # of its findings; None: the check's default
    narration_only: bool = False
    position: Position | None = None
    zero_tolerance: bool = False

    @classmethod
    def parse(cls, text: str, *, tier: Tier = "banned", category: str = "", ref: str = "") -> Entry:
        """A phrase, or a shape when it contains a gap mark (`一股…涌上心头`, `他*了`)."""
        text = text.strip()
        regex = shape_regex(text)
        if regex is not None:
            return cls(regex, "pattern", tier, category, ref or text)
        return cls(text, "phrase", tier, category, ref or text)


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    entry: Entry

    @property
    def length(self) -> int:
        return self.end - self.start


class Matcher:
    """Find every listed phrase and shape in a text; overlaps resolved longest first."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries: list[Entry] = []
        self._automaton: ahocorasick.Automaton | None = None
        self._patterns: list[tuple[re.Pattern[str], Entry]] = []
        self.problems: list[str] = []
        phrases: dict[str, Entry] = {}
        for entry in entries:
            if not entry.text:
                continue
            if entry.kind == "pattern":
                try:
                    self._patterns.append((compile_pattern(entry.text), entry))
                except BlacklistPatternError as exc:
                    self.problems.append(f"{entry.ref or entry.text!r}: {exc}")
                    continue
            elif entry.text in phrases:
                continue  # listed twice: the first listing stands
            else:
                phrases[entry.text] = entry
            self.entries.append(entry)
        if phrases:
            automaton = ahocorasick.Automaton()
            for order, (text, entry) in enumerate(phrases.items()):
                automaton.add_word(text, (order, entry))
            automaton.make_automaton()
            self._automaton = automaton
        self._order = {id(e): i for i, e in enumerate(self.entries)}

    def __bool__(self) -> bool:
        return bool(self.entries)

    def all_matches(self, text: str) -> list[Match]:
        """Every occurrence of every entry, overlaps included."""
        out: list[Match] = []
        if self._automaton is not None and text:
            for end_index, (_order, entry) in self._automaton.iter(text):
                end = end_index + 1
                out.append(Match(end - len(entry.text), end, entry))
        for regex, entry in self._patterns:
            out.extend(Match(m.start(), m.end(), entry) for m in regex.finditer(text) if m.end() > m.start())
        return out

    def find(self, text: str) -> list[Match]:
        """Non-overlapping matches in text order; of overlapping ones the longest wins."""
        candidates = self.all_matches(text)
        if len(candidates) < 2:
            return candidates
        candidates.sort(key=lambda m: (-m.length, m.start, self._order.get(id(m.entry), 0)))
        starts: list[int] = []
        ends: list[int] = []
        kept: list[Match] = []
        for m in candidates:
            i = bisect.bisect_right(starts, m.start)
            if i > 0 and ends[i - 1] > m.start:
                continue  # overlaps the kept match starting before it
            if i < len(starts) and starts[i] < m.end:
                continue  # overlaps the kept match starting after it
            starts.insert(i, m.start)
            ends.insert(i, m.end)
            kept.insert(i, m)
        return kept

    def count(self, text: str) -> dict[str, int]:
        """Hits per entry (`ref`), overlaps resolved."""
        out: dict[str, int] = {}
        for m in self.find(text):
            out[m.entry.ref] = out.get(m.entry.ref, 0) + 1
        return out


def entries_from_blacklist(blacklist: AiBlacklist) -> list[Entry]:
    """The blacklist's enforced entries (`AiBlacklist.enforced`: whitelist removed, category flags resolved, semantic
    categories left to the prompts) as matcher entries; `ref` is the entry's word as listed."""
    return [
        Entry(
            e.regex if e.regex is not None else e.word,
            "pattern" if e.regex is not None else "phrase",
            e.tier,
            e.category,
            e.word,
            rate=e.rate,
            severity=e.severity,
            narration_only=e.narration_only,
            position=e.position,
            zero_tolerance=e.zero_tolerance,
        )
        for e in blacklist.enforced()
    ]


def blacklist_matcher(blacklist: AiBlacklist) -> Matcher:
    return Matcher(entries_from_blacklist(blacklist))


def placed(
    match: Match,
    text: str,
    dialogue: Sequence[tuple[int, int]],
    paragraphs: Sequence[tuple[int, int]],
) -> bool:
    """Whether a hit counts where it stands: not in `dialogue` for a narration-only entry, at the start of its
    paragraph (quotes and spaces before it allowed) or of its sentence for a positioned one."""
    entry = match.entry
    if entry.narration_only and spans_cover(dialogue, match.start):
        return False
    if entry.position is None:
        return True
    i = bisect.bisect_right(paragraphs, (match.start, 10**12)) - 1
    start = paragraphs[i][0] if i >= 0 and paragraphs[i][0] <= match.start < paragraphs[i][1] else 0
    before = text[start : match.start]
    if entry.position == "sentence_start":
        cut = max(before.rfind(c) for c in _SENTENCE_END)
        before = before[cut + 1 :]
    return before.strip(_OPENING_MARKS) == ""


def spans_cover(spans: Sequence[tuple[int, int]], pos: int) -> bool:
    """Whether `pos` lies in one of the sorted, non-overlapping `spans`."""
    i = bisect.bisect_right(spans, (pos, 10**12)) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]
