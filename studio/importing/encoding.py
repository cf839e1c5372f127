"""Turning a manuscript file's bytes into text: which encoding, said so, and nothing guessed silently.

Rules:
- A byte-order mark decides: UTF-8 (`utf-8-sig`), UTF-16 LE/BE, UTF-32 LE/BE. The mark is dropped from the text.
- Without one, NUL bytes mean UTF-16 without a mark (some Windows tools and platform exports write it) when
  the length is even and a byte order reads the bytes strictly as text (`utf16_without_bom`): no control
  character but tab, line breaks and form feed, and at least `USUAL_SHARE` of the characters ASCII, CJK
  ideographs, CJK and general punctuation or full-width forms (counted on the first `SAMPLE_BYTES`). In UTF-16 every ASCII character (line breaks,
  digits, spaces) has a zero high byte, which is where the NULs come from; the wrong byte order turns ASCII into
  U+0A00-like letters of other scripts and ideographs into presentation forms, so of two readings the one with
  the larger share of usual characters is the right one. Anything else with NUL bytes (binary files; UTF-32
  without a mark, which decodes to NUL characters) is refused as not text. A UTF-16 file without a mark and
  without a single zero byte (no ASCII at all, not even a line break) is read by the rules below (it then fails or is
  refused).
- Bytes that are valid UTF-8 are UTF-8.
- Otherwise the candidates are GB18030 (a superset of GBK and GB2312) and Big5 (read as cp950, the Big5 that
  Windows and every exporting platform write). Every Big5 text also decodes as GB18030 and short GBK texts as
  Big5, so a strict decode is not enough. When both decode, the first `SAMPLE_BYTES` are weighed: a wrong
  reading is full of characters prose hardly uses (`oddness`: Big5 read as GBK gives kana, Greek, Cyrillic and
  private-use characters, GBK read as Big5 turns full-width punctuation into bopomofo), so when one reading is
  clean and the other is not, that decides at once. Otherwise (a few words without punctuation) `plausibility`
  decides: the share of Han characters that jieba's bundled dictionary lists as common (frequency at least
  `COMMON_FREQ`), less the odd ones. jieba lists few traditional characters, but the most frequent ones (的 是
  我 不 一 了 在 有 人 他 …) are the same in both scripts, while a wrong reading gives rare characters: the
  right reading wins by a wide margin (tests/test_import_split_source.py checks both directions, down to four
  characters). charset-normalizer was not used: it needs no dictionary but guesses from byte statistics that
  are unreliable on a few sentences, and this rule is one screen of code whose reasons the tests pin.
- Mixed encodings in one file (a book pasted together from two exports: most lines UTF-8, some GBK) are
  decoded line by line: lines that are valid UTF-8 as UTF-8, the others in the legacy encoding chosen over
  those lines, and the legacy lines are reported (`Decoded.foreign_lines`, 1-based) so the preview can say
  where. A refusal would leave the author with a file no tool of theirs can fix and nothing to look at; decoding
  each line in the only encoding it is valid in loses nothing (the original file is kept byte for byte in the
  project's `import/` folder) and the preview points at the lines to check before anything is written.
- Bytes that decode in no candidate are refused with the line numbers: replacing them would silently drop the
  author's text.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from studio.i18n import Catalog, Lang, tr

MESSAGES: Catalog = {
    "binary": ("{name} 不是文本文件（含有二进制数据 NUL 字节）。请导入 TXT 或 Markdown 文件。",
               "{name} is not a text file (it holds binary NUL bytes). Import a TXT or Markdown file."),
    "undecodable": ("{name} 无法识别编码：第 {lines} 行既不是 UTF-8，也不是 GB18030/GBK 或 Big5。"
                    "请用编辑器把文件另存为 UTF-8 后再导入。",
                    "{name}: cannot tell the encoding: line {lines} is neither UTF-8 nor GB18030/GBK nor Big5. "
                    "Save the file as UTF-8 in an editor and import it again."),
    "undecodable_file": ("{name} 以 {encoding} 标记开头，但内容不是有效的 {encoding}。请用编辑器把文件另存为 UTF-8 后再导入。",
                         "{name} starts with a {encoding} mark but is not valid {encoding}. Save the file as UTF-8 "
                         "in an editor and import it again."),
}

# Names used in the manuscript, the record and the preview.
UTF8 = "utf-8"
GB18030 = "gb18030"
BIG5 = "big5"
LEGACY: tuple[tuple[str, str], ...] = ((GB18030, "gb18030"), (BIG5, "cp950"))  # (name, Python codec)

_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32"),
    (codecs.BOM_UTF8, "utf-8", UTF8),
    (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16"),
)
COMMON_FREQ = 100
CLEAN_ODDNESS = 0.002  # a right reading: hardly any odd character
WRONG_ODDNESS = 0.01  # a wrong reading of prose with punctuation: several in a hundred
SAMPLE_BYTES = 64 * 1024  # scoring a sample is enough: the margin between readings is wide
_HAN = re.compile(r"[\u4e00-\u9fff]")
_ODD = re.compile(r"[\u0370-\u04ff\u2500-\u257f\u3040-\u30ff\u3100-\u312f\ue000-\uf8ff]")
_WIDE = re.compile(r"[\u0800-\uffff]")  # UTF-8 Chinese is three bytes a character: a reading without is suspect


@dataclass
class Decoded:
    text: str
    encoding: str  # UTF8, GB18030, BIG5, "utf-16", "utf-32", or "utf-8+gb18030" when mixed
    had_bom: bool = False
    foreign_lines: list[int] = field(default_factory=list)  # 1-based lines decoded in the minority encoding
    foreign_encoding: str = ""


class DecodeError(ValueError):
    """Bytes that are not text in any encoding we read; `str()` is the author's message."""


