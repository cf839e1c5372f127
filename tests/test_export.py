"""Export (issue 4, 7b): TXT in the platform convention, Markdown, ranges, --split, titles, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.errors import StudioError, UsageError
from studio.export import INDENT, export_chapters, plain_text, split_heading
from studio.wordcount import word_count

CH1 = """# 第1章 子时送单

晚上十一点四十七分，沈照接了**今天最后一单**。

　　订单备注只有一行：*青石巷十七号*，放门口，别敲门。
<!-- 作者备注：这里要埋伏笔 -->
配送费二十八块，[链接](http://example.com)不算\\*星号\\*。

---

> 他盯着屏幕看了三秒。
"""

CH2 = """第一段没有标题。
第二段紧跟着。
"""

CH3 = """# 第三章：灯亮了

沈照点亮了灯。
"""

OUTLINE = """# 第一卷 子时灯

## 第2章 雾客
- Storyline: main-arc

## 第3章 大纲里的标题
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "novel"
    (root / "chapters").mkdir(parents=True)
    (root / "volumes" / "vol-01").mkdir(parents=True)
    (root / "novel-studio.toml").write_text("[project]\ntitle = \"子时灯\"\n", encoding="utf-8")
    (root / "chapters" / "chapter-001.md").write_text(CH1, encoding="utf-8")
    (root / "chapters" / "chapter-002.md").write_text(CH2, encoding="utf-8")
    (root / "chapters" / "chapter-003.md").write_text(CH3, encoding="utf-8")
    (root / "volumes" / "vol-01" / "outline.md").write_text(OUTLINE, encoding="utf-8")
    return root


def test_txt_single_file_convention(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "novel.txt"
    result = export_chapters(project, out)
    text = out.read_text(encoding="utf-8")
    assert [c.number for c in result.chapters] == [1, 2, 3]
    assert result.files == [out]
    lines = text.split("\n")
    assert lines[0] == "第1章 子时送单"
    assert lines[1] == ""
    assert lines[2] == INDENT + "晚上十一点四十七分，沈照接了今天最后一单。"
    assert lines[3] == ""
    # own indentation replaced by exactly two full-width spaces; emphasis removed
    assert lines[4] == INDENT + "订单备注只有一行：青石巷十七号，放门口，别敲门。"
    # comments, links, rules, quotes are markup; escaped characters stay themselves
    assert INDENT + "配送费二十八块，链接不算*星号*。" in lines
    assert INDENT + "他盯着屏幕看了三秒。" in lines
    assert "作者备注" not in text and "---" not in text and "http" not in text and ">" not in text
    assert "**" not in text and "#" not in text
    # every paragraph is indented and followed by a blank line (or the end)
    for i, line in enumerate(lines):
        if line and not line.startswith("第"):
            assert line.startswith(INDENT) and not line.startswith(INDENT + "\u3000")
            assert i + 1 == len(lines) or lines[i + 1] == ""
    # title from the outline when the chapter has no heading; the file's own heading wins otherwise
    assert "第2章 雾客\n\n" + INDENT + "第一段没有标题。\n\n" + INDENT + "第二段紧跟着。\n" in text
    assert "第3章 灯亮了\n" in text and "大纲里的标题" not in text
    assert result.chapters[1].title == "雾客"
    assert result.chapters[0].chars == word_count(CH1)
    assert result.total_chars == sum(word_count(t) for t in (CH1, CH2, CH3))
    assert not text.startswith("\ufeff")


def test_md_single_file(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "novel.md"
    export_chapters(project, out, fmt="md")
    text = out.read_text(encoding="utf-8")
    assert text.startswith("## 第1章 子时送单\n\n晚上十一点四十七分，沈照接了**今天最后一单**。\n\n订单备注")
    assert "## 第2章 雾客\n\n第一段没有标题。\n\n第二段紧跟着。\n" in text
    assert "## 第3章 灯亮了" in text
    assert "作者备注" not in text
    assert "\u3000" not in text


def test_split_and_range(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "split"
    result = export_chapters(project, out, start=2, end=3, split=True)
    assert sorted(p.name for p in out.iterdir()) == ["chapter-002.txt", "chapter-003.txt"]
    assert [c.number for c in result.chapters] == [2, 3]
    assert (out / "chapter-003.txt").read_text(encoding="utf-8") == "第3章 灯亮了\n\n" + INDENT + "沈照点亮了灯。\n"
    md = export_chapters(project, tmp_path / "md", start=3, split=True, fmt="md")
    assert [p.name for p in md.files] == ["chapter-003.md"]


def test_errors(project: Path, tmp_path: Path) -> None:
    with pytest.raises(StudioError):
        export_chapters(project, tmp_path / "x.txt", start=10, end=20)
    with pytest.raises(UsageError):
        export_chapters(project, tmp_path / "x.txt", start=3, end=1)
    with pytest.raises(UsageError):
        export_chapters(project, tmp_path, split=False)  # a folder without --split
    assert not (tmp_path / "x.txt").exists()


def test_helpers() -> None:
    assert split_heading("# 第12章 夜雨\n正文") == ("夜雨", "正文")
    assert split_heading("\n## 第十二章：夜雨\n正文")[0] == "夜雨"
    assert split_heading("# 夜雨\n正文")[0] == "夜雨"
    assert split_heading("# 第3章\n正文")[0] == ""
    assert split_heading("正文\n# 第3章 x") == (None, "正文\n# 第3章 x")
    assert plain_text("a\\_b *c* `d`") == "a_b c d"


def test_cli(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.txt"
    code = main(["export", str(out), "--project", str(project), "--from", "1", "--to", "2", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["chapter_count"] == 2
    assert data["total_chars"] == word_count(CH1) + word_count(CH2)
    assert [c["number"] for c in data["chapters"]] == [1, 2]
    assert out.is_file()

    code = main(["export", str(tmp_path / "split"), "--project", str(project), "--split", "--format", "md"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "3" in printed and "字" in printed
    assert (tmp_path / "split" / "chapter-001.md").is_file()

    code = main(["export", str(tmp_path / "none.txt"), "--project", str(project), "--from", "9"])
    assert code == 1
    err = capsys.readouterr().err
    assert "没有已提交的章节" in err
    assert not (tmp_path / "none.txt").exists()

    assert main(["export", str(out), "--project", str(project), "--from", "3", "--to", "1"]) == 2
    assert main(["export", str(out), "--project", str(project), "--format", "docx"]) == 2
    assert main(["export", str(out), "--project", str(tmp_path / "missing")]) == 1
