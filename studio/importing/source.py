"""Reading a manuscript source: a TXT file or a folder of `.txt`/`.md` chapter files (issue 10 item 1).

Rules:
- A file is decoded by `studio.importing.encoding.decode_bytes` (UTF-8 with or without BOM, UTF-16/32 with a
  BOM, GB18030/GBK, Big5; mixed lines reported). Line endings become `\\n` (`\\r\\n` and lone `\\r` alike); the
  text is otherwise unchanged.
- A folder: its `.txt`/`.md` files (any case) are the chapter files, in natural order of the numbers in their
  names (`第2章.txt` < `第10章.txt`, `001.txt`, `chapter-10.md`, Chinese numerals too: `第十章.txt`), with
  prologue-like names (序章, 楔子, 引子, 序) first and extras (番外, 外传, 后记) last. One level of subfolders holds
  volumes (`第一卷 风起/001.txt`): each subfolder is a volume, subfolders in the same natural order. Hidden
  entries (a leading `.`) and everything else (other files, deeper folders) are skipped and listed in `skipped`.
- Limits: `MAX_SOURCE_BYTES` (32 MB) for a file and for a folder's chapter files together. A 3-million-字 novel
  is about 9 MB in UTF-8 (6 MB in GB18030) and the longest web novels authors bring (10 million 字) fit; beyond
  it the decoded text, the chapters and the project copy would hold several hundred MB at once on the small
  machines authors write on. The size is checked with `stat` before a byte is read and at most the limit plus
  one byte is ever read, so a huge file costs no memory; the message says how to proceed (split the file and
  import the parts one after the other with `--append`). Nothing is written by reading, so a refusal leaves
  nothing half done.
- Refused with `ImportSourceError` (the author's message, Chinese by default, English with `lang="en"`): a path
  that does not exist or cannot be read, not text, an undecodable file, an empty file (only whitespace), a folder
  without chapter files, a source over the limit.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic import BaseModel, Field

from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.importing.encoding import DecodeError, decode_bytes
from studio.importing.numerals import CHINESE_NUMERAL_CHARS, parse_number

MAX_SOURCE_BYTES = 32 * 1024 * 1024
CHAPTER_SUFFIXES = (".txt", ".md", ".markdown")

MESSAGES: Catalog = {
    "missing": ("找不到 {path}。", "{path} does not exist."),
    "unreadable": ("无法读取 {path}：{reason}", "Cannot read {path}: {reason}"),
    "not_file": ("{path} 既不是文件也不是文件夹。", "{path} is neither a file nor a folder."),
    "too_big": ("{path} 有 {size}，超过导入上限 {limit}。请把书稿分成几个文件，先导入第一个，"
                "再用 --append 依次导入其余部分。",
                "{path} is {size}, over the import limit of {limit}. Split the manuscript into several files, "
                "import the first, then add the others in order with --append."),
    "empty": ("{path} 是空的，没有可以导入的文字。", "{path} is empty: there is no text to import."),
    "no_chapters": ("文件夹 {path} 里没有章节文件（.txt 或 .md）{found}。",
                    "The folder {path} holds no chapter files (.txt or .md){found}."),
    "found": ("，只有：{names}", "; it only holds: {names}"),
}


class ImportSourceError(StudioError):
    """The source cannot be imported (not text, too big, empty, unreadable): `str()` is the author's message."""


class MixedLines(BaseModel):
    """Lines of one file decoded in another encoding than the rest (1-based line numbers)."""

    encoding: str
    lines: list[int] = Field(default_factory=list)


class SourceFile(BaseModel):
    name: str
    text: str
    encoding: str = "utf-8"
    had_bom: bool = False
    volume: str = ""  # the volume subfolder's name, for a folder with volume subfolders
    mixed: MixedLines | None = None


class SourceText(BaseModel):
    """The decoded source. `files` is one entry for a TXT file, the chapter files in order for a folder."""

    path: str
    is_folder: bool = False
    files: list[SourceFile] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)  # folder entries that are not chapter files

    @property
    def encoding(self) -> str:
        names = sorted({f.encoding for f in self.files})
        return names[0] if len(names) == 1 else "+".join(names)


def read_source(path: Path, *, lang: Lang = "zh", max_bytes: int = MAX_SOURCE_BYTES) -> SourceText:
    """Read and decode a manuscript (see the module rules). Raises ImportSourceError with the author's message."""
    if not path.exists():
        raise ImportSourceError(tr(MESSAGES, "missing", lang, path=path))
    if path.is_dir():
        return _read_folder(path, lang, max_bytes)
    if not path.is_file():
        raise ImportSourceError(tr(MESSAGES, "not_file", lang, path=path))
    size = _size(path, lang)
    if size > max_bytes:
        raise ImportSourceError(_too_big(path, size, max_bytes, lang))
    source = SourceText(path=str(path), files=[_read_file(path, path.name, lang, max_bytes)])
    if not source.files[0].text.strip():
        raise ImportSourceError(tr(MESSAGES, "empty", lang, path=path))
    return source