def oddness(text: str) -> float:
    """Share of the non-ASCII characters of `text` that Chinese prose hardly uses and wrong readings are full of:
    Big5 read as GBK gives kana, Greek, Cyrillic, box drawing and private-use characters; GBK read as Big5 turns
    the full-width punctuation (，！？：) into bopomofo."""
    wide = sum(1 for ch in text if ord(ch) > 127)
    return len(_ODD.findall(text)) / wide if wide else 0.0


def plausibility(text: str) -> float:
    """Share (0..1) of the Han characters of `text` that are common in written Chinese (jieba's dictionary),
    less the odd characters; 0.0 without any Han character."""
    from studio.checks.chinese import word_freq  # jieba's dictionary loads on first use only

    han = _HAN.findall(text)
    if not han:
        return 0.0
    common = sum(n for ch, n in Counter(han).items() if word_freq(ch) >= COMMON_FREQ)
    return max(0.0, (common - len(_ODD.findall(text))) / len(han))


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        return None


def choose_legacy(data: bytes) -> tuple[str, str] | None:
    """(name, codec) of the legacy encoding that reads `data` most plausibly; None when none reads it."""
    valid = [(name, codec) for name, codec in LEGACY if _strict(data, codec) is not None]
    if len(valid) <= 1:
        return valid[0] if valid else None  # one reading: nothing to weigh (and no dictionary to load)
    sample = _sample(data)
    texts = [sample.decode(codec, errors="ignore") for _name, codec in valid]
    odd = [oddness(text) for text in texts]
    best = min(range(len(valid)), key=lambda k: odd[k])
    if odd[best] <= CLEAN_ODDNESS and all(o >= WRONG_ODDNESS for k, o in enumerate(odd) if k != best):
        return valid[best]  # the wrong reading shows itself: no dictionary needed
    scores = [(plausibility(text), -rank) for rank, text in enumerate(texts)]
    return valid[max(range(len(valid)), key=lambda k: scores[k])]


def _sample(data: bytes) -> bytes:
    """The first SAMPLE_BYTES of `data`, cut at a line end so no character is split."""
    if len(data) <= SAMPLE_BYTES:
        return data
    cut = data.rfind(b"\n", 0, SAMPLE_BYTES)
    return data[: cut if cut > 0 else SAMPLE_BYTES]


def decode_bytes(data: bytes, name: str, lang: Lang = "zh") -> Decoded:
    """Decode one manuscript file (see the module rules). Raises DecodeError with the author's message."""
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            body = data[len(bom):]
            text = _strict(body, codec)
            if text is not None:
                return Decoded(text, label, had_bom=True)
            if label == UTF8:  # a UTF-8 file with lines pasted in from elsewhere: the mixed rule below
                decoded = _decode_legacy(body, name, lang)
                decoded.had_bom = True
                return decoded
            raise DecodeError(tr(MESSAGES, "undecodable_file", lang, name=name, encoding=label.upper()))
    if b"\x00" in data:
        text = utf16_without_bom(data)
        if text is None:
            raise DecodeError(tr(MESSAGES, "binary", lang, name=name))
        return Decoded(text, "utf-16")
    text = _strict(data, "utf-8")
    if text is not None and (text.isascii() or _WIDE.search(text) or not _reads_better_legacy(data, text)):
        return Decoded(text, UTF8)
    return _decode_legacy(data, name, lang)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
