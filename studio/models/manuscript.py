"""An author's existing manuscript, read and cut into chapters, before anything is written (issue 10).

Nothing here is a file of the project: a `Manuscript` is what `studio.importing.split.split_manuscript` found
in the source text, shown to the author as a preview and written by `studio.importing.build` only after the
author confirmed it. What was written is recorded in `studio.models.import_record.ImportRecord`.

Rules:
- `ManuscriptChapter.position` is the chapter number the piece becomes in the project (1-based, in reading
  order, no gaps): the numbers written in the headings (`source_number`) are kept for the preview and the
  record, never used as project numbers, so gaps and repeats in the source never leave holes in `chapters/`.
- Prologues (序章, 楔子, 引子) and extras (番外) are kept as chapters of their own with `kind` and `label` set;
  nothing in the source text is dropped: text before the first heading that is not a prologue becomes
  `front_matter` (kept in the import record's copy of the source and shown in the preview).
- `text` is the chapter body without its heading line, as it stands in the source (line breaks normalised to
  `\n`, nothing else changed).
- Volumes come from volume headings (`第N卷 …`); a manuscript without them is one volume of all chapters.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

ChapterKind = Literal["chapter", "prologue", "extra"]
SplitMode = Literal["headings", "size", "blank"]
# Kinds of `SplitIssue`; the preview explains each in the author's language.
IssueKind = Literal["short", "long", "gap", "repeat", "out_of_order", "no_headings", "encoding", "front_matter"]


class ManuscriptChapter(BaseModel):
    position: int = Field(ge=1)
    kind: ChapterKind = "chapter"
    source_number: int | None = None
    heading: str = ""
    title: str = ""
    label: str = ""
    volume: int = Field(default=1, ge=1)
    text: str
    source_file: str = ""
    line: int = Field(default=0, ge=0)
    words: int = Field(default=0, ge=0)  # 字 of `text` (studio.wordcount)


class ManuscriptVolume(BaseModel):
    number: int = Field(ge=1)
    title: str = ""
    heading: str = ""
    first: int = Field(ge=1)
    last: int = Field(ge=1)
    source_number: int | None = None
    intro: str = ""  # text between the volume heading and its first chapter, kept


class SplitIssue(BaseModel):
    kind: IssueKind
    position: int | None = None
    detail: str = ""
    source_number: int | None = None
    file: str = ""
    line: int = Field(default=0, ge=0)  # 1-based line in `file` (0: not known)
    words: int = Field(default=0, ge=0)
    numbers: list[int] = Field(default_factory=list)  # a gap's missing numbers; an encoding issue's lines


class Manuscript(BaseModel):
    source: str
    encoding: str = "utf-8"
    mode: SplitMode = "headings"
    chapters: list[ManuscriptChapter] = Field(default_factory=list)
    volumes: list[ManuscriptVolume] = Field(default_factory=list)
    issues: list[SplitIssue] = Field(default_factory=list)
    front_matter: str = ""
