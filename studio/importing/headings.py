"""Which lines of a manuscript are chapter and volume headings, in the forms authors use.

A heading is a short standalone line. Accepted forms (after leading whitespace, full-width spaces, Markdown `#`
marks, a `正文` / `正文卷` prefix of platform exports and an opening bracket 【 [ 〔 are set aside):

- chapters: `第123章`, `第一百二十三章`, `第一千零一章`, `第两百章`, `第一〇一章`, `第１２３章`, also with 回 / 节 / 话
  (the unit the manuscript uses most is its chapter unit, see `chapter_unit`, so the 节 inside 章 stay body text),
  and `Chapter 12` / `Ch. 12`;
- volumes: `第N卷`, `第N部` (not `第N部分`), `卷N` / `卷一`;
- prologues (kind "prologue"): 序章 序幕 序曲 楔子 引子, and 序 alone;
- extras (kind "extra"): 番外 (番外篇, 番外一 …) 外传 后记 完本感言; and 尾声 is the last chapter (kind "chapter",
  labelled, no number).

After the number a title may follow a separator (space, full-width space, ：, :, 、, ·, -, —, ., ．) or follow
directly (`第一章风起`). A line is not a heading when it reads like prose: longer than `MAX_HEADING_CHARS`, or a
title without a separator that is long or holds clause punctuation (`第三章里，他说……`), or a title that ends a
sentence with 。 after a comma, or an end mark (`第一章完`). Prose that mentions 第三章 inside a sentence never
starts with it and is never a heading. A volume heading may carry its first chapter's heading on the same line
(`第一卷 少年 第一章 出山`): `parse_line` gives both.

Bare numbers (`001 标题`, `1. 标题`, `001` alone) are only candidates here (`parse_bare_number`, unit `BARE_UNIT`):
whether a book's bare numbers are its headings is decided over the whole book by `studio.importing.bare_headings`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from studio.importing.numerals import CHINESE_NUMERAL_CHARS, parse_number

HeadingKind = Literal["chapter", "volume", "prologue", "extra"]

MAX_HEADING_CHARS = 50
MAX_BARE_TITLE = 20  # a title glued to the number (no separator) longer than this is prose
BARE_UNIT = "#"  # the `unit` of a bare-number heading (`001 标题`): no word, only the number
ENGLISH_UNIT = "chapter"

_NUM = rf"[0-9０-９{CHINESE_NUMERAL_CHARS}]+"
_SEP = r"[\s\u3000:：、·•\-—–_.．]"
_LEAD = re.compile(r"^[\s\u3000]*(?:#{1,6}[\s\u3000]*)?(?:正文卷?[\s\u3000]+)?[【\[〔]?[\s\u3000]*")
# A chapter heading after a volume heading's title on the same line: `第一卷 少年 第一章 出山`.
_INNER_CHAPTER = re.compile(rf"(?:^|[\s\u3000]+)(?=(?:第[\s\u3000]*{_NUM}[\s\u3000]*[章回节節话話]|序章|楔子|引子))")
_CLOSE = re.compile(r"^[\s\u3000]*[】\]〕]")
_CHAPTER = re.compile(rf"第[\s\u3000]*(?P<num>{_NUM})[\s\u3000]*(?P<unit>[章回节節话話])(?P<rest>.*)")
_ENGLISH = re.compile(r"(?:chapter|ch\.)[\s\u3000]*(?P<num>[0-9０-９]+)(?P<rest>.*)", re.IGNORECASE)
_VOLUME = re.compile(rf"(?:第[\s\u3000]*(?P<num>{_NUM})[\s\u3000]*(?P<unit>[卷部])|卷[\s\u3000]*(?P<num2>{_NUM}))"
                     r"(?P<rest>.*)")
_PROLOGUE = re.compile(r"(?P<word>序章|序幕|序曲|楔子|引子|序)(?P<rest>.*)")
_EXTRA = re.compile(rf"(?P<word>番外篇?|外传|外傳|后记|後記|完本感言|尾声|尾聲)[\s\u3000]*(?P<num>{_NUM})?(?P<rest>.*)")
_SEPARATED = re.compile(rf"^{_SEP}")
_CLAUSE = re.compile(r"[，,；;。…“”「」『』\"]")
# `第一章完` closes a chapter, it does not open one.
_END_MARKS = {"完", "完结", "结束", "終", "终", "完毕", "待续", "未完待续", "（完）", "(完)"}
# Words that must stand alone or before a separator: as the start of a prose line they are common.
_STRICT_WORDS = {"序", "后记", "後記", "尾声", "尾聲"}


@dataclass(frozen=True)
class Heading:
    kind: HeadingKind
    number: int | None  # the number written in the heading (None: none written, or a prologue/extra without)
    unit: str  # 章 回 节 话 chapter 卷 部; the word for prologues and extras
    title: str
    label: str  # prologues and extras: their word with the number as written (番外一); 尾声 for the epilogue
    text: str  # the heading line as it stands, stripped


def parse_heading(line: str) -> Heading | None:
    """The heading `line` is, or None when it is body text."""
    stripped = line.strip(" \t\u3000\ufeff")
    if not stripped or len(stripped) > MAX_HEADING_CHARS:
        return None
    body = _LEAD.sub("", stripped, count=1)
    if not body:
        return None
    first = body[0]
    if first == "第":
        return _numbered(body, stripped)
    if first in "Cc":
        match = _ENGLISH.fullmatch(body)
        if match:
            return _finish("chapter", _int(match["num"]), ENGLISH_UNIT, match["rest"], "", stripped)
        return None
    if first == "卷":
        return _volume(body, stripped)
    if first in "序楔引":
        match = _PROLOGUE.fullmatch(body)
        return _finish("prologue", None, match["word"], match["rest"], match["word"], stripped) if match else None
    if first in "番外后後完尾":
        match = _EXTRA.fullmatch(body)
        if not match:
            return None
        word, num = match["word"], match["num"]
        kind: HeadingKind = "chapter" if word in ("尾声", "尾聲") else "extra"
        label = word + (num or "")
        return _finish(kind, None, word, match["rest"], label, stripped)
    return None


def parse_line(line: str) -> list[Heading]:
    """The headings on one line: none, one, or a volume and its first chapter (`第一卷 少年 第一章 出山`)."""
    heading = parse_heading(line)
    if heading is None or heading.kind != "volume" or not heading.title:
        return [heading] if heading is not None else []
    for match in _INNER_CHAPTER.finditer(heading.title):
        inner = parse_heading(heading.title[match.end():])
        if inner is None or inner.kind == "volume":
            continue
        cut = heading.text.rfind(heading.title[match.end():])  # the title is a tail of the line, maybe trimmed
        title = heading.title[: match.start()].strip()
        return [replace(heading, title=title, text=heading.text[:cut].rstrip(" \t\u3000")),
                replace(inner, text=heading.text[cut:])]
    return [heading]


def _int(text: str) -> int | None:
    return parse_number(text)


def _numbered(body: str, stripped: str) -> Heading | None:
    match = _CHAPTER.fullmatch(body)
    if match:
        number = parse_number(match["num"])
        if number is None:
            return None
        unit = {"節": "节", "話": "话"}.get(match["unit"], match["unit"])
        return _finish("chapter", number, unit, match["rest"], "", stripped)
    return _volume(body, stripped)


def _volume(body: str, stripped: str) -> Heading | None:
    match = _VOLUME.fullmatch(body)
    if not match:
        return None
    number = parse_number(match["num"] or match["num2"])
    if number is None:
        return None
    rest = match["rest"]
    unit = match["unit"] or "卷"
    if unit == "部" and rest.startswith("分"):
        return None  # 第二部分: a part of a text, not a volume
    if match["num2"] is not None and rest and not _SEPARATED.match(rest) and not _CLOSE.match(rest):
        return None  # 卷一 needs a separator: 卷一阵风 is prose
    return _finish("volume", number, unit, rest, "", stripped)


def _finish(kind: HeadingKind, number: int | None, unit: str, rest: str, label: str,
            stripped: str) -> Heading | None:
    rest = _CLOSE.sub("", rest, count=1)
    title = rest.strip(" \t\u3000:：、·•-—–_.．】]〕")
    separated = not rest or bool(_SEPARATED.match(rest))
    if not separated:
        if unit in _STRICT_WORDS or (kind == "prologue" and unit == "序"):
            return None
        if len(title) > MAX_BARE_TITLE or _CLAUSE.search(title):
            return None
    if "。" in title.rstrip("。") or (title.endswith("。") and _CLAUSE.search(title.rstrip("。"))):
        return None  # sentences, not a title
    if kind == "chapter" and title in _END_MARKS:
        return None
    return Heading(kind=kind, number=number, unit=unit, title=title, label=label, text=stripped)


def chapter_unit(headings: Iterable[Heading]) -> str | None:
    """The unit of the manuscript's chapters: 章, 回 or chapter when they head two chapters or more (the most used
    of them), else 话 or 节; the smaller units inside chapters then stay body text."""
    counts = Counter(h.unit for h in headings if h.kind == "chapter" and h.number is not None)
    for tier in (("章", "回", ENGLISH_UNIT), ("话", "节")):
        used = [unit for unit in tier if counts[unit]]
        if used and (sum(counts[u] for u in used) >= 2 or tier[0] == "话" or not any(counts.values())):
            return max(used, key=lambda unit: (counts[unit], -tier.index(unit)))
    return max(counts, key=lambda unit: counts[unit]) if counts else None


def is_chapter_heading(heading: Heading, unit: str | None) -> bool:
    """Whether `heading` starts a chapter when the manuscript's chapter unit is `unit`."""
    if heading.kind != "chapter":
        return heading.kind in ("prologue", "extra")
    return heading.number is None or heading.unit == unit


