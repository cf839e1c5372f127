"""The import preview (issue 10 item 1): what was found, readable at 80x24, folded lists, both languages, and
JSON-ready data with every issue."""

from __future__ import annotations

import json
from pathlib import Path

from rich.cells import cell_len

from studio.i18n import chars_text
from studio.importing.preview import preview_data, preview_lines
from studio.importing.source import read_source
from studio.importing.split import split_manuscript
from studio.models.manuscript import Manuscript

BODY = "　　他站在雾港的码头上，望着远处的灯塔。海风吹过来，带着咸湿的味道。\n" * 40


def manuscript(tmp_path: Path, text: str, encoding: str = "utf-8") -> Manuscript:
    path = tmp_path / "一个名字很长很长很长很长很长很长很长的书稿文件.txt"
    path.write_bytes(text.encode(encoding))
    return split_manuscript(read_source(path))


def fits(lines: list[str]) -> None:
    assert len(lines) <= 20, lines  # leaves room for a prompt on a 24-line terminal
    assert all(cell_len(line) <= 80 for line in lines), [line for line in lines if cell_len(line) > 80]


def test_what_was_found(tmp_path: Path) -> None:
    text = (f"楔子\n{BODY}第一卷 少年\n" + "".join(f"第{n}章 标题{n}\n{BODY}" for n in range(1, 4))
            + "第二卷 青年\n" + "".join(f"第{n}章 标题{n}\n{BODY}" for n in range(4, 6)) + f"番外 旧事\n{BODY}")
    m = manuscript(tmp_path, text, "gb18030")
    lines = preview_lines(m)
    fits(lines)
    shown = "\n".join(lines)
    words = sum(c.words for c in m.chapters)
    assert f"找到 7 章，共 {chars_text(words, 'zh')}" in shown
    assert "编码：GB18030/GBK，已转换为 UTF-8。" in shown
    assert "首章：楔子" in shown and "末章：番外 旧事" in shown
    assert "第一卷 少年：第 1-4 章（4 章）" in shown and "第二卷 青年：第 5-7 章（3 章）" in shown
    assert "序章/楔子 1 个，番外 1 个" in shown
    assert "没有发现可疑的切分" in shown
    english = "\n".join(preview_lines(m, "en"))
    assert "Found 7 chapters" in english and "Encoding: GB18030/GBK" in english and "Prologues: 1, extras: 1" in english


def test_many_issues_are_folded_and_every_line_fits(tmp_path: Path) -> None:
    numbers = [n * 3 for n in range(1, 40)]  # a gap before every chapter but the first
    long_title = "一个非常非常非常非常非常非常非常长的章节标题"
    text = "前言：" + "很长的前言" * 30 + "\n" + "".join(f"第{n}章 {long_title}\n{BODY}" for n in numbers)
    m = manuscript(tmp_path, text)
    gaps = [i for i in m.issues if i.kind == "gap"]
    assert len(gaps) == 38
    lines = preview_lines(m)
    fits(lines)
    assert any(line.strip().startswith("… 另有") for line in lines)
    assert "需要留意 39 处（正文前文字 1、缺章 38）：" in lines
    assert "第 2 章之前缺少原文第 4-5 章" in "\n".join(lines)
    fits(preview_lines(m, "en"))
    assert any("more" in line for line in preview_lines(m, "en"))


def test_issue_lines_name_positions_and_source_numbers(tmp_path: Path) -> None:
    text = "".join(f"第{n}章 标题\n{BODY}" for n in (1, 2, 2, 3)) + "第4章 短\n短。\n"
    shown = "\n".join(preview_lines(manuscript(tmp_path, text)))
    assert "第 3 章（原文第 2 章）与前面的章号重复" in shown
    assert "第 5 章（原文第 4 章）很短：2字" in shown


def test_no_headings_says_what_was_done_and_what_else_is_possible(tmp_path: Path) -> None:
    m = manuscript(tmp_path, BODY * 10)
    shown = "\n".join(preview_lines(m))
    assert "没有找到章节标题，已按字数切分" in shown and "也可以选择按空行切分" in shown


def test_preview_data_is_json_ready_and_complete(tmp_path: Path) -> None:
    numbers = [n * 3 for n in range(1, 12)]
    text = "".join(f"第{n}章 标题{n}\n{BODY}" for n in numbers)
    m = manuscript(tmp_path, text, "gb18030")
    data = preview_data(m, skipped=["cover.jpg"])
    again = json.loads(json.dumps(data, ensure_ascii=False))
    assert again["chapters"] == 11 and again["encoding"] == "gb18030" and again["mode"] == "headings"
    assert again["words"] == sum(c.words for c in m.chapters)
    assert again["first"]["source_number"] == 3 and again["last"]["title"] == "标题33"
    assert len([i for i in again["issues"] if i["kind"] == "gap"]) == 10  # nothing folded
    assert again["issues"][0]["text_zh"].startswith("第 2 章之前缺少") and again["issues"][0]["numbers"] == [4, 5]
    assert again["volumes"] == [{"number": 1, "title": "", "heading": "", "first": 1, "last": 11,
                                 "source_number": None}]
    assert again["skipped"] == ["cover.jpg"]


def test_english_says_characters_and_uses_the_singular(tmp_path: Path) -> None:
    """The English preview counts characters in English (it said `12,918 字`) and says `1 thing to check`, not
    `1 things`; more than one keeps the plural; the Chinese text is unchanged."""
    text = "作者：某某\n" + "".join(f"第{n}章 标题{n}\n{BODY}" for n in (1, 2, 4))
    m = manuscript(tmp_path, text)
    english = preview_lines(m, "en")
    shown = "\n".join(english)
    words = sum(c.words for c in m.chapters)
    assert f"Found 3 chapters, {words:,} characters (split at chapter headings)." in english
    assert "2 things to check (1 front matter, 1 gap):" in english
    assert "5 characters before the first chapter (kept)" in shown
    assert "before chapter 3: source chapter 3 is missing" in shown
    assert "字" not in shown.replace("作者：某某", "")  # the source's own text aside
    one = manuscript(tmp_path, f"第1章 开端\n{BODY}第3章 结局\n{BODY}")
    single = preview_lines(one, "en")
    assert "1 thing to check (1 gap):" in single, single
    assert not any("1 things" in line or "1 gaps" in line for line in single), single
    chinese = "\n".join(preview_lines(m))
    assert f"共 {chars_text(words, 'zh')}" in chinese and "需要留意 2 处（正文前文字 1、缺章 1）：" in chinese
    assert "正文前有 5字不属于任何章节" in chinese


def test_tr_count_picks_the_english_singular() -> None:
    from studio.i18n import tr_count

    catalog = {"x": ("{n} 处", "{n} things"), "x_one": ("{n} 处", "1 thing"), "y": ("{n} 个", "{n} items")}
    assert [tr_count(catalog, "x", "en", n, n=n) for n in (0, 1, 2)] == ["0 things", "1 thing", "2 things"]
    assert tr_count(catalog, "x", "zh", 1, n=1) == "1 处"
