"""Punctuation hygiene: half-width punctuation in Chinese text, "..." for ……, unpaired “” and 「」.

Rules:

- a half-width `, ? ! : ; ( )` or straight `"` next to a Han character (either side) is reported; `.` only
  after a Han character and not in a run of dots (3.14 and URLs are left alone);
- runs of three or more `.` or `。` stand for ……;
- quotes are paired within a paragraph; an opening quote left open is fine when the next paragraph opens with
  the same quote (multi-paragraph speech); a closing quote with no opening one, or an opening one nothing
  follows up, is reported once each;
- half-width marks and ellipses are reported once per mark and chapter (first place, count), so a chapter
  typed with an English keyboard gives a handful of findings, not hundreds; `fix_punctuation` applies the
  suggested replacements to a text (straight quotes alternate “ and ” within a paragraph).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from studio.checks.registry import ChapterText, CheckContext
from studio.i18n import Catalog, tr
from studio.models.findings import Finding

FULL_WIDTH = {",": "，", "?": "？", "!": "！", ":": "：", ";": "；", "(": "（", ")": "）", ".": "。"}
_HAN = r"[\u4e00-\u9fff]"
_HALF = re.compile(rf"(?<={_HAN})[,?!:;()]|[,?!:;()](?={_HAN})|(?<={_HAN})\.(?![.\w])")
_STRAIGHT_QUOTE = re.compile(rf'(?<={_HAN})"|"(?={_HAN})')
_ELLIPSIS = re.compile(r"\.{3,}|。{3,}")
PAIRS = {"“": "”", "「": "」"}
CLOSERS = {v: k for k, v in PAIRS.items()}
_QUOTE_MARKS = re.compile("[" + "".join(PAIRS) + "".join(CLOSERS) + "]")

MESSAGES: Catalog = {
    "half": (
        "中文里用了半角「{mark}」，应为「{fix}」（本章 {count} 处）",
        "half-width '{mark}' in Chinese text, use '{fix}' ({count} in this chapter)",
    ),
    "ellipsis": (
        "省略号应写作「……」（本章 {count} 处）",
        "write the ellipsis as '……' ({count} in this chapter)",
    ),
    "unclosed": ("引号「{mark}」没有配对的「{close}」", "quote '{mark}' is never closed with '{close}'"),
    "unopened": ("引号「{mark}」前面没有「{open}」", "closing quote '{mark}' has no opening '{open}'"),
}


ELLIPSIS_MARK = "..."  # the mark key of every ellipsis run (..., 。。。), as in `fix_punctuation(marks=...)`


def fix_punctuation(text: str, marks: Collection[str] | None = None) -> str:
    """The text with half-width marks, straight quotes and dot ellipses replaced (what the findings suggest);
    with `marks`, only those (`ELLIPSIS_MARK`, '"', or a half-width mark such as ",")."""

    def wanted(mark: str) -> bool:
        return marks is None or mark in marks

    if wanted(ELLIPSIS_MARK):
        text = _ELLIPSIS.sub("……", text)
    text = _HALF.sub(lambda m: FULL_WIDTH[m.group(0)] if wanted(m.group(0)) else m.group(0), text)
    if not wanted('"'):
        return text
    lines = []
    for line in text.split("\n"):
        if '"' in line and re.search(_HAN, line):
            parts = line.split('"')
            line = parts[0] + "".join(("“" if i % 2 == 0 else "”") + p for i, p in enumerate(parts[1:]))
        lines.append(line)
    return "\n".join(lines)


class PunctuationCheck:
    kind = "punctuation"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        out: list[Finding] = []
        for chapter in ctx.chapters:
            out.extend(self._marks(chapter, ctx))
            out.extend(self._quotes(chapter, ctx))
        return out

    def _marks(self, chapter: ChapterText, ctx: CheckContext) -> list[Finding]:
        groups: dict[str, list[int]] = {}
        for para in chapter.paras:
            for m in _ELLIPSIS.finditer(para.text):
                groups.setdefault("...", []).append(para.start + m.start())
            for m in _HALF.finditer(para.text):
                groups.setdefault(m.group(0), []).append(para.start + m.start())
            for m in _STRAIGHT_QUOTE.finditer(para.text):
                groups.setdefault('"', []).append(para.start + m.start())
        out = []
        for mark, positions in groups.items():
            pos = positions[0]
            if mark == "...":
                text = _ELLIPSIS.match(chapter.text, pos)
                shown = text.group(0) if text else mark
                message = tr(MESSAGES, "ellipsis", ctx.lang, count=len(positions))
                out.append(
                    chapter.finding(
                        self.kind, pos, shown, suggestion="……", count=len(positions), message=message
                    )
                )
                continue
            fix = "“”" if mark == '"' else FULL_WIDTH[mark]
            message = tr(MESSAGES, "half", ctx.lang, mark=mark, fix=fix, count=len(positions))
            out.append(
                chapter.finding(self.kind, pos, mark, suggestion=fix, count=len(positions), message=message)
            )
        return out

    def _quotes(self, chapter: ChapterText, ctx: CheckContext) -> list[Finding]:
        out = []
        items = chapter.paras.items
        for i, para in enumerate(items):
            stack: list[tuple[str, int]] = []
            for m in _QUOTE_MARKS.finditer(para.text):  # the quote marks only, not every character
                j, ch = m.start(), m.group(0)
                if ch in PAIRS:
                    stack.append((ch, para.start + j))
                elif ch in CLOSERS:
                    if stack and stack[-1][0] == CLOSERS[ch]:
                        stack.pop()
                    else:
                        message = tr(MESSAGES, "unopened", ctx.lang, mark=ch, open=CLOSERS[ch])
                        out.append(
                            chapter.finding(self.kind, para.start + j, ch, severity="low", message=message)
                        )
            if not stack:
                continue
            mark, pos = stack[0]
            following = items[i + 1].text if i + 1 < len(items) else ""
            if following.startswith(mark):
                continue  # multi-paragraph speech: each paragraph opens, only the last closes
            message = tr(MESSAGES, "unclosed", ctx.lang, mark=mark, close=PAIRS[mark])
            out.append(chapter.finding(self.kind, pos, mark, severity="low", message=message))
        return out
