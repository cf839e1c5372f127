"""Nothing of the author's text is lost by a split, whatever the manuscript looks like (issue 10 item 1).

Manuscripts are assembled from heading forms, volume headings, prologues, extras, tables of contents, prose
that mentions chapters, and blank-line runs (hypothesis, derandomized: the same examples on every run and in
every worker). Every mode must give back every non-whitespace character of the source, each as often as it
occurs, and cut only at line ends."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.importing.source import SourceFile, SourceText, read_source
from studio.importing.split import split_manuscript
from studio.models.manuscript import Manuscript, SplitMode

PROSE = [
    "　　他站在雾港的码头上，望着远处的灯塔。",
    "　　“你真的要走吗？”她问。",
    "第三章里，他说过的话还在耳边。",
    "第二天早上，雨停了。",
    "　　师父说，第一卷的规矩不能忘。",
    "# 不是标题的井号行，因为它很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长",
    "番外篇里写过这件事，他记得很清楚，可惜没人信。",
    "Chapter of life, he said.",
]
HEADINGS = ["第{n}章 标题{n}", "第{cn}章", "第{n}章：风起", "# 第{n}章 雨落", "【第{n}章】雪", "Chapter {n}", "第{n}回 走马"]
VOLUMES = ["第{cn}卷 卷名", "卷{cn} 风", "第{n}卷"]
OTHERS = ["楔子", "序章 开端", "番外一 旧事", "后记", "尾声"]
CN = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二"]


@st.composite
def manuscripts(draw: st.DrawFn) -> str:
    lines: list[str] = []
    if draw(st.booleans()):
        lines += ["书名：雾港", "作者：某某", ""]
    if draw(st.booleans()):
        lines += ["目录", "第1章 标题1", "第2章 标题2", "第3章 标题3", ""]
    number = 1
    for _ in range(draw(st.integers(1, 12))):
        roll = draw(st.integers(0, 9))
        if roll == 0:
            lines.append(draw(st.sampled_from(VOLUMES)).format(n=number, cn=CN[number % len(CN)]))
        elif roll == 1:
            lines.append(draw(st.sampled_from(OTHERS)))
        elif roll >= 2:
            form = draw(st.sampled_from(HEADINGS))
            lines.append(form.format(n=number, cn=CN[(number - 1) % len(CN)]))
            number += draw(st.sampled_from([1, 1, 1, 0, 2, -1]))
            number = max(1, number)
        for _ in range(draw(st.integers(0, 6))):
            lines.append(draw(st.sampled_from(PROSE)))
            lines.extend([""] * draw(st.integers(0, 3)))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines)


def chars(text: str) -> Counter[str]:
    return Counter(re.sub(r"\s+", "", text))


def everything(m: Manuscript) -> str:
    parts = [m.front_matter]
    parts += [f"{v.heading}{v.intro}" for v in m.volumes]
    parts += [f"{c.heading}{c.text}" for c in m.chapters]
    return "".join(parts)


def source_of(text: str) -> SourceText:
    return SourceText(path="book.txt", files=[SourceFile(name="book.txt", text=text.replace("\r\n", "\n"))])


@settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(manuscripts(), st.sampled_from(["headings", "size", "blank"]))
def test_every_character_comes_back(text: str, mode: SplitMode) -> None:
    m = split_manuscript(source_of(text), mode=mode, target_chars=500)
    assert chars(everything(m)) == chars(text)
    lines = set(text.replace("\r\n", "\n").split("\n"))
    for c in m.chapters:
        assert c.heading == "" or c.heading in {line.strip(" \t\u3000") for line in lines} or mode != "headings" \
            or any(c.heading in line for line in lines)
        assert all(line in lines for line in c.text.split("\n"))  # cut at line ends only
        assert c.position == m.chapters.index(c) + 1
    for v in m.volumes:
        assert 1 <= v.first <= v.last <= len(m.chapters)
    assert [c.volume for c in m.chapters] == sorted(c.volume for c in m.chapters)


def test_a_volume_and_its_first_chapter_on_one_line(tmp_path: Path) -> None:
    body = "　　他站在雾港的码头上，望着远处的灯塔。\n" * 30
    text = f"第一卷 少年 第一章 出山\n{body}第2章 下山\n{body}第二卷 青年 第3章 再起\n{body}"
    (tmp_path / "book.txt").write_text(text, encoding="utf-8")
    m = split_manuscript(read_source(tmp_path / "book.txt"))
    assert [(v.title, v.heading, v.first, v.last) for v in m.volumes] == [
        ("少年", "第一卷 少年", 1, 2), ("青年", "第二卷 青年", 3, 3)]
    assert [(c.source_number, c.heading, c.title) for c in m.chapters] == [
        (1, "第一章 出山", "出山"), (2, "第2章 下山", "下山"), (3, "第3章 再起", "再起")]
    assert chars(everything(m)) == chars(text)


def test_volume_headings_without_chapters_are_kept(tmp_path: Path) -> None:
    body = "　　他站在雾港的码头上，望着远处的灯塔。\n" * 30
    text = f"第一卷 空卷\n简介。\n第二卷 真卷\n第1章 一\n{body}第三卷 尾卷\n完。\n"
    m = split_manuscript(source_of(text))
    assert len(m.chapters) == 1 and len(m.volumes) == 1
    assert m.volumes[0].heading == "第二卷 真卷" and "第一卷 空卷" in m.volumes[0].intro
    assert m.chapters[0].text.endswith("第三卷 尾卷\n\n完。")
    assert chars(everything(m)) == chars(text)


BARE_FORMS = ["{n:03d} 标题{n}", "{n}. 标题{n}", "{n:03d}", "【{n:03d}】雪", "{n}、风起"]
BARE_PROSE = [*PROSE, "2024", "3 个人", "1. 买菜", "2. 做饭", "1984年的冬天很冷。", "10:30 到了。", "１２"]
LONG = "　　他站在雾港的码头上，望着远处的灯塔。海风吹过来，带着咸湿的味道，他想起了很多年前的事。" * 5


@st.composite
def bare_manuscripts(draw: st.DrawFn) -> str:
    """Books headed by bare numbers, with numbers, lists and volume headings in the prose around them."""
    form = draw(st.sampled_from(BARE_FORMS))
    lines: list[str] = []
    if draw(st.booleans()):
        lines += ["目录", *(form.format(n=n) for n in range(1, 4)), ""]
    number = 1
    for _ in range(draw(st.integers(1, 10))):
        if draw(st.integers(0, 6)) == 0:
            lines.append(draw(st.sampled_from(VOLUMES)).format(n=number, cn=CN[number % len(CN)]))
            number = draw(st.sampled_from([1, number]))
        lines.append(form.format(n=number))
        number = max(1, number + draw(st.sampled_from([1, 1, 1, 2, 0])))
        for _ in range(draw(st.integers(0, 4))):
            lines.append(draw(st.sampled_from([*BARE_PROSE, LONG, LONG])))
            lines.extend([""] * draw(st.integers(0, 2)))
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines)


@settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bare_manuscripts())
def test_bare_number_books_give_back_every_character(text: str) -> None:
    m = split_manuscript(source_of(text))
    assert chars(everything(m)) == chars(text)
    lines = {line.strip(" \t\u3000") for line in text.replace("\r\n", "\n").split("\n")}
    for c in m.chapters:
        assert c.heading == "" or c.heading in lines
        assert all(line in text.replace("\r\n", "\n").split("\n") for line in c.text.split("\n"))
    assert [c.volume for c in m.chapters] == sorted(c.volume for c in m.chapters)


def test_a_long_bare_number_book_is_cut_at_every_heading() -> None:
    text = "".join(f"{n:04d} 第{n}回\n{LONG}\n2024\n{LONG}\n" for n in range(1, 201))
    m = split_manuscript(source_of(text))
    assert [c.source_number for c in m.chapters] == list(range(1, 201)) and m.issues == []
    assert chars(everything(m)) == chars(text)
