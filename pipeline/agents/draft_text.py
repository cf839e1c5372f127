"""A writer reply turned into chapter text, and replies that are no chapter at all (issue 9 item 7).

`clean_draft` takes the chapter part of a reply (before the state-hints delimiter) and removes, in this order:
- code fence lines (```` ``` ```` or ```` ```markdown ````, also `~~~`): Chinese prose never has one, a model
  wraps its answer in them;
- a preamble: text before the first `# 第N章` heading when it is at most `PREAMBLE_MAX_CHARS` characters (a
  longer one may be the author's prose and is kept); with no heading, a first line that talks to the user
  (`好的，以下是第3章：`, `Sure, here is ...`) and ends with a colon or is at most `PREAMBLE_MAX_CHARS`;
- repeated headings: right after the heading, another heading of the same chapter, a bold or plain line that
  repeats `第N章` or the title;
- a closing remark to the user at the end (`以上是第3章……`, `希望你喜欢`, `如需修改……`), at most
  `PREAMBLE_MAX_CHARS` characters. `（本章完）` and the like are prose conventions and stay.
Nothing else is touched.

`not_a_chapter` says why a cleaned text is not a chapter: a refusal or apology (the first paragraph, not a quoted
line, apologises or says it cannot write), or an outline (at least `OUTLINE_MIN_ITEMS` list items or
sub-headings making up at least half of the paragraphs). Such a reply is never committed: the writer drafts
again (`pipeline.agents.writer`), and after its redrafts the stage fails, resumable.
"""

from __future__ import annotations

import re

from studio.checks.paragraphs import Paragraphs

__all__ = ["OUTLINE_MIN_ITEMS", "PREAMBLE_MAX_CHARS", "clean_draft", "not_a_chapter"]

PREAMBLE_MAX_CHARS = 120
OUTLINE_MIN_ITEMS = 5

_FENCE = re.compile(r"^[ \t]*(```|~~~)[A-Za-z0-9_-]*[ \t]*$")
_HEADING = re.compile(r"^\s*#{1,3}\s*第\s*[0-9０-９零〇一二两三四五六七八九十百千万]+\s*章")
_CHAPTER_MARK = re.compile(r"第\s*[0-9０-９零〇一二两三四五六七八九十百千万]+\s*章")
_TALK = re.compile(
    r"^\s*(好的|好，|当然|没问题|以下是|下面是|这是|根据(您|你)的|按照(您|你)的|遵照|我将|我来|"
    r"Sure|Certainly|Of course|Here is|Here's|Below is)",
    re.IGNORECASE,
)
_CLOSING = re.compile(
    r"^\s*(以上(就)?是|希望(您|你)|如需|如果(您|你)?需要|需要我|如有需要|若需|（?注[:：]|Let me know|I hope)", re.IGNORECASE
)
_REFUSAL = re.compile(
    r"^\s*(抱歉|对不起|很抱歉|非常抱歉|不好意思|我无法|我不能|我没法|作为一?个?(AI|人工智能|语言模型|助手)|"
    r"I'm sorry|I am sorry|Sorry|I can't|I cannot|I won't|As an AI)",
    re.IGNORECASE,
)
_CANNOT = re.compile(r"(无法|不能|不便|没法|不可以|拒绝|can't|cannot|unable|won't)", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*([-*+•]\s|\d+[.、)）]\s*|[一二三四五六七八九十]+[、.]|#{2,}\s|第[一二三四五六七八九十\d]+(幕|场|节)[：:])")
_QUOTES = "“「『\"'"


def _strip_fences(lines: list[str]) -> list[str]:
    return [line for line in lines if not _FENCE.match(line)]


def _drop_preamble(lines: list[str]) -> list[str]:
    heading = next((i for i, line in enumerate(lines) if _HEADING.match(line)), None)
    if heading is not None:
        before = "".join(lines[:heading]).strip()
        return lines[heading:] if len(before) <= PREAMBLE_MAX_CHARS else lines
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return lines
    line = lines[first].strip()
    if _TALK.match(line) and (line.endswith(("：", ":")) or len(line) <= PREAMBLE_MAX_CHARS) and not line.startswith(
        tuple(_QUOTES)
    ):
        return lines[first + 1 :]
    return lines


def _is_repeat(line: str, title: str) -> bool:
    core = line.strip().strip("#*_ 　").strip()
    if not core:
        return False
    if _HEADING.match(line) or (_CHAPTER_MARK.match(core) and len(core) <= 30):
        return True
    return bool(title) and core == title


def _drop_repeated_headings(lines: list[str]) -> list[str]:
    if not lines or not _HEADING.match(lines[0]):
        return lines
    title = _CHAPTER_MARK.sub("", lines[0].lstrip("# ")).strip(" ：:　")
    out = [lines[0]]
    rest = lines[1:]
    while True:
        index = next((i for i, line in enumerate(rest) if line.strip()), None)
        if index is None or not _is_repeat(rest[index], title):
            break
        rest = rest[index + 1 :]
    return out + rest


def _drop_closing(lines: list[str]) -> list[str]:
    last = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), None)
    if last is None:
        return lines
    line = lines[last].strip()
    if len(line) <= PREAMBLE_MAX_CHARS and _CLOSING.match(line):
        return lines[:last]
    return lines


def clean_draft(text: str) -> str:
    """The chapter text of a writer reply's chapter part (see the module rules), stripped."""
    lines = text.lstrip("\ufeff").splitlines()
    lines = _strip_fences(lines)
    lines = _drop_preamble(lines)
    lines = _drop_repeated_headings(lines)
    lines = _drop_closing(lines)
    return "\n".join(lines).strip()


def not_a_chapter(text: str) -> tuple[str, str] | None:
    """(kind, detail) when the cleaned text is not a chapter, else None: ("refusal", its first words) or
    ("outline", the number of list items and sub-headings)."""
    paras = [p.text for p in Paragraphs(text)]
    if not paras:
        return None
    first = paras[0]
    if not first.startswith(tuple(_QUOTES)) and _REFUSAL.match(first) and _CANNOT.search(first):
        return "refusal", first[:30]
    items = sum(1 for p in paras if _LIST_ITEM.match(p))
    if items >= OUTLINE_MIN_ITEMS and items * 2 >= len(paras):
        return "outline", str(items)
    return None
