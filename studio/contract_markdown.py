"""Markdown chapter contracts (`volumes/vol-NN/chapter-contracts/chapter-NNN.md`), as the reference plugin
DankerMu/novel-writer-plugin writes them (its `templates/chapter-contract.md`), read into `ChapterContract`.

Format::

    ## 第 3 章：子时收渡                  <- chapter number and title
    ### 基本信息
    - **章号**：3                         <- must agree with the heading
    - **故事线**：main-arc                <- storyline_id (a slug)
    - **POV**：shen-zhao
    - **场景**：青石渡
    ### 事件（本章发生了什么）            <- a required objective `OBJ-NNN-event` (what the judge checks)
    ### 钩子                             <- `- **类型**：cliffhanger` -> excitement_type
    ### 事件中自然推进的伏笔               <- `- F-001：……（advanced）` -> postconditions.foreshadowing_updates
    ### 世界规则约束                       <- `- W-001：……` -> preconditions.required_world_rules
    ### 验收标准                          <- numbered list -> acceptance_criteria
    ### 互动设计 / 质感锚点 / 声音节拍 / …   <- kept as text

Rules: nothing is dropped. Every section's text is kept verbatim in the contract's extra field `sections`
({heading: text}, in file order; text before the first heading under ""), so the writer and judge see it all.
Only the lines above are interpreted. A foreshadowing line says its action with `planted`/`advanced`/
`resolved` or 埋/推进/回收; without one the id is kept in `foreshadowing_mentions` (no action is guessed).
A bad chapter number, a 章号 that disagrees with the heading or the file name, and a storyline that is
not a slug are reported together as one FormatError naming file and line. The file is read only, never
written: the plugin owns it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from studio.errors import FormatError, Problem
from studio.fileio import read_text
from studio.ids import is_slug
from studio.models.contract import ChapterContract
from studio.models.state import is_foreshadow_id
from studio.outline import chinese_numeral

_CHAPTER_HEADING = re.compile(
    r"^#{1,3}[ \t]*第[ \t]*([0-9０-９]+|[零〇一二两三四五六七八九十百千万]+)[ \t]*章(?:[ \t:：．.、-]*(.*?))?[ \t#]*$"
)
_SECTION = re.compile(r"^#{3,6}[ \t]+(.+?)[ \t#]*$")
_BULLET = re.compile(r"^[ \t]*[-*+][ \t]*(?:\*\*)?([^:：*\n]{1,40}?)(?:\*\*)?[ \t]*[:：][ \t]*(?:\*\*)?[ \t]*(.*?)[ \t]*$")
_NUMBERED = re.compile(r"^[ \t]*(?:\d+[.)、]|[-*+])[ \t]+(.+?)[ \t]*$")
_RULE_ID = re.compile(r"\b([A-Z]{1,3}-[A-Z0-9]+(?:-[A-Z0-9]+)*)")
_ACTIONS: tuple[tuple[str, str], ...] = (
    ("planted", "planted"),
    ("advanced", "advanced"),
    ("resolved", "resolved"),
    ("回收", "resolved"),
    ("兑现", "resolved"),
    ("推进", "advanced"),
    ("埋", "planted"),
)
_EXCITEMENT_SPLIT = re.compile(r"[ \t]*[/、,，|][ \t]*")


def _number(text: str) -> int:
    if text[0] in "0123456789０１２３４５６７８９":
        return int(text.translate(str.maketrans("０１２３４５６７８９", "0123456789")))
    return chinese_numeral(text)


def _section_kind(title: str) -> str:
    if re.match(r"^事件(?:$|[（(])", title):  # not 事件中自然流露的角色特质
        return "event"
    for key, kind in (
        ("基本信息", "basic"),
        ("伏笔", "foreshadowing"),
        ("世界规则", "world_rules"),
        ("验收标准", "acceptance"),
        ("钩子", "hook"),
    ):
        if key in title:
            return kind
    return "other"


def _action(text: str) -> str | None:
    for word, action in _ACTIONS:
        if word in text:
            return action
    return None


def parse_contract_markdown(
    text: str, path: Path | str = "chapter-contract.md", chapter: int | None = None
) -> ChapterContract:
    """Parse one Markdown contract. `chapter` (from the file name) must agree with the text when given."""
    problems: list[Problem] = []
    sections: dict[str, list[str]] = {}
    section_lines: dict[str, int] = {}
    heading_number: int | None = None
    title = ""
    current = ""
    for lineno, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = raw.rstrip()
        stripped = line.strip()
        m = _CHAPTER_HEADING.match(stripped) if heading_number is None and not stripped.startswith("###") else None
        if m:
            try:
                heading_number = _number(m.group(1))
            except ValueError:
                problems.append(Problem(path, f"cannot read the chapter number {m.group(1)!r}", line=lineno))
                heading_number = 0
            title = (m.group(2) or "").strip()
            continue
        s = _SECTION.match(stripped)
        if s:
            current = s.group(1).strip()
            if current in sections:  # a repeated heading: keep both texts apart
                current = f"{current} ({lineno})"
            sections[current] = []
            section_lines[current] = lineno
            continue
        sections.setdefault(current, []).append(line)
        section_lines.setdefault(current, lineno)

    data: dict[str, Any] = {}
    pre: dict[str, Any] = {}
    post: dict[str, Any] = {}
    objectives: list[dict[str, Any]] = []
    mentions: list[str] = []
    stated: tuple[int, int] | None = None  # (章号, line)
    for name, lines in sections.items():
        kind = _section_kind(name)
        first = section_lines[name]
        body = "\n".join(lines).strip()
        if kind == "basic":
            for offset, line in enumerate(lines, start=1):
                b = _BULLET.match(line)
                if not b:
                    continue
                key, value = b.group(1).strip(), b.group(2).strip()
                if key == "章号":
                    try:
                        stated = (_number(value), first + offset)
                    except (ValueError, IndexError):
                        problems.append(Problem(path, f"章号 {value!r} is not a chapter number", line=first + offset))
                elif key == "故事线":
                    if is_slug(value):
                        data["storyline_id"] = value
                    else:
                        problems.append(
                            Problem(path, f"storyline {value!r} is not a slug id (e.g. main-arc)", line=first + offset)
                        )
                elif key.upper() == "POV":
                    data["pov"] = value
                elif key in ("场景", "地点"):
                    data["location"] = value
        elif kind == "event" and body:
            data["event"] = body
        elif kind == "hook":
            for line in lines:
                b = _BULLET.match(line)
                if b and b.group(1).strip() == "类型":
                    data["excitement_type"] = [t for t in _EXCITEMENT_SPLIT.split(b.group(2).strip()) if t]
        elif kind == "world_rules":
            ids = [m.group(1) for line in lines for m in [_RULE_ID.search(line)] if m]
            if ids:
                pre["required_world_rules"] = list(dict.fromkeys(ids))
        elif kind == "foreshadowing":
            updates: dict[str, str] = {}
            for line in lines:
                b = _BULLET.match(line)
                if not b or not is_foreshadow_id(b.group(1).strip()):
                    continue
                fid, rest = b.group(1).strip(), b.group(2)
                action = _action(rest)
                if action is None:
                    mentions.append(fid)
                else:
                    updates[fid] = action
            if updates:
                post["foreshadowing_updates"] = updates
        elif kind == "acceptance":
            items = [n.group(1) for line in lines for n in [_NUMBERED.match(line)] if n]
            data["acceptance_criteria"] = items

    number = heading_number or (stated[0] if stated else None) or chapter
    if number is None or number < 1:
        problems.append(Problem(path, "no chapter heading (## 第 N 章：名) and no 章号 line", line=1))
        number = 1
    if stated is not None and stated[0] != number:
        problems.append(Problem(path, f"章号 {stated[0]} disagrees with the heading's chapter {number}", line=stated[1]))
    if chapter is not None and number != chapter:
        problems.append(Problem(path, f"the text is chapter {number} but the file name says chapter {chapter}"))
    if problems:
        raise FormatError(problems)
    if "event" in data:
        objectives.append(
            {"id": f"OBJ-{number:03d}-event", "type": "event", "required": True, "description": data["event"]}
        )
    if mentions:
        data["foreshadowing_mentions"] = list(dict.fromkeys(mentions))
    return ChapterContract.parse_data(
        {
            "chapter": number,
            **({"title": title} if title else {}),
            **data,
            "preconditions": pre,
            "objectives": objectives,
            "postconditions": post,
            "sections": {name: "\n".join(lines).strip() for name, lines in sections.items() if "\n".join(lines).strip()},
            "source_format": "markdown",
        },
        path,
    )


def load_contract_markdown(path: Path, chapter: int | None = None) -> ChapterContract:
    return parse_contract_markdown(read_text(path), path, chapter)


__all__ = ["load_contract_markdown", "parse_contract_markdown"]
