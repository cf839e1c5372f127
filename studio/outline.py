"""`volumes/vol-NN/outline.md`: the volume outline PlotArchitect writes and the author may edit.

Format (seed 000 section 5.3: every chapter has Storyline/POV/Location/Conflict/Arc/Foreshadowing/StateChanges)::

    # 第一卷 子时灯                      <- volume header: title heading + synopsis, up to the first chapter
    本卷梗概……

    ## 第1章 子时送单                    <- one heading per chapter; 第12章 or 第十二章
    - Storyline: main-arc               <- a slug id of storylines.json
    - POV: shen-zhao
    - Location: 青石巷
    - Conflict: ……
    - Arc: ……
    - Foreshadowing: ……
    - StateChanges: ……
    其余自由文字是本章备注 (notes)。

Keys are case-insensitive, `:` or `：` both work, and the Chinese aliases 故事线/视角/地点/冲突/弧线/伏笔/状态变更
are accepted. A key may be set in bold or code (`- **Storyline**: main-arc`, `- **POV:** shen-zhao`, the
reference plugin DankerMu/novel-writer-plugin writes the first): the emphasis is not part of the key.
The plugin's outline (`## 第 V 卷大纲`, read as the title, then `### 第 N 章: 名` blocks with nine such lines, its extra keys
`TransitionHint` and `Phase` kept in `extra`) is read this way; its `<!-- [NOTE] ... -->` lines are notes. An unknown `- Key: value` line with an ASCII key goes to `extra`; any other non-blank line
(including `- 沈照心想：……`) is a note.
`parse_outline` reports every problem at once (file and line numbers) as one FormatError;
`render_outline` writes the canonical form, and `parse_outline(render_outline(x)) == x`.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from studio.errors import FormatError, Problem
from studio.ids import is_slug

_CHAPTER_HEADING = re.compile(
    r"^#{2,4}[ \t]*第[ \t]*([0-9０-９]+|[零〇一二两三四五六七八九十百千万]+)[ \t]*章(?:[ \t:：．.、-]*(.*?))?[ \t#]*$"
)
_CHAPTER_HEADING_ANYWHERE = re.compile(r"^[ \t]*" + _CHAPTER_HEADING.pattern[1:], re.MULTILINE)
_TITLE_HEADING = re.compile(r"^#[ \t]*(?!#)(.*?)[ \t#]*$")
_VOLUME_HEADING = re.compile(r"^##[ \t]*(第[ \t]*[0-9０-９零〇一二两三四五六七八九十百千万]+[ \t]*卷.*?)[ \t#]*$")  # the plugin
_FIELD = re.compile(r"^[ \t]*[-*+][ \t]*([^:：\n]{1,24}?)[ \t]*[:：][ \t]*(.*?)[ \t]*$")
_EXTRA_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_ \-]*$")
_EMPHASIS = "*_`"

# canonical field name -> the key written by render_outline
FIELD_KEYS: dict[str, str] = {
    "storyline": "Storyline",
    "pov": "POV",
    "location": "Location",
    "conflict": "Conflict",
    "arc": "Arc",
    "foreshadowing": "Foreshadowing",
    "state_changes": "StateChanges",
}

_ALIASES: dict[str, str] = {
    "storyline": "storyline",
    "storylineid": "storyline",
    "故事线": "storyline",
    "pov": "pov",
    "视角": "pov",
    "视角人物": "pov",
    "location": "location",
    "地点": "location",
    "场景": "location",
    "conflict": "conflict",
    "冲突": "conflict",
    "核心冲突": "conflict",
    "arc": "arc",
    "弧线": "arc",
    "角色弧线": "arc",
    "人物弧线": "arc",
    "foreshadowing": "foreshadowing",
    "伏笔": "foreshadowing",
    "statechanges": "state_changes",
    "statechange": "state_changes",
    "状态变更": "state_changes",
    "状态变化": "state_changes",
}

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_UNITS = {"十": 10, "百": 100, "千": 1000}


def chinese_numeral(text: str) -> int:
    """Chinese numerals to int: 十二 -> 12, 一百零三 -> 103, 两千 -> 2000, 一二三 -> 123 (digit by digit)."""
    if not text:
        raise ValueError("empty numeral")
    if all(ch in _DIGITS for ch in text):
        return int("".join(str(_DIGITS[ch]) for ch in text))
    total = 0  # finished sections above 万
    section = 0
    digit: int | None = None
    for ch in text:
        if ch in _DIGITS:
            digit = _DIGITS[ch]
        elif ch in _UNITS:
            section += (1 if digit is None else digit) * _UNITS[ch]
            digit = None
        elif ch == "万":
            total += (section + (digit or 0)) * 10000
            section, digit = 0, None
        else:
            raise ValueError(f"not a Chinese numeral: {text!r}")
    return total + section + (digit or 0)


def _chapter_number(text: str) -> int:
    if text[0] in "0123456789０１２３４５６７８９":
        return int(text.translate(str.maketrans("０１２３４５６７８９", "0123456789")))
    return chinese_numeral(text)


def chapter_numbers(text: str) -> list[int]:
    """The chapter numbers of an outline's headings, in order, without building the model (a fast index for
    checks that only ask which volume holds a chapter); unreadable numbers and fenced code are skipped."""
    out: list[int] = []
    if "```" not in text and "~~~" not in text:  # no fences: one pass over the headings
        for found in _CHAPTER_HEADING_ANYWHERE.finditer(text):
            try:
                out.append(_chapter_number(found.group(1)))
            except ValueError:
                continue
        return out
    in_fence = False
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            in_fence = not in_fence
        elif not in_fence and (m := _CHAPTER_HEADING.match(stripped)):
            try:
                out.append(_chapter_number(m.group(1)))
            except ValueError:
                continue
    return out


def _field_name(key: str) -> str | None:
    return _ALIASES.get(re.sub(r"[\s_\-]+", "", key).lower())


class OutlineChapter(BaseModel):
    """One chapter of the volume outline."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    number: int = Field(ge=1)
    title: str = ""
    storyline: str | None = None
    pov: str | None = None
    location: str | None = None
    conflict: str | None = None
    arc: str | None = None
    foreshadowing: str | None = None
    state_changes: str | None = None
    extra: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    def plan_text(self) -> str:
        """What the entry plans, as one text (title, conflict, arc, state changes, location, threads, notes):
        where the writer's context and the checks look for the characters a chapter is planned to have."""
        parts = [self.title, self.conflict, self.arc, self.state_changes, self.location, self.foreshadowing, *self.notes]
        return "\n".join(p for p in parts if p)

    @field_validator("storyline", "pov", "location", "conflict", "arc", "foreshadowing", "state_changes")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = " ".join(value.split())
        return value or None

    @field_validator("title")
    @classmethod
    def _strip_title(cls, value: str) -> str:
        return " ".join(value.split())

    @field_validator("notes")
    @classmethod
    def _strip_notes(cls, value: list[str]) -> list[str]:
        return [line.strip() for line in value if line.strip()]

    @property
    def heading(self) -> str:
        return f"第{self.number}章 {self.title}".rstrip()


