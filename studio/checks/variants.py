"""Name variants: a string one character away from a registered name that is much rarer than the name.

A variant of a registered name (two characters or more) is the name with one character changed to
a homophone (toneless pinyin, heteronyms, surname readings) or a look-alike (`studio.checks.chinese`), two
adjacent characters swapped, or, for names of three characters or more, an inner character dropped (dropping
the surname or the last character gives the usual short forms, 婉儿, 慕容, so those are not variants).

A variant hit in the text is reported only when all of these hold (precision matters as much as recall):

1. the variant is not itself a registered name (two real entities differing by one character are never typos
   of each other); names and variants go through one matcher, so a registered name longer than the variant
   wins the overlap (苏婉儿 is not 苏婉 + 儿) and a variant longer than a name inside it wins (夙婉儿 over 婉儿);
2. no dictionary word straddles its edges (林峰 inside 树林峰顶); a variant that is itself a word of jieba's
   dictionary (小鱼, 枫林) counts only where it stands as a person's name: right before a speech or action word
   (`NAME_FOLLOWERS`: 道, 说, 笑, 沉默, ...), as a vocative (“枫林，...), or between a left and a right
   character that the name itself was seen between in the checked chapters — "大片枫林，" is not a typo;
3. it is much rarer than the name, counted over the checked chapters and the reference ones (the rest of the
   book): name count >= `MIN_NAME_COUNT`, variant count * `RARITY` <= name count, and variant count <=
   `typo_cap(name count)` (`MAX_TYPO_COUNT`, or one in `TYPO_SHARE` uses of the name in a long book). A
   frequent "variant" (an unregistered minor character called 林凤) is a new name, not a typo.

Swaps that give an address form (陈老 -> 老陈, 小X, 阿X) are not variants.

One finding per variant and chapter: first place, count in the chapter, the name as suggestion.

Book-wide counts must not make the check after a commit grow with the book, so each chapter's name statistics
(name counts, the characters seen around each name, the variant hits with what rule 2 decided about them alone)
are cached by `NameStatsCache`: in memory for the process and on disk under novel-studio's user cache (never in
the author's folder), keyed by a hash of the chapter text and of the registered names. Only new or changed
chapters are matched and segmented again.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from studio.checks import chinese
from studio.checks.matcher import Entry, Matcher
from studio.checks.names import MIN_NAME_LEN, NameEntity, NameRegistry
from studio.checks.registry import ChapterText, CheckContext
from studio.fileio import atomic_write_text
from studio.i18n import Catalog, tr
from studio.models.findings import Finding

VARIANT = "name-variant"
STATS_VERSION = "1"
MEMORY_ENTRIES = 20_000
MIN_NAME_COUNT = 3
RARITY = 5
MAX_TYPO_COUNT = 5
TYPO_SHARE = 50
ADDRESS_PREFIXES = ("老", "小", "阿")
NAME_FOLLOWERS = (
    "道",
    "说",
    "笑",
    "问",
    "答",
    "低声",
    "沉声",
    "冷声",
    "轻声",
    "点了点头",
    "点头",
    "摇头",
    "握",
    "记得",
    "沉默",
    "迟疑",
    "叹",
    "皱眉",
    "站",
    "转身",
    "抬头",
    "心中",
    "眼中",
    "一愣",
    "怔",
)

MESSAGES: Catalog = {
    "homophone": ("同音", "homophone"),
    "lookalike": ("形近", "look-alike"),
    "swap": ("颠倒", "swapped"),
    "drop": ("漏字", "dropped character"),
    "variant": (
        "「{text}」疑似「{name}」的笔误（{how}；全书范围内「{name}」{name_count} 次，「{text}」{count} 次）",
        "'{text}' looks like a typo of '{name}' ({how}; '{name}' {name_count} times, '{text}' {count} times)",
    ),
}


def typo_cap(name_count: int) -> int:
    """How often a variant may occur and still be a typo of a name used `name_count` times."""
    return max(MAX_TYPO_COUNT, name_count // TYPO_SHARE)


@dataclass(frozen=True)
class Variant:
    text: str
    name: str
    how: str  # homophone, lookalike, swap, drop


def variants_of(name: str, entity: NameEntity) -> list[Variant]:
    """Every variant of `name` (see the module rules); may include registered names (filtered later)."""
    out: dict[str, Variant] = {}
    if len(name) < MIN_NAME_LEN:
        return []
    for i, ch in enumerate(name):
        surname = i == 0 and entity.kind == "character"
        for how, chars in (
            ("lookalike", chinese.lookalikes(ch)),
            ("homophone", chinese.homophones(ch, surname=surname)),
        ):
            for other in chars:
                text = name[:i] + other + name[i + 1 :]
                out.setdefault(text, Variant(text, name, how))
    for i in range(len(name) - 1):
        if name[i] != name[i + 1]:
            text = name[:i] + name[i + 1] + name[i] + name[i + 2 :]
            if not text.startswith(ADDRESS_PREFIXES):
                out.setdefault(text, Variant(text, name, "swap"))
    if len(name) >= 3:
        for i in range(1, len(name) - 1):
            text = name[:i] + name[i + 1 :]
            out.setdefault(text, Variant(text, name, "drop"))
    return list(out.values())


class VariantIndex:
    """All variants of all registered names, as one matcher."""

    def __init__(self, registry: NameRegistry) -> None:
        self.registry = registry
        self.variants: dict[str, list[Variant]] = {}
        for entity in registry.entities:
            for name in entity.names:
                if len(name) < MIN_NAME_LEN or registry.owner(name) is not entity:
                    continue
                for v in variants_of(name, entity):
                    if registry.is_known(v.text):
                        continue
                    self.variants.setdefault(v.text, []).append(v)
        self._words: dict[str, bool] = {}
        # what the cached chapter statistics depend on: every name, its owner, and so every variant
        self.names_hash = hashlib.sha256(
            "\n".join(sorted(f"{n}\t{e.key}\t{e.kind}" for e in registry.entities for n in e.names)).encode()
        ).hexdigest()
        names = [
            Entry(name, "phrase", "limited", "name", owner.key)
            for name in registry.names()
            if (owner := registry.owner(name)) is not None
        ]
        variants = (Entry(text, "phrase", "limited", VARIANT, text) for text in self.variants)
        self.matcher = Matcher([*names, *variants])

    def is_word(self, variant: str) -> bool:
        """Asked only for variants the text holds, so a clean book never loads jieba's dictionary."""
        found = self._words.get(variant)
        if found is None:
            found = self._words[variant] = chinese.is_word(variant)
        return found

    def name_position(self, text: str, start: int, end: int) -> bool:
        """Whether text[start:end] stands where a person's name stands (see rule 2)."""
        if text.startswith(NAME_FOLLOWERS, end):
            return True
        return start > 0 and text[start - 1] in "“「" and text[end : end + 1] in "，,！？"


