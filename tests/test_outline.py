from __future__ import annotations

import pytest

from studio.errors import FormatError
from studio.outline import (
    OutlineChapter,
    VolumeOutline,
    chinese_numeral,
    parse_outline,
    render_outline,
)

SAMPLE = """\
# 第一卷 子时灯

雾港老城，子时起雾。
本卷讲沈照接过爷爷的灯。

## 第1章 子时送单
- Storyline: main-arc
- POV: shen-zhao
- Location: 青石巷
- Conflict: 送最后一单时撞上起雾
- Arc: 从只想赚钱到第一次点灯
- Foreshadowing: 种下 bell-in-fog
- StateChanges: 沈照得到长明灯

这一章要快，开头三百字内起雾。

## 第2章：守灯司的规矩
- storyline：main-arc
- 视角：shen-zhao
- 地点：沈记灯铺
- 冲突: 许青禾要收走灯
- 弧线: 不服
- 伏笔: 种下 thirteenth-lamp
- 状态变更: 与许青禾关系 +10
- Mood: 冷
- 沈照心想：完了
"""


def test_parse_sample() -> None:
    outline = parse_outline(SAMPLE, "outline.md")
    assert outline.title == "第一卷 子时灯"
    assert outline.synopsis == "雾港老城，子时起雾。\n本卷讲沈照接过爷爷的灯。"
    assert outline.chapter_range == (1, 2)
    first = outline.chapters[0]
    assert first == OutlineChapter(
        number=1,
        title="子时送单",
        storyline="main-arc",
        pov="shen-zhao",
        location="青石巷",
        conflict="送最后一单时撞上起雾",
        arc="从只想赚钱到第一次点灯",
        foreshadowing="种下 bell-in-fog",
        state_changes="沈照得到长明灯",
        notes=["这一章要快，开头三百字内起雾。"],
    )
    second = outline.get(2)
    assert second is not None
    assert second.title == "守灯司的规矩"
    assert second.storyline == "main-arc"  # lower-case key and full-width colon
    assert second.pov == "shen-zhao"  # Chinese alias
    assert second.location == "沈记灯铺"
    assert second.conflict == "许青禾要收走灯"
    assert second.arc == "不服"
    assert second.foreshadowing == "种下 thirteenth-lamp"
    assert second.state_changes == "与许青禾关系 +10"
    assert second.extra == {"Mood": "冷"}
    assert second.notes == ["- 沈照心想：完了"]  # a Chinese sentence with a colon is a note, not a field
    assert outline.get(3) is None


def test_chinese_numerals() -> None:
    assert chinese_numeral("一") == 1
    assert chinese_numeral("十") == 10
    assert chinese_numeral("十二") == 12
    assert chinese_numeral("二十") == 20
    assert chinese_numeral("一百零三") == 103
    assert chinese_numeral("两千零一十") == 2010
    assert chinese_numeral("一二三") == 123
    assert chinese_numeral("一万零五") == 10005
    with pytest.raises(ValueError):
        chinese_numeral("十A")


def test_chinese_chapter_numbers() -> None:
    text = "## 第十一章 甲\n- Storyline: main-arc\n\n## 第十二章 乙\n\n### 第 13 章 丙\n"
    outline = parse_outline(text)
    assert outline.numbers() == [11, 12, 13]
    assert outline.chapter_range == (11, 13)
    assert outline.chapters[2].title == "丙"
    assert outline.title == ""


def test_full_width_digits_and_empty_title() -> None:
    outline = parse_outline("## 第１０章\n")
    assert outline.chapters[0].number == 10
    assert outline.chapters[0].title == ""


def test_empty_outline() -> None:
    outline = parse_outline("")
    assert outline == VolumeOutline()
    assert outline.chapter_range is None


def test_header_only() -> None:
    outline = parse_outline("# 第二卷\n\n梗概。\n")
    assert outline.title == "第二卷"
    assert outline.synopsis == "梗概。"
    assert outline.chapters == []


def test_blank_fields_are_none() -> None:
    outline = parse_outline("## 第1章 甲\n- Location:\n- Conflict:   \n")
    assert outline.chapters[0].location is None
    assert outline.chapters[0].conflict is None


def test_all_problems_at_once() -> None:
    text = "\n".join(
        [
            "# 卷",  # 1
            "## 第1章 甲",  # 2
            "- Storyline: Main Arc",  # 3
            "## 第3章 乙",  # 4
            "- Storyline: main-arc",  # 5
            "- Storyline: side-arc",  # 6
            "## 第2章 丙",  # 7
            "## 第3章 丁",  # 8
            "## 第0章 戊",  # 9
        ]
    )
    with pytest.raises(FormatError) as info:
        parse_outline(text, "volumes/vol-01/outline.md")
    problems = info.value.problems
    assert [p.line for p in problems] == [3, 6, 7, 8, 9]
    assert all(str(p.path) == "volumes/vol-01/outline.md" for p in problems)
    assert "not a slug" in problems[0].reason
    assert "twice" in problems[1].reason
    assert "must increase" in problems[2].reason
    assert "appears twice" in problems[3].reason and "line 4" in problems[3].reason
    assert ">= 1" in problems[4].reason
    assert "volumes/vol-01/outline.md:3" in str(info.value)


def test_round_trip_of_sample() -> None:
    outline = parse_outline(SAMPLE)
    assert parse_outline(render_outline(outline)) == outline


def test_round_trip_of_built_outline() -> None:
    outline = VolumeOutline(
        title="第一卷 子时灯",
        synopsis="第一行\n\n第二段",
        chapters=[
            OutlineChapter(number=1, title="开端", storyline="main-arc", pov="shen-zhao"),
            OutlineChapter(number=2, title="", conflict="冲突", extra={"Hook": "钩子", "Empty": ""}),
            OutlineChapter(number=5, title="跳章", notes=["备注一", "备注二"]),
        ],
    )
    text = render_outline(outline)
    assert text.startswith("# 第一卷 子时灯\n\n第一行\n\n第二段\n\n## 第1章 开端\n- Storyline: main-arc\n")
    assert parse_outline(text) == outline


def test_render_is_canonical() -> None:
    text = render_outline(parse_outline(SAMPLE))
    assert render_outline(parse_outline(text)) == text
    assert "- StateChanges: 与许青禾关系 +10" in text
    assert "## 第2章 守灯司的规矩" in text


def test_fenced_block_in_header_is_synopsis() -> None:
    text = "# 卷\n```\n## 第1章 不是章节\n```\n## 第2章 是\n"
    outline = parse_outline(text)
    assert outline.numbers() == [2]
    assert "## 第1章 不是章节" in outline.synopsis
