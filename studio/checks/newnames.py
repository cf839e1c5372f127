"""New names: person and place names the project has not registered, with first appearance and count, so the
author can register them (or fix them).

How:

- each chapter is segmented with part-of-speech tags by jieba (its HMM finds words its dictionary lacks), with
  the registry's names added as a user dictionary, in a tokenizer of our own (jieba's global one is left alone);
- a token is a candidate person name when tagged as one (nr, nrfg, nrt), 2-4 Han characters, opening with a
  common surname (`SURNAMES`, compound ones too); a candidate place/organisation when tagged ns, nt or nz,
  2-5 Han characters, ending with a place or sect suffix (`PLACE_SUFFIXES`: 港, 城, 宗, 谷, ...);
- a surname and a household word (`HOUSEHOLDS`: 赵府, 王家, 李氏) is no person: a place when it ends with a place
  suffix (府), else nothing;
- never a candidate: a registered name, a token overlapping a registered name's occurrence, a word jieba's
  dictionary knows as a common word (frequency over `COMMON_FREQ`: 东西, 明白, 师兄, 冷笑), `STOP_WORDS`;
- reported once per name over the checked chapters (the chapter and place of its first appearance, the count),
  when it occurs at least `MIN_COUNT` times; at most `MAX_FINDINGS`, most frequent first.

Part-of-speech tagging is the expensive part (jieba's `posseg` runs about 26K characters a second), so `_Segmenter`
tags by HMM only the runs of characters its dictionary does not cover that could hold a candidate (same answers
as `posseg` over the whole text, about seven times faster: `bench/bench_checks.py` prints both), and each
chapter's candidates are cached under novel-studio's user cache (never in the author's folder), keyed by a hash
of the chapter text and of the registered names: only new or changed chapters pay.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path

import platformdirs

from studio.checks import chinese
from studio.checks.names import NameRegistry
from studio.checks.registry import ChapterText, CheckContext
from studio.fileio import atomic_write_text
from studio.i18n import Catalog, tr
from studio.models.findings import Finding

CACHE_VERSION = "2"  # 2: households (赵府) are no persons
COMMON_FREQ = 5
MIN_COUNT = 2
MAX_FINDINGS = 30
PERSON_TAGS = frozenset({"nr", "nrfg", "nrt"})
PLACE_TAGS = frozenset({"ns", "nt", "nz"})
_HAN = re.compile(r"[\u4e00-\u9fff]+")
COMPOUND_SURNAMES = (
    "欧阳",
    "司马",
    "慕容",
    "上官",
    "诸葛",
    "东方",
    "皇甫",
    "令狐",
    "独孤",
    "南宫",
    "西门",
    "长孙",
    "宇文",
    "司徒",
    "公孙",
    "夏侯",
    "尉迟",
    "轩辕",
    "端木",
    "百里",
    "呼延",
    "拓跋",
)
SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
    "楚凌萧柳云慕温秋宁岳聂燕"
)
PLACE_SUFFIXES = tuple("港城镇村县州府省国山峰岭谷岛湖江河海关宗门派帮阁殿宫楼寺庙观院堂庄寨街巷坊桥渡洲")
HOUSEHOLDS = frozenset("府家宅氏")  # after a surname: a household or clan (赵府 is a place, 王家 no name)
STOP_WORDS = frozenset(
    {"师兄", "师姐", "师父", "师傅", "玉佩", "冷笑", "明白", "老者", "少年", "公子", "姑娘"}
)

MESSAGES: Catalog = {
    "person": (
        "未登记的人名「{text}」：第 {chapter} 章首次出现，共 {count} 次。请登记到角色文件，或改正",
        "unregistered person name '{text}': first in chapter {chapter}, {count} times. Register it or fix it",
    ),
    "place": (
        "未登记的地名或势力「{text}」：第 {chapter} 章首次出现，共 {count} 次。请登记到 world/names.json，或改正",
        "unregistered place or faction '{text}': first in chapter {chapter}, {count} times. Register it in "
        "world/names.json or fix it",
    ),
}

Candidate = tuple[str, str, int]  # (word, "person" | "place", position in the chapter text)


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("novel-studio")) / "new-names"


def _is_person(word: str) -> bool:
    return 2 <= len(word) <= 4 and (word[0] in SURNAMES or word.startswith(COMPOUND_SURNAMES))


def _is_place(word: str) -> bool:
    return 2 <= len(word) <= 5 and word.endswith(PLACE_SUFFIXES)


class _Segmenter:
    """A jieba tokenizer of our own with the registry's names as its user dictionary.

    `candidates` gives what jieba's part-of-speech cut (`posseg`) would give, at a fraction of its cost: the
    text is cut into jieba's blocks and each block routed through the dictionary (what `posseg` does first);
    a dictionary word takes its dictionary tag; only a run of single characters that no word covers goes
    through `posseg`'s tagging HMM (the slow part), and only when some word of it could be a candidate: a
    surname character before its last character, or a place suffix after its first. A run without either
    can only give words that are no candidates, so skipping it changes no answer."""

    def __init__(self, registry: NameRegistry) -> None:
        import jieba
        import jieba.posseg

        chinese.is_word("")  # loads jieba's dictionary through the shared cache folder first
        self.tokenizer = jieba.Tokenizer()
        self.tokenizer.tmp_dir = jieba.dt.tmp_dir
        for name in registry.names():
            entity = registry.owner(name)
            self.tokenizer.add_word(name, 100_000, "nr" if entity and entity.kind == "character" else "ns")
        self.pos = jieba.posseg.POSTokenizer(self.tokenizer)
        self.pos.makesure_userdict_loaded()  # the registry's tags into the tag table
        self.blocks = jieba.posseg.re_han_internal

    def candidates(self, text: str) -> list[Candidate]:
        out: list[Candidate] = []
        for block in self.blocks.finditer(text):
            self._block(block.group(), block.start(), out)
        return out

    def _block(self, block: str, start: int, out: list[Candidate]) -> None:
        """`posseg`'s cut of one block (`__cut_DAG`), tagging by HMM only the runs that could hold a candidate."""
        tokenizer, tags = self.tokenizer, self.pos.word_tag_tab
        route: dict[int, tuple[float, int]] = {}
        tokenizer.calc(block, tokenizer.get_DAG(block), route)
        x, run = 0, 0  # run: where the current run of single characters began
        n = len(block)
        while x < n:
            y = route[x][1] + 1
            if y - x > 1:
                if x > run:
                    self._run(block[run:x], start + run, out)
                word = block[x:y]
                self._consider(word, tags.get(word, "x"), start + x, out)
                run = y
            x = y
        if n > run:
            self._run(block[run:], start + run, out)

    def _run(self, run: str, start: int, out: list[Candidate]) -> None:
        if len(run) < 2 or self.tokenizer.FREQ.get(run) or not _may_hold_candidate(run):
            return  # single characters: never a candidate
        pos = start
        for pair in self.pos.cut(run):
            self._consider(pair.word, pair.flag, pos, out)
            pos += len(pair.word)

    @staticmethod
    def _consider(word: str, flag: str, start: int, out: list[Candidate]) -> None:
        kind = candidate_kind(word, flag)
        if kind is not None:
            out.append((word, kind, start))


