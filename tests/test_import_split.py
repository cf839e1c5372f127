"""Splitting a manuscript into chapters and volumes (issue 10 item 1): heading styles, numbering problems,
front matter, fallbacks, folder sources. Manuscripts are generated in tmp_path."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from studio.importing.headings import parse_bare_number, parse_heading
from studio.importing.numerals import parse_number
from studio.importing.source import read_source
from studio.importing.split import split_manuscript
from studio.models.manuscript import Manuscript
from studio.wordcount import word_count

PARA = "　　他站在雾港的码头上，望着远处的灯塔。海风吹过来，带着咸湿的味道。\n\n　　“你真的要走吗？”她问。沈照没有回答。\n"
BODY = PARA * 12  # about 600 字


def write(tmp_path: Path, text: str, name: str = "book.txt", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def split_text(tmp_path: Path, text: str, **kwargs: object) -> Manuscript:
    return split_manuscript(read_source(write(tmp_path, text)), **kwargs)  # type: ignore[arg-type]


def kinds(m: Manuscript) -> list[str]:
    return [i.kind for i in m.issues]


def no_space(text: str) -> str:
    return re.sub(r"\s+", "", text)


def joined(m: Manuscript) -> str:
    """Every character the manuscript holds, in reading order."""
    parts = [m.front_matter]
    starts = {v.first: v for v in m.volumes}
    for c in m.chapters:
        volume = starts.get(c.position)
        if volume is not None:
            parts += [volume.heading, volume.intro]
        parts += [c.heading, c.text]
    return no_space("".join(parts))


@pytest.mark.parametrize(("text", "value"), [
    ("123", 123), ("１２３", 123), ("一百二十三", 123), ("一千零一", 1001), ("两百", 200), ("十二", 12),
    ("十", 10), ("一〇一", 101), ("二零二三", 2023), ("一万零一", 10001), ("壹佰", 100), ("一百一十", 110),
    ("零", 0), ("百百", None), ("", None), ("一二百", None), ("abc", None),
])
def test_numbers_as_authors_write_them(text: str, value: int | None) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize(("line", "number", "title"), [
    ("第123章 标题", 123, "标题"),
    ("第一百二十三章", 123, ""),
    ("第一千零一章：风起", 1001, "风起"),
    ("第两百章 归来", 200, "归来"),
    ("第〇一章 开端", 1, "开端"),
    ("第１２３章　標題", 123, "標題"),
    ("第12回 大闹天宫", 12, "大闹天宫"),
    ("# 第1章 风起", 1, "风起"),
    ("Chapter 12: The End", 12, "The End"),
    ("第5章、雨夜", 5, "雨夜"),
    ("第5章·雨夜", 5, "雨夜"),
    ("第5章-雨夜", 5, "雨夜"),
    ("第5章:雨夜", 5, "雨夜"),
    ("【第5章】雨夜", 5, "雨夜"),
    ("第五章风起云涌", 5, "风起云涌"),
    ("　　第6章 缩进的标题", 6, "缩进的标题"),
])
def test_chapter_heading_forms(line: str, number: int, title: str) -> None:
    heading = parse_heading(line)
    assert heading is not None and heading.kind == "chapter"
    assert (heading.number, heading.title) == (number, title)


@pytest.mark.parametrize("line", [
    "第三章里，他说过的话还在耳边。",
    "第三章的内容讲的是他们怎么离开雾港的故事，一直写到天亮才停下来休息。",
    "他翻到第三章，看见了那句话。",
    "“第三章写完了吗？”",
    "第二部分",
    "卷一阵风吹过",
    "后记得那天",
])
def test_prose_is_not_a_heading(line: str) -> None:
    assert parse_heading(line) is None


def test_chapters_titles_and_numbers(tmp_path: Path) -> None:
    text = "".join(f"第{n}章 标题{n}\n{BODY}\n" for n in range(1, 6))
    m = split_text(tmp_path, text)
    assert [c.source_number for c in m.chapters] == [1, 2, 3, 4, 5]
    assert [c.position for c in m.chapters] == [1, 2, 3, 4, 5]
    assert [c.title for c in m.chapters] == [f"标题{n}" for n in range(1, 6)]
    assert m.mode == "headings" and m.issues == []
    assert m.volumes and (m.volumes[0].first, m.volumes[0].last) == (1, 5)
    assert all(c.text.startswith("　　他站在") for c in m.chapters)
    assert joined(m) == no_space(text)


def test_prose_mentioning_a_chapter_stays_in_the_body(tmp_path: Path) -> None:
    text = f"第一章 开端\n{BODY}第三章里，他说过的话还在耳边。\n{BODY}第二章 继续\n{BODY}"
    m = split_text(tmp_path, text)
    assert [c.source_number for c in m.chapters] == [1, 2]
    assert "第三章里，他说过的话还在耳边。" in m.chapters[0].text


def test_sections_inside_chapters_are_not_chapters(tmp_path: Path) -> None:
    text = "".join(f"第{n}章 标题\n第一节\n{BODY}第二节\n{BODY}" for n in range(1, 4))
    m = split_text(tmp_path, text)
    assert len(m.chapters) == 3
    assert "第二节" in m.chapters[0].text


def test_volumes_prologue_extra_and_per_volume_numbering(tmp_path: Path) -> None:
    text = (f"楔子\n{BODY}第一卷 少年\n本卷写少年时。\n第1章 出山\n{BODY}第2章 下山\n{BODY}"
            f"第二卷 青年\n第1章 再起\n{BODY}第2章 又起\n{BODY}番外一 林家旧事\n{BODY}")
    m = split_text(tmp_path, text)
    assert [c.kind for c in m.chapters] == ["prologue", "chapter", "chapter", "chapter", "chapter", "extra"]
    assert m.chapters[0].label == "楔子" and m.chapters[-1].label == "番外一"
    assert [(v.title, v.first, v.last) for v in m.volumes] == [("少年", 1, 3), ("青年", 4, 6)]
    assert m.volumes[0].intro == "本卷写少年时。"
    assert [c.volume for c in m.chapters] == [1, 1, 1, 2, 2, 2]
    assert "gap" not in kinds(m) and "repeat" not in kinds(m) and "out_of_order" not in kinds(m)
    assert sorted(joined(m)) == sorted(no_space(text))  # the prologue comes before the first volume heading


def test_numbering_gaps_repeats_and_disorder(tmp_path: Path) -> None:
    numbers = [1, 2, 3, 6, 7, 7, 5, 8]
    text = "".join(f"第{n}章 标题\n{BODY}" for n in numbers)
    m = split_text(tmp_path, text)
    by_kind = {(i.kind, i.position, i.source_number) for i in m.issues}
    assert ("repeat", 6, 7) in by_kind
    assert ("out_of_order", 7, 5) in by_kind
    gap = next(i for i in m.issues if i.kind == "gap")
    assert (gap.position, gap.numbers) == (4, [4])  # 5 comes later, out of order: only 4 is missing
    assert len(m.chapters) == len(numbers)


def test_front_matter_and_table_of_contents_are_kept(tmp_path: Path) -> None:
    toc = "目录\n第1章 风起\n第2章 云涌\n第3章 雨落\n"
    text = f"书名：雾港\n作者：某某\n\n{toc}\n" + "".join(f"第{n}章 标题\n{BODY}" for n in (1, 2, 3))
    m = split_text(tmp_path, text)
    assert len(m.chapters) == 3 and all(c.words > 300 for c in m.chapters)
    assert "书名：雾港" in m.front_matter and "第2章 云涌" in m.front_matter
    assert "front_matter" in kinds(m) and "short" not in kinds(m) and "repeat" not in kinds(m)
    assert joined(m) == no_space(text)


def test_short_and_long_chapters(tmp_path: Path) -> None:
    text = "".join(f"第{n}章\n{BODY * (12 if n == 4 else 1)}" for n in range(1, 7)) + "第7章\n短。\n"
    m = split_text(tmp_path, text)
    assert {(i.kind, i.position) for i in m.issues} >= {("long", 4), ("short", 7)}


def test_no_headings_falls_back_to_blank_lines(tmp_path: Path) -> None:
    chunk = "".join(f"　　第{k}段。{PARA.strip()}\n" for k in range(10))
    text = "\n\n\n".join(chunk for _ in range(4))
    m = split_text(tmp_path, text)
    assert m.mode == "blank" and len(m.chapters) == 4
    assert "no_headings" in kinds(m)
    assert joined(m) == no_space(text)


def test_no_headings_falls_back_to_size(tmp_path: Path) -> None:
    text = "".join(f"　　第{k}段。{PARA.strip()}\n" for k in range(400))
    m = split_text(tmp_path, text, target_chars=3000)
    assert m.mode == "size" and "no_headings" in kinds(m)
    assert all(2000 <= c.words <= 4000 for c in m.chapters[:-1])
    lines = set(text.split("\n"))
    for c in m.chapters:  # never cut inside a paragraph
        assert all(line in lines for line in c.text.split("\n"))
    assert joined(m) == no_space(text)


def test_crlf_is_normalised_and_nothing_else_changes(tmp_path: Path) -> None:
    text = "第1章 一\r\n" + BODY.replace("\n", "\r\n") + "第2章 二\r" + BODY.replace("\n", "\r")
    m = split_text(tmp_path, text)
    assert len(m.chapters) == 2 and "\r" not in m.chapters[0].text + m.chapters[1].text
    assert m.chapters[0].text == BODY.strip("\n")


def test_folder_of_chapter_files(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    for n in (1, 2, 10):
        write(folder, f"第{n}章 标题{n}\n{BODY}", f"第{n}章.txt")
    write(folder, BODY, "第3章.md", "gb18030")
    write(folder, "x", "cover.jpg")
    write(folder, "x", ".DS_Store")
    source = read_source(folder)
    assert [f.name for f in source.files] == ["第1章.txt", "第2章.txt", "第3章.md", "第10章.txt"]
    assert sorted(source.skipped) == [".DS_Store", "cover.jpg"]
    m = split_manuscript(source)
    assert [c.source_number for c in m.chapters] == [1, 2, 3, 10]
    assert [c.title for c in m.chapters] == ["标题1", "标题2", "", "标题10"]
    assert m.chapters[2].text == BODY.strip("\n") and m.chapters[2].heading == ""
    assert {f.encoding for f in source.files} == {"utf-8", "gb18030"}
    assert source.encoding == "gb18030+utf-8"
    assert [i.kind for i in m.issues] == ["gap"]


def test_a_table_of_contents_with_volumes_joins_the_front_matter(tmp_path: Path) -> None:
    toc = "目录\n第一卷 少年\n第1章 风起\n第2章 云涌\n第二卷 青年\n第3章 雨落\n"
    text = toc + f"第一卷 少年\n第1章 风起\n{BODY}第2章 云涌\n{BODY}第二卷 青年\n第3章 雨落\n{BODY}"
    m = split_text(tmp_path, text)
    assert [c.title for c in m.chapters] == ["风起", "云涌", "雨落"]
    assert [(v.title, v.first, v.last) for v in m.volumes] == [("少年", 1, 2), ("青年", 3, 3)]
    assert "第二卷 青年\n第3章 雨落" in m.front_matter
    assert kinds(m) == ["front_matter"]
    assert joined(m) == no_space(text)


def test_a_heading_written_twice_heads_one_chapter(tmp_path: Path) -> None:
    text = "".join(f"第{n}章 标题{n}\n\n第{n}章 标题{n}\n{BODY}" for n in (1, 2, 3))
    m = split_text(tmp_path, text)
    assert [c.source_number for c in m.chapters] == [1, 2, 3]
    assert m.issues == []
    assert m.chapters[1].text.startswith("第2章 标题2\n")
    assert joined(m) == no_space(text)


@pytest.mark.parametrize("unit", ["节", "话", "回"])
def test_books_whose_chapters_are_sections_or_episodes(tmp_path: Path, unit: str) -> None:
    text = "".join(f"第{n}{unit} 标题\n{BODY}" for n in range(1, 5))
    m = split_text(tmp_path, text)
    assert [c.source_number for c in m.chapters] == [1, 2, 3, 4] and m.issues == []


def test_one_chapter_heading_among_sections_does_not_swallow_the_book(tmp_path: Path) -> None:
    text = "".join(f"第{n}节 标题\n{BODY}" for n in range(1, 5)) + "第三章\n" + BODY
    m = split_text(tmp_path, text)
    assert [c.source_number for c in m.chapters] == [1, 2, 3, 4]
    assert "第三章" in m.chapters[-1].text


def test_chapters_before_the_first_volume_heading_are_a_volume_of_their_own(tmp_path: Path) -> None:
    text = f"第1章 一\n{BODY}第2章 二\n{BODY}第二卷 后来\n第3章 三\n{BODY}"
    m = split_text(tmp_path, text)
    assert [(v.number, v.heading, v.first, v.last) for v in m.volumes] == [(1, "", 1, 2), (2, "第二卷 后来", 3, 3)]
    assert [c.volume for c in m.chapters] == [1, 1, 2]


def test_blank_line_split_when_paragraphs_have_no_blank_lines_between(tmp_path: Path) -> None:
    chunk = "".join(f"　　第{k}段。他站在雾港的码头上，望着远处的灯塔。海风吹过来，带着咸湿的味道。\n" for k in range(12))
    text = "\n".join(chunk for _ in range(3))  # one blank line between chapters, none between paragraphs
    m = split_text(tmp_path, text, mode="blank")
    assert m.mode == "blank" and len(m.chapters) == 3 and m.issues == []


def test_a_volume_heading_after_the_last_chapter_is_kept_and_counted(tmp_path: Path) -> None:
    text = f"第1章 一\n{BODY}第2章 二\n{BODY}第三卷 待续\n"
    m = split_text(tmp_path, text)
    assert m.chapters[-1].text.endswith("第三卷 待续")
    assert m.chapters[-1].words == word_count(m.chapters[-1].text)


def test_a_chapter_in_parts_is_no_repeat_and_an_end_mark_is_no_heading(tmp_path: Path) -> None:
    text = (f"第1章 开端\n{BODY}第一章完\n第2章 风起（上）\n{BODY}第2章 风起（下）\n{BODY}"
            f"第3章 雨\n{BODY}第3章 雨\n{BODY}")
    m = split_text(tmp_path, text)
    assert [c.title for c in m.chapters] == ["开端", "风起（上）", "风起（下）", "雨", "雨"]
    assert m.chapters[0].text.endswith("第一章完")
    assert [(i.kind, i.position) for i in m.issues] == [("repeat", 5)]


# --- bare-number headings (`001 标题`, `1. 标题`, `001` alone) ----------------------------------------------


@pytest.mark.parametrize("form", ["{n:03d} 标题{n}", "{n}. 标题{n}", "{n:03d}", "【{n:03d}】标题{n}", "# {n}、标题{n}"])
def test_bare_number_headings_in_sequence_are_chapters(tmp_path: Path, form: str) -> None:
    text = "".join(f"{form.format(n=n)}\n{BODY}\n" for n in range(1, 6))
    m = split_text(tmp_path, text)
    assert m.mode == "headings" and [c.source_number for c in m.chapters] == [1, 2, 3, 4, 5]
    titled = "标题" in form
    assert [c.title for c in m.chapters] == [f"标题{n}" if titled else "" for n in range(1, 6)]
    assert all(c.text.startswith("　　他站在") for c in m.chapters)
    assert "no_headings" not in kinds(m) and joined(m) == no_space(text)


def test_bare_number_gaps_are_reported_not_dropped(tmp_path: Path) -> None:
    text = "".join(f"{n:03d} 标题{n}\n{BODY}" for n in (1, 2, 4, 5))
    m = split_text(tmp_path, text)
    assert [c.source_number for c in m.chapters] == [1, 2, 4, 5]
    assert [(i.kind, i.numbers) for i in m.issues] == [("gap", [3])]


def test_numbers_in_prose_and_numbered_lists_are_not_headings(tmp_path: Path) -> None:
    listed = "1. 买菜\n2. 做饭\n3. 洗碗\n"
    text = (f"001 开端\n{BODY}2024\n{BODY}002 继续\n{listed}{BODY}3\n{BODY}003 又起\n{BODY}"
            f"1984年的冬天很冷。\n3 个人\n{BODY}")
    m = split_text(tmp_path, text)
    assert [(c.source_number, c.title) for c in m.chapters] == [(1, "开端"), (2, "继续"), (3, "又起")]
    assert "2024" in m.chapters[0].text and listed.strip() in m.chapters[1].text and "\n3\n" in m.chapters[1].text
    assert joined(m) == no_space(text)


def test_a_numbered_list_alone_is_no_book_of_chapters(tmp_path: Path) -> None:
    text = f"{BODY}1. 买菜\n2. 做饭\n3. 洗碗\n4. 睡觉\n{BODY}"
    m = split_text(tmp_path, text)
    assert m.mode != "headings" and "no_headings" in kinds(m)  # the fallback, as before
    assert joined(m) == no_space(text)


def test_too_few_bare_numbers_are_no_headings(tmp_path: Path) -> None:
    text = f"001 开端\n{BODY}002 继续\n{BODY}"
    assert split_text(tmp_path, text).mode != "headings"


def test_bare_numbers_restart_in_each_volume_and_a_contents_list_is_front_matter(tmp_path: Path) -> None:
    contents = "目录\n001 出山\n002 下山\n003 再起\n"
    text = (f"{contents}第一卷 少年\n001 出山\n{BODY}002 下山\n{BODY}"
            f"第二卷 青年\n001 再起\n{BODY}002 又起\n{BODY}")
    m = split_text(tmp_path, text)
    assert [(c.volume, c.source_number, c.title) for c in m.chapters] == [
        (1, 1, "出山"), (1, 2, "下山"), (2, 1, "再起"), (2, 2, "又起")]
    assert [v.title for v in m.volumes] == ["少年", "青年"]
    assert "001 出山" in m.front_matter and not any(i.kind in ("repeat", "out_of_order") for i in m.issues)
    assert sorted(joined(m)) == sorted(no_space(text))


def test_real_headings_win_over_bare_numbers(tmp_path: Path) -> None:
    text = "".join(f"第{n}章 标题{n}\n{n:03d} 小节\n{BODY}" for n in range(1, 5))
    m = split_text(tmp_path, text)
    assert [c.source_number for c in m.chapters] == [1, 2, 3, 4]
    assert m.chapters[0].text.startswith("001 小节")


def test_a_folder_of_files_headed_by_bare_numbers(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    for n in range(1, 4):
        (folder / f"part{n}.txt").write_text(f"{n:03d} 标题{n}\n{BODY}", encoding="utf-8")
    m = split_manuscript(read_source(folder))
    assert [(c.source_number, c.title, c.heading) for c in m.chapters] == [
        (n, f"标题{n}", f"{n:03d} 标题{n}") for n in range(1, 4)]
    assert all(c.text.startswith("　　他站在") for c in m.chapters)


@pytest.mark.parametrize(("line", "number", "title"), [
    ("001 风起", 1, "风起"), ("1. 标题", 1, "标题"), ("001", 1, ""), ("【001】风起", 1, "风起"),
    ("１２ 风", 12, "风"), ("0012：雨", 12, "雨"), ("# 7", 7, ""),
])
def test_bare_number_candidates(line: str, number: int, title: str) -> None:
    heading = parse_bare_number(line)
    assert heading is not None and (heading.number, heading.title) == (number, title)


@pytest.mark.parametrize("line", ["1984年的冬天", "1.5公里", "10:30", "2024-01-05", "3 个人走进来了，他说", "12345 太长",
                                  "1. 这是一个很长很长很长很长很长很长很长很长的句子标题"])
def test_numbers_in_prose_are_no_candidates(line: str) -> None:
    assert parse_bare_number(line) is None