def _around(text: str, start: int, end: int) -> tuple[str, str]:
    return text[start - 1 : start] if start else "", text[end : end + 1]


@dataclass(frozen=True)
class VariantHit:
    """A variant in the text that no dictionary word straddles; `plain`: kept by rule 2 on its own (not a word,
    or where a name stands), otherwise kept only when its neighbours are ones a name was seen between."""

    ref: str
    start: int
    end: int
    plain: bool
    around: tuple[str, str]


@dataclass
class ChapterNameStats:
    """One chapter's part of the book-wide counts (see the module rules)."""

    names: Counter[str] = field(default_factory=Counter)
    contexts: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    hits: list[VariantHit] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(
            {
                "names": dict(self.names),
                "contexts": {n: sorted(list(c) for c in cs) for n, cs in self.contexts.items()},
                "hits": [[h.ref, h.start, h.end, h.plain, *h.around] for h in self.hits],
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, raw: str) -> ChapterNameStats:
        data = json.loads(raw)
        return cls(
            Counter({str(k): int(v) for k, v in data["names"].items()}),
            {str(n): {(str(a), str(b)) for a, b in cs} for n, cs in data["contexts"].items()},
            [VariantHit(str(r), int(s), int(e), bool(p), (str(a), str(b))) for r, s, e, p, a, b in data["hits"]],
        )


def chapter_name_stats(index: VariantIndex, text: str) -> ChapterNameStats:
    stats = ChapterNameStats()
    for m in index.matcher.find(text):
        if m.entry.category != VARIANT:
            name = text[m.start : m.end]
            stats.names[name] += 1
            stats.contexts.setdefault(name, set()).add(_around(text, m.start, m.end))
        elif not chinese.crosses_word(text, m.start, m.end):
            ref = m.entry.ref
            plain = not index.is_word(ref) or index.name_position(text, m.start, m.end)
            stats.hits.append(VariantHit(ref, m.start, m.end, plain, _around(text, m.start, m.end)))
    return stats


def stats_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("novel-studio")) / "name-stats"


