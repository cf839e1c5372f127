"""Reading a manuscript (issue 10 item 1): encodings detected both ways, mixed lines, bad input refused with a
clear message, folder sources. Files are generated in tmp_path by encoding strings with the codec."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from studio.importing import encoding
from studio.importing.encoding import choose_legacy, decode_bytes, oddness, plausibility
from studio.importing.preview import preview_lines
from studio.importing.source import ImportSourceError, natural_key, read_source
from studio.importing.split import split_manuscript

SIMPLIFIED = ("第1章 雾港\n　　他站在雾港的码头上，望着远处的灯塔。海风吹过来，带着咸湿的味道。\n"
              "　　“你真的要走吗？”她问。沈照没有回答，只是把手里的旧书抱得更紧了一些。\n"
              "第2章 灯塔\n　　他想起师父说过的话：灯不能灭，人也不能走。远处传来汽笛声，渡船慢慢靠了岸。\n")
TRADITIONAL = ("第1章 霧港\n　　他站在霧港的碼頭上，望著遠處的燈塔。海風吹過來，帶著鹹濕的味道。\n"
               "　　「你真的要走嗎？」她問。沈照沒有回答，只是把手裡的舊書抱得更緊了一些。\n"
               "第2章 燈塔\n　　他想起師父說過的話：燈不能滅，人也不能走。遠處傳來汽笛聲，渡船慢慢靠了岸。\n")


def write_bytes(tmp_path: Path, data: bytes, name: str = "book.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(("text", "data", "encoding", "bom"), [
    (SIMPLIFIED, SIMPLIFIED.encode("utf-8"), "utf-8", False),
    (SIMPLIFIED, codecs.BOM_UTF8 + SIMPLIFIED.encode("utf-8"), "utf-8", True),
    (SIMPLIFIED, SIMPLIFIED.encode("gb18030"), "gb18030", False),
    (SIMPLIFIED, SIMPLIFIED.encode("gbk"), "gb18030", False),
    (TRADITIONAL, TRADITIONAL.encode("big5"), "big5", False),
    (TRADITIONAL, TRADITIONAL.encode("cp950"), "big5", False),
    (TRADITIONAL, TRADITIONAL.encode("gb18030"), "gb18030", False),  # traditional characters in GB18030
    (SIMPLIFIED, SIMPLIFIED.encode("utf-16"), "utf-16", True),  # with its BOM
    (SIMPLIFIED, codecs.BOM_UTF16_BE + SIMPLIFIED.encode("utf-16-be"), "utf-16", True),
    (TRADITIONAL, codecs.BOM_UTF32_LE + TRADITIONAL.encode("utf-32-le"), "utf-32", True),
    (SIMPLIFIED, SIMPLIFIED.encode("utf-16-le"), "utf-16", False),  # no BOM: told by where the NULs stand
    (TRADITIONAL, TRADITIONAL.encode("utf-16-be"), "utf-16", False),
    (SIMPLIFIED, SIMPLIFIED.replace("\n", "\r\n").encode("utf-16-le"), "utf-16", False),  # CRLF normalised
])
def test_each_encoding_is_detected_and_converted(tmp_path: Path, text: str, data: bytes, encoding: str,
                                                 bom: bool) -> None:
    source = read_source(write_bytes(tmp_path, data))
    assert source.encoding == encoding and source.files[0].had_bom == bom
    assert source.files[0].text == text
    m = split_manuscript(source)
    assert [c.title for c in m.chapters] == [text[4:6], text.split("\n")[3][4:6]]
    shown = "\n".join(preview_lines(m))
    assert ("编码：UTF-8。" in shown) if encoding == "utf-8" else ("已转换为 UTF-8" in shown)


@pytest.mark.parametrize("length", [4, 8, 16, 40])
def test_gb_and_big5_are_told_apart_both_ways_on_short_texts(length: int) -> None:
    """Both readings decode without error; the plausible one wins, in both directions."""
    simplified = SIMPLIFIED.split("\n")[1].strip()[:length]
    traditional = TRADITIONAL.split("\n")[1].strip()[:length]
    as_gbk = simplified.encode("gbk")
    as_big5 = traditional.encode("cp950")
    assert decode_bytes(as_gbk, "a").text == simplified
    assert decode_bytes(as_big5, "b").text == traditional
    assert decode_bytes(as_big5, "b").encoding == "big5"
    # the wrong readings exist and are implausible
    wrong_for_big5 = as_big5.decode("gb18030")
    assert plausibility(wrong_for_big5) < plausibility(traditional)


def test_short_gbk_that_is_also_valid_utf8_is_read_as_gbk(tmp_path: Path) -> None:
    data = "目录".encode("gbk")
    assert data.decode("utf-8") == "Ŀ¼"  # the trap
    assert decode_bytes(data, "x").text == "目录"
    text = ("目录\n" + SIMPLIFIED).encode("gbk")
    assert read_source(write_bytes(tmp_path, text)).files[0].text.startswith("目录\n第1章")


def test_mixed_encodings_are_decoded_line_by_line_and_reported(tmp_path: Path) -> None:
    lines = SIMPLIFIED.rstrip("\n").split("\n")
    data = b"\n".join(line.encode("gbk" if k == 2 else "utf-8") for k, line in enumerate(lines)) + b"\n"
    source = read_source(write_bytes(tmp_path, data))
    f = source.files[0]
    assert f.text == SIMPLIFIED  # every line converted, nothing lost
    assert f.encoding == "utf-8+gb18030"
    assert f.mixed is not None and f.mixed.lines == [3] and f.mixed.encoding == "gb18030"
    m = split_manuscript(source)
    issue = next(i for i in m.issues if i.kind == "encoding")
    assert issue.numbers == [3] and issue.position == 1 and issue.file == "book.txt"
    shown = "\n".join(preview_lines(m))
    assert "第 3 行" in shown and "GB18030" in shown
    assert "(line 3)" in "\n".join(preview_lines(m, "en"))  # one line: the singular


def test_mostly_gbk_with_utf8_lines_reports_the_utf8_lines(tmp_path: Path) -> None:
    lines = (SIMPLIFIED * 3).rstrip("\n").split("\n")
    data = b"\n".join(line.encode("utf-8" if k == 4 else "gbk") for k, line in enumerate(lines))
    f = read_source(write_bytes(tmp_path, data)).files[0]
    assert f.text == (SIMPLIFIED * 3).rstrip("\n")
    assert f.mixed is not None and f.mixed.encoding == "utf-8" and f.mixed.lines == [5]


@pytest.mark.parametrize(("data", "words"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "不是文本文件"),
    (b"", "是空的"),
    (b" \n\r\n\t\xe3\x80\x80\n", "是空的"),
    (SIMPLIFIED.encode("utf-8")[:40] + b"\xff\xfe\xfd\xff\n" + SIMPLIFIED.encode("utf-8"), "无法识别编码：第 2 行"),
], ids=["png", "empty", "blank", "undecodable"])
def test_bad_files_are_refused_with_a_clear_message(tmp_path: Path, data: bytes, words: str) -> None:
    with pytest.raises(ImportSourceError) as caught:
        read_source(write_bytes(tmp_path, data))
    assert words in str(caught.value)


@pytest.mark.parametrize("data", [
    TRADITIONAL.encode("utf-32-le"),  # UTF-32 without a mark: zeros at both parities
    SIMPLIFIED.encode("utf-16-le")[:-1],  # odd length
    "第1章\x01\x02控制字符".encode("utf-16-le"),  # decodes, but control characters are no text
    b"\x00a" * 40 + b"\x00",  # NULs at one parity, odd length
], ids=["utf32", "odd-length", "controls", "odd-nul"])
def test_nul_bytes_that_are_not_utf16_are_still_refused(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(ImportSourceError, match="不是文本文件"):
        read_source(write_bytes(tmp_path, data))


def test_utf16_without_bom_keeps_every_character_and_splits(tmp_path: Path) -> None:
    text = SIMPLIFIED * 2 + "第3章 尾\n　　ABC 123，结束。\n"
    source = read_source(write_bytes(tmp_path, text.encode("utf-16-le")))
    assert source.files[0].text == text and source.encoding == "utf-16" and not source.files[0].had_bom
    assert encoding.utf16_without_bom(text.encode("utf-16-be")) == text


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_with_more_zero_low_bytes_than_ascii(tmp_path: Path, codec: str) -> None:
    # U+3000 (the paragraph indent) and 一 have a zero low byte: here they outnumber the ASCII characters.
    text = "0001 一\n" + "　　一一一，一一。　　一一一一。\n" * 20
    source = read_source(write_bytes(tmp_path, text.encode(codec)))
    assert source.files[0].text == text and source.encoding == "utf-16"


def test_messages_in_english_on_request(tmp_path: Path) -> None:
    with pytest.raises(ImportSourceError, match="not a text file"):
        read_source(write_bytes(tmp_path, b"ab\x00cd"), lang="en")
    with pytest.raises(ImportSourceError, match="does not exist"):
        read_source(tmp_path / "nope.txt", lang="en")


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:  # a sparse 50 MB file: no disk, and reading it would show in the message
        handle.truncate(50 * 1024 * 1024)
    with pytest.raises(ImportSourceError) as caught:
        read_source(path)
    message = str(caught.value)
    assert "50.0 MB" in message and "32.0 MB" in message and "--append" in message


def test_the_limit_is_on_the_whole_folder(tmp_path: Path) -> None:
    for n in range(1, 4):
        write_bytes(tmp_path, SIMPLIFIED.encode("utf-8"), f"{n:03d}.txt")
    limit = len(SIMPLIFIED.encode("utf-8")) * 2
    with pytest.raises(ImportSourceError, match="超过导入上限"):
        read_source(tmp_path, max_bytes=limit)
    assert len(read_source(tmp_path, max_bytes=limit * 2).files) == 3


def test_a_missing_path_and_a_folder_without_chapters(tmp_path: Path) -> None:
    with pytest.raises(ImportSourceError, match="找不到"):
        read_source(tmp_path / "missing.txt")
    (tmp_path / "cover.jpg").write_bytes(b"\xff\xd8")
    (tmp_path / "notes").mkdir()
    with pytest.raises(ImportSourceError) as caught:
        read_source(tmp_path)
    assert "没有章节文件" in str(caught.value) and "cover.jpg" in str(caught.value)


def test_natural_order_of_file_names() -> None:
    names = ["第10章.txt", "第2章.txt", "番外.txt", "第一章.txt", "序章.txt", "第十一章.txt"]
    assert sorted(names, key=natural_key) == ["序章.txt", "第一章.txt", "第2章.txt", "第10章.txt", "第十一章.txt",
                                              "番外.txt"]
    assert sorted(["chapter-10.md", "chapter-9.md", "chapter-100.md"], key=natural_key) == \
        ["chapter-9.md", "chapter-10.md", "chapter-100.md"]
    assert sorted(["010.txt", "002.txt", "1.txt"], key=natural_key) == ["1.txt", "002.txt", "010.txt"]


def test_volume_subfolders_and_skipped_entries(tmp_path: Path) -> None:
    book = tmp_path / "book"
    for volume in ("第一卷 少年", "第二卷 青年"):
        (book / volume).mkdir(parents=True)
    (book / "楔子.txt").write_text("　　很久以前。" * 100, encoding="utf-8")
    for n in (1, 2):
        (book / "第一卷 少年" / f"第{n}章 出山{n}.txt").write_text("　　少年下山。" * 100, encoding="utf-8")
    (book / "第二卷 青年" / "第3章.md").write_text("# 第3章 再起\n\n　　青年归来。" * 1, encoding="utf-8")
    (book / "第二卷 青年" / ".hidden.txt").write_text("x", encoding="utf-8")
    (book / "第二卷 青年" / "deeper").mkdir()
    (book / "empty-folder").mkdir()
    (book / "cover.png").write_bytes(b"\x89PNG")
    source = read_source(book)
    assert [f.name for f in source.files] == ["楔子.txt", "第一卷 少年/第1章 出山1.txt", "第一卷 少年/第2章 出山2.txt",
                                              "第二卷 青年/第3章.md"]
    assert sorted(source.skipped) == ["cover.png", "empty-folder/", "第二卷 青年/.hidden.txt", "第二卷 青年/deeper/"]
    m = split_manuscript(source)
    assert [(c.kind, c.source_number, c.title, c.volume) for c in m.chapters] == [
        ("prologue", None, "", 1), ("chapter", 1, "出山1", 1), ("chapter", 2, "出山2", 1), ("chapter", 3, "再起", 2)]
    assert m.chapters[0].label == "楔子"
    assert m.chapters[3].heading == "# 第3章 再起" and m.chapters[3].text == "　　青年归来。"
    assert [(v.number, v.title, v.first, v.last) for v in m.volumes] == [(1, "少年", 1, 3), (2, "青年", 4, 4)]


def test_a_file_with_several_chapters_in_a_folder_is_cut(tmp_path: Path) -> None:
    (tmp_path / "001.txt").write_text(SIMPLIFIED, encoding="utf-8")
    (tmp_path / "002.txt").write_text(SIMPLIFIED.replace("第1章", "第3章").replace("第2章", "第4章"), encoding="utf-8")
    m = split_manuscript(read_source(tmp_path))
    assert [c.source_number for c in m.chapters] == [1, 2, 3, 4]
    assert [c.source_file for c in m.chapters] == ["001.txt", "001.txt", "002.txt", "002.txt"]


def test_a_utf8_file_with_a_bom_and_gbk_lines_is_read_line_by_line(tmp_path: Path) -> None:
    lines = SIMPLIFIED.rstrip("\n").split("\n")
    data = codecs.BOM_UTF8 + b"\n".join(line.encode("gbk" if k == 1 else "utf-8") for k, line in enumerate(lines))
    f = read_source(write_bytes(tmp_path, data)).files[0]
    assert f.text == SIMPLIFIED.rstrip("\n") and f.had_bom
    assert f.mixed is not None and f.mixed.lines == [2]


def test_a_broken_utf16_file_is_refused(tmp_path: Path) -> None:
    data = codecs.BOM_UTF16_LE + SIMPLIFIED.encode("utf-16-le")[:-1]  # half a character at the end
    with pytest.raises(ImportSourceError, match="UTF-16 标记开头"):
        read_source(write_bytes(tmp_path, data))


def test_prose_with_punctuation_is_told_apart_without_the_dictionary(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wrong reading is full of kana/bopomofo/private-use characters: no dictionary is loaded to decide."""
    def no_dictionary(text: str) -> float:
        raise AssertionError("the dictionary was consulted")

    monkeypatch.setattr(encoding, "plausibility", no_dictionary)
    as_big5 = TRADITIONAL.encode("cp950")
    assert choose_legacy(as_big5) == ("big5", "cp950")
    assert oddness(as_big5.decode("gb18030")) > 0.05
    short_gbk = "他站在雾港的码头上，望着".encode("gbk")  # short enough to decode as Big5 too
    short_gbk.decode("cp950")
    assert choose_legacy(short_gbk) == ("gb18030", "gb18030")
    assert oddness(short_gbk.decode("cp950")) > 0.05  # ，read as Big5 is bopomofo
