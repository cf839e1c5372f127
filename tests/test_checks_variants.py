"""Name variants: known answers for each kind of typo, the traps, and the corpus figures of bench_checks."""

from __future__ import annotations

from studio.checks import chinese
from studio.checks.matcher import Matcher
from studio.checks.names import NameEntity, NameRegistry
from studio.checks.registry import ChapterText, CheckContext
from studio.checks.variants import NameVariantCheck, variants_of
from studio.models.character import CharacterFile
from studio.models.findings import Finding
from studio.models.names import NamesFile
from tests.bench_loader import load_bench

FILLER = "林枫走进院子，林枫看了看天。林枫笑道：“好。”林枫点了点头。林枫转身离开。\n"


def _run(
    texts: list[str], cast: dict[str, tuple[str, list[str]]], names: list[dict[str, object]] | None = None
) -> list[Finding]:
    characters = {slug: CharacterFile(display_name=n, aliases=a) for slug, (n, a) in cast.items()}
    registry = NameRegistry.from_sources(characters, NamesFile.parse_data({"entities": names or []}))
    ctx = CheckContext([ChapterText(i + 1, t) for i, t in enumerate(texts)], registry, Matcher([]))
    return list(NameVariantCheck().run(ctx))


def test_each_kind_of_typo_is_found_with_its_place_and_suggestion() -> None:
    cast: dict[str, tuple[str, list[str]]] = {"lin-feng": ("林枫", []), "mu-rongxue": ("慕容雪", [])}
    body = FILLER * 2 + "慕容雪来了。慕容雪笑了。慕容雪走了。\n" * 2
    typos = {"林峰": "homophone", "林讽": "lookalike", "慕雪": "drop", "容慕雪": "swap"}
    for typo in typos:
        text = body + f"第二天，{typo}站在门口。\n"
        found = _run([text], cast)
        assert [(f.text, f.suggestion) for f in found] == [(typo, "慕容雪" if "雪" in typo else "林枫")], typo
        f = found[0]
        para = text.split("\n")[f.paragraph - 1]  # type: ignore[operator]
        assert para[f.offset : f.offset + len(typo)] == typo  # type: ignore[operator]


def test_two_real_names_one_character_apart_are_never_typos_of_each_other() -> None:
    cast: dict[str, tuple[str, list[str]]] = {"lin-feng": ("林枫", []), "lin-feng-2": ("林峰", [])}
    assert _run([FILLER * 3 + "林峰也来了。\n"], cast) == []


def test_ordinary_words_and_common_word_names_are_quiet() -> None:
    cast: dict[str, tuple[str, list[str]]] = {"lin-feng": ("林枫", []), "xiao-yu": ("小雨", [])}
    text = (
        FILLER * 3
        + "小雨说：“走吧。”小雨笑了。小雨点头。\n"
        + ("窗外下着小雨。大片枫林，红叶满地。他们在树林峰顶歇脚。岸边的小鱼游走了。\n")
    )
    assert _run([text], cast) == []


def test_a_frequent_variant_is_a_new_name_not_a_typo() -> None:
    cast: dict[str, tuple[str, list[str]]] = {"lin-feng": ("林枫", [])}
    text = FILLER * 3 + "林讽来了。" * 5 + "\n"
    assert _run([text], cast) == []  # 5 of 15: not "much rarer"
    assert _run([FILLER, "林讽来了。\n"], cast)[0].chapter == 2  # rarity is counted over all chapters


def test_one_character_names_are_skipped_and_nothing_breaks_on_empty_input() -> None:
    cast: dict[str, tuple[str, list[str]]] = {"yu": ("雨", []), "lin-feng": ("林枫", [])}
    assert _run(["", "\n\n", FILLER], cast) == []
    assert _run([FILLER], {}) == []


def test_variants_respect_surnames_and_address_forms() -> None:
    entity = NameEntity("character:zeng-rou", "character", "曾柔")
    texts = {v.text for v in variants_of("曾柔", entity)}
    assert "增柔" in texts and "层柔" not in texts  # 曾 as a surname reads zeng only
    chen = NameEntity("character:chen-lao", "character", "陈老")
    assert "老陈" not in {v.text for v in variants_of("陈老", chen)}
    assert chinese.is_word("枫林") and not chinese.is_word("林讽")


def test_bench_corpus_meets_the_goal() -> None:
    bench = load_bench("bench_checks")
    recall, precision, found, injected = bench.score(bench.build_corpus(60, seed=3))
    assert injected >= 40
    assert recall >= 0.95 and precision >= 0.90, (recall, precision, found, injected)


def test_rarity_counts_the_rest_of_the_book_when_a_range_is_checked() -> None:
    cast: dict[str, tuple[str, list[str]]] = {"lin-feng": ("林枫", [])}
    characters = {slug: CharacterFile(display_name=n, aliases=a) for slug, (n, a) in cast.items()}
    registry = NameRegistry.from_sources(characters)
    typo = ChapterText(2, "林讽来了。\n")
    alone = CheckContext([typo], registry, Matcher([]))
    assert list(NameVariantCheck().run(alone)) == []  # the name is not established in one chapter
    with_book = CheckContext([typo], registry, Matcher([]), reference=[ChapterText(1, FILLER * 2)])
    assert [(f.chapter, f.text) for f in NameVariantCheck().run(with_book)] == [(2, "林讽")]


# ---------------------------------------------------------------------------------------------- a real novel


def test_no_false_alarm_on_real_prose_and_injected_typos_found() -> None:
    """阿Q正传 (public domain, bench/data/README.md) with its cast registered: its own prose gives no variant
    finding; typos injected into its name occurrences are found, and nothing else is."""
    bench = load_bench("bench_checks")
    chapters = bench.real_chapters()
    assert len(chapters) == 9  # the importer's splitter finds the nine chapters
    registry = bench.real_registry()
    clean, _ = bench.real_score(bench.Corpus(chapters, {}, NamesFile()), registry)
    assert clean == set()
    found = right = injected = 0
    for seed in range(4):
        corpus = bench.real_typos(chapters, registry, seed=seed)
        hits, good = bench.real_score(corpus, registry)
        assert hits == good, f"seed {seed}: false alarms {hits - good}"
        found, right, injected = found + len(hits), right + len(good), injected + len(corpus.injected)
    assert injected == 20 and right >= 18