_BARE = re.compile(r"(?P<num>[0-9０-９]{1,4})(?P<rest>.*)")
_STYLE_SEPARATORS = {" ": " ", "\u3000": " ", "\t": " ", ".": ".", "．": ".", "、": "、", ":": ":", "：": ":"}


def parse_bare_number(line: str) -> Heading | None:
    """The bare-number heading candidate `line` is (kind chapter, unit `BARE_UNIT`), or None."""
    stripped = line.strip(" \t\u3000\ufeff")
    if not stripped or len(stripped) > MAX_HEADING_CHARS:
        return None
    body = _LEAD.sub("", stripped, count=1)
    match = _BARE.fullmatch(body)
    if match is None:
        return None
    rest = match["rest"]
    if rest and not (_SEPARATED.match(rest) or _CLOSE.match(rest)):
        return None  # 1984年, 3个人: a number inside prose
    number = parse_number(match["num"])
    heading = _finish("chapter", number, BARE_UNIT, rest, "", stripped) if number is not None else None
    if heading is None:
        return None
    title = heading.title
    if title[:1].isdigit() or len(title) > MAX_BARE_TITLE or _CLAUSE.search(title):
        return None  # 1.5公里, 10:30, a sentence
    return heading


def bare_digits(heading: Heading) -> str:
    """The digits a bare-number heading is written with (`001`)."""
    match = _BARE.fullmatch(_LEAD.sub("", heading.text, count=1))
    return match["num"] if match is not None else ""


def bare_style(heading: Heading) -> tuple[str, bool]:
    """(separator kind, has a title) of a bare-number heading: what the headings of one book share. The kinds:
    "" (nothing after the number), " ", ".", "、", ":", "-" (dashes, `_`, `·`), "]" (a closing bracket)."""
    body = _LEAD.sub("", heading.text, count=1)
    match = _BARE.fullmatch(body)
    after = match["rest"] if match is not None else ""
    if _CLOSE.match(after):
        return ("]", bool(heading.title))
    first = after[:1]
    return (_STYLE_SEPARATORS.get(first, "-" if first else ""), bool(heading.title))