class NameStatsCache:
    """Each chapter's `ChapterNameStats` by hash of (registered names, chapter text): in memory, and on disk
    under `folder` when given. A broken or unwritable disk entry only costs time.

    A chapter read from disk (`ChapterText.on_disk`) whose file signature (size, mtime_ns) is the one recorded
    with its content key is answered without reading the file: the index of signatures, one file per chapters
    folder, is read once per process and written back by `flush`."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._memory: dict[str, ChapterNameStats] = {}
        self._signatures: dict[Path, dict[str, list[object]]] = {}  # chapters folder -> file name -> entry
        self._dirty: set[Path] = set()

    def _index_path(self, chapters: Path) -> Path | None:
        if self.folder is None:
            return None
        digest = hashlib.sha256(str(chapters.resolve()).encode()).hexdigest()[:32]
        return self.folder / f"index-{digest}.json"

    def _index(self, chapters: Path) -> dict[str, list[object]]:
        found = self._signatures.get(chapters)
        if found is None:
            found = {}
            path = self._index_path(chapters)
            if path is not None and path.is_file():
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                    found = {str(k): list(v) for k, v in data.items() if isinstance(v, list)}
                except (OSError, ValueError, TypeError, AttributeError):
                    found = {}
            self._signatures[chapters] = found
        return found

    def flush(self) -> None:
        """Write the signature indexes that changed (a failure only costs time next process)."""
        for chapters in sorted(self._dirty):
            path = self._index_path(chapters)
            if path is not None:
                try:
                    atomic_write_text(path, json.dumps(self._signatures[chapters], ensure_ascii=False))
                except OSError:
                    pass
        self._dirty.clear()

    def _load(self, key: str) -> ChapterNameStats | None:
        found = self._memory.get(key)
        if found is not None or self.folder is None:
            return found
        path = self.folder / f"{key}.json"
        if path.is_file():
            try:
                found = ChapterNameStats.from_json(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, TypeError, KeyError):
                return None  # recomputed
            self._remember(key, found)
        return found

    def _remember(self, key: str, stats: ChapterNameStats) -> None:
        if len(self._memory) >= MEMORY_ENTRIES:
            self._memory.clear()  # a long session of edits: start over rather than grow without end
        self._memory[key] = stats

    def get(self, index: VariantIndex, chapter: ChapterText) -> ChapterNameStats:
        entry: list[object] | None = None
        if chapter.folder is not None and chapter.name is not None and chapter.signature is not None:
            signatures = self._index(chapter.folder)
            entry = signatures.get(chapter.name)
            if entry is not None and entry[:3] == [*chapter.signature, index.names_hash]:
                found = self._load(str(entry[3]))
                if found is not None:
                    return found
        key = hashlib.sha256(f"{STATS_VERSION}\0{index.names_hash}\0{chapter.text}".encode()).hexdigest()
        found = self._load(key)
        if found is None:
            found = chapter_name_stats(index, chapter.text)
            self._remember(key, found)
            if self.folder is not None:
                try:
                    atomic_write_text(self.folder / f"{key}.json", found.to_json())
                except OSError:
                    pass
        if chapter.folder is not None and chapter.name is not None and chapter.signature is not None:
            new = [*chapter.signature, index.names_hash, key]
            if entry != new:
                self._index(chapter.folder)[chapter.name] = new
                self._dirty.add(chapter.folder)
        return found


_SHARED: dict[Path, NameStatsCache] = {}


def shared_cache(folder: Path) -> NameStatsCache:
    """One cache per folder for the process, so a run's after-commit checks reuse what the last one matched."""
    cache = _SHARED.get(folder)
    if cache is None:
        cache = _SHARED[folder] = NameStatsCache(folder)
    return cache


class NameVariantCheck:
    kind = "name_variant"

    def __init__(self, cache: Path | None = None, *, use_cache: bool = True) -> None:
        self.cache = shared_cache(cache or stats_cache_dir()) if use_cache else None

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        registry = ctx.registry
        if not registry.names():
            return []
        index = VariantIndex(registry)
        every = [*ctx.chapters, *ctx.reference]
        stats = [
            self.cache.get(index, c) if self.cache is not None else chapter_name_stats(index, c.text)
            for c in every
        ]
        if self.cache is not None:
            self.cache.flush()
        name_counts: Counter[str] = Counter()
        contexts: dict[str, set[tuple[str, str]]] = {}  # name -> (left, right) characters seen around it
        for s in stats:
            name_counts.update(s.names)
            for name, seen in s.contexts.items():
                contexts.setdefault(name, set()).update(seen)
        hits: list[tuple[int, list[VariantHit]]] = []  # (chapter index, variant hits kept)
        variant_counts: Counter[str] = Counter()
        checked = len(ctx.chapters)
        for ci, s in enumerate(stats):
            kept = [
                h
                for h in s.hits
                if h.plain or any(h.around in contexts.get(v.name, ()) for v in index.variants[h.ref])
            ]
            for h in kept:
                variant_counts[h.ref] += 1
            if kept and ci < checked:
                hits.append((ci, kept))
        findings: list[Finding] = []
        for ci, kept in hits:
            chapter = ctx.chapters[ci]
            per_variant: dict[str, list[VariantHit]] = {}
            for h in kept:
                per_variant.setdefault(h.ref, []).append(h)
            for text, hs in per_variant.items():
                best = max(index.variants[text], key=lambda v: name_counts[v.name])
                name_count = name_counts[best.name]
                count = variant_counts[text]
                if name_count < MIN_NAME_COUNT or count * RARITY > name_count or count > typo_cap(name_count):
                    continue
                how = tr(MESSAGES, best.how, ctx.lang)
                findings.append(
                    chapter.finding(
                        self.kind,
                        hs[0].start,
                        text,
                        severity="medium",
                        suggestion=best.name,
                        count=len(hs),
                        message=tr(
                            MESSAGES,
                            "variant",
                            ctx.lang,
                            text=text,
                            name=best.name,
                            how=how,
                            name_count=name_count,
                            count=count,
                        ),
                    )
                )
        return findings
