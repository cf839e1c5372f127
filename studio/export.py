"""Getting the text out (issue 4, 7b): the committed chapters, ready to paste into a publishing platform.

TXT (the convention of 起点 / 番茄 style uploads):

- each chapter starts with the heading line `第N章 标题` (N in Arabic digits, no indent);
- Markdown markup is removed (the same rules as 字数, `studio.wordcount.strip_markdown`: headings inside the
  body, emphasis markers, links, HTML comments, rules ...); a backslash-escaped character is kept as itself;
- every non-blank line of the body is one paragraph: its own indentation is removed and replaced by two
  full-width spaces `　　`; paragraphs are separated by one blank line;
- in one file, chapters are separated by two blank lines. UTF-8 without BOM, `\\n` line ends.

Markdown: `## 第N章 标题`, then the body as written (markup kept) with every non-blank line its own paragraph
(blank-line separated, indentation removed, since Markdown would join or indent it otherwise); HTML
comments (author's notes) are dropped.

The title comes from the chapter file's first heading (`# 第N章 标题`, or `# 标题`), else from the volume
outlines, else none (`第N章`). Every file is written with the atomic writer. One file for all chapters, or
with `split=True` a folder with one file per chapter named `chapter-NNN.txt` / `.md`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from studio.errors import FormatError, StudioError, UnsafeIdError, UsageError
from studio.fileio import atomic_write_text, read_text
from studio.i18n import Catalog, Lang, env_lang, tr
from studio.ids import chapter_id, parse_chapter_id, parse_volume_id
from studio.outline import parse_outline
from studio.wordcount import strip_markdown, word_count

Format = Literal["txt", "md"]
FORMATS: tuple[Format, ...] = ("txt", "md")
INDENT = "\u3000\u3000"

MESSAGES: Catalog = {
    "no_chapters": ("{range}没有已提交的章节可导出", "no committed chapters to export{range}"),
    "range": ("第{start}–{end}章范围内", " in chapters {start}-{end}"),
    "bad_range": ("起始章 {start} 大于结束章 {end}", "--from {start} is after --to {end}"),
    "bad_format": ("未知格式 {fmt}（可选 txt、md）", "unknown format {fmt} (txt or md)"),
    "out_is_dir": (
        "{out} 是文件夹：请给出文件名，或加 --split 每章导出一个文件",
        "{out} is a folder: give a file name, or use --split for one file per chapter",
    ),
    "out_is_file": ("{out} 是文件：--split 需要一个文件夹", "{out} is a file: --split needs a folder"),
}

_CHAPTER_NAME = re.compile(r"^(chapter-\d{3,})\.md$")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]*(.*?)[ \t#]*$")
_NUMBERED_TITLE = re.compile(
    r"^第[ \t]*(?:[0-9０-９]+|[零〇一二两三四五六七八九十百千万]+)[ \t]*章(?:[ \t:：．.、\-—]*)(.*)$"
)
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!>~|<])")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_PUA_BASE = 0xF0000  # supplementary private-use plane: never in real chapter text


@dataclass(frozen=True)
class ExportedChapter:
    number: int
    title: str
    chars: int  # 字数 of the chapter (studio.wordcount.word_count)
    file: Path  # the file it went into


@dataclass(frozen=True)
class ExportResult:
    out: Path
    fmt: Format
    split: bool
    chapters: list[ExportedChapter] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    @property
    def total_chars(self) -> int:
        return sum(c.chars for c in self.chapters)

    def to_data(self) -> dict[str, object]:
        return {
            "out": str(self.out),
            "format": self.fmt,
            "split": self.split,
            "chapter_count": len(self.chapters),
            "total_chars": self.total_chars,
            "files": [str(p) for p in self.files],
            "chapters": [
                {"number": c.number, "title": c.title, "chars": c.chars, "file": str(c.file)} for c in self.chapters
            ],
        }


def _lang(lang: Lang | None) -> Lang:
    return lang or env_lang() or "zh"


def committed_chapter_files(root: Path) -> dict[int, Path]:
    """chapters/chapter-NNN.md by number (a listing; nothing is opened)."""
    found: dict[int, Path] = {}
    try:
        entries = list(os.scandir(Path(root) / "chapters"))
    except (FileNotFoundError, NotADirectoryError):
        return found
    for entry in entries:
        m = _CHAPTER_NAME.match(entry.name)
        if not m or not entry.is_file():
            continue
        try:
            found[parse_chapter_id(m.group(1))] = Path(entry.path)
        except UnsafeIdError:
            continue
    return found


def outline_titles(root: Path) -> dict[int, str]:
    """Chapter titles of every volume outline that parses (a broken outline is skipped, not fatal)."""
    titles: dict[int, str] = {}
    volumes = Path(root) / "volumes"
    try:
        entries = sorted(os.scandir(volumes), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return titles
    for entry in entries:
        try:
            parse_volume_id(entry.name)
        except UnsafeIdError:
            continue
        path = Path(entry.path) / "outline.md"
        if not path.is_file():
            continue
        try:
            outline = parse_outline(read_text(path), path)
        except (FormatError, OSError):
            continue
        for chapter in outline.chapters:
            if chapter.title:
                titles.setdefault(chapter.number, chapter.title)
    return titles


def split_heading(text: str) -> tuple[str | None, str]:
    """(title from the first heading, the text after that heading). No heading first -> (None, text).

    `# 第3章 夜雨` -> '夜雨'; `# 夜雨` -> '夜雨'; `# 第3章` -> ''.
    """
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        m = _HEADING.match(line)
        if not m or not line.lstrip(" \t").startswith("#"):
            return None, text
        heading = m.group(1).strip()
        numbered = _NUMBERED_TITLE.match(heading)
        title = numbered.group(1).strip() if numbered else heading
        return title, "\n".join(lines[index + 1 :])
    return None, text


def plain_text(markdown: str) -> str:
    """The body with Markdown markup removed; unlike wordcount, an escaped character stays itself."""
    escaped: list[str] = []

    def protect(m: re.Match[str]) -> str:
        escaped.append(m.group(1))
        return chr(_PUA_BASE + len(escaped) - 1)

    text = strip_markdown(_ESCAPED.sub(protect, markdown))
    if escaped:
        text = "".join(
            escaped[ord(ch) - _PUA_BASE] if _PUA_BASE <= ord(ch) < _PUA_BASE + len(escaped) else ch for ch in text
        )
    return text


def _paragraphs(text: str) -> list[str]:
    return [line.strip(" \t\r\u3000\u200b\ufeff") for line in text.split("\n") if line.strip(" \t\r\u3000\u200b\ufeff")]


def heading_line(number: int, title: str) -> str:
    return f"第{number}章 {title}".rstrip()


def render_txt(number: int, title: str, body: str) -> str:
    """One chapter in the platform TXT convention (see the module docstring)."""
    paragraphs = [INDENT + p for p in _paragraphs(plain_text(body))]
    return heading_line(number, title) + "\n\n" + "\n\n".join(paragraphs) + "\n"


def render_md(number: int, title: str, body: str) -> str:
    """One chapter as Markdown: `## 第N章 标题` and blank-line separated paragraphs."""
    paragraphs = _paragraphs(_HTML_COMMENT.sub("", body))
    return "## " + heading_line(number, title) + "\n\n" + "\n\n".join(paragraphs) + "\n"


def export_chapters(
    project_root: Path,
    out: Path,
    *,
    start: int | None = None,
    end: int | None = None,
    fmt: Format = "txt",
    split: bool = False,
    lang: Lang | None = None,
) -> ExportResult:
    """Write the committed chapters `start`..`end` (inclusive; default all) of the project to `out`.

    Raises UsageError for a bad range, format or OUT, StudioError when the range holds no committed chapter.
    """
    lang = _lang(lang)
    root = Path(project_root)
    out = Path(out)
    if fmt not in FORMATS:
        raise UsageError(tr(MESSAGES, "bad_format", lang, fmt=fmt))
    if start is not None and end is not None and start > end:
        raise UsageError(tr(MESSAGES, "bad_range", lang, start=start, end=end))
    if split and out.exists() and not out.is_dir():
        raise UsageError(tr(MESSAGES, "out_is_file", lang, out=out))
    if not split and out.is_dir():
        raise UsageError(tr(MESSAGES, "out_is_dir", lang, out=out))

    files = committed_chapter_files(root)
    numbers = [n for n in sorted(files) if (start is None or n >= start) and (end is None or n <= end)]
    if not numbers:
        where = ""
        if start is not None or end is not None:
            where = tr(MESSAGES, "range", lang, start=start or 1, end=end if end is not None else "∞")
        raise StudioError(tr(MESSAGES, "no_chapters", lang, range=where))

    titles: dict[int, str] | None = None
    render = render_txt if fmt == "txt" else render_md
    exported: list[ExportedChapter] = []
    parts: list[str] = []
    written: list[Path] = []
    for n in numbers:
        text = read_text(files[n])
        title, body = split_heading(text)
        if not title:
            if titles is None:
                titles = outline_titles(root)
            title = titles.get(n, "")
        rendered = render(n, title, body)
        target = out / f"{chapter_id(n)}.{fmt}" if split else out
        if split:
            atomic_write_text(target, rendered)
            written.append(target)
        else:
            parts.append(rendered)
        exported.append(ExportedChapter(n, title, word_count(text), target))
    if not split:
        atomic_write_text(out, "\n\n".join(parts))
        written.append(out)
    return ExportResult(out=out, fmt=fmt, split=split, chapters=exported, files=written)


__all__ = [
    "FORMATS",
    "INDENT",
    "ExportResult",
    "ExportedChapter",
    "export_chapters",
    "plain_text",
    "render_md",
    "render_txt",
    "split_heading",
]