class VolumeOutline(BaseModel):
    """A parsed `outline.md`: the volume header and its chapters in order."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    title: str = ""
    synopsis: str = ""
    chapters: list[OutlineChapter] = Field(default_factory=list)

    @field_validator("title")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @field_validator("synopsis")
    @classmethod
    def _strip_synopsis(cls, value: str) -> str:
        return "\n".join(line.rstrip() for line in value.strip().splitlines())

    @property
    def chapter_range(self) -> tuple[int, int] | None:
        """(first, last) chapter number, or None for an outline without chapters."""
        if not self.chapters:
            return None
        return self.chapters[0].number, self.chapters[-1].number

    def get(self, number: int) -> OutlineChapter | None:
        for chapter in self.chapters:
            if chapter.number == number:
                return chapter
        return None

    def numbers(self) -> list[int]:
        return [chapter.number for chapter in self.chapters]


def parse_outline(text: str, path: Path | str = "outline.md") -> VolumeOutline:
    """Parse an outline; every problem (duplicate or non-increasing chapter numbers, a storyline that is not a
    slug, a field given twice, a bad chapter number) is reported at once as one FormatError."""
    problems: list[Problem] = []
    header: list[str] = []
    title = ""
    chapters: list[OutlineChapter] = []
    current: dict[str, object] | None = None
    field_lines: dict[str, int] = {}
    first_line: dict[int, int] = {}  # chapter number -> heading line
    previous: tuple[int, int] | None = None  # (number, line) of the previous chapter heading

    def finish() -> None:
        if current is not None:
            chapters.append(OutlineChapter.model_validate(current))

    in_fence = False
    for lineno, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = raw.rstrip()
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            in_fence = not in_fence
        heading = None if in_fence else _CHAPTER_HEADING.match(stripped)
        if heading:
            finish()
            number: int | None
            try:
                number = _chapter_number(heading.group(1))
            except ValueError:
                problems.append(Problem(path, f"cannot read the chapter number {heading.group(1)!r}", line=lineno))
                number = None
            if number is not None and number < 1:
                problems.append(Problem(path, f"chapter number must be >= 1, got {number}", line=lineno))
                number = None
            if number is not None:
                if number in first_line:
                    problems.append(
                        Problem(path, f"chapter {number} appears twice (first at line {first_line[number]})", line=lineno)
                    )
                elif previous is not None and number <= previous[0]:
                    problems.append(
                        Problem(
                            path,
                            f"chapter {number} comes after chapter {previous[0]} (line {previous[1]}): "
                            "chapter numbers must increase",
                            line=lineno,
                        )
                    )
                first_line.setdefault(number, lineno)
                previous = (number, lineno)
            current = {"number": number or 1, "title": heading.group(2) or "", "extra": {}, "notes": []}
            field_lines = {}
            continue
        if current is None:
            if not title and not in_fence:
                m = _TITLE_HEADING.match(stripped) or _VOLUME_HEADING.match(stripped)
                if m and not _has_text(header):
                    title = m.group(1)
                    continue
            header.append(line)
            continue
        if not stripped:
            continue
        m = None if in_fence else _FIELD.match(line)
        raw_key = m.group(1).strip() if m else ""
        key = raw_key.strip(_EMPHASIS).strip()
        name = _field_name(key) or (key if _EXTRA_KEY.match(key) else None)
        if m and name is not None:
            value = m.group(2)
            if raw_key.startswith(("**", "__")) and not raw_key.endswith(raw_key[:2]):
                value = value.removeprefix(raw_key[:2]).strip()  # `- **Key:** value`: the bold closes after ':'

            if name in field_lines:
                problems.append(
                    Problem(
                        path,
                        f"chapter {current['number']}: field {key!r} given twice (first at line {field_lines[name]})",
                        line=lineno,
                    )
                )
                continue
            field_lines[name] = lineno
            if name in FIELD_KEYS:
                if name == "storyline" and value and not is_slug(value):
                    problems.append(
                        Problem(
                            path,
                            f"chapter {current['number']}: storyline {value!r} is not a slug id "
                            "(lowercase letters, digits and hyphens, e.g. main-arc)",
                            line=lineno,
                        )
                    )
                current[name] = value
            else:
                extra = current["extra"]
                assert isinstance(extra, dict)
                extra[key] = value
            continue
        notes = current["notes"]
        assert isinstance(notes, list)
        notes.append(stripped)
    finish()
    if problems:
        raise FormatError(problems)
    return VolumeOutline(title=title, synopsis="\n".join(header), chapters=chapters)


def _has_text(header: list[str]) -> bool:
    return any(line.strip() for line in header)


def render_outline(outline: VolumeOutline) -> str:
    """The canonical text of an outline (what the pipeline writes)."""
    parts: list[str] = []
    if outline.title:
        parts.append(f"# {outline.title}\n")
    if outline.synopsis:
        parts.append(outline.synopsis + "\n")
    for chapter in outline.chapters:
        lines = [f"## {chapter.heading}"]
        for name, key in FIELD_KEYS.items():
            value = getattr(chapter, name)
            if value is not None:
                lines.append(f"- {key}: {value}")
        for key, value in chapter.extra.items():
            lines.append(f"- {key}: {value}".rstrip())
        if chapter.notes:
            lines.append("")
            lines.extend(chapter.notes)
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)
