"""Candidate names of an imported book, for the author to confirm into the name registry (issue 10 item 3).

How (a whole book in well under two seconds; 3 million 字 of plain jieba would take about 8):

- discovery on a sample: whole chapters spread evenly over the book, at most `SAMPLE_CHARS` characters, are
  segmented with jieba (dictionary plus HMM, which finds words the dictionary lacks; no part-of-speech tags,
  ten times slower). A main name occurs in most chapters, so a sample of every k-th chapter finds it;
- a token, or two tokens jieba cut apart (a lone surname and a given name: 顾 + 长风; a place and its lone
  suffix: 青石 + 巷), is a person candidate when it is 2-3 Han characters opening with a common surname (compound
  surnames: 4), a place or faction candidate when it is 2-5 Han characters ending with a place or sect suffix
  (the tables of `studio.checks.newnames`); never a word jieba's dictionary knows as common, a stop word or a
  registered name;
- counting on the whole book: every candidate is counted in every chapter by one Aho-Corasick pass, the longest
  match winning (林远 inside a candidate 林远山 counts for 林远山), with the chapter of its first appearance;
- kept: at least `MIN_COUNT` occurrences; ranked by count, at most `MAX_CANDIDATES`.

Registering (`register_names`): the names the author confirms go into `world/names.json`
(`studio.models.names`), people with `kind: character`, places and factions with `kind: location`, each marked
`source: import`. People are not given character files here: a character file (`studio.tools.characters`)
is a contract of traits, relationships and state that only the full extraction can fill, and adding one is a
journaled change with a state line per character; an entry in the names file is what the checks need (the
name is known, its typos are caught, surname-aware) and the full depth may later turn it into a character file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import ahocorasick

from studio.checks import chinese
from studio.checks.names import NameRegistry
from studio.checks.newnames import COMMON_FREQ, COMPOUND_SURNAMES, PLACE_SUFFIXES, STOP_WORDS, SURNAMES
from studio.models.names import NamedEntity, NamesFile
from studio.paths import ProjectPaths

SAMPLE_CHARS = 150_000
MIN_COUNT = 3
MAX_CANDIDATES = 60
IMPORT_SOURCE = "import"

NameKind = Literal["person", "place"]
_HAN = re.compile(r"^[\u4e00-\u9fff]+$")


@dataclass(frozen=True)
class NameCandidate:
    name: str
    kind: NameKind
    count: int
    first_chapter: int

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "kind": self.kind, "count": self.count, "first_chapter": self.first_chapter}


def _kind(word: str) -> NameKind | None:
    if not _HAN.match(word) or word in STOP_WORDS:
        return None
    if word.startswith(COMPOUND_SURNAMES) and 3 <= len(word) <= 4:
        return "person"
    if word[0] in SURNAMES and 2 <= len(word) <= 3:
        return "person"
    if 2 <= len(word) <= 5 and word.endswith(PLACE_SUFFIXES):
        return "place"
    return None


def sample_chapters(chapters: Sequence[tuple[int, str]], budget: int = SAMPLE_CHARS) -> list[tuple[int, str]]:
    """Whole chapters spread evenly over the book, about `budget` characters in all (every chapter of a
    short book)."""
    total = sum(len(t) for _, t in chapters)
    if total <= budget:
        return list(chapters)
    step = total / budget
    picked: list[tuple[int, str]] = []
    acc = 0.0
    for item in chapters:
        acc += 1.0
        if acc >= step:
            acc -= step
            picked.append(item)
    return picked


def discover(texts: Sequence[str], registry: NameRegistry | None = None) -> dict[str, NameKind]:
    """Candidate names (and their kind) found by segmenting `texts`."""
    tokenizer = chinese._jieba()  # noqa: SLF001 - the shared, dictionary-loaded tokenizer (cache folder set)
    known = set(registry.names()) if registry is not None else set()
    found: dict[str, NameKind] = {}
    for text in texts:
        tokens = tokenizer.lcut(text, HMM=True)
        for i, word in enumerate(tokens):
            for cand in (word, _joined(tokens, i)):
                if cand is None or len(cand) < 2 or cand in found or cand in known:
                    continue
                kind = _kind(cand)
                if kind is not None and chinese.word_freq(cand) <= COMMON_FREQ:
                    found[cand] = kind
    return found


def _joined(tokens: Sequence[str], i: int) -> str | None:
    """A name jieba cut in two: a lone surname and a given name (顾 + 长风), a place and its lone suffix
    (青石 + 巷)."""
    if i + 1 >= len(tokens):
        return None
    word, nxt = tokens[i], tokens[i + 1]
    if len(word) == 1 and word in SURNAMES and 1 <= len(nxt) <= 2 and _HAN.match(nxt):
        return word + nxt
    if len(nxt) == 1 and nxt in PLACE_SUFFIXES and 2 <= len(word) <= 4 and _HAN.match(word):
        return word + nxt
    return None


def count_names(
    chapters: Sequence[tuple[int, str]], names: dict[str, NameKind]
) -> tuple[dict[str, int], dict[str, int]]:
    """(occurrences, first chapter) of each name over `chapters`, longest match winning an overlap."""
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    if not names:
        return counts, first
    automaton = ahocorasick.Automaton()
    for name in names:
        automaton.add_word(name, name)
    automaton.make_automaton()
    for number, text in chapters:
        for _end, name in automaton.iter_long(text):
            counts[name] = counts.get(name, 0) + 1
            if name not in first:
                first[name] = number
    return counts, first


def name_candidates(
    chapters: Sequence[tuple[int, str]],
    registry: NameRegistry | None = None,
    *,
    sample_chars: int = SAMPLE_CHARS,
    min_count: int = MIN_COUNT,
    limit: int = MAX_CANDIDATES,
) -> list[NameCandidate]:
    """The book's candidate names, most frequent first (see the module rules). `chapters`: (number, text)."""
    found = discover([t for _, t in sample_chapters(chapters, sample_chars)], registry)
    counts, first = count_names(chapters, found)
    ranked = sorted((n for n, c in counts.items() if c >= min_count), key=lambda n: (-counts[n], first[n], n))
    return [NameCandidate(n, found[n], counts[n], first[n]) for n in ranked[:limit]]


def register_names(paths: ProjectPaths, candidates: Sequence[NameCandidate]) -> list[str]:
    """Add the confirmed `candidates` to `world/names.json` (names already registered anywhere are skipped);
    returns the names added. The caller holds the project lock."""
    names = NamesFile.load_or_default(paths.names)
    listed = {n for e in names.entities for n in (e.name, *e.aliases)}
    added: list[str] = []
    for c in candidates:
        if c.name in listed:
            continue
        kind = "character" if c.kind == "person" else "location"
        names.entities.append(NamedEntity.model_validate({"name": c.name, "kind": kind, "source": IMPORT_SOURCE}))
        listed.add(c.name)
        added.append(c.name)
    if added:
        names.save(paths.names)
    return added
