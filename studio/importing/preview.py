"""What the author reads before an import writes anything (issue 10 item 1).

`preview_lines` is the text shown by `import` and the studio's confirm screen: what was found (chapters, total
字, first and last titles, volumes with their chapter ranges, prologues and extras, the encoding read and what it
was converted to, the split mode), then the issues with their chapter positions and source numbers. It is
short enough for an 80x24 terminal: every list is folded after `FOLD` entries ("… 另有 12 处"), and no line is
longer than a title allows. `preview_data` is the same, JSON-ready (`import --json`, the studio), with every
issue unfolded.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len

from studio.i18n import Catalog, Lang, chars_text, tr, tr_count
from studio.models.manuscript import Manuscript, ManuscriptChapter, SplitIssue

FOLD = 5
TITLE_WIDTH = 24
WIDTH = 80  # terminal cells: no line of the preview is wider

MESSAGES: Catalog = {
    "found": ("找到 {chapters} 章，共 {words}（{mode}）。", "Found {chapters} chapters, {words} ({mode})."),
    "found_one": ("找到 {chapters} 章，共 {words}（{mode}）。", "Found 1 chapter, {words} ({mode})."),
    "mode_headings": ("按章节标题切分", "split at chapter headings"),
    "mode_size": ("按字数切分，约每{target}一章", "split by size"),
    "mode_blank": ("按空行切分", "split at blank lines"),
    "encoding": ("编码：{name}，已转换为 UTF-8。", "Encoding: {name}, converted to UTF-8."),
    "encoding_utf8": ("编码：UTF-8。", "Encoding: UTF-8."),
    "first": ("首章：{title}", "First: {title}"),
    "last": ("末章：{title}", "Last: {title}"),
    "volumes": ("分卷 {count} 个：", "{count} volumes:"),
    "volumes_one": ("分卷 {count} 个：", "1 volume:"),
    "volume": ("  {name}：第 {first}-{last} 章（{count} 章）", "  {name}: chapters {first}-{last} ({count})"),
    "no_volumes": ("没有分卷标题：全部 {count} 章作为第 1 卷。", "No volume headings: all {count} chapters are volume 1."),
    "no_volumes_one": ("没有分卷标题：全部 {count} 章作为第 1 卷。", "No volume headings: the chapter is volume 1."),
    "kinds": ("序章/楔子 {prologues} 个，番外 {extras} 个（单独成章并标注）。",
              "Prologues: {prologues}, extras: {extras} (kept as labelled chapters)."),
    "issues": ("需要留意 {count} 处（{kinds}）：", "{count} things to check ({kinds}):"),
    "issues_one": ("需要留意 {count} 处（{kinds}）：", "1 thing to check ({kinds}):"),
    "kind_short": ("过短 {n}", "{n} very short"),
    "kind_long": ("过长 {n}", "{n} very long"),
    "kind_gap": ("缺章 {n}", "{n} gaps"),
    "kind_gap_one": ("缺章 {n}", "1 gap"),
    "kind_repeat": ("重复 {n}", "{n} repeats"),
    "kind_repeat_one": ("重复 {n}", "1 repeat"),
    "kind_out_of_order": ("顺序颠倒 {n}", "{n} out of order"),
    "kind_no_headings": ("无标题 {n}", "no headings"),
    "kind_encoding": ("编码混杂 {n}", "{n} mixed encodings"),
    "kind_encoding_one": ("编码混杂 {n}", "1 mixed encoding"),
    "kind_front_matter": ("正文前文字 {n}", "{n} front matter"),
    "no_issues": ("没有发现可疑的切分。", "Nothing suspicious in the split."),
    "more": ("  … 另有 {count} 处", "  … {count} more"),
    "at": ("第 {position} 章", "chapter {position}"),
    "source_no": ("（原文第 {number} 章）", " (source no. {number})"),
    "short": ("{at}{src}很短：{words}", "{at}{src} is very short: {words}"),
    "long": ("{at}{src}很长：{words}（可能漏了标题）", "{at}{src} is very long: {words} (a missed heading?)"),
    "gap": ("{at}之前缺少原文第 {numbers} 章", "before {at}: source chapters {numbers} are missing"),
    "gap_one": ("{at}之前缺少原文第 {numbers} 章", "before {at}: source chapter {numbers} is missing"),
    "repeat": ("{at}{src}与前面的章号重复", "{at}{src} repeats an earlier number"),
    "out_of_order": ("{at}{src}章号顺序颠倒", "{at}{src} is out of order"),
    "no_headings": ("没有找到章节标题，已{mode}；也可以选择按{other}切分。",
                    "No chapter headings found: {mode}; splitting by {other} is also possible."),
    "other_size": ("字数", "size"),
    "other_blank": ("空行", "blank lines"),
    "encoding_mixed": ("{file} 有 {count} 行是 {encoding} 编码（第 {lines} 行），已逐行转换，请核对。",
                       "{file}: {count} lines are in {encoding} (lines {lines}), converted line by line; check them."),
    "encoding_mixed_one": ("{file} 有 {count} 行是 {encoding} 编码（第 {lines} 行），已逐行转换，请核对。",
                           "{file}: 1 line is in {encoding} (line {lines}), converted; check it."),
    "front_matter": ("正文前有 {words}不属于任何章节（已保留）", "{words} before the first chapter (kept)"),
    "skipped": ("跳过的文件：{names}", "Skipped files: {names}"),
    "more_names": (" 等 {count} 个", " and {count} more"),
    "untitled": ("（无标题）", "(untitled)"),
}

_ENCODING_NAMES = {"utf-8": "UTF-8", "gb18030": "GB18030/GBK", "big5": "Big5", "utf-16": "UTF-16",
                   "utf-32": "UTF-32"}


def encoding_name(encoding: str) -> str:
    """`gb18030` -> `GB18030/GBK`; `utf-8+big5` -> `UTF-8 + Big5`."""
    return " + ".join(_ENCODING_NAMES.get(part, part) for part in encoding.split("+"))


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def chapter_title(chapter: ManuscriptChapter, lang: Lang = "zh") -> str:
    """How a chapter is named in the preview: its heading line, else its title, else its file."""
    name = chapter.heading or chapter.title or chapter.label or chapter.source_file
    return _short(name, TITLE_WIDTH) if name else tr(MESSAGES, "untitled", lang)


def preview_lines(manuscript: Manuscript, lang: Lang = "zh", *, skipped: list[str] | None = None) -> list[str]:
    """The preview as lines for the terminal (see the module rules)."""
    m = manuscript
    chapters = m.chapters
    words = sum(c.words for c in chapters)
    out = [tr_count(MESSAGES, "found", lang, len(chapters), chapters=len(chapters), words=chars_text(words, lang),
                    mode=_mode(m, lang))]
    out.append(tr(MESSAGES, "encoding_utf8", lang) if m.encoding == "utf-8"
               else tr(MESSAGES, "encoding", lang, name=encoding_name(m.encoding)))
    if chapters:
        out.append(tr(MESSAGES, "first", lang, title=chapter_title(chapters[0], lang)))
        out.append(tr(MESSAGES, "last", lang, title=chapter_title(chapters[-1], lang)))
    if len(m.volumes) > 1 or (m.volumes and m.volumes[0].heading):
        out.append(tr_count(MESSAGES, "volumes", lang, len(m.volumes), count=len(m.volumes)))
        rows = [tr(MESSAGES, "volume", lang, name=_volume_name(v.heading or v.title, v.number, lang), first=v.first,
                   last=v.last, count=v.last - v.first + 1) for v in m.volumes]
        out.extend(_fold(rows, lang))
    elif chapters:
        out.append(tr_count(MESSAGES, "no_volumes", lang, len(chapters), count=len(chapters)))
    prologues = sum(1 for c in chapters if c.kind == "prologue")
    extras = sum(1 for c in chapters if c.kind == "extra")
    if prologues or extras:
        out.append(tr(MESSAGES, "kinds", lang, prologues=prologues, extras=extras))
    if skipped:
        out.append(tr(MESSAGES, "skipped", lang, names=_folded_names(skipped, lang)))
    if m.issues:
        counts: dict[str, int] = {}
        for issue in m.issues:
            counts[issue.kind] = counts.get(issue.kind, 0) + 1
        kinds = ("、" if lang == "zh" else ", ").join(tr_count(MESSAGES, f"kind_{kind}", lang, n, n=n)
                                                      for kind, n in counts.items())
        out.append(tr_count(MESSAGES, "issues", lang, len(m.issues), count=len(m.issues), kinds=kinds))
        out.extend(_fold(["  " + issue_text(i, lang, m) for i in m.issues], lang))
    else:
        out.append(tr(MESSAGES, "no_issues", lang))
    return [clip(line) for line in out]


def clip(line: str, width: int = WIDTH) -> str:
    """`line` cut to `width` terminal cells (a CJK character is two), with … when cut."""
    if cell_len(line) <= width:
        return line
    out = ""
    for ch in line:
        if cell_len(out + ch) > width - 1:
            break
        out += ch
    return out + "…"


def _mode(m: Manuscript, lang: Lang) -> str:
    if m.mode == "size":
        avg = sum(c.words for c in m.chapters) // max(1, len(m.chapters))
        return tr(MESSAGES, "mode_size", lang, target=chars_text(avg, lang))
    return tr(MESSAGES, f"mode_{m.mode}", lang)


def _volume_name(name: str, number: int, lang: Lang) -> str:
    if not name:
        name = f"第{number}卷" if lang == "zh" else f"Volume {number}"
    return _short(name, TITLE_WIDTH)


def _fold(rows: list[str], lang: Lang) -> list[str]:
    if len(rows) <= FOLD + 1:
        return rows
    return [*rows[:FOLD], tr(MESSAGES, "more", lang, count=len(rows) - FOLD)]


def _folded_names(names: list[str], lang: Lang) -> str:
    shown = "、".join(names[:FOLD]) if lang == "zh" else ", ".join(names[:FOLD])
    return shown + (tr(MESSAGES, "more_names", lang, count=len(names)) if len(names) > FOLD else "")


def _numbers(numbers: list[int], limit: int = 6) -> str:
    """[3, 4, 5, 9] -> "3-5、9"; long lists folded."""
    ranges: list[str] = []
    start = prev = None
    for n in numbers:
        if start is not None and prev is not None and n == prev + 1:
            prev = n
            continue
        if start is not None:
            ranges.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = n
    if start is not None:
        ranges.append(str(start) if start == prev else f"{start}-{prev}")
    shown = "、".join(ranges[:limit])
    return shown + (f" …（+{len(ranges) - limit}）" if len(ranges) > limit else "")


def issue_text(issue: SplitIssue, lang: Lang = "zh", manuscript: Manuscript | None = None) -> str:
    """One issue in the author's words, with its chapter position and source number."""
    at = tr(MESSAGES, "at", lang, position=issue.position) if issue.position else ""
    src = tr(MESSAGES, "source_no", lang, number=issue.source_number) if issue.source_number is not None else ""
    kind = issue.kind
    if kind in ("short", "long", "repeat", "out_of_order"):
        return tr(MESSAGES, kind, lang, at=at, src=src, words=chars_text(issue.words, lang))
    if kind == "gap":
        return tr_count(MESSAGES, "gap", lang, len(issue.numbers), at=at, numbers=_numbers(issue.numbers))
    if kind == "no_headings":
        used = issue.detail if issue.detail in ("size", "blank") else "size"
        other = "blank" if used == "size" else "size"
        mode = tr(MESSAGES, "mode_size", lang, target="") if used == "size" and manuscript is None else (
            _mode(manuscript, lang) if manuscript is not None else tr(MESSAGES, f"mode_{used}", lang))
        return tr(MESSAGES, "no_headings", lang, mode=mode, other=tr(MESSAGES, f"other_{other}", lang))
    if kind == "encoding":
        return tr_count(MESSAGES, "encoding_mixed", lang, len(issue.numbers), file=_short(issue.file, 16),
                        count=len(issue.numbers),
                  encoding=encoding_name(issue.detail), lines=_numbers(issue.numbers, limit=4))
    if kind == "front_matter":
        start = _short(issue.detail, 12)
        if not start:
            return tr(MESSAGES, "front_matter", lang, words=chars_text(issue.words, lang))
        return tr(MESSAGES, "front_matter", lang, words=chars_text(issue.words, lang)) + (
            f"：“{start}”" if lang == "zh" else f": \"{start}\"")
    return f"{at} {issue.detail}".strip()


