"""New names: unregistered persons and places with first appearance and count, cached per chapter outside the
author's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.checks import newnames
from studio.checks.matcher import Matcher
from studio.checks.names import NameRegistry
from studio.checks.newnames import NewNameCheck
from studio.checks.registry import ChapterText, CheckContext
from studio.models.character import CharacterFile

REAL = Path(__file__).resolve().parent.parent / "bench" / "data" / "ah-q-zhengzhuan.txt"

TEXT = (
    "　　沈照推开门，许青禾跟在后面。沈怀山坐在堂屋里，没有抬头。\n"
    "　　雾港的船一早就走了。沈照说：“沈怀山，你明白我的意思。”\n"
    "　　他们在雾港等了三天，师兄冷笑了一声。\n"
)


def _ctx(*texts: str) -> CheckContext:
    chars = {"shen-zhao": CharacterFile(display_name="沈照"), "xu": CharacterFile(display_name="许青禾")}
    return CheckContext(
        [ChapterText(i + 1, t) for i, t in enumerate(texts)], NameRegistry.from_sources(chars), Matcher([])
    )


def test_unregistered_person_and_place_with_first_place_and_count(tmp_path: Path) -> None:
    found = {f.text: f for f in NewNameCheck(tmp_path / "cache").run(_ctx(TEXT))}
    assert set(found) == {"沈怀山", "雾港"}
    first = found["沈怀山"]
    assert (first.chapter, first.paragraph, first.offset, first.count) == (1, 1, 14, 2)
    assert "角色文件" in first.message and "names.json" in found["雾港"].message


def test_one_mention_and_common_words_are_not_reported(tmp_path: Path) -> None:
    assert list(NewNameCheck(tmp_path).run(_ctx("　　沈怀山来过一次。师兄明白了，冷笑一声。\n"))) == []
    assert list(NewNameCheck(tmp_path).run(_ctx("", "\n"))) == []


def test_results_are_cached_per_chapter_outside_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    first = [f.text for f in NewNameCheck(cache).run(_ctx(TEXT))]
    assert len(list(cache.glob("*.json"))) == 1

    def no_segmenting(registry: NameRegistry) -> None:
        raise AssertionError("segmented again although the chapter did not change")

    monkeypatch.setattr(newnames, "_Segmenter", no_segmenting)
    assert [f.text for f in NewNameCheck(cache).run(_ctx(TEXT))] == first
    with pytest.raises(AssertionError):
        list(NewNameCheck(cache).run(_ctx(TEXT + "　　新的一段。\n")))  # a changed chapter pays again


def test_the_default_cache_is_the_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert newnames.cache_dir().is_relative_to(tmp_path / "xdg")


def _posseg_candidates(segmenter: newnames._Segmenter, text: str) -> list[newnames.Candidate]:
    """The definition: jieba's part-of-speech cut over the whole text, every token filtered."""
    out: list[newnames.Candidate] = []
    pos = 0
    for pair in segmenter.pos.cut(text):
        word, flag, start = pair.word, pair.flag, pos
        pos += len(word)
        kind = newnames.candidate_kind(word, flag)
        if kind is not None:
            out.append((word, kind, start))
    return out


def test_tagging_only_the_runs_that_may_hold_a_name_gives_the_answers_of_a_full_tagging() -> None:
    registry = NameRegistry.from_sources(
        {"zhao": CharacterFile(display_name="赵太爷"), "wu": CharacterFile(display_name="吴妈")}
    )
    segmenter = newnames._Segmenter(registry)
    real = REAL.read_text(encoding="utf-8")  # a real public-domain novella (bench/data/README.md)
    texts = [real[:12_000], real[12_000:], TEXT * 3, "　　欧阳明月走进洛水城，司马青云在城门口等她。\n", ""]
    for text in texts:
        assert segmenter.candidates(text) == _posseg_candidates(segmenter, text)
    found = {w: kind for w, kind, _ in segmenter.candidates(real)}
    assert {"王胡", "邹七嫂", "未庄"} <= set(found)  # unregistered people and a village of the story
    assert found["王胡"] == "person" and found["赵府"] == "place"  # 赵府: the Zhao household, no person


def test_a_surname_and_a_household_word_is_no_person() -> None:
    assert newnames.candidate_kind("赵府", "nr") == "place"
    assert newnames.candidate_kind("王家", "nr") is None
    assert newnames.candidate_kind("王胡", "nr") == "person"
    assert newnames.candidate_kind("林峰", "nr") == "person"  # a given name that is a place suffix stays a name
