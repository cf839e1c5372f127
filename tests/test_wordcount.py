from __future__ import annotations

import time

import pytest

from studio.wordcount import strip_markdown, word_count


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("   \n\n\t ", 0),
        ("你好世界", 4),
        ("你好，世界！", 6),  # Chinese punctuation counts
        ("“行吧。”他说。", 8),
        ("abc 123", 6),  # ASCII letters and digits count, spaces do not
        ("\u3000\u3000雾起了。", 4),  # full-width indent spaces do not count
        ("雾\u200b起", 2),  # zero-width characters do not count
        ("第一段。\n\n第二段。", 8),
    ],
)
def test_plain_text(text: str, expected: int) -> None:
    assert word_count(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# 第1章 子时送单\n\n雾起了。", 4),  # the title heading is not body
        ("## 小节\n正文", 2),
        ("#第1章 没有空格的标题\n正文", 2),  # Chinese authors often omit the space
        ("#\n正文", 2),
        ("**粗体**和*斜体*", 5),
        ("__粗__与_斜_", 3),
        ("~~删除~~线", 3),
        ("> 引用的话", 4),
        ("> > 两层引用", 4),
        ("- 第一项\n* 第二项\n+ 第三项", 9),
        ("1. 一\n2) 二", 2),
        ("上文\n\n---\n\n下文", 4),
        ("上文\n***\n下文", 4),
        ("[灯铺](https://example.com/a_b)到了", 4),  # link counts only its text
        ("[灯铺][1]到了\n\n[1]: https://example.com", 4),
        ("图![插图](a.png)后", 2),  # images are not body
        ("`代码`两字", 4),
        ("前<!-- 作者备注：这里要改 -->后", 2),
        ("前<!--\n多行\n备注\n-->后", 2),
        ("换行<br/>之后", 4),
        (r"\*星号\*", 4),  # escaped markers are literal characters
        (r"\# 不是标题", 5),
        ("```\n代码块\n```", 3),
    ],
)
def test_markdown_is_excluded(text: str, expected: int) -> None:
    assert word_count(text) == expected


def test_chapter_shape() -> None:
    chapter = "# 第1章 子时送单\n\n沈照把电动车停在巷口。\n\n“行吧。”他说。\n"
    assert word_count(chapter) == len("沈照把电动车停在巷口。") + len("“行吧。”他说。")


def test_strip_markdown_keeps_text() -> None:
    assert strip_markdown("**雾**起了").strip() == "雾起了"


def test_hyphen_inside_text_is_kept() -> None:
    assert word_count("A-B 一-二") == 6


def test_fast_on_a_long_novel() -> None:
    paragraph = "“行吧，”沈照说，“**我**去看看。”雾从巷子深处漫出来，灯火晃了一下。\n\n"
    chapter = "# 第1章 标题\n\n" + paragraph * 80  # ~3,000 characters
    start = time.perf_counter()
    for _ in range(500):
        word_count(chapter)
    assert time.perf_counter() - start < 5.0
