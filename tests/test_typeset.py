"""Chinese typesetting of the chapter pane (`studio.views.typeset`): line-breaking rules, indent, heading."""

from __future__ import annotations

import random

import pytest
from rich.cells import cell_len

from studio.views.typeset import (
    LINE_END_FORBIDDEN,
    LINE_START_FORBIDDEN,
    extend_layout,
    split_heading,
    typeset,
    wrap_paragraph,
)


def test_short_paragraph_is_one_line() -> None:
    assert wrap_paragraph("雾很大。", 20) == ["雾很大。"]
    assert wrap_paragraph("", 20) == [""]


def test_full_stop_never_starts_a_line() -> None:
    # 10 cells: five characters fit, the sixth is 。 -> the 5th character goes down with it.
    lines = wrap_paragraph("一二三四五。六七八九", 10)
    assert lines == ["一二三四", "五。六七八", "九"]
    assert all(not line.startswith("。") for line in lines)


def test_closing_quote_after_full_stop_moves_as_a_pair() -> None:
    lines = wrap_paragraph("一二三四。”六七八九", 8)  # 。” would start line 2
    assert lines[0] == "一二三"
    assert lines[1].startswith("四。”")


def test_opening_quote_never_ends_a_line() -> None:
    lines = wrap_paragraph("一二三四“五六七八”", 10)
    assert lines[0] == "一二三四"
    assert lines[1].startswith("“五")


def test_ellipsis_and_dash_are_not_split() -> None:
    lines = wrap_paragraph("一二三四……五六七八", 10)
    assert all(line.count("…") in (0, 2) for line in lines)
    assert not any(line.startswith("…") for line in lines)
    lines = wrap_paragraph("一二三四五——六七八", 11)
    assert all(line.count("—") in (0, 2) for line in lines)


def test_indent_never_stands_alone() -> None:
    paragraph = "　　" + "雾" * 30
    for width in range(6, 40):  # the indent and one character fit
        lines = wrap_paragraph(paragraph, width)
        assert lines[0].strip("　") != "", (width, lines)


def test_latin_runs_stay_whole() -> None:
    lines = wrap_paragraph("他打开了GPS导航，又看了看", 12)
    assert any("GPS" in line for line in lines)


def test_heading_is_left_out_once() -> None:
    heading, body, skipped = split_heading("# 第1章 子时送单\n\n晚上十一点。\n")
    assert heading == "# 第1章 子时送单"
    assert body == "晚上十一点。\n"
    assert skipped == 2
    assert split_heading("晚上十一点。") == (None, "晚上十一点。", 0)
    layout = typeset("# 第1章 子时送单\n\n晚上十一点。", 40)
    assert layout.lines == ["晚上十一点。"]
    assert "第1章" not in "\n".join(layout.lines)


def test_locate_maps_file_lines_to_rows() -> None:
    text = "# 第2章 灯\n\n" + "甲" * 30 + "\n\n乙在这里"
    layout = typeset(text, 20)  # 30 wide chars -> 3 rows of 10 chars (20 cells)
    assert layout.lines[:3] == ["甲" * 10] * 3
    assert layout.locate(4, 1) == (4, 1)  # file line 5 (0-based 4) -> the row after the blank line
    assert layout.lines[4][1] == "在"
    assert layout.locate(2, 25) == (2, 5)
    assert layout.locate(0, 0) == (0, 0)  # the heading itself: the top