def candidate_kind(word: str, flag: str) -> str | None:
    """"person", "place" or None for a token `word` tagged `flag` (see the module rules)."""
    if not _HAN.fullmatch(word) or word in STOP_WORDS or chinese.word_freq(word) > COMMON_FREQ:
        return None
    if flag in PERSON_TAGS and _is_person(word):
        if len(word) == 2 and word[1] in HOUSEHOLDS:  # 赵府, 王家: a household, not a person
            return "place" if _is_place(word) else None
        return "person"
    if flag in PLACE_TAGS and _is_place(word):
        return "place"
    return None


def _may_hold_candidate(run: str) -> bool:
    """Whether some word inside `run` (2 characters or more) could open with a surname or end with a suffix."""
    last = len(run) - 1
    return any(ch in SURNAMES or run.startswith(COMPOUND_SURNAMES, i) for i, ch in enumerate(run) if i < last) or any(
        ch in _SUFFIXES for ch in run[1:]
    )


_SUFFIXES = frozenset(PLACE_SUFFIXES)


def _key(text: str, names_hash: str) -> str:
    return hashlib.sha256(f"{CACHE_VERSION}\0{names_hash}\0{text}".encode()).hexdigest()


def chapter_candidates(
    chapter: ChapterText, registry: NameRegistry, segmenter: _Segmenter | None, cache: Path | None
) -> tuple[list[Candidate], _Segmenter | None]:
    """The chapter's candidates, from the cache when its text and the registry are unchanged."""
    names_hash = hashlib.sha256("\n".join(sorted(registry.names())).encode()).hexdigest()
    path = cache / f"{_key(chapter.text, names_hash)}.json" if cache is not None else None
    if path is not None and path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return [(str(w), str(k), int(p)) for w, k, p in data], segmenter
        except (OSError, ValueError, TypeError):
            pass  # a broken cache entry is recomputed
    if segmenter is None:
        segmenter = _Segmenter(registry)
    found = segmenter.candidates(chapter.text)
    if path is not None:
        try:
            atomic_write_text(path, json.dumps(found, ensure_ascii=False))
        except OSError:
            pass  # no cache: slower next time, never wrong
    return found, segmenter


class NewNameCheck:
    kind = "new_name"
    expensive = True

    def __init__(self, cache: Path | None = None, *, use_cache: bool = True) -> None:
        self.cache = (cache or cache_dir()) if use_cache else None

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        registry = ctx.registry
        names = registry.matcher()
        segmenter: _Segmenter | None = None
        first: dict[str, tuple[ChapterText, int, str]] = {}
        counts: dict[str, int] = {}
        for chapter in ctx.chapters:
            if not chapter.text.strip():
                continue
            found, segmenter = chapter_candidates(chapter, registry, segmenter, self.cache)
            if not found:
                continue
            spans = [(m.start, m.end) for m in names.find(chapter.text)]
            for word, kind, pos in found:
                if registry.is_known(word) or any(a < pos + len(word) and pos < b for a, b in spans):
                    continue
                counts[word] = counts.get(word, 0) + 1
                first.setdefault(word, (chapter, pos, kind))
        ranked = sorted((w for w, n in counts.items() if n >= MIN_COUNT), key=lambda w: (-counts[w], w))
        out = []
        for word in ranked[:MAX_FINDINGS]:
            chapter, pos, kind = first[word]
            message = tr(MESSAGES, kind, ctx.lang, text=word, chapter=chapter.number, count=counts[word])
            out.append(
                chapter.finding(self.kind, pos, word, severity="info", count=counts[word], message=message)
            )
        return out
