"""`studio.tui.hunks.fold_offsets`: where the dialogs' text (`FoldedText`) breaks at a given width: Chinese between
any two characters, a Latin word whole, no closing mark at a line start and no opening mark at a line end."""

from __future__ import annotations

from rich.cells import cell_len

from studio.tui.hunks import fold_offsets


def _lines(text: str, width: int) -> list[str]:
    cuts = [0, *fold_offsets(text, width), len(text)]
    return [text[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def test_chinese_breaks_anywhere_within_the_width() -> None:
    text = "偏短句，动作推进，场景描写不超过两句；对话里夹一句生活化的吐槽或算账"
    lines = _lines(text, 20)
    assert "".join(lines) == text
    assert all(cell_len(line) <= 20 for line in lines)
    assert not any(line[0] in "，。；" for line in lines[1:])


def test_a_latin_word_moves_whole_with_its_opening_bracket() -> None:
    """The trial-confirm dialog at 80x24 showed `（xu-qing-h` / `e）`: the slug moved whole leaves no `（`
    at the end of the line either."""
    text = "角色：顾远舟（gu-yuan-zhou）、沈照（shen-zhao）、许青禾（xu-qing-he）"
    for width in range(24, 60):
        lines = _lines(text, width)
        assert "".join(lines) == text
        assert all(cell_len(line) <= width for line in lines), width
        for line in lines[:-1]:
            assert not line.endswith("（"), (width, lines)
        for slug in ("gu-yuan-zhou", "shen-zhao", "xu-qing-he"):
            assert any(slug in line for line in lines), (width, lines)
    assert _lines(text, 66)[1] == "（xu-qing-he）"


def test_a_word_longer_than_the_line_is_cut() -> None:
    assert _lines("a" * 25, 10) == ["a" * 10, "a" * 10, "a" * 5]
