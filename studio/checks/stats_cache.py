"""The name-statistics cache of the variant check: each chapter's `ChapterNameStats` and the book-wide sums, so
the check after a commit reads the new chapter and a small summary, not the whole book.

Rules:

- keys: a chapter's statistics are keyed by a hash of (`STATS_VERSION`, the registered names' hash, the chapter
  text); everything lives under novel-studio's user cache (never in the author's folder), one book per chapters
  folder (`_book_key`: a hash of its resolved path);
- on disk, per book: `book-<book key>.json`, the index (`_Book`): for each chapter file its signature (size,
  mtime_ns) and content key, the last `LOOSE_ENTRIES` keys of texts that were no file (a staged chapter), and the
  book's sums (`NameTotals`, with multiplicities so that one chapter's part can be taken out again) over a
  multiset of keys; and `book-<book key>/<content key>.json`, one chapter's statistics, read only when that
  chapter is checked or its part must be taken out of the sums;
- a check of chapters C with reference chapters R: every chapter's key comes from the index when its file
  signature is the recorded one (the file is not read), otherwise from its text; the sums are adjusted by the
  difference between their multiset and the keys of C + R (a new chapter: one addition; a rewritten one: one
  subtraction and one addition), rebuilt from every chapter's statistics when a part to take out is missing;
- in memory for the process: the statistics by key (`MEMORY_ENTRIES` at most), the index of each book, the
  variant indexes; `shared_cache(folder)` is the one cache of a folder, so a run's next commit reuses it;
- a broken, foreign or unwritable file only costs time: it is read as missing and rebuilt, and the results
  are the same with or without the cache;
- chapter files no index names any more are swept when more than twice as many files as chapters are kept.

Only `variants` (and the benches) use this module; it imports no Textual and no `pipeline`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from studio.checks import variants as _variants
from studio.checks.names import NameRegistry
from studio.checks.registry import ChapterText
from studio.checks.variants import STATS_VERSION, ChapterNameStats, Variant, VariantIndex, registry_hash
from studio.fileio import atomic_write_text

MEMORY_ENTRIES = 20_000
LOOSE_ENTRIES = 16
INDEX_CACHE = 8  # variant indexes kept per process (one per set of registered names)


def stats_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("novel-studio")) / "name-stats"


def _book_key(chapters: Path) -> str:
    return hashlib.sha256(str(chapters.resolve()).encode()).hexdigest()[:32]


def _text_key(names_hash: str, text: str) -> str:
    return hashlib.sha256(f"{STATS_VERSION}\0{names_hash}\0{text}".encode()).hexdigest()


def _int_counter(data: Any) -> Counter[str]:
    """Counts as written by `NameTotals.to_data`: positive integers (zero entries are never kept)."""
    if not isinstance(data, dict) or not all(type(v) is int and v > 0 for v in data.values()):  # noqa: E721
        raise ValueError("counts must be positive integers")
    return Counter({str(k): v for k, v in data.items()})


@dataclass
class NameTotals:
    """Book-wide sums of chapter statistics over the multiset `keys`: name counts, for each name how many
    chapters saw it between each pair of neighbours (`contexts`), and the variant hits, kept ones (`plain`) by
    variant and the others by variant and neighbours (`framed`), since whether those count depends on the
    contexts of the whole book."""

    keys: Counter[str] = field(default_factory=Counter)
    names: Counter[str] = field(default_factory=Counter)
    contexts: dict[str, Counter[str]] = field(default_factory=dict)
    plain: Counter[str] = field(default_factory=Counter)
    framed: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, key: str, stats: ChapterNameStats, sign: int = 1) -> None:
        """Count `stats` in (sign 1) or take it out (sign -1); zero entries are dropped."""
        _bump(self.keys, key, sign)
        for name, n in stats.names.items():
            _bump(self.names, name, sign * n)
        for name, seen in stats.contexts.items():
            counter = self.contexts.setdefault(name, Counter())
            for around in seen:
                _bump(counter, around, sign)
            if not counter:
                del self.contexts[name]
        for hit in stats.hits:
            if hit.plain:
                _bump(self.plain, hit.ref, sign)
            else:
                counter = self.framed.setdefault(hit.ref, Counter())
                _bump(counter, hit.around, sign)
                if not counter:
                    del self.framed[hit.ref]

    def context_sets(self) -> dict[str, set[str]]:
        return {name: set(counter) for name, counter in self.contexts.items()}

    def variant_counts(self, index: VariantIndex, contexts: dict[str, set[str]]) -> Counter[str]:
        """How often each variant is kept over the book (rule 2 of `variants`, with the book's contexts)."""
        counts = Counter(self.plain)
        for ref, by_around in self.framed.items():
            seen: set[str] = set()
            for v in index.variants.get(ref, ()):
                seen |= contexts.get(v.name, set())
            kept = sum(n for around, n in by_around.items() if around in seen)
            if kept:
                counts[ref] += kept
        return counts

    def to_data(self) -> dict[str, object]:
        return {
            "keys": dict(self.keys),
            "names": dict(self.names),
            "contexts": {n: dict(c) for n, c in self.contexts.items()},
            "plain": dict(self.plain),
            "framed": {r: dict(c) for r, c in self.framed.items()},
        }

    @classmethod
    def from_data(cls, data: Any) -> NameTotals:
        return cls(
            _int_counter(data["keys"]),
            _int_counter(data["names"]),
            {str(n): _int_counter(c) for n, c in data["contexts"].items()},
            _int_counter(data["plain"]),
            {str(r): _int_counter(c) for r, c in data["framed"].items()},
        )


def _bump(counter: Counter[str], key: str, by: int) -> None:
    value = counter[key] + by
    if value:
        counter[key] = value
    else:
        del counter[key]


def sum_stats(keyed: Sequence[tuple[str, ChapterNameStats]]) -> NameTotals:
    totals = NameTotals()
    for key, stats in keyed:
        totals.add(key, stats)
    return totals


@dataclass
class _Book:
    """The index of one chapters folder (see the module rules), for one set of registered names."""

    names_hash: str
    chapters: dict[str, list[object]] = field(default_factory=dict)  # file name -> [size, mtime_ns, key]
    loose: list[str] = field(default_factory=list)
    totals: NameTotals | None = None  # None: to be rebuilt
    stored: int = 0  # chapter statistics files written since the last sweep (and before)
    pending: dict[str, ChapterNameStats] = field(default_factory=dict)  # statistics files to write

    def to_json(self) -> str:
        data = {
            "version": STATS_VERSION,
            "names_hash": self.names_hash,
            "chapters": self.chapters,
            "loose": self.loose,
            "totals": self.totals.to_data() if self.totals is not None else None,
            "stored": self.stored,
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def read(cls, path: Path, names_hash: str) -> _Book:
        """The index at `path` when it is for these names; an empty one otherwise (or when unreadable)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != STATS_VERSION or data.get("names_hash") != names_hash:
                return cls(names_hash)
            chapters = {
                str(k): [int(v[0]), int(v[1]), str(v[2])]
                for k, v in data["chapters"].items()
                if isinstance(v, list) and len(v) == 3
            }
            loose = [str(k) for k in data.get("loose", [])][-LOOSE_ENTRIES:]
            stored = int(data.get("stored", 0))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return cls(names_hash)
        try:
            totals: NameTotals | None = NameTotals.from_data(data["totals"]) if data.get("totals") else None
        except (ValueError, TypeError, KeyError, AttributeError):
            totals = None
        return cls(names_hash, chapters, loose, totals, stored)

    def referenced(self) -> set[str]:
        return {str(entry[2]) for entry in self.chapters.values()} | set(self.loose)


class NameStatsCache:
    """Each chapter's `ChapterNameStats` by hash of (registered names, chapter text) and the book-wide sums (see
    the module rules): in memory, and on disk under `folder` when given. The variants of the registered names
    (pypinyin's homophones: the costly import) are cached too (`variants-<names hash>.json`), so a process whose
    chapters are all known never imports pypinyin, and one with a new chapter imports jieba only when that
    chapter holds a variant."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._memory: dict[str, ChapterNameStats] = {}
        self._books: dict[Path, _Book] = {}  # chapters folder -> its index
        self._dirty: set[Path] = set()
        self._indexes: dict[str, VariantIndex] = {}  # names hash -> index

    # ------------------------------------------------------------------------------------------- variants

    def index(self, registry: NameRegistry) -> VariantIndex:
        """The variant index of `registry`, its variants read from the disk cache when there."""
        names_hash = registry_hash(registry)
        found = self._indexes.get(names_hash)
        if found is not None:
            return found
        path = self.folder / f"variants-{names_hash[:32]}.json" if self.folder is not None else None
        table: dict[str, list[Variant]] | None = None
        if path is not None and path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("version") == STATS_VERSION and data.get("names_hash") == names_hash:
                    table = {
                        str(t): [Variant(str(t), str(n), str(h)) for n, h in vs] for t, vs in data["variants"].items()
                    }
            except (OSError, ValueError, TypeError, KeyError, AttributeError):
                table = None
        index = VariantIndex(registry, table)
        if table is None and path is not None:
            data = {
                "version": STATS_VERSION,
                "names_hash": names_hash,
                "variants": {t: [[v.name, v.how] for v in vs] for t, vs in index.variants.items()},
            }
            try:
                atomic_write_text(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")), durable=False)
            except OSError:
                pass
        if len(self._indexes) >= INDEX_CACHE:
            self._indexes.clear()
        self._indexes[names_hash] = index
        return index

    # ------------------------------------------------------------------------------------------- statistics

    def collect(
        self, index: VariantIndex, checked: Sequence[ChapterText], reference: Sequence[ChapterText]
    ) -> tuple[list[ChapterNameStats], NameTotals]:
        """The statistics of each `checked` chapter and the sums over `checked` + `reference` (the whole book),
        reading only the chapters the cache does not know."""
        every = [*checked, *reference]
        folder = next((c.folder for c in every if c.folder is not None), None)
        book = self._book(folder, index.names_hash) if folder is not None else None
        keys = [self._key(index, c, book, folder) for c in every]
        by_key = dict(zip(keys, every, strict=True))
        own = [self._stats(index, key, by_key[key], book, folder) for key in keys[: len(checked)]]
        if book is None:
            return own, sum_stats([(k, self._stats(index, k, by_key[k], None, None)) for k in keys])
        wanted = Counter(keys)
        totals = book.totals
        if totals is not None and totals.keys != wanted:
            totals = self._adjust(index, totals, wanted, by_key, book, folder)
        if totals is None:
            totals = sum_stats([(k, self._stats(index, k, by_key[k], book, folder)) for k in keys])
        if totals is not book.totals:
            book.totals = totals
            assert folder is not None
            self._dirty.add(folder)
        return own, totals

    def _adjust(
        self,
        index: VariantIndex,
        totals: NameTotals,
        wanted: Counter[str],
        by_key: dict[str, ChapterText],
        book: _Book,
        folder: Path | None,
    ) -> NameTotals | None:
        """`totals` moved to the multiset `wanted` (a copy), or None when a part to take out is not known."""
        gone = totals.keys - wanted
        new = wanted - totals.keys
        parts: list[tuple[str, ChapterNameStats, int]] = []
        for key, n in gone.items():
            stats = self._memory.get(key) or self._stored(book, folder, key)
            if stats is None:
                return None
            parts.append((key, stats, -n))
        for key, n in new.items():
            parts.append((key, self._stats(index, key, by_key[key], book, folder), n))
        out = NameTotals.from_data(totals.to_data())
        for key, stats, n in parts:
            for _ in range(abs(n)):
                out.add(key, stats, 1 if n > 0 else -1)
        return out

    def _key(self, index: VariantIndex, chapter: ChapterText, book: _Book | None, folder: Path | None) -> str:
        """The chapter's content key: from the index when its file signature is the recorded one (the file is
        not read), else from its text (and recorded)."""
        on_disk = chapter.folder is not None and chapter.name is not None and chapter.signature is not None
        if book is not None and on_disk and chapter.name is not None and chapter.signature is not None:
            entry = book.chapters.get(chapter.name)
            if entry is not None and entry[:2] == list(chapter.signature):
                return str(entry[2])
        key = _text_key(index.names_hash, chapter.text)
        if book is None or folder is None:
            return key
        if on_disk and chapter.name is not None and chapter.signature is not None:
            # an entry of another folder is never written here: a chapter of another book is counted, not indexed
            if chapter.folder == folder:
                book.chapters[chapter.name] = [*chapter.signature, key]
                self._dirty.add(folder)
        elif key not in book.loose:
            book.loose = [*book.loose, key][-LOOSE_ENTRIES:]
            self._dirty.add(folder)
        return key

    def _stats(
        self, index: VariantIndex, key: str, chapter: ChapterText, book: _Book | None, folder: Path | None
    ) -> ChapterNameStats:
        found = self._memory.get(key)
        if found is None and book is not None:
            found = self._stored(book, folder, key)
        if found is None:
            found = _variants.chapter_name_stats(index, chapter.text)
            if book is not None and folder is not None:
                book.pending[key] = found
                self._dirty.add(folder)
        self._remember(key, found)
        return found

    def _stored(self, book: _Book, folder: Path | None, key: str) -> ChapterNameStats | None:
        """One chapter's statistics from its file (None: missing or broken)."""
        found = book.pending.get(key)
        if found is not None or folder is None or self.folder is None:
            return found
        try:
            data = json.loads((self._stats_dir(folder) / f"{key}.json").read_text(encoding="utf-8"))
            found = ChapterNameStats.from_data(data)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None
        self._remember(key, found)
        return found

    def _stats_dir(self, folder: Path) -> Path:
        assert self.folder is not None
        return self.folder / f"book-{_book_key(folder)}"

    def _remember(self, key: str, stats: ChapterNameStats) -> None:
        if key in self._memory:
            return
        if len(self._memory) >= MEMORY_ENTRIES:
            self._memory.clear()  # a long session of edits: start over rather than grow without end
        self._memory[key] = stats

    def _book(self, chapters: Path, names_hash: str) -> _Book | None:
        if self.folder is None:
            return None
        found = self._books.get(chapters)
        if found is None or found.names_hash != names_hash:
            found = _Book.read(self.folder / f"book-{_book_key(chapters)}.json", names_hash)
            self._books[chapters] = found
        return found

    def flush(self) -> None:
        """Write the new chapter statistics and the indexes that changed (a failure only costs time later)."""
        for chapters in sorted(self._dirty):
            book = self._books.get(chapters)
            if book is None or self.folder is None:
                continue
            folder = self._stats_dir(chapters)
            try:
                for key, stats in sorted(book.pending.items()):
                    text = json.dumps(stats.to_data(), ensure_ascii=False, separators=(",", ":"))
                    atomic_write_text(folder / f"{key}.json", text, durable=False)
                    book.stored += 1
                book.pending.clear()
                self._sweep(book, folder)
                atomic_write_text(self.folder / f"book-{_book_key(chapters)}.json", book.to_json(), durable=False)
            except OSError:
                book.pending.clear()  # recomputed next time
        self._dirty.clear()

    @staticmethod
    def _sweep(book: _Book, folder: Path) -> None:
        """Remove the statistics files no chapter of the index uses, once there are twice as many as it uses."""
        keep = book.referenced() | (book.totals.keys.keys() if book.totals is not None else set())
        if book.stored <= 2 * len(keep) + LOOSE_ENTRIES:
            return
        try:
            names = os.listdir(folder)
        except OSError:
            return
        for name in names:
            if name.endswith(".json") and name[:-5] not in keep:
                try:
                    os.unlink(folder / name)
                except OSError:
                    pass
        book.stored = len(keep)


_SHARED: dict[Path, NameStatsCache] = {}


def shared_cache(folder: Path) -> NameStatsCache:
    """One cache per folder for the process, so a run's after-commit checks reuse what the last one matched."""
    cache = _SHARED.get(folder)
    if cache is None:
        cache = _SHARED[folder] = NameStatsCache(folder)
    return cache