def _size(path: Path, lang: Lang) -> int:
    try:
        return path.stat().st_size
    except OSError as exc:
        raise ImportSourceError(tr(MESSAGES, "unreadable", lang, path=path, reason=exc.strerror or exc)) from exc


def _too_big(path: Path, size: int, limit: int, lang: Lang) -> str:
    return tr(MESSAGES, "too_big", lang, path=path, size=_megabytes(size), limit=_megabytes(limit))


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _read_file(path: Path, name: str, lang: Lang, max_bytes: int, volume: str = "") -> SourceFile:
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)  # never more than the limit, even if the file grew since stat
    except OSError as exc:
        raise ImportSourceError(tr(MESSAGES, "unreadable", lang, path=path, reason=exc.strerror or exc)) from exc
    if len(data) > max_bytes:
        raise ImportSourceError(_too_big(path, len(data), max_bytes, lang))
    try:
        decoded = decode_bytes(data, name, lang)
    except DecodeError as exc:
        raise ImportSourceError(str(exc)) from exc
    text = decoded.text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    mixed = MixedLines(encoding=decoded.foreign_encoding, lines=decoded.foreign_lines) \
        if decoded.foreign_lines else None
    return SourceFile(name=name, text=text, encoding=decoded.encoding, had_bom=decoded.had_bom, volume=volume,
                      mixed=mixed)


# --- folders -------------------------------------------------------------------------------------------------

_NUMBER_RUN = re.compile(rf"(\d+|[{CHINESE_NUMERAL_CHARS}]+)")
_FIRST_NAMES = ("序章", "序幕", "楔子", "引子", "序言", "前言", "序")
_LAST_NAMES = ("番外", "外传", "外傳", "后记", "後記", "尾声", "尾聲", "完本感言")


def natural_key(name: str) -> tuple[int, tuple[tuple[int, int | str], ...]]:
    """Sort key of a chapter file or volume folder name: prologues first, extras last, numbers by value."""
    stem = name.rsplit(".", 1)[0] if "." in name else name
    rank = 1
    if stem.startswith(_FIRST_NAMES):
        rank = 0
    elif stem.startswith(_LAST_NAMES):
        rank = 2
    parts: list[tuple[int, int | str]] = []
    for piece in _NUMBER_RUN.split(stem):
        if not piece:
            continue
        value = parse_number(piece) if _NUMBER_RUN.fullmatch(piece) else None
        parts.append((0, value) if value is not None else (1, piece.lower()))
    return rank, tuple(parts)


def _is_chapter_file(entry: Path) -> bool:
    return entry.is_file() and entry.suffix.lower() in CHAPTER_SUFFIXES


def _read_folder(root: Path, lang: Lang, max_bytes: int) -> SourceText:
    try:
        entries = sorted(os.scandir(root), key=lambda e: natural_key(e.name))
    except OSError as exc:
        raise ImportSourceError(tr(MESSAGES, "unreadable", lang, path=root, reason=exc.strerror or exc)) from exc
    chosen: list[tuple[Path, str, str]] = []  # (path, name shown, volume folder)
    skipped: list[str] = []
    for entry in entries:
        path = Path(entry.path)
        if entry.name.startswith("."):
            skipped.append(entry.name)
        elif _is_chapter_file(path):
            chosen.append((path, entry.name, ""))
        elif path.is_dir():
            inner_chosen: list[tuple[Path, str, str]] = []
            inner_skipped: list[str] = []
            for sub in sorted(path.iterdir(), key=lambda p: natural_key(p.name)):
                shown = f"{entry.name}/{sub.name}"
                if sub.name.startswith(".") or not _is_chapter_file(sub):
                    inner_skipped.append(shown + ("/" if sub.is_dir() else ""))
                else:
                    inner_chosen.append((sub, shown, entry.name))
            chosen.extend(inner_chosen)
            skipped.extend(inner_skipped if inner_chosen else [entry.name + "/"])
        else:
            skipped.append(entry.name)
    if not chosen:
        found = tr(MESSAGES, "found", lang, names="、".join(skipped[:5]) + (" …" if len(skipped) > 5 else "")) \
            if skipped else ""
        raise ImportSourceError(tr(MESSAGES, "no_chapters", lang, path=root, found=found))
    total = sum(_size(path, lang) for path, _name, _vol in chosen)
    if total > max_bytes:
        raise ImportSourceError(_too_big(root, total, max_bytes, lang))
    files = [_read_file(path, name, lang, max_bytes, volume) for path, name, volume in chosen]
    if not any(f.text.strip() for f in files):
        raise ImportSourceError(tr(MESSAGES, "empty", lang, path=root))
    return SourceText(path=str(root), is_folder=True, files=files, skipped=skipped)