# What Chinese prose in UTF-16 is made of: ASCII, CJK punctuation and ideographs, full-width forms.
_USUAL = re.compile(r"[\t\n\r\x20-\x7e\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef\u2010-\u206f]")
USUAL_SHARE = 0.5  # a UTF-16 reading must be at least this share of usual characters


def utf16_without_bom(data: bytes) -> str | None:
    """The text of UTF-16 bytes without a byte-order mark (see the module rules), else None."""
    if len(data) % 2:
        return None
    sample = data[: SAMPLE_BYTES - SAMPLE_BYTES % 2]  # the byte order is told on a sample, as the legacy choice
    best: tuple[float, str] | None = None
    for codec in ("utf-16-le", "utf-16-be"):
        text = sample.decode(codec, errors="ignore")  # a cut surrogate pair at the end is no evidence
        if not text:
            continue
        share = len(_USUAL.findall(text)) / len(text)
        if share >= USUAL_SHARE and (best is None or share > best[0]):
            best = (share, codec)
    if best is None:
        return None
    whole = _strict(data, best[1])
    return whole if whole is not None and not _CONTROL.search(whole) else None


def _reads_better_legacy(data: bytes, utf8_text: str) -> bool:
    """Short GBK text can be valid UTF-8 (`目录` is C4BF C2BC = `Ŀ¼`): which reading is Chinese?"""
    legacy = choose_legacy(data)
    return legacy is not None and plausibility(data.decode(legacy[1])) > plausibility(utf8_text)


def _decode_legacy(data: bytes, name: str, lang: Lang) -> Decoded:
    lines = data.split(b"\n")  # safe: 0x0A is never a trail byte of GB18030 or Big5
    utf8_lines: list[int] = []  # indexes of lines that are UTF-8 Chinese
    other: list[int] = []  # indexes of the other non-ASCII lines
    invalid: list[bytes] = []  # those of them that are not UTF-8 at all: what decides the legacy encoding
    for i, line in enumerate(lines):
        if line.isascii():
            continue
        as_utf8 = _strict(line, "utf-8")
        # Chinese in UTF-8 is three bytes a character: a valid line without one is short GBK (目录 = `Ŀ¼`).
        if as_utf8 is None or not _WIDE.search(as_utf8):
            other.append(i)
            if as_utf8 is None:
                invalid.append(line)
        else:
            utf8_lines.append(i)
    legacy = choose_legacy(b"\n".join(invalid))
    if legacy is None:
        bad = _undecodable_lines(lines, other)
        raise DecodeError(tr(MESSAGES, "undecodable", lang, name=name, lines=_line_list(bad)))
    label, codec = legacy
    if not utf8_lines:
        whole = _strict(data, codec)
        if whole is not None:
            return Decoded(whole, label)
    # Mixed: each line in the one encoding it is valid in; the minority is reported.
    legacy_set = set(other)
    decoded = [_legacy_line(line, codec) if i in legacy_set else line.decode("utf-8") for i, line in enumerate(lines)]
    if not utf8_lines:
        return Decoded("\n".join(decoded), label)
    minority, minority_name = (other, label) if len(other) <= len(utf8_lines) else (utf8_lines, UTF8)
    return Decoded("\n".join(decoded), f"{UTF8}+{label}", foreign_lines=[i + 1 for i in minority],
                   foreign_encoding=minority_name)


def _legacy_line(line: bytes, codec: str) -> str:
    text = _strict(line, codec)
    return text if text is not None else line.decode("utf-8")  # valid UTF-8 without Chinese: as it is


def _undecodable_lines(lines: Sequence[bytes], candidates: Sequence[int]) -> list[int]:
    bad: list[int] = []
    for i in candidates:
        if all(_strict(lines[i], codec) is None for _name, codec in LEGACY):
            bad.append(i + 1)
    return bad or [i + 1 for i in candidates[:1]]


def _line_list(numbers: Sequence[int], limit: int = 5) -> str:
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (f" … (+{len(numbers) - limit})" if len(numbers) > limit else "")
