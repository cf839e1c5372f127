"""What keeps the checks fast (issue 8, performance): one name-statistics cache file per book, the variants of
the registered names cached (no pypinyin when nothing new is registered), jieba and pypinyin imported only on
use, and the faster prose metrics giving the same answers as their plain definitions."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from studio.checks import chinese, stats_cache, variants
from studio.checks.matcher import Matcher
from studio.checks.metrics import phrases, repeated_phrases
from studio.checks.names import NameRegistry
from studio.checks.registry import ChapterText, CheckContext
from studio.checks.variants import NameVariantCheck
from studio.models.character import CharacterFile

ROOT = Path(__file__).resolve().parent.parent
LINE = "林枫走进院子，林枫看了看天。林枫笑道：“好。”林枫点了点头。林枫转身离开。\n"


def _book(tmp: Path, texts: list[str]) -> CheckContext:
    registry = NameRegistry.from_sources({"lin-feng": CharacterFile(display_name="林枫")})
    folder = tmp / "chapters"
    folder.mkdir(exist_ok=True)
    chapters = []
    for i, text in enumerate(texts, 1):
        path = folder / f"chapter-{i:03d}.md"
        path.write_text(text, encoding="utf-8")
        chapters.append(ChapterText.on_disk(i, path))
    return CheckContext(chapters[-1:], registry, Matcher([]), reference=chapters[:-1])


def _findings(ctx: CheckContext, cache: Path | None) -> list[tuple[int | None, str, int, str]]:
    check = NameVariantCheck(cache) if cache is not None else NameVariantCheck(use_cache=False)
    return [(f.chapter, f.text, f.count, f.message) for f in check.run(ctx)]


def _cache_reads(monkeypatch: pytest.MonkeyPatch, cache: Path) -> list[str]:
    """The cache files read from now on (relative to `cache`; a missing one is not a read)."""
    reads: list[str] = []
    real = Path.read_text

    def spy(self: Path, *args: object, **kwargs: object) -> str:
        text = real(self, *args, **kwargs)  # type: ignore[arg-type]
        if self.is_relative_to(cache):
            reads.append(self.relative_to(cache).as_posix())
        return text

    monkeypatch.setattr(Path, "read_text", spy)
    return reads


def test_a_new_process_reads_the_books_index_and_sums_not_every_chapter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    texts = [LINE * 3] * 30 + ["第二天，林峰站在门口。\n"]
    assert [f.text for f in NameVariantCheck(cache).run(_book(tmp_path, texts))] == ["林峰"]
    stats_cache._SHARED.clear()  # a new process: the disk cache only
    texts.append("林枫笑了笑，林峰也笑了。\n" * 2)  # the next chapter is committed
    reads = _cache_reads(monkeypatch, cache)
    parsed: list[object] = []
    real_parse = variants.ChapterNameStats.from_data.__func__  # type: ignore[attr-defined]

    def counting(cls: type[variants.ChapterNameStats], data: object) -> variants.ChapterNameStats:
        parsed.append(data)
        return real_parse(cls, data)

    monkeypatch.setattr(variants.ChapterNameStats, "from_data", classmethod(counting))
    found = _findings(_book(tmp_path, texts), cache)
    assert [(c, t) for c, t, _, _ in found] == [(32, "林峰")]
    assert parsed == []  # no other chapter's statistics are even parsed: the book's sums answer for them
    # two small files, however long the book: the index with the sums, and the names' variants
    assert sorted(r.split("-")[0] for r in reads) == ["book", "variants"] and all("/" not in r for r in reads)
    assert found == _findings(_book(tmp_path, texts), None)  # the same answer as without any cache


def test_a_rewritten_chapter_takes_only_its_old_part_out_of_the_sums(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    texts = [LINE * 3] * 20 + ["第二天，林峰站在门口。\n"]
    assert [f.text for f in NameVariantCheck(cache).run(_book(tmp_path, texts))] == ["林峰"]
    stats_cache._SHARED.clear()
    texts[-1] = "第二天，林峰站在门口，林枫也来了。\n"  # the last chapter rewritten and committed again
    reads = _cache_reads(monkeypatch, cache)
    found = _findings(_book(tmp_path, texts), cache)
    assert found == _findings(_book(tmp_path, texts), None)
    chapter_files = [r for r in reads if "/" in r]
    assert len(chapter_files) == 1  # the old text's statistics, to take them out of the sums


def test_the_cached_sums_give_the_answers_of_no_cache_through_random_edits(tmp_path: Path) -> None:
    """Chapters added, rewritten, emptied and restored, checked by new and old processes, with the cache's files
    broken now and then: every answer is the one computed without a cache."""
    rng = random.Random(3)
    cache = tmp_path / "cache"
    pieces = [LINE, "林峰看了一眼。\n", "第二天，林峰站在门口。\n", "林枫沉默良久。\n", "小林峰顶很高。\n", ""]
    texts = [LINE * 3] * 8
    for step in range(30):
        move = rng.random()
        if move < 0.3:
            texts.append("".join(rng.choice(pieces) for _ in range(rng.randint(0, 4))))
        elif move < 0.8:
            texts[rng.randrange(len(texts))] = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))
        if rng.random() < 0.3:
            stats_cache._SHARED.clear()
        if rng.random() < 0.1:
            for path in cache.rglob("*.json"):
                if rng.random() < 0.5:
                    path.write_text(rng.choice(["{broken", '{"version": "3", "totals": {"keys": 1}}', "[]"]))
        ctx = _book(tmp_path, texts)
        assert _findings(ctx, cache) == _findings(ctx, None), f"step {step}"


def test_statistics_files_no_chapter_uses_are_swept(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    texts = [LINE * 3] * 4
    for i in range(40):
        texts[-1] = LINE * 3 + f"林枫走了第{i}步。\n"
        NameVariantCheck(cache).run(_book(tmp_path, texts))
    stored = [p for p in cache.rglob("*.json") if p.parent != cache]
    assert len(stored) <= 2 * 4 + stats_cache.LOOSE_ENTRIES + 1


def test_a_new_process_with_known_names_does_not_compute_variants_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    texts = [LINE * 3] * 5 + ["第二天，林峰站在门口。\n"]
    assert [f.text for f in NameVariantCheck(cache).run(_book(tmp_path, texts))] == ["林峰"]
    stats_cache._SHARED.clear()  # a new process: the disk cache only

    def no_pinyin(*args: object, **kwargs: object) -> frozenset[str]:
        raise AssertionError("homophones computed although the variants are cached")

    monkeypatch.setattr(chinese, "homophones", no_pinyin)
    # a new chapter after a commit: matched with the cached variants
    texts.append("林枫笑了笑，林峰也笑了。\n" * 2)
    found = [(f.chapter, f.text) for f in NameVariantCheck(cache).run(_book(tmp_path, texts))]
    assert found == [(7, "林峰")]


def test_a_broken_or_foreign_cache_file_only_costs_time(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    texts = [LINE * 3] * 5 + ["第二天，林峰站在门口。\n"]
    assert [f.text for f in NameVariantCheck(cache).run(_book(tmp_path, texts))] == ["林峰"]
    for path in cache.rglob("*.json"):  # the index, the names' variants and each chapter's statistics
        path.write_text('{"version": "3", "names_hash": 1, "chapters": []', encoding="utf-8")
    stats_cache._SHARED.clear()
    assert [f.text for f in NameVariantCheck(cache).run(_book(tmp_path, texts))] == ["林峰"]


def test_importing_the_checks_imports_neither_jieba_nor_pypinyin() -> None:
    code = (
        "import sys; import studio.checks.run, studio.checks.registry, studio.checks.variants;"
        "from studio.checks.registry import default_checks; default_checks();"
        "print(sorted(m for m in ('jieba', 'pypinyin') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _plain_repeated(text: str, exclude: list[str]) -> list[tuple[str, int]]:
    """The definition, written the slow and obvious way."""
    counts: Counter[str] = Counter()
    for i in range(len(text) - 4):
        g = text[i : i + 5]
        if all("\u4e00" <= c <= "\u9fff" for c in g):
            counts[g] += 1
    out = [(g, n) for g, n in counts.items() if n >= 3 and len(set(g)) > 1 and not any(e in g for e in exclude)]
    return sorted(out, key=lambda item: (-item[1], item[0]))


def test_the_phrase_metrics_match_their_plain_definition() -> None:
    rng = random.Random(7)
    alphabet = "林枫走进院子看了天笑道好哈，。“”\n"
    for _ in range(40):
        text = "".join(rng.choice(alphabet) for _ in range(400)) + "哈哈哈哈哈哈" * 3 + "他走进院子。" * 3
        exclude = ["林枫"]
        assert repeated_phrases(text, exclude) == _plain_repeated(text, exclude)
        every = {
            text[i : i + 5]
            for i in range(len(text) - 4)
            if all("\u4e00" <= c <= "\u9fff" for c in text[i : i + 5])
        }
        expected = {g for g in every if len(set(g)) > 1 and "林枫" not in g}
        assert phrases(text, exclude) == expected


def _plain_normalise(text: str) -> tuple[str, list[int]]:
    import unicodedata

    def keep(ch: str) -> bool:
        return unicodedata.category(ch)[0] not in "ZPSC"

    chars: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if keep(ch):
            for c in unicodedata.normalize("NFKC", ch).lower():
                if keep(c):
                    chars.append(c)
                    where.append(i)
    return "".join(chars), where


def test_quote_normalising_matches_its_plain_definition() -> None:
    from studio.checks.quotes import normalise

    rng = random.Random(3)
    alphabet = "他说：“好。” ＡＢｃ１２\u3000…—ﬁ㈠\n"
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        assert normalise(text) == _plain_normalise(text), text


def test_acting_hits_find_what_one_combined_pattern_finds() -> None:
    """The verb alternation is compiled once per process now, not with every name set: same answers."""
    import re

    from studio.checks import continuity
    from studio.checks.continuity import _GAP, _GAP_TO, ACTION, SPEECH, USE, acting_hits

    names = ["林枫", "林枫儿", "枫儿", "苏婉"]
    rng = random.Random(5)
    pieces = ["林枫", "林枫儿", "枫儿", "苏婉", "道：", "说", "拔出", "握住", "笑道", "，", "。", "想起", "的", "他", "剑"]
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(30))
        for extra in ("", USE):
            verbs = f"{ACTION}|{extra}" if extra else ACTION
            combined = re.compile(rf"(?P<name>{alternatives})(?:{_GAP_TO}{SPEECH}|{_GAP}(?:{verbs}))")
            expected = [
                (m.start("name"), m.group("name"))
                for m in combined.finditer(text)
                if m.start() - continuity._clause_start(text, m.start()) <= 4
                and not continuity._is_memory(text, m.start(), m.group("name"))
            ]
            assert [(h.pos, h.name) for h in acting_hits(text, names, [], extra_verbs=extra)] == expected


@pytest.mark.parametrize("bad", [-5, 0, 2.5, "75", True, None])
def test_implausible_sums_in_the_index_are_rebuilt_not_believed(tmp_path: Path, bad: object) -> None:
    cache = tmp_path / "cache"
    texts = [LINE * 3] * 5 + ["第二天，林峰站在门口。\n"]
    expected = _findings(_book(tmp_path, texts), None)
    assert [(c, t) for c, t, _, _ in expected] == [(6, "林峰")]
    assert _findings(_book(tmp_path, texts), cache) == expected
    (index,) = cache.glob("book-*.json")
    data = json.loads(index.read_text(encoding="utf-8"))
    data["totals"]["names"]["林枫"] = bad  # a well-formed file whose sums cannot be right
    index.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    stats_cache._SHARED.clear()
    assert _findings(_book(tmp_path, texts), cache) == expected