def preview_data(manuscript: Manuscript, *, skipped: list[str] | None = None) -> dict[str, Any]:
    """The preview as JSON-ready data (every issue, nothing folded; chapter texts left out)."""
    m = manuscript
    chapters = m.chapters
    return {
        "skipped": list(skipped or []),
        "source": m.source,
        "encoding": m.encoding,
        "mode": m.mode,
        "chapters": len(chapters),
        "words": sum(c.words for c in chapters),
        "first": _chapter_data(chapters[0]) if chapters else None,
        "last": _chapter_data(chapters[-1]) if chapters else None,
        "volumes": [{"number": v.number, "title": v.title, "heading": v.heading, "first": v.first, "last": v.last,
                     "source_number": v.source_number} for v in m.volumes],
        "prologues": [_chapter_data(c) for c in chapters if c.kind == "prologue"],
        "extras": [_chapter_data(c) for c in chapters if c.kind == "extra"],
        "front_matter_words": sum(i.words for i in m.issues if i.kind == "front_matter"),
        "issues": [{**i.model_dump(), "text_zh": issue_text(i, "zh", m), "text_en": issue_text(i, "en", m)}
                   for i in m.issues],
    }


def _chapter_data(c: ManuscriptChapter) -> dict[str, Any]:
    return {"position": c.position, "kind": c.kind, "source_number": c.source_number, "heading": c.heading,
            "title": c.title, "label": c.label, "volume": c.volume, "words": c.words, "source_file": c.source_file,
            "line": c.line}