@pytest.mark.parametrize("seed", range(20))
def test_random_text_keeps_every_rule(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = list("雾港灯塔沈照林枫门巷夜风") + list("。，？！”“「」、") + ["……", "——", "　　", "abc", "12"]
    paragraph = "".join(rng.choice(alphabet) for _ in range(200))
    width = rng.randint(8, 60)
    lines = wrap_paragraph(paragraph, width)
    assert "".join(lines) == paragraph  # nothing lost, nothing added
    assert all(cell_len(line) <= width for line in lines)
    for before, line in zip(lines, lines[1:], strict=False):
        moved = len(before) > 1  # a one-unit line could not give anything down
        if moved:
            assert line[:1] not in LINE_START_FORBIDDEN or before in ("……", "——"), (before, line)
            assert before[-1:] not in LINE_END_FORBIDDEN or len(before) <= 2, (before, line)



def _greedy_reference(paragraph: str, width: int) -> list[str]:
    """The rules as first written (a unit at a time, a cell count per unit): the faster `wrap_paragraph` (one
    regex scan, widths remembered, line ends found by bisection) must break every paragraph the same way."""
    if not paragraph or width < 2 or cell_len(paragraph) <= width:
        return [paragraph]
    units: list[str] = []
    i = 0
    while i < len(paragraph):
        if paragraph[i : i + 2] in ("……", "——"):
            units.append(paragraph[i : i + 2])
            i += 2
        elif paragraph[i].isascii() and paragraph[i].isalnum():
            j = i
            while j < len(paragraph) and paragraph[j].isascii() and paragraph[j].isalnum():
                j += 1
            units.append(paragraph[i:j])
            i = j
        else:
            units.append(paragraph[i])
            i += 1
    indent = 0
    while indent < len(units) and units[indent] in "　 ":
        indent += 1
    if 0 < indent < len(units):
        units[: indent + 1] = ["".join(units[: indent + 1])]
    cut: list[str] = []
    for unit in units:
        if cell_len(unit) <= width:
            cut.append(unit)
            continue
        piece = ""
        for ch in unit:
            if piece and cell_len(piece + ch) > width:
                cut.append(piece)
                piece = ""
            piece += ch
        cut.append(piece)
    lines: list[str] = []
    start = 0
    while start < len(cut):
        end, used = start, 0
        while end < len(cut) and used + cell_len(cut[end]) <= width:
            used += cell_len(cut[end])
            end += 1
        if end < len(cut):
            while end - start > 1 and (cut[end][:1] in LINE_START_FORBIDDEN or cut[end - 1][-1:] in LINE_END_FORBIDDEN):
                end -= 1
        lines.append("".join(cut[start:end]))
        start = end
    return lines


@pytest.mark.parametrize("seed", range(40))
def test_wrap_paragraph_breaks_as_the_unit_by_unit_rules(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = [*"雾港灯塔沈照林枫门巷夜风", *"。，？！”“「」、（）《》", "……", "——", "…", "—", "　", " ", "\t",
                "abc", "Z9", "x", "e\u0301", "😀", "ｶ", "A" * 30]
    paragraph = ("　　" if rng.random() < 0.5 else "") + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 150)))
    width = rng.randint(0, 50)
    assert wrap_paragraph(paragraph, width) == _greedy_reference(paragraph, width)

DRAFT = (
    "# 第3章 雾港\n\n　　沈照把灯往前递了半寸，雾里的人影没有动。“你来晚了。”那人说。\n"
    "　　他没有答话——只是把灯放低了些……潮水在脚下退去，露出一排黑色的礁石。\n\n"
    "　　“明天，”他终于开口，“明天再来。”ABC123 的灯号在远处闪了三下。\n"
)


@pytest.mark.parametrize("width", [12, 21, 40, 76])
def test_extend_layout_equals_typesetting_the_whole_draft(width: int) -> None:
    """A draft cut anywhere, typeset, then extended to the whole text: the same lines and origins as the whole
    typeset at once (the streaming view and a draft selected again rely on it); None only while the text before
    the body is not settled."""
    for cut in range(len(DRAFT) + 1):
        old = typeset(DRAFT[:cut], width)
        extended = extend_layout(old, DRAFT)
        whole = typeset(DRAFT, width)
        if extended is None:
            assert split_heading(DRAFT[:cut])[2] != whole.skipped or not old.origins, cut
            continue
        layout, first_row = extended
        assert layout == whole, cut
        assert layout.lines[:first_row] == old.lines[:first_row]
        assert first_row >= len(old.lines) - len(wrap_paragraph(DRAFT[:cut].split("\n")[-1], width)), cut
